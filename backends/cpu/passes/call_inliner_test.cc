#include "backends/cpu/passes/call_inliner.h"

#include "backends/cpu/passes/dce.h"
#include "backends/cpu/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::CountOpcode;
using testing::RunAndCompare;

TEST(CallInlinerTest, InlinesNestedCallsAndInputFusions) {
  CallInliner inliner;
  auto result = RunAndCompare(inliner, R"(
HloModule m
inner {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}
outer {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  c = f32[4] call(x), to_apply=inner
  ROOT s = f32[4] add(c, y)
}
fused {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  ROOT m = f32[4] multiply(p1, p0)
}
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  c = f32[4] call(p, q), to_apply=outer
  ROOT f = f32[4] fusion(c, p), kind=kLoop, calls=fused
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  const HloComputation* entry = result.module->entry_computation();
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kCall), 0);
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kFusion), 0);
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kNegate), 1);
  EXPECT_EQ(entry->root_instruction()->opcode(), HloOpcode::kMultiply);
  HloDce dce;
  ASSERT_TRUE(dce.Run(result.module.get()).ok());
  EXPECT_EQ(result.module->computation_count(), 1);
}

TEST(CallInlinerTest, CalleeReturningItsParameter) {
  CallInliner inliner;
  auto result = RunAndCompare(inliner, R"(
HloModule m
id {
  a = s32[3] parameter(0)
  b = s32[3] parameter(1)
  ROOT r = s32[3] parameter(2)
}
ENTRY e {
  p = s32[3] parameter(0)
  n = s32[3] negate(p)
  c = s32[3] call(p, p, n), to_apply=id
  ROOT r = s32[3] add(c, p)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(result.module->entry_computation()->root_instruction()->operand(0)->opcode(), HloOpcode::kNegate);
}

TEST(CallInlinerTest, LeavesWhileAndReduceComputationsAlone) {
  CallInliner inliner;
  auto result = RunAndCompare(inliner, R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_FALSE(result.changed);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
