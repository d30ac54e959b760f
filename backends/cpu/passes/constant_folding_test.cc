#include "backends/cpu/passes/constant_folding.h"

#include "backends/cpu/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::CountOpcode;
using testing::RunAndCompare;

TEST(ConstantFoldingTest, FoldsArithmeticChainsAndCalls) {
  ConstantFolding folding;
  auto result = RunAndCompare(folding, R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[3] parameter(0)
  c1 = f32[3] constant({1, 2, 3})
  c2 = f32[3] constant({0.5, -1, 4})
  m = f32[3] multiply(c1, c2)
  e1 = f32[3] exponential(m)
  z = f32[] constant(0)
  r = f32[] reduce(e1, z), dimensions={0}, to_apply=add
  b = f32[3] broadcast(r), dimensions={}
  ROOT o = f32[3] add(p, b)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  const HloInstruction* root = result.module->entry_computation()->root_instruction();
  // The reduce became a constant; the broadcast of it is kept (never materialized).
  ASSERT_EQ(root->operand(1)->opcode(), HloOpcode::kBroadcast);
  ASSERT_EQ(root->operand(1)->operand(0)->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(CountOpcode(*result.module->entry_computation(), HloOpcode::kReduce), 0);
  EXPECT_EQ(CountOpcode(*result.module->entry_computation(), HloOpcode::kExponential), 0);
}

TEST(ConstantFoldingTest, DoesNotMaterializeHugeBroadcastsOrIotas) {
  ConstantFolding folding;
  auto result = RunAndCompare(folding, R"(
HloModule m
ENTRY e {
  c = f32[] constant(3)
  b = f32[1000,1000] broadcast(c), dimensions={}
  i = s32[1000,1000] iota(), iota_dimension=1
  n = f32[1000,1000] negate(b)
  s = f32[1,1] slice(n), slice={[0:1], [0:1]}
  si = s32[1,1] slice(i), slice={[0:1], [2:3]}
  ROOT t = (f32[1,1], s32[1,1]) tuple(s, si)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_FALSE(result.changed);
}

TEST(ConstantFoldingTest, LeavesRngAndParametersAlone) {
  ConstantFolding folding;
  auto result = RunAndCompare(folding, R"(
HloModule m
ENTRY e {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[2] rng(lo, hi), distribution=rng_uniform
  p = f32[2] parameter(0)
  ROOT a = f32[2] add(r, p)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_FALSE(result.changed);
}

TEST(ConstantFoldingTest, FoldsIntegerDivisionByZeroLikeTheInterpreter) {
  ConstantFolding folding;
  auto result = RunAndCompare(folding, R"(
HloModule m
ENTRY e {
  a = s32[3] constant({7, -7, 5})
  b = s32[3] constant({0, 2, 0})
  d = s32[3] divide(a, b)
  ROOT c = pred[3] compare(d, a), direction=EQ
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(result.module->entry_computation()->root_instruction()->opcode(), HloOpcode::kConstant);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
