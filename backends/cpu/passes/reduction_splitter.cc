#include "backends/cpu/passes/reduction_splitter.h"

#include <algorithm>
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

// Number of partial reductions for `elements` inputs: a divisor near `min_chunks` (enough
// chunks to balance the threads, each long enough to vectorize), or 0 when there is none.
int64_t ChunkCount(int64_t elements, int64_t min_chunks) {
  for (int64_t t = min_chunks; t <= 16 * min_chunks; ++t) {
    if (elements % t == 0) return t;
  }
  for (int64_t t = min_chunks - 1; t >= 8; --t) {
    if (elements % t == 0) return t;
  }
  return 0;
}

// Whether both splitters may split `reduce`: one static array input, no control edges, and
// a reducer they may reassociate with its identity as the init value.
bool IsSplittable(const HloInstruction& reduce) {
  if (reduce.operand_count() != 2 || reduce.to_apply() == nullptr || !reduce.shape().IsArray() ||
      !reduce.shape().is_static() || !reduce.control_predecessors().empty() || !reduce.control_successors().empty()) {
    return false;
  }
  const Shape& shape = reduce.operand(0)->shape();
  double identity = 0;
  return shape.IsArray() && shape.is_static() && IdentityOf(*reduce.to_apply(), shape.element_type(), &identity) &&
         IsConstantWithValue(*reduce.operand(1), identity);
}

