#include "backends/cpu/passes/dce.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "backends/cpu/passes/pass_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

bool IsDead(const HloInstruction& instruction) {
  const HloComputation* parent = instruction.parent();
  return instruction.users().empty() && &instruction != parent->root_instruction() &&
         instruction.opcode() != HloOpcode::kParameter && instruction.control_predecessors().empty() &&
         instruction.control_successors().empty() && !HasSideEffect(instruction);
}

absl::StatusOr<bool> RemoveDeadInstructions(HloComputation* computation) {
  bool changed = false;
  // Reverse post order visits users before operands, so one sweep removes whole dead chains.
  std::vector<HloInstruction*> order = computation->MakeInstructionPostOrder();
  absl::flat_hash_set<HloInstruction*> removed;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* instruction = *it;
    if (!IsDead(*instruction)) continue;
    RETURN_IF_ERROR(computation->RemoveInstruction(instruction));
    changed = true;
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> HloDce::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    ASSIGN_OR_RETURN(bool c, RemoveDeadInstructions(computation));
    changed |= c;
  }
  // Computations reachable from the entry through called computations.
  absl::flat_hash_set<const HloComputation*> live;
  std::vector<const HloComputation*> stack;
  if (module->entry_computation() != nullptr) {
    stack.push_back(module->entry_computation());
    live.insert(module->entry_computation());
  }
  while (!stack.empty()) {
    const HloComputation* computation = stack.back();
    stack.pop_back();
    for (const auto& instruction : computation->instructions()) {
      for (const HloComputation* callee : instruction->called_computations()) {
        if (callee != nullptr && live.insert(callee).second) stack.push_back(callee);
      }
    }
  }
  std::vector<HloComputation*> dead;
  for (const auto& computation : module->computations()) {
    if (!live.contains(computation.get())) dead.push_back(computation.get());
  }
  for (HloComputation* computation : dead) {
    RETURN_IF_ERROR(module->RemoveComputation(computation));
    changed = true;
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
