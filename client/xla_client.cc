// Client: the code shared by the remote and in-process modes (handshake, session lease,
// retries, RAII handles with batched Unregister, literal conversion).

#include "client/xla_client.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/xla_client_transport.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace client {
namespace internal {

// Handles of destroyed GlobalData objects waiting for a batched Unregister. Shared between
// the Client and its GlobalData objects so that either may go first.
struct ReleaseQueue {
  std::mutex mu;
  std::condition_variable cv;  // wakes the background thread (batch full / shutdown)
  std::vector<int64_t> pending;
  bool closed = false;  // the client is gone: releasing does nothing

  void Release(int64_t handle) {
    std::lock_guard<std::mutex> lock(mu);
    if (closed) return;
    pending.push_back(handle);
    if (pending.size() >= kUnregisterBatch) cv.notify_all();
  }
};

}  // namespace internal

GlobalData::~GlobalData() {
  if (queue_ != nullptr) queue_->Release(handle_);
}

namespace {

bool IsIdempotentRetryable(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable;
}

// Runs `call` and retries it on UNAVAILABLE with exponential backoff (50 ms doubling, at
// most 2 s between tries).
template <typename Fn>
auto WithRetries(int max_retries, Fn&& call) -> decltype(call()) {
  auto result = call();
  std::chrono::milliseconds backoff(50);
  for (int attempt = 0; attempt < max_retries && !result.ok() && IsIdempotentRetryable(result.status());
       ++attempt) {
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
    result = call();
  }
  return result;
}

}  // namespace

// The lease-renewing, handle-flushing thread.
struct Client::Background {
  std::thread thread;
  bool stop = false;  // guarded by queue->mu
};

Client::Client(std::unique_ptr<internal::Transport> transport, const ClientOptions& options)
    : transport_(std::move(transport)),
      options_(options),
      queue_(std::make_shared<internal::ReleaseQueue>()) {}

absl::StatusOr<std::unique_ptr<Client>> Client::Connect(const ClientOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<internal::Transport> transport,
                   internal::MakeGrpcTransport(options));
  return Finish(std::unique_ptr<Client>(new Client(std::move(transport), options)));
}

absl::StatusOr<std::unique_ptr<Client>> Client::Finish(std::unique_ptr<Client> client) {
  RETURN_IF_ERROR(client->Handshake());
  client->StartKeepAlive();
  return client;
}

absl::Status Client::Handshake() {
  ASSIGN_OR_RETURN(version_, WithRetries(options_.max_retries, [&] {
                     return transport_->GetVersion(server::GetVersionRequest());
                   }));
  if (kClientProtocolVersion < version_.min_protocol_version() ||
      kClientProtocolVersion > version_.max_protocol_version()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "protocol version mismatch: client speaks ", kClientProtocolVersion, ", server speaks [",
        version_.min_protocol_version(), ", ", version_.max_protocol_version(), "] (server ",
        version_.server_version(), ")"));
  }
  server::OpenSessionRequest request;
  request.set_protocol_version(kClientProtocolVersion);
  request.set_client_name(options_.client_name);
  request.set_lease_ms(options_.lease_ms);
  ASSIGN_OR_RETURN(server::OpenSessionResponse response, transport_->OpenSession(request));
  session_id_ = response.session_id();
  lease_ms_ = response.lease_ms();
  return absl::OkStatus();
}

void Client::StartKeepAlive() {
  background_ = std::make_unique<Background>();
  const auto period = std::chrono::milliseconds(lease_ms_ > 0 ? std::max<int64_t>(lease_ms_ / 3, 1) : 20000);
  background_->thread = std::thread([this, period] {
    auto next_keepalive = std::chrono::steady_clock::now() + period;
    std::unique_lock<std::mutex> lock(queue_->mu);
    while (!background_->stop) {
      queue_->cv.wait_until(lock, next_keepalive, [&] {
        return background_->stop || queue_->pending.size() >= kUnregisterBatch;
      });
      if (background_->stop) break;
      lock.unlock();
      FlushUnregisters();
      if (std::chrono::steady_clock::now() >= next_keepalive) {
        KeepAlive().IgnoreError();  // a lapsed session shows up on the next real call
        next_keepalive = std::chrono::steady_clock::now() + period;
      }
      lock.lock();
    }
  });
}

