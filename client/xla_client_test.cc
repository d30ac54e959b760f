// End-to-end tests of the C++ client, each run twice: in-process (the service core, no
// network) and remote (xla-server started in this process on 127.0.0.1:0).

#include "client/xla_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdio.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <memory>
#include <string>
#include <vector>

#include "hlo/literal.h"
#include "hlo/shape_util.h"
#include "server/grpc_server.h"
#include "server/service_core.h"

namespace xla::client {
namespace {

using ::testing::HasSubstr;

constexpr char kAdd[] = R"(HloModule add
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT c = f32[4] add(a, b)
}
)";

constexpr char kScalarAdd[] = R"(HloModule scalar_add
ENTRY main {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
)";

constexpr char kTuple[] = R"(HloModule tuple
ENTRY main {
  a = f32[2] parameter(0)
  b = s32[] parameter(1)
  n = f32[2] negate(a)
  ROOT t = (f32[2], s32[], f32[2]) tuple(a, b, n)
}
)";

int64_t TotalHandles(const server::GetStatusResponse& status) {
  int64_t handles = 0;
  for (const auto& session : status.sessions()) handles += session.handles();
  return handles;
}

enum class Mode { kInProcess, kRemote };

class ClientTest : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    if (GetParam() == Mode::kInProcess) {
      auto client = Client::InProcess();
      ASSERT_TRUE(client.ok()) << client.status();
      client_ = std::move(*client);
    } else {
      server::ServerConfig config;
      config.listen = "127.0.0.1:0";
      config.rpc_threads = 8;
      auto server = server::StartServer(config);
      ASSERT_TRUE(server.ok()) << server.status();
      server_ = std::move(*server);
      client_ = Connect();
    }
  }

  void TearDown() override {
    client_.reset();
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
  }

  std::unique_ptr<Client> Connect(ClientOptions options = {}) {
    options.target = server_->address();
    auto client = Client::Connect(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? std::move(*client) : nullptr;
  }

  std::unique_ptr<server::RunningServer> server_;
  std::unique_ptr<Client> client_;
};

TEST_P(ClientTest, HandshakeOpensSession) {
  ASSERT_NE(client_, nullptr);
  EXPECT_FALSE(client_->session_id().empty());
  EXPECT_GT(client_->lease_ms(), 0);
  EXPECT_LE(client_->server_version().min_protocol_version(), kClientProtocolVersion);
  auto devices = client_->ListDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_FALSE(devices->empty());
  EXPECT_EQ((*devices)[0].platform(), "interpreter");
  auto handles = client_->GetDeviceHandles(1);
  ASSERT_TRUE(handles.ok()) << handles.status();
  ASSERT_EQ(handles->size(), 1u);
}

TEST_P(ClientTest, CompileTransferExecuteTransferBack) {
  ASSERT_NE(client_, nullptr);
  auto exe = client_->Compile(kAdd);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(exe->program_shape.parameters().size(), 2u);
  auto a = client_->TransferToServer(Literal::CreateR1<float>({1, 2, 3, 4}));
  ASSERT_TRUE(a.ok()) << a.status();
  auto b = client_->TransferToServer(Literal::CreateR1<float>({10, 20, 30, 40}));
  ASSERT_TRUE(b.ok()) << b.status();
  auto shape = client_->GetShape(**a);
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->ToString(), "f32[4]");

  std::vector<const GlobalData*> args = {a->get(), b->get()};
  ExecutionProfile profile;
  ExecuteOptions options;
  options.profile = &profile;
  auto result = client_->Execute(*exe, args, options);
  ASSERT_TRUE(result.ok()) << result.status();
  auto value = client_->Transfer(**result);
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, Literal::CreateR1<float>({11, 22, 33, 44}));

  // The output feeds the next execution.
  std::vector<const GlobalData*> again = {result->get(), result->get()};
  auto doubled = client_->Execute(*exe, again);
  ASSERT_TRUE(doubled.ok()) << doubled.status();
  auto doubled_value = client_->Transfer(**doubled);
  ASSERT_TRUE(doubled_value.ok()) << doubled_value.status();
  EXPECT_EQ(*doubled_value, Literal::CreateR1<float>({22, 44, 66, 88}));

  auto program_shape = client_->GetComputationShape(*exe);
  ASSERT_TRUE(program_shape.ok()) << program_shape.status();
  EXPECT_EQ(program_shape->result().ToString(), "f32[4]");

  // Recompiling the same module hits the cache.
  auto again_exe = client_->Compile(kAdd);
  ASSERT_TRUE(again_exe.ok()) << again_exe.status();
  EXPECT_TRUE(again_exe->cache_hit);
}

