#include "backends/cpu/passes/algebraic_simplifier.h"

#include <string>

#include "backends/cpu/passes/dce.h"
#include "backends/cpu/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::CountOpcode;
using testing::RunAndCompare;

// Wraps `body` (instructions over p: T[4,3] and q: T[4,3], ending in ROOT) in a module.
std::string Module(const std::string& body) {
  return "HloModule m\nENTRY e {\n" + body + "\n}\n";
}

// The root after simplification, or null on failure.
const HloInstruction* SimplifiedRoot(const std::string& text, bool expect_change = true) {
  static AlgebraicSimplifier* simplifier = new AlgebraicSimplifier();
  static std::vector<std::unique_ptr<HloModule>>* keep = new std::vector<std::unique_ptr<HloModule>>();
  auto result = RunAndCompare(*simplifier, text);
  if (result.module == nullptr) return nullptr;
  EXPECT_EQ(result.changed, expect_change) << testing::ToText(*result.module);
  keep->push_back(std::move(result.module));
  return keep->back()->entry_computation()->root_instruction();
}

TEST(AlgebraicSimplifierTest, IntegerIdentities) {
  const HloInstruction* root = SimplifiedRoot(Module(R"(
  p = s32[4] parameter(0)
  z = s32[] constant(0)
  bz = s32[4] broadcast(z), dimensions={}
  a = s32[4] add(bz, p)
  one = s32[4] constant({1, 1, 1, 1})
  m = s32[4] multiply(a, one)
  s = s32[4] subtract(m, bz)
  ROOT d = s32[4] divide(s, one))"));
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kParameter);
}

TEST(AlgebraicSimplifierTest, IntegerTimesZeroIsZero) {
  const HloInstruction* root = SimplifiedRoot(Module(R"(
  p = s32[4] parameter(0)
  z = s32[] constant(0)
  bz = s32[4] broadcast(z), dimensions={}
  ROOT m = s32[4] multiply(p, bz))"));
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kBroadcast);
}

TEST(AlgebraicSimplifierTest, FloatZeroRulesKeepSignedZeroAndNaN) {
  // x * 0 (NaN, inf, -0 would change) and x + +0.0 (-0 + 0 = +0) must stay.
  const HloInstruction* root = SimplifiedRoot(Module(R"(
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  bz = f32[4] broadcast(z), dimensions={}
  m = f32[4] multiply(p, bz)
  a = f32[4] add(p, bz)
  ROOT t = (f32[4], f32[4]) tuple(m, a))"), false);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kMultiply);
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kAdd);
}

TEST(AlgebraicSimplifierTest, FloatExactIdentities) {
  const HloInstruction* root = SimplifiedRoot(Module(R"(
  p = f32[4] parameter(0)
  nz = f32[] constant(-0)
  bnz = f32[4] broadcast(nz), dimensions={}
  a = f32[4] add(p, bnz)
  pz = f32[] constant(0)
  bpz = f32[4] broadcast(pz), dimensions={}
  s = f32[4] subtract(a, bpz)
  one = f32[] constant(1)
  bone = f32[4] broadcast(one), dimensions={}
  m = f32[4] multiply(bone, s)
  ROOT d = f32[4] divide(m, bone))"));
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kParameter);
}

TEST(AlgebraicSimplifierTest, FloatSubtractNegativeZeroStays) {
  const HloInstruction* root = SimplifiedRoot(Module(R"(
  p = f32[4] parameter(0)
  nz = f32[] constant(-0)
  bnz = f32[4] broadcast(nz), dimensions={}
  ROOT s = f32[4] subtract(p, bnz))"), false);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kSubtract);
}

TEST(AlgebraicSimplifierTest, DoubleNegationNotConvertAndCopy) {
  const HloInstruction* root = SimplifiedRoot(Module(R"(
  p = f32[4] parameter(0)
  q = pred[4] parameter(1)
  n = f32[4] negate(f32[4] negate(p))
  c = f32[4] convert(n)
  k = f32[4] copy(c)
  b = pred[4] not(pred[4] not(q))
  ROOT t = (f32[4], pred[4]) tuple(k, b))"));
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kParameter);
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kParameter);
}

TEST(AlgebraicSimplifierTest, IdentityShapeOps) {
  const HloInstruction* root = SimplifiedRoot(Module(R"(
  p = f32[4,3] parameter(0)
  r = f32[4,3] reshape(p)
  t = f32[4,3] transpose(r), dimensions={0,1}
  b = f32[4,3] broadcast(t), dimensions={0,1}
  s = f32[4,3] slice(b), slice={[0:4], [0:3]}
  c = f32[4,3] concatenate(s), dimensions={0}
  v = f32[4,3] reverse(c), dimensions={}
  z = f32[] constant(0)
  ROOT pd = f32[4,3] pad(v, z), padding=0_0x0_0)"));
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kParameter);
}