Client::~Client() {
  if (background_ != nullptr) {
    {
      std::lock_guard<std::mutex> lock(queue_->mu);
      background_->stop = true;
    }
    queue_->cv.notify_all();
    background_->thread.join();
  }
  {
    std::lock_guard<std::mutex> lock(queue_->mu);
    queue_->closed = true;
    queue_->pending.clear();  // CloseSession frees them all
  }
  if (!session_id_.empty()) {
    server::CloseSessionRequest request;
    request.set_session_id(session_id_);
    transport_->CloseSession(request).IgnoreError();
  }
}

void Client::FlushUnregisters() {
  std::vector<int64_t> handles;
  {
    std::lock_guard<std::mutex> lock(queue_->mu);
    handles.swap(queue_->pending);
  }
  if (handles.empty()) return;
  server::UnregisterRequest request;
  request.set_session_id(session_id_);
  for (int64_t h : handles) request.add_handles(h);
  absl::Status status = transport_->Unregister(request).status();
  if (status.code() == absl::StatusCode::kNotFound && handles.size() > 1) {
    // One stale handle (e.g. donated) must not keep the others alive.
    for (int64_t h : handles) {
      server::UnregisterRequest single;
      single.set_session_id(session_id_);
      single.add_handles(h);
      transport_->Unregister(single).IgnoreError();
    }
  }
}

std::unique_ptr<GlobalData> Client::Wrap(int64_t handle) {
  return std::unique_ptr<GlobalData>(new GlobalData(queue_, handle));
}

absl::Status Client::KeepAlive() {
  server::KeepAliveRequest request;
  request.set_session_id(session_id_);
  return WithRetries(options_.max_retries, [&] { return transport_->KeepAlive(request); }).status();
}

absl::StatusOr<std::vector<server::DeviceInfo>> Client::ListDevices() {
  FlushUnregisters();
  server::ListDevicesRequest request;
  request.set_session_id(session_id_);
  ASSIGN_OR_RETURN(server::ListDevicesResponse response,
                   WithRetries(options_.max_retries, [&] { return transport_->ListDevices(request); }));
  return std::vector<server::DeviceInfo>(response.devices().begin(), response.devices().end());
}

absl::StatusOr<std::vector<server::DeviceHandle>> Client::GetDeviceHandles(int64_t device_count) {
  FlushUnregisters();
  server::GetDeviceHandlesRequest request;
  request.set_session_id(session_id_);
  request.set_device_count(device_count);
  ASSIGN_OR_RETURN(server::GetDeviceHandlesResponse response, transport_->GetDeviceHandles(request));
  return std::vector<server::DeviceHandle>(response.device_handles().begin(),
                                           response.device_handles().end());
}

namespace {

absl::StatusOr<ExecutableHandle> ToExecutable(const server::CompileResponse& response,
                                              int device_ordinal) {
  ExecutableHandle executable;
  executable.handle = response.execution_handle();
  executable.device_ordinal = device_ordinal;
  ASSIGN_OR_RETURN(executable.program_shape, ProgramShape::FromProto(response.program_shape()));
  executable.cache_hit = response.cache_hit();
  executable.compile_ms = response.compile_ms();
  return executable;
}

}  // namespace

namespace {

// A CompileRequest or CompileAheadOfTimeRequest (they share these fields) for the module
// given as HLO text, or as a serialized HloModuleProto when `text` is false.
template <typename Request>
Request ModuleRequest(const std::string& session_id, std::string module, bool text, int device_ordinal) {
  Request request;
  request.set_session_id(session_id);
  if (text) {
    request.set_hlo_text(std::move(module));
  } else {
    request.set_hlo_module_proto(std::move(module));
  }
  request.set_device_ordinal(device_ordinal);
  return request;
}

absl::StatusOr<std::string> SerializeModule(const HloModuleProto& module) {
  std::string bytes;
  if (!module.SerializeToString(&bytes)) {
    return absl::InvalidArgumentError("HloModuleProto does not serialize (over 2 GiB?)");
  }
  return bytes;
}

}  // namespace

