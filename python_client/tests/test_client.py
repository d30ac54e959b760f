"""Client against a live xla-server: every remote call, its success and its failures."""

import gc
import threading
import time

import grpc
import numpy as np
import pytest

import xla_client as xc
from xla_client import ops

ADD_HLO = """HloModule add
ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[2,3] parameter(1)
  ROOT s = f32[2,3] add(a, b)
}
"""

TUPLE_HLO = """HloModule pair
ENTRY main {
  a = f32[3] parameter(0)
  n = f32[3] negate(a)
  ROOT t = (f32[3], f32[3]) tuple(a, n)
}
"""

SPIN_HLO = """HloModule spin
cond {
  p = s32[] parameter(0)
  limit = s32[] constant(100000000)
  ROOT lt = pred[] compare(p, limit), direction=LT
}
body {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(p, one)
}
ENTRY main {
  z = s32[] parameter(0)
  ROOT w = s32[] while(z), condition=cond, body=body
}
"""


def f32(*shape):
  return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def expect_error(code, fn, *args, match=None, **kwargs):
  with pytest.raises(xc.XlaRuntimeError) as info:
    fn(*args, **kwargs)
  assert info.value.code == code, str(info.value)
  if match is not None:
    assert match in info.value.message, info.value.message
  return info.value


# --- connection, session ----------------------------------------------------------------

def test_connect_reports_version_and_session(client):
  assert client.server_version.min_protocol_version <= 1 <= client.server_version.max_protocol_version
  assert "interpreter" in client.server_version.platforms
  assert client.session_id
  assert client.lease_ms > 0
  client.keep_alive()


def test_wrong_token_is_unauthenticated(server):
  expect_error(grpc.StatusCode.UNAUTHENTICATED, xc.Client, server.address, token="wrong")
  expect_error(grpc.StatusCode.UNAUTHENTICATED, xc.Client, server.address)


def test_unreachable_server_is_unavailable_after_retries():
  start = time.monotonic()
  expect_error(grpc.StatusCode.UNAVAILABLE, xc.Client, "127.0.0.1:1", max_retries=2)
  assert time.monotonic() - start >= 0.15  # 50 ms + 100 ms of backoff


def test_bad_client_arguments():
  with pytest.raises(ValueError):
    xc.Client("")
  with pytest.raises(ValueError):
    xc.Client("127.0.0.1:1", private_key=b"k")


def test_closed_client_refuses_calls(server):
  c = xc.Client(server.address, token=server.token)
  data = c.transfer_to_server(np.float32(1))
  c.close()
  c.close()  # idempotent
  expect_error(grpc.StatusCode.FAILED_PRECONDITION, c.devices)
  data.close()  # a GlobalData outliving its client does nothing
  del data


def test_keepalive_keeps_a_short_lease(server):
  with xc.Client(server.address, token=server.token, lease_ms=300) as c:
    assert c.lease_ms == 300
    data = c.transfer_to_server(f32(4))
    time.sleep(1.2)  # four leases: only the background keepalive keeps the session
    np.testing.assert_array_equal(c.transfer(data), f32(4))


def test_expired_session_is_not_found(server):
  c = xc.Client(server.address, token=server.token, lease_ms=200)
  c._queue.closed = True  # stop the background keepalive
  with c._queue.lock:
    c._queue.wake.notify_all()
  c._thread.join()
  time.sleep(0.8)
  expect_error(grpc.StatusCode.NOT_FOUND, c.devices, match="session")
  expect_error(grpc.StatusCode.NOT_FOUND, c.keep_alive, match="session")
  c.close()


def test_context_manager_closes_the_session(server, client):
  with xc.Client(server.address, token=server.token, client_name="ctx") as c:
    sid = c.session_id
    c.transfer_to_server(f32(3))
  live = [s.session_id for s in client.get_status().sessions]
  assert not any(sid.startswith(s) for s in live if s)


# --- devices ------------------------------------------------------------------------------

def test_devices_and_device_handles(client):
  devices = client.devices()
  assert devices and devices[0].platform == "interpreter"
  handles = client.get_device_handles(1)
  assert len(handles) == 1 and handles[0].device_count == 1
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.get_device_handles, 1000)


def test_status(client):
  status = client.get_status()
  assert status.devices
  assert client.session_status().client_name == "pytest-shared"


def test_reset_device(client):
  client.reset_device(0)
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.reset_device, 99)