TEST_P(ClientTest, ExecuteAndTransferInlineAndStreamed) {
  ASSERT_NE(client_, nullptr);
  auto exe = client_->Compile(kScalarAdd);
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<Literal> args;
  args.push_back(Literal::CreateR0<float>(1.5f));
  args.push_back(Literal::CreateR0<float>(2.25f));
  auto sum = client_->ExecuteAndTransfer(*exe, args);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(*sum, Literal::CreateR0<float>(3.75f));

  // Past kInlineLiteralBytes the call streams (several chunks each way).
  constexpr int64_t kCount = (kInlineLiteralBytes / 4) + 1024;
  const char* big_hlo = R"(HloModule big
ENTRY main {
  a = f32[8389632] parameter(0)
  ROOT n = f32[8389632] negate(a)
}
)";
  static_assert(kCount == 8389632, "update the HLO above");
  auto big_exe = client_->Compile(big_hlo);
  ASSERT_TRUE(big_exe.ok()) << big_exe.status();
  std::vector<float> values(kCount);
  for (int64_t i = 0; i < kCount; ++i) values[i] = static_cast<float>(i % 1000);
  std::vector<Literal> big_args;
  big_args.push_back(Literal::CreateR1<float>(values));
  auto negated = client_->ExecuteAndTransfer(*big_exe, big_args);
  ASSERT_TRUE(negated.ok()) << negated.status();
  auto data = negated->data<float>();
  ASSERT_EQ(data.size(), static_cast<size_t>(kCount));
  EXPECT_EQ(data[0], -0.0f);
  EXPECT_EQ(data[kCount - 1], -static_cast<float>((kCount - 1) % 1000));
  EXPECT_EQ(data[123457], -457.0f);
}

TEST_P(ClientTest, TuplesAndDeconstructTuple) {
  ASSERT_NE(client_, nullptr);
  auto exe = client_->Compile(kTuple);
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto a = client_->TransferToServer(Literal::CreateR1<float>({1, -2}));
  ASSERT_TRUE(a.ok()) << a.status();
  auto b = client_->TransferToServer(Literal::CreateR0<int32_t>(7));
  ASSERT_TRUE(b.ok()) << b.status();
  std::vector<const GlobalData*> args = {a->get(), b->get()};
  auto tuple = client_->Execute(*exe, args);
  ASSERT_TRUE(tuple.ok()) << tuple.status();

  auto whole = client_->Transfer(**tuple);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_TRUE(whole->IsTuple());
  ASSERT_EQ(whole->tuple_element_count(), 3);
  EXPECT_EQ(whole->tuple_element(2), Literal::CreateR1<float>({-1, 2}));

  auto elements = client_->DeconstructTuple(**tuple);
  ASSERT_TRUE(elements.ok()) << elements.status();
  ASSERT_EQ(elements->size(), 3u);
  tuple->reset();  // the elements stay valid without the tuple
  auto second = client_->Transfer(*(*elements)[1]);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, Literal::CreateR0<int32_t>(7));
  auto third = client_->Transfer(*(*elements)[2]);
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ(*third, Literal::CreateR1<float>({-1, 2}));

  // A tuple literal uploads and comes back whole.
  std::vector<Literal> parts;
  parts.push_back(Literal::CreateR1<int32_t>({1, 2, 3}));
  parts.push_back(Literal::CreateR0<double>(0.5));
  Literal tuple_literal = Literal::MakeTuple(std::move(parts));
  auto uploaded = client_->TransferToServer(tuple_literal);
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  auto downloaded = client_->Transfer(**uploaded);
  ASSERT_TRUE(downloaded.ok()) << downloaded.status();
  EXPECT_EQ(*downloaded, tuple_literal);
}

