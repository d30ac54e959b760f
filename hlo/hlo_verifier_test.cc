// Verifier tests: each broken module gives InvalidArgument naming the computation and
// instruction, with LINE:COL for modules that came from text.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "hlo/literal.h"
#include "hlo/shape_util.h"

namespace xla {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

absl::Status VerifyText(const std::string& text) {
  auto module = ParseAndReturnUnverifiedModule(text);
  if (!module.ok()) return module.status();
  return VerifyHloModule(**module);
}

TEST(HloVerifierTest, AcceptsValidModule) {
  EXPECT_TRUE(VerifyText(R"(
HloModule ok
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[4,8] parameter(0)
  z = f32[] constant(0)
  r = f32[4] reduce(p, z), dimensions={1}, to_apply=add
  ROOT t = (f32[4], f32[4,8]) tuple(r, p)
}
)").ok());
}

TEST(HloVerifierTest, ShapeMismatchPointsAtLineAndColumn) {
  // The location is that of the instruction name (after ROOT).
  absl::Status s = VerifyText(R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = f32[3] parameter(1)
  ROOT c = f32[2] add(a, b)
}
)");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), StartsWith("5:8: in computation 'main', instruction 'c': "));
}

TEST(HloVerifierTest, DeclaredShapeMustMatchInferred) {
  absl::Status s = VerifyText(R"(HloModule m
ENTRY main {
  a = f32[2,3] parameter(0)
  ROOT t = f32[2,3] transpose(a), dimensions={1,0}
}
)");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("f32[3,2]"));
  EXPECT_THAT(std::string(s.message()), StartsWith("4:8:"));
}

TEST(HloVerifierTest, CalledComputationSignatureIsChecked) {
  absl::Status s = VerifyText(R"(HloModule m
bad_add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = s32[] constant(0)
}
ENTRY main {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=bad_add
}
)");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("instruction 'r'"));
}

TEST(HloVerifierTest, WhileBodyMustPreserveShape) {
  absl::Status s = VerifyText(R"(HloModule m
cond {
  c = s32[] parameter(0)
  ROOT lt = pred[] compare(c, c), direction=LT
}
body {
  b = s32[] parameter(0)
  ROOT f = f32[] convert(b)
}
ENTRY main {
  i = s32[] parameter(0)
  ROOT w = s32[] while(i), condition=cond, body=body
}
)");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("instruction 'w'"));
}

TEST(HloVerifierTest, TupleIndexOutOfRange) {
  absl::Status s = VerifyText(R"(HloModule m
ENTRY main {
  p = (f32[], s32[]) parameter(0)
  ROOT g = f32[] get-tuple-element(p), index=2
}
)");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("instruction 'g'"));
}

TEST(HloVerifierTest, EntryLayoutMustMatchParameters) {
  absl::Status s = VerifyText(R"(HloModule m, entry_computation_layout={(f32[3])->f32[3]}
ENTRY main {
  ROOT p = f32[2] parameter(0)
}
)");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("entry_computation_layout"));
}

TEST(HloVerifierTest, AliasMustReferToRealParameter) {
  absl::Status s = VerifyText(R"(HloModule m, input_output_alias={ {}: (3, {}, may-alias) }
ENTRY main {
  ROOT p = f32[2] parameter(0)
}
)");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("input_output_alias"));
}

// Modules built directly as IR can break invariants the parser never lets through.
struct IrModule {
  std::unique_ptr<HloModule> module = std::make_unique<HloModule>("ir");
  HloComputation* entry = nullptr;
  HloInstruction* Param(HloComputation* comp, int64_t number, const Shape& shape, const std::string& name) {
    auto p = HloInstruction::Create(HloOpcode::kParameter, shape);
    p->mutable_attrs()->set_parameter_number(number);
    p->set_name(name);
    return comp->AddInstruction(std::move(p));
  }
};

TEST(HloVerifierTest, DetectsCycles) {
  IrModule m;
  auto comp = std::make_unique<HloComputation>("main");
  Shape s = ShapeUtil::MakeShapeWithDescendingLayout(F32, {2});
  HloInstruction* p = m.Param(comp.get(), 0, s, "p");
  auto a = HloInstruction::Create(HloOpcode::kNegate, s, {p});
  a->set_name("a");
  HloInstruction* a_ptr = comp->AddInstruction(std::move(a));
  auto b = HloInstruction::Create(HloOpcode::kNegate, s, {a_ptr});
  b->set_name("b");
  HloInstruction* b_ptr = comp->AddInstruction(std::move(b));
  ASSERT_TRUE(a_ptr->ReplaceOperandWith(0, b_ptr).ok());  // a <-> b
  comp->set_root_instruction(b_ptr);
  m.module->AddEntryComputation(std::move(comp));
  absl::Status s2 = VerifyHloModule(*m.module);
  ASSERT_FALSE(s2.ok());
  EXPECT_THAT(std::string(s2.message()), HasSubstr("cycle"));
}

