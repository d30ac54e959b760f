// The gRPC layer end to end: a server on 127.0.0.1:0, the generated stub, real streams.

#include <atomic>
#include <cstring>
#include <thread>
#include <numeric>
#include <regex>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/grpc_service.h"
#include "server/grpc_test_util.h"

namespace xla::server {
namespace {

using testing::Context;
using testing::CountingLoopHlo;
using testing::Download;
using testing::LocalConfig;
using testing::MakeStub;
using testing::OpenSession;
using testing::Upload;

class GrpcServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = StartServer(LocalConfig());
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    ASSERT_GT(server_->port(), 0);
    stub_ = MakeStub(server_->address());
  }
  void TearDown() override {
    if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  }

  std::unique_ptr<RunningServer> server_;
  std::unique_ptr<XlaService::Stub> stub_;
};

TEST_F(GrpcServiceTest, GetVersionListsProtocolAndPlatforms) {
  GetVersionResponse response;
  grpc::Status status = stub_->GetVersion(Context().get(), GetVersionRequest(), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_LE(response.min_protocol_version(), kMaxProtocolVersion);
  EXPECT_GE(response.max_protocol_version(), kMinProtocolVersion);
  EXPECT_THAT(response.platforms(), ::testing::Contains("interpreter"));

  // The request id used in the server's log comes back (the caller's own when given).
  auto context = Context();
  context->AddMetadata("x-request-id", "trace-42");
  ASSERT_TRUE(stub_->GetVersion(context.get(), GetVersionRequest(), &response).ok());
  auto it = context->GetServerInitialMetadata().find("x-request-id");
  ASSERT_NE(it, context->GetServerInitialMetadata().end());
  EXPECT_EQ(std::string(it->second.data(), it->second.size()), "trace-42");
}

TEST_F(GrpcServiceTest, CompileUploadExecuteDownloadRoundTrip) {
  std::string session;
  ASSERT_TRUE(OpenSession(*stub_, &session).ok());
  ASSERT_FALSE(session.empty());

  CompileRequest compile;
  compile.set_session_id(session);
  compile.set_hlo_text(R"(HloModule m
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT r = f32[4] add(a, b)
})");
  CompileResponse compiled;
  grpc::Status status = stub_->Compile(Context().get(), compile, &compiled);
  ASSERT_TRUE(status.ok()) << status.error_message();

  int64_t a = 0, b = 0;
  ASSERT_TRUE(Upload(*stub_, session, Literal::CreateR1<float>({1, 2, 3, 4}), &a).ok());
  ASSERT_TRUE(Upload(*stub_, session, Literal::CreateR1<float>({10, 20, 30, 40}), &b).ok());

  ExecuteRequest execute;
  execute.set_session_id(session);
  execute.set_execution_handle(compiled.execution_handle());
  execute.add_arguments(a);
  execute.add_arguments(b);
  ExecuteResponse executed;
  status = stub_->Execute(Context().get(), execute, &executed);
  ASSERT_TRUE(status.ok()) << status.error_message();

  Literal result;
  status = Download(*stub_, session, executed.result_handle(), &result);
  ASSERT_TRUE(status.ok()) << status.error_message();
  auto values = result.data<float>();
  EXPECT_EQ(std::vector<float>(values.begin(), values.end()), (std::vector<float>{11, 22, 33, 44}));

  // The same program through ExecuteAndTransfer (literals inline).
  ExecuteAndTransferRequest inline_request;
  inline_request.set_session_id(session);
  inline_request.set_execution_handle(compiled.execution_handle());
  *inline_request.add_arguments() = Literal::CreateR1<float>({1, 1, 1, 1}).ToProto();
  *inline_request.add_arguments() = Literal::CreateR1<float>({2, 2, 2, 2}).ToProto();
  ExecuteAndTransferResponse inline_response;
  status = stub_->ExecuteAndTransfer(Context().get(), inline_request, &inline_response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  auto inline_result = Literal::FromProto(inline_response.result());
  ASSERT_TRUE(inline_result.ok()) << inline_result.status();
  EXPECT_EQ(inline_result->GetAsDouble(int64_t{3}), 3.0);

  CloseSessionRequest close;
  close.set_session_id(session);
  CloseSessionResponse closed;
  EXPECT_TRUE(stub_->CloseSession(Context().get(), close, &closed).ok());
}

TEST_F(GrpcServiceTest, StreamsSeveralMiBBothWaysByteExact) {
  std::string session;
  ASSERT_TRUE(OpenSession(*stub_, &session).ok());
  // 3 MiB + a ragged tail so the last chunk is partial.
  const int64_t count = (3 << 20) / 4 + 1234;
  std::vector<int32_t> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = static_cast<int32_t>(i * 2654435761u);
  Literal literal = Literal::CreateR1<int32_t>(values);

  int64_t handle = 0;
  grpc::Status status = Upload(*stub_, session, literal, &handle, /*chunk_bytes=*/256 << 10);
  ASSERT_TRUE(status.ok()) << status.error_message();

  Literal back;
  size_t chunks = 0;
  status = Download(*stub_, session, handle, &back, &chunks);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_GE(chunks, 3u);  // ~1 MiB chunks, never one huge message
  ASSERT_EQ(back.size_bytes(), literal.size_bytes());
  EXPECT_EQ(std::memcmp(back.untyped_data(), literal.untyped_data(), literal.size_bytes()), 0);
}

TEST_F(GrpcServiceTest, UnknownSessionAndHandleAreNotFound) {
  GetShapeRequest request;
  request.set_session_id("no-such-session");
  request.set_handle(42);
  GetShapeResponse response;
  EXPECT_EQ(stub_->GetShape(Context().get(), request, &response).error_code(), grpc::StatusCode::NOT_FOUND);

  std::string session;
  ASSERT_TRUE(OpenSession(*stub_, &session).ok());
  request.set_session_id(session);
  request.set_handle(987654321);
  EXPECT_EQ(stub_->GetShape(Context().get(), request, &response).error_code(), grpc::StatusCode::NOT_FOUND);

  Literal ignored;
  EXPECT_EQ(Download(*stub_, session, 987654321, &ignored).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(GrpcServiceTest, BadHloIsInvalidArgumentWithLineAndColumn) {
  std::string session;
  ASSERT_TRUE(OpenSession(*stub_, &session).ok());
  CompileRequest compile;
  compile.set_session_id(session);
  compile.set_hlo_text("HloModule m\nENTRY main {\n  a = f32[4] parameter(0)\n  ROOT r = f32[4] frobnicate(a)\n}\n");
  CompileResponse response;
  grpc::Status status = stub_->Compile(Context().get(), compile, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(std::regex_search(status.error_message(), std::regex("[0-9]+:[0-9]+")))
      << status.error_message();
}

TEST_F(GrpcServiceTest, UploadWithoutShapeOrToUnknownSessionFailsCleanly) {
  // An empty stream is rejected, not crashed on.
  {
    auto context = Context();
    TransferToServerResponse response;
    auto writer = stub_->TransferToServer(context.get(), &response);
    writer->WritesDone();
    EXPECT_EQ(writer->Finish().error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  int64_t handle = 0;
  EXPECT_EQ(Upload(*stub_, "no-such-session", Literal::CreateR1<float>({1}), &handle).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(GrpcServiceTest, CancelledUploadLeavesServerHealthy) {
  std::string session;
  ASSERT_TRUE(OpenSession(*stub_, &session).ok());
  {
    auto context = Context();
    TransferToServerResponse response;
    auto writer = stub_->TransferToServer(context.get(), &response);
    Literal big = Literal::CreateR1<float>(std::vector<float>(1 << 20, 1.0f));
    bool first = true;
    int sent = 0;
    ForEachChunk(big, 64 << 10, [&](TransferChunk&& chunk) {
      if (first) chunk.set_session_id(session), first = false;
      return writer->Write(chunk) && ++sent < 3;
    });
    context->TryCancel();
    EXPECT_FALSE(writer->Finish().ok());
  }
  // The partial upload is freed: the session's memory returns to zero (the abort runs when the
  // server sees the cancellation, so poll briefly).
  int64_t memory = -1;
  for (int i = 0; i < 500 && memory != 0; ++i) {
    GetStatusResponse status;
    ASSERT_TRUE(stub_->GetStatus(Context().get(), GetStatusRequest(), &status).ok());
    for (const SessionStatus& s : status.sessions()) {
      // GetStatus shows only a prefix of each session id (ids are bearer secrets).
      if (!s.session_id().empty() && session.rfind(s.session_id(), 0) == 0) memory = s.memory_bytes();
    }
    if (memory != 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(memory, 0);
  // The session still works.
  int64_t handle = 0;
  EXPECT_TRUE(Upload(*stub_, session, Literal::CreateR1<float>({5}), &handle).ok());
}

TEST_F(GrpcServiceTest, EmptyOutfeedEndsAtTheCallDeadline) {
  std::string session;
  ASSERT_TRUE(OpenSession(*stub_, &session).ok());
  TransferFromOutfeedRequest request;
  request.set_session_id(session);
  *request.mutable_shape() = Literal::CreateR1<float>({1}).shape().ToProto();
  auto context = Context();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(300));
  TransferFromOutfeedResponse response;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(stub_->TransferFromOutfeed(context.get(), request, &response).error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_F(GrpcServiceTest, CancelledDownloadLeavesServerHealthy) {
  std::string session;
  ASSERT_TRUE(OpenSession(*stub_, &session).ok());
  int64_t handle = 0;
  Literal big = Literal::CreateR1<float>(std::vector<float>(2 << 20, 2.0f));  // 8 MiB
  ASSERT_TRUE(Upload(*stub_, session, big, &handle).ok());
  {
    auto context = Context();
    TransferToClientRequest request;
    request.set_session_id(session);
    request.set_handle(handle);
    auto reader = stub_->TransferToClient(context.get(), request);
    TransferChunk chunk;
    ASSERT_TRUE(reader->Read(&chunk));
    context->TryCancel();
    while (reader->Read(&chunk)) {
    }
    EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  }
  Literal back;
  ASSERT_TRUE(Download(*stub_, session, handle, &back).ok());
  EXPECT_EQ(std::memcmp(back.untyped_data(), big.untyped_data(), big.size_bytes()), 0);
}

TEST_F(GrpcServiceTest, ConcurrentClientsDoNotInterfere) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::string session;
      if (!OpenSession(*stub_, &session).ok()) return void(++failures);
      for (int i = 0; i < 5; ++i) {
        std::vector<int32_t> values(50000 + t * 1000 + i, t * 100 + i);
        Literal literal = Literal::CreateR1<int32_t>(values);
        int64_t handle = 0;
        Literal back;
        if (!Upload(*stub_, session, literal, &handle, 64 << 10).ok() ||
            !Download(*stub_, session, handle, &back).ok() || back.size_bytes() != literal.size_bytes() ||
            std::memcmp(back.untyped_data(), literal.untyped_data(), literal.size_bytes()) != 0) {
          ++failures;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(GrpcShutdownTest, DrainLetsInFlightExecutionFinish) {
  auto server = StartServer(LocalConfig());
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = MakeStub((*server)->address());
  std::string session;
  ASSERT_TRUE(OpenSession(*stub, &session).ok());
  CompileRequest compile;  // ~0.5 s in the interpreter
  compile.set_session_id(session);
  compile.set_hlo_text(CountingLoopHlo(100000));
  CompileResponse compiled;
  ASSERT_TRUE(stub->Compile(Context().get(), compile, &compiled).ok());

  grpc::Status run_status;
  ExecuteAndTransferResponse run_response;
  std::thread runner([&] {
    ExecuteAndTransferRequest request;
    request.set_session_id(session);
    request.set_execution_handle(compiled.execution_handle());
    run_status = stub->ExecuteAndTransfer(Context().get(), request, &run_response);
  });
  // Shut down only once the execution is really running.
  for (int i = 0; i < 2000; ++i) {
    GetStatusResponse status;
    ASSERT_TRUE(stub->GetStatus(Context().get(), GetStatusRequest(), &status).ok());
    if (status.executions_in_flight() > 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  (*server)->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(30));
  runner.join();
  ASSERT_TRUE(run_status.ok()) << run_status.error_message();
  auto result = Literal::FromProto(run_response.result());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->GetAsInt64(int64_t{0}), 100000);
  // Nothing new is accepted after the drain.
  GetVersionResponse version;
  EXPECT_FALSE(stub->GetVersion(Context().get(), GetVersionRequest(), &version).ok());
}

TEST(StatusMappingTest, CodesAndMessagesSurvive) {
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
  grpc::Status s = ToGrpcStatus(absl::ResourceExhaustedError("too big"));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(s.error_message(), "too big");
  EXPECT_EQ(ToGrpcStatus(absl::NotFoundError("x")).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(ToGrpcStatus(absl::FailedPreconditionError("x")).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(ToGrpcStatus(absl::DeadlineExceededError("x")).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_EQ(FromGrpcStatus(s).code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace xla::server
