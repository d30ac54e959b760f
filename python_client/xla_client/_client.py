"""Client: xla-server's remote API over gRPC, mirroring XLA's Client in snake_case.

Sessions: a Client runs GetVersion (checking protocol 1 is in the server's range) and
OpenSession at creation; a daemon thread renews the lease every lease/3 and unregisters
released handles; close() (or the context manager, or garbage collection) closes the
session, which frees every handle it still owns on the server.

Handles: GlobalData unregisters its handle when closed (now) or collected (queued and
sent in one batched Unregister with the next call, or by the background thread once
UNREGISTER_BATCH are queued). GlobalData and Executable objects keep their Client alive;
once the Client is closed they do nothing.

Errors: every server error is an XlaRuntimeError carrying the gRPC code and the server's
message. Idempotent calls (GetVersion, KeepAlive, ListDevices, GetShape,
GetComputationShape, GetStatus, transfers to the client) are retried on UNAVAILABLE with
exponential backoff (50 ms doubling, at most 2 s), max_retries times.

Thread-safety: every Client method may be called from several threads.
"""

import threading
import time
import uuid
import weakref

import grpc
import numpy as np

from . import _literal
from ._errors import from_rpc_error
from ._errors import XlaRuntimeError
from ._literal import Literal
from ._pb import xla_data_pb2
from ._pb import xla_service_pb2 as pb
from ._pb import xla_service_pb2_grpc
from ._shape import ProgramShape
from ._shape import Shape
from ._types import dtype_to_etype
from ._wire import parse_chunk
from ._wire import receive_buffer
from ._wire import upload_chunks

PROTOCOL_VERSION = 1
UNREGISTER_BATCH = 256
TRANSFER_CHUNK_BYTES = 1 << 20
# execute_and_transfer sends literals inline up to this size; beyond it (or for large
# results) it streams: TransferToServer + Execute + TransferToClient.
INLINE_LITERAL_BYTES = 4 << 20
_SERVICE = "/xla.server.XlaService/"


class _ReleaseQueue:
  """Handles of collected GlobalData objects waiting for a batched Unregister."""

  def __init__(self):
    self.lock = threading.Lock()
    self.wake = threading.Condition(self.lock)
    self.pending = []
    self.closed = False

  def release(self, handle):
    with self.lock:
      if self.closed:
        return
      self.pending.append(handle)
      if len(self.pending) >= UNREGISTER_BATCH:
        self.wake.notify_all()

  def take(self):
    with self.lock:
      handles, self.pending = self.pending, []
      return handles


class GlobalData:
  """A value held by the server in this client's session.

  Unregistered when closed, collected, or at the end of a `with` block. Not picklable.
  """

  __slots__ = ("_handle", "_queue", "_owner", "_pending", "__weakref__")

  def __init__(self, client, handle, pending=False):
    self._handle = int(handle)
    self._queue = client._queue
    self._owner = client
    self._pending = pending

  @property
  def handle(self):
    return self._handle

  @property
  def owned(self):
    return self._queue is not None

  def _client(self):
    client = self._owner
    if client._closed:
      raise XlaRuntimeError(grpc.StatusCode.FAILED_PRECONDITION,
                            "the Client of this GlobalData is closed")
    return client

  def release(self):
    """Gives up ownership: the handle is not unregistered by this object."""
    self._queue = None
    return self._handle

  def close(self):
    """Unregisters the handle now (no-op when not owned)."""
    if self._queue is None:
      return
    if self._owner._closed:
      self._queue = None
      return
    self._owner.unregister(self)

  def __del__(self):
    queue = self._queue
    if queue is not None:
      queue.release(self._handle)

  def __enter__(self):
    return self

  def __exit__(self, *exc):
    self.close()

  # Conveniences that go through the client.
  def shape(self):
    return self._client().get_shape(self)

  def to_py(self):
    """The value, transferred to the client (numpy array or tuple of them)."""
    return self._client().transfer(self)

  def __array__(self, dtype=None):
    arr = np.asarray(self._client().transfer(self))
    return arr if dtype is None else arr.astype(dtype)

  def wait(self):
    """Waits for an asynchronous execution's result; returns its ExecutionProfile."""
    return self._client().await_ready(self)[0]

  def __repr__(self):
    return "GlobalData(handle=%d%s)" % (self._handle, "" if self.owned else ", released")


