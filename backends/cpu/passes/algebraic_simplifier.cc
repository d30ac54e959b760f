#include "backends/cpu/passes/algebraic_simplifier.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "backends/cpu/passes/pass_util.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

bool IsFloatOrComplex(const HloInstruction& instruction) {
  const PrimitiveType type = instruction.shape().element_type();
  return primitive_util::IsFloatingPointType(type) || primitive_util::IsComplexType(type);
}

bool IsComplex(const HloInstruction& instruction) {
  return primitive_util::IsComplexType(instruction.shape().element_type());
}

bool IsIntegral(const HloInstruction& instruction) {
  const PrimitiveType type = instruction.shape().element_type();
  return primitive_util::IsIntegralType(type);
}

// The constant (or broadcast of a constant) whose every element is `value`, with the sign
// of zero checked when `negative_zero` is given.
bool IsAll(const HloInstruction& instruction, double value, int zero_sign = 0) {
  if (!IsEffectiveConstantWithValue(instruction, value)) return false;
  if (zero_sign == 0 || value != 0) return true;
  const HloInstruction& constant =
      instruction.opcode() == HloOpcode::kBroadcast ? *instruction.operand(0) : instruction;
  const Literal& literal = constant.literal();
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    const bool negative = std::signbit(literal.GetAsComplex(i).real());
    if (negative != (zero_sign < 0)) return false;
  }
  return true;
}

bool IsPredConstant(const HloInstruction& instruction, bool value) {
  return instruction.shape().element_type() == PRED && IsAll(instruction, value ? 1.0 : 0.0);
}

