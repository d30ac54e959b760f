// Remote-only client behaviour: protocol handshake refusal, per-call deadlines, and one
// Client shared by several threads.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/xla_client.h"
#include "hlo/shape_util.h"
#include "proto/xla_service.grpc.pb.h"
#include "server/grpc_server.h"

namespace xla::client {
namespace {

// A server that only answers GetVersion, with a protocol range the client does not speak.
class FutureServer final : public server::XlaService::Service {
 public:
  grpc::Status GetVersion(grpc::ServerContext*, const server::GetVersionRequest*,
                          server::GetVersionResponse* response) override {
    response->set_min_protocol_version(2);
    response->set_max_protocol_version(3);
    response->set_server_version("future");
    return grpc::Status::OK;
  }
  grpc::Status OpenSession(grpc::ServerContext*, const server::OpenSessionRequest*,
                           server::OpenSessionResponse*) override {
    opened = true;
    return grpc::Status::OK;
  }
  std::atomic<bool> opened{false};
};

TEST(ClientRemoteTest, RefusesServerWithoutProtocolOne) {
  FutureServer service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ASSERT_GT(port, 0);
  ClientOptions options;
  options.target = "127.0.0.1:" + std::to_string(port);
  auto client = Client::Connect(options);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kFailedPrecondition) << client.status();
  EXPECT_NE(client.status().message().find("[2, 3]"), absl::string_view::npos) << client.status();
  EXPECT_FALSE(service.opened);
  server->Shutdown(std::chrono::system_clock::now());
}

class RemoteFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    server::ServerConfig config;
    config.listen = "127.0.0.1:0";
    config.rpc_threads = 8;
    auto server = server::StartServer(config);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
  }
  std::unique_ptr<server::RunningServer> server_;
};

TEST_F(RemoteFixture, PerCallDeadline) {
  ClientOptions options;
  options.target = server_->address();
  options.deadline_ms = 300;
  auto client = Client::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  // An outfeed nobody feeds, asked to wait 20 s: the 300 ms call deadline wins.
  const auto start = std::chrono::steady_clock::now();
  auto result = (*client)->TransferFromOutfeed(ShapeUtil::MakeShape(F32, {2}), 0, 20000);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded) << result.status();
  EXPECT_LT(elapsed, std::chrono::seconds(5));
  // Ordinary calls still fit the deadline.
  EXPECT_TRUE((*client)->ListDevices().ok());
  client->reset();
}

TEST_F(RemoteFixture, OneClientManyThreads) {
  ClientOptions options;
  options.target = server_->address();
  auto client = Client::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  Client* c = client->get();
  constexpr int kThreads = 4, kIterations = 25;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([c, t, &failures] {
      std::string hlo = "HloModule m" + std::to_string(t) +
                        "\nENTRY main {\n  a = s32[3] parameter(0)\n  k = s32[] constant(" +
                        std::to_string(t) +
                        ")\n  b = s32[3] broadcast(k), dimensions={}\n  ROOT c = s32[3] add(a, b)\n}\n";
      for (int i = 0; i < kIterations; ++i) {
        auto exe = c->Compile(hlo);
        auto arg = c->TransferToServer(Literal::CreateR1<int32_t>({i, 2 * i, 3 * i}));
        if (!exe.ok() || !arg.ok()) {
          ++failures;
          continue;
        }
        std::vector<const GlobalData*> args = {arg->get()};
        auto result = c->Execute(*exe, args);
        if (!result.ok()) {
          ++failures;
          continue;
        }
        auto value = c->Transfer(**result);
        if (!value.ok() || *value != Literal::CreateR1<int32_t>({i + t, 2 * i + t, 3 * i + t})) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  auto status = (*client)->GetStatus();
  ASSERT_TRUE(status.ok());
  ASSERT_EQ(status->sessions_size(), 1);
  EXPECT_EQ(status->sessions(0).handles(), 0);  // every GlobalData was destroyed and flushed
}

}  // namespace
}  // namespace xla::client
