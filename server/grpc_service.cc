#include "server/grpc_service.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "server/out_of_memory.h"
#include "server/worker_pool.h"

namespace xla::server {
namespace {

// Equal-time comparison so the token is not leaked through response timing.
bool TokensEqual(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size() || b.empty()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string RequestIdFrom(const grpc::ServerContextBase& context, uint64_t fallback) {
  auto it = context.client_metadata().find("x-request-id");
  if (it != context.client_metadata().end() && !it->second.empty() && it->second.size() <= 128) {
    return std::string(it->second.data(), it->second.size());
  }
  return absl::StrCat("r", fallback);
}

void LogCall(const char* method, const std::string& request_id, const grpc::Status& status,
             std::chrono::steady_clock::time_point start) {
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (status.ok()) {
    spdlog::debug("[{}] {} OK {:.3f} ms", request_id, method, ms);
  } else if (status.error_code() == grpc::StatusCode::INTERNAL ||
             status.error_code() == grpc::StatusCode::UNKNOWN) {
    spdlog::error("[{}] {} code={} {:.3f} ms: {}", request_id, method, static_cast<int>(status.error_code()),
                  ms, status.error_message());
  } else {
    spdlog::info("[{}] {} code={} {:.3f} ms: {}", request_id, method, static_cast<int>(status.error_code()),
                 ms, status.error_message());
  }
}

grpc::Status CancelledOrDeadline(const grpc::ServerContextBase& context) {
  if (context.deadline() <= std::chrono::system_clock::now()) {
    return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "deadline exceeded before the call ran");
  }
  return grpc::Status(grpc::StatusCode::CANCELLED, "call cancelled by the client");
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl and gRPC status codes share numbering (both follow google.rpc.Code).
  int code = static_cast<int>(status.code());
  if (code < 0 || code > 16) code = static_cast<int>(grpc::StatusCode::UNKNOWN);
  return grpc::Status(static_cast<grpc::StatusCode>(code), std::string(status.message()));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

XlaGrpcService::XlaGrpcService(ServiceCore* core, std::string auth_token, int worker_threads)
    : core_(core),
      auth_token_(std::move(auth_token)),
      control_(std::make_unique<WorkerPool>(4)),
      workers_(std::make_unique<WorkerPool>(worker_threads)),
      downloads_(std::make_unique<WorkerPool>(worker_threads)) {}

XlaGrpcService::~XlaGrpcService() = default;

grpc::Status XlaGrpcService::Authenticate(const grpc::ServerContextBase& context) const {
  if (auth_token_.empty()) return grpc::Status::OK;
  auto it = context.client_metadata().find("authorization");
  if (it == context.client_metadata().end()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "missing 'authorization: Bearer <token>' metadata");
  }
  absl::string_view value(it->second.data(), it->second.size());
  constexpr absl::string_view kBearer = "Bearer ";
  if (value.size() < kBearer.size() || value.substr(0, kBearer.size()) != kBearer ||
      !TokensEqual(value.substr(kBearer.size()), auth_token_)) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "invalid bearer token");
  }
  return grpc::Status::OK;
}

std::string XlaGrpcService::NextRequestId(const grpc::ServerContextBase& context) {
  return RequestIdFrom(context, next_request_id_.fetch_add(1));
}

template <typename Request, typename Response, typename Fn>
grpc::ServerUnaryReactor* XlaGrpcService::Unary(WorkerPool* pool, const char* method,
                                                grpc::CallbackServerContext* context,
                                                const Request* request, Response* response, Fn fn) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  auto start = std::chrono::steady_clock::now();
  std::string request_id = NextRequestId(*context);
  context->AddInitialMetadata("x-request-id", request_id);
  grpc::Status auth = Authenticate(*context);
  if (!auth.ok()) {
    LogCall(method, request_id, auth, start);
    reactor->Finish(auth);
    return reactor;
  }
  // context, request and response stay valid until Finish (the call's OnDone follows it).
  auto run = [method, context, request, response, reactor, request_id = std::move(request_id), start,
              fn = std::move(fn)] {
    grpc::Status status;
    if (context->IsCancelled()) {
      status = CancelledOrDeadline(*context);
    } else {
      // Out of memory anywhere in the core (a literal, a proto) fails this call only.
      auto result = OutOfMemoryAsError(method, [&] { return fn(*request); });
      if (result.ok()) {
        *response = std::move(*result);
      } else {
        status = ToGrpcStatus(result.status());
      }
    }
    LogCall(method, request_id, status, start);
    reactor->Finish(status);
  };
  if (pool == nullptr) {
    run();  // a short lookup under a briefly held lock: cheaper inline than a thread handoff
  } else {
    pool->Schedule(std::move(run));
  }
  return reactor;
}

