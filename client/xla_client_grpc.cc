// The remote transport: Client's requests over a gRPC channel (sync stub API).

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/xla_client_transport.h"
#include "hlo/status_macros.h"
#include "proto/xla_service.grpc.pb.h"
#include "server/transfer_codec.h"

namespace xla {
namespace client {
namespace internal {
namespace {

// gRPC and absl share the canonical code numbering.
absl::Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

class GrpcTransport : public Transport {
 public:
  GrpcTransport(std::shared_ptr<grpc::Channel> channel, const ClientOptions& options)
      : stub_(server::XlaService::NewStub(channel)), options_(options) {}

#define XLA_CLIENT_DEFINE_RPC(Name)                                                          \
  absl::StatusOr<server::Name##Response> Name(const server::Name##Request& request) override { \
    grpc::ClientContext context;                                                             \
    Prepare(&context);                                                                       \
    server::Name##Response response;                                                         \
    grpc::Status status = stub_->Name(&context, request, &response);                         \
    if (!status.ok()) return FromGrpc(status);                                               \
    return response;                                                                         \
  }
  XLA_CLIENT_UNARY_RPCS(XLA_CLIENT_DEFINE_RPC)
#undef XLA_CLIENT_DEFINE_RPC

  absl::StatusOr<server::TransferToServerResponse> TransferToServer(
      const std::string& session_id, int device_ordinal, const Literal& literal) override {
    grpc::ClientContext context;
    Prepare(&context);
    server::TransferToServerResponse response;
    std::unique_ptr<grpc::ClientWriter<server::TransferChunk>> writer =
        stub_->TransferToServer(&context, &response);
    bool first = true;
    bool broken = false;
    server::ForEachChunk(literal, kTransferChunkBytes, [&](server::TransferChunk&& chunk) {
      if (first) {
        first = false;
        chunk.set_session_id(session_id);
        chunk.set_device_ordinal(device_ordinal);
      }
      if (!writer->Write(chunk)) {
        broken = true;  // the server ended the stream; Finish says why
        return false;
      }
      return true;
    });
    if (!broken) writer->WritesDone();
    grpc::Status status = writer->Finish();
    if (!status.ok()) return FromGrpc(status);
    return response;
  }

  absl::StatusOr<Literal> TransferToClient(const server::TransferToClientRequest& request) override {
    grpc::ClientContext context;
    Prepare(&context);
    std::unique_ptr<grpc::ClientReader<server::TransferChunk>> reader =
        stub_->TransferToClient(&context, request);
    // Each chunk is parsed into the same message (its buffer reused) and copied once into
    // the literal; a malformed stream is cancelled at the first bad chunk.
    server::ChunkAssembler assembler;
    server::TransferChunk chunk;
    absl::Status assembled;
    while (reader->Read(&chunk)) {
      if (!assembled.ok()) continue;  // drain after cancelling
      assembled = assembler.Add(chunk);
      if (!assembled.ok()) context.TryCancel();
    }
    grpc::Status status = reader->Finish();
    if (!assembled.ok()) return assembled;
    if (!status.ok()) return FromGrpc(status);
    return assembler.Finish();
  }

 private:
  void Prepare(grpc::ClientContext* context) const {
    if (options_.deadline_ms > 0) {
      context->set_deadline(std::chrono::system_clock::now() +
                            std::chrono::milliseconds(options_.deadline_ms));
    }
    if (!options_.auth_token.empty()) {
      context->AddMetadata("authorization", absl::StrCat("Bearer ", options_.auth_token));
    }
  }

  std::unique_ptr<server::XlaService::Stub> stub_;
  const ClientOptions options_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Transport>> MakeGrpcTransport(const ClientOptions& options) {
  if (options.target.empty()) return absl::InvalidArgumentError("empty target address");
  if (!options.tls && (!options.tls_client_cert_pem.empty() || !options.tls_root_certs_pem.empty())) {
    return absl::InvalidArgumentError("TLS certificates given but tls is false");
  }
  if (options.tls_client_cert_pem.empty() != options.tls_client_key_pem.empty()) {
    return absl::InvalidArgumentError("a TLS client certificate needs its key (and the reverse)");
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (options.tls) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = options.tls_root_certs_pem;
    ssl.pem_cert_chain = options.tls_client_cert_pem;
    ssl.pem_private_key = options.tls_client_key_pem;
    credentials = grpc::SslCredentials(ssl);
  } else {
    credentials = grpc::InsecureChannelCredentials();
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(INT_MAX);
  args.SetMaxSendMessageSize(INT_MAX);
  std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(options.target, credentials, args);
  return std::unique_ptr<Transport>(new GrpcTransport(std::move(channel), options));
}

}  // namespace internal
}  // namespace client
}  // namespace xla
