#ifndef XLA_HLO_HLO_INSTRUCTION_H_
#define XLA_HLO_HLO_INSTRUCTION_H_

// One HLO instruction. Per-op attributes live in an HloInstructionProto (attrs()) under
// XLA's own field names, so every attribute of every opcode is carried and proto
// conversion is direct. Identity and graph structure (name, opcode, shape, operands,
// called computations, control edges, the constant's literal) live in the class.
//
// attrs() fields NOT used (kept empty): name, opcode, shape, id, operand_ids,
// control_predecessor_ids, called_computation_ids, literal. Everything else is used with
// XLA's meaning, including metadata, sharding, frontend_attributes, backend_config,
// statistics_viz, original_value, result_accuracy, comparison_direction/type, etc.
//
// Called computations are kept in XLA's order:
//   while: {body, condition} (XLA's kBodyComputationIndex = 0); conditional: branch computations in order (for a pred
//   conditional: {true, false}); select-and-scatter: {select, scatter}; map, reduce,
//   reduce-window, reduce-scatter, all-reduce(-start), scatter, sort, call, fusion,
//   async-start: {to_apply/calls}; custom-call: `called_computations` in order.
//
// Ownership: an HloComputation owns its instructions. Not thread-safe for mutation.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/hlo_opcode.h"
#include "hlo/shape.h"
#include "proto/hlo.pb.h"

namespace xla {

class HloComputation;
class Literal;

class HloInstruction {
 public:
  // A detached instruction; add it to a computation with HloComputation::AddInstruction.
  // Adds `this` as a user of each operand.
  static std::unique_ptr<HloInstruction> Create(HloOpcode opcode, const Shape& shape,
                                                absl::Span<HloInstruction* const> operands = {});
  HloInstruction(const HloInstruction&) = delete;
  HloInstruction& operator=(const HloInstruction&) = delete;
  ~HloInstruction();

  HloOpcode opcode() const { return opcode_; }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  // Id unique within the module (HloInstructionProto.id); -1 until assigned.
  int64_t unique_id() const { return unique_id_; }
  void set_unique_id(int64_t id) { unique_id_ = id; }

  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }
  void set_shape(Shape shape) { shape_ = std::move(shape); }

  // --- operands and users ---
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  const HloInstruction* operand(int64_t i) const { return operands_[i]; }
  HloInstruction* mutable_operand(int64_t i) { return operands_[i]; }
  const std::vector<HloInstruction*>& operands() const { return operands_; }
  void AppendOperand(HloInstruction* operand);
  // Replaces operand i, keeping user lists consistent.
  absl::Status ReplaceOperandWith(int64_t i, HloInstruction* new_operand);
  // Removes every operand (and this instruction from their user lists).
  void DetachFromOperands();
  // Users in the order they were added, without duplicates.
  const std::vector<HloInstruction*>& users() const { return users_; }
  int64_t user_count() const { return static_cast<int64_t>(users_.size()); }
  // Makes every user of this instruction use `new_producer` instead (every operand slot
  // that refers to this). The computation's root is not changed (see
  // HloComputation::ReplaceInstruction). Shapes must be compatible (layouts may differ).
  absl::Status ReplaceAllUsesWith(HloInstruction* new_producer);
  // Same, for one user only.
  absl::Status ReplaceUseWith(HloInstruction* user, HloInstruction* new_producer);
  // Operand slots of this instruction that refer to `operand`.
  std::vector<int64_t> OperandIndices(const HloInstruction* operand) const;

  // A detached copy with other operands and shape: opcode, attributes, literal, called
  // computations, name and text location are copied; users, control edges, parent and
  // unique id are not.
  std::unique_ptr<HloInstruction> CloneWithNewOperands(const Shape& shape,
                                                       absl::Span<HloInstruction* const> operands) const;