# --- compile --------------------------------------------------------------------------------

def test_compile_hlo_text(client):
  exe = client.compile(ADD_HLO)
  assert exe.program_shape.result_shape() == xc.Shape.array_shape(np.float32, (2, 3))
  assert len(exe.program_shape.parameter_shapes()) == 2
  assert client.compile(ADD_HLO).cache_hit


def test_compile_bad_hlo_text_gives_line_and_column(client):
  err = expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.compile,
                     "HloModule m\nENTRY e {\n  ROOT x = f32[] bogus()\n}\n")
  assert err.message.startswith("3:"), err.message
  assert "bogus" in err.message


def test_compile_serialized_proto_and_computation(client):
  b = xc.XlaBuilder("neg")
  ops.Neg(ops.Parameter(b, 0, xc.Shape.array_shape(np.float32, (2,))))
  comp = b.build()
  for form in (comp, comp.as_serialized_hlo_module_proto(), comp.as_hlo_module()):
    exe = client.compile(form)
    np.testing.assert_array_equal(client.execute_and_transfer(exe, [f32(2)]), -f32(2))


def test_compile_garbage_proto_is_invalid_argument(client):
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.compile, b"\xff\xff\xff garbage")


def test_compile_wrong_type_is_type_error(client):
  with pytest.raises(TypeError):
    client.compile(12)


def test_compile_on_missing_device(client):
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.compile, ADD_HLO, device_ordinal=7)


def test_get_computation_shape(client):
  exe = client.compile(ADD_HLO)
  assert client.get_computation_shape(exe) == exe.program_shape
  expect_error(grpc.StatusCode.NOT_FOUND, client.get_computation_shape, 987654)


# --- execute ----------------------------------------------------------------------------------

def test_execute_with_global_data(client):
  exe = client.compile(ADD_HLO)
  a = client.transfer_to_server(f32(2, 3))
  profile = xc.ExecutionProfile()
  result = client.execute(exe, [a, a], profile=profile)
  assert isinstance(result, xc.GlobalData)
  np.testing.assert_array_equal(client.transfer(result), 2 * f32(2, 3))
  assert client.get_shape(result) == xc.Shape.array_shape(np.float32, (2, 3))
  # Host values are uploaded for the call and released after it.
  np.testing.assert_array_equal(client.transfer(client.execute(exe, [a, f32(2, 3)])),
                                2 * f32(2, 3))
  np.testing.assert_array_equal(exe.execute([a, a]).to_py(), 2 * f32(2, 3))
  np.testing.assert_array_equal(exe(f32(2, 3), a), 2 * f32(2, 3))


def test_execute_errors(client):
  exe = client.compile(ADD_HLO)
  a = client.transfer_to_server(f32(2, 3))
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.execute, exe, [a])
  expect_error(grpc.StatusCode.NOT_FOUND, client.execute, 987654, [a, a])
  gone = client.transfer_to_server(f32(2, 3))
  client.unregister(gone)
  expect_error(grpc.StatusCode.NOT_FOUND, client.execute, exe, [a, gone])
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.execute, exe, [a, 1.5])
  wrong = client.transfer_to_server(f32(3, 2))
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.execute, exe, [a, wrong])


def test_execute_donated_argument_is_consumed(client):
  exe = client.compile(ADD_HLO)
  a = client.transfer_to_server(f32(2, 3))
  b = client.transfer_to_server(f32(2, 3))
  result = client.execute(exe, [a, b], donated_arguments=[0])
  np.testing.assert_array_equal(client.transfer(result), 2 * f32(2, 3))
  expect_error(grpc.StatusCode.FAILED_PRECONDITION, client.transfer, a, match="donated")
  assert not a.owned  # nothing left to unregister


def test_donated_cache_updated_step_by_step(client):
  # A KV-cache update whose result aliases the cache: each step donates the last result
  # (on cpu the row is then written into the donated buffer itself).
  b = xc.XlaBuilder("cache_update")
  cache = ops.Parameter(b, 0, xc.Shape.array_shape(np.dtype(np.float32), (8, 4)))
  row = ops.Parameter(b, 1, xc.Shape.array_shape(np.dtype(np.float32), (1, 4)))
  i = ops.Parameter(b, 2, xc.Shape.array_shape(np.dtype(np.int32), ()))
  ops.DynamicUpdateSlice(cache, row, [i, ops.Constant(b, np.int32(0))])
  b.setup_alias([], 0, [])
  exe = client.compile(b.build())
  first = client.transfer_to_server(np.zeros((8, 4), np.float32))
  current = first
  for step in range(8):
    new_row = np.full((1, 4), step + 1, np.float32)
    current = client.execute(exe, [current, new_row, np.int32(step)], donated_arguments=[0])
  expected = np.repeat(np.arange(1, 9, dtype=np.float32)[:, None], 4, axis=1)
  np.testing.assert_array_equal(client.transfer(current), expected)
  expect_error(grpc.StatusCode.FAILED_PRECONDITION, client.transfer, first, match="donated")


