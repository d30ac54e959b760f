#ifndef XLA_SERVER_GRPC_SERVICE_H_
#define XLA_SERVER_GRPC_SERVICE_H_

// The thin gRPC layer: each RPC checks auth, runs the matching ServiceCore call and maps its
// absl::Status to a grpc::Status. Only grpc_server.cc and tests include this (gRPC headers are
// expensive to compile).
//
// Threading: the gRPC callback API. Reactions never block: every core call (compile, execute,
// each upload chunk, FinishUpload) runs on the service's own bounded worker pool, then
// finishes the reactor. A download's chunk producer runs on the pool and waits for each
// write to complete (one write in flight), so a slow reader holds one worker, not a gRPC
// thread. Cancellation and deadlines: checked before each core call and between chunks; a
// vanished uploader's partial upload is aborted; outfeed waits are bounded by the deadline.

#include <atomic>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "proto/xla_service.grpc.pb.h"
#include "server/service_core.h"

namespace xla::server {

// The one mapping from absl::Status to grpc::Status (codes share numbering).
grpc::Status ToGrpcStatus(const absl::Status& status);
// And back, for clients.
absl::Status FromGrpcStatus(const grpc::Status& status);

// Size of each TransferToClient chunk.
inline constexpr size_t kTransferChunkBytes = size_t{1} << 20;

class WorkerPool;

class XlaGrpcService final : public XlaService::CallbackService {
 public:
  // `core` must outlive the service. Empty `auth_token` disables the token check.
  // `worker_threads` bounds concurrently running compiles/executes/transfers (others queue);
  // as many downloads stream at once; control calls have their own few threads.
  XlaGrpcService(ServiceCore* core, std::string auth_token, int worker_threads = 16);
  // Joins the workers; the gRPC server must be shut down first.
  ~XlaGrpcService() override;

#define XLA_DECLARE_UNARY_RPC(Name)                                                   \
  grpc::ServerUnaryReactor* Name(grpc::CallbackServerContext* context, const Name##Request* request, \
                                 Name##Response* response) override;
  XLA_DECLARE_UNARY_RPC(GetVersion)
  XLA_DECLARE_UNARY_RPC(OpenSession)
  XLA_DECLARE_UNARY_RPC(CloseSession)
  XLA_DECLARE_UNARY_RPC(KeepAlive)
  XLA_DECLARE_UNARY_RPC(ListDevices)
  XLA_DECLARE_UNARY_RPC(GetDeviceHandles)
  XLA_DECLARE_UNARY_RPC(Compile)
  XLA_DECLARE_UNARY_RPC(CompileAheadOfTime)
  XLA_DECLARE_UNARY_RPC(Load)
  XLA_DECLARE_UNARY_RPC(Execute)
  XLA_DECLARE_UNARY_RPC(ExecuteAndTransfer)
  XLA_DECLARE_UNARY_RPC(ExecuteParallel)
  XLA_DECLARE_UNARY_RPC(Await)
  XLA_DECLARE_UNARY_RPC(TransferToInfeed)
  XLA_DECLARE_UNARY_RPC(TransferFromOutfeed)
  XLA_DECLARE_UNARY_RPC(GetShape)
  XLA_DECLARE_UNARY_RPC(GetComputationShape)
  XLA_DECLARE_UNARY_RPC(DeconstructTuple)
  XLA_DECLARE_UNARY_RPC(Unregister)
  XLA_DECLARE_UNARY_RPC(ResetDevice)
  XLA_DECLARE_UNARY_RPC(GetStatus)
#undef XLA_DECLARE_UNARY_RPC

  grpc::ServerReadReactor<TransferChunk>* TransferToServer(grpc::CallbackServerContext* context,
                                                           TransferToServerResponse* response) override;
  grpc::ServerWriteReactor<TransferChunk>* TransferToClient(grpc::CallbackServerContext* context,
                                                            const TransferToClientRequest* request) override;

 private:
  class UploadReactor;
  class DownloadReactor;

  // UNAUTHENTICATED unless the call carries the configured bearer token.
  grpc::Status Authenticate(const grpc::ServerContextBase& context) const;
  std::string NextRequestId(const grpc::ServerContextBase& context);
  // Auth, then on `pool` (inline when null): cancellation/deadline check, the core call, status mapping, one
  // log line, Finish.
  template <typename Request, typename Response, typename Fn>
  grpc::ServerUnaryReactor* Unary(WorkerPool* pool, const char* method, grpc::CallbackServerContext* context,
                                  const Request* request, Response* response, Fn fn);

  ServiceCore* const core_;
  const std::string auth_token_;
  std::atomic<uint64_t> next_request_id_{1};
  // Separate pools so long compiles/executes never delay keepalives and lookups, and slow
  // downloaders never hold workers that compute.
  // Lookups (version, keepalive, shapes, status) run inline: a handoff costs more than they do.
  std::unique_ptr<WorkerPool> control_;    // CloseSession (frees a session's buffers)
  std::unique_ptr<WorkerPool> workers_;    // compile, execute, transfers, infeed/outfeed
  std::unique_ptr<WorkerPool> downloads_;  // TransferToClient chunk producers
};

}  // namespace xla::server

#endif  // XLA_SERVER_GRPC_SERVICE_H_
