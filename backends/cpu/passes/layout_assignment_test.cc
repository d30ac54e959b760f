#include "backends/cpu/passes/layout_assignment.h"

#include <string>

#include "backends/cpu/passes/pass_test_util.h"
#include "gtest/gtest.h"
#include "hlo/shape_util.h"

namespace xla {
namespace cpu {
namespace {

using testing::CountOpcode;
using testing::RunAndCompare;

// Every shape in the module is row-major except entry parameters, the copies that read
// them, and the copies (with their get-tuple-element/tuple wrappers) feeding the root.
::testing::AssertionResult RowMajorInside(const HloModule& module) {
  for (const auto& computation : module.computations()) {
    for (const auto& instruction : computation->instructions()) {
      const Shape& shape = instruction->shape();
      if (!ShapeUtil::HasLayoutEverywhere(shape)) {
        return ::testing::AssertionFailure() << instruction->name() << " has no layout";
      }
      bool row_major = true;
      ShapeUtil::ForEachSubshape(shape, [&](const Shape& sub, const ShapeIndex&) {
        if (sub.IsArray() && !ShapeUtil::HasDescendingLayout(sub)) row_major = false;
      });
      if (row_major) continue;
      const bool interface = computation.get() == module.entry_computation() &&
                             (instruction->opcode() == HloOpcode::kParameter ||
                              instruction->opcode() == HloOpcode::kCopy ||
                              instruction->opcode() == HloOpcode::kTuple ||
                              instruction->opcode() == HloOpcode::kGetTupleElement);
      if (!interface) return ::testing::AssertionFailure() << instruction->name() << " is not row-major";
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(LayoutAssignmentTest, IntermediatesBecomeRowMajor) {
  LayoutAssignment layout;
  auto result = RunAndCompare(layout, R"(
HloModule m
ENTRY e {
  p = f32[2,3]{1,0} parameter(0)
  t = f32[3,2]{0,1} transpose(p), dimensions={1,0}
  c = f32[3,2]{0,1} constant({{1, 2}, {3, 4}, {5, 6}})
  a = f32[3,2]{0,1} add(t, c)
  ROOT n = f32[3,2]{1,0} negate(a)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  EXPECT_TRUE(RowMajorInside(*result.module));
  EXPECT_EQ(CountOpcode(*result.module->entry_computation(), HloOpcode::kCopy), 0);
}

TEST(LayoutAssignmentTest, KeepsInterfaceLayoutsWithCopies) {
  LayoutAssignment layout;
  const std::string text = R"(
HloModule m, entry_computation_layout={(f32[2,3]{0,1}, f32[3]{0})->f32[2,3]{0,1}}
ENTRY e {
  p = f32[2,3]{0,1} parameter(0)
  q = f32[3]{0} parameter(1)
  b = f32[2,3]{1,0} broadcast(q), dimensions={1}
  m = f32[2,3]{1,0} multiply(p, b)
  ROOT a = f32[2,3]{0,1} add(m, p)
}
)";
  auto before = testing::ParseOrNull(text);
  auto result = RunAndCompare(layout, text);
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(RowMajorInside(*result.module)) << testing::ToText(*result.module);
  const HloComputation* entry = result.module->entry_computation();
  // One copy reads the parameter, one writes the result.
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kCopy), 2) << testing::ToText(*result.module);
  EXPECT_EQ(entry->root_instruction()->opcode(), HloOpcode::kCopy);
  EXPECT_TRUE(entry->ComputeProgramShape().result() == before->entry_computation()->ComputeProgramShape().result());
  EXPECT_TRUE(entry->parameter_instruction(0)->shape() == before->entry_computation()->parameter_instruction(0)->shape());
  EXPECT_EQ(entry->parameter_instruction(0)->user_count(), 1);
}

TEST(LayoutAssignmentTest, TupleParametersAndWhileLoopsStayConsistent) {
  LayoutAssignment layout;
  auto result = RunAndCompare(layout, R"(
HloModule m
body {
  s = (s32[], f32[2,2]{0,1}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[2,2]{0,1} get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  t = f32[2,2]{0,1} transpose(v), dimensions={1,0}
  w = f32[2,2]{0,1} add(t, v)
  ROOT r = (s32[], f32[2,2]{0,1}) tuple(next, w)
}
cond {
  s = (s32[], f32[2,2]{0,1}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  p = (s32[], f32[2,2]{0,1}) parameter(0)
  w = (s32[], f32[2,2]{0,1}) while(p), condition=cond, body=body
  ROOT g = f32[2,2]{1,0} get-tuple-element(w), index=1
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(RowMajorInside(*result.module)) << testing::ToText(*result.module);
  const HloInstruction* while_op = nullptr;
  for (const auto& i : result.module->entry_computation()->instructions()) {
    if (i->opcode() == HloOpcode::kWhile) while_op = i.get();
  }
  ASSERT_NE(while_op, nullptr);
  EXPECT_TRUE(while_op->operand(0)->shape() == while_op->shape());
  EXPECT_TRUE(while_op->while_body()->root_instruction()->shape() == while_op->shape());
  EXPECT_TRUE(while_op->while_body()->parameter_instruction(0)->shape() == while_op->shape());
}

TEST(LayoutAssignmentTest, BitcastsBecomeLayoutFreeOps) {
  LayoutAssignment layout;
  // The first bitcast is a transpose in disguise, the second a reshape of a column-major
  // buffer, the third reinterprets the element type.
  auto result = RunAndCompare(layout, R"(
HloModule m
ENTRY e {
  p = f32[2,3]{1,0} parameter(0)
  t = f32[3,2]{0,1} bitcast(p)
  n = f32[3,2]{0,1} negate(t)
  r = f32[6]{0} bitcast(n)
  i = s32[3,2]{0,1} bitcast(n)
  ROOT out = (f32[3,2]{1,0}, f32[6]{0}, s32[3,2]{1,0}) tuple(n, r, i)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  EXPECT_TRUE(RowMajorInside(*result.module)) << testing::ToText(*result.module);
  EXPECT_EQ(CountOpcode(*result.module->entry_computation(), HloOpcode::kBitcast), 0);
}

TEST(LayoutAssignmentTest, RowMajorModuleIsUnchanged) {
  LayoutAssignment layout;
  auto result = RunAndCompare(layout, R"(
HloModule m
ENTRY e {
  p = f32[2,3] parameter(0)
  ROOT t = f32[3,2] transpose(p), dimensions={1,0}
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_FALSE(result.changed);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