absl::StatusOr<ExecutableHandle> Client::Compile(absl::string_view hlo_text, int device_ordinal) {
  FlushUnregisters();
  ASSIGN_OR_RETURN(server::CompileResponse response,
                   transport_->Compile(ModuleRequest<server::CompileRequest>(session_id_, std::string(hlo_text),
                                                                             /*text=*/true, device_ordinal)));
  return ToExecutable(response, device_ordinal);
}

absl::StatusOr<ExecutableHandle> Client::Compile(const HloModuleProto& module, int device_ordinal) {
  ASSIGN_OR_RETURN(std::string bytes, SerializeModule(module));
  return CompileSerializedProto(std::move(bytes), device_ordinal);
}

absl::StatusOr<ExecutableHandle> Client::CompileSerializedProto(std::string serialized_module,
                                                                int device_ordinal) {
  FlushUnregisters();
  ASSIGN_OR_RETURN(server::CompileResponse response,
                   transport_->Compile(ModuleRequest<server::CompileRequest>(session_id_, std::move(serialized_module),
                                                                             /*text=*/false, device_ordinal)));
  return ToExecutable(response, device_ordinal);
}

absl::StatusOr<std::string> Client::CompileAheadOfTime(absl::string_view hlo_text, int device_ordinal) {
  FlushUnregisters();
  ASSIGN_OR_RETURN(server::CompileAheadOfTimeResponse response,
                   transport_->CompileAheadOfTime(ModuleRequest<server::CompileAheadOfTimeRequest>(
                       session_id_, std::string(hlo_text), /*text=*/true, device_ordinal)));
  return std::move(*response.mutable_serialized_executable());
}

absl::StatusOr<std::string> Client::CompileAheadOfTime(const HloModuleProto& module, int device_ordinal) {
  ASSIGN_OR_RETURN(std::string bytes, SerializeModule(module));
  FlushUnregisters();
  ASSIGN_OR_RETURN(server::CompileAheadOfTimeResponse response,
                   transport_->CompileAheadOfTime(ModuleRequest<server::CompileAheadOfTimeRequest>(
                       session_id_, std::move(bytes), /*text=*/false, device_ordinal)));
  return std::move(*response.mutable_serialized_executable());
}

absl::StatusOr<ExecutableHandle> Client::Load(std::string serialized_executable, int device_ordinal) {
  FlushUnregisters();
  server::LoadRequest request;
  request.set_session_id(session_id_);
  request.set_serialized_executable(std::move(serialized_executable));
  request.set_device_ordinal(device_ordinal);
  ASSIGN_OR_RETURN(server::LoadResponse response, transport_->Load(request));
  ExecutableHandle executable;
  executable.handle = response.execution_handle();
  executable.device_ordinal = device_ordinal;
  ASSIGN_OR_RETURN(executable.program_shape, ProgramShape::FromProto(response.program_shape()));
  executable.cache_hit = response.cache_hit();
  executable.compile_ms = response.load_ms();
  return executable;
}

namespace {

void FillExecuteRequest(const std::string& session_id, const ExecutableHandle& executable,
                        absl::Span<const GlobalData* const> arguments, const ExecuteOptions& options,
                        server::ExecuteRequest* request) {
  request->set_session_id(session_id);
  request->set_execution_handle(executable.handle);
  for (const GlobalData* argument : arguments) {
    request->add_arguments(argument == nullptr ? 0 : argument->handle());
  }
  for (int64_t index : options.donated_arguments) request->add_donated_arguments(index);
  request->set_rng_seed(options.rng_seed);
}

}  // namespace

absl::StatusOr<std::unique_ptr<GlobalData>> Client::Execute(
    const ExecutableHandle& executable, absl::Span<const GlobalData* const> arguments,
    const ExecuteOptions& options) {
  FlushUnregisters();
  server::ExecuteRequest request;
  FillExecuteRequest(session_id_, executable, arguments, options, &request);
  ASSIGN_OR_RETURN(server::ExecuteResponse response, transport_->Execute(request));
  if (options.profile != nullptr) *options.profile = response.profile();
  return Wrap(response.result_handle());
}