def test_stale_handle_does_not_block_a_batch(fresh_client):
  c = fresh_client
  datas = [c.transfer_to_server(f32(4)) for _ in range(3)]
  stale = xc.GlobalData(c, 987654)  # unknown to the server
  del datas, stale
  gc.collect()
  c.flush_unregisters()
  assert c.session_status().handles == 0


def test_execute_and_transfer(client):
  exe = client.compile(ADD_HLO)
  np.testing.assert_array_equal(client.execute_and_transfer(exe, [f32(2, 3), np.ones((2, 3),
                                                                                    np.float32)]),
                                f32(2, 3) + 1)
  lit = client.execute_and_transfer(exe, [f32(2, 3), f32(2, 3)], as_literal=True)
  assert isinstance(lit, xc.Literal)
  np.testing.assert_array_equal(np.asarray(lit), 2 * f32(2, 3))
  # Python lists take the parameter's type.
  np.testing.assert_array_equal(client.execute_and_transfer(exe, [[[1, 2, 3], [4, 5, 6]], f32(2, 3)]),
                                np.array([[1, 3, 5], [7, 9, 11]], np.float32))


def test_execute_and_transfer_tuple_result(client):
  exe = client.compile(TUPLE_HLO)
  a, n = client.execute_and_transfer(exe, [f32(3)])
  np.testing.assert_array_equal(a, f32(3))
  np.testing.assert_array_equal(n, -f32(3))


def test_execute_and_transfer_errors(client):
  exe = client.compile(ADD_HLO)
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.execute_and_transfer, exe,
               [f32(2, 3), np.zeros((2, 3), np.int32)])
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.execute_and_transfer, exe, [f32(2, 3)])
  expect_error(grpc.StatusCode.NOT_FOUND, client.execute_and_transfer, 987654, [])


def test_execute_and_transfer_streams_large_values(client, monkeypatch):
  import xla_client._client as impl  # pylint: disable=g-import-not-at-top
  monkeypatch.setattr(impl, "INLINE_LITERAL_BYTES", 64)
  exe = client.compile(ADD_HLO)
  before = client.session_status().handles
  np.testing.assert_array_equal(client.execute_and_transfer(exe, [f32(2, 3), f32(2, 3)]),
                                2 * f32(2, 3))
  client.flush_unregisters()
  assert client.session_status().handles == before


def test_execute_parallel(client):
  exe = client.compile(ADD_HLO)
  a = client.transfer_to_server(f32(2, 3))
  results = client.execute_parallel([(exe, [a, a]), {"executable": exe,
                                                      "arguments": [a, np.ones((2, 3), np.float32)]}])
  np.testing.assert_array_equal(client.transfer(results[0]), 2 * f32(2, 3))
  np.testing.assert_array_equal(client.transfer(results[1]), f32(2, 3) + 1)
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.execute_parallel, [])
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.execute_parallel, [(exe, [a])])


def _await_supported(client):
  exe = client.compile(ADD_HLO)
  try:
    client._call("Await", xc._client.pb.AwaitRequest(session_id=client.session_id))
  except xc.XlaRuntimeError as e:
    if e.code == grpc.StatusCode.UNIMPLEMENTED:
      return False
  return exe is not None


def test_execute_async_and_wait(client):
  if not _await_supported(client):
    pytest.skip("this xla-server does not serve Await yet")
  exe = client.compile(ADD_HLO)
  a = client.transfer_to_server(f32(2, 3))
  first = client.execute_async(exe, [a, a])
  second = client.execute_async(exe, [first, a])  # chained before the first is ready
  profiles = client.await_ready(first, second)
  assert len(profiles) == 2
  np.testing.assert_array_equal(client.transfer(second), 3 * f32(2, 3))
  third = client.execute_async(exe, [a, f32(2, 3)])
  third.wait()
  np.testing.assert_array_equal(third.to_py(), 2 * f32(2, 3))
  expect_error(grpc.StatusCode.NOT_FOUND, client.await_ready, 987654)