TEST_P(ClientTest, DestroyedGlobalDataIsUnregistered) {
  ASSERT_NE(client_, nullptr);
  auto baseline = client_->GetStatus();
  ASSERT_TRUE(baseline.ok()) << baseline.status();
  const int64_t base = TotalHandles(*baseline);
  {
    std::vector<std::unique_ptr<GlobalData>> data;
    for (int i = 0; i < 10; ++i) {
      auto d = client_->TransferToServer(Literal::CreateR0<float>(i));
      ASSERT_TRUE(d.ok()) << d.status();
      data.push_back(std::move(*d));
    }
    auto during = client_->GetStatus();
    ASSERT_TRUE(during.ok()) << during.status();
    EXPECT_EQ(TotalHandles(*during), base + 10);
    // Explicit Unregister of two; the rest are queued by their destructors.
    std::vector<GlobalData*> two = {data[0].get(), data[1].get()};
    ASSERT_TRUE(client_->Unregister(two).ok());
    auto after_two = client_->GetStatus();
    ASSERT_TRUE(after_two.ok());
    EXPECT_EQ(TotalHandles(*after_two), base + 8);
  }
  auto after = client_->GetStatus();  // flushes the queued handles first
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(TotalHandles(*after), base);
}

TEST_P(ClientTest, ClosingTheClientFreesItsSession) {
  ASSERT_NE(client_, nullptr);
  std::unique_ptr<Client> other = GetParam() == Mode::kRemote ? Connect() : nullptr;
  if (GetParam() == Mode::kInProcess) GTEST_SKIP() << "in-process clients own their core";
  ASSERT_NE(other, nullptr);
  auto kept = other->TransferToServer(Literal::CreateR0<float>(1));
  ASSERT_TRUE(kept.ok());
  auto with_other = client_->GetStatus();
  ASSERT_TRUE(with_other.ok());
  EXPECT_EQ(with_other->sessions_size(), 2);
  other.reset();  // closes its session; `kept` outlives its client harmlessly
  kept->reset();
  auto without = client_->GetStatus();
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(without->sessions_size(), 1);
}

TEST_P(ClientTest, ErrorsCarryCodes) {
  ASSERT_NE(client_, nullptr);
  auto bad = client_->Compile("HloModule m\nENTRY main {\n  ROOT a = f32[] bogus-op()\n}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), ::testing::ContainsRegex("^[0-9]+:[0-9]+: "));

  auto exe = client_->Compile(kAdd);
  ASSERT_TRUE(exe.ok());
  auto wrong = client_->TransferToServer(Literal::CreateR1<float>({1, 2, 3}));
  ASSERT_TRUE(wrong.ok());
  std::vector<const GlobalData*> args = {wrong->get(), wrong->get()};
  auto result = client_->Execute(*exe, args);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("parameter"));

  std::vector<const GlobalData*> one = {wrong->get()};
  EXPECT_EQ(client_->Execute(*exe, one).status().code(), absl::StatusCode::kInvalidArgument);

  std::vector<Literal> wrong_literals;
  wrong_literals.push_back(Literal::CreateR1<int32_t>({1, 2, 3, 4}));
  wrong_literals.push_back(Literal::CreateR1<int32_t>({1, 2, 3, 4}));
  EXPECT_EQ(client_->ExecuteAndTransfer(*exe, wrong_literals).status().code(),
            absl::StatusCode::kInvalidArgument);

  ExecutableHandle unknown = *exe;
  unknown.handle = 987654321;
  EXPECT_EQ(client_->GetComputationShape(unknown).status().code(), absl::StatusCode::kNotFound);

  // A released handle, unregistered twice: the second is NOT_FOUND.
  auto data = client_->TransferToServer(Literal::CreateR0<float>(1));
  ASSERT_TRUE(data.ok());
  std::vector<GlobalData*> list = {data->get()};
  ASSERT_TRUE(client_->Unregister(list).ok());
  EXPECT_EQ(client_->Unregister(list).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(client_->Transfer(**data).status().code(), absl::StatusCode::kNotFound);
}

TEST_P(ClientTest, ExecuteParallel) {
  ASSERT_NE(client_, nullptr);
  auto exe = client_->Compile(kScalarAdd);
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto x = client_->TransferToServer(Literal::CreateR0<float>(2));
  auto y = client_->TransferToServer(Literal::CreateR0<float>(5));
  ASSERT_TRUE(x.ok() && y.ok());
  std::vector<ExecutionRequest> requests(2);
  requests[0].executable = &*exe;
  requests[0].arguments = {x->get(), y->get()};
  requests[1].executable = &*exe;
  requests[1].arguments = {y->get(), y->get()};
  auto results = client_->ExecuteParallel(requests);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 2u);
  auto r0 = client_->Transfer(*(*results)[0]);
  auto r1 = client_->Transfer(*(*results)[1]);
  ASSERT_TRUE(r0.ok() && r1.ok());
  EXPECT_EQ(*r0, Literal::CreateR0<float>(7));
  EXPECT_EQ(*r1, Literal::CreateR0<float>(10));
}

