// Tests of the IR core: opcode table, instruction graph bookkeeping, computation and
// module orders, structural equality.
#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_set.h"

#include "gtest/gtest.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_opcode.h"
#include "hlo/literal.h"
#include "hlo/shape_util.h"

namespace xla {
namespace {

TEST(HloOpcodeTest, TableHasAll131OpcodesWithUniqueNames) {
  EXPECT_EQ(kHloOpcodeCount, 131);
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    HloOpcode op = static_cast<HloOpcode>(i);
    auto back = StringToHloOpcode(HloOpcodeString(op));
    ASSERT_TRUE(back.has_value()) << HloOpcodeString(op);
    EXPECT_EQ(*back, op);
  }
  EXPECT_FALSE(StringToHloOpcode("not-an-op").has_value());
  EXPECT_FALSE(StringToHloOpcode("").has_value());
}

TEST(HloOpcodeTest, AritiesAndCategories) {
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kAdd), 2);
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kSelect), 3);
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kBatchNormGrad), 5);
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kRaggedAllToAll), 6);
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kTuple), kVariadic);
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kParameter), 0);
  EXPECT_TRUE(HloOpcodeIsElementwiseBinary(HloOpcode::kCompare));
  EXPECT_TRUE(HloOpcodeIsElementwiseUnary(HloOpcode::kExponential));
  EXPECT_FALSE(HloOpcodeIsElementwiseUnary(HloOpcode::kReduce));
  EXPECT_EQ(HloOpcodeString(HloOpcode::kGetTupleElement), "get-tuple-element");
}

std::unique_ptr<HloInstruction> Param(int64_t number, const Shape& shape, const char* name) {
  auto p = HloInstruction::Create(HloOpcode::kParameter, shape);
  p->mutable_attrs()->set_parameter_number(number);
  p->set_name(name);
  return p;
}

// Builds: p0, p1 -> add -> negate (root).
std::unique_ptr<HloModule> MakeSimpleModule(const std::string& name) {
  auto module = std::make_unique<HloModule>(name);
  auto comp = std::make_unique<HloComputation>("entry");
  Shape s = ShapeUtil::MakeShapeWithDescendingLayout(F32, {2, 3});
  HloInstruction* p0 = comp->AddInstruction(Param(0, s, "p0"));
  HloInstruction* p1 = comp->AddInstruction(Param(1, s, "p1"));
  auto add = HloInstruction::Create(HloOpcode::kAdd, s, {p0, p1});
  add->set_name("add");
  HloInstruction* add_ptr = comp->AddInstruction(std::move(add));
  auto neg = HloInstruction::Create(HloOpcode::kNegate, s, {add_ptr});
  neg->set_name("neg");
  comp->set_root_instruction(comp->AddInstruction(std::move(neg)));
  module->AddEntryComputation(std::move(comp));
  return module;
}

