#include "hlo/hlo_computation.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/hlo_module.h"

namespace xla {

HloComputation::~HloComputation() = default;

HloInstruction* HloComputation::AddInstruction(std::unique_ptr<HloInstruction> instruction) {
  HloInstruction* raw = instruction.get();
  raw->set_parent(this);
  if (names_ != nullptr) names_->insert(raw->name());
  if (raw->opcode() == HloOpcode::kParameter) {
    int64_t number = raw->parameter_number();
    if (number >= 0) {
      if (number >= static_cast<int64_t>(parameters_.size())) parameters_.resize(number + 1, nullptr);
      parameters_[number] = raw;
    }
  }
  instructions_.push_back(std::move(instruction));
  return raw;
}

absl::Status HloComputation::RemoveInstruction(HloInstruction* instruction) {
  if (!instruction->users().empty() || !instruction->control_predecessors().empty() ||
      !instruction->control_successors().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove ", instruction->name(), ": it still has users or control edges"));
  }
  if (instruction == root_) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove ", instruction->name(), ": it is the root of ", name_));
  }
  auto it = std::find_if(instructions_.begin(), instructions_.end(),
                         [&](const auto& p) { return p.get() == instruction; });
  if (it == instructions_.end()) {
    return absl::NotFoundError(absl::StrCat(instruction->name(), " is not in ", name_));
  }
  if (instruction->opcode() == HloOpcode::kParameter) {
    for (auto& p : parameters_) {
      if (p == instruction) p = nullptr;
    }
  }
  // Operands outlive this instruction: drop their user edges to it first.
  instruction->DetachFromOperands();
  std::unique_ptr<HloInstruction> owned = std::move(*it);
  instructions_.erase(it);
  return absl::OkStatus();
}

std::string HloComputation::UniqueInstructionName(const std::string& base) const {
  if (names_ == nullptr) {
    names_ = std::make_unique<absl::flat_hash_set<std::string>>();
    for (const auto& instruction : instructions_) names_->insert(instruction->name());
  }
  const std::string stem = base.empty() ? std::string("instruction") : base;
  if (!names_->contains(stem)) return stem;
  int64_t& next = next_suffix_[stem];
  for (int64_t n = std::max<int64_t>(next, 1);; ++n) {
    std::string candidate = absl::StrCat(stem, ".", n);
    if (!names_->contains(candidate)) {
      next = n + 1;
      return candidate;
    }
  }
}

HloInstruction* HloComputation::AddInstructionWithUniqueName(std::unique_ptr<HloInstruction> instruction,
                                                             const std::string& base_name) {
  instruction->set_name(UniqueInstructionName(base_name.empty() ? instruction->name() : base_name));
  HloInstruction* raw = AddInstruction(std::move(instruction));
  if (parent_ != nullptr && raw->unique_id() < 0) raw->set_unique_id(parent_->NewUniqueId());
  return raw;
}

bool HloComputation::ContainsInstruction(const HloInstruction* instruction) const {
  return instruction != nullptr && instruction->parent() == this;
}

absl::Status HloComputation::ReplaceInstruction(HloInstruction* old_instruction,
                                                HloInstruction* new_instruction) {
  if (old_instruction == new_instruction) return absl::OkStatus();
  if (!ContainsInstruction(old_instruction) || !ContainsInstruction(new_instruction)) {
    return absl::InvalidArgumentError(absl::StrCat("ReplaceInstruction: both instructions must be in ", name_));
  }
  absl::Status status = old_instruction->ReplaceAllUsesWith(new_instruction);
  if (!status.ok()) return status;
  if (root_ == old_instruction) root_ = new_instruction;
  for (HloInstruction* pred : std::vector<HloInstruction*>(old_instruction->control_predecessors())) {
    if (pred != new_instruction) pred->AddControlDependencyTo(new_instruction);
  }
  for (HloInstruction* succ : std::vector<HloInstruction*>(old_instruction->control_successors())) {
    if (succ != new_instruction) new_instruction->AddControlDependencyTo(succ);
  }
  old_instruction->RemoveAllControlDependencies();
  return RemoveInstruction(old_instruction);
}

absl::Status HloComputation::RemoveInstructionAndUnusedOperands(
    HloInstruction* instruction, bool (*may_remove)(const HloInstruction&)) {
  std::vector<HloInstruction*> worklist = {instruction};
  absl::flat_hash_set<HloInstruction*> queued = {instruction};
  while (!worklist.empty()) {
    HloInstruction* current = worklist.back();
    worklist.pop_back();
    std::vector<HloInstruction*> operands = current->operands();
    absl::Status status = RemoveInstruction(current);
    if (!status.ok()) return status;
    for (HloInstruction* operand : operands) {
      if (queued.contains(operand) || !operand->users().empty() || operand == root_ ||
          operand->opcode() == HloOpcode::kParameter || !operand->control_predecessors().empty() ||
          !operand->control_successors().empty() || (may_remove != nullptr && !may_remove(*operand))) {
        continue;
      }
      queued.insert(operand);
      worklist.push_back(operand);
    }
  }
  return absl::OkStatus();
}

std::vector<HloInstruction*> HloComputation::MakeInstructionPostOrder() const {
  std::vector<HloInstruction*> order;
  order.reserve(instructions_.size());
  absl::flat_hash_set<const HloInstruction*> visited;
  // Iterative DFS so that deep graphs cannot overflow the stack.
  auto visit = [&](HloInstruction* start) {
    if (visited.contains(start)) return;
    std::vector<std::pair<HloInstruction*, size_t>> stack;
    stack.push_back({start, 0});
    visited.insert(start);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const size_t num_operands = node->operands().size();
      const size_t num_edges = num_operands + node->control_predecessors().size();
      if (next < num_edges) {
        HloInstruction* dep = next < num_operands ? node->operands()[next]
                                                  : node->control_predecessors()[next - num_operands];
        ++next;
        if (dep->parent() == this && !visited.contains(dep)) {
          visited.insert(dep);
          stack.push_back({dep, 0});
        }
        continue;
      }
      order.push_back(node);
      stack.pop_back();
    }
  };
  for (const auto& instruction : instructions_) {
    if (instruction.get() != root_) visit(instruction.get());
  }
  if (root_ != nullptr) visit(root_);
  return order;
}

ProgramShape HloComputation::ComputeProgramShape() const {
  ProgramShape program_shape;
  for (const HloInstruction* param : parameters_) {
    if (param == nullptr) continue;
    program_shape.parameters().push_back(param->shape());
    program_shape.parameter_names().push_back(param->name());
  }
  if (root_ != nullptr) program_shape.result() = root_->shape();
  return program_shape;
}

HloInstruction* HloComputation::GetInstructionWithName(const std::string& name) const {
  for (const auto& instruction : instructions_) {
    if (instruction->name() == name) return instruction.get();
  }
  return nullptr;
}

}  // namespace xla
