#include "backends/cpu/passes/layout_assignment.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "backends/cpu/passes/pass_util.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

bool IsDefaultEverywhere(const Shape& shape) { return shape == WithDefaultLayout(shape); }

// Copies `value` (laid out as its shape says) into `target`'s layouts, leaf by leaf; returns
// `value` itself when nothing differs. New instructions are recorded in `created`.
HloInstruction* Relayout(HloComputation* computation, HloInstruction* value, const Shape& target,
                         absl::flat_hash_set<HloInstruction*>* created) {
  if (value->shape() == target) return value;
  if (target.IsArray()) {
    HloInstruction* copy = AddWithShape(computation, HloOpcode::kCopy, target, {value});
    created->insert(copy);
    return copy;
  }
  if (!target.IsTuple()) return value;  // tokens and opaque values have no layout
  std::vector<HloInstruction*> elements;
  for (int64_t i = 0; i < target.tuple_shapes_size(); ++i) {
    HloInstructionProto attrs;
    attrs.set_tuple_index(i);
    HloInstruction* element =
        AddWithShape(computation, HloOpcode::kGetTupleElement, value->shape().tuple_shapes(i), {value}, attrs);
    created->insert(element);
    elements.push_back(Relayout(computation, element, target.tuple_shapes(i), created));
  }
  HloInstruction* tuple = AddWithShape(computation, HloOpcode::kTuple, target, elements);
  created->insert(tuple);
  return tuple;
}

// Makes every user of `value` (other than the normalizing instructions) read a row-major
// copy of it.
absl::StatusOr<bool> NormalizeUses(HloComputation* computation, HloInstruction* value) {
  const Shape target = WithDefaultLayout(value->shape());
  if (value->shape() == target || value->users().empty()) return false;
  absl::flat_hash_set<HloInstruction*> created;
  HloInstruction* normalized = Relayout(computation, value, target, &created);
  const std::vector<HloInstruction*> users = value->users();
  for (HloInstruction* user : users) {
    if (created.contains(user)) continue;
    RETURN_IF_ERROR(value->ReplaceUseWith(user, normalized));
  }
  return true;
}

std::vector<int64_t> MajorToMinor(const Shape& shape) {
  if (!shape.has_layout()) {
    std::vector<int64_t> order(shape.rank());
    for (int64_t i = 0; i < shape.rank(); ++i) order[i] = i;
    return order;
  }
  const auto& m2m = shape.layout().minor_to_major();
  return std::vector<int64_t>(m2m.rbegin(), m2m.rend());
}

HloInstruction* TransposeIfNeeded(HloComputation* computation, HloInstruction* value,
                                  const std::vector<int64_t>& permutation) {
  bool identity = true;
  for (size_t i = 0; i < permutation.size(); ++i) identity &= permutation[i] == static_cast<int64_t>(i);
  if (identity) return value;
  HloInstructionProto attrs;
  std::vector<int64_t> dims;
  for (int64_t p : permutation) {
    attrs.add_dimensions(p);
    dims.push_back(value->shape().dimensions(p));
  }
  return AddWithShape(computation, HloOpcode::kTranspose,
                      WithDefaultLayout(ShapeUtil::MakeShape(value->shape().element_type(), dims)), {value}, attrs);
}

