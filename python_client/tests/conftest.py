"""pytest fixtures: an xla-server started once per test session on a free loopback port.

The binary comes from $XLA_SERVER_BINARY (set by CTest), else the usual build directories.
The server requires a bearer token (tests check UNAUTHENTICATED too).
"""

import os
import subprocess
import sys
import tempfile
import time

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))
TOKEN = "python-client-test-token"


def server_binary():
  env = os.environ.get("XLA_SERVER_BINARY")
  if env:
    return env
  for build in ("build-py", "build"):
    path = os.path.join(_REPO, build, "bin", "xla-server")
    if os.path.exists(path):
      return path
  return None


class Server:
  """A running xla-server process (address, token) started with extra flags."""

  def __init__(self, *flags, token=TOKEN):
    binary = server_binary()
    if binary is None:
      pytest.skip("no xla-server binary (set XLA_SERVER_BINARY)")
    self.token = token
    self._dir = tempfile.TemporaryDirectory()
    args = [binary, "--listen=127.0.0.1:0", "--log-level=warn"] + list(flags)
    if token:
      path = os.path.join(self._dir.name, "token")
      with open(path, "w") as f:
        f.write(token)
      args.append("--auth-token-file=" + path)
    self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True)
    marker = "xla-server listening on "
    deadline = time.monotonic() + 30
    lines = []
    self.address = None
    while time.monotonic() < deadline:
      line = self.process.stdout.readline()
      if not line:
        break
      lines.append(line)
      if marker in line:
        self.address = line.split(marker, 1)[1].split()[0]
        break
    if self.address is None:
      self.stop()
      raise RuntimeError("xla-server did not start: %s" % "".join(lines))

  def stop(self):
    if self.process.poll() is None:
      self.process.terminate()
      try:
        self.process.wait(timeout=10)
      except subprocess.TimeoutExpired:
        self.process.kill()
        self.process.wait()
    if self.process.stdout:
      self.process.stdout.close()
    self._dir.cleanup()


@pytest.fixture(scope="session")
def server():
  s = Server()
  yield s
  s.stop()


@pytest.fixture(scope="session")
def client(server):
  import xla_client as xc  # pylint: disable=g-import-not-at-top
  c = xc.Client(server.address, token=server.token, client_name="pytest-shared")
  yield c
  c.close()


@pytest.fixture
def fresh_client(server):
  import xla_client as xc  # pylint: disable=g-import-not-at-top
  c = xc.Client(server.address, token=server.token, client_name="pytest-fresh")
  yield c
  c.close()


@pytest.fixture(scope="session")
def run(client):
  """run(builder_or_computation, *args) -> execute_and_transfer result on the server."""
  import xla_client as xc  # pylint: disable=g-import-not-at-top

  def _run(computation, *args, **kwargs):
    if isinstance(computation, xc.XlaBuilder):
      computation = computation.build()
    exe = client.compile(computation)
    return client.execute_and_transfer(exe, list(args), **kwargs)

  return _run
