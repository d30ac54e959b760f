"""Build an MLP forward pass with XlaBuilder and run it on an xla-server.

  python3 examples/mlp_forward.py [--server HOST:PORT]

Two dense layers with ReLU and a softmax, built op by op; the result is checked against
numpy.
"""

import sys

import numpy as np

import xla_client as xc
from xla_client import ops

from _common import connect, parse_args  # pylint: disable=g-multiple-import

F32 = np.float32


def scalar_computation(name, op):
  b = xc.XlaBuilder(name)
  op(ops.Parameter(b, 0, xc.Shape.scalar_shape(F32)), ops.Parameter(b, 1, xc.Shape.scalar_shape(F32)))
  return b.build()


def build_mlp(batch, sizes):
  """logits -> softmax of relu(x @ w1 + b1) @ w2 + b2."""
  b = xc.XlaBuilder("mlp_forward")
  x = ops.Parameter(b, 0, xc.Shape.array_shape(F32, (batch, sizes[0])), name="x")
  h = x
  for layer, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
    w = ops.Parameter(b, 1 + 2 * layer, xc.Shape.array_shape(F32, (n_in, n_out)), name="w%d" % layer)
    bias = ops.Parameter(b, 2 + 2 * layer, xc.Shape.array_shape(F32, (n_out,)), name="b%d" % layer)
    h = ops.Add(ops.Dot(h, w), bias, broadcast_dimensions=[1])
    if layer < len(sizes) - 2:
      h = ops.Max(h, ops.Constant(b, F32(0)))
  # Numerically stable softmax over the classes.
  row_max = ops.Reduce(b, [h], [ops.Constant(b, F32(-np.inf))], scalar_computation("max", ops.Max), [1])
  e = ops.Exp(ops.Sub(h, row_max, broadcast_dimensions=[0]))
  total = ops.Reduce(b, [e], [ops.Constant(b, F32(0))], scalar_computation("add", ops.Add), [1])
  ops.Div(e, total, broadcast_dimensions=[0])
  return b.build()


def numpy_mlp(x, params):
  h = x
  for layer in range(len(params) // 2):
    h = h @ params[2 * layer] + params[2 * layer + 1]
    if layer < len(params) // 2 - 1:
      h = np.maximum(h, 0)
  e = np.exp(h - h.max(axis=1, keepdims=True))
  return e / e.sum(axis=1, keepdims=True)


def main(argv=None):
  args = parse_args(__doc__, argv)
  rng = np.random.default_rng(0)
  sizes = [8, 32, 4]
  x = rng.standard_normal((16, sizes[0])).astype(F32)
  params = []
  for n_in, n_out in zip(sizes[:-1], sizes[1:]):
    params += [(rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(F32),
               np.zeros(n_out, F32)]
  computation = build_mlp(x.shape[0], sizes)
  with connect(args, "mlp_forward") as client:
    exe = client.compile(computation)
    probs = client.execute_and_transfer(exe, [x] + params)
  expected = numpy_mlp(x, params)
  np.testing.assert_allclose(probs, expected, rtol=1e-5, atol=1e-6)
  print("mlp_forward: probabilities %s, rows sum to 1: %s, matches numpy" %
        (probs.shape, np.allclose(probs.sum(1), 1)))
  return 0


if __name__ == "__main__":
  sys.exit(main())
