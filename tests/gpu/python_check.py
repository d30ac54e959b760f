"""The Python client against xla-server's gpu device (issue 7), run by server_check.sh.

  python3 tests/gpu/python_check.py HOST:PORT [PLATFORM]

Connects as a notebook would, builds computations with XlaBuilder, and checks what comes back
from the PLATFORM device (default gpu) against numpy: an MLP forward pass at batch 4096 and a
row softmax, literals round-tripped through device memory (256 MiB, timed), ExecuteParallel on
the gpu and the interpreter at once, chained asynchronous executions, infeed/outfeed, tuples
taken apart on the device. Prints a markdown table; exits 1 when a check fails.
"""

import sys
import time

import numpy as np

import xla_client as xc
from xla_client import ops

F32 = np.float32


def scalar_computation(name, op):
  b = xc.XlaBuilder(name)
  op(ops.Parameter(b, 0, xc.Shape.scalar_shape(F32)), ops.Parameter(b, 1, xc.Shape.scalar_shape(F32)))
  return b.build()


def softmax_rows(b, h):
  row_max = ops.Reduce(b, [h], [ops.Constant(b, F32(-np.inf))], scalar_computation("max", ops.Max), [1])
  e = ops.Exp(ops.Sub(h, row_max, broadcast_dimensions=[0]))
  total = ops.Reduce(b, [e], [ops.Constant(b, F32(0))], scalar_computation("add", ops.Add), [1])
  return ops.Div(e, total, broadcast_dimensions=[0])


def build_mlp(batch, sizes):
  b = xc.XlaBuilder("mlp_forward")
  h = ops.Parameter(b, 0, xc.Shape.array_shape(F32, (batch, sizes[0])), name="x")
  for layer, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
    w = ops.Parameter(b, 1 + 2 * layer, xc.Shape.array_shape(F32, (n_in, n_out)))
    bias = ops.Parameter(b, 2 + 2 * layer, xc.Shape.array_shape(F32, (n_out,)))
    # HIGHEST: full f32 products (DEFAULT would let cuBLAS use TF32).
    h = ops.Add(ops.Dot(h, w, precision_config=[xc.PrecisionConfig.HIGHEST] * 2), bias,
                broadcast_dimensions=[1])
    if layer < len(sizes) - 2:
      h = ops.Max(h, ops.Constant(b, F32(0)))
  softmax_rows(b, h)
  return b.build()