class Executable:
  """A compiled computation on one device; it lives as long as the session."""

  def __init__(self, client, handle, device_ordinal, program_shape, cache_hit, compile_ms):
    self._client = client
    self.handle = handle
    self.device_ordinal = device_ordinal
    self.program_shape = program_shape
    self.cache_hit = cache_hit
    self.compile_ms = compile_ms

  def execute(self, arguments=(), **kwargs):
    return self._client.execute(self, arguments, **kwargs)

  def execute_and_transfer(self, arguments=(), **kwargs):
    return self._client.execute_and_transfer(self, arguments, **kwargs)

  def __call__(self, *arguments, **kwargs):
    """exe(x, y) is client.execute_and_transfer(exe, [x, y])."""
    return self._client.execute_and_transfer(self, list(arguments), **kwargs)

  def __repr__(self):
    return "Executable(handle=%d, device=%d, %s)" % (self.handle, self.device_ordinal,
                                                      self.program_shape)


class Client:
  """A session on an xla-server. See the module docstring.

  Args:
    target: "host:port".
    token: bearer token sent as "authorization: Bearer <token>".
    root_certificates: PEM roots (bytes/str); given, or with tls=True, the channel uses TLS.
    private_key, certificate_chain: PEM client key and certificate (mutual TLS).
    tls: use TLS with the system roots (implied by root_certificates).
    timeout: per-call deadline in seconds (None: no deadline).
    max_retries: retries of idempotent calls on UNAVAILABLE.
    client_name: shown in the server's status.
    lease_ms: requested session lease (0: the server's default).
    channel_options: extra gRPC channel options.
  """

  def __init__(self, target="127.0.0.1:50051", token=None, root_certificates=None,
               private_key=None, certificate_chain=None, tls=None, timeout=None,
               max_retries=3, client_name="", lease_ms=0, channel_options=()):
    if not target:
      raise ValueError("empty target address")
    if (private_key is None) != (certificate_chain is None):
      raise ValueError("a TLS client certificate needs its key (and the reverse)")
    self._closed = True  # until the session is open
    self._lock = threading.Lock()
    self._queue = _ReleaseQueue()
    self._timeout = timeout
    self._max_retries = max_retries
    self._token = token
    self.target = target
    options = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)]
    options += list(channel_options)
    use_tls = tls if tls is not None else (root_certificates is not None or
                                           private_key is not None)
    if use_tls:
      creds = grpc.ssl_channel_credentials(_b(root_certificates), _b(private_key),
                                           _b(certificate_chain))
      self._channel = grpc.secure_channel(target, creds, options=options)
    else:
      if root_certificates is not None or private_key is not None:
        raise ValueError("TLS certificates given but tls is False")
      self._channel = grpc.insecure_channel(target, options=options)
    self._stub = xla_service_pb2_grpc.XlaServiceStub(self._channel)
    # Streams with hand-made framing: chunks are serialized/parsed without copying data
    # through protobuf objects.
    self._upload = self._channel.stream_unary(
        _SERVICE + "TransferToServer", request_serializer=None,
        response_deserializer=pb.TransferToServerResponse.FromString)
    self._download = self._channel.unary_stream(
        _SERVICE + "TransferToClient", request_serializer=pb.TransferToClientRequest.SerializeToString,
        response_deserializer=None)
    self.session_id = ""
    self.lease_ms = 0
    try:
      self.server_version = self._call("GetVersion", pb.GetVersionRequest(), retry=True)
      v = self.server_version
      if not v.min_protocol_version <= PROTOCOL_VERSION <= v.max_protocol_version:
        raise XlaRuntimeError(
            grpc.StatusCode.FAILED_PRECONDITION,
            "protocol version mismatch: client speaks %d, server speaks [%d, %d] (server %s)" %
            (PROTOCOL_VERSION, v.min_protocol_version, v.max_protocol_version, v.server_version))
      response = self._call("OpenSession", pb.OpenSessionRequest(
          protocol_version=PROTOCOL_VERSION, client_name=client_name, lease_ms=lease_ms))
    except BaseException:
      self._channel.close()
      raise
    self.session_id = response.session_id
    self.lease_ms = response.lease_ms
    self._closed = False
    period = max(self.lease_ms / 3000.0, 0.001) if self.lease_ms > 0 else 20.0
    self._thread = threading.Thread(target=_background, args=(weakref.ref(self), self._queue, period),
                                    name="xla_client-keepalive", daemon=True)
    self._thread.start()

  # --- plumbing ---
  def _metadata(self, request_id):
    md = [("x-request-id", request_id)]
    if self._token:
      md.append(("authorization", "Bearer " + self._token))
    return md

  def _retrying(self, fn, retry):
    backoff = 0.05
    attempt = 0
    while True:
      request_id = uuid.uuid4().hex
      try:
        return fn(request_id)
      except grpc.RpcError as e:
        if retry and e.code() == grpc.StatusCode.UNAVAILABLE and attempt < self._max_retries:
          attempt += 1
          time.sleep(backoff)
          backoff = min(backoff * 2, 2.0)
          continue
        raise from_rpc_error(e, request_id) from None

  def _call(self, name, request, retry=False, timeout=None):
    method = getattr(self._stub, name)
    t = timeout if timeout is not None else self._timeout
    return self._retrying(lambda rid: method(request, timeout=t, metadata=self._metadata(rid)),
                          retry)

  def _check_open(self):
    if self._closed:
      raise XlaRuntimeError(grpc.StatusCode.FAILED_PRECONDITION, "Client is closed")

  def _wrap(self, handle, pending=False):
    return GlobalData(self, handle, pending)

  def flush_unregisters(self):
    """Unregisters the handles of collected GlobalData now. Errors are dropped."""
    handles = self._queue.take()
    if not handles or self._closed:
      return
    try:
      self._call("Unregister", pb.UnregisterRequest(session_id=self.session_id, handles=handles))
    except XlaRuntimeError:
      if len(handles) > 1:
        # One stale handle (e.g. donated) must not keep the others alive.
        for h in handles:
          try:
            self._call("Unregister", pb.UnregisterRequest(session_id=self.session_id, handles=[h]))
          except XlaRuntimeError:
            pass
    except Exception:  # pylint: disable=broad-except
      pass

  def _enter(self):
    self._check_open()
    self.flush_unregisters()

  # --- lifecycle ---
  def close(self):
    """Closes the session (freeing its handles on the server) and the channel."""
    with self._lock:
      if self._closed:
        return
      self._closed = True
    with self._queue.lock:
      self._queue.closed = True
      self._queue.pending.clear()
      self._queue.wake.notify_all()
    if threading.current_thread() is not self._thread:
      self._thread.join(timeout=5)
    try:
      self._call("CloseSession", pb.CloseSessionRequest(session_id=self.session_id), timeout=5)
    except Exception:  # pylint: disable=broad-except
      pass
    self._channel.close()

  def __enter__(self):
    return self

  def __exit__(self, *exc):
    self.close()

  def __del__(self):
    try:
      if not getattr(self, "_closed", True):
        self.close()
    except Exception:  # pylint: disable=broad-except
      pass

  def keep_alive(self):
    self._check_open()
    return self._call("KeepAlive", pb.KeepAliveRequest(session_id=self.session_id), retry=True)

  # --- devices ---
  def devices(self):
    """The server's devices (DeviceInfo protos: ordinal, platform, name, memory_bytes)."""
    self._enter()
    return list(self._call("ListDevices", pb.ListDevicesRequest(session_id=self.session_id),
                           retry=True).devices)

  def get_device_handles(self, device_count=1):
    self._enter()
    return list(self._call("GetDeviceHandles", pb.GetDeviceHandlesRequest(
        session_id=self.session_id, device_count=device_count)).device_handles)

  # --- compile and execute ---
  def compile(self, computation, device_ordinal=0, argument_layouts=None, result_layout=None):
    """Compiles an XlaComputation, HLO text (str) or serialized HloModuleProto (bytes)."""
    self._enter()
    request = pb.CompileRequest(session_id=self.session_id, device_ordinal=device_ordinal)
    _set_module(request, computation, "compile")
    for layout in argument_layouts or ():
      request.argument_layouts.append(layout.to_proto())
    if result_layout is not None:
      request.result_layout.CopyFrom(result_layout.to_proto())
    response = self._call("Compile", request)
    return Executable(self, response.execution_handle, device_ordinal,
                      ProgramShape.from_proto(response.program_shape), response.cache_hit,
                      response.compile_ms)

  def compile_ahead_of_time(self, computation, device_ordinal=0, argument_layouts=None,
                            result_layout=None):
    """Compiles like compile() and returns the serialized executable (bytes).

    As XLA's LocalClient.CompileAheadOfTime: the bytes hold the backend's object code, buffer
    plan and optimized module, and load() turns them into an Executable on a device of the
    same platform, on this server or another one with the same xla-server version and host
    CPU, without compiling again.
    """
    self._enter()
    request = pb.CompileAheadOfTimeRequest(session_id=self.session_id,
                                           device_ordinal=device_ordinal)
    _set_module(request, computation, "compile_ahead_of_time")
    for layout in argument_layouts or ():
      request.argument_layouts.append(layout.to_proto())
    if result_layout is not None:
      request.result_layout.CopyFrom(result_layout.to_proto())
    return self._call("CompileAheadOfTime", request).serialized_executable

  def load(self, serialized_executable, device_ordinal=0):
    """An Executable from compile_ahead_of_time() bytes, used exactly like compile()'s.

    Raises XlaRuntimeError with FAILED_PRECONDITION for bytes of another platform, CPU or
    xla-server version, INVALID_ARGUMENT for damaged bytes, PERMISSION_DENIED when the server
    was not started with --allow-load. Its compile_ms is the load time.
    """
    self._enter()
    if not isinstance(serialized_executable, (bytes, bytearray, memoryview)):
      raise TypeError("load() takes the bytes compile_ahead_of_time() returned, not %s" %
                      type(serialized_executable).__name__)
    request = pb.LoadRequest(session_id=self.session_id,
                             serialized_executable=bytes(serialized_executable),
                             device_ordinal=device_ordinal)
    response = self._call("Load", request)
    return Executable(self, response.execution_handle, device_ordinal,
                      ProgramShape.from_proto(response.program_shape), response.cache_hit,
                      response.load_ms)

  def _argument_handles(self, executable, arguments, temporaries):
    handles = []
    params = executable.program_shape.parameter_shapes() if isinstance(executable, Executable) else None
    for i, arg in enumerate(arguments):
      if isinstance(arg, GlobalData):
        handles.append(arg.handle)
      else:
        shape = params[i] if params is not None and i < len(params) else None
        data = self.transfer_to_server(arg, _device_of(executable), shape=_loose(shape, arg))
        temporaries.append(data)
        handles.append(data.handle)
    return handles

  def _execute_request(self, executable, arguments, donated_arguments, rng_seed, run_async,
                       temporaries):
    return pb.ExecuteRequest(
        session_id=self.session_id, execution_handle=_handle_of(executable),
        arguments=self._argument_handles(executable, arguments, temporaries),
        donated_arguments=list(donated_arguments), rng_seed=rng_seed, run_async=run_async)

  def execute(self, executable, arguments=(), donated_arguments=(), rng_seed=0,
              profile=None):
    """Runs executable on GlobalData arguments (host values are uploaded first).

    Returns the result's GlobalData. `profile`, an xla ExecutionProfile proto, is filled.
    """
    self._enter()
    temporaries = []
    try:
      request = self._execute_request(executable, arguments, donated_arguments, rng_seed,
                                      False, temporaries)
      response = self._call("Execute", request)
    finally:
      for t in temporaries:
        t.release()
      self._unregister_handles([t.handle for t in temporaries], ignore_errors=True)
    _consume_donated(arguments, donated_arguments)
    if profile is not None:
      profile.CopyFrom(response.profile)
    return self._wrap(response.result_handle)

  def execute_async(self, executable, arguments=(), donated_arguments=(), rng_seed=0):
    """Queues an execution; returns its result GlobalData at once (see GlobalData.wait)."""
    self._enter()
    temporaries = []
    request = self._execute_request(executable, arguments, donated_arguments, rng_seed, True,
                                    temporaries)
    response = self._call("Execute", request)
    _consume_donated(arguments, donated_arguments)
    data = self._wrap(response.result_handle, pending=True)
    # Uploaded arguments are released once the result is ready (freeing them earlier is
    # safe for the server too: executions hold their arguments).
    for t in temporaries:
      t.release()
    self._unregister_handles([t.handle for t in temporaries], ignore_errors=True)
    return data

  def await_ready(self, *datas):
    """Waits until the data are ready; returns one ExecutionProfile proto per data."""
    self._enter()
    datas = _flatten(datas)
    response = self._call("Await", pb.AwaitRequest(session_id=self.session_id,
                                                   handles=[_handle_of(d) for d in datas]))
    for d in datas:
      if isinstance(d, GlobalData):
        d._pending = False
    return list(response.profiles)

  def execute_and_transfer(self, executable, arguments=(), rng_seed=0, as_literal=False,
                           profile=None):
    """Runs executable on host values and returns the result on the host.

    The result is a numpy array (a tuple of them for tuple results), or a Literal with
    as_literal=True. Large arguments or results are streamed instead of sent inline.
    """
    self._enter()
    params = executable.program_shape.parameter_shapes() if isinstance(executable, Executable) else None
    literals = []
    inline = True
    total = 0
    for i, arg in enumerate(arguments):
      if isinstance(arg, GlobalData):
        inline = False
        literals.append(arg)
        continue
      shape = params[i] if params is not None and i < len(params) else None
      target = _loose(shape, arg)
      if target is None and isinstance(arg, np.ndarray) and arg.dtype.isnative:
        literals.append(arg)  # sent as it is: no Literal in between
        total += arg.nbytes
        continue
      lit = _literal.to_literal(arg, target)
      literals.append(lit)
      total += lit.size_bytes()
    result_bytes = 0
    if isinstance(executable, Executable):
      result_bytes = executable.program_shape.result_shape().byte_size()
    if not inline or total > INLINE_LITERAL_BYTES or result_bytes > INLINE_LITERAL_BYTES:
      with self.execute(executable, literals, rng_seed=rng_seed, profile=profile) as result:
        return self.transfer(result, as_literal=as_literal)
    request = pb.ExecuteAndTransferRequest(
        session_id=self.session_id, execution_handle=_handle_of(executable), rng_seed=rng_seed)
    for lit in literals:
      if isinstance(lit, np.ndarray):
        _literal.array_to_proto(lit, request.arguments.add())
      else:
        _literal._write_proto(lit, request.arguments.add())
    response = self._call("ExecuteAndTransfer", request)
    if profile is not None:
      profile.CopyFrom(response.profile)
    if as_literal:
      return Literal.from_proto(response.result)
    return _literal.proto_to_py(response.result)

  def execute_parallel(self, requests):
    """Runs several executions at once.

    requests: a list of (executable, arguments) pairs or of dicts with keys executable,
    arguments, and optionally donated_arguments and rng_seed. Returns one GlobalData each.
    """
    self._enter()
    request = pb.ExecuteParallelRequest()
    temporaries = []
    try:
      for r in requests:
        if isinstance(r, dict):
          executable, arguments = r["executable"], r.get("arguments", ())
          donated, seed = r.get("donated_arguments", ()), r.get("rng_seed", 0)
        else:
          executable, arguments = r
          donated, seed = (), 0
        request.requests.append(self._execute_request(executable, arguments, donated, seed,
                                                      False, temporaries))
      response = self._call("ExecuteParallel", request)
    finally:
      for t in temporaries:
        t.release()
      self._unregister_handles([t.handle for t in temporaries])
    if len(response.responses) != len(request.requests):
      raise XlaRuntimeError(grpc.StatusCode.INTERNAL, "ExecuteParallel: %d requests but %d "
                            "responses" % (len(request.requests), len(response.responses)))
    return [self._wrap(r.result_handle) for r in response.responses]

  # --- transfers ---
  def transfer_to_server(self, value, device_ordinal=0, shape=None):
    """Uploads a Literal, numpy array, scalar or tuple of those; returns its GlobalData.

    shape (optional) gives the element type / layout to send value as.
    """
    self._enter()
    wire_shape, buffers = _literal.wire_leaves(value, shape)
    header = pb.TransferChunk(session_id=self.session_id, device_ordinal=device_ordinal,
                              shape=wire_shape.to_proto()).SerializeToString()

    def send(request_id):
      return self._upload(upload_chunks(header, buffers, TRANSFER_CHUNK_BYTES),
                          timeout=self._timeout, metadata=self._metadata(request_id))

    response = self._retrying(send, retry=False)
    return self._wrap(response.handle)

  def transfer(self, data, as_literal=False):
    """Downloads a GlobalData: numpy array (tuple of them for tuples), or a Literal."""
    self._enter()
    request = pb.TransferToClientRequest(session_id=self.session_id, handle=_handle_of(data))

    def receive(request_id):
      shape, out, filled = None, None, 0
      for msg in self._download(request, timeout=self._timeout,
                                metadata=self._metadata(request_id)):
        shape_bytes, pieces = parse_chunk(msg)
        if shape is None:
          if shape_bytes is None:
            raise XlaRuntimeError(grpc.StatusCode.INTERNAL, "first TransferChunk has no shape")
          shape = Shape.from_proto(xla_data_pb2.ShapeProto.FromString(shape_bytes))
          out = receive_buffer(shape.byte_size())
        for piece in pieces:
          n = len(piece)
          if filled + n > out.size:
            raise XlaRuntimeError(grpc.StatusCode.INTERNAL, "transfer of %s: too many bytes" % shape)
          out[filled:filled + n] = np.frombuffer(piece, np.uint8)
          filled += n
      if shape is None:
        raise XlaRuntimeError(grpc.StatusCode.INTERNAL, "empty transfer stream")
      if filled != out.size:
        raise XlaRuntimeError(grpc.StatusCode.INTERNAL, "transfer of %s: %d of %d bytes" %
                              (shape, filled, out.size))
      return _literal.literal_from_wire(shape, out)

    lit = self._retrying(receive, retry=True)
    return lit if as_literal else lit.to_py()

  def transfer_to_infeed(self, value, device_ordinal=0, shape=None):
    self._enter()
    request = pb.TransferToInfeedRequest(session_id=self.session_id, device_ordinal=device_ordinal)
    _literal._write_proto(_literal.to_literal(value, shape), request.literal)
    self._call("TransferToInfeed", request)

  def transfer_from_outfeed(self, shape, device_ordinal=0, timeout_ms=10000, as_literal=False):
    self._enter()
    response = self._call("TransferFromOutfeed", pb.TransferFromOutfeedRequest(
        session_id=self.session_id, device_ordinal=device_ordinal,
        shape=shape.with_major_to_minor_layout_if_absent().to_proto(), timeout_ms=timeout_ms))
    lit = Literal.from_proto(response.literal)
    return lit if as_literal else lit.to_py()

  # --- handles ---
  def get_shape(self, data):
    self._enter()
    response = self._call("GetShape", pb.GetShapeRequest(session_id=self.session_id,
                                                          handle=_handle_of(data)), retry=True)
    return Shape.from_proto(response.shape)

  def get_computation_shape(self, executable):
    self._enter()
    response = self._call("GetComputationShape", pb.GetComputationShapeRequest(
        session_id=self.session_id, execution_handle=_handle_of(executable)), retry=True)
    return ProgramShape.from_proto(response.program_shape)

  def deconstruct_tuple(self, data):
    self._enter()
    response = self._call("DeconstructTuple", pb.DeconstructTupleRequest(
        session_id=self.session_id, handle=_handle_of(data)))
    return [self._wrap(h) for h in response.element_handles]

  def unregister(self, *datas):
    """Unregisters now; the GlobalData objects then own nothing, whatever the outcome."""
    self._enter()
    datas = _flatten(datas)
    handles = []
    for d in datas:
      handles.append(_handle_of(d))
      if isinstance(d, GlobalData):
        d._queue = None
    self._unregister_handles(handles)

  def _unregister_handles(self, handles, ignore_errors=False):
    if not handles or self._closed:
      return
    try:
      self._call("Unregister", pb.UnregisterRequest(session_id=self.session_id, handles=handles))
    except XlaRuntimeError:
      if not ignore_errors:
        raise

  def reset_device(self, device_ordinal=0):
    self._enter()
    self._call("ResetDevice", pb.ResetDeviceRequest(session_id=self.session_id,
                                                    device_ordinal=device_ordinal))

  def get_status(self):
    """The server's status (GetStatusResponse: devices, sessions, cache, executions)."""
    self._enter()
    return self._call("GetStatus", pb.GetStatusRequest(), retry=True)

  def session_status(self):
    """This session's SessionStatus (memory_bytes, handles, executables)."""
    for s in self.get_status().sessions:
      # The status shows a prefix of each session id (ids are credentials).
      if s.session_id and self.session_id.startswith(s.session_id):
        return s
    raise XlaRuntimeError(grpc.StatusCode.NOT_FOUND, "session not in the server's status")


