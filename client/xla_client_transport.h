#ifndef XLA_CLIENT_XLA_CLIENT_TRANSPORT_H_
#define XLA_CLIENT_XLA_CLIENT_TRANSPORT_H_

// Internal to the client: the one seam between Client's shared code and the way requests
// reach the service (a gRPC stub, or direct ServiceCore calls). No gRPC header here.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "client/xla_client.h"
#include "hlo/literal.h"
#include "proto/xla_service.pb.h"

namespace xla {
namespace client {
namespace internal {

// X(Name): the unary RPCs, each Name##Request -> Name##Response.
#define XLA_CLIENT_UNARY_RPCS(X)                                                           \
  X(GetVersion)                                                                            \
  X(OpenSession) X(CloseSession) X(KeepAlive) X(ListDevices) X(GetDeviceHandles) X(Compile) \
      X(Execute) X(ExecuteAndTransfer) X(ExecuteParallel) X(TransferToInfeed)               \
          X(TransferFromOutfeed) X(GetShape) X(GetComputationShape) X(DeconstructTuple)     \
              X(Unregister) X(ResetDevice) X(GetStatus) X(Await) X(CompileAheadOfTime) X(Load)

class Transport {
 public:
  virtual ~Transport() = default;

#define XLA_CLIENT_DECLARE_RPC(Name)                                 \
  virtual absl::StatusOr<server::Name##Response> Name(const server::Name##Request& request) = 0;
  XLA_CLIENT_UNARY_RPCS(XLA_CLIENT_DECLARE_RPC)
#undef XLA_CLIENT_DECLARE_RPC

  // TransferToServer: streams `literal` in chunks of kTransferChunkBytes.
  virtual absl::StatusOr<server::TransferToServerResponse> TransferToServer(
      const std::string& session_id, int device_ordinal, const Literal& literal) = 0;
  // TransferToClient: receives the streamed value and rebuilds the literal.
  virtual absl::StatusOr<Literal> TransferToClient(
      const server::TransferToClientRequest& request) = 0;
};

std::unique_ptr<Transport> MakeInProcessTransport(std::unique_ptr<server::ServiceCore> owned,
                                                  server::ServiceCore* core);
absl::StatusOr<std::unique_ptr<Transport>> MakeGrpcTransport(const ClientOptions& options);

}  // namespace internal
}  // namespace client
}  // namespace xla

#endif  // XLA_CLIENT_XLA_CLIENT_TRANSPORT_H_
