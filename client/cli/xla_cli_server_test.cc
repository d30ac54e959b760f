// xla-cli's server mode end to end: xla-server runs inside this test process on
// 127.0.0.1:0 and the xla-cli binary talks to it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <regex>
#include <string>

#define XLA_CLI_TEST_PREFIX "xla_cli_server_test_"
#include "client/cli/cli_test_util.h"
#include "server/grpc_server.h"

namespace {

using ::testing::HasSubstr;
using xla_cli_test::Result;
using xla_cli_test::RunCli;
using xla_cli_test::WriteFile;

class XlaCliServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    xla::server::ServerConfig config;
    config.listen = "127.0.0.1:0";
    config.rpc_threads = 4;
    auto server = xla::server::StartServer(config);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    flag_ = " --server=" + server_->address();
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
  }
  std::unique_ptr<xla::server::RunningServer> server_;
  std::string flag_;
};

TEST_F(XlaCliServerTest, Devices) {
  Result r = RunCli("devices" + flag_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("0 interpreter"));
  r = RunCli("devices --json" + flag_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("{\"devices\": [{\"ordinal\": 0, \"platform\": \"interpreter\""));
}

TEST_F(XlaCliServerTest, Status) {
  Result r = RunCli("status --json" + flag_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The cli's own session is listed, named xla-cli.
  EXPECT_THAT(r.output, HasSubstr("\"client_name\": \"xla-cli\""));
  r = RunCli("status" + flag_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("sessions: 1"));
}

TEST_F(XlaCliServerTest, PingJson) {
  Result r = RunCli("ping --repeat=50 --json" + flag_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::smatch m;
  std::regex json(R"(^\{"p50_us": ([0-9.]+), "p90_us": ([0-9.]+), "p99_us": ([0-9.]+)\}\n$)");
  ASSERT_TRUE(std::regex_match(r.output, m, json)) << r.output;
  const double p50 = std::stod(m[1]), p90 = std::stod(m[2]), p99 = std::stod(m[3]);
  EXPECT_GT(p50, 0);
  EXPECT_LE(p50, p90);
  EXPECT_LE(p90, p99);
  // The session was closed: nothing left behind on the server.
  EXPECT_EQ(server_->core()->GetStatus(xla::server::GetStatusRequest())->sessions_size(), 0);
}

TEST_F(XlaCliServerTest, TransferBothDirections) {
  for (const char* direction : {"to-server", "to-client"}) {
    Result r = RunCli(std::string("transfer --bytes=3000000 --repeat=2 --json --direction=") + direction + flag_);
    ASSERT_EQ(r.exit_code, 0) << direction << ": " << r.output;
    std::smatch m;
    std::regex json(R"(^\{"gib_per_s": ([0-9.]+), "seconds": ([0-9.]+)\}\n$)");
    ASSERT_TRUE(std::regex_match(r.output, m, json)) << r.output;
    EXPECT_GT(std::stod(m[1]), 0);
    EXPECT_GT(std::stod(m[2]), 0);
  }
  Result bad = RunCli("transfer --direction=sideways --bytes=10" + flag_);
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  Result missing = RunCli("transfer" + flag_);
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
}

TEST_F(XlaCliServerTest, RunOnServerMatchesLocalRun) {
  std::string path = WriteFile("add.hlo",
                               "HloModule m\nENTRY main {\n  a = f32[2] parameter(0)\n"
                               "  b = f32[2] parameter(1)\n  ROOT c = f32[2] add(a, b)\n}\n");
  std::string args = " --arg='f32[2] {1, 2.5}' --arg='f32[2] {10, -1}'";
  Result local = RunCli("run " + path + args);
  ASSERT_EQ(local.exit_code, 0) << local.output;
  Result remote = RunCli("run " + path + args + flag_);
  ASSERT_EQ(remote.exit_code, 0) << remote.output;
  EXPECT_EQ(remote.output, local.output);
  EXPECT_EQ(remote.output, "f32[2] {11, 1.5}\n");

  Result json = RunCli("run " + path + " --random-args --repeat=3 --json" + flag_);
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_THAT(json.output, HasSubstr("\"repeat\": 3, \"platform\": \"interpreter\", \"result_shape\": \"f32[2]\""));

  // Argument errors are the run command's own.
  Result wrong = RunCli("run " + path + " --arg='f32[3] {1, 2, 3}' --arg='f32[2] {1, 2}'" + flag_);
  EXPECT_EQ(wrong.exit_code, 1) << wrong.output;
  EXPECT_THAT(wrong.output, HasSubstr("expects f32[2]"));
}

// A serialized executable from `xla-cli compile --aot` runs on a server that allows loads,
// with the parameters its own module gives; a server that does not refuses it.
TEST_F(XlaCliServerTest, RunsSerializedExecutables) {
  const std::string hlo = WriteFile("aot.hlo", R"(HloModule aot
ENTRY main {
  a = f32[3] parameter(0)
  c = f32[3] constant({1, 2, 3})
  ROOT m = f32[3] multiply(a, c)
}
)");
  const std::string exe = xla_cli_test::TempPath("aot.xlaexe");
  Result compiled = RunCli("compile --aot " + exe + " --platform=interpreter " + hlo);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  Result refused = RunCli("run --executable " + exe + " --arg='f32[3] {2, 2, 2}'" + flag_);
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("--allow-load"));

  xla::server::ServerConfig config;
  config.listen = "127.0.0.1:0";
  config.rpc_threads = 2;
  config.service.allow_load = true;
  auto loading = xla::server::StartServer(config);
  ASSERT_TRUE(loading.ok()) << loading.status();
  const std::string flag = " --server=" + (*loading)->address();
  Result r = RunCli("run --executable " + exe + " --arg='f32[3] {2, 2, 2}'" + flag);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "f32[3] {2, 4, 6}\n");
  Result json = RunCli("run --executable " + exe + " --random-args --json" + flag);
  EXPECT_EQ(json.exit_code, 0) << json.output;
  EXPECT_THAT(json.output, HasSubstr("\"platform\": \"interpreter\""));
  Result wrong = RunCli("run --executable " + exe + " --arg='f32[2] {2, 2}'" + flag);
  EXPECT_EQ(wrong.exit_code, 1) << wrong.output;
  EXPECT_THAT(wrong.output, HasSubstr("expects f32[3]"));
  (*loading)->Shutdown(std::chrono::system_clock::now());
}

TEST_F(XlaCliServerTest, ErrorsFromTheServerAndUnreachableServers) {
  // Nothing listens on port 1.
  Result r = RunCli("devices --server=127.0.0.1:1 --deadline-ms=2000");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("UNAVAILABLE"));
  Result usage = RunCli("ping --bogus" + flag_);
  EXPECT_EQ(usage.exit_code, 2) << usage.output;
}

}  // namespace
