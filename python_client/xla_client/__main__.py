"""Command line: run an HLO module on an xla-server, list its devices.

  python3 -m xla_client run MODULE.hlo --server ADDR [--npz in.npz] [--out out.npz] [--repeat N]
  python3 -m xla_client devices --server ADDR

MODULE is HLO text, or a serialized HloModuleProto when it ends in .pb / .binpb. Inputs come
from an .npz file in parameter order (arr_0, arr_1, ... as np.savez names them, else the
file's order); --random fills every parameter with random values instead. The token comes
from --token, --token-file or $XLA_SERVER_TOKEN.
"""

import argparse
import os
import re
import sys
import time

import numpy as np

from . import _client
from ._types import is_bit_pattern
from ._types import PrimitiveType


def _token(args):
  if args.token:
    return args.token
  if args.token_file:
    with open(args.token_file) as f:
      return f.read().strip()
  return os.environ.get("XLA_SERVER_TOKEN") or None


def _connect(args):
  return _client.Client(args.server, token=_token(args), client_name="xla_client-cli",
                        timeout=args.timeout)


def _load_module(path):
  with open(path, "rb") as f:
    data = f.read()
  if path.endswith((".pb", ".binpb")):
    return data
  try:
    return data.decode("utf-8")
  except UnicodeDecodeError:
    return data  # not text: try it as a serialized proto


def _load_inputs(path, program_shape, random_inputs, seed):
  params = program_shape.parameter_shapes()
  if path:
    with np.load(path, allow_pickle=False) as npz:
      names = list(npz.files)
      numbered = [n for n in names if re.fullmatch(r"arr_\d+", n)]
      if len(numbered) == len(names):
        names.sort(key=lambda n: int(n[4:]))
      arrays = [npz[n] for n in names]
    if len(arrays) != len(params):
      raise SystemExit("error: the module takes %d parameters, %s holds %d arrays" %
                       (len(params), path, len(arrays)))
    return arrays
  if random_inputs:
    rng = np.random.default_rng(seed)
    return [_random_value(rng, s) for s in params]
  if params:
    raise SystemExit("error: the module takes %d parameters (%s): give --npz or --random" %
                     (len(params), ", ".join(str(p) for p in params)))
  return []


def _random_value(rng, shape):
  if shape.is_tuple():
    return tuple(_random_value(rng, s) for s in shape.tuple_shapes())
  dtype = shape.numpy_dtype()
  dims = shape.dimensions()
  etype = shape.element_type()
  if etype == PrimitiveType.PRED:
    return rng.random(dims) < 0.5
  if is_bit_pattern(etype) or dtype.kind in "iu":
    hi = 8 if etype.name.startswith(("S", "U")) and dtype.itemsize == 1 else 100
    if etype in (PrimitiveType.S1, PrimitiveType.U1, PrimitiveType.S2, PrimitiveType.U2,
                 PrimitiveType.S4, PrimitiveType.U4):
      hi = 2
    return rng.integers(0, hi, dims).astype(dtype)
  if dtype.kind == "c":
    return (rng.standard_normal(dims) + 1j * rng.standard_normal(dims)).astype(dtype)
  return rng.standard_normal(dims).astype(dtype)


def _flatten(value, prefix, out):
  if isinstance(value, tuple):
    for i, v in enumerate(value):
      _flatten(v, "%s_%d" % (prefix, i), out)
  else:
    out[prefix] = np.asarray(value)


def _describe(name, value):
  arr = np.asarray(value)
  text = np.array2string(arr, threshold=16, edgeitems=3, precision=6)
  return "%s: %s%s = %s" % (name, arr.dtype, list(arr.shape), text)


def cmd_run(args):
  with _connect(args) as client:
    module = _load_module(args.module)
    start = time.perf_counter()
    exe = client.compile(module, device_ordinal=args.device)
    compile_ms = (time.perf_counter() - start) * 1e3
    inputs = _load_inputs(args.npz, exe.program_shape, args.random, args.seed)
    args_data = [client.transfer_to_server(v, exe.device_ordinal) for v in inputs]
    times = []
    result = None
    for _ in range(max(1, args.repeat)):
      if result is not None:
        result.close()
      start = time.perf_counter()
      result = client.execute(exe, args_data, rng_seed=args.seed)
      value = client.transfer(result)
      times.append((time.perf_counter() - start) * 1e3)
    print("compiled %s in %.1f ms%s: %s" % (args.module, compile_ms,
                                             " (cache hit)" if exe.cache_hit else "",
                                             exe.program_shape))
    flat = {}
    _flatten(value, "result", flat)
    for name, arr in flat.items():
      print(_describe(name, arr))
    t = np.array(times)
    if len(t) > 1:
      print("%d runs (execute + transfer): median %.3f ms, min %.3f ms, max %.3f ms" %
            (len(t), np.median(t), t.min(), t.max()))
    else:
      print("run (execute + transfer): %.3f ms" % t[0])
    if args.out:
      np.savez(args.out, **flat)
      print("wrote %s (%s)" % (args.out, ", ".join(flat)))
  return 0


def cmd_devices(args):
  with _connect(args) as client:
    v = client.server_version
    print("%s at %s (protocol %d..%d)" % (v.server_version, args.server, v.min_protocol_version,
                                         v.max_protocol_version))
    print("%-8s %-12s %-14s %s" % ("ordinal", "platform", "memory", "name"))
    for d in client.devices():
      memory = "%.1f GiB" % (d.memory_bytes / 2.0 ** 30) if d.memory_bytes else "-"
      print("%-8d %-12s %-14s %s" % (d.ordinal, d.platform, memory, d.name))
  return 0


def main(argv=None):
  parser = argparse.ArgumentParser(prog="python3 -m xla_client", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
  common = argparse.ArgumentParser(add_help=False)
  common.add_argument("--server", required=True, help="xla-server address, HOST:PORT")
  common.add_argument("--token", help="bearer token (default: $XLA_SERVER_TOKEN)")
  common.add_argument("--token-file", help="file holding the bearer token")
  common.add_argument("--timeout", type=float, default=None, help="per-call deadline, seconds")
  sub = parser.add_subparsers(dest="command", required=True)
  run = sub.add_parser("run", parents=[common], help="compile and run an HLO module")
  run.add_argument("module", help="HLO text file, or serialized HloModuleProto (.pb)")
  run.add_argument("--npz", help="inputs, one array per parameter in order")
  run.add_argument("--random", action="store_true", help="random inputs for every parameter")
  run.add_argument("--out", help="write the result arrays to this .npz")
  run.add_argument("--repeat", type=int, default=1, help="run N times and report timings")
  run.add_argument("--device", type=int, default=0, help="device ordinal")
  run.add_argument("--seed", type=int, default=0, help="rng seed (execution and --random)")
  run.set_defaults(fn=cmd_run)
  devices = sub.add_parser("devices", parents=[common], help="list the server's devices")
  devices.set_defaults(fn=cmd_devices)
  args = parser.parse_args(argv)
  try:
    return args.fn(args)
  except _client.XlaRuntimeError as e:
    print("error: %s" % e, file=sys.stderr)
    return 1
  except OSError as e:
    print("error: %s" % e, file=sys.stderr)
    return 1


if __name__ == "__main__":
  sys.exit(main())
