// The in-process transport: Client's requests go straight to a ServiceCore (library
// xla_client_inprocess, the only part of the client that links the service core), and the
// Client::InProcess / Client::Attach factories that use it.

#include <cstring>
#include <memory>
#include <string>
#include <vector>

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
    server::ForEachChunk(literal, kTransferChunkBytes, [&](server::TransferChunk&& chunk) {
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
    ASSIGN_OR_RETURN(server::OutgoingValue value, core_->BeginDownload(request));
    // One copy, leaf by leaf, out of the server's buffer.
    ASSIGN_OR_RETURN(Literal literal, Literal::Create(value.shape));
    std::vector<std::pair<char*, int64_t>> leaves;
    server::CollectLeaves(literal, &leaves);
    if (leaves.size() != value.leaves.size()) return absl::InternalError("download leaves differ from the shape");
    for (size_t i = 0; i < leaves.size(); ++i) {
      std::memcpy(leaves[i].first, value.leaves[i].first, value.leaves[i].second);
    }
    return literal;
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

absl::StatusOr<std::unique_ptr<Client>> Client::InProcess() {
  return InProcess(server::ServiceOptions());
}

absl::StatusOr<std::unique_ptr<Client>> Client::InProcess(
    const server::ServiceOptions& service_options, const ClientOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<server::ServiceCore> core,
                   server::ServiceCore::Create(service_options));
  auto transport = internal::MakeInProcessTransport(std::move(core), nullptr);
  return Finish(std::unique_ptr<Client>(new Client(std::move(transport), options)));
}

absl::StatusOr<std::unique_ptr<Client>> Client::Attach(server::ServiceCore* core,
                                                       const ClientOptions& options) {
  if (core == nullptr) return absl::InvalidArgumentError("null ServiceCore");
  auto transport = internal::MakeInProcessTransport(nullptr, core);
  return Finish(std::unique_ptr<Client>(new Client(std::move(transport), options)));
}

}  // namespace client
}  // namespace xla