TEST(AlgebraicSimplifierTest, MergesTransposesReshapesBroadcastsSlices) {
  AlgebraicSimplifier simplifier;
  HloDce dce;
  auto result = RunAndCompare(simplifier, Module(R"(
  p = f32[2,3,4] parameter(0)
  t1 = f32[3,4,2] transpose(p), dimensions={1,2,0}
  t2 = f32[4,2,3] transpose(t1), dimensions={1,2,0}
  r1 = f32[8,3] reshape(t2)
  r2 = f32[24] reshape(r1)
  q = f32[3] parameter(1)
  b1 = f32[4,3] broadcast(q), dimensions={1}
  b2 = f32[5,4,3] broadcast(b1), dimensions={1,2}
  s1 = f32[10] slice(r2), slice={[2:22:2]}
  s2 = f32[3] slice(s1), slice={[1:8:3]}
  ROOT t = (f32[24], f32[5,4,3], f32[3]) tuple(r2, b2, s2))"));
  ASSERT_NE(result.module, nullptr);
  ASSERT_TRUE(dce.Run(result.module.get()).ok());
  const HloComputation* entry = result.module->entry_computation();
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kTranspose), 1) << testing::ToText(*result.module);
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kReshape), 1);
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kBroadcast), 1);
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kSlice), 1);
  const HloInstruction* root = entry->root_instruction();
  EXPECT_EQ(root->operand(1)->operand(0)->opcode(), HloOpcode::kParameter);
}

TEST(AlgebraicSimplifierTest, ShapeOpsOfBroadcastScalarBecomeBroadcasts) {
  const HloInstruction* root = SimplifiedRoot(Module(R"(
  c = f32[] parameter(0)
  b = f32[2,6] broadcast(c), dimensions={}
  r = f32[3,4] reshape(b)
  t = f32[4,3] transpose(r), dimensions={1,0}
  ROOT s = f32[2,3] slice(t), slice={[1:3], [0:3]})"));
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kParameter);
}

TEST(AlgebraicSimplifierTest, SelectAndPredicates) {
  const HloInstruction* root = SimplifiedRoot(Module(R"(
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  c = pred[4] parameter(2)
  t = pred[] constant(true)
  f = pred[] constant(false)
  bt = pred[4] broadcast(t), dimensions={}
  bf = pred[4] broadcast(f), dimensions={}
  s1 = f32[4] select(bt, p, q)
  s2 = f32[4] select(bf, p, q)
  s3 = f32[4] select(c, p, p)
  a = pred[4] and(c, bt)
  o = pred[4] or(bf, c)
  ROOT r = (f32[4], f32[4], f32[4], pred[4], pred[4]) tuple(s1, s2, s3, a, o))"));
  ASSERT_NE(root, nullptr);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(root->operand(i)->opcode(), HloOpcode::kParameter) << i;
  EXPECT_EQ(root->operand(1)->parameter_number(), 1);
}

// get-tuple-element of a tuple is the element itself, nested too; not where the element's
// layout differs from the get-tuple-element's (a replacement keeps the exact shape).
TEST(AlgebraicSimplifierTest, ElementsOfTuples) {
  const HloInstruction* root = SimplifiedRoot(Module(R"(
  p = f32[4,3] parameter(0)
  q = s32[2] parameter(1)
  t = (f32[4,3], (s32[2], f32[4,3])) tuple(p, (s32[2], f32[4,3]) tuple(q, p))
  inner = (s32[2], f32[4,3]) get-tuple-element(t), index=1
  a = s32[2] get-tuple-element(inner), index=0
  b = f32[4,3] get-tuple-element(t), index=0
  ROOT r = (s32[2], f32[4,3]) tuple(a, b))"));
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kParameter);
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kParameter);
  const HloInstruction* kept = SimplifiedRoot(R"(
HloModule m
ENTRY e {
  p = f32[4,3]{1,0} parameter(0)
  t = (f32[4,3]{1,0}) tuple(p)
  ROOT g = f32[4,3]{0,1} get-tuple-element(t), index=0
}
)", false);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->opcode(), HloOpcode::kGetTupleElement);
}

TEST(AlgebraicSimplifierTest, LeavesNonIdentitiesAlone) {
  const HloInstruction* root = SimplifiedRoot(Module(R"(
  p = f32[4,3] parameter(0)
  t = f32[3,4] transpose(p), dimensions={1,0}
  s = f32[4,2] slice(p), slice={[0:4], [1:3]}
  two = f32[] constant(2)
  btwo = f32[4,3] broadcast(two), dimensions={}
  m = f32[4,3] multiply(p, btwo)
  c = s32[4,3] convert(p)
  ROOT r = (f32[3,4], f32[4,2], f32[4,3], s32[4,3]) tuple(t, s, m, c))"), false);
  ASSERT_NE(root, nullptr);
}

TEST(AlgebraicSimplifierTest, KeepsRootLayout) {
  // The root's layout is the result layout: a copy that changes it must stay.
  const HloInstruction* root = SimplifiedRoot(R"(
HloModule m
ENTRY e {
  p = f32[4,3]{1,0} parameter(0)
  ROOT c = f32[4,3]{0,1} copy(p)
}
)", false);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->opcode(), HloOpcode::kCopy);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
