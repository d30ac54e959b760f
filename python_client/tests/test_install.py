"""`pip install ./python_client` works offline in a venv, generating the stubs at install."""

import os
import shutil
import subprocess
import sys
import tempfile

import pytest

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_pip_install_in_venv(server):
  if not shutil.which("protoc") or not shutil.which("grpc_python_plugin"):
    pytest.skip("protoc / grpc_python_plugin not installed")
  with tempfile.TemporaryDirectory() as tmp:
    venv = os.path.join(tmp, "venv")
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    made = subprocess.run([python, "-m", "venv", "--system-site-packages", venv],
                          capture_output=True, text=True)
    if made.returncode != 0:
      pytest.skip("cannot create a venv: %s" % made.stderr.strip())
    pip = os.path.join(venv, "bin", "pip")
    # Build from a copy so the test leaves no build/ or egg-info in the source tree; the
    # protos come through XLA_PROTO_ROOT as they would from ../proto in the repository.
    src = os.path.join(tmp, "python_client")
    shutil.copytree(PACKAGE_DIR, src, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", "_gen"))
    env = dict(os.environ, XLA_PROTO_ROOT=os.path.dirname(PACKAGE_DIR), PIP_NO_INDEX="1")
    env.pop("PYTHONPATH", None)
    installed = subprocess.run([pip, "install", "-q", "--no-build-isolation", src], env=env,
                               capture_output=True, text=True, timeout=240)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    script = ("import numpy as np, xla_client as xc\n"
              "from xla_client import ops\n"
              "assert 'site-packages' in xc.__file__, xc.__file__\n"
              "b = xc.XlaBuilder('t')\n"
              "ops.Neg(ops.Parameter(b, 0, xc.Shape.array_shape(np.float32, (2,))))\n"
              "with xc.Client('%s', token='%s') as c:\n"
              "  out = c.execute_and_transfer(c.compile(b.build()), [np.ones(2, np.float32)])\n"
              "print(out.tolist())\n" % (server.address, server.token))
    ran = subprocess.run([os.path.join(venv, "bin", "python"), "-c", script], env=env,
                         capture_output=True, text=True, timeout=60, cwd=tmp)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[-1.0, -1.0]"
    cli = subprocess.run([os.path.join(venv, "bin", "xla-client"), "devices", "--server",
                          server.address, "--token", server.token], env=env,
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0 and "interpreter" in cli.stdout, cli.stdout + cli.stderr