TEST_P(ClientTest, InfeedOutfeed) {
  ASSERT_NE(client_, nullptr);
  Literal value = Literal::CreateR1<int32_t>({4, 5, 6});
  ASSERT_TRUE(client_->TransferToInfeed(value).ok());
  constexpr char kEcho[] = R"(HloModule echo
ENTRY main {
  tok = token[] after-all()
  in = (s32[3], token[]) infeed(tok)
  v = s32[3] get-tuple-element(in), index=0
  t2 = token[] get-tuple-element(in), index=1
  out = token[] outfeed(v, t2)
  ROOT r = s32[3] negate(v)
}
)";
  auto exe = client_->Compile(kEcho);
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto result = client_->Execute(*exe, {});
  ASSERT_TRUE(result.ok()) << result.status();
  auto out = client_->TransferFromOutfeed(value.shape(), 0, 5000);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, value);
  auto empty = client_->TransferFromOutfeed(value.shape(), 0, 10);
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST_P(ClientTest, ExecuteAsyncChainsAndAwaits) {
  ASSERT_NE(client_, nullptr);
  auto exe = client_->Compile(kScalarAdd);
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto one = client_->TransferToServer(Literal::CreateR0<float>(1));
  ASSERT_TRUE(one.ok()) << one.status();
  // Each execution consumes the previous one's result before it is ready.
  std::vector<std::unique_ptr<GlobalData>> chain;
  const GlobalData* previous = one->get();
  for (int i = 0; i < 40; ++i) {
    auto next = client_->ExecuteAsync(*exe, {previous, one->get()});
    ASSERT_TRUE(next.ok()) << next.status();
    chain.push_back(std::move(*next));
    previous = chain.back().get();
  }
  std::vector<ExecutionProfile> profiles;
  ASSERT_TRUE(client_->Await({chain.front().get(), chain.back().get(), one->get()}, &profiles).ok());
  ASSERT_EQ(profiles.size(), 3u);
  EXPECT_GT(profiles[1].compute_time_ns(), 0);
  EXPECT_EQ(profiles[2].compute_time_ns(), 0);  // never pending
  auto value = client_->Transfer(*chain.back());
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, Literal::CreateR0<float>(41));

  // Transfer waits by itself, without Await.
  auto late = client_->ExecuteAsync(*exe, {chain.back().get(), chain.back().get()});
  ASSERT_TRUE(late.ok()) << late.status();
  auto late_value = client_->Transfer(**late);
  ASSERT_TRUE(late_value.ok()) << late_value.status();
  EXPECT_EQ(*late_value, Literal::CreateR0<float>(82));
}