def numpy_mlp(x, params):
  h = x.astype(np.float64)
  for layer in range(len(params) // 2):
    h = h @ params[2 * layer] + params[2 * layer + 1]
    if layer < len(params) // 2 - 1:
      h = np.maximum(h, 0)
  return numpy_softmax(h)


def numpy_softmax(h):
  e = np.exp(h - h.max(axis=1, keepdims=True))
  return e / e.sum(axis=1, keepdims=True)


class Table:
  def __init__(self, platform):
    self.failed = 0
    print("| python client check | %s | time |" % platform)
    print("| --- | --- | --- |")

  def row(self, name, check, timing=""):
    """Runs check() (a string on success, raises on failure) and prints its row."""
    try:
      start = time.perf_counter()
      verdict = check()
      if not timing:
        timing = "%.3f s" % (time.perf_counter() - start)
    except Exception as e:  # pylint: disable=broad-except
      self.failed += 1
      verdict = "FAILED: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    print("| %s | %s | %s |" % (name, verdict, timing), flush=True)


def close_to(actual, expected, rtol, atol):
  actual, expected = np.asarray(actual), np.asarray(expected)
  if actual.shape != expected.shape:
    raise AssertionError("shape %s, expected %s" % (actual.shape, expected.shape))
  if not np.allclose(actual, expected, rtol=rtol, atol=atol):
    i = int(np.argmax(np.abs(actual.astype(np.float64) - expected)))
    raise AssertionError("element %d is %r, expected %r" % (i, actual.flat[i], expected.flat[i]))
  return "agrees with numpy (rtol %g, atol %g)" % (rtol, atol)


def main(argv):
  address = argv[1]
  platform = argv[2] if len(argv) > 2 else "gpu"
  rng = np.random.default_rng(7)
  with xc.Client(address, client_name="python_check") as client:
    devices = client.devices()
    on = {d.platform: d.ordinal for d in reversed(devices)}  # the first device of each
    if platform not in on or "interpreter" not in on:
      print("python_check: the server has no %s and interpreter devices: %s" %
            (platform, [(d.ordinal, d.platform) for d in devices]))
      return 2
    dev, interp = on[platform], on["interpreter"]
    table = Table(platform)

    sizes = [784, 2048, 2048, 10]
    mlp = build_mlp(4096, sizes)
    x = rng.standard_normal((4096, sizes[0])).astype(F32)
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
      params += [(rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(F32),
                 (0.1 * rng.standard_normal(n_out)).astype(F32)]
    state = {}

    def mlp_check():
      exe = client.compile(mlp, device_ordinal=dev)
      state["mlp"] = exe
      weights = [client.transfer_to_server(p, device_ordinal=dev) for p in params]
      state["weights"] = weights
      client.execute_and_transfer(exe, [x] + weights)  # warm
      start = time.perf_counter()
      out = client.execute_and_transfer(exe, [x] + weights)
      state["mlp_s"] = time.perf_counter() - start
      return close_to(out, numpy_mlp(x, params), 1e-4, 1e-6)
    table.row("XlaBuilder MLP forward 784-2048-2048-10, batch 4096 (HIGHEST), execute_and_transfer",
              mlp_check)

    def softmax_check():
      b = xc.XlaBuilder("softmax")
      softmax_rows(b, ops.Parameter(b, 0, xc.Shape.array_shape(F32, (4096, 4096))))
      exe = client.compile(b.build(), device_ordinal=dev)
      h = (3 * rng.standard_normal((4096, 4096))).astype(F32)
      return close_to(client.execute_and_transfer(exe, [h]), numpy_softmax(h.astype(np.float64)), 1e-5, 1e-9)
    table.row("XlaBuilder softmax 4096x4096", softmax_check)

    big = rng.standard_normal(64 << 20).astype(F32)  # 256 MiB
    timings = {}

    def round_trip():
      start = time.perf_counter()
      data = client.transfer_to_server(big, device_ordinal=dev)
      client.await_ready(data)
      timings["up"] = time.perf_counter() - start
      start = time.perf_counter()
      back = client.transfer(data)
      timings["down"] = time.perf_counter() - start
      data.close()
      if not np.array_equal(back, big):
        raise AssertionError("the literal came back different")
      return "bit-exact"
    table.row("transfer_to_server + transfer, f32[67108864] (256 MiB)", round_trip)
    if timings:
      print("| upload 256 MiB over gRPC into %s memory | %.2f GB/s | %.1f ms |" %
            (platform, big.nbytes / timings["up"] / 1e9, 1e3 * timings["up"]))
      print("| download 256 MiB from %s memory over gRPC | %.2f GB/s | %.1f ms |" %
            (platform, big.nbytes / timings["down"] / 1e9, 1e3 * timings["down"]))

    def parallel_check():
      b = xc.XlaBuilder("tanh_sum")
      p = ops.Parameter(b, 0, xc.Shape.array_shape(F32, (1024, 1024)))
      ops.Reduce(b, [ops.Tanh(p)], [ops.Constant(b, F32(0))], scalar_computation("add", ops.Add), [1])
      computation = b.build()
      on_dev = client.compile(computation, device_ordinal=dev)
      on_interp = client.compile(computation, device_ordinal=interp)
      a = rng.standard_normal((1024, 1024)).astype(F32)
      c = rng.standard_normal((1024, 1024)).astype(F32)
      results = client.execute_parallel([(on_dev, [a]), (on_interp, [c]), (on_dev, [c])])
      got = [client.transfer(r) for r in results]
      for value, arg in zip(got, [a, c, c]):
        close_to(value, np.tanh(arg.astype(np.float64)).sum(axis=1), 1e-5, 1e-4)
      return "3 executions on %s and interpreter agree with numpy" % platform
    table.row("execute_parallel: %s, interpreter, %s at once" % (platform, platform), parallel_check)

    def async_check():
      b = xc.XlaBuilder("axpy")
      shape = xc.Shape.array_shape(F32, (1 << 20,))
      ops.Add(ops.Mul(ops.Constant(b, F32(0.5)), ops.Parameter(b, 0, shape), broadcast_dimensions=[]),
              ops.Parameter(b, 1, shape))
      exe = client.compile(b.build(), device_ordinal=dev)
      v = rng.standard_normal(1 << 20).astype(F32)
      one = client.transfer_to_server(v, device_ordinal=dev)
      acc = one
      expected = v.astype(np.float64)
      for _ in range(20):  # each step chained on the previous before it is ready
        acc = client.execute_async(exe, [acc, one])
        expected = 0.5 * expected + v
      acc.wait()
      return close_to(client.transfer(acc), expected, 1e-5, 1e-5)
    table.row("20 chained execute_async steps, then wait", async_check)

    def feed_check():
      b = xc.XlaBuilder("feeds")
      shape = xc.Shape.array_shape(F32, (1000,))
      token = ops.CreateToken(b)
      got = ops.InfeedWithToken(token, shape)
      value = ops.GetTupleElement(got, 0)
      doubled = ops.Add(value, value)
      ops.OutfeedWithToken(doubled, ops.GetTupleElement(got, 1), shape)
      ops.Tuple(b, [doubled, ops.Neg(value)])
      exe = client.compile(b.build(), device_ordinal=dev)
      v = rng.standard_normal(1000).astype(F32)
      client.transfer_to_infeed(v, device_ordinal=dev)
      result = client.execute(exe, [])
      first, second = client.deconstruct_tuple(result)
      close_to(client.transfer(first), 2 * v, 0, 0)
      close_to(client.transfer(second), -v, 0, 0)
      close_to(client.transfer_from_outfeed(shape, device_ordinal=dev), 2 * v, 0, 0)
      return "infeed, outfeed and deconstruct_tuple exact"
    table.row("infeed -> outfeed, tuple result taken apart on the device", feed_check)

    if "mlp_s" in state:
      print("| MLP forward batch 4096 through the Python client (x sent, 40960 floats back) | "
            "%.2f ms | execute_and_transfer |" % (1e3 * state["mlp_s"]))
    print()
    print("python_check: %d failed" % table.failed)
    return 1 if table.failed else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
