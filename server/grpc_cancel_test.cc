// Cancelling executions: a run whose call is cancelled or whose deadline passes stops at the
// next operation boundary, both in the service core and through gRPC.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "server/grpc_test_util.h"

namespace xla {
namespace server {
namespace {

using testing::Context;
using testing::LocalConfig;
using testing::MakeStub;
using testing::OpenSession;

// Counts to 2^31 - 1 one iteration at a time: hours on the interpreter.
const std::string kEndlessLoop = testing::CountingLoopHlo(2147483647);

TEST(CancelTest, CoreExecutionStopsWhenAskedTo) {
  auto core = ServiceCore::Create(ServiceOptions());
  ASSERT_TRUE(core.ok());
  OpenSessionRequest open;
  open.set_protocol_version(1);
  auto session = (*core)->OpenSession(open);
  ASSERT_TRUE(session.ok());
  CompileRequest compile;
  compile.set_session_id(session->session_id());
  compile.set_hlo_text(kEndlessLoop);
  auto compiled = (*core)->Compile(compile);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  ExecuteRequest execute;
  execute.set_session_id(session->session_id());
  execute.set_execution_handle(compiled->execution_handle());
  const auto stop_at = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  const auto start = std::chrono::steady_clock::now();
  auto result = (*core)->Execute(execute, [stop_at] { return std::chrono::steady_clock::now() >= stop_at; });
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled);
  EXPECT_LT(elapsed, std::chrono::seconds(5));
  GetStatusRequest status_request;
  EXPECT_EQ((*core)->GetStatus(status_request)->executions_in_flight(), 0);
}

TEST(CancelTest, DeadlineStopsARunawayLoopOnTheServer) {
  auto server = StartServer(LocalConfig());
  ASSERT_TRUE(server.ok()) << server.status().message();
  auto stub = MakeStub((*server)->address());
  std::string session;
  ASSERT_TRUE(OpenSession(*stub, &session).ok());
  CompileRequest compile;
  compile.set_session_id(session);
  compile.set_hlo_text(kEndlessLoop);
  CompileResponse compiled;
  ASSERT_TRUE(stub->Compile(Context().get(), compile, &compiled).ok());

  ExecuteRequest execute;
  execute.set_session_id(session);
  execute.set_execution_handle(compiled.execution_handle());
  ExecuteResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  grpc::Status status = stub->Execute(&context, execute, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));

  // The server stops the run too: nothing stays in flight.
  int64_t in_flight = -1;
  for (int attempt = 0; attempt < 100 && in_flight != 0; ++attempt) {
    GetStatusResponse server_status;
    ASSERT_TRUE(stub->GetStatus(Context().get(), GetStatusRequest(), &server_status).ok());
    in_flight = server_status.executions_in_flight();
    if (in_flight != 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(in_flight, 0);
  (*server)->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
}

}  // namespace
}  // namespace server
}  // namespace xla