absl::StatusOr<bool> SplitIfWorthIt(HloComputation* computation, HloInstruction* reduce, int64_t min_chunks) {
  if (!IsSplittable(*reduce) || reduce->shape().rank() != 0) return false;
  HloInstruction* input = reduce->mutable_operand(0);
  HloInstruction* init = reduce->mutable_operand(1);
  const Shape& shape = input->shape();
  if (shape.has_layout() && !ShapeUtil::HasDescendingLayout(shape)) return false;
  const int64_t elements = ShapeUtil::ElementsIn(shape);
  if (elements < ReductionSplitter::kMinElements ||
      static_cast<int64_t>(reduce->dimensions().size()) != shape.rank()) {
    return false;
  }
  const int64_t chunks = ChunkCount(elements, min_chunks);
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

// The FewOutputReductionSplitter rewrite of `reduce` when it pays (see the header).
absl::StatusOr<bool> SplitFewOutputs(HloComputation* computation, HloInstruction* reduce, int64_t min_outputs,
                                     int64_t min_rows) {
  if (!IsSplittable(*reduce) || reduce->shape().rank() == 0) return false;
  HloInstruction* input = reduce->mutable_operand(0);
  HloInstruction* init = reduce->mutable_operand(1);
  const Shape& shape = input->shape();
  const int64_t outputs = ShapeUtil::ElementsIn(reduce->shape());
  if (outputs == 0 || outputs >= min_outputs) return false;
  // Fewer inputs per output are quick on a thread each (the combining step's are, too).
  if (ShapeUtil::ElementsIn(shape) / outputs < 1024) return false;
  // Runs of adjacent reduced dimensions act as one (a reshape merges them): x[N, H, W, C]
  // over N, H, W is x[N*H*W, C] over its first dimension.
  std::vector<bool> is_reduced(shape.rank(), false);
  for (int64_t i : reduce->dimensions()) {
    if (i < 0 || i >= shape.rank()) return false;
    is_reduced[i] = true;
  }
  std::vector<int64_t> group_size;
  std::vector<bool> group_reduced;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (is_reduced[i] && i > 0 && is_reduced[i - 1]) {
      group_size.back() *= shape.dimensions(i);
    } else {
      group_size.push_back(shape.dimensions(i));
      group_reduced.push_back(is_reduced[i]);
    }
  }
  const int64_t d = std::find(group_reduced.begin(), group_reduced.end(), true) - group_reduced.begin();
  if (d == static_cast<int64_t>(group_size.size())) return false;
  const int64_t size = group_size[d];
  // Reduced dimensions only at the end: the partials can be rows (see the header), unless
  // the reduction has min_rows rows already (a block each fills the device as it is, and one
  // kernel can then compute everything of a row, as a softmax's two reductions and output).
  const bool as_rows = min_rows > 0 && d + 1 == static_cast<int64_t>(group_size.size());
  if (as_rows && outputs >= min_rows) return false;
  // The first divisor giving min_outputs partial outputs (min_rows rows), else the largest
  // that still leaves 16 inputs per partial output (256 per row).
  const int64_t wanted = as_rows ? (min_rows + outputs - 1) / outputs : (min_outputs + outputs - 1) / outputs;
  const int64_t shortest = as_rows ? 256 : 16;
  int64_t chunks = 0;
  for (int64_t t = 2; t <= size / shortest; ++t) {
    if (size % t != 0) continue;
    chunks = t;
    if (t >= wanted) break;
  }
  if (chunks < 2) return false;
  const PrimitiveType type = shape.element_type();
  // x as its groups, group d split into [chunks, size / chunks].
  std::vector<int64_t> split_dims;
  HloInstructionProto partial_dims;
  std::vector<int64_t> partial_shape;
  int64_t chunk_position = -1;
  for (int64_t g = 0; g < static_cast<int64_t>(group_size.size()); ++g) {
    if (g == d) {
      chunk_position = static_cast<int64_t>(partial_shape.size());
      partial_shape.push_back(chunks);
      split_dims.push_back(chunks);
      partial_dims.add_dimensions(static_cast<int64_t>(split_dims.size()));
      split_dims.push_back(size / chunks);
      continue;
    }
    if (group_reduced[g]) {
      partial_dims.add_dimensions(static_cast<int64_t>(split_dims.size()));
    } else {
      partial_shape.push_back(group_size[g]);
    }
    split_dims.push_back(group_size[g]);
  }
  HloInstruction* partial = nullptr;
  if (as_rows) {
    // x[outputs * chunks, size / chunks] reduced along its rows, then seen as partial_shape.
    HloInstruction* rows = AddWithShape(
        computation, HloOpcode::kReshape,
        WithDefaultLayout(ShapeUtil::MakeShape(type, {outputs * chunks, size / chunks})), {input});
    HloInstructionProto along_rows;
    along_rows.add_dimensions(1);
    HloInstruction* row_sums = AddWithShape(
        computation, HloOpcode::kReduce, WithDefaultLayout(ShapeUtil::MakeShape(type, {outputs * chunks})),
        {rows, init}, along_rows);
    row_sums->AppendComputation(reduce->to_apply());
    partial = AddWithShape(computation, HloOpcode::kReshape,
                           WithDefaultLayout(ShapeUtil::MakeShape(type, partial_shape)), {row_sums});
  } else {
    HloInstruction* split = AddWithShape(computation, HloOpcode::kReshape,
                                         WithDefaultLayout(ShapeUtil::MakeShape(type, split_dims)), {input});
    partial = AddWithShape(computation, HloOpcode::kReduce, WithDefaultLayout(ShapeUtil::MakeShape(type, partial_shape)),
                           {split, init}, partial_dims);
    partial->AppendComputation(reduce->to_apply());
  }
  HloInstructionProto over_chunks;
  over_chunks.add_dimensions(chunk_position);
  HloInstruction* total = AddWithShape(computation, HloOpcode::kReduce, reduce->shape(), {partial, init}, over_chunks);
  total->AppendComputation(reduce->to_apply());
  RETURN_IF_ERROR(computation->ReplaceInstruction(reduce, total));
  return true;
}

// Runs `split` on every reduce outside fusions.
template <typename Split>
absl::StatusOr<bool> ForEachReduce(HloModule* module, Split split) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    if (computation->is_fusion_computation()) continue;
    std::vector<HloInstruction*> reduces;
    for (const auto& instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kReduce) reduces.push_back(instruction.get());
    }
    for (HloInstruction* reduce : reduces) {
      ASSIGN_OR_RETURN(bool done, split(computation, reduce));
      changed |= done;
    }
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> FewOutputReductionSplitter::Run(HloModule* module) {
  return ForEachReduce(module, [this](HloComputation* computation, HloInstruction* reduce) {
    return SplitFewOutputs(computation, reduce, min_outputs_, min_rows_);
  });
}

absl::StatusOr<bool> ReductionSplitter::Run(HloModule* module) {
  return ForEachReduce(module, [this](HloComputation* computation, HloInstruction* reduce) {
    return SplitIfWorthIt(computation, reduce, min_chunks_);
  });
}

}  // namespace cpu
}  // namespace xla
