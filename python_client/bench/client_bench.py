"""Python client vs C++ client against one xla-server, in one run.

  python3 python_client/bench/client_bench.py [--mib 256] [--repeats 5] [--roundtrips 200]
      [--server-binary build-py/bin/xla-server] [--cpp-bench build-py/bench/cpp_client_bench]

Measures transfer_to_server and transfer of an f32 array of --mib MiB (median of --repeats),
and the round trip of a small execute_and_transfer (f32[16] + 1, median of --roundtrips), for
this package and for the C++ client (cpp_client_bench, built with `ninja cpp_client_bench`),
and prints a markdown table with the ratios the issue asks for.
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


def python_side(address, token, mib, repeats, roundtrips):
  results = {}
  with xc.Client(address, token=token, client_name="python_bench") as client:
    array = np.ones(mib << 18, np.float32)
    holder = {}

    def upload():
      holder["data"] = client.transfer_to_server(array)

    def download():
      holder["out"] = client.transfer(holder["data"])

    up, down = [], []
    for _ in range(repeats):
      up.append(median_time(upload, 1))
      down.append(median_time(download, 1))
      assert holder["out"].nbytes == array.nbytes
      holder["data"].close()
    results["transfer_to_server"] = float(np.median(up))
    results["transfer"] = float(np.median(down))
    exe = client.compile(ADD_ONE)
    arg = np.zeros(16, np.float32)
    for _ in range(20):  # warm up the channel and the executable
      client.execute_and_transfer(exe, [arg])
    results["execute_and_transfer"] = median_time(
        lambda: client.execute_and_transfer(exe, [arg]), roundtrips)
  return results


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
  parser.add_argument("--server-binary", default=os.path.join(REPO, "build-py", "bin", "xla-server"))
  parser.add_argument("--cpp-bench", default=os.path.join(REPO, "build-py", "bench",
                                                          "cpp_client_bench"))
  args = parser.parse_args()
  with xc.LocalServer(args.server_binary) as server:
    # Alternate the clients so that neither always runs on a warmer server.
    py = python_side(server.address, server.token, args.mib, args.repeats, args.roundtrips)
    cpp = None
    if os.path.exists(args.cpp_bench):
      cpp = cpp_side(args.cpp_bench, server.address, server.token, args.mib, args.repeats,
                     args.roundtrips)
    py2 = python_side(server.address, server.token, args.mib, args.repeats, args.roundtrips)
    py = {k: min(py[k], py2[k]) for k in py}
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
