#include "backends/cpu/passes/fusion.h"

#include <string>

#include "backends/cpu/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::CountOpcode;
using testing::RunAndCompare;

std::vector<const HloInstruction*> Fusions(const HloComputation& computation) {
  std::vector<const HloInstruction*> fusions;
  for (const auto& instruction : computation.instructions()) {
    if (instruction->opcode() == HloOpcode::kFusion) fusions.push_back(instruction.get());
  }
  return fusions;
}

TEST(FusionTest, ElementwiseChainWithProducersBecomesOneLoopFusion) {
  CpuFusion fusion;
  auto result = RunAndCompare(fusion, R"(
HloModule m
ENTRY e {
  p = f32[4,3] parameter(0)
  q = f32[3,4] parameter(1)
  t = f32[4,3] transpose(q), dimensions={1,0}
  c = f32[] constant(2)
  b = f32[4,3] broadcast(c), dimensions={}
  m = f32[4,3] multiply(p, b)
  a = f32[4,3] add(m, t)
  n = f32[4,3] negate(a)
  ROOT r = f32[4,3] exponential(n)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  const HloComputation* entry = result.module->entry_computation();
  EXPECT_EQ(entry->instruction_count(), 3) << testing::ToText(*result.module);
  const HloInstruction* root = entry->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(root->attrs().fusion_kind(), "kLoop");
  EXPECT_EQ(root->operand_count(), 2);
  const HloComputation* fused = root->to_apply();
  EXPECT_TRUE(fused->is_fusion_computation());
  EXPECT_EQ(fused->num_parameters(), 2);
  EXPECT_EQ(fused->root_instruction()->opcode(), HloOpcode::kExponential);
  EXPECT_EQ(CountOpcode(*fused, HloOpcode::kTranspose), 1);
  EXPECT_EQ(CountOpcode(*fused, HloOpcode::kBroadcast), 1);
  // The printed form is XLA's.
  std::string text = testing::ToText(*result.module);
  EXPECT_NE(text.find("kind=kLoop, calls=fused_computation"), std::string::npos) << text;
}

TEST(FusionTest, SoftmaxBecomesOneFusionWithRowReductions) {
  CpuFusion fusion;
  auto result = RunAndCompare(fusion, R"(
HloModule softmax
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,16] parameter(0)
  ninf = f32[] constant(-inf)
  rmax = f32[8] reduce(x, ninf), dimensions={1}, to_apply=max
  bmax = f32[8,16] broadcast(rmax), dimensions={0}
  sub = f32[8,16] subtract(x, bmax)
  ex = f32[8,16] exponential(sub)
  zero = f32[] constant(0)
  sum = f32[8] reduce(ex, zero), dimensions={1}, to_apply=add
  bsum = f32[8,16] broadcast(sum), dimensions={0}
  ROOT out = f32[8,16] divide(ex, bsum)
}
)");
  ASSERT_NE(result.module, nullptr);
  const HloComputation* entry = result.module->entry_computation();
  // One loop fusion over x: both row reductions are inside it (a kernel computes them once
  // per row, then the row's outputs), and exp(x - max) is never written to memory.
  auto fusions = Fusions(*entry);
  ASSERT_EQ(fusions.size(), 1u) << testing::ToText(*result.module);
  EXPECT_EQ(entry->instruction_count(), 2);
  const HloInstruction* root = entry->root_instruction();
  ASSERT_EQ(root, fusions[0]);
  EXPECT_EQ(root->attrs().fusion_kind(), "kLoop");
  EXPECT_EQ(root->operand_count(), 1);
  EXPECT_EQ(CountOpcode(*root->to_apply(), HloOpcode::kReduce), 2);
  EXPECT_EQ(CountOpcode(*root->to_apply(), HloOpcode::kExponential), 1);
}

TEST(FusionTest, RowReductionsFuseOnlyAlongRowAlignedPaths) {
  CpuFusion fusion;
  auto result = RunAndCompare(fusion, R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,8] parameter(0)
  zero = f32[] constant(0)
  rows = f32[8] reduce(x, zero), dimensions={1}, to_apply=add
  br = f32[8,8] broadcast(rows), dimensions={0}
  t = f32[8,8] transpose(br), dimensions={1,0}
  cols = f32[8] reduce(x, zero), dimensions={0}, to_apply=add
  bc = f32[8,8] broadcast(cols), dimensions={0}
  used = f32[8] reduce(x, zero), dimensions={1}, to_apply=add
  bu = f32[8,8] broadcast(used), dimensions={0}
  a = f32[8,8] add(t, bc)
  b = f32[8,8] add(a, bu)
  ROOT out = (f32[8,8], f32[8]) tuple(b, used)
}
)");
  ASSERT_NE(result.module, nullptr);
  const HloComputation* entry = result.module->entry_computation();
  // `rows` reaches the root through a transpose, `cols` is not a row reduction, `used` is
  // also an output: none of them joins the loop fusion.
  auto fusions = Fusions(*entry);
  int64_t fused_reduces = 0, loops = 0;
  for (const HloInstruction* f : fusions) {
    if (f->attrs().fusion_kind() == "kLoop") {
      ++loops;
      fused_reduces += CountOpcode(*f->to_apply(), HloOpcode::kReduce);
    }
  }
  EXPECT_EQ(loops, 1) << testing::ToText(*result.module);
  EXPECT_EQ(fused_reduces, 0) << testing::ToText(*result.module);
}