bool IsIdentityPermutation(absl::Span<const int64_t> permutation) {
  for (size_t i = 0; i < permutation.size(); ++i) {
    if (permutation[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

class Simplifier {
 public:
  explicit Simplifier(HloComputation* computation) : computation_(computation) {}

  absl::StatusOr<bool> Run() {
    bool changed = false;
    const std::vector<HloInstruction*> order = computation_->MakeInstructionPostOrder();
    const absl::flat_hash_set<const HloInstruction*> existing(order.begin(), order.end());
    for (HloInstruction* instruction : order) {
      if (removed_.contains(instruction)) continue;
      if (!instruction->control_predecessors().empty() || !instruction->control_successors().empty()) continue;
      ASSIGN_OR_RETURN(HloInstruction * replacement, Simplify(instruction));
      if (replacement == nullptr || replacement == instruction) continue;
      if (replacement->shape() != instruction->shape()) {
        // Layouts differ (or a new instruction's default layout is not the one needed):
        // leave it, and drop the new instruction if this rewrite made one.
        if (!existing.contains(replacement) && replacement->users().empty()) {
          RETURN_IF_ERROR(computation_->RemoveInstructionAndUnusedOperands(replacement, [](const HloInstruction& i) {
            return false;  // its operands existed before
          }));
        }
        continue;
      }
      RETURN_IF_ERROR(instruction->ReplaceAllUsesWith(replacement));
      if (computation_->root_instruction() == instruction) computation_->set_root_instruction(replacement);
      if (!HasSideEffect(*instruction)) {
        removed_.insert(instruction);
        RETURN_IF_ERROR(computation_->RemoveInstruction(instruction));
      }
      changed = true;
    }
    return changed;
  }

 private:
  absl::StatusOr<HloInstruction*> Add(HloOpcode opcode, absl::Span<HloInstruction* const> operands,
                                      const HloInstructionProto& attrs) {
    return AddInferred(computation_, opcode, operands, attrs);
  }

  // broadcast(scalar) to `shape`'s dimensions.
  absl::StatusOr<HloInstruction*> BroadcastScalar(HloInstruction* scalar, const Shape& shape) {
    Shape result = WithDefaultLayout(ShapeUtil::MakeShape(scalar->shape().element_type(), shape.dimensions()));
    return AddWithShape(computation_, HloOpcode::kBroadcast, result, {scalar});
  }

  absl::StatusOr<HloInstruction*> Simplify(HloInstruction* instruction) {
    HloInstruction* a = instruction->operand_count() > 0 ? instruction->mutable_operand(0) : nullptr;
    HloInstruction* b = instruction->operand_count() > 1 ? instruction->mutable_operand(1) : nullptr;
    const bool fp = IsFloatOrComplex(*instruction);
    switch (instruction->opcode()) {
      case HloOpcode::kAdd:
        if (IsComplex(*instruction)) return nullptr;  // the imaginary zero's sign is not checked
        for (int side = 0; side < 2; ++side) {
          HloInstruction* x = side == 0 ? a : b;
          HloInstruction* zero = side == 0 ? b : a;
          if (fp ? IsAll(*zero, 0, -1) : IsAll(*zero, 0)) return x;
        }
        return nullptr;
      case HloOpcode::kSubtract:
        if (IsComplex(*instruction)) return nullptr;
        if (fp ? IsAll(*b, 0, +1) : IsAll(*b, 0)) return a;
        return nullptr;
      case HloOpcode::kMultiply:
        for (int side = 0; side < 2; ++side) {
          HloInstruction* x = side == 0 ? a : b;
          HloInstruction* other = side == 0 ? b : a;
          if (IsAll(*other, 1)) return x;
          if (IsIntegral(*instruction) && IsAll(*other, 0)) return other;
        }
        return nullptr;
      case HloOpcode::kDivide:
        if (IsAll(*b, 1)) return a;
        return nullptr;
      case HloOpcode::kPower:
        if (IsAll(*b, 1)) return a;
        return nullptr;
      case HloOpcode::kAnd:
        if (IsPredConstant(*b, true)) return a;
        if (IsPredConstant(*a, true)) return b;
        return nullptr;
      case HloOpcode::kOr:
        if (IsPredConstant(*b, false)) return a;
        if (IsPredConstant(*a, false)) return b;
        return nullptr;
      case HloOpcode::kSelect: {
        HloInstruction* on_true = b;
        HloInstruction* on_false = instruction->mutable_operand(2);
        if (on_true == on_false) return on_true;
        if (IsPredConstant(*a, true)) return on_true;
        if (IsPredConstant(*a, false)) return on_false;
        return nullptr;
      }
      case HloOpcode::kNegate:
      case HloOpcode::kNot:
        if (a->opcode() == instruction->opcode()) return a->mutable_operand(0);
        return nullptr;
      case HloOpcode::kConvert:
        if (a->shape().element_type() == instruction->shape().element_type()) return a;
        return nullptr;
      case HloOpcode::kCopy:
        if (a->shape() == instruction->shape()) return a;
        return nullptr;
      case HloOpcode::kReshape:
        return SimplifyReshape(instruction, a);
      case HloOpcode::kBroadcast:
        return SimplifyBroadcast(instruction, a);
      case HloOpcode::kTranspose:
        return SimplifyTranspose(instruction, a);
      case HloOpcode::kSlice:
        return SimplifySlice(instruction, a);
      case HloOpcode::kConcatenate:
        if (instruction->operand_count() == 1) return a;
        return nullptr;
      case HloOpcode::kGetTupleElement: {
        const int64_t index = instruction->tuple_index();
        if (a->opcode() != HloOpcode::kTuple || index < 0 || index >= a->operand_count()) return nullptr;
        HloInstruction* element = a->mutable_operand(index);
        return element->shape() == instruction->shape() ? element : nullptr;
      }
      case HloOpcode::kReverse:
        if (instruction->dimensions().empty()) return a;
        for (int64_t d : instruction->dimensions()) {
          if (a->shape().dimensions(d) > 1) return nullptr;
        }
        return a;
      case HloOpcode::kPad: {
        for (const auto& dim : instruction->attrs().padding_config().dimensions()) {
          if (dim.edge_padding_low() != 0 || dim.edge_padding_high() != 0 || dim.interior_padding() != 0) {
            return nullptr;
          }
        }
        return a;
      }
      default:
        return nullptr;
    }
  }

  absl::StatusOr<HloInstruction*> SimplifyReshape(HloInstruction* reshape, HloInstruction* operand) {
    if (ShapeUtil::Compatible(reshape->shape(), operand->shape())) return operand;
    if (operand->opcode() == HloOpcode::kReshape) {
      // reshape(reshape(A)) -> reshape(A): reshapes only reinterpret the row-major order.
      HloInstruction* inner = operand->mutable_operand(0);
      if (ShapeUtil::Compatible(reshape->shape(), inner->shape())) return inner;
      return AddWithShape(computation_, HloOpcode::kReshape, reshape->shape(), {inner});
    }
    if (operand->opcode() == HloOpcode::kBroadcast && ShapeUtil::IsScalar(operand->operand(0)->shape())) {
      return BroadcastScalar(operand->mutable_operand(0), reshape->shape());
    }
    return nullptr;
  }

  absl::StatusOr<HloInstruction*> SimplifyBroadcast(HloInstruction* broadcast, HloInstruction* operand) {
    if (ShapeUtil::Compatible(broadcast->shape(), operand->shape()) &&
        IsIdentityPermutation(broadcast->dimensions())) {
      return operand;
    }
    if (operand->opcode() == HloOpcode::kBroadcast) {
      // broadcast(broadcast(A, d1), d2): A's dimension i lands at d2[d1[i]].
      HloInstructionProto attrs;
      for (int64_t d : operand->dimensions()) attrs.add_dimensions(broadcast->dimensions(d));
      return AddWithShape(computation_, HloOpcode::kBroadcast, broadcast->shape(), {operand->mutable_operand(0)},
                          attrs);
    }
    return nullptr;
  }

  absl::StatusOr<HloInstruction*> SimplifyTranspose(HloInstruction* transpose, HloInstruction* operand) {
    if (IsIdentityPermutation(transpose->dimensions())) return operand;
    if (operand->opcode() == HloOpcode::kTranspose) {
      // Output dim i of the outer reads dim p2[i] of the inner, which reads p1[p2[i]].
      HloInstructionProto attrs;
      for (int64_t d : transpose->dimensions()) attrs.add_dimensions(operand->dimensions(d));
      HloInstruction* inner = operand->mutable_operand(0);
      std::vector<int64_t> combined(attrs.dimensions().begin(), attrs.dimensions().end());
      if (IsIdentityPermutation(combined)) return inner;
      return AddWithShape(computation_, HloOpcode::kTranspose, transpose->shape(), {inner}, attrs);
    }
    if (operand->opcode() == HloOpcode::kBroadcast && ShapeUtil::IsScalar(operand->operand(0)->shape())) {
      return BroadcastScalar(operand->mutable_operand(0), transpose->shape());
    }
    return nullptr;
  }

  absl::StatusOr<HloInstruction*> SimplifySlice(HloInstruction* slice, HloInstruction* operand) {
    const auto& dims = slice->attrs().slice_dimensions();
    bool full = true;
    for (int i = 0; i < dims.size(); ++i) {
      full &= dims[i].start() == 0 && dims[i].limit() == operand->shape().dimensions(i) &&
              (dims[i].stride() == 1 || operand->shape().dimensions(i) <= 1);
    }
    if (full && ShapeUtil::Compatible(slice->shape(), operand->shape())) return operand;
    if (operand->opcode() == HloOpcode::kBroadcast && ShapeUtil::IsScalar(operand->operand(0)->shape())) {
      return BroadcastScalar(operand->mutable_operand(0), slice->shape());
    }
    if (operand->opcode() == HloOpcode::kSlice) {
      // slice(slice(A)): element j of the outer is inner start + stride_in * (s + stride_out * j).
      const auto& inner = operand->attrs().slice_dimensions();
      HloInstructionProto attrs;
      for (int i = 0; i < dims.size(); ++i) {
        auto* d = attrs.add_slice_dimensions();
        const int64_t count = slice->shape().dimensions(i);
        d->set_start(inner[i].start() + inner[i].stride() * dims[i].start());
        d->set_stride(inner[i].stride() * dims[i].stride());
        d->set_limit(count == 0 ? d->start() : d->start() + d->stride() * (count - 1) + 1);
      }
      return AddWithShape(computation_, HloOpcode::kSlice, slice->shape(), {operand->mutable_operand(0)}, attrs);
    }
    return nullptr;
  }

  HloComputation* computation_;
  absl::flat_hash_set<const HloInstruction*> removed_;
};

}  // namespace

absl::StatusOr<bool> AlgebraicSimplifier::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    Simplifier simplifier(computation);
    ASSIGN_OR_RETURN(bool c, simplifier.Run());
    changed |= c;
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
