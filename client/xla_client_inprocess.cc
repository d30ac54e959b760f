// The in-process transport: Client's requests go straight to a ServiceCore.

#include <memory>
#include <string>

#include "client/xla_client_transport.h"
#include "hlo/status_macros.h"
#include "server/service_core.h"

namespace xla {
namespace client {
namespace internal {
namespace {

class InProcessTransport : public Transport {
 public:
  InProcessTransport(std::unique_ptr<server::ServiceCore> owned, server::ServiceCore* core)
      : owned_(std::move(owned)), core_(core) {}

#define XLA_CLIENT_DEFINE_RPC(Name)                                            \
  absl::StatusOr<server::Name##Response> Name(const server::Name##Request& request) override { \
    return core_->Name(request);                                               \
  }
  XLA_CLIENT_UNARY_RPCS(XLA_CLIENT_DEFINE_RPC)
#undef XLA_CLIENT_DEFINE_RPC

  absl::StatusOr<server::TransferToServerResponse> TransferToServer(
      const std::string& session_id, int device_ordinal, const Literal& literal) override {
    absl::StatusOr<int64_t> upload = absl::InternalError("no chunk produced");
    absl::Status status;
    bool first = true;
    server::ServiceCore::ForEachChunk(literal, kTransferChunkBytes, [&](server::TransferChunk&& chunk) {
      if (first) {
        first = false;
        chunk.set_session_id(session_id);
        chunk.set_device_ordinal(device_ordinal);
        upload = core_->BeginUpload(chunk);
        return upload.ok();
      }
      status = core_->AppendUpload(*upload, chunk.data());
      return status.ok();
    });
    if (!upload.ok()) return upload.status();
    if (!status.ok()) return status;  // the core freed the upload
    return core_->FinishUpload(*upload);
  }

  absl::StatusOr<Literal> TransferToClient(const server::TransferToClientRequest& request) override {
    ASSIGN_OR_RETURN(std::shared_ptr<const Literal> value, core_->BeginDownload(request));
    return value->Clone();
  }

 private:
  std::unique_ptr<server::ServiceCore> owned_;
  server::ServiceCore* core_;
};

}  // namespace

std::unique_ptr<Transport> MakeInProcessTransport(std::unique_ptr<server::ServiceCore> owned,
                                                  server::ServiceCore* core) {
  if (owned != nullptr) core = owned.get();
  return std::make_unique<InProcessTransport>(std::move(owned), core);
}

}  // namespace internal
}  // namespace client
}  // namespace xla