absl::StatusOr<std::unique_ptr<GlobalData>> Client::ExecuteAsync(
    const ExecutableHandle& executable, absl::Span<const GlobalData* const> arguments,
    const ExecuteOptions& options) {
  FlushUnregisters();
  server::ExecuteRequest request;
  FillExecuteRequest(session_id_, executable, arguments, options, &request);
  request.set_run_async(true);
  ASSIGN_OR_RETURN(server::ExecuteResponse response, transport_->Execute(request));
  return Wrap(response.result_handle());
}

absl::Status Client::Await(absl::Span<const GlobalData* const> data,
                           std::vector<ExecutionProfile>* profiles) {
  server::AwaitRequest request;
  request.set_session_id(session_id_);
  for (const GlobalData* item : data) request.add_handles(item == nullptr ? 0 : item->handle());
  // Waiting changes nothing on the server, so a dropped connection may retry it.
  ASSIGN_OR_RETURN(server::AwaitResponse response,
                   WithRetries(options_.max_retries, [&] { return transport_->Await(request); }));
  if (profiles != nullptr) profiles->assign(response.profiles().begin(), response.profiles().end());
  return absl::OkStatus();
}

absl::StatusOr<Literal> Client::ExecuteAndTransfer(const ExecutableHandle& executable,
                                                   absl::Span<const Literal> arguments,
                                                   const ExecuteOptions& options) {
  FlushUnregisters();
  int64_t bytes = 0;
  for (const Literal& argument : arguments) {
    // Tuples: count their leaves through the proto size estimate below.
    bytes += argument.IsTuple() ? 0 : argument.size_bytes();
  }
  // Results of large programs are usually as large as their inputs; past the inline limit,
  // stream both ways so no message approaches protobuf's 2 GiB cap.
  int64_t result_bytes = 0;
  if (executable.program_shape.result().IsArray()) {
    result_bytes = ShapeUtil::ByteSizeOf(executable.program_shape.result());
  }
  if (bytes > kInlineLiteralBytes || result_bytes > kInlineLiteralBytes) {
    return ExecuteAndTransferStreamed(executable, arguments, options);
  }
  server::ExecuteAndTransferRequest request;
  request.set_session_id(session_id_);
  request.set_execution_handle(executable.handle);
  request.set_rng_seed(options.rng_seed);
  for (const Literal& argument : arguments) *request.add_arguments() = argument.ToProto();
  ASSIGN_OR_RETURN(server::ExecuteAndTransferResponse response,
                   transport_->ExecuteAndTransfer(request));
  if (options.profile != nullptr) *options.profile = response.profile();
  return Literal::FromProto(response.result());
}

absl::StatusOr<Literal> Client::ExecuteAndTransferStreamed(const ExecutableHandle& executable,
                                                           absl::Span<const Literal> arguments,
                                                           const ExecuteOptions& options) {
  std::vector<std::unique_ptr<GlobalData>> uploaded;
  std::vector<const GlobalData*> pointers;
  for (const Literal& argument : arguments) {
    ASSIGN_OR_RETURN(std::unique_ptr<GlobalData> data,
                     TransferToServer(argument, executable.device_ordinal));
    pointers.push_back(data.get());
    uploaded.push_back(std::move(data));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<GlobalData> result, Execute(executable, pointers, options));
  return Transfer(*result);
}

absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> Client::ExecuteParallel(
    absl::Span<const ExecutionRequest> requests) {
  FlushUnregisters();
  server::ExecuteParallelRequest request;
  for (const ExecutionRequest& one : requests) {
    if (one.executable == nullptr) return absl::InvalidArgumentError("ExecuteParallel: null executable");
    FillExecuteRequest(session_id_, *one.executable, one.arguments, one.options, request.add_requests());
  }
  ASSIGN_OR_RETURN(server::ExecuteParallelResponse response, transport_->ExecuteParallel(request));
  if (response.responses_size() != static_cast<int>(requests.size())) {
    return absl::InternalError(absl::StrCat("ExecuteParallel: ", requests.size(), " requests but ",
                                            response.responses_size(), " responses"));
  }
  std::vector<std::unique_ptr<GlobalData>> results;
  for (int i = 0; i < response.responses_size(); ++i) {
    if (requests[i].options.profile != nullptr) *requests[i].options.profile = response.responses(i).profile();
    results.push_back(Wrap(response.responses(i).result_handle()));
  }
  return results;
}