TEST(HloInstructionTest, UsersFollowOperandEdits) {
  auto module = MakeSimpleModule("m");
  HloComputation* entry = module->entry_computation();
  HloInstruction* p0 = entry->parameter_instruction(0);
  HloInstruction* p1 = entry->parameter_instruction(1);
  HloInstruction* add = entry->GetInstructionWithName("add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(p0->users().size(), 1u);
  ASSERT_TRUE(add->ReplaceOperandWith(0, p1).ok());
  EXPECT_TRUE(p0->users().empty());
  // p1 is used twice by add but listed once.
  EXPECT_EQ(p1->users().size(), 1u);
  ASSERT_TRUE(add->ReplaceOperandWith(1, p0).ok());
  EXPECT_EQ(p1->users().size(), 1u);  // still operand 0
  EXPECT_EQ(p0->users().size(), 1u);
  EXPECT_FALSE(add->ReplaceOperandWith(2, p0).ok());
  EXPECT_FALSE(add->ReplaceOperandWith(-1, p0).ok());
}

TEST(HloInstructionTest, ControlDependenciesAreIdempotentAndRemovable) {
  auto module = MakeSimpleModule("m");
  HloComputation* entry = module->entry_computation();
  HloInstruction* p0 = entry->parameter_instruction(0);
  HloInstruction* p1 = entry->parameter_instruction(1);
  p0->AddControlDependencyTo(p1);
  p0->AddControlDependencyTo(p1);
  EXPECT_EQ(p0->control_successors().size(), 1u);
  EXPECT_EQ(p1->control_predecessors().size(), 1u);
  // Post order honours control edges: p0 before p1.
  auto order = entry->MakeInstructionPostOrder();
  auto pos = [&](const HloInstruction* i) { return std::find(order.begin(), order.end(), i) - order.begin(); };
  EXPECT_LT(pos(p0), pos(p1));
  EXPECT_EQ(order.back(), entry->root_instruction());
  p1->RemoveAllControlDependencies();
  EXPECT_TRUE(p0->control_successors().empty());
}

TEST(HloComputationTest, PostOrderPutsOperandsFirstAndKeepsUnreachable) {
  auto module = MakeSimpleModule("m");
  HloComputation* entry = module->entry_computation();
  Shape s = ShapeUtil::MakeShape(F32, {});
  auto dead = HloInstruction::Create(HloOpcode::kConstant, s);
  dead->set_name("dead");
  dead->set_literal(Literal::CreateR0<float>(1.0f));
  entry->AddInstruction(std::move(dead));
  auto order = entry->MakeInstructionPostOrder();
  ASSERT_EQ(order.size(), 5u);
  EXPECT_EQ(order.back()->name(), "neg");
  for (size_t i = 0; i < order.size(); ++i) {
    for (const HloInstruction* operand : order[i]->operands()) {
      EXPECT_LT(std::find(order.begin(), order.end(), operand) - order.begin(), static_cast<long>(i));
    }
  }
}

TEST(HloComputationTest, RemoveInstructionRequiresNoUsers) {
  auto module = MakeSimpleModule("m");
  HloComputation* entry = module->entry_computation();
  HloInstruction* add = entry->GetInstructionWithName("add");
  EXPECT_FALSE(entry->RemoveInstruction(add).ok());        // used by neg
  EXPECT_FALSE(entry->RemoveInstruction(entry->root_instruction()).ok());  // root
  Shape s = ShapeUtil::MakeShape(F32, {});
  auto c = HloInstruction::Create(HloOpcode::kConstant, s);
  c->set_literal(Literal::CreateR0<float>(2.0f));
  HloInstruction* c_ptr = entry->AddInstruction(std::move(c));
  auto user = HloInstruction::Create(HloOpcode::kNegate, s, {c_ptr});
  HloInstruction* user_ptr = entry->AddInstruction(std::move(user));
  EXPECT_EQ(c_ptr->users().size(), 1u);
  ASSERT_TRUE(entry->RemoveInstruction(user_ptr).ok());
  EXPECT_TRUE(c_ptr->users().empty());
  ASSERT_TRUE(entry->RemoveInstruction(c_ptr).ok());
  EXPECT_EQ(entry->instruction_count(), 4);
}

TEST(HloComputationTest, ProgramShapeUsesParameterNames) {
  auto module = MakeSimpleModule("m");
  ProgramShape ps = module->entry_computation()->ComputeProgramShape();
  ASSERT_EQ(ps.parameters().size(), 2u);
  EXPECT_EQ(ps.parameter_names()[1], "p1");
  EXPECT_EQ(ps.result().dimensions(), (std::vector<int64_t>{2, 3}));
}

TEST(HloModuleTest, UniqueIdsAreAssignedAndDistinct) {
  auto module = MakeSimpleModule("m");
  absl::flat_hash_set<int64_t> ids;
  for (const auto& i : module->entry_computation()->instructions()) {
    EXPECT_GE(i->unique_id(), 0);
    EXPECT_TRUE(ids.insert(i->unique_id()).second);
  }
  EXPECT_GT(module->NewUniqueId(), *std::max_element(ids.begin(), ids.end()));
}

TEST(HloModuleTest, EqualDetectsDifferences) {
  auto a = MakeSimpleModule("m");
  auto b = MakeSimpleModule("m");
  std::string diff;
  EXPECT_TRUE(a->Equal(*b, &diff)) << diff;
  // Attribute difference.
  b->entry_computation()->GetInstructionWithName("add")->mutable_attrs()->mutable_metadata()->set_op_name("x");
  EXPECT_FALSE(a->Equal(*b, &diff));
  EXPECT_NE(diff.find("add"), std::string::npos);
  // Operand order difference.
  auto c = MakeSimpleModule("m");
  HloComputation* entry = c->entry_computation();
  ASSERT_TRUE(entry->GetInstructionWithName("add")->ReplaceOperandWith(0, entry->parameter_instruction(1)).ok());
  EXPECT_FALSE(a->Equal(*c, &diff));
  // Config difference.
  auto d = MakeSimpleModule("m");
  d->mutable_config()->replica_count = 2;
  EXPECT_FALSE(a->Equal(*d, &diff));
  auto e = MakeSimpleModule("other");
  EXPECT_FALSE(a->Equal(*e, &diff));
}

TEST(HloModuleTest, ComputationPostOrderPutsCalleesFirst) {
  auto module = std::make_unique<HloModule>("m");
  Shape s = ShapeUtil::MakeShape(F32, {});
  auto callee = std::make_unique<HloComputation>("callee");
  HloInstruction* cp = callee->AddInstruction(Param(0, s, "x"));
  callee->set_root_instruction(cp);
  auto entry = std::make_unique<HloComputation>("main");
  HloInstruction* ep = entry->AddInstruction(Param(0, s, "y"));
  auto call = HloInstruction::Create(HloOpcode::kCall, s, {ep});
  HloInstruction* call_ptr = entry->AddInstruction(std::move(call));
  entry->set_root_instruction(call_ptr);
  HloComputation* entry_ptr = module->AddEntryComputation(std::move(entry));
  HloComputation* callee_ptr = module->AddEmbeddedComputation(std::move(callee));
  call_ptr->AppendComputation(callee_ptr);
  auto order = module->MakeComputationPostOrder();
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0], callee_ptr);
  EXPECT_EQ(order[1], entry_ptr);
  EXPECT_EQ(call_ptr->to_apply(), callee_ptr);
}

}  // namespace
}  // namespace xla