TEST_P(ClientTest, ExecuteAsyncFailureReachesAwaitAndDependants) {
  ASSERT_NE(client_, nullptr);
  constexpr char kReadInfeed[] = R"(HloModule read
ENTRY main {
  t = token[] after-all()
  i = (f32[], token[]) infeed(t)
  ROOT d = f32[] get-tuple-element(i), index=0
}
)";
  auto reader = client_->Compile(kReadInfeed);
  ASSERT_TRUE(reader.ok()) << reader.status();
  auto add = client_->Compile(kScalarAdd);
  ASSERT_TRUE(add.ok()) << add.status();
  // The wrong type in the queue: submission succeeds, the run fails when it reads it.
  ASSERT_TRUE(client_->TransferToInfeed(Literal::CreateR0<int32_t>(3)).ok());
  auto failed = client_->ExecuteAsync(*reader, {});
  ASSERT_TRUE(failed.ok()) << failed.status();
  auto dependant = client_->ExecuteAsync(*add, {failed->get(), failed->get()});
  ASSERT_TRUE(dependant.ok()) << dependant.status();
  absl::Status awaited = client_->Await({failed->get()});
  EXPECT_EQ(awaited.code(), absl::StatusCode::kInvalidArgument) << awaited;
  EXPECT_THAT(std::string(awaited.message()), HasSubstr("infeed"));
  EXPECT_FALSE(client_->Await({dependant->get()}).ok());
  EXPECT_FALSE(client_->Transfer(**dependant).ok());
  // Submission-time checks still answer at once: a wrong argument count.
  auto bad = client_->ExecuteAsync(*add, {failed->get()});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
  // The session stays usable.
  auto good = client_->ExecuteAndTransfer(*add, {Literal::CreateR0<float>(1), Literal::CreateR0<float>(2)});
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(*good, Literal::CreateR0<float>(3));
}

INSTANTIATE_TEST_SUITE_P(Modes, ClientTest, ::testing::Values(Mode::kInProcess, Mode::kRemote),
                         [](const ::testing::TestParamInfo<Mode>& info) {
                           return info.param == Mode::kInProcess ? "InProcess" : "Remote";
                         });

// --- remote-only behaviour ---

TEST(ClientRemoteTest, ConnectFailsWithoutServer) {
  ClientOptions options;
  options.target = "127.0.0.1:1";  // nothing listens on port 1
  options.max_retries = 1;
  options.deadline_ms = 2000;
  auto client = Client::Connect(options);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kUnavailable) << client.status();
}

TEST(ClientRemoteTest, TokenIsSentAndChecked) {
  char dir[] = "/tmp/xla_client_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string token_file = std::string(dir) + "/token";
  FILE* f = fopen(token_file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs("s3cret\n", f);
  fclose(f);
  server::ServerConfig config;
  config.listen = "127.0.0.1:0";
  config.auth_token_file = token_file;
  auto server = server::StartServer(config);
  std::remove(token_file.c_str());
  rmdir(dir);
  ASSERT_TRUE(server.ok()) << server.status();

  ClientOptions options;
  options.target = (*server)->address();
  auto missing = Client::Connect(options);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kUnauthenticated);
  options.auth_token = "wrong";
  EXPECT_EQ(Client::Connect(options).status().code(), absl::StatusCode::kUnauthenticated);
  options.auth_token = "s3cret";
  auto client = Client::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  auto devices = (*client)->ListDevices();
  EXPECT_TRUE(devices.ok()) << devices.status();
  client->reset();
  (*server)->Shutdown(std::chrono::system_clock::now());
}

TEST(ClientRemoteTest, KeepAliveHoldsTheSessionPastItsLease) {
  server::ServerConfig config;
  config.listen = "127.0.0.1:0";
  config.service.default_lease_ms = 300;
  auto server = server::StartServer(config);
  ASSERT_TRUE(server.ok()) << server.status();
  ClientOptions options;
  options.target = (*server)->address();
  auto client = Client::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  auto data = (*client)->TransferToServer(Literal::CreateR0<float>(3));
  ASSERT_TRUE(data.ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // > 3 leases
  auto value = (*client)->Transfer(**data);
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, Literal::CreateR0<float>(3));
  data->reset();
  client->reset();
  (*server)->Shutdown(std::chrono::system_clock::now());
}

}  // namespace
}  // namespace xla::client