#define XLA_UNARY_RPC(Pool, Name)                                                                   \
  grpc::ServerUnaryReactor* XlaGrpcService::Name(grpc::CallbackServerContext* context,                \
                                                 const Name##Request* request, Name##Response* response) { \
    return Unary(Pool, #Name, context, request, response,                                      \
                 [core = core_](const Name##Request& r) { return core->Name(r); });                  \
  }

XLA_UNARY_RPC(nullptr, GetVersion)
XLA_UNARY_RPC(nullptr, OpenSession)
XLA_UNARY_RPC(control_.get(), CloseSession)
XLA_UNARY_RPC(nullptr, KeepAlive)
XLA_UNARY_RPC(nullptr, ListDevices)
XLA_UNARY_RPC(nullptr, GetDeviceHandles)
XLA_UNARY_RPC(nullptr, GetComputationShape)
XLA_UNARY_RPC(nullptr, GetStatus)
XLA_UNARY_RPC(workers_.get(), Compile)
XLA_UNARY_RPC(workers_.get(), CompileAheadOfTime)
XLA_UNARY_RPC(workers_.get(), Load)
XLA_UNARY_RPC(workers_.get(), TransferToInfeed)
XLA_UNARY_RPC(workers_.get(), DeconstructTuple)
XLA_UNARY_RPC(workers_.get(), GetShape)  // waits for a pending result
XLA_UNARY_RPC(workers_.get(), Unregister)
XLA_UNARY_RPC(workers_.get(), ResetDevice)

#undef XLA_UNARY_RPC

// Executions poll the call: a cancelled call or a passed deadline stops the run at the next
// operation boundary instead of occupying a worker until the program ends.
#define XLA_EXECUTE_RPC(Name)                                                                       \
  grpc::ServerUnaryReactor* XlaGrpcService::Name(grpc::CallbackServerContext* context,                \
                                                 const Name##Request* request, Name##Response* response) { \
    const auto deadline = context->deadline();                                                      \
    std::function<bool()> cancelled = [context, deadline] {                                          \
      return context->IsCancelled() || std::chrono::system_clock::now() >= deadline;                \
    };                                                                                              \
    return Unary(workers_.get(), #Name, context, request, response,                                  \
                 [core = core_, cancelled, deadline](const Name##Request& r) {                      \
                   auto result = core->Name(r, cancelled);                                          \
                   /* A run stopped by the deadline reports it as such, whichever side */           \
                   /* notices first. */                                                             \
                   if (!result.ok() && absl::IsCancelled(result.status()) &&                        \
                       std::chrono::system_clock::now() >= deadline) {                              \
                     return decltype(result)(absl::DeadlineExceededError(result.status().message())); \
                   }                                                                                \
                   return result;                                                                   \
                 });                                                                                \
  }

XLA_EXECUTE_RPC(Execute)
XLA_EXECUTE_RPC(ExecuteAndTransfer)
XLA_EXECUTE_RPC(ExecuteParallel)
XLA_EXECUTE_RPC(Await)

#undef XLA_EXECUTE_RPC

grpc::ServerUnaryReactor* XlaGrpcService::TransferFromOutfeed(grpc::CallbackServerContext* context,
                                                              const TransferFromOutfeedRequest* request,
                                                              TransferFromOutfeedResponse* response) {
  // The outfeed wait never outlives the caller's deadline.
  auto deadline = context->deadline();
  return Unary(workers_.get(), "TransferFromOutfeed", context, request, response,
               [core = core_, deadline](const TransferFromOutfeedRequest& r) {
                 TransferFromOutfeedRequest bounded = r;
                 auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
                                      deadline - std::chrono::system_clock::now())
                                      .count();
                 if (remaining > 0 && (bounded.timeout_ms() <= 0 || bounded.timeout_ms() > remaining)) {
                   bounded.set_timeout_ms(remaining);
                 }
                 return core->TransferFromOutfeed(bounded);
               });
}

// TransferToServer: one read in flight; each chunk is handed to the core on a worker, which then
// asks for the next chunk. The end of the stream finishes the upload; cancellation aborts it.
class XlaGrpcService::UploadReactor final : public grpc::ServerReadReactor<TransferChunk> {
 public:
  UploadReactor(XlaGrpcService* service, grpc::CallbackServerContext* context,
                TransferToServerResponse* response)
      : service_(service), context_(context), response_(response),
        start_(std::chrono::steady_clock::now()), request_id_(service->NextRequestId(*context)) {
    context->AddInitialMetadata("x-request-id", request_id_);
    grpc::Status auth = service_->Authenticate(*context);
    if (!auth.ok()) {
      Done(auth);
      return;
    }
    StartRead(&chunk_);
  }

  void OnReadDone(bool ok) override {
    service_->workers_->Schedule([this, ok] { Process(ok); });
  }

  void OnDone() override {
    // Unknown (finished or failed) ids are ignored; this frees a half-done upload.
    if (upload_id_ >= 0) service_->core_->AbortUpload(upload_id_);
    delete this;
  }

 private:
  void Process(bool ok) {
    ServiceCore& core = *service_->core_;
    if (!ok || context_->IsCancelled()) {
      // Read failed: a clean end of stream unless the call was cancelled.
      if (context_->IsCancelled()) return Done(CancelledOrDeadline(*context_));
      if (upload_id_ < 0) {
        return Done(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                 "TransferToServer: empty stream (the first chunk must carry the shape)"));
      }
      absl::StatusOr<TransferToServerResponse> finished =
          OutOfMemoryAsError("TransferToServer", [&] { return core.FinishUpload(upload_id_); });
      if (!finished.ok()) return Done(ToGrpcStatus(finished.status()));
      *response_ = std::move(*finished);
      return Done(grpc::Status::OK);
    }
    if (upload_id_ < 0) {
      // The first chunk allocates the whole value: out of memory fails this upload only.
      absl::StatusOr<int64_t> upload =
          OutOfMemoryAsError("TransferToServer", [&] { return core.BeginUpload(chunk_); });
      if (!upload.ok()) return Done(ToGrpcStatus(upload.status()));
      upload_id_ = *upload;
    } else {
      absl::Status appended =
          OutOfMemoryAsError("TransferToServer", [&] { return core.AppendUpload(upload_id_, chunk_.data()); });
      if (!appended.ok()) return Done(ToGrpcStatus(appended));
    }
    chunk_.Clear();
    StartRead(&chunk_);
  }

  void Done(const grpc::Status& status) {
    LogCall("TransferToServer", request_id_, status, start_);
    Finish(status);
  }

  XlaGrpcService* const service_;
  grpc::CallbackServerContext* const context_;
  TransferToServerResponse* const response_;
  const std::chrono::steady_clock::time_point start_;
  const std::string request_id_;
  TransferChunk chunk_;
  int64_t upload_id_ = -1;  // touched by one worker at a time (one read in flight), then OnDone
};

