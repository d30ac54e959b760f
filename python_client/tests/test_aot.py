"""compile_ahead_of_time / load against live xla-servers.

Bytes compiled by one server load into another one (as after a restart) and compute what
compile()'s executables compute; the cpu platform (native object code, runtime calls,
constants) when the binary has it, and the interpreter. Refusals keep their codes.
"""

import grpc
import numpy as np
import pytest

import xla_client as xc
from xla_client import ops

from conftest import start_server

SORT_HLO = """HloModule sort_const
lt {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=LT
}
ENTRY main {
  a = f32[6] parameter(0)
  offset = f32[6] constant({0.5, -1, 2, 0, 3, -2})
  shifted = f32[6] add(a, offset)
  ROOT s = f32[6] sort(shifted), dimensions={0}, to_apply=lt
}
"""

ARG = np.array([3, 1, -4, 1, 5, -9], np.float32)
EXPECTED = np.sort(ARG + np.array([0.5, -1, 2, 0, 3, -2], np.float32))


def _server(*flags):
  return start_server("--platform=cpu,interpreter", *flags)


@pytest.fixture(scope="module")
def servers():
  """Two servers allowing loads (one compiles, the other loads) on cpu and the interpreter."""
  try:
    first = _server("--allow-load")
  except RuntimeError as e:
    if "no backend for platform 'cpu'" not in str(e):
      raise
    pytest.skip("this xla-server has no cpu backend")
  second = _server("--allow-load")
  yield first, second
  first.stop()
  second.stop()


def _client(server):
  return xc.Client(server.address, token=server.token, client_name="pytest-aot")


@pytest.mark.parametrize("device", [0, 1], ids=["cpu", "interpreter"])
def test_loaded_executable_runs_like_compiled(servers, device):
  first, second = servers
  with _client(first) as c:
    exe = c.compile(SORT_HLO, device_ordinal=device)
    expected = c.execute_and_transfer(exe, [ARG])
    np.testing.assert_array_equal(expected, EXPECTED)
    blob = c.compile_ahead_of_time(SORT_HLO, device_ordinal=device)
  assert isinstance(blob, bytes) and blob.startswith(b"XLAEXEC\n")
  with _client(second) as c:
    loaded = c.load(blob, device_ordinal=device)
    assert isinstance(loaded, xc.Executable)
    assert str(loaded.program_shape) == str(exe.program_shape)
    np.testing.assert_array_equal(c.execute_and_transfer(loaded, [ARG]), expected)
    # Through server-side data and Execute, and as a callable.
    data = c.transfer_to_server(ARG, device_ordinal=device)
    np.testing.assert_array_equal(c.execute(loaded, [data]).to_py(), expected)
    np.testing.assert_array_equal(np.asarray(loaded(ARG)), expected)
    assert c.load(blob, device_ordinal=device).cache_hit


def test_builder_computation_round_trips(servers):
  first, second = servers
  b = xc.XlaBuilder("aot_builder")
  x = ops.Parameter(b, 0, xc.Shape.array_shape(np.float32, (2, 3)))
  ops.Exp(ops.Mul(x, ops.Constant(b, np.float32(0.5))))
  computation = b.build()
  value = np.arange(6, dtype=np.float32).reshape(2, 3)
  with _client(first) as c:
    blob = c.compile_ahead_of_time(computation)
    expected = c.execute_and_transfer(c.compile(computation), [value])
  with _client(second) as c:
    np.testing.assert_array_equal(c.execute_and_transfer(c.load(blob), [value]), expected)
  np.testing.assert_allclose(expected, np.exp(value * 0.5), rtol=1e-6)


def test_damaged_bytes_are_invalid_argument(servers):
  first, _ = servers
  with _client(first) as c:
    blob = c.compile_ahead_of_time(SORT_HLO)
    damaged = bytearray(blob)
    damaged[len(damaged) // 2] ^= 0x10
    for bad in (bytes(damaged), blob[: len(blob) // 3], b"not an executable"):
      with pytest.raises(xc.XlaRuntimeError) as info:
        c.load(bad)
      assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(TypeError):
      c.load("text is not bytes")


def test_cpu_bytes_do_not_load_on_the_interpreter(servers):
  first, _ = servers
  with _client(first) as c:
    blob = c.compile_ahead_of_time(SORT_HLO, device_ordinal=0)
    with pytest.raises(xc.XlaRuntimeError) as info:
      c.load(blob, device_ordinal=1)
    assert info.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "platform 'cpu'" in info.value.message


def test_load_needs_allow_load(servers):
  first, _ = servers
  with _client(first) as c:
    blob = c.compile_ahead_of_time(SORT_HLO)
  with _server() as plain:
    with _client(plain) as c:
      with pytest.raises(xc.XlaRuntimeError) as info:
        c.load(blob)
      assert info.value.code == grpc.StatusCode.PERMISSION_DENIED
      assert "--allow-load" in info.value.message
      # Compiling ahead of time needs no permission.
      assert c.compile_ahead_of_time(SORT_HLO).startswith(b"XLAEXEC\n")