TEST(FusionTest, NeverFusesDotRngCustomCallSortOrControlFlow) {
  CpuFusion fusion;
  auto result = RunAndCompare(fusion, R"(
HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY e {
  p = f32[4,4] parameter(0)
  d = f32[4,4] dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[4,4] rng(lo, hi), distribution=rng_uniform
  s = f32[4,4] sort(p), dimensions={1}, to_apply=lt
  a1 = f32[4,4] add(d, r)
  ROOT a2 = f32[4,4] add(a1, s)
}
)");
  ASSERT_NE(result.module, nullptr);
  const HloComputation* entry = result.module->entry_computation();
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kDot), 1);
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kRng), 1);
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kSort), 1);
  // The two adds fuse together; nothing else joins them.
  auto fusions = Fusions(*entry);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->operand_count(), 3);
  EXPECT_EQ(fusions[0]->to_apply()->instruction_count(), 5);
}

TEST(FusionTest, DoesNotFuseLoneOpsOrPureDataMovement) {
  CpuFusion fusion;
  auto result = RunAndCompare(fusion, R"(
HloModule m
ENTRY e {
  p = f32[4,3] parameter(0)
  t = f32[3,4] transpose(p), dimensions={1,0}
  r = f32[12] reshape(t)
  q = f32[4,3] parameter(1)
  a = f32[4,3] add(p, q)
  ROOT tuple = (f32[12], f32[4,3]) tuple(r, a)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_FALSE(result.changed) << testing::ToText(*result.module);
}

TEST(FusionTest, SharedExpensiveProducerWithManyUsersIsNotDuplicated) {
  CpuFusion fusion;
  auto result = RunAndCompare(fusion, R"(
HloModule m
ENTRY e {
  p = f32[16] parameter(0)
  ex = f32[16] exponential(p)
  a = f32[16] negate(ex)
  b = f32[16] abs(ex)
  c = f32[16] sine(ex)
  ab = f32[16] add(a, b)
  ROOT r = f32[16] add(ab, c)
}
)");
  ASSERT_NE(result.module, nullptr);
  const HloComputation* entry = result.module->entry_computation();
  // exp has three users: it is computed once, and its users fuse into one loop.
  int64_t exps = 0;
  for (const auto& instruction : entry->instructions()) {
    if (instruction->opcode() == HloOpcode::kExponential) ++exps;
    if (instruction->opcode() == HloOpcode::kFusion) {
      exps += CountOpcode(*instruction->to_apply(), HloOpcode::kExponential);
    }
  }
  EXPECT_EQ(exps, 1) << testing::ToText(*result.module);
  EXPECT_EQ(entry->root_instruction()->opcode(), HloOpcode::kFusion);
}

TEST(FusionTest, FusesInsideWhileBodiesButNotReducers) {
  CpuFusion fusion;
  auto result = RunAndCompare(fusion, R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  n = f32[] negate(a)
  ROOT s = f32[] add(n, b)
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  h = f32[] constant(0.5)
  bh = f32[4] broadcast(h), dimensions={}
  m = f32[4] multiply(v, bh)
  v2 = f32[4] add(m, bh)
  ROOT t = (s32[], f32[4]) tuple(next, v2)
}
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  p = f32[4] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4]) tuple(z, p)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  v = f32[4] get-tuple-element(w), index=1
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(v, zero), dimensions={0}, to_apply=add
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_EQ(Fusions(*result.module->GetComputationWithName("body")).size(), 1u)
      << testing::ToText(*result.module);
  EXPECT_EQ(result.module->GetComputationWithName("add")->instruction_count(), 4);
}

TEST(FusionTest, ReduceOfElementwiseProducerIsInputFusion) {
  CpuFusion fusion;
  auto result = RunAndCompare(fusion, R"(
HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  p = s32[5,6] parameter(0)
  q = s32[5,6] parameter(1)
  m = s32[5,6] multiply(p, q)
  z = s32[] constant(0)
  ROOT r = s32[6] reduce(m, z), dimensions={0}, to_apply=add
}
)");
  ASSERT_NE(result.module, nullptr);
  const HloInstruction* root = result.module->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(root->attrs().fusion_kind(), "kInput");
  EXPECT_EQ(root->operand_count(), 2);  // p, q; the init constant is fused
  EXPECT_EQ(root->to_apply()->root_instruction()->opcode(), HloOpcode::kReduce);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
