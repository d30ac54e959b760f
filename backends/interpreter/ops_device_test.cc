// Device ops on the interpreter's single device through the Backend interface: ids,
// collectives (one participant), async forms, send/recv errors, custom-call allowlist.
// Infeed/outfeed are in ops_device_feed_test.cc.
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using ::testing::HasSubstr;
using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;

constexpr char kAdd[] = R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

::testing::AssertionResult FailsWith(const absl::StatusOr<Literal>& result, absl::StatusCode code,
                                     const std::string& text) {
  if (result.ok()) return ::testing::AssertionFailure() << "succeeded: " << result->ToString();
  if (result.status().code() != code || std::string(result.status().message()).find(text) == std::string::npos) {
    return ::testing::AssertionFailure() << "wrong error: " << result.status();
  }
  return ::testing::AssertionSuccess();
}

TEST(InterpreterDeviceTest, ReplicaAndPartitionIdsAreZero) {
  const char* hlo = R"(HloModule m
ENTRY main {
  r = u32[] replica-id()
  p = u32[] partition-id()
  ROOT t = (u32[], u32[]) tuple(r, p)
})";
  EXPECT_TRUE(LiteralEqual(L("(u32[], u32[]) (0, 0)"), RunHlo(hlo, {})));
}

TEST(InterpreterDeviceTest, AllReduceOfOneParticipantIsTheOperand) {
  // NaN, -0 and infinities pass through untouched: nothing is added.
  const Literal x = L("f32[2,3] { { nan, -0, inf }, { -inf, 1e-45, 3.5 } }");
  for (const std::string groups : {"", ", replica_groups={}", ", replica_groups={{0}}",
                                   ", replica_groups=[1,1]<=[1]"}) {
    const std::string hlo = std::string(kAdd) + R"(ENTRY main {
  p = f32[2,3] parameter(0)
  ROOT r = f32[2,3] all-reduce(p), to_apply=add)" + groups + "\n}";
    EXPECT_TRUE(LiteralEqual(x, RunHlo(hlo, {x.Clone()}))) << groups;
  }
  // Variadic: a tuple of the operands; scalars and other layouts too.
  const std::string variadic = std::string(kAdd) + R"(ENTRY main {
  p = f32[2]{0} parameter(0)
  q = f32[] parameter(1)
  ROOT r = (f32[2], f32[]) all-reduce(p, q), to_apply=add, replica_groups={{0}}
})";
  EXPECT_TRUE(LiteralEqual(L("(f32[2], f32[]) ({1, 2}, 7)"),
                           RunHlo(variadic, {L("f32[2] {1, 2}"), L("f32[] 7")})));
}

TEST(InterpreterDeviceTest, CollectivesNamingOtherDevicesNeedMoreDevices) {
  const std::string all_reduce = std::string(kAdd) + R"(ENTRY main {
  p = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(p), to_apply=add, replica_groups={{0,1}}
})";
  EXPECT_TRUE(FailsWith(RunHlo(all_reduce, {L("f32[4] {1, 2, 3, 4}")}),
                        absl::StatusCode::kInvalidArgument, "needs 2 devices"));
  const std::string alone_but_two = std::string(kAdd) + R"(ENTRY main {
  p = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(p), to_apply=add, replica_groups={{0},{1}}
})";
  EXPECT_TRUE(FailsWith(RunHlo(alone_but_two, {L("f32[4] {1, 2, 3, 4}")}),
                        absl::StatusCode::kInvalidArgument, "needs 2 devices"));
  const char* iota = R"(HloModule m
ENTRY main {
  p = s32[8] parameter(0)
  ROOT r = s32[8] collective-broadcast(p), replica_groups=[2,4]<=[8]
})";
  EXPECT_TRUE(FailsWith(RunHlo(iota, {L("s32[8] {1, 2, 3, 4, 5, 6, 7, 8}")}),
                        absl::StatusCode::kInvalidArgument, "needs 8 devices"));
}

TEST(InterpreterDeviceTest, AllGatherAndReduceScatter) {
  const char* gather = R"(HloModule m
ENTRY main {
  p = s8[2,3] parameter(0)
  ROOT r = s8[2,3] all-gather(p), dimensions={1}, replica_groups={{0}}
})";
  EXPECT_TRUE(LiteralEqual(L("s8[2,3] { { -128, 0, 127 }, { 1, 2, 3 } }"),
                           RunHlo(gather, {L("s8[2,3] { { -128, 0, 127 }, { 1, 2, 3 } }")})));
  // A result larger than the operand means more participants.
  const char* wider = R"(HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  ROOT r = f32[2,12] all-gather(p), dimensions={1}
})";
  EXPECT_TRUE(FailsWith(RunHlo(wider, {L("f32[2,3] { { 1, 2, 3 }, { 4, 5, 6 } }")}),
                        absl::StatusCode::kInvalidArgument, "needs 4 devices"));
  const std::string scatter = std::string(kAdd) + R"(ENTRY main {
  p = f32[4] parameter(0)
  ROOT r = f32[4] reduce-scatter(p), dimensions={0}, to_apply=add, replica_groups={{0}}
})";
  EXPECT_TRUE(LiteralEqual(L("f32[4] {1, -2, 3, -4}"), RunHlo(scatter, {L("f32[4] {1, -2, 3, -4}")})));
  const char* empty = R"(HloModule m