def test_async_failure_surfaces_on_wait(client):
  if not _await_supported(client):
    pytest.skip("this xla-server does not serve Await yet")
  exe = client.compile(ADD_HLO)
  a = client.transfer_to_server(f32(2, 3))
  wrong = client.transfer_to_server(f32(3, 2))
  try:
    data = client.execute_async(exe, [a, wrong])
  except xc.XlaRuntimeError as e:  # checked at submission
    assert e.code == grpc.StatusCode.INVALID_ARGUMENT
    return
  with pytest.raises(xc.XlaRuntimeError):
    data.wait()


def test_deadline_exceeded(server):
  with xc.Client(server.address, token=server.token, timeout=0.3) as c:
    exe = c.compile(SPIN_HLO)
    expect_error(grpc.StatusCode.DEADLINE_EXCEEDED, c.execute_and_transfer, exe, [np.int32(0)])


# --- handles ------------------------------------------------------------------------------------

def test_get_shape_and_errors(client):
  data = client.transfer_to_server(np.zeros((4, 5), np.int16))
  assert client.get_shape(data) == xc.Shape.array_shape(np.int16, (4, 5))
  assert data.shape() == client.get_shape(data)
  expect_error(grpc.StatusCode.NOT_FOUND, client.get_shape, 987654)


def test_deconstruct_tuple(client):
  data = client.transfer_to_server((f32(2), (np.int32(7), f32(1, 1))))
  first, second = client.deconstruct_tuple(data)
  np.testing.assert_array_equal(client.transfer(first), f32(2))
  inner = client.transfer(second)
  assert inner[0] == 7 and inner[1].shape == (1, 1)
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.deconstruct_tuple, first)
  expect_error(grpc.StatusCode.NOT_FOUND, client.deconstruct_tuple, 987654)


def test_unregister(fresh_client):
  c = fresh_client
  a = c.transfer_to_server(f32(8))
  b = c.transfer_to_server(f32(8))
  assert c.session_status().handles == 2
  c.unregister(a, b)
  assert c.session_status().handles == 0
  assert not a.owned
  expect_error(grpc.StatusCode.NOT_FOUND, c.transfer, a)
  expect_error(grpc.StatusCode.NOT_FOUND, c.unregister, a)
  expect_error(grpc.StatusCode.NOT_FOUND, c.unregister, 987654)


def test_global_data_close_release_and_gc(fresh_client):
  c = fresh_client
  with c.transfer_to_server(f32(8)) as data:
    assert c.session_status().handles == 1
  assert c.session_status().handles == 0
  kept = c.transfer_to_server(f32(8))
  handle = kept.release()
  del kept
  gc.collect()
  c.flush_unregisters()
  assert c.session_status().handles == 1
  c.unregister(handle)
  for _ in range(10):
    c.transfer_to_server(f32(8))  # dropped at once
  gc.collect()
  assert c.session_status().handles == 0  # flushed by the next call
  assert data.handle > 0


def test_batched_unregister_from_background(fresh_client):
  c = fresh_client
  datas = [c.transfer_to_server(np.float32(i)) for i in range(xc._client.UNREGISTER_BATCH)]
  assert c.get_status() is not None
  del datas
  gc.collect()
  deadline = time.monotonic() + 5
  while c._queue.pending and time.monotonic() < deadline:
    time.sleep(0.02)
  assert not c._queue.pending  # the background thread flushed the full batch


# --- infeed / outfeed ---------------------------------------------------------------------------

def test_infeed_and_outfeed(client):
  b = xc.XlaBuilder("feeds")
  shape = xc.Shape.array_shape(np.float32, (3,))
  token = ops.CreateToken(b)
  got = ops.InfeedWithToken(token, shape)
  value = ops.GetTupleElement(got, 0)
  doubled = ops.Add(value, value)
  ops.OutfeedWithToken(doubled, ops.GetTupleElement(got, 1), shape)
  ops.Tuple(b, [doubled])
  exe = client.compile(b.build())
  client.transfer_to_infeed(f32(3))
  result = client.execute_and_transfer(exe, [])
  np.testing.assert_array_equal(result[0], 2 * f32(3))
  np.testing.assert_array_equal(client.transfer_from_outfeed(shape), 2 * f32(3))


