#include "hlo/hlo_instruction.h"

#include <algorithm>

#include "google/protobuf/util/message_differencer.h"
#include "hlo/hlo_computation.h"
#include "hlo/literal.h"
#include "hlo/shape_util.h"
#include "absl/strings/str_cat.h"

namespace xla {

HloInstruction::HloInstruction(HloOpcode opcode, Shape shape)
    : opcode_(opcode), shape_(std::move(shape)) {}

HloInstruction::~HloInstruction() = default;

std::unique_ptr<HloInstruction> HloInstruction::Create(HloOpcode opcode, const Shape& shape,
                                                       absl::Span<HloInstruction* const> operands) {
  std::unique_ptr<HloInstruction> instruction(new HloInstruction(opcode, shape));
  for (HloInstruction* operand : operands) instruction->AppendOperand(operand);
  return instruction;
}

void HloInstruction::AddUser(HloInstruction* user) {
  if (std::find(users_.begin(), users_.end(), user) == users_.end()) users_.push_back(user);
}

void HloInstruction::RemoveUser(HloInstruction* user) {
  // Only drop the user edge when `user` no longer refers to this instruction at all.
  if (std::find(user->operands_.begin(), user->operands_.end(), this) != user->operands_.end()) {
    return;
  }
  users_.erase(std::remove(users_.begin(), users_.end(), user), users_.end());
}

void HloInstruction::AppendOperand(HloInstruction* operand) {
  operands_.push_back(operand);
  operand->AddUser(this);
}

absl::Status HloInstruction::ReplaceOperandWith(int64_t i, HloInstruction* new_operand) {
  if (i < 0 || i >= operand_count()) {
    return absl::InvalidArgumentError(absl::StrCat("operand index ", i, " out of range for ",
                                                   name_, " with ", operand_count(), " operands"));
  }
  HloInstruction* old_operand = operands_[i];
  operands_[i] = new_operand;
  old_operand->RemoveUser(this);
  new_operand->AddUser(this);
  return absl::OkStatus();
}

std::vector<int64_t> HloInstruction::OperandIndices(const HloInstruction* operand) const {
  std::vector<int64_t> indices;
  for (int64_t i = 0; i < operand_count(); ++i) {
    if (operands_[i] == operand) indices.push_back(i);
  }
  return indices;
}

absl::Status HloInstruction::ReplaceUseWith(HloInstruction* user, HloInstruction* new_producer) {
  if (new_producer == this) return absl::OkStatus();
  if (!ShapeUtil::Compatible(shape_, new_producer->shape())) {
    return absl::InvalidArgumentError(absl::StrCat("cannot replace ", name_, " (", shape_.ToString(),
                                                   ") with ", new_producer->name(), " (",
                                                   new_producer->shape().ToString(), ")"));
  }
  const std::vector<int64_t> indices = user->OperandIndices(this);
  if (indices.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(user->name(), " does not use ", name_));
  }
  for (int64_t i : indices) {
    absl::Status status = user->ReplaceOperandWith(i, new_producer);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status HloInstruction::ReplaceAllUsesWith(HloInstruction* new_producer) {
  if (new_producer == this) return absl::OkStatus();
  // Copy: ReplaceUseWith edits users_.
  const std::vector<HloInstruction*> users = users_;
  for (HloInstruction* user : users) {
    absl::Status status = ReplaceUseWith(user, new_producer);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

std::unique_ptr<HloInstruction> HloInstruction::CloneWithNewOperands(
    const Shape& shape, absl::Span<HloInstruction* const> operands) const {
  std::unique_ptr<HloInstruction> clone = Create(opcode_, shape, operands);
  clone->name_ = name_;
  clone->attrs_ = attrs_;
  clone->called_computations_ = called_computations_;
  if (literal_ != nullptr) clone->literal_ = std::make_unique<Literal>(literal_->Clone());
  clone->text_line_ = text_line_;
  clone->text_column_ = text_column_;
  return clone;
}

void HloInstruction::DetachFromOperands() {
  std::vector<HloInstruction*> old = std::move(operands_);
  operands_.clear();
  for (HloInstruction* operand : old) operand->RemoveUser(this);
}

HloComputation* HloInstruction::to_apply() const {
  return called_computations_.empty() ? nullptr : called_computations_[0];
}

HloComputation* HloInstruction::while_condition() const {
  if (opcode_ != HloOpcode::kWhile || called_computations_.size() != 2) return nullptr;
  return called_computations_[1];
}

HloComputation* HloInstruction::while_body() const {
  if (opcode_ != HloOpcode::kWhile || called_computations_.size() != 2) return nullptr;
  return called_computations_[0];
}

HloComputation* HloInstruction::select() const {
  if (opcode_ != HloOpcode::kSelectAndScatter || called_computations_.size() != 2) return nullptr;
  return called_computations_[0];
}

HloComputation* HloInstruction::scatter() const {
  if (opcode_ != HloOpcode::kSelectAndScatter || called_computations_.size() != 2) return nullptr;
  return called_computations_[1];
}

void HloInstruction::AddControlDependencyTo(HloInstruction* successor) {
  if (std::find(control_successors_.begin(), control_successors_.end(), successor) !=
      control_successors_.end()) {
    return;
  }
  control_successors_.push_back(successor);
  successor->control_predecessors_.push_back(this);
}

void HloInstruction::RemoveAllControlDependencies() {
  for (HloInstruction* pred : control_predecessors_) {
    auto& succs = pred->control_successors_;
    succs.erase(std::remove(succs.begin(), succs.end(), this), succs.end());
  }
  for (HloInstruction* succ : control_successors_) {
    auto& preds = succ->control_predecessors_;
    preds.erase(std::remove(preds.begin(), preds.end(), this), preds.end());
  }
  control_predecessors_.clear();
  control_successors_.clear();
}

void HloInstruction::set_literal(Literal literal) {
  literal_ = std::make_unique<Literal>(std::move(literal));
}

bool HloInstruction::AttributesEqual(const HloInstruction& other) const {
  if (has_literal() != other.has_literal()) return false;
  if (has_literal() && !(literal() == other.literal())) return false;
  return google::protobuf::util::MessageDifferencer::Equals(attrs_, other.attrs_);
}

}  // namespace xla