ENTRY main {
  p = u64[0,2] parameter(0)
  ROOT r = u64[0,2] all-gather(p), dimensions={0}, replica_groups={{0}}
})";
  EXPECT_TRUE(LiteralEqual(L("u64[0,2] {}"), RunHlo(empty, {L("u64[0,2] {}")})));
}

TEST(InterpreterDeviceTest, AllToAllAndCollectiveBroadcast) {
  const char* array_form = R"(HloModule m
ENTRY main {
  p = s32[2,2] parameter(0)
  ROOT r = s32[2,2] all-to-all(p), dimensions={1}, replica_groups={{0}}
})";
  EXPECT_TRUE(LiteralEqual(L("s32[2,2] { { -2147483648, 2147483647 }, { 0, -1 } }"),
                           RunHlo(array_form, {L("s32[2,2] { { -2147483648, 2147483647 }, { 0, -1 } }")})));
  const char* tuple_form = R"(HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  q = pred[2] parameter(1)
  ROOT r = (f32[3], pred[2]) all-to-all(p, q)
})";
  EXPECT_TRUE(LiteralEqual(L("(f32[3], pred[2]) ({1, 2, 3}, {true, false})"),
                           RunHlo(tuple_form, {L("f32[3] {1, 2, 3}"), L("pred[2] {true, false}")})));
  const char* broadcast = R"(HloModule m
ENTRY main {
  p = c64[2] parameter(0)
  ROOT r = c64[2] collective-broadcast(p), replica_groups={{0}}
})";
  EXPECT_TRUE(LiteralEqual(L("c64[2] {(1, -2), (nan, 0)}"), RunHlo(broadcast, {L("c64[2] {(1, -2), (nan, 0)}")})));
}

TEST(InterpreterDeviceTest, CollectivePermute) {
  const char* to_self = R"(HloModule m
ENTRY main {
  p = bf16[3] parameter(0)
  ROOT r = bf16[3] collective-permute(p), source_target_pairs={{0,0}}
})";
  EXPECT_TRUE(LiteralEqual(L("bf16[3] {1.5, -inf, -0}"), RunHlo(to_self, {L("bf16[3] {1.5, -inf, -0}")})));
  // Nobody sends to device 0: it receives zeros.
  const char* nobody = R"(HloModule m
ENTRY main {
  p = s16[2,2]{0,1} parameter(0)
  ROOT r = s16[2,2]{0,1} collective-permute(p), source_target_pairs={}
})";
  EXPECT_TRUE(LiteralEqual(L("s16[2,2] { { 0, 0 }, { 0, 0 } }"),
                           RunHlo(nobody, {L("s16[2,2] { { 1, 2 }, { 3, 4 } }")})));
  const char* ring = R"(HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT r = f32[2] collective-permute(p), source_target_pairs={{0,1},{1,0}}
})";
  EXPECT_TRUE(FailsWith(RunHlo(ring, {L("f32[2] {1, 2}")}), absl::StatusCode::kInvalidArgument,
                        "needs 2 devices"));
}

TEST(InterpreterDeviceTest, AsyncStartDoneForms) {
  const std::string all_reduce = std::string(kAdd) + R"(ENTRY main {
  p = f32[3] parameter(0)
  s = f32[3] all-reduce-start(p), to_apply=add, replica_groups={{0}}
  ROOT d = f32[3] all-reduce-done(s)
})";
  EXPECT_TRUE(LiteralEqual(L("f32[3] {1, 2, 3}"), RunHlo(all_reduce, {L("f32[3] {1, 2, 3}")})));
  const char* gather = R"(HloModule m
ENTRY main {
  p = u16[2] parameter(0)
  s = (u16[2], u16[2]) all-gather-start(p), dimensions={0}, replica_groups={{0}}
  ROOT d = u16[2] all-gather-done(s)
})";
  EXPECT_TRUE(LiteralEqual(L("u16[2] {65535, 0}"), RunHlo(gather, {L("u16[2] {65535, 0}")})));
  const char* gather_wide = R"(HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  s = f32[2,12] all-gather-start(p), dimensions={1}, replica_groups={{0,2,4,6}}
  ROOT d = f32[2,12] all-gather-done(s)
})";
  EXPECT_TRUE(FailsWith(RunHlo(gather_wide, {L("f32[2,3] { { 1, 2, 3 }, { 4, 5, 6 } }")}),
                        absl::StatusCode::kInvalidArgument, "needs 7 devices"));
  const char* permute = R"(HloModule m
