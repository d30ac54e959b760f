"""pytest fixtures: an xla-server started once per test session on a free loopback port.

The binary comes from $XLA_SERVER_BINARY (set by CTest), else the usual build directories.
The server requires a bearer token (tests check UNAUTHENTICATED too). It serves the
platform named by $XLA_TEST_PLATFORM (default "interpreter", the reference semantics every op
test is written against; the cpu backend does not run every op yet).
"""

import os

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


def start_server(*flags, token=TOKEN):
  """A LocalServer with extra flags (skips the test when no binary is available)."""
  import xla_client as xc  # pylint: disable=g-import-not-at-top
  binary = server_binary()
  if binary is None:
    pytest.skip("no xla-server binary (set XLA_SERVER_BINARY)")
  if not any(f.startswith("--platform=") for f in flags):
    flags = ("--platform=" + os.environ.get("XLA_TEST_PLATFORM", "interpreter"),) + tuple(flags)
  return xc.LocalServer(binary, token=token, flags=flags)


@pytest.fixture(scope="session")
def server():
  s = start_server()
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