def _background(client_ref, queue, period):
  """Keeps the lease alive and flushes full batches of released handles."""
  next_keepalive = time.monotonic() + period
  while True:
    with queue.lock:
      while not queue.closed and len(queue.pending) < UNREGISTER_BATCH:
        remaining = next_keepalive - time.monotonic()
        if remaining <= 0:
          break
        queue.wake.wait(remaining)
      if queue.closed:
        return
    client = client_ref()
    if client is None or client._closed:
      return
    try:
      client.flush_unregisters()
      if time.monotonic() >= next_keepalive:
        try:
          client.keep_alive()
        except Exception:  # pylint: disable=broad-except
          pass  # a lapsed session shows up on the next real call
        next_keepalive = time.monotonic() + period
    finally:
      del client


def _b(value):
  if value is None or isinstance(value, bytes):
    return value
  return value.encode()


def _set_module(request, computation, method):
  """Puts an XlaComputation, HLO text or serialized HloModuleProto into `request`."""
  if isinstance(computation, str):
    request.hlo_text = computation
  elif isinstance(computation, (bytes, bytearray, memoryview)):
    request.hlo_module_proto = bytes(computation)
  elif hasattr(computation, "as_serialized_hlo_module_proto"):
    request.hlo_module_proto = computation.as_serialized_hlo_module_proto()
  elif hasattr(computation, "SerializeToString"):
    request.hlo_module_proto = computation.SerializeToString()
  else:
    raise TypeError("%s() takes an XlaComputation, HLO text or serialized "
                    "HloModuleProto bytes, not %s" % (method, type(computation).__name__))