// TransferToClient: a worker runs ForEachChunk and hands each chunk to gRPC, waiting for the
// previous write to complete (one write in flight; a slow reader holds one worker).
class XlaGrpcService::DownloadReactor final : public grpc::ServerWriteReactor<TransferChunk> {
 public:
  DownloadReactor(XlaGrpcService* service, grpc::CallbackServerContext* context,
                  const TransferToClientRequest* request)
      : service_(service), context_(context), request_(request),
        start_(std::chrono::steady_clock::now()), request_id_(service->NextRequestId(*context)) {
    context->AddInitialMetadata("x-request-id", request_id_);
    grpc::Status auth = service_->Authenticate(*context);
    if (!auth.ok()) {
      Done(auth);
      return;
    }
    service_->downloads_->Schedule([this] { Produce(); });
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard<std::mutex> lock(mu_);
    write_pending_ = false;
    if (!ok) broken_ = true;
    cv_.notify_all();
  }

  void OnCancel() override {
    std::lock_guard<std::mutex> lock(mu_);
    broken_ = true;
    cv_.notify_all();
  }

  void OnDone() override { delete this; }

 private:
  void Produce() {
    if (context_->IsCancelled()) return Done(CancelledOrDeadline(*context_));
    absl::StatusOr<OutgoingValue> value =
        OutOfMemoryAsError("TransferToClient", [&] { return service_->core_->BeginDownload(*request_); });
    if (!value.ok()) return Done(ToGrpcStatus(value.status()));
    bool stopped = false;
    ForEachChunk(*value, kTransferChunkBytes, [&](TransferChunk&& chunk) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return !write_pending_ || broken_; });
      if (broken_) {
        stopped = true;
        return false;
      }
      chunk_ = std::move(chunk);
      write_pending_ = true;
      lock.unlock();
      StartWrite(&chunk_);
      return true;
    });
    {
      // Finish only once no write is outstanding (OnWriteDone always follows StartWrite).
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return !write_pending_; });
      stopped = stopped || broken_;
    }
    if (stopped || context_->IsCancelled()) return Done(CancelledOrDeadline(*context_));
    Done(grpc::Status::OK);
  }

  // The last touch of `this` by the producer: OnDone (and delete) may follow at once.
  void Done(const grpc::Status& status) {
    LogCall("TransferToClient", request_id_, status, start_);
    Finish(status);
  }

  XlaGrpcService* const service_;
  grpc::CallbackServerContext* const context_;
  const TransferToClientRequest* const request_;
  const std::chrono::steady_clock::time_point start_;
  const std::string request_id_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool write_pending_ = false;
  bool broken_ = false;
  TransferChunk chunk_;
};

grpc::ServerReadReactor<TransferChunk>* XlaGrpcService::TransferToServer(grpc::CallbackServerContext* context,
                                                                         TransferToServerResponse* response) {
  return new UploadReactor(this, context, response);
}

grpc::ServerWriteReactor<TransferChunk>* XlaGrpcService::TransferToClient(
    grpc::CallbackServerContext* context, const TransferToClientRequest* request) {
  return new DownloadReactor(this, context, request);
}

}  // namespace xla::server
