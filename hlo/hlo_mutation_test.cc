// Tests of the IR mutation helpers that passes use: ReplaceAllUsesWith, ReplaceInstruction,
// RemoveInstructionAndUnusedOperands, CloneWithNewOperands, unique names, RemoveComputation,
// CloneComputation.
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_printer.h"
#include "hlo/hlo_verifier.h"
#include "hlo/literal.h"

namespace xla {
namespace {

constexpr char kModule[] = R"(
HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  m = f32[4] multiply(n, n)
  z = f32[] constant(0)
  r = f32[] reduce(m, z), dimensions={0}, to_apply=add
  ROOT t = (f32[4], f32[]) tuple(m, r)
}
)";

std::unique_ptr<HloModule> Parse(const char* text) {
  auto module = ParseAndReturnUnverifiedModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

TEST(HloMutationTest, ReplaceAllUsesWithRewritesEverySlot) {
  auto module = Parse(kModule);
  HloComputation* entry = module->entry_computation();
  HloInstruction* p = entry->GetInstructionWithName("p");
  HloInstruction* n = entry->GetInstructionWithName("n");
  HloInstruction* m = entry->GetInstructionWithName("m");
  ASSERT_TRUE(n->ReplaceAllUsesWith(p).ok());
  EXPECT_EQ(m->operand(0), p);
  EXPECT_EQ(m->operand(1), p);
  EXPECT_TRUE(n->users().empty());
  ASSERT_EQ(p->users().size(), 2u);  // n and m
  EXPECT_TRUE(entry->RemoveInstruction(n).ok());
  EXPECT_TRUE(VerifyHloModule(*module).ok());
}

TEST(HloMutationTest, ReplaceAllUsesWithRejectsIncompatibleShape) {
  auto module = Parse(kModule);
  HloComputation* entry = module->entry_computation();
  absl::Status status =
      entry->GetInstructionWithName("m")->ReplaceAllUsesWith(entry->GetInstructionWithName("z"));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
}

TEST(HloMutationTest, ReplaceInstructionMovesRootAndRemovesOld) {
  auto module = Parse(kModule);
  HloComputation* entry = module->entry_computation();
  HloInstruction* old_root = entry->root_instruction();
  auto copy = old_root->CloneWithNewOperands(old_root->shape(), old_root->operands());
  HloInstruction* new_root = entry->AddInstructionWithUniqueName(std::move(copy));
  EXPECT_EQ(new_root->name(), "t.1");
  ASSERT_TRUE(entry->ReplaceInstruction(old_root, new_root).ok());
  EXPECT_EQ(entry->root_instruction(), new_root);
  EXPECT_EQ(entry->GetInstructionWithName("t"), nullptr);
  EXPECT_TRUE(VerifyHloModule(*module).ok());
}

TEST(HloMutationTest, CloneCopiesAttributesAndCalledComputations) {
  auto module = Parse(kModule);
  HloComputation* entry = module->entry_computation();
  HloInstruction* r = entry->GetInstructionWithName("r");
  auto clone = r->CloneWithNewOperands(r->shape(), r->operands());
  EXPECT_EQ(clone->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(clone->to_apply(), r->to_apply());
  EXPECT_EQ(clone->dimensions().size(), 1u);
  EXPECT_EQ(clone->operand(0), r->operand(0));
  HloInstruction* z = entry->GetInstructionWithName("z");
  auto zc = z->CloneWithNewOperands(z->shape(), {});
  ASSERT_TRUE(zc->has_literal());
  EXPECT_TRUE(zc->literal() == z->literal());
  EXPECT_TRUE(clone->Identical(*r, [](const HloInstruction* a, const HloInstruction* b) { return a == b; },
                               [](const HloComputation* a, const HloComputation* b) { return a == b; }));
  // The detached clone is a user of its operands until dropped.
  clone->DetachFromOperands();
}

TEST(HloMutationTest, RemoveInstructionAndUnusedOperandsStopsAtSharedAndParameters) {
  auto module = Parse(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] exponential(a)
  c = f32[4] abs(a)
  d = f32[4] add(b, b)
  ROOT r = f32[4] copy(c)
}
)");
  HloComputation* entry = module->entry_computation();
  ASSERT_TRUE(entry->RemoveInstructionAndUnusedOperands(entry->GetInstructionWithName("d")).ok());
  EXPECT_EQ(entry->GetInstructionWithName("b"), nullptr);
  EXPECT_NE(entry->GetInstructionWithName("a"), nullptr);  // still used by c
  EXPECT_NE(entry->GetInstructionWithName("p"), nullptr);
  EXPECT_EQ(entry->instruction_count(), 4);
  EXPECT_TRUE(VerifyHloModule(*module).ok());
}

TEST(HloMutationTest, RemoveComputationAndUniqueNames) {
  auto module = Parse(kModule);
  EXPECT_EQ(module->UniqueComputationName("add"), "add.1");
  EXPECT_EQ(module->UniqueComputationName("fresh"), "fresh");
  EXPECT_FALSE(module->RemoveComputation(module->entry_computation()).ok());
  HloComputation* add = module->GetComputationWithName("add");
  HloComputation* copy = module->CloneComputation(*add, "add");
  EXPECT_EQ(copy->name(), "add.1");
  EXPECT_EQ(copy->instruction_count(), 3);
  EXPECT_EQ(copy->num_parameters(), 2);
  EXPECT_EQ(copy->root_instruction()->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(copy->root_instruction()->operand(0), copy->parameter_instruction(0));
  // Retarget the reduce to the copy; the original is now unused and can go.
  module->entry_computation()->GetInstructionWithName("r")->set_called_computation(0, copy);
  ASSERT_TRUE(module->RemoveComputation(add).ok());
  EXPECT_EQ(module->computation_count(), 2);
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << VerifyHloModule(*module);
  EXPECT_EQ(module->RemoveComputation(add).code(), absl::StatusCode::kNotFound);
}

TEST(HloMutationTest, UniqueInstructionNames) {
  auto module = Parse(kModule);
  HloComputation* entry = module->entry_computation();
  EXPECT_EQ(entry->UniqueInstructionName("m"), "m.1");
  EXPECT_EQ(entry->UniqueInstructionName("q"), "q");
  // Names handed out are remembered once their instructions are added, also by plain
  // AddInstruction after the name index exists.
  HloInstruction* z = entry->GetInstructionWithName("z");
  HloInstruction* a = entry->AddInstructionWithUniqueName(z->CloneWithNewOperands(z->shape(), {}), "n");
  HloInstruction* b = entry->AddInstructionWithUniqueName(z->CloneWithNewOperands(z->shape(), {}), "n");
  EXPECT_EQ(a->name(), "n.1");
  EXPECT_EQ(b->name(), "n.2");
  auto plain = HloInstruction::Create(HloOpcode::kAfterAll, Shape::MakeToken());
  plain->set_name("n.3");
  entry->AddInstruction(std::move(plain));
  EXPECT_EQ(entry->UniqueInstructionName("n"), "n.4");
}

}  // namespace
}  // namespace xla
