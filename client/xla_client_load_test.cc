// The server under load and under client failure, over real gRPC on 127.0.0.1:
//  - 16 clients x 200 mixed compile/transfer/execute calls at once, every result checked;
//  - a client process killed in the middle of a transfer, whose session's lease then lapses:
//    the server's memory returns to its baseline and it keeps serving others.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/xla_client.h"
#include "hlo/literal.h"
#include "server/grpc_server.h"
#include "server/grpc_test_util.h"

extern char** environ;

namespace xla::client {
namespace {

constexpr char kChildTargetEnv[] = "XLA_LOAD_TEST_CHILD_TARGET";
constexpr char kDoomedClientName[] = "doomed-client";
constexpr int64_t kHeldBytes = 8 << 20;

std::unique_ptr<server::RunningServer> StartLocalServer() {
  server::ServerConfig config = server::testing::LocalConfig();
  config.rpc_threads = 16;
  auto server = server::StartServer(config);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? std::move(*server) : nullptr;
}

std::unique_ptr<Client> ConnectTo(const std::string& target, const std::string& name,
                                  int64_t lease_ms = 0) {
  ClientOptions options;
  options.target = target;
  options.client_name = name;
  options.lease_ms = lease_ms;
  auto client = Client::Connect(options);
  EXPECT_TRUE(client.ok()) << client.status();
  return client.ok() ? std::move(*client) : nullptr;
}

// Sum of every session's memory, and the number of sessions other than `except_prefix`'s.
struct ServerMemory {
  int64_t bytes = 0;
  int64_t other_sessions = 0;
  int64_t named_bytes = -1;  // memory of the session called kDoomedClientName; -1 when absent
};

ServerMemory Measure(Client& observer) {
  ServerMemory memory;
  auto status = observer.GetStatus();
  EXPECT_TRUE(status.ok()) << status.status();
  if (!status.ok()) return memory;
  for (const server::SessionStatus& session : status->sessions()) {
    memory.bytes += session.memory_bytes();
    if (observer.session_id().rfind(session.session_id(), 0) != 0) ++memory.other_sessions;
    if (session.client_name() == kDoomedClientName) memory.named_bytes = session.memory_bytes();
  }
  return memory;
}

// Polls `done` every 10 ms for up to `limit`; true when it became true.
bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

std::string AddConstantModule(int constant, int64_t n) {
  return absl::StrCat("HloModule add_", constant, "\nENTRY main {\n  p = s32[", n,
                      "] parameter(0)\n  c = s32[] constant(", constant, ")\n  b = s32[", n,
                      "] broadcast(c), dimensions={}\n  ROOT r = s32[", n, "] add(p, b)\n}\n");
}

constexpr char kSplit[] = R"(HloModule split
ENTRY main {
  p = s32[6] parameter(0)
  lo = s32[3] slice(p), slice={[0:3]}
  hi = s32[3] slice(p), slice={[3:6]}
  ROOT t = (s32[3], s32[3]) tuple(hi, lo)
}
)";

// One client's 200 calls: compiles (its own module and shared ones, so the cache sees
// both misses and concurrent hits), uploads, executions, downloads, tuples, shapes and
// releases, each result compared with what it must be.
int RunMixedCalls(Client& client, int id) {
  int failures = 0;
  auto check = [&](bool ok) {
    if (!ok) ++failures;
    return ok;
  };
  const int64_t n = 64 + id;
  auto own = client.Compile(AddConstantModule(id, n));
  auto shared = client.Compile(AddConstantModule(1000, n));
  auto split = client.Compile(kSplit);
  if (!check(own.ok() && shared.ok() && split.ok())) return failures + 1000;
  int calls = 3;
  for (int step = 0; calls < 200; ++step) {
    std::vector<int32_t> values(n);
    for (int64_t k = 0; k < n; ++k) values[k] = static_cast<int32_t>(id * 100000 + step * 100 + k);
    Literal input = Literal::CreateR1<int32_t>(values);
    auto expect_plus = [&](const Literal& result, int32_t constant) {
      if (result.shape().dimensions(0) != n) return false;
      for (int64_t k = 0; k < n; ++k) {
        if (result.GetAsInt64(k) != values[k] + constant) return false;
      }
      return true;
    };
    switch (step % 5) {
      case 0: {  // upload, execute, shape, download
        auto data = client.TransferToServer(input);
        auto result = data.ok() ? client.Execute(*own, {data->get()}) : data.status();
        auto shape = result.ok() ? client.GetShape(**result) : result.status();
        auto back = result.ok() ? client.Transfer(**result) : result.status();
        check(shape.ok() && shape->dimensions(0) == n && back.ok() && expect_plus(*back, id));
        calls += 4;
        break;
      }
      case 1: {  // one round trip
        std::vector<Literal> arguments;
        arguments.push_back(input.Clone());
        auto back = client.ExecuteAndTransfer(*shared, arguments);
        check(back.ok() && expect_plus(*back, 1000));
        calls += 1;
        break;
      }
      case 2: {  // a chain of two executions, the second asynchronous
        auto data = client.TransferToServer(input);
        auto first = data.ok() ? client.Execute(*shared, {data->get()}) : data.status();
        auto second = first.ok() ? client.ExecuteAsync(*own, {first->get()}) : first.status();
        auto back = second.ok() ? client.Transfer(**second) : second.status();
        check(back.ok() && expect_plus(*back, 1000 + id));
        calls += 4;
        break;
      }
      case 3: {  // tuples
        auto data = client.TransferToServer(
            Literal::CreateR1<int32_t>({id, step, 3, 4, 5, id + step}));
        auto tuple = data.ok() ? client.Execute(*split, {data->get()}) : data.status();
        auto parts = tuple.ok() ? client.DeconstructTuple(**tuple) : tuple.status();
        auto lo = parts.ok() && parts->size() == 2 ? client.Transfer(*(*parts)[1]) : parts.status();
        check(lo.ok() && *lo == Literal::CreateR1<int32_t>({id, step, 3}));
        calls += 4;
        break;
      }
      case 4: {  // recompile (a cache hit) and an explicit batched release
        auto again = client.Compile(AddConstantModule(id, n));
        auto a = client.TransferToServer(input);
        auto b = client.TransferToServer(input);
        bool ok = again.ok() && again->cache_hit && a.ok() && b.ok();
        if (ok) {
          std::vector<GlobalData*> release = {a->get(), b->get()};
          ok = client.Unregister(release).ok();
        }
        check(ok);
        calls += 4;
        break;
      }
    }
  }
  return failures;
}

TEST(ServerLoadTest, SixteenClientsTwoHundredMixedCallsEach) {
  auto server = StartLocalServer();
  ASSERT_NE(server, nullptr);
  auto observer = ConnectTo(server->address(), "observer");
  ASSERT_NE(observer, nullptr);
  const ServerMemory baseline = Measure(*observer);

  constexpr int kClients = 16;
  std::vector<std::thread> threads;
  std::vector<int> failures(kClients, 0);
  for (int id = 0; id < kClients; ++id) {
    threads.emplace_back([&, id] {
      auto client = ConnectTo(server->address(), absl::StrCat("load-", id));
      failures[id] = client == nullptr ? 1 : RunMixedCalls(*client, id);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int id = 0; id < kClients; ++id) EXPECT_EQ(failures[id], 0) << "client " << id;

  // Every client closed its session: the server holds what it held before.
  const ServerMemory after = Measure(*observer);
  EXPECT_EQ(after.bytes, baseline.bytes);
  EXPECT_EQ(after.other_sessions, 0);
  auto status = observer->GetStatus();
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->executions_in_flight(), 0);
  EXPECT_GT(status->cache_hits(), 0);
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
}

// Runs only as the child of KilledClientMidTransfer: holds an 8 MiB value, starts a 64 MiB
// upload, sends part of it and then waits, mid-stream, to be killed.
TEST(ServerLoadTest, ChildThatDiesMidTransfer) {
  const char* target = std::getenv(kChildTargetEnv);
  if (target == nullptr) GTEST_SKIP() << "runs only as a child of KilledClientMidTransfer";
  auto client = ConnectTo(target, kDoomedClientName, /*lease_ms=*/1000);
  ASSERT_NE(client, nullptr);
  auto held = client->TransferToServer(Literal::CreateR1<int8_t>(std::vector<int8_t>(kHeldBytes, 7)));
  ASSERT_TRUE(held.ok()) << held.status();
  auto stub = server::testing::MakeStub(target);
  auto context = server::testing::Context();
  server::TransferToServerResponse response;
  auto writer = stub->TransferToServer(context.get(), &response);
  Literal big = Literal::CreateR1<float>(std::vector<float>(16 << 20, 1.0f));
  int sent = 0;
  server::ForEachChunk(big, 1 << 20, [&](server::TransferChunk&& chunk) {
    if (sent == 0) chunk.set_session_id(client->session_id());
    return writer->Write(chunk) && ++sent < 8;
  });
  for (;;) pause();  // the parent kills this process
}

TEST(ServerLoadTest, KilledClientMidTransferAndLapsedLeaseLeaveMemoryAtBaseline) {
  auto server = StartLocalServer();
  ASSERT_NE(server, nullptr);
  auto observer = ConnectTo(server->address(), "observer");
  ASSERT_NE(observer, nullptr);
  const ServerMemory baseline = Measure(*observer);

  // The child is this test binary, re-run on the child test only.
  std::string self = "/proc/self/exe";
  std::string filter = "--gtest_filter=ServerLoadTest.ChildThatDiesMidTransfer";
  std::string env_target = absl::StrCat(kChildTargetEnv, "=", server->address());
  std::vector<char*> argv = {self.data(), filter.data(), nullptr};
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  envp.push_back(env_target.data());
  envp.push_back(nullptr);
  pid_t child = 0;
  ASSERT_EQ(posix_spawn(&child, self.c_str(), nullptr, nullptr, argv.data(), envp.data()), 0);

  // Mid-transfer: the held value and part of the upload are on the server.
  const bool uploading = WaitFor([&] { return Measure(*observer).named_bytes > kHeldBytes; },
                                 std::chrono::seconds(60));
  kill(child, SIGKILL);
  int wait_status = 0;
  waitpid(child, &wait_status, 0);
  ASSERT_TRUE(uploading) << "the child never got its upload under way";
  EXPECT_TRUE(WIFSIGNALED(wait_status));

  // The broken stream frees the partial upload at once; the held value stays until the
  // session's 1 s lease lapses (nobody renews it now), then the session and its memory go.
  EXPECT_TRUE(WaitFor([&] { return Measure(*observer).named_bytes <= kHeldBytes; },
                      std::chrono::seconds(10)))
      << "partial upload still held: " << Measure(*observer).named_bytes;
  EXPECT_TRUE(WaitFor(
      [&] {
        ServerMemory now = Measure(*observer);
        return now.named_bytes == -1 && now.bytes == baseline.bytes && now.other_sessions == 0;
      },
      std::chrono::seconds(10)))
      << "memory " << Measure(*observer).bytes << " vs baseline " << baseline.bytes;

  // And the server still serves.
  auto exe = observer->Compile(AddConstantModule(5, 3));
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<Literal> arguments;
  arguments.push_back(Literal::CreateR1<int32_t>({1, 2, 3}));
  auto back = observer->ExecuteAndTransfer(*exe, arguments);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, Literal::CreateR1<int32_t>({6, 7, 8}));
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
}

}  // namespace
}  // namespace xla::client
