#ifndef XLA_SERVER_GRPC_SERVICE_H_
#define XLA_SERVER_GRPC_SERVICE_H_

// The thin gRPC layer: each RPC checks auth, runs the matching ServiceCore call and maps its
// absl::Status to a grpc::Status. Only grpc_server.cc and tests include this (gRPC headers are
// expensive to compile).
//
// Threading: the synchronous gRPC API; gRPC runs each RPC on its own bounded thread pool
// (ServerConfig::rpc_threads via ResourceQuota), so a long Compile/Execute never blocks others
// beyond that bound. Streams check cancellation between chunks; a vanished uploader's
// partial upload is aborted.

#include <atomic>
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

class XlaGrpcService final : public XlaService::Service {
 public:
  // `core` must outlive the service. Empty `auth_token` disables the token check.
  XlaGrpcService(ServiceCore* core, std::string auth_token);

  grpc::Status GetVersion(grpc::ServerContext*, const GetVersionRequest*, GetVersionResponse*) override;
  grpc::Status OpenSession(grpc::ServerContext*, const OpenSessionRequest*, OpenSessionResponse*) override;
  grpc::Status CloseSession(grpc::ServerContext*, const CloseSessionRequest*, CloseSessionResponse*) override;
  grpc::Status KeepAlive(grpc::ServerContext*, const KeepAliveRequest*, KeepAliveResponse*) override;
  grpc::Status ListDevices(grpc::ServerContext*, const ListDevicesRequest*, ListDevicesResponse*) override;
  grpc::Status GetDeviceHandles(grpc::ServerContext*, const GetDeviceHandlesRequest*,
                                GetDeviceHandlesResponse*) override;
  grpc::Status Compile(grpc::ServerContext*, const CompileRequest*, CompileResponse*) override;
  grpc::Status Execute(grpc::ServerContext*, const ExecuteRequest*, ExecuteResponse*) override;
  grpc::Status ExecuteAndTransfer(grpc::ServerContext*, const ExecuteAndTransferRequest*,
                                  ExecuteAndTransferResponse*) override;
  grpc::Status ExecuteParallel(grpc::ServerContext*, const ExecuteParallelRequest*,
                               ExecuteParallelResponse*) override;
  grpc::Status TransferToServer(grpc::ServerContext*, grpc::ServerReader<TransferChunk>*,
                                TransferToServerResponse*) override;
  grpc::Status TransferToClient(grpc::ServerContext*, const TransferToClientRequest*,
                                grpc::ServerWriter<TransferChunk>*) override;
  grpc::Status TransferToInfeed(grpc::ServerContext*, const TransferToInfeedRequest*,
                                TransferToInfeedResponse*) override;
  grpc::Status TransferFromOutfeed(grpc::ServerContext*, const TransferFromOutfeedRequest*,
                                   TransferFromOutfeedResponse*) override;
  grpc::Status GetShape(grpc::ServerContext*, const GetShapeRequest*, GetShapeResponse*) override;
  grpc::Status GetComputationShape(grpc::ServerContext*, const GetComputationShapeRequest*,
                                   GetComputationShapeResponse*) override;
  grpc::Status DeconstructTuple(grpc::ServerContext*, const DeconstructTupleRequest*,
                                DeconstructTupleResponse*) override;
  grpc::Status Unregister(grpc::ServerContext*, const UnregisterRequest*, UnregisterResponse*) override;
  grpc::Status ResetDevice(grpc::ServerContext*, const ResetDeviceRequest*, ResetDeviceResponse*) override;
  grpc::Status GetStatus(grpc::ServerContext*, const GetStatusRequest*, GetStatusResponse*) override;

 private:
  // UNAUTHENTICATED unless the call carries the configured bearer token.
  grpc::Status Authenticate(const grpc::ServerContext& context) const;
  // Auth, cancellation/deadline check, the core call, status mapping and one log line.
  template <typename Request, typename Response, typename Fn>
  grpc::Status Unary(const char* method, grpc::ServerContext* context, const Request& request,
                     Response* response, Fn&& fn);

  ServiceCore* const core_;
  const std::string auth_token_;
  std::atomic<uint64_t> next_request_id_{1};
};

}  // namespace xla::server

#endif  // XLA_SERVER_GRPC_SERVICE_H_
