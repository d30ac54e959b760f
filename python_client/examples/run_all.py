"""Runs every example (and the CLI on softmax.hlo) against one local xla-server.

Used by CTest (python_client_examples); needs $XLA_SERVER_BINARY or xla-server on PATH.
Exits non-zero when an example fails.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

import xla_client as xc

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = ["mlp_forward.py", "train_mlp.py", "run_hlo.py"]


def main():
  failures = []
  with xc.LocalServer() as server:
    env = dict(os.environ, XLA_SERVER_TOKEN=server.token)
    commands = [[sys.executable, os.path.join(HERE, name), "--server", server.address]
                for name in EXAMPLES]
    with tempfile.TemporaryDirectory() as tmp:
      npz = os.path.join(tmp, "in.npz")
      out = os.path.join(tmp, "out.npz")
      np.savez(npz, np.arange(20, dtype=np.float32).reshape(4, 5))
      commands.append([sys.executable, "-m", "xla_client", "run", os.path.join(HERE, "softmax.hlo"),
                       "--server", server.address, "--npz", npz, "--out", out, "--repeat", "3"])
      commands.append([sys.executable, "-m", "xla_client", "devices", "--server", server.address])
      for cmd in commands:
        label = " ".join(os.path.basename(c) for c in cmd[1:3])
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=120, cwd=HERE)
        print("--- %s (exit %d)\n%s" % (label, proc.returncode, proc.stdout.rstrip()))
        if proc.returncode != 0:
          failures.append(label)
      with np.load(out) as result:
        rows = result["result"].sum(axis=1)
        if not np.allclose(rows, 1, rtol=1e-5):
          failures.append("cli output %s" % rows)
  if failures:
    print("FAILED: %s" % ", ".join(failures))
    return 1
  print("all %d example commands passed" % len(commands))
  return 0


if __name__ == "__main__":
  sys.exit(main())
