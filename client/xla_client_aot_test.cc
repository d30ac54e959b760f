// Client::CompileAheadOfTime / Client::Load end to end, in-process and over gRPC: bytes
// compiled by one server load into another one (a restart) and compute what Compile's
// executables compute; refusals (damaged bytes, loads not allowed) pass through unchanged.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "backends/backend.h"
#include "client/xla_client.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/literal.h"
#include "server/grpc_server.h"
#include "server/service_core.h"

namespace xla::client {
namespace {

constexpr char kSortWithConstant[] = R"(HloModule sort_const
lt {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=LT
}
ENTRY main {
  a = f32[6] parameter(0)
  offset = f32[6] constant({0.5, -1, 2, 0, 3, -2})
  shifted = f32[6] add(a, offset)
  ROOT s = f32[6] sort(shifted), dimensions={0}, to_apply=lt
}
)";

std::vector<std::string> Platforms() {
  backend::RegisterBuiltinBackends();
  const auto registered = backend::RegisteredPlatforms();
  if (std::find(registered.begin(), registered.end(), "cpu") != registered.end()) return {"cpu", "interpreter"};
  return {"interpreter"};
}

enum class Mode { kInProcess, kRemote };

class AotClientTest : public ::testing::TestWithParam<Mode> {
 protected:
  // A fresh server (and client) each time: nothing survives but the bytes.
  std::unique_ptr<Client> StartClient(bool allow_load = true) {
    server::ServiceOptions service;
    service.platforms = Platforms();
    service.allow_load = allow_load;
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
    server_.reset();
    if (GetParam() == Mode::kInProcess) {
      auto client = Client::InProcess(service);
      EXPECT_TRUE(client.ok()) << client.status();
      return client.ok() ? std::move(*client) : nullptr;
    }
    server::ServerConfig config;
    config.listen = "127.0.0.1:0";
    config.rpc_threads = 4;
    config.service = service;
    auto server = server::StartServer(config);
    EXPECT_TRUE(server.ok()) << server.status();
    if (!server.ok()) return nullptr;
    server_ = std::move(*server);
    ClientOptions options;
    options.target = server_->address();
    auto client = Client::Connect(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? std::move(*client) : nullptr;
  }

  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
  }

  std::unique_ptr<server::RunningServer> server_;
};

TEST_P(AotClientTest, LoadedExecutableRunsLikeCompiledOne) {
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<float>({3, 1, -4, 1, 5, -9}));
  for (int device = 0; device < static_cast<int>(Platforms().size()); ++device) {
    SCOPED_TRACE(Platforms()[device]);
    auto client = StartClient();
    ASSERT_NE(client, nullptr);
    auto compiled = client->Compile(kSortWithConstant, device);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    auto expected = client->ExecuteAndTransfer(*compiled, args);
    ASSERT_TRUE(expected.ok()) << expected.status();
    EXPECT_EQ(*expected, Literal::CreateR1<float>({-11, -2, 0, 1, 3.5f, 8}));
    auto bytes = client->CompileAheadOfTime(kSortWithConstant, device);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    // The proto form compiles to an executable too.
    auto module = ParseAndReturnUnverifiedModule(kSortWithConstant);
    ASSERT_TRUE(module.ok());
    auto from_proto = client->CompileAheadOfTime(HloModuleToProto(**module), device);
    ASSERT_TRUE(from_proto.ok()) << from_proto.status();

    client = StartClient();  // restart: a new server
    ASSERT_NE(client, nullptr);
    auto loaded = client->Load(*bytes, device);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(loaded->program_shape.ToString(), compiled->program_shape.ToString());
    auto actual = client->ExecuteAndTransfer(*loaded, args);
    ASSERT_TRUE(actual.ok()) << actual.status();
    EXPECT_EQ(*actual, *expected);
    // Through Execute with server-side data, and again from the cache.
    auto data = client->TransferToServer(args[0], device);
    ASSERT_TRUE(data.ok()) << data.status();
    auto again = client->Load(*from_proto, device);
    ASSERT_TRUE(again.ok()) << again.status();
    std::vector<const GlobalData*> handles = {data->get()};
    auto result = client->Execute(*again, handles);
    ASSERT_TRUE(result.ok()) << result.status();
    auto value = client->Transfer(**result);
    ASSERT_TRUE(value.ok()) << value.status();
    EXPECT_EQ(*value, *expected);
    auto repeat = client->Load(*bytes, device);
    ASSERT_TRUE(repeat.ok()) << repeat.status();
    EXPECT_TRUE(repeat->cache_hit);
  }
}

TEST_P(AotClientTest, RefusalsPassThrough) {
  auto client = StartClient();
  ASSERT_NE(client, nullptr);
  auto bytes = client->CompileAheadOfTime(kSortWithConstant);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  std::string damaged = *bytes;
  damaged[damaged.size() / 2] ^= 1;
  auto corrupted = client->Load(damaged);
  EXPECT_EQ(corrupted.status().code(), absl::StatusCode::kInvalidArgument) << corrupted.status();
  auto truncated = client->Load(bytes->substr(0, 40));
  EXPECT_EQ(truncated.status().code(), absl::StatusCode::kInvalidArgument) << truncated.status();
  auto not_hlo = client->CompileAheadOfTime("HloModule broken\nENTRY e {\n");
  EXPECT_EQ(not_hlo.status().code(), absl::StatusCode::kInvalidArgument) << not_hlo.status();

  client = StartClient(/*allow_load=*/false);
  ASSERT_NE(client, nullptr);
  auto denied = client->Load(*bytes);
  EXPECT_EQ(denied.status().code(), absl::StatusCode::kPermissionDenied) << denied.status();
  EXPECT_TRUE(absl::StrContains(denied.status().message(), "--allow-load")) << denied.status();
}

INSTANTIATE_TEST_SUITE_P(Modes, AotClientTest, ::testing::Values(Mode::kInProcess, Mode::kRemote),
                         [](const ::testing::TestParamInfo<Mode>& info) {
                           return info.param == Mode::kInProcess ? "InProcess" : "Remote";
                         });

}  // namespace
}  // namespace xla::client
