"""Client protocol behaviour against a fake in-process gRPC server: version check, retries
of idempotent calls on UNAVAILABLE, metadata, keepalive and close."""

from concurrent import futures
import threading
import time

import grpc
import numpy as np
import pytest

import xla_client as xc
from xla_client._pb import xla_service_pb2 as pb
from xla_client._pb import xla_service_pb2_grpc


class FakeService(xla_service_pb2_grpc.XlaServiceServicer):

  def __init__(self, min_version=1, max_version=1, unavailable=0, lease_ms=60000):
    self.min_version, self.max_version = min_version, max_version
    self.unavailable = unavailable  # GetVersion / GetShape fail this many times first
    self.lease_ms = lease_ms
    self.calls = []
    self.metadata = []
    self.lock = threading.Lock()

  def _record(self, name, context):
    with self.lock:
      self.calls.append(name)
      self.metadata.append(dict(context.invocation_metadata()))

  def _maybe_unavailable(self, context):
    with self.lock:
      if self.unavailable > 0:
        self.unavailable -= 1
        context.abort(grpc.StatusCode.UNAVAILABLE, "try again")

  def GetVersion(self, request, context):
    self._record("GetVersion", context)
    self._maybe_unavailable(context)
    return pb.GetVersionResponse(min_protocol_version=self.min_version,
                                 max_protocol_version=self.max_version, server_version="fake")

  def OpenSession(self, request, context):
    self._record("OpenSession", context)
    return pb.OpenSessionResponse(session_id="s1", lease_ms=self.lease_ms)

  def CloseSession(self, request, context):
    self._record("CloseSession", context)
    return pb.CloseSessionResponse()

  def KeepAlive(self, request, context):
    self._record("KeepAlive", context)
    return pb.KeepAliveResponse(lease_ms=self.lease_ms)

  def GetShape(self, request, context):
    self._record("GetShape", context)
    self._maybe_unavailable(context)
    return pb.GetShapeResponse(shape=xc.Shape.array_shape(np.float32, (2,)).to_proto())

  def Compile(self, request, context):
    self._record("Compile", context)
    self._maybe_unavailable(context)
    return pb.CompileResponse(execution_handle=1)

  def TransferToClient(self, request, context):
    self._record("TransferToClient", context)
    shape = xc.Shape.array_shape(np.int32, (3,)).to_proto()
    data = np.array([1, 2, 3], np.int32).tobytes()
    # The shape alone first, then the data split across two chunks.
    yield pb.TransferChunk(shape=shape)
    yield pb.TransferChunk(data=data[:5])
    yield pb.TransferChunk(data=data[5:])


@pytest.fixture
def fake():
  service = FakeService()
  server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
  xla_service_pb2_grpc.add_XlaServiceServicer_to_server(service, server)
  port = server.add_insecure_port("127.0.0.1:0")
  server.start()
  yield service, "127.0.0.1:%d" % port
  server.stop(None)


def test_protocol_mismatch_fails_before_opening_a_session(fake):
  service, address = fake
  service.min_version, service.max_version = 2, 3
  with pytest.raises(xc.XlaRuntimeError) as info:
    xc.Client(address)
  assert info.value.code == grpc.StatusCode.FAILED_PRECONDITION
  assert "client speaks 1, server speaks [2, 3]" in info.value.message
  assert "OpenSession" not in service.calls


def test_idempotent_calls_retry_on_unavailable(fake):
  service, address = fake
  service.unavailable = 2
  with xc.Client(address, max_retries=3) as client:
    assert service.calls.count("GetVersion") == 3
    service.unavailable = 2
    assert client.get_shape(5).dimensions() == (2,)
    assert service.calls.count("GetShape") == 3
    service.unavailable = 1  # Compile is not idempotent: no retry
    with pytest.raises(xc.XlaRuntimeError) as info:
      client.compile("HloModule m")
    assert info.value.code == grpc.StatusCode.UNAVAILABLE
    assert service.calls.count("Compile") == 1


def test_retries_give_up_after_max_retries(fake):
  service, address = fake
  service.unavailable = 10
  with pytest.raises(xc.XlaRuntimeError) as info:
    xc.Client(address, max_retries=2)
  assert info.value.code == grpc.StatusCode.UNAVAILABLE
  assert service.calls.count("GetVersion") == 3


def test_metadata_token_and_request_ids(fake):
  service, address = fake
  with xc.Client(address, token="secret", client_name="meta") as client:
    client.get_shape(1)
  for md in service.metadata:
    assert md["authorization"] == "Bearer secret"
  ids = [md["x-request-id"] for md in service.metadata]
  assert len(set(ids)) == len(ids)
  assert service.calls[-1] == "CloseSession"


def test_keepalive_period_is_a_third_of_the_lease(fake):
  service, address = fake
  service.lease_ms = 300
  with xc.Client(address):
    time.sleep(0.65)
  assert 3 <= service.calls.count("KeepAlive") <= 7  # every 100 ms (loaded CI: a few late)


def test_download_reassembles_chunks(fake):
  _, address = fake
  with xc.Client(address) as client:
    out = client.transfer(7)
    np.testing.assert_array_equal(out, [1, 2, 3])
    assert out.flags.writeable
    assert isinstance(client.transfer(7, as_literal=True), xc.Literal)
