#include "backends/cpu/passes/call_inliner.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

bool IsInlinable(const HloInstruction& instruction) {
  const HloOpcode op = instruction.opcode();
  if (op != HloOpcode::kCall && op != HloOpcode::kFusion) return false;
  const HloComputation* callee = instruction.to_apply();
  return instruction.called_computations().size() == 1 && callee != nullptr &&
         callee->root_instruction() != nullptr && callee->num_parameters() == instruction.operand_count();
}

absl::Status Inline(HloComputation* caller, HloInstruction* call) {
  const HloComputation* callee = call->to_apply();
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> mapped;
  const std::vector<HloInstruction*> order = callee->MakeInstructionPostOrder();
  for (const HloInstruction* instruction : order) {
    if (instruction->opcode() == HloOpcode::kParameter) {
      mapped[instruction] = call->mutable_operand(instruction->parameter_number());
      continue;
    }
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : instruction->operands()) operands.push_back(mapped.at(operand));
    mapped[instruction] = caller->AddInstructionWithUniqueName(
        instruction->CloneWithNewOperands(instruction->shape(), operands));
  }
  for (const HloInstruction* instruction : order) {
    for (const HloInstruction* successor : instruction->control_successors()) {
      HloInstruction* from = mapped.at(instruction);
      HloInstruction* to = mapped.at(successor);
      if (from->parent() == caller && to->parent() == caller && from != to) from->AddControlDependencyTo(to);
    }
  }
  HloInstruction* result = mapped.at(callee->root_instruction());
  if (result->shape() != call->shape()) {
    // Same values, other layout: keep the call's layout for its users.
    auto copy = HloInstruction::Create(HloOpcode::kCopy, call->shape(), {result});
    result = caller->AddInstructionWithUniqueName(std::move(copy), "copy");
  }
  return caller->ReplaceInstruction(call, result);
}

}  // namespace

absl::StatusOr<bool> CallInliner::Run(HloModule* module) {
  bool changed = false;
  // Callers after callees in this order: a callee's own calls are inlined before it is
  // copied into its callers.
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (!IsInlinable(*instruction)) continue;
      RETURN_IF_ERROR(Inline(computation, instruction));
      changed = true;
    }
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