absl::StatusOr<std::unique_ptr<GlobalData>> Client::TransferToServer(const Literal& literal,
                                                                     int device_ordinal) {
  FlushUnregisters();
  ASSIGN_OR_RETURN(server::TransferToServerResponse response,
                   transport_->TransferToServer(session_id_, device_ordinal, literal));
  return Wrap(response.handle());
}

absl::StatusOr<Literal> Client::Transfer(const GlobalData& data) {
  FlushUnregisters();
  server::TransferToClientRequest request;
  request.set_session_id(session_id_);
  request.set_handle(data.handle());
  return WithRetries(options_.max_retries, [&] { return transport_->TransferToClient(request); });
}

absl::Status Client::TransferToInfeed(const Literal& literal, int device_ordinal) {
  FlushUnregisters();
  server::TransferToInfeedRequest request;
  request.set_session_id(session_id_);
  request.set_device_ordinal(device_ordinal);
  *request.mutable_literal() = literal.ToProto();
  return transport_->TransferToInfeed(request).status();
}

absl::StatusOr<Literal> Client::TransferFromOutfeed(const Shape& shape, int device_ordinal,
                                                    int64_t timeout_ms) {
  FlushUnregisters();
  server::TransferFromOutfeedRequest request;
  request.set_session_id(session_id_);
  request.set_device_ordinal(device_ordinal);
  *request.mutable_shape() = shape.ToProto();
  request.set_timeout_ms(timeout_ms);
  ASSIGN_OR_RETURN(server::TransferFromOutfeedResponse response, transport_->TransferFromOutfeed(request));
  return Literal::FromProto(response.literal());
}

absl::StatusOr<Shape> Client::GetShape(const GlobalData& data) {
  FlushUnregisters();
  server::GetShapeRequest request;
  request.set_session_id(session_id_);
  request.set_handle(data.handle());
  ASSIGN_OR_RETURN(server::GetShapeResponse response,
                   WithRetries(options_.max_retries, [&] { return transport_->GetShape(request); }));
  return Shape::FromProto(response.shape());
}

absl::StatusOr<ProgramShape> Client::GetComputationShape(const ExecutableHandle& executable) {
  FlushUnregisters();
  server::GetComputationShapeRequest request;
  request.set_session_id(session_id_);
  request.set_execution_handle(executable.handle);
  ASSIGN_OR_RETURN(server::GetComputationShapeResponse response,
                   WithRetries(options_.max_retries,
                               [&] { return transport_->GetComputationShape(request); }));
  return ProgramShape::FromProto(response.program_shape());
}

absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> Client::DeconstructTuple(
    const GlobalData& data) {
  FlushUnregisters();
  server::DeconstructTupleRequest request;
  request.set_session_id(session_id_);
  request.set_handle(data.handle());
  ASSIGN_OR_RETURN(server::DeconstructTupleResponse response, transport_->DeconstructTuple(request));
  std::vector<std::unique_ptr<GlobalData>> elements;
  for (int64_t handle : response.element_handles()) elements.push_back(Wrap(handle));
  return elements;
}

absl::Status Client::Unregister(absl::Span<GlobalData* const> data) {
  FlushUnregisters();
  server::UnregisterRequest request;
  request.set_session_id(session_id_);
  for (GlobalData* one : data) {
    if (one == nullptr) continue;
    request.add_handles(one->handle());
    one->queue_.reset();  // ownership ends here, whatever the outcome
  }
  return transport_->Unregister(request).status();
}

absl::Status Client::ResetDevice(int device_ordinal) {
  FlushUnregisters();
  server::ResetDeviceRequest request;
  request.set_session_id(session_id_);
  request.set_device_ordinal(device_ordinal);
  return transport_->ResetDevice(request).status();
}

absl::StatusOr<server::GetStatusResponse> Client::GetStatus() {
  FlushUnregisters();
  return WithRetries(options_.max_retries,
                     [&] { return transport_->GetStatus(server::GetStatusRequest()); });
}

}  // namespace client
}  // namespace xla
