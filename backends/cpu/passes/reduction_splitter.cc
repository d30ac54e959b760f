#include "backends/cpu/passes/reduction_splitter.h"

#include <cmath>
#include <vector>

#include "backends/cpu/passes/pass_util.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

// Sets the reducer's identity for `type`; false when the reducer is not one whose partial
// results may be combined in any order.
bool IdentityOf(const HloComputation& reducer, PrimitiveType type, double* identity) {
  const HloInstruction* root = reducer.root_instruction();
  if (reducer.num_parameters() != 2 || root->operand_count() != 2 ||
      root->operand(0)->opcode() != HloOpcode::kParameter || root->operand(1)->opcode() != HloOpcode::kParameter ||
      root->operand(0) == root->operand(1)) {
    return false;
  }
  // f16/bf16 sums accumulate in f32 and round once; partials would round T times more.
  const bool is_float = type == F32 || type == F64;
  const bool is_int = primitive_util::IsIntegralType(type);
  switch (root->opcode()) {
    case HloOpcode::kAdd:
      *identity = 0;
      return is_float || is_int;
    case HloOpcode::kMultiply:
      *identity = 1;
      return is_float || is_int;
    case HloOpcode::kMaximum:
      *identity = -INFINITY;
      return is_float;
    case HloOpcode::kMinimum:
      *identity = INFINITY;
      return is_float;
    default:
      return false;
  }
}

// Number of partial reductions for `elements` inputs: a divisor near 64 (enough chunks to
// balance the threads, each long enough to vectorize), or 0 when there is none.
int64_t ChunkCount(int64_t elements) {
  for (int64_t t = 64; t <= 1024; ++t) {
    if (elements % t == 0) return t;
  }
  for (int64_t t = 63; t >= 8; --t) {
    if (elements % t == 0) return t;
  }
  return 0;
}

absl::StatusOr<bool> SplitIfWorthIt(HloComputation* computation, HloInstruction* reduce) {
  if (reduce->operand_count() != 2 || reduce->to_apply() == nullptr || !reduce->shape().IsArray() ||
      reduce->shape().rank() != 0 || !reduce->control_predecessors().empty() ||
      !reduce->control_successors().empty()) {
    return false;
  }
  HloInstruction* input = reduce->mutable_operand(0);
  HloInstruction* init = reduce->mutable_operand(1);
  const Shape& shape = input->shape();
  if (!shape.IsArray() || !shape.is_static() || (shape.has_layout() && !ShapeUtil::HasDescendingLayout(shape))) {
    return false;
  }
  const int64_t elements = ShapeUtil::ElementsIn(shape);
  if (elements < ReductionSplitter::kMinElements ||
      static_cast<int64_t>(reduce->dimensions().size()) != shape.rank()) {
    return false;
  }
  double identity = 0;
  if (!IdentityOf(*reduce->to_apply(), shape.element_type(), &identity) || !IsConstantWithValue(*init, identity)) {
    return false;
  }
  const int64_t chunks = ChunkCount(elements);
  if (chunks == 0) return false;
  const PrimitiveType type = shape.element_type();
  HloInstruction* rows = AddWithShape(computation, HloOpcode::kReshape,
                                      WithDefaultLayout(ShapeUtil::MakeShape(type, {chunks, elements / chunks})), {input});
  HloInstructionProto along_rows;
  along_rows.add_dimensions(1);
  HloInstruction* partial =
      AddWithShape(computation, HloOpcode::kReduce, WithDefaultLayout(ShapeUtil::MakeShape(type, {chunks})),
                   {rows, init}, along_rows);
  partial->AppendComputation(reduce->to_apply());
  HloInstructionProto all;
  all.add_dimensions(0);
  HloInstruction* total = AddWithShape(computation, HloOpcode::kReduce, reduce->shape(), {partial, init}, all);
  total->AppendComputation(reduce->to_apply());
  RETURN_IF_ERROR(computation->ReplaceInstruction(reduce, total));
  return true;
}

}  // namespace

absl::StatusOr<bool> ReductionSplitter::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    if (computation->is_fusion_computation()) continue;
    std::vector<HloInstruction*> reduces;
    for (const auto& instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kReduce) reduces.push_back(instruction.get());
    }
    for (HloInstruction* reduce : reduces) {
      ASSIGN_OR_RETURN(bool split, SplitIfWorthIt(computation, reduce));
      changed |= split;
    }
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
