"""python3 -m xla_client run / devices against the live server."""

import os
import subprocess
import sys

import numpy as np

import xla_client as xc

HLO = """HloModule add
ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[2,3] parameter(1)
  s = f32[2,3] add(a, b)
  d = f32[2,3] subtract(a, b)
  ROOT t = (f32[2,3], f32[2,3]) tuple(s, d)
}
"""


def cli(server, *args, token=True):
  cmd = [sys.executable, "-m", "xla_client"] + list(args) + ["--server", server.address]
  if token:
    cmd += ["--token", server.token]
  env = dict(os.environ)
  return subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)


def test_run_with_npz_repeat_and_out(server, tmp_path):
  module = tmp_path / "m.hlo"
  module.write_text(HLO)
  a = np.arange(6, dtype=np.float32).reshape(2, 3)
  b = np.ones((2, 3), np.float32)
  np.savez(tmp_path / "in.npz", a, b)
  out = tmp_path / "out.npz"
  proc = cli(server, "run", str(module), "--npz", str(tmp_path / "in.npz"), "--out", str(out),
             "--repeat", "4")
  assert proc.returncode == 0, proc.stderr
  assert "4 runs" in proc.stdout and "median" in proc.stdout
  with np.load(out) as result:
    np.testing.assert_array_equal(result["result_0"], a + b)
    np.testing.assert_array_equal(result["result_1"], a - b)


def test_run_serialized_proto_and_random_inputs(server, tmp_path):
  from xla_client import ops  # pylint: disable=g-import-not-at-top
  bld = xc.XlaBuilder("neg")
  ops.Neg(ops.Parameter(bld, 0, xc.Shape.array_shape(np.int32, (3,))))
  path = tmp_path / "m.pb"
  path.write_bytes(bld.build().as_serialized_hlo_module_proto())
  proc = cli(server, "run", str(path), "--random")
  assert proc.returncode == 0, proc.stderr
  assert "result: int32[3]" in proc.stdout


def test_run_errors(server, tmp_path):
  module = tmp_path / "m.hlo"
  module.write_text(HLO)
  proc = cli(server, "run", str(module))
  assert proc.returncode != 0 and "takes 2 parameters" in proc.stderr
  bad = tmp_path / "bad.hlo"
  bad.write_text("HloModule m\nENTRY e {\n  ROOT x = f32[] nope()\n}\n")
  proc = cli(server, "run", str(bad))
  assert proc.returncode == 1 and "INVALID_ARGUMENT: 3:" in proc.stderr
  proc = cli(server, "run", str(tmp_path / "missing.hlo"))
  assert proc.returncode == 1 and "No such file" in proc.stderr
  proc = cli(server, "devices", token=False)
  assert proc.returncode == 1 and "UNAUTHENTICATED" in proc.stderr


def test_devices(server):
  proc = cli(server, "devices")
  assert proc.returncode == 0, proc.stderr
  assert "interpreter" in proc.stdout and "ordinal" in proc.stdout
