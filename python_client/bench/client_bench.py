"""Python client vs C++ client against one xla-server, in one run.

  python3 python_client/bench/client_bench.py [--mib 256] [--repeats 5] [--roundtrips 200]
      [--server-binary build-py/bin/xla-server] [--cpp-bench build-py/bench/cpp_client_bench]

Measures transfer_to_server and transfer of an f32 array of --mib MiB (median of --repeats),
and the round trip of a small execute_and_transfer (f32[16] + 1, median of --roundtrips), for
this package and for the C++ client (cpp_client_bench, built with `ninja cpp_client_bench`),
in --blocks alternating blocks, and prints a markdown table with the ratios the issue asks
for.
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

import xla_client as xc

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADD_ONE = """HloModule add_one
ENTRY main {
  x = f32[16] parameter(0)
  one = f32[] constant(1)
  b = f32[16] broadcast(one), dimensions={}
  ROOT y = f32[16] add(x, b)
}"""


def median_time(fn, n):
  times = []
  for _ in range(n):
    start = time.perf_counter()
    fn()
    times.append(time.perf_counter() - start)
  return float(np.median(times))


def python_transfers(client, mib, repeats):
  array = np.ones(mib << 18, np.float32)
  up, down = [], []
  for _ in range(repeats):
    start = time.perf_counter()
    data = client.transfer_to_server(array)
    up.append(time.perf_counter() - start)
    start = time.perf_counter()
    out = client.transfer(data)
    down.append(time.perf_counter() - start)
    assert out.nbytes == array.nbytes
    data.close()
    del out
  return {"transfer_to_server": float(np.median(up)), "transfer": float(np.median(down))}


def python_roundtrips(client, roundtrips):
  exe = client.compile(ADD_ONE)
  arg = np.zeros(16, np.float32)
  for _ in range(20):  # warm up the channel and the executable
    client.execute_and_transfer(exe, [arg])
  return {"execute_and_transfer": median_time(lambda: client.execute_and_transfer(exe, [arg]),
                                              roundtrips)}


def cpp_side(binary, address, token, mib, repeats, roundtrips):
  out = subprocess.run([binary, address, token, str(mib), str(repeats), str(roundtrips)],
                       capture_output=True, text=True, timeout=600, check=True)
  results = {}
  for line in out.stdout.splitlines():
    name, seconds, _ = line.split()
    results[name] = float(seconds)
  return results


def main():
  parser = argparse.ArgumentParser(description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument("--mib", type=int, default=256)
  parser.add_argument("--repeats", type=int, default=5)
  parser.add_argument("--roundtrips", type=int, default=200)
  parser.add_argument("--blocks", type=int, default=3, help="alternating Python/C++ blocks")
  parser.add_argument("--server-binary", default=os.path.join(REPO, "build-py", "bin", "xla-server"))
  parser.add_argument("--cpp-bench", default=os.path.join(REPO, "build-py", "bench",
                                                          "cpp_client_bench"))
  args = parser.parse_args()
  # Python and C++ alternate in blocks (the machine is shared: load drifts); each figure is
  # the median over the blocks of the per-block medians.
  py_runs, cpp_runs = [], []
  have_cpp = os.path.exists(args.cpp_bench)
  with xc.LocalServer(args.server_binary) as server:
    with xc.Client(server.address, token=server.token, client_name="python_bench") as client:
      for _ in range(args.blocks):
        py = python_transfers(client, args.mib, args.repeats)
        py.update(python_roundtrips(client, args.roundtrips))
        py_runs.append(py)
        if have_cpp:
          cpp_runs.append(cpp_side(args.cpp_bench, server.address, server.token, args.mib,
                                   args.repeats, args.roundtrips))
  py = {k: float(np.median([r[k] for r in py_runs])) for k in py_runs[0]}
  cpp = {k: float(np.median([r[k] for r in cpp_runs])) for k in cpp_runs[0]} if cpp_runs else None
  size = args.mib << 20
  print("| measurement | Python client | C++ client | ratio | target |")
  print("| --- | --- | --- | --- | --- |")
  for name in ("transfer_to_server", "transfer"):
    p = size / py[name] / 2 ** 30
    if cpp:
      c = size / cpp[name] / 2 ** 30
      print("| %s %d MiB | %.2f GiB/s (%.0f ms) | %.2f GiB/s (%.0f ms) | %.2fx | >= 0.5x |" %
            (name, args.mib, p, py[name] * 1e3, c, cpp[name] * 1e3, p / c))
    else:
      print("| %s %d MiB | %.2f GiB/s | - | - | >= 0.5x |" % (name, args.mib, p))
  name = "execute_and_transfer"
  if cpp:
    print("| %s f32[16] round trip | %.0f us | %.0f us | %.2fx | <= 2x |" %
          (name, py[name] * 1e6, cpp[name] * 1e6, py[name] / cpp[name]))
  else:
    print("| %s f32[16] round trip | %.0f us | - | - | <= 2x |" % (name, py[name] * 1e6))
  return 0


if __name__ == "__main__":
  sys.exit(main())