TEST(HloVerifierTest, DetectsBadParameterNumbering) {
  IrModule m;
  auto comp = std::make_unique<HloComputation>("main");
  Shape s = ShapeUtil::MakeShapeWithDescendingLayout(F32, {});
  m.Param(comp.get(), 0, s, "p0");
  HloInstruction* p2 = m.Param(comp.get(), 2, s, "p2");
  comp->set_root_instruction(p2);
  m.module->AddEntryComputation(std::move(comp));
  absl::Status st = VerifyHloModule(*m.module);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()), HasSubstr("1 is missing"));
}

TEST(HloVerifierTest, DetectsWrongArityAndRecursion) {
  IrModule m;
  Shape s = ShapeUtil::MakeShapeWithDescendingLayout(F32, {});
  auto comp = std::make_unique<HloComputation>("main");
  HloInstruction* p = m.Param(comp.get(), 0, s, "p");
  auto add = HloInstruction::Create(HloOpcode::kAdd, s, {p});  // one operand
  add->set_name("add");
  comp->set_root_instruction(comp->AddInstruction(std::move(add)));
  m.module->AddEntryComputation(std::move(comp));
  absl::Status st = VerifyHloModule(*m.module);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()), HasSubstr("add takes 2 operand(s) but has 1"));

  // f calls g calls f.
  IrModule r;
  auto f = std::make_unique<HloComputation>("f");
  auto g = std::make_unique<HloComputation>("g");
  HloInstruction* fp = r.Param(f.get(), 0, s, "fp");
  HloInstruction* gp = r.Param(g.get(), 0, s, "gp");
  auto fc = HloInstruction::Create(HloOpcode::kCall, s, {fp});
  fc->set_name("fc");
  auto gc = HloInstruction::Create(HloOpcode::kCall, s, {gp});
  gc->set_name("gc");
  HloInstruction* fc_ptr = f->AddInstruction(std::move(fc));
  HloInstruction* gc_ptr = g->AddInstruction(std::move(gc));
  f->set_root_instruction(fc_ptr);
  g->set_root_instruction(gc_ptr);
  HloComputation* f_ptr = r.module->AddEmbeddedComputation(std::move(f));
  HloComputation* g_ptr = r.module->AddEmbeddedComputation(std::move(g));
  fc_ptr->AppendComputation(g_ptr);
  gc_ptr->AppendComputation(f_ptr);
  auto entry = std::make_unique<HloComputation>("main");
  HloInstruction* ep = r.Param(entry.get(), 0, s, "ep");
  auto ec = HloInstruction::Create(HloOpcode::kCall, s, {ep});
  ec->set_name("ec");
  HloInstruction* ec_ptr = entry->AddInstruction(std::move(ec));
  ec_ptr->AppendComputation(f_ptr);
  entry->set_root_instruction(ec_ptr);
  r.module->AddEntryComputation(std::move(entry));
  absl::Status rs = VerifyHloModule(*r.module);
  ASSERT_FALSE(rs.ok());
  EXPECT_THAT(std::string(rs.message()), HasSubstr("recursively"));
}

TEST(HloVerifierTest, RequireLayoutsOption) {
  IrModule m;
  auto comp = std::make_unique<HloComputation>("main");
  HloInstruction* p = m.Param(comp.get(), 0, ShapeUtil::MakeShape(F32, {2, 2}), "p");
  comp->set_root_instruction(p);
  m.module->AddEntryComputation(std::move(comp));
  EXPECT_TRUE(VerifyHloModule(*m.module).ok());
  HloVerifierOptions options;
  options.require_layouts = true;
  absl::Status st = VerifyHloModule(*m.module, options);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()), HasSubstr("has no layout"));
}

TEST(HloVerifierTest, ModuleWithoutEntryIsRejected) {
  HloModule empty("empty");
  EXPECT_FALSE(VerifyHloModule(empty).ok());
}

}  // namespace
}  // namespace xla
