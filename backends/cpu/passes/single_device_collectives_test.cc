#include "backends/cpu/passes/single_device_collectives.h"

#include <string>
#include <utility>

#include "backends/cpu/passes/pass_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using ::testing::HasSubstr;
using testing::CountOpcode;
using testing::ParseOrNull;
using testing::RunAndCompare;

// Every collective and custom-call form the pass lowers, in one module: the interpreter gives
// the same values before and after, and no collective or custom-call is left.
TEST(SingleDeviceCollectivesTest, LowersToPlainHloWithTheSameValues) {
  SingleDeviceCollectives pass;
  auto result = RunAndCompare(pass, R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[2,2] parameter(1)
  ar = (f32[4], f32[2,2]) all-reduce(p, q), to_apply=add, replica_groups={{0}}
  ars = f32[4] all-reduce-start(p), to_apply=add
  ard = f32[4] all-reduce-done(ars)
  ags = (f32[4], f32[4]) all-gather-start(p), dimensions={0}, replica_groups={{0}}
  agd = f32[4] all-gather-done(ags)
  self = f32[4] collective-permute(p), source_target_pairs={{0,0}}
  none = f32[2,2] collective-permute(q), source_target_pairs={}
  cps = (f32[4], f32[4], u32[], u32[]) collective-permute-start(p), source_target_pairs={}
  cpd = f32[4] collective-permute-done(cps)
  sh = f32[2,2] custom-call(q), custom_call_target="Sharding"
  zeros = s32[3] custom-call(), custom_call_target="AllocateBuffer"
  ROOT t = ((f32[4], f32[2,2]), f32[4], f32[4], f32[4], f32[2,2], f32[4], f32[2,2], s32[3]) tuple(ar, ard, agd, self, none, cpd, sh, zeros)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  const HloComputation& entry = *result.module->entry_computation();
  for (HloOpcode op : {HloOpcode::kAllReduce, HloOpcode::kAllReduceStart, HloOpcode::kAllReduceDone,
                       HloOpcode::kAllGatherStart, HloOpcode::kAllGatherDone, HloOpcode::kCollectivePermute,
                       HloOpcode::kCollectivePermuteStart, HloOpcode::kCollectivePermuteDone, HloOpcode::kCustomCall}) {
    EXPECT_EQ(CountOpcode(entry, op), 0) << HloOpcodeString(op);
  }
}

// async-start/update/done around any computation and
// copy-start/done run at once: the same values, and no asynchronous op left.
TEST(SingleDeviceCollectivesTest, AsyncAndCopyPairsBecomeSynchronous) {
  SingleDeviceCollectives pass;
  auto result = RunAndCompare(pass, R"(
HloModule m
offset {
  a = s32[3] parameter(0)
  ROOT s = s32[3] add(a, a)
}
ENTRY e {
  p = s32[3] parameter(0)
  s = ((s32[3]), s32[3], u32[]) async-start(p), calls=offset
  d = s32[3] async-done(s), calls=offset
  cs = (s32[3], s32[3], u32[]) copy-start(d)
  ROOT cd = s32[3] copy-done(cs)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  for (const auto& computation : result.module->computations()) {
    for (HloOpcode op : {HloOpcode::kAsyncStart, HloOpcode::kAsyncUpdate, HloOpcode::kAsyncDone,
                         HloOpcode::kCopyStart, HloOpcode::kCopyDone}) {
      EXPECT_EQ(CountOpcode(*computation, op), 0) << HloOpcodeString(op) << " in " << computation->name();
    }
  }
}

TEST(SingleDeviceCollectivesTest, ModulesForMoreDevicesAndUnknownTargetsAreErrors) {
  struct Case {
    std::string op;
    absl::StatusCode code;
    std::string text;
  };
  const Case cases[] = {
      {"f32[4] all-reduce(p), to_apply=add, replica_groups={{0},{1}}", absl::StatusCode::kInvalidArgument,
       "needs 2 devices"},
      {"f32[4] collective-permute(p), source_target_pairs={{0,2}}", absl::StatusCode::kInvalidArgument,
       "needs 3 devices"},
      {"f32[8] all-gather(p), dimensions={0}", absl::StatusCode::kInvalidArgument, "needs 2 devices"},
      {"f32[4] custom-call(p), custom_call_target=\"foo\"", absl::StatusCode::kUnimplemented, "'foo'"},
  };
  for (const Case& c : cases) {
    auto module = ParseOrNull("HloModule m\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
                              "  ROOT s = f32[] add(x, y)\n}\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = " +
                              c.op + "\n}\n");
    ASSERT_NE(module, nullptr) << c.op;
    SingleDeviceCollectives pass;
    auto changed = pass.Run(module.get());
    ASSERT_FALSE(changed.ok()) << c.op;
    EXPECT_EQ(changed.status().code(), c.code) << changed.status();
    EXPECT_THAT(std::string(changed.status().message()), HasSubstr(c.text)) << c.op;
  }
}

// The verifier rejects these before a backend runs the pass; the pass still refuses them (as
// INVALID_ARGUMENT naming the instruction) rather than read an element that is not there.
TEST(SingleDeviceCollectivesTest, MalformedAsyncAndCopyShapesAreErrors) {
  const std::string wrapped = "HloModule m\nneg {\n  a = s32[3] parameter(0)\n  ROOT n = s32[3] negate(a)\n}\n";
  const std::pair<std::string, std::string> cases[] = {
      {"ENTRY e {\n  p = s32[3] parameter(0)\n  s = ((s32[3]), f32[3], u32[]) async-start(p), calls=neg\n"
       "  ROOT d = f32[3] async-done(s), calls=neg\n}\n",
       "s: the result ((s32[3]), f32[3], u32[]) is not ((operands...)"},
      {"ENTRY e {\n  p = s32[3] parameter(0)\n  cs = (s32[3], s32[4], u32[]) copy-start(p)\n"
       "  ROOT cd = s32[3] copy-done(cs)\n}\n",
       "cs: the result (s32[3], s32[4], u32[]) is not (destination, source, contexts...)"},
      {"ENTRY e {\n  p = s32[3] parameter(0)\n  cs = (s32[3], s32[3], u32[]) copy-start(p)\n"
       "  ROOT cd = s32[4] copy-done(cs)\n}\n",
       "cd: operand (s32[3], s32[3], u32[]) is not a start value of s32[4]"},
  };
  for (const auto& [entry, message] : cases) {
    auto module = ParseAndReturnUnverifiedModule(wrapped + entry);
    ASSERT_TRUE(module.ok()) << module.status();
    ASSERT_FALSE(VerifyHloModule(**module).ok()) << entry;
    SingleDeviceCollectives pass;
    auto changed = pass.Run(module->get());
    ASSERT_FALSE(changed.ok()) << entry;
    EXPECT_EQ(changed.status().code(), absl::StatusCode::kInvalidArgument) << changed.status();
    EXPECT_THAT(std::string(changed.status().message()), HasSubstr(message));
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
