// Asynchronous execution (ExecuteRequest.run_async): results chain through pending handles,
// per-device FIFO order, error propagation, cancellation by session close and shutdown.

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "server/service_core.h"
#include "server/service_core_test_util.h"

namespace xla {
namespace server {
namespace {

class AsyncTest : public CoreTest {
 protected:
  absl::StatusOr<int64_t> ExecuteAsync(int64_t executable, std::vector<int64_t> arguments,
                                       const std::string& session = "") {
    ExecuteRequest request;
    request.set_session_id(session.empty() ? session_ : session);
    request.set_execution_handle(executable);
    for (int64_t a : arguments) request.add_arguments(a);
    request.set_run_async(true);
    auto response = core_->Execute(request);
    if (!response.ok()) return response.status();
    EXPECT_FALSE(response->has_profile());
    return response->result_handle();
  }

  absl::StatusOr<AwaitResponse> Await(std::vector<int64_t> handles) {
    AwaitRequest request;
    request.set_session_id(session_);
    for (int64_t h : handles) request.add_handles(h);
    return core_->Await(request);
  }
};

constexpr const char* kLoopModule = R"(HloModule spin
cond {
  i = s64[] parameter(0)
  n = s64[] constant(4000000000)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  i = s64[] parameter(0)
  one = s64[] constant(1)
  ROOT next = s64[] add(i, one)
}
ENTRY main {
  zero = s64[] constant(0)
  ROOT w = s64[] while(zero), condition=cond, body=body
})";

TEST_F(AsyncTest, PendingResultsFeedLaterExecutions) {
  auto add = Compile(kAddModule);
  ASSERT_TRUE(add.ok()) << add.status();
  auto x = Upload(L("f32[2] {1, 2}"));
  auto y = Upload(L("f32[2] {10, 20}"));
  ASSERT_TRUE(x.ok() && y.ok());
  // Each execution takes the previous one's handle before it is (necessarily) ready.
  int64_t acc = *x;
  std::vector<int64_t> handles;
  for (int i = 0; i < 8; ++i) {
    auto next = ExecuteAsync(add->execution_handle(), {acc, *y});
    ASSERT_TRUE(next.ok()) << next.status();
    acc = *next;
    handles.push_back(acc);
  }
  // A synchronous execution may take a pending handle too.
  auto sync = Execute(add->execution_handle(), {acc, *x});
  ASSERT_TRUE(sync.ok()) << sync.status();
  auto awaited = Await(handles);
  ASSERT_TRUE(awaited.ok()) << awaited.status();
  ASSERT_EQ(awaited->profiles_size(), 8);
  for (const ExecutionProfile& profile : awaited->profiles()) EXPECT_GT(profile.compute_time_ns(), 0);
  auto last = Download(acc);
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(last->ToString(), L("f32[2] {81, 162}").ToString());
  auto total = Download(sync->result_handle());
  ASSERT_TRUE(total.ok());
  EXPECT_EQ(total->ToString(), L("f32[2] {82, 164}").ToString());
  // GetShape of a (now or soon) ready handle, and Await of never-pending data.
  GetShapeRequest shape;
  shape.set_session_id(session_);
  shape.set_handle(handles[0]);
  auto got = core_->GetShape(shape);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(Shape::FromProto(got->shape())->ToString(), "f32[2]");
  auto plain = Await({*x});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->profiles(0).compute_time_ns(), 0);
}

TEST_F(AsyncTest, OneDeviceRunsInSubmissionOrder) {
  // Each execution outfeeds its argument: the outfeed order is the execution order.
  auto program = Compile(R"(HloModule feed
ENTRY main {
  v = s32[] parameter(0)
  t = token[] after-all()
  o = token[] outfeed(v, t), outfeed_shape=s32[]
  ROOT r = s32[] add(v, v)
})");
  ASSERT_TRUE(program.ok()) << program.status();
  std::vector<int64_t> results;
  for (int i = 0; i < 24; ++i) {
    auto value = Upload(L("s32[] " + std::to_string(i)));
    ASSERT_TRUE(value.ok());
    auto handle = ExecuteAsync(program->execution_handle(), {*value});
    ASSERT_TRUE(handle.ok()) << handle.status();
    results.push_back(*handle);
  }
  for (int i = 0; i < 24; ++i) {
    TransferFromOutfeedRequest request;
    request.set_session_id(session_);
    *request.mutable_shape() = L("s32[] 0").shape().ToProto();
    request.set_timeout_ms(10000);
    auto value = core_->TransferFromOutfeed(request);
    ASSERT_TRUE(value.ok()) << value.status();
    EXPECT_EQ(Literal::FromProto(value->literal())->ToString(), L("s32[] " + std::to_string(i)).ToString());
  }
  ASSERT_TRUE(Await(results).ok());
}

TEST_F(AsyncTest, FailedExecutionErrorReachesEveryUse) {
  auto program = Compile(R"(HloModule in
ENTRY main {
  t = token[] after-all()
  i = (f32[2], token[]) infeed(t)
  ROOT d = f32[2] get-tuple-element(i), index=0
})");
  ASSERT_TRUE(program.ok()) << program.status();
  auto add = Compile(kAddModule);
  ASSERT_TRUE(add.ok());
  TransferToInfeedRequest feed;  // the wrong shape: the execution fails when it reads it
  feed.set_session_id(session_);
  *feed.mutable_literal() = L("s32[] 7").ToProto();
  ASSERT_TRUE(core_->TransferToInfeed(feed).ok());
  auto failed = ExecuteAsync(program->execution_handle(), {});
  ASSERT_TRUE(failed.ok()) << failed.status();  // checks passed; the run fails later
  auto dependent = ExecuteAsync(add->execution_handle(), {*failed, *failed});
  ASSERT_TRUE(dependent.ok()) << dependent.status();

  auto awaited = Await({*failed});
  ASSERT_FALSE(awaited.ok());
  EXPECT_EQ(awaited.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(awaited.status().message().find("asynchronous execution failed"), std::string::npos)
      << awaited.status();
  EXPECT_NE(awaited.status().message().find("infeed"), std::string::npos) << awaited.status();
  auto chained = Await({*dependent});
  ASSERT_FALSE(chained.ok());
  EXPECT_NE(chained.status().message().find("argument 0"), std::string::npos) << chained.status();
  EXPECT_FALSE(Download(*failed).ok());
  EXPECT_FALSE(Execute(add->execution_handle(), {*failed, *failed}).ok());
  // The failed handles still exist until unregistered, and the session is healthy.
  UnregisterRequest release;
  release.set_session_id(session_);
  release.add_handles(*failed);
  release.add_handles(*dependent);
  EXPECT_TRUE(core_->Unregister(release).ok());
  EXPECT_EQ(SessionMemory(), 0);
}

TEST_F(AsyncTest, ChecksFailAtSubmission) {
  auto add = Compile(kAddModule);
  ASSERT_TRUE(add.ok());
  auto x = Upload(L("f32[3] {1, 2, 3}"));
  ASSERT_TRUE(x.ok());
  auto wrong = ExecuteAsync(add->execution_handle(), {*x, *x});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  auto unknown = ExecuteAsync(add->execution_handle(), {12345678, *x});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(AsyncTest, ClosingTheSessionStopsQueuedWork) {
  auto spin = Compile(kLoopModule);
  ASSERT_TRUE(spin.ok()) << spin.status();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(ExecuteAsync(spin->execution_handle(), {}).ok());
  EXPECT_GE(Status().executions_in_flight(), 3);
  const auto start = std::chrono::steady_clock::now();
  CloseSessionRequest close;
  close.set_session_id(session_);
  ASSERT_TRUE(core_->CloseSession(close).ok());
  // Every queued or running execution notices and stops at the next op boundary.
  while (Status().executions_in_flight() > 0) {
    ASSERT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

TEST_F(AsyncTest, ShutdownCancelsQueuedWork) {
  auto spin = Compile(kLoopModule);
  ASSERT_TRUE(spin.ok()) << spin.status();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(ExecuteAsync(spin->execution_handle(), {}).ok());
  const auto start = std::chrono::steady_clock::now();
  core_.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

}  // namespace
}  // namespace server
}  // namespace xla