// A bitcast reinterprets its operand's buffer, so its meaning depends on both layouts.
// Before every value becomes row-major, it is rewritten into layout-free ops with the
// same result: transpose the operand into its physical order, reshape (and
// bitcast-convert for another element type of the same width) into the result's physical
// order, transpose into the result's logical order.
absl::StatusOr<bool> RewriteBitcast(HloComputation* computation, HloInstruction* bitcast) {
  HloInstruction* operand = bitcast->mutable_operand(0);
  const Shape& in = operand->shape();
  const Shape& out = bitcast->shape();
  if (!in.IsArray() || !out.IsArray() || !in.is_static() || !out.is_static() ||
      ShapeUtil::ElementsIn(in) != ShapeUtil::ElementsIn(out) ||
      primitive_util::BitWidth(in.element_type()) != primitive_util::BitWidth(out.element_type()) ||
      !bitcast->control_predecessors().empty() || !bitcast->control_successors().empty()) {
    return false;
  }
  HloInstruction* physical = TransposeIfNeeded(computation, operand, MajorToMinor(in));
  const std::vector<int64_t> out_order = MajorToMinor(out);
  std::vector<int64_t> out_physical_dims;
  for (int64_t d : out_order) out_physical_dims.push_back(out.dimensions(d));
  HloInstruction* value = physical;
  if (value->shape().dimensions() != out_physical_dims) {
    value = AddWithShape(computation, HloOpcode::kReshape,
                         WithDefaultLayout(ShapeUtil::MakeShape(in.element_type(), out_physical_dims)), {value});
  }
  if (in.element_type() != out.element_type()) {
    value = AddWithShape(computation, HloOpcode::kBitcastConvert,
                         WithDefaultLayout(ShapeUtil::MakeShape(out.element_type(), out_physical_dims)), {value});
  }
  std::vector<int64_t> inverse(out_order.size());
  for (size_t i = 0; i < out_order.size(); ++i) inverse[out_order[i]] = static_cast<int64_t>(i);
  value = TransposeIfNeeded(computation, value, inverse);
  if (value == operand) {
    value = AddWithShape(computation, HloOpcode::kCopy, WithDefaultLayout(in), {operand});
  }
  RETURN_IF_ERROR(bitcast->ReplaceAllUsesWith(value));
  if (computation->root_instruction() == bitcast) computation->set_root_instruction(value);
  RETURN_IF_ERROR(computation->RemoveInstruction(bitcast));
  return true;
}

}  // namespace

absl::StatusOr<bool> LayoutAssignment::Run(HloModule* module) {
  HloComputation* entry = module->entry_computation();
  if (entry == nullptr) return absl::InvalidArgumentError("module has no entry computation");
  const auto& entry_layout = module->config().entry_computation_layout;
  // The interface layouts, read before anything changes.
  Shape result_shape = entry_layout.has_value() ? entry_layout->result() : entry->root_instruction()->shape();
  ShapeUtil::SetDefaultLayoutsIfMissing(&result_shape);
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kBitcast) continue;
      ASSIGN_OR_RETURN(bool c, RewriteBitcast(computation, instruction));
      changed |= c;
    }
  }

  std::vector<HloInstruction*> fixed;  // values that keep a non-row-major layout
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      const bool entry_parameter =
          computation == entry && instruction->opcode() == HloOpcode::kParameter;
      if (entry_parameter) {
        Shape shape = instruction->shape();
        const int64_t number = instruction->parameter_number();
        if (entry_layout.has_value() && number < static_cast<int64_t>(entry_layout->parameters().size())) {
          shape = entry_layout->parameters()[number];
        }
        ShapeUtil::SetDefaultLayoutsIfMissing(&shape);
        if (shape != instruction->shape()) {
          instruction->set_shape(shape);
          changed = true;
        }
        if (!IsDefaultEverywhere(shape)) fixed.push_back(instruction);
        continue;
      }
      if (instruction->opcode() == HloOpcode::kCustomCall) {
        Shape shape = instruction->shape();
        ShapeUtil::SetDefaultLayoutsIfMissing(&shape);
        if (shape != instruction->shape()) {
          instruction->set_shape(shape);
          changed = true;
        }
        if (!IsDefaultEverywhere(shape)) fixed.push_back(instruction);
        continue;
      }
      const Shape target = WithDefaultLayout(instruction->shape());
      if (target == instruction->shape()) continue;
      if (instruction->opcode() == HloOpcode::kConstant && instruction->has_literal() && target.IsArray()) {
        ASSIGN_OR_RETURN(Literal relaid, instruction->literal().Relayout(target.layout()));
        instruction->set_literal(std::move(relaid));
      }
      instruction->set_shape(target);
      changed = true;
    }
  }
  for (HloInstruction* value : fixed) {
    ASSIGN_OR_RETURN(bool c, NormalizeUses(value->parent(), value));
    changed |= c;
  }

  HloInstruction* root = entry->root_instruction();
  if (root->shape() != result_shape && ShapeUtil::Compatible(root->shape(), result_shape)) {
    absl::flat_hash_set<HloInstruction*> created;
    entry->set_root_instruction(Relayout(entry, root, result_shape, &created));
    changed = true;
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