ENTRY main {
  p = f64[2] parameter(0)
  s = (f64[2], f64[2], u32[], u32[]) collective-permute-start(p), source_target_pairs={{0,0}}
  ROOT d = f64[2] collective-permute-done(s)
})";
  EXPECT_TRUE(LiteralEqual(L("f64[2] {1e-310, -2}"), RunHlo(permute, {L("f64[2] {1e-310, -2}")})));
  const char* permute_none = R"(HloModule m
ENTRY main {
  p = f64[2] parameter(0)
  s = (f64[2], f64[2]) collective-permute-start(p), source_target_pairs={}
  ROOT d = f64[2] collective-permute-done(s)
})";
  EXPECT_TRUE(LiteralEqual(L("f64[2] {0, 0}"), RunHlo(permute_none, {L("f64[2] {1, -2}")})));
}

TEST(InterpreterDeviceTest, RaggedAllToAllWithOnePeer) {
  const char* hlo = R"(HloModule m
ENTRY main {
  input = f32[4,2] parameter(0)
  output = f32[5,2] parameter(1)
  in_off = s32[1] parameter(2)
  send = s32[1] parameter(3)
  out_off = s32[1] parameter(4)
  recv = s32[1] parameter(5)
  ROOT r = f32[5,2] ragged-all-to-all(input, output, in_off, send, out_off, recv), replica_groups={{0}}
})";
  const Literal input = L("f32[4,2] { { 1, 2 }, { 3, 4 }, { 5, 6 }, { 7, nan } }");
  const Literal output = L("f32[5,2] { { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 } }");
  EXPECT_TRUE(LiteralEqual(L("f32[5,2] { { -1, -1 }, { -1, -1 }, { 3, 4 }, { 5, 6 }, { 7, nan } }"),
                           RunHlo(hlo, {input.Clone(), output.Clone(), L("s32[1] {1}"), L("s32[1] {3}"),
                                        L("s32[1] {2}"), L("s32[1] {3}")})));
  EXPECT_TRUE(FailsWith(RunHlo(hlo, {input.Clone(), output.Clone(), L("s32[1] {2}"), L("s32[1] {3}"),
                                     L("s32[1] {0}"), L("s32[1] {3}")}),
                        absl::StatusCode::kInvalidArgument, "out of bounds"));
}

TEST(InterpreterDeviceTest, SendAndRecvAreUnimplementedNamingTheChannel) {
  const char* hlo = R"(HloModule m
ENTRY main {
  p = f32[] parameter(0)
  t = token[] after-all()
  s = (f32[], u32[], token[]) send(p, t), channel_id=16
  ROOT d = token[] send-done(s), channel_id=16
})";
  EXPECT_TRUE(FailsWith(RunHlo(hlo, {L("f32[] 1")}), absl::StatusCode::kUnimplemented, "channel 16"));
  const char* recv = R"(HloModule m
ENTRY main {
  t = token[] after-all()
  r = (f32[], u32[], token[]) recv(t), channel_id=15, is_host_transfer=true
  d = (f32[], token[]) recv-done(r), channel_id=15, is_host_transfer=true
  ROOT v = f32[] get-tuple-element(d), index=0
})";
  EXPECT_TRUE(FailsWith(RunHlo(recv, {}), absl::StatusCode::kUnimplemented, "channel 15"));
}

TEST(InterpreterDeviceTest, CustomCallAllowlist) {
  const char* sharding = R"(HloModule m
ENTRY main {
  p = f32[2,2] parameter(0)
  ROOT s = f32[2,2] custom-call(p), custom_call_target="Sharding", sharding={replicated}
})";
  EXPECT_TRUE(LiteralEqual(L("f32[2,2] { { 1, 2 }, { 3, 4 } }"),
                           RunHlo(sharding, {L("f32[2,2] { { 1, 2 }, { 3, 4 } }")})));
  const char* allocate = R"(HloModule m
ENTRY main {
  ROOT s = s32[3] custom-call(), custom_call_target="AllocateBuffer"
})";
  EXPECT_TRUE(LiteralEqual(L("s32[3] {0, 0, 0}"), RunHlo(allocate, {})));
  const char* unknown = R"(HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT s = f32[2] custom-call(p), custom_call_target="foo"
})";
  EXPECT_TRUE(FailsWith(RunHlo(unknown, {L("f32[2] {1, 2}")}), absl::StatusCode::kUnimplemented,
                        "custom-call target 'foo' is not available in the interpreter"));
  const char* shard_shape = R"(HloModule m
ENTRY main {
  p = f32[8] parameter(0)
  ROOT s = f32[2] custom-call(p), custom_call_target="SPMDFullToShardShape"
})";
  EXPECT_TRUE(FailsWith(RunHlo(shard_shape, {L("f32[8] {1, 2, 3, 4, 5, 6, 7, 8}")}),
                        absl::StatusCode::kInvalidArgument, "needs 4 devices"));
}

}  // namespace
}  // namespace xla
