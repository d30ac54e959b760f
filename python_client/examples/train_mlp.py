"""Train a small MLP with SGD entirely on an xla-server.

  python3 examples/train_mlp.py [--server HOST:PORT] [--steps N]

One computation does a whole training step (forward, backward by hand, SGD update) and
returns (loss, new parameters). The parameters stay on the server as GlobalData between
steps: only the loss comes back each step.
"""

import sys

import numpy as np

import xla_client as xc
from xla_client import ops

from _common import connect, parse_args  # pylint: disable=g-multiple-import

F32 = np.float32
S = xc.Shape.array_shape


def add_computation():
  b = xc.XlaBuilder("add")
  ops.Add(ops.Parameter(b, 0, xc.Shape.scalar_shape(F32)), ops.Parameter(b, 1, xc.Shape.scalar_shape(F32)))
  return b.build()


def build_train_step(batch, n_in, n_hidden, n_out, learning_rate):
  """(w1, b1, w2, b2, x, y) -> (mean squared error, w1', b1', w2', b2')."""
  b = xc.XlaBuilder("train_step")
  w1 = ops.Parameter(b, 0, S(F32, (n_in, n_hidden)), name="w1")
  b1 = ops.Parameter(b, 1, S(F32, (n_hidden,)), name="b1")
  w2 = ops.Parameter(b, 2, S(F32, (n_hidden, n_out)), name="w2")
  b2 = ops.Parameter(b, 3, S(F32, (n_out,)), name="b2")
  x = ops.Parameter(b, 4, S(F32, (batch, n_in)), name="x")
  y = ops.Parameter(b, 5, S(F32, (batch, n_out)), name="y")
  add = add_computation()
  zero = ops.Constant(b, F32(0))
  # Forward.
  z1 = ops.Add(ops.Dot(x, w1), b1, broadcast_dimensions=[1])
  h = ops.Tanh(z1)
  pred = ops.Add(ops.Dot(h, w2), b2, broadcast_dimensions=[1])
  diff = ops.Sub(pred, y)
  scale = F32(1.0 / (batch * n_out))
  loss = ops.Mul(ops.Reduce(b, [ops.Mul(diff, diff)], [zero], add, [0, 1]), ops.Constant(b, scale))
  # Backward: d loss / d pred = 2 (pred - y) / (batch * n_out).
  dpred = ops.Mul(diff, ops.Constant(b, F32(2) * scale))
  dw2 = ops.DotGeneral(h, dpred, (([0], [0]), ([], [])))
  db2 = ops.Reduce(b, [dpred], [zero], add, [0])
  dh = ops.DotGeneral(dpred, w2, (([1], [1]), ([], [])))
  dz1 = ops.Mul(dh, ops.Sub(ops.Constant(b, F32(1)), ops.Mul(h, h)))
  dw1 = ops.DotGeneral(x, dz1, (([0], [0]), ([], [])))
  db1 = ops.Reduce(b, [dz1], [zero], add, [0])
  lr = ops.Constant(b, F32(learning_rate))
  updated = [ops.Sub(p, ops.Mul(g, lr)) for p, g in ((w1, dw1), (b1, db1), (w2, dw2), (b2, db2))]
  ops.Tuple(b, [loss] + updated)
  return b.build()


def main(argv=None):
  args = parse_args(__doc__, argv, lambda p: p.add_argument(
      "--steps", type=int, default=60, help="SGD steps"))
  steps = args.steps
  rng = np.random.default_rng(0)
  batch, n_in, n_hidden, n_out = 64, 4, 16, 1
  x = rng.uniform(-1, 1, (batch, n_in)).astype(F32)
  y = (np.sin(x.sum(axis=1, keepdims=True))).astype(F32)  # a smooth target to fit
  params = [(rng.standard_normal((n_in, n_hidden)) * 0.5).astype(F32), np.zeros(n_hidden, F32),
            (rng.standard_normal((n_hidden, n_out)) * 0.5).astype(F32), np.zeros(n_out, F32)]
  step = build_train_step(batch, n_in, n_hidden, n_out, learning_rate=0.5)
  with connect(args, "train_mlp") as client:
    exe = client.compile(step)
    state = [client.transfer_to_server(p) for p in params]
    data = [client.transfer_to_server(x), client.transfer_to_server(y)]
    losses = []
    for _ in range(steps):
      out = client.execute(exe, state + data)
      elements = client.deconstruct_tuple(out)
      out.close()
      loss, state = elements[0], elements[1:]  # the old state is released as it is dropped
      losses.append(float(client.transfer(loss)))
    final = [client.transfer(p) for p in state]
  print("train_mlp: loss %.4f -> %.4f over %d steps (parameters stayed on the server)" %
        (losses[0], losses[-1], steps))
  assert losses[-1] < 0.5 * losses[0], losses
  assert all(np.all(np.isfinite(p)) for p in final)
  return 0


if __name__ == "__main__":
  sys.exit(main())
