#include "backends/cpu/passes/operand_forms.h"

#include <vector>

#include "absl/strings/str_cat.h"

#include "backends/cpu/passes/pass_util.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

// Operand `i` of `hlo` converted to element type `type` when both are floating-point and
// differ; false when nothing was done.
absl::StatusOr<bool> ConvertOperandTo(HloComputation* c, HloInstruction* hlo, int64_t i, PrimitiveType type) {
  HloInstruction* operand = hlo->mutable_operand(i);
  const PrimitiveType have = operand->shape().IsArray() ? operand->shape().element_type() : PRIMITIVE_TYPE_INVALID;
  if (have == type || !primitive_util::IsFloatingPointType(have) || !primitive_util::IsFloatingPointType(type)) {
    return false;
  }
  Shape shape = operand->shape();
  shape.set_element_type(type);
  RETURN_IF_ERROR(hlo->ReplaceOperandWith(i, AddWithShape(c, HloOpcode::kConvert, shape, {operand})));
  return true;
}

// Reduce and reduce-window: operands are N inputs then N inits; the reducer takes N
// accumulators (the inits' types) then N elements (the inputs' types).
absl::StatusOr<bool> MatchReducerTypes(HloComputation* c, HloInstruction* hlo) {
  const HloComputation* reducer = hlo->to_apply();
  const int64_t n = hlo->operand_count() / 2;
  if (reducer == nullptr || hlo->operand_count() % 2 != 0 ||
      static_cast<int64_t>(reducer->parameter_instructions().size()) != 2 * n) {
    return false;  // malformed: left to the emitters' errors
  }
  bool changed = false;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& accumulator = reducer->parameter_instructions()[i]->shape();
    const Shape& element = reducer->parameter_instructions()[n + i]->shape();
    const Shape& result = hlo->shape().IsTuple() ? hlo->shape().tuple_shapes(static_cast<int>(i)) : hlo->shape();
    if (!accumulator.IsArray() || !element.IsArray() || !result.IsArray()) continue;
    const Shape& init = hlo->operand(n + i)->shape();
    if (init.IsArray() && init.element_type() != accumulator.element_type() &&
        result.element_type() != accumulator.element_type()) {
      // The result takes the init's type (XLA's shape rules): a reducer's values of one type
      // rounded into another at each step is a form no emitter here reads.
      return absl::UnimplementedError(absl::StrCat(
          hlo->name(), ": an init value and result of ", PrimitiveType_Name(init.element_type()),
          " for a reducer of ", PrimitiveType_Name(accumulator.element_type()), " is not supported on this backend"));
    }
    ASSIGN_OR_RETURN(bool input, ConvertOperandTo(c, hlo, i, element.element_type()));
    ASSIGN_OR_RETURN(bool converted_init, ConvertOperandTo(c, hlo, n + i, accumulator.element_type()));
    changed = changed || input || converted_init;
  }
  return changed;
}

// dynamic-slice(operand, indices[rank]) -> dynamic-slice(operand, i0, i1, ...); likewise
// dynamic-update-slice(operand, update, indices[rank]).
absl::StatusOr<bool> ScalarStartIndices(HloComputation* c, HloInstruction* hlo) {
  const int64_t first = hlo->opcode() == HloOpcode::kDynamicSlice ? 1 : 2;
  if (hlo->operand_count() != first + 1) return false;
  HloInstruction* indices = hlo->mutable_operand(first);
  const int64_t rank = hlo->operand(0)->shape().IsArray() ? hlo->operand(0)->shape().rank() : -1;
  if (!indices->shape().IsArray() || indices->shape().rank() != 1 || rank < 1 ||
      indices->shape().dimensions(0) != rank) {
    return false;
  }
  std::vector<HloInstruction*> operands(hlo->operands().begin(), hlo->operands().begin() + first);
  const PrimitiveType type = indices->shape().element_type();
  for (int64_t d = 0; d < rank; ++d) {
    HloInstructionProto attrs;
    HloInstructionProto::SliceDimensions* range = attrs.add_slice_dimensions();
    range->set_start(d);
    range->set_limit(d + 1);
    range->set_stride(1);
    HloInstruction* one = AddWithShape(c, HloOpcode::kSlice, WithDefaultLayout(ShapeUtil::MakeShape(type, {1})),
                                       {indices}, attrs);
    operands.push_back(AddWithShape(c, HloOpcode::kReshape, ShapeUtil::MakeShape(type, {}), {one}));
  }
  HloInstruction* scalar_form = AddWithShape(c, hlo->opcode(), hlo->shape(), operands, hlo->attrs());
  RETURN_IF_ERROR(c->ReplaceInstruction(hlo, scalar_form));
  return true;
}

}  // namespace

absl::StatusOr<bool> OperandFormNormalizer::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      bool here = false;
      switch (hlo->opcode()) {
        case HloOpcode::kReduce:
        case HloOpcode::kReduceWindow: {
          ASSIGN_OR_RETURN(here, MatchReducerTypes(computation, hlo));
          break;
        }
        case HloOpcode::kDynamicSlice:
        case HloOpcode::kDynamicUpdateSlice: {
          ASSIGN_OR_RETURN(here, ScalarStartIndices(computation, hlo));
          break;
        }
        default:
          break;
      }
      changed = changed || here;
    }
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
