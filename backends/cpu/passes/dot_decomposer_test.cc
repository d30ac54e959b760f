#include "backends/cpu/passes/dot_decomposer.h"

#include <string>

#include "backends/cpu/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::CountOpcode;
using testing::RunAndCompare;

const HloInstruction* OnlyDot(const HloModule& module) {
  const HloInstruction* dot = nullptr;
  for (const auto& instruction : module.entry_computation()->instructions()) {
    if (instruction->opcode() == HloOpcode::kDot) {
      EXPECT_EQ(dot, nullptr) << "more than one dot";
      dot = instruction.get();
    }
  }
  return dot;
}

TEST(DotDecomposerTest, GeneralDotBecomesBatchedGemm) {
  DotDecomposer decomposer;
  // batch dims {0,3} on lhs / {1,0} on rhs, two contracting dims, free dims on both sides.
  auto result = RunAndCompare(decomposer, R"(
HloModule m
ENTRY e {
  a = f32[2,3,4,5] parameter(0)
  b = f32[5,2,4,6,3] parameter(1)
  ROOT d = f32[2,5,6] dot(a, b), lhs_batch_dims={0,3}, rhs_batch_dims={1,0}, lhs_contracting_dims={1,2}, rhs_contracting_dims={4,2}
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  const HloInstruction* dot = OnlyDot(*result.module);
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->operand(0)->shape().dimensions(), (std::vector<int64_t>{10, 1, 12}));
  EXPECT_EQ(dot->operand(1)->shape().dimensions(), (std::vector<int64_t>{10, 12, 6}));
  EXPECT_EQ(dot->shape().dimensions(), (std::vector<int64_t>{10, 1, 6}));
  const DotDimensionNumbers& d = dot->attrs().dot_dimension_numbers();
  EXPECT_EQ(d.lhs_batch_dimensions(0), 0);
  EXPECT_EQ(d.lhs_contracting_dimensions(0), 2);
  EXPECT_EQ(d.rhs_contracting_dimensions(0), 1);
  EXPECT_EQ(result.module->entry_computation()->root_instruction()->opcode(), HloOpcode::kReshape);
}

TEST(DotDecomposerTest, TransposedMatmulAndMatrixVector) {
  DotDecomposer decomposer;
  auto result = RunAndCompare(decomposer, R"(
HloModule m
ENTRY e {
  a = f32[4,3] parameter(0)
  b = f32[5,4] parameter(1)
  v = f32[3] parameter(2)
  t = f32[3,5] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
  mv = f32[4] dot(a, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[3,5], f32[4]) tuple(t, mv)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(CountOpcode(*result.module->entry_computation(), HloOpcode::kTranspose), 2);
}

TEST(DotDecomposerTest, IntegerDotWithWiderResultKeepsItsType) {
  DotDecomposer decomposer;
  auto result = RunAndCompare(decomposer, R"(
HloModule m
ENTRY e {
  a = s8[2,3,4] parameter(0)
  b = s8[2,3,4] parameter(1)
  ROOT d = s32[2,4,4] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(OnlyDot(*result.module)->shape().element_type(), S32);
}

TEST(DotDecomposerTest, CanonicalDotsAreLeftAlone) {
  DotDecomposer decomposer;
  auto result = RunAndCompare(decomposer, R"(
HloModule m
ENTRY e {
  a = f32[4,3] parameter(0)
  b = f32[3,5] parameter(1)
  c = f32[2,4,3] parameter(2)
  d = f32[2,3,5] parameter(3)
  mm = f32[4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bmm = f32[2,4,5] dot(c, d), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  ROOT r = (f32[4,5], f32[2,4,5]) tuple(mm, bmm)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_FALSE(result.changed);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
