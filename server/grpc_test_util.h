#ifndef XLA_SERVER_GRPC_TEST_UTIL_H_
#define XLA_SERVER_GRPC_TEST_UTIL_H_

// Helpers for tests that start xla-server in-process on 127.0.0.1:0 and call it through the
// generated stub. Test-only; includes gRPC.

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "hlo/literal.h"
#include "proto/xla_service.grpc.pb.h"
#include "server/grpc_server.h"
#include "server/service_core.h"

namespace xla::server::testing {

// A fresh directory under /tmp, removed with its files on destruction.
class TempDir {
 public:
  TempDir() {
    std::string pattern = "/tmp/xla_grpc_test_XXXXXX";
    char* made = mkdtemp(pattern.data());
    path_ = made ? made : "";
  }
  ~TempDir() {
    if (!path_.empty()) std::system(("rm -rf '" + path_ + "'").c_str());
  }
  const std::string& path() const { return path_; }
  std::string Write(const std::string& name, const std::string& contents) const {
    std::string file = path_ + "/" + name;
    std::ofstream(file, std::ios::binary) << contents;
    return file;
  }

 private:
  std::string path_;
};

// A module whose while loop counts from 0 to `n` one iteration at a time: a way to make
// an execution take a chosen while (about 5 us per iteration on the interpreter).
inline std::string CountingLoopHlo(int64_t n) {
  return R"(HloModule counting_loop
cond {
  i = s32[] parameter(0)
  n = s32[] constant()" + std::to_string(n) + R"()
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  i = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(i, one)
}
ENTRY main {
  zero = s32[] constant(0)
  ROOT w = s32[] while(zero), condition=cond, body=body
})";
}

inline ServerConfig LocalConfig() {
  ServerConfig config;
  config.listen = "127.0.0.1:0";
  config.rpc_threads = 8;
  return config;
}

inline std::unique_ptr<XlaService::Stub> MakeStub(
    const std::string& address,
    std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials(),
    const grpc::ChannelArguments& args = grpc::ChannelArguments()) {
  grpc::ChannelArguments channel_args = args;
  channel_args.SetMaxReceiveMessageSize(-1);
  return XlaService::NewStub(grpc::CreateCustomChannel(address, credentials, channel_args));
}

// A context with a bounded deadline so a broken server fails the test instead of hanging it.
inline std::unique_ptr<grpc::ClientContext> Context(const std::string& token = "") {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
  return context;
}

inline grpc::Status OpenSession(XlaService::Stub& stub, std::string* session_id,
                                const std::string& token = "") {
  OpenSessionRequest request;
  request.set_protocol_version(kMaxProtocolVersion);
  request.set_client_name("grpc_test");
  OpenSessionResponse response;
  grpc::Status status = stub.OpenSession(Context(token).get(), request, &response);
  *session_id = response.session_id();
  return status;
}

// Streams `literal` with ForEachChunk (~chunk_bytes per message).
inline grpc::Status Upload(XlaService::Stub& stub, const std::string& session_id,
                           const Literal& literal, int64_t* handle, size_t chunk_bytes = 1 << 20) {
  auto context = Context();
  TransferToServerResponse response;
  auto writer = stub.TransferToServer(context.get(), &response);
  bool first = true;
  ForEachChunk(literal, chunk_bytes, [&](TransferChunk&& chunk) {
    if (first) {
      chunk.set_session_id(session_id);
      chunk.set_device_ordinal(0);
      first = false;
    }
    return writer->Write(chunk);
  });
  writer->WritesDone();
  grpc::Status status = writer->Finish();
  *handle = response.handle();
  return status;
}

inline grpc::Status Download(XlaService::Stub& stub, const std::string& session_id, int64_t handle,
                             Literal* literal, size_t* chunk_count = nullptr) {
  auto context = Context();
  TransferToClientRequest request;
  request.set_session_id(session_id);
  request.set_handle(handle);
  auto reader = stub.TransferToClient(context.get(), request);
  std::vector<TransferChunk> chunks;
  TransferChunk chunk;
  while (reader->Read(&chunk)) chunks.push_back(std::move(chunk));
  grpc::Status status = reader->Finish();
  if (chunk_count) *chunk_count = chunks.size();
  if (!status.ok()) return status;
  absl::StatusOr<Literal> rebuilt = LiteralFromChunks(chunks);
  if (!rebuilt.ok()) return grpc::Status(grpc::StatusCode::INTERNAL, std::string(rebuilt.status().message()));
  *literal = std::move(*rebuilt);
  return status;
}

}  // namespace xla::server::testing

#endif  // XLA_SERVER_GRPC_TEST_UTIL_H_
