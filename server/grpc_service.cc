#include "server/grpc_service.h"

#include <chrono>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace xla::server {
namespace {

// Equal-time comparison so the token is not leaked through response timing.
bool TokensEqual(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size() || b.empty()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string RequestIdFrom(const grpc::ServerContext& context, uint64_t fallback) {
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

grpc::Status CancelledOrDeadline(const grpc::ServerContext& context) {
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

XlaGrpcService::XlaGrpcService(ServiceCore* core, std::string auth_token)
    : core_(core), auth_token_(std::move(auth_token)) {}

grpc::Status XlaGrpcService::Authenticate(const grpc::ServerContext& context) const {
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

template <typename Request, typename Response, typename Fn>
grpc::Status XlaGrpcService::Unary(const char* method, grpc::ServerContext* context,
                                   const Request& request, Response* response, Fn&& fn) {
  auto start = std::chrono::steady_clock::now();
  std::string request_id = RequestIdFrom(*context, next_request_id_.fetch_add(1));
  grpc::Status status = Authenticate(*context);
  if (status.ok() && context->IsCancelled()) status = CancelledOrDeadline(*context);
  if (status.ok()) {
    auto result = fn(request);
    if (result.ok()) {
      *response = std::move(*result);
    } else {
      status = ToGrpcStatus(result.status());
    }
  }
  LogCall(method, request_id, status, start);
  return status;
}

#define XLA_UNARY_RPC(Name)                                                                     \
  grpc::Status XlaGrpcService::Name(grpc::ServerContext* context, const Name##Request* request, \
                                    Name##Response* response) {                                 \
    return Unary(#Name, context, *request, response,                                           \
                 [this](const Name##Request& r) { return core_->Name(r); });                    \
  }

XLA_UNARY_RPC(GetVersion)
XLA_UNARY_RPC(OpenSession)
XLA_UNARY_RPC(CloseSession)
XLA_UNARY_RPC(KeepAlive)
XLA_UNARY_RPC(ListDevices)
XLA_UNARY_RPC(GetDeviceHandles)
XLA_UNARY_RPC(Compile)
XLA_UNARY_RPC(Execute)
XLA_UNARY_RPC(ExecuteAndTransfer)
XLA_UNARY_RPC(ExecuteParallel)
XLA_UNARY_RPC(TransferToInfeed)
XLA_UNARY_RPC(GetShape)
XLA_UNARY_RPC(GetComputationShape)
XLA_UNARY_RPC(DeconstructTuple)
XLA_UNARY_RPC(Unregister)
XLA_UNARY_RPC(ResetDevice)
XLA_UNARY_RPC(GetStatus)

#undef XLA_UNARY_RPC

grpc::Status XlaGrpcService::TransferFromOutfeed(grpc::ServerContext* context,
                                                 const TransferFromOutfeedRequest* request,
                                                 TransferFromOutfeedResponse* response) {
  // The outfeed wait never outlives the caller's deadline.
  TransferFromOutfeedRequest bounded = *request;
  auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
                       context->deadline() - std::chrono::system_clock::now())
                       .count();
  if (remaining > 0 && (bounded.timeout_ms() <= 0 || bounded.timeout_ms() > remaining)) {
    bounded.set_timeout_ms(remaining);
  }
  return Unary("TransferFromOutfeed", context, bounded, response,
               [this](const TransferFromOutfeedRequest& r) { return core_->TransferFromOutfeed(r); });
}

grpc::Status XlaGrpcService::TransferToServer(grpc::ServerContext* context,
                                              grpc::ServerReader<TransferChunk>* reader,
                                              TransferToServerResponse* response) {
  auto start = std::chrono::steady_clock::now();
  std::string request_id = RequestIdFrom(*context, next_request_id_.fetch_add(1));
  grpc::Status status = [&]() -> grpc::Status {
    grpc::Status auth = Authenticate(*context);
    if (!auth.ok()) return auth;
    TransferChunk chunk;
    if (!reader->Read(&chunk)) {
      if (context->IsCancelled()) return CancelledOrDeadline(*context);
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "TransferToServer: empty stream (the first chunk must carry the shape)");
    }
    absl::StatusOr<int64_t> upload = core_->BeginUpload(chunk);
    if (!upload.ok()) return ToGrpcStatus(upload.status());
    const int64_t upload_id = *upload;
    while (reader->Read(&chunk)) {
      if (context->IsCancelled()) break;
      absl::Status appended = core_->AppendUpload(upload_id, chunk.data());
      if (!appended.ok()) {
        core_->AbortUpload(upload_id);
        return ToGrpcStatus(appended);
      }
    }
    // Read() returns false both at a clean end of stream and when the client vanished.
    if (context->IsCancelled()) {
      core_->AbortUpload(upload_id);
      return CancelledOrDeadline(*context);
    }
    absl::StatusOr<TransferToServerResponse> finished = core_->FinishUpload(upload_id);
    if (!finished.ok()) return ToGrpcStatus(finished.status());
    *response = std::move(*finished);
    return grpc::Status::OK;
  }();
  LogCall("TransferToServer", request_id, status, start);
  return status;
}

grpc::Status XlaGrpcService::TransferToClient(grpc::ServerContext* context,
                                              const TransferToClientRequest* request,
                                              grpc::ServerWriter<TransferChunk>* writer) {
  auto start = std::chrono::steady_clock::now();
  std::string request_id = RequestIdFrom(*context, next_request_id_.fetch_add(1));
  grpc::Status status = [&]() -> grpc::Status {
    grpc::Status auth = Authenticate(*context);
    if (!auth.ok()) return auth;
    absl::StatusOr<std::shared_ptr<const Literal>> literal = core_->BeginDownload(*request);
    if (!literal.ok()) return ToGrpcStatus(literal.status());
    bool write_failed = false;
    ServiceCore::ForEachChunk(**literal, kTransferChunkBytes, [&](TransferChunk&& chunk) {
      if (context->IsCancelled() || !writer->Write(chunk)) {
        write_failed = true;
        return false;
      }
      return true;
    });
    if (write_failed || context->IsCancelled()) return CancelledOrDeadline(*context);
    return grpc::Status::OK;
  }();
  LogCall("TransferToClient", request_id, status, start);
  return status;
}

}  // namespace xla::server
