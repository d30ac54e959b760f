// The xla-server executable: flags, refusal to listen insecurely, serving, SIGTERM drain -> exit 0.

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "server/grpc_test_util.h"

namespace xla::server {
namespace {

// Runs the server with `args`, returns exit status and combined output.
int RunToCompletion(const std::string& args, std::string* output) {
  std::string cmd = std::string("timeout 20 '") + XLA_SERVER_BINARY + "' " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output->append(buffer, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(XlaServerBinaryTest, HelpListsFlags) {
  std::string output;
  EXPECT_EQ(RunToCompletion("--help", &output), 0);
  for (const char* flag : {"--listen", "--platform", "--auth-token-file", "--tls-cert", "--tls-key",
                           "--tls-client-ca", "--insecure", "--session-lease", "--max-session-memory",
                           "--max-module-bytes", "--max-literal-bytes", "--compile-threads",
                           "--execute-threads", "--cache-entries", "--log-level"}) {
    EXPECT_NE(output.find(flag), std::string::npos) << flag;
  }
}

TEST(XlaServerBinaryTest, RefusesNonLoopbackWithoutAuthOrInsecure) {
  std::string output;
  EXPECT_EQ(RunToCompletion("--listen=0.0.0.0:0", &output), 2);
  EXPECT_NE(output.find("--insecure"), std::string::npos) << output;
  output.clear();
  EXPECT_EQ(RunToCompletion("--no-such-flag", &output), 2);
  EXPECT_NE(output.find("unknown flag"), std::string::npos) << output;
  output.clear();
  EXPECT_EQ(RunToCompletion("--max-module-bytes=lots", &output), 2);
}

TEST(XlaServerBinaryTest, ServesThenDrainsOnSigterm) {
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    execl(XLA_SERVER_BINARY, XLA_SERVER_BINARY, "--listen=127.0.0.1:0", "--log-level=warn",
          "--session-lease=5s", "--max-module-bytes=16M", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  // Read stdout until the "listening on" line (bounded wait).
  std::string text;
  const std::string marker = "xla-server listening on ";
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  auto have_line = [&] {
    size_t at = text.find(marker);
    return at != std::string::npos && text.find('\n', at) != std::string::npos;
  };
  while (!have_line() && std::chrono::steady_clock::now() < give_up) {
    pollfd fd{out[0], POLLIN, 0};
    if (poll(&fd, 1, 200) <= 0) continue;
    char buffer[512];
    ssize_t n = read(out[0], buffer, sizeof(buffer));
    if (n <= 0) break;
    text.append(buffer, n);
  }
  close(out[0]);
  size_t at = text.find(marker);
  bool started = at != std::string::npos;
  std::string address;
  if (started) {
    address = text.substr(at + marker.size());
    address = address.substr(0, address.find('\n'));
    auto stub = testing::MakeStub(address);
    GetVersionResponse response;
    grpc::Status status = stub->GetVersion(testing::Context().get(), GetVersionRequest(), &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
  }
  kill(pid, SIGTERM);
  int wait_status = 0;
  pid_t done = 0;
  for (int i = 0; i < 200 && done == 0; ++i) {
    done = waitpid(pid, &wait_status, WNOHANG);
    if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &wait_status, 0);
    FAIL() << "xla-server did not exit within 10 s of SIGTERM";
  }
  ASSERT_TRUE(started) << "no 'listening on' line; output: " << text;
  ASSERT_TRUE(WIFEXITED(wait_status));
  EXPECT_EQ(WEXITSTATUS(wait_status), 0);
}

}  // namespace
}  // namespace xla::server