  // --- called computations ---
  const std::vector<HloComputation*>& called_computations() const { return called_computations_; }
  void AppendComputation(HloComputation* computation) { called_computations_.push_back(computation); }
  void set_called_computation(int64_t i, HloComputation* c) { called_computations_[i] = c; }
  void ClearCalledComputations() { called_computations_.clear(); }
  // Role accessors; return nullptr when the instruction has no such computation.
  HloComputation* to_apply() const;         // the single applied/called computation
  HloComputation* while_condition() const;  // while only
  HloComputation* while_body() const;       // while only
  HloComputation* select() const;           // select-and-scatter only
  HloComputation* scatter() const;          // select-and-scatter only

  // --- control dependencies ---
  const std::vector<HloInstruction*>& control_predecessors() const { return control_predecessors_; }
  const std::vector<HloInstruction*>& control_successors() const { return control_successors_; }
  // Adds this -> successor (successor runs after this). Idempotent.
  void AddControlDependencyTo(HloInstruction* successor);
  void RemoveAllControlDependencies();

  // --- attributes ---
  const HloInstructionProto& attrs() const { return attrs_; }
  HloInstructionProto* mutable_attrs() { return &attrs_; }

  // Constant value (constant instructions only).
  bool has_literal() const { return literal_ != nullptr; }
  const Literal& literal() const { return *literal_; }
  Literal* mutable_literal() { return literal_.get(); }
  void set_literal(Literal literal);

  // Shorthands over attrs().
  int64_t parameter_number() const { return attrs_.parameter_number(); }
  int64_t tuple_index() const { return attrs_.tuple_index(); }
  absl::Span<const int64_t> dimensions() const {
    return absl::Span<const int64_t>(attrs_.dimensions().data(), attrs_.dimensions_size());
  }
  int64_t dimensions(int64_t i) const { return attrs_.dimensions(static_cast<int>(i)); }

  // Where the instruction was defined in HLO text (1-based); 0 when it did not come from
  // text. The verifier and other passes use it to point errors at the source.
  int text_line() const { return text_line_; }
  int text_column() const { return text_column_; }
  void set_text_location(int line, int column) {
    text_line_ = line;
    text_column_ = column;
  }

  HloComputation* parent() const { return parent_; }
  void set_parent(HloComputation* parent) { parent_ = parent; }

  // Structural equality with another instruction: opcode, shape (with layout), attrs,
  // literal, operand positions via `operands_equal`, called computations via
  // `computations_equal`. Names and ids are ignored.
  template <typename OperandEq, typename CompEq>
  bool Identical(const HloInstruction& other, OperandEq operands_equal, CompEq computations_equal) const;
  // Attributes and literal equality only (used by Identical).
  bool AttributesEqual(const HloInstruction& other) const;

 private:
  HloInstruction(HloOpcode opcode, Shape shape);
  void RemoveUser(HloInstruction* user);
  void AddUser(HloInstruction* user);

  HloOpcode opcode_;
  std::string name_;
  int64_t unique_id_ = -1;
  Shape shape_;
  std::vector<HloInstruction*> operands_;
  std::vector<HloInstruction*> users_;
  std::vector<HloComputation*> called_computations_;
  std::vector<HloInstruction*> control_predecessors_;
  std::vector<HloInstruction*> control_successors_;
  HloInstructionProto attrs_;
  std::unique_ptr<Literal> literal_;
  HloComputation* parent_ = nullptr;
  int text_line_ = 0;
  int text_column_ = 0;
};

template <typename OperandEq, typename CompEq>
bool HloInstruction::Identical(const HloInstruction& other, OperandEq operands_equal,
                               CompEq computations_equal) const {
  if (opcode_ != other.opcode_ || shape_ != other.shape_ ||
      operands_.size() != other.operands_.size() ||
      called_computations_.size() != other.called_computations_.size()) {
    return false;
  }
  for (size_t i = 0; i < operands_.size(); ++i) {
    if (!operands_equal(operands_[i], other.operands_[i])) return false;
  }
  for (size_t i = 0; i < called_computations_.size(); ++i) {
    if (!computations_equal(called_computations_[i], other.called_computations_[i])) return false;
  }
  return AttributesEqual(other);
}

}  // namespace xla

#endif  // XLA_HLO_HLO_INSTRUCTION_H_
