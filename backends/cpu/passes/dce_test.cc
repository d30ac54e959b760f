#include "backends/cpu/passes/dce.h"

#include "backends/cpu/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::CountOpcode;
using testing::RunAndCompare;

TEST(DceTest, RemovesDeadChainsKeepsLiveOnes) {
  HloDce dce;
  auto result = RunAndCompare(dce, R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  dead1 = f32[4] exponential(p)
  dead2 = f32[4] add(dead1, dead1)
  live = f32[4] negate(p)
  ROOT r = f32[4] abs(live)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  const HloComputation* entry = result.module->entry_computation();
  EXPECT_EQ(entry->instruction_count(), 3);
  EXPECT_EQ(entry->GetInstructionWithName("dead1"), nullptr);
  EXPECT_EQ(entry->GetInstructionWithName("dead2"), nullptr);
}

TEST(DceTest, KeepsParametersSideEffectsAndControlEdges) {
  HloDce dce;
  auto result = RunAndCompare(dce, R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  unused = f32[4] parameter(1)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  random = f32[4] rng(lo, hi), distribution=rng_uniform
  tok = token[] after-all()
  out = token[] outfeed(p, tok), outfeed_shape=f32[4]
  a = f32[4] negate(p)
  b = f32[4] abs(p), control-predecessors={a}
  ROOT r = f32[4] copy(p)
}
)");
  ASSERT_NE(result.module, nullptr);
  const HloComputation* entry = result.module->entry_computation();
  EXPECT_NE(entry->GetInstructionWithName("unused"), nullptr);
  EXPECT_NE(entry->GetInstructionWithName("random"), nullptr);
  EXPECT_NE(entry->GetInstructionWithName("out"), nullptr);
  EXPECT_NE(entry->GetInstructionWithName("tok"), nullptr);
  EXPECT_NE(entry->GetInstructionWithName("a"), nullptr);
  EXPECT_NE(entry->GetInstructionWithName("b"), nullptr);
  EXPECT_FALSE(result.changed);
}

TEST(DceTest, RemovesUnreachableComputations) {
  HloDce dce;
  auto result = RunAndCompare(dce, R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mul {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] multiply(a, b)
}
orphan {
  ROOT c = f32[] constant(1)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  sum = f32[] reduce(p, z), dimensions={0}, to_apply=add
  prod = f32[] reduce(p, z), dimensions={0}, to_apply=mul
  ROOT r = f32[] negate(sum)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(result.module->computation_count(), 2);
  EXPECT_NE(result.module->GetComputationWithName("add"), nullptr);
  EXPECT_EQ(result.module->GetComputationWithName("mul"), nullptr);
  EXPECT_EQ(result.module->GetComputationWithName("orphan"), nullptr);
  EXPECT_EQ(CountOpcode(*result.module->entry_computation(), HloOpcode::kReduce), 1);
}

TEST(DceTest, CleansInsideWhileBodies) {
  HloDce dce;
  auto result = RunAndCompare(dce, R"(
HloModule m
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  dead = f32[2] exponential(v)
  ROOT t = (s32[], f32[2]) tuple(next, v)
}
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  p = f32[2] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[2]) tuple(z, p)
  ROOT w = (s32[], f32[2]) while(init), condition=cond, body=body
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(result.module->GetComputationWithName("body")->GetInstructionWithName("dead"), nullptr);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