def test_outfeed_timeout_and_infeed_errors(client):
  shape = xc.Shape.array_shape(np.float32, (3,))
  err = expect_error(grpc.StatusCode.DEADLINE_EXCEEDED, client.transfer_from_outfeed, shape,
                     timeout_ms=50)
  assert err.message
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.transfer_to_infeed, f32(3),
               device_ordinal=9)


# --- notebook-style session ----------------------------------------------------------------------

def test_notebook_session_returns_to_baseline(fresh_client):
  c = fresh_client
  baseline = c.session_status()
  b = xc.XlaBuilder("step")
  x = ops.Parameter(b, 0, xc.Shape.array_shape(np.float32, (64, 64)))
  ops.Tanh(ops.Dot(x, x))
  exe = c.compile(b.build())
  value = c.transfer_to_server(np.eye(64, dtype=np.float32) * 0.5)
  for _ in range(100):
    value = c.execute(exe, [value])  # the previous value is collected and released
  out = c.transfer(value)
  assert out.shape == (64, 64) and np.all(np.isfinite(out))
  c.unregister(value)
  gc.collect()
  c.flush_unregisters()
  now = c.session_status()
  assert now.handles == baseline.handles == 0
  assert now.memory_bytes == baseline.memory_bytes


def _root_base(array):
  while isinstance(array.base, np.ndarray):
    array = array.base
  return array


@pytest.mark.parametrize("value", [np.arange(3 << 20, dtype=np.float32),  # a mapped buffer
                                   np.arange(6, dtype=np.int32)],
                         ids=["large", "small"])
def test_downloaded_memory_is_freed_when_dropped_without_the_cycle_collector(client, value):
  # A notebook drops a downloaded array and expects its memory back at once, not when the
  # cyclic collector happens to run (a reference cycle once held every receive buffer).
  import weakref  # pylint: disable=g-import-not-at-top
  data = client.transfer_to_server(value)
  gc.collect()
  gc.disable()
  try:
    for as_literal in (False, True):
      out = client.transfer(data, as_literal=as_literal)
      array = np.asarray(out)
      np.testing.assert_array_equal(array, value)
      receive_buffer = weakref.ref(_root_base(array))
      del out, array
      assert receive_buffer() is None
    pair = client.transfer(client.execute(client.compile(TUPLE_HLO), [np.ones(3, np.float32)]))
    buffers = [weakref.ref(_root_base(p)) for p in pair]
    del pair
    assert all(b() is None for b in buffers)
  finally:
    gc.enable()
    data.close()


def test_client_is_thread_safe(client):
  exe = client.compile(ADD_HLO)
  errors = []

  def work():
    try:
      for _ in range(20):
        out = client.execute_and_transfer(exe, [f32(2, 3), f32(2, 3)])
        np.testing.assert_array_equal(out, 2 * f32(2, 3))
        d = client.transfer_to_server(f32(2, 3))
        np.testing.assert_array_equal(client.transfer(d), f32(2, 3))
    except Exception as e:  # pylint: disable=broad-except
      errors.append(e)

  threads = [threading.Thread(target=work) for _ in range(4)]
  for t in threads:
    t.start()
  for t in threads:
    t.join()
  assert not errors, errors


def test_global_data_keeps_its_client_alive(server):
  data = xc.Client(server.address, token=server.token).transfer_to_server(f32(3))
  gc.collect()
  np.testing.assert_array_equal(data.to_py(), f32(3))
  np.testing.assert_array_equal(np.asarray(data), f32(3))


def test_upload_failures(client):
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.transfer_to_server, f32(3),
               device_ordinal=9)
  with pytest.raises(TypeError):
    client.transfer_to_server(np.array(["text"]))


def test_open_session_rejects_negative_lease(server):
  expect_error(grpc.StatusCode.INVALID_ARGUMENT, xc.Client, server.address, token=server.token,
               lease_ms=-1)


def test_revoked_token_mid_session(server):
  c = xc.Client(server.address, token=server.token)
  c._token = "revoked"
  expect_error(grpc.StatusCode.UNAUTHENTICATED, c.get_status)
  expect_error(grpc.StatusCode.UNAUTHENTICATED, c.keep_alive)
  expect_error(grpc.StatusCode.UNAUTHENTICATED, c.transfer_to_server, f32(2))
  c._token = server.token
  c.close()