def _handle_of(obj):
  if isinstance(obj, (GlobalData, Executable)):
    return obj.handle
  if isinstance(obj, (int, np.integer)):
    return int(obj)
  raise TypeError("expected a GlobalData, Executable or handle, got %s" % type(obj).__name__)


def _device_of(executable):
  return executable.device_ordinal if isinstance(executable, Executable) else 0


def _loose(shape, value):
  """The shape to send a host value as: the parameter's for untyped Python values (and for
  numpy arrays of the parameter's type when it has a non-default layout), else None (the
  value goes as it is; a mismatch is the server's INVALID_ARGUMENT)."""
  if shape is None or not shape.is_array() or isinstance(value, (Literal, GlobalData)):
    return None
  if isinstance(value, (np.ndarray, np.generic)):
    try:
      same = dtype_to_etype(value.dtype) == shape.element_type()
    except TypeError:
      return None
    default = shape.layout_or_default() == tuple(range(shape.rank() - 1, -1, -1))
    return shape if same and not default else None
  if isinstance(value, tuple):
    return None
  try:
    dims = np.shape(value)
  except ValueError:
    return None
  return shape if tuple(dims) == shape.dimensions() else None


def _consume_donated(arguments, donated_arguments):
  """Donated GlobalData arguments belong to the server now: never unregister them."""
  for index in donated_arguments:
    if 0 <= index < len(arguments) and isinstance(arguments[index], GlobalData):
      arguments[index]._queue = None


def _flatten(datas):
  out = []
  for d in datas:
    if isinstance(d, (list, tuple)):
      out.extend(d)
    else:
      out.append(d)
  return out
