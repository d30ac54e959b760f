#include "backends/cpu/passes/cse.h"

#include "backends/cpu/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::CountOpcode;
using testing::RunAndCompare;

TEST(CseTest, MergesIdenticalInstructionsAndConstants) {
  HloCse cse;
  auto result = RunAndCompare(cse, R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  c1 = f32[] constant(2)
  c2 = f32[] constant(2)
  b1 = f32[4] broadcast(c1), dimensions={}
  b2 = f32[4] broadcast(c2), dimensions={}
  m1 = f32[4] multiply(p, b1)
  m2 = f32[4] multiply(p, b2)
  ROOT r = f32[4] add(m1, m2)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  const HloComputation* entry = result.module->entry_computation();
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kConstant), 1);
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kBroadcast), 1);
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kMultiply), 1);
  const HloInstruction* root = entry->root_instruction();
  EXPECT_EQ(root->operand(0), root->operand(1));
}

TEST(CseTest, DoesNotMergeDifferentAttributesShapesOrOperandOrder) {
  HloCse cse;
  auto result = RunAndCompare(cse, R"(
HloModule m
ENTRY e {
  p = f32[2,3] parameter(0)
  q = f32[2,3] parameter(1)
  t1 = f32[3,2] transpose(p), dimensions={1,0}
  r1 = f32[3,2] reshape(p)
  s1 = f32[2,1] slice(p), slice={[0:2], [0:1]}
  s2 = f32[2,1] slice(p), slice={[0:2], [1:2]}
  d1 = f32[2,3] subtract(p, q)
  d2 = f32[2,3] subtract(q, p)
  lt = pred[2,3] compare(p, q), direction=LT
  gt = pred[2,3] compare(p, q), direction=GT
  c1 = f32[] constant(1)
  c2 = f32[] constant(-1)
  ROOT r = (f32[3,2], f32[3,2], f32[2,1], f32[2,1], f32[2,3], f32[2,3], pred[2,3], pred[2,3], f32[], f32[]) tuple(t1, r1, s1, s2, d1, d2, lt, gt, c1, c2)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_FALSE(result.changed);
}

TEST(CseTest, MetadataDoesNotPreventMerging) {
  HloCse cse;
  auto result = RunAndCompare(cse, R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] exponential(p), metadata={op_name="first" source_line=3}
  b = f32[4] exponential(p), metadata={op_name="second" source_line=9}
  ROOT r = f32[4] add(a, b)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(CountOpcode(*result.module->entry_computation(), HloOpcode::kExponential), 1);
}

TEST(CseTest, NeverMergesRngOrSideEffects) {
  HloCse cse;
  auto result = RunAndCompare(cse, R"(
HloModule m
ENTRY e {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r1 = f32[4] rng(lo, hi), distribution=rng_uniform
  r2 = f32[4] rng(lo, hi), distribution=rng_uniform
  ROOT s = f32[4] add(r1, r2)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_FALSE(result.changed);
  EXPECT_EQ(CountOpcode(*result.module->entry_computation(), HloOpcode::kRng), 2);
}

TEST(CseTest, MergesReducesWithStructurallyIdenticalComputations) {
  HloCse cse;
  auto result = RunAndCompare(cse, R"(
HloModule m
add1 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
add2 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT t = f32[] add(x, y)
}
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT t = f32[] maximum(x, y)
}
ENTRY e {
  p = f32[4,3] parameter(0)
  z = f32[] constant(0)
  r1 = f32[4] reduce(p, z), dimensions={1}, to_apply=add1
  r2 = f32[4] reduce(p, z), dimensions={1}, to_apply=add2
  r3 = f32[4] reduce(p, z), dimensions={1}, to_apply=max
  a = f32[4] add(r1, r2)
  ROOT r = f32[4] add(a, r3)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(CountOpcode(*result.module->entry_computation(), HloOpcode::kReduce), 2);
}

TEST(CseTest, MergesInsideCalledComputationsAndAtRoot) {
  HloCse cse;
  auto result = RunAndCompare(cse, R"(
HloModule m
f {
  a = f32[3] parameter(0)
  n1 = f32[3] negate(a)
  n2 = f32[3] negate(a)
  ROOT s = f32[3] multiply(n1, n2)
}
ENTRY e {
  p = f32[3] parameter(0)
  c1 = f32[3] call(p), to_apply=f
  ROOT c2 = f32[3] exponential(c1)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(CountOpcode(*result.module->GetComputationWithName("f"), HloOpcode::kNegate), 1);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
