#include "backends/cpu/passes/dot_decomposer.h"

#include <algorithm>
#include <vector>

#include "backends/cpu/passes/pass_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

std::vector<int64_t> ToVector(const google::protobuf::RepeatedField<int64_t>& field) {
  return std::vector<int64_t>(field.begin(), field.end());
}

bool IsCanonical(const HloInstruction& dot) {
  const DotDimensionNumbers& d = dot.attrs().dot_dimension_numbers();
  const int64_t lhs_rank = dot.operand(0)->shape().rank();
  const int64_t rhs_rank = dot.operand(1)->shape().rank();
  if (d.lhs_batch_dimensions_size() == 0) {
    return lhs_rank == 2 && rhs_rank == 2 && ToVector(d.lhs_contracting_dimensions()) == std::vector<int64_t>{1} &&
           ToVector(d.rhs_contracting_dimensions()) == std::vector<int64_t>{0};
  }
  return lhs_rank == 3 && rhs_rank == 3 && ToVector(d.lhs_batch_dimensions()) == std::vector<int64_t>{0} &&
         ToVector(d.rhs_batch_dimensions()) == std::vector<int64_t>{0} &&
         ToVector(d.lhs_contracting_dimensions()) == std::vector<int64_t>{2} &&
         ToVector(d.rhs_contracting_dimensions()) == std::vector<int64_t>{1};
}

bool Decomposable(const HloInstruction& dot) {
  if (dot.opcode() != HloOpcode::kDot || dot.operand_count() != 2 || !dot.shape().IsArray() ||
      !dot.shape().is_static() || !dot.control_predecessors().empty() || !dot.control_successors().empty()) {
    return false;
  }
  for (const HloInstruction* operand : dot.operands()) {
    if (!operand->shape().IsArray() || !operand->shape().is_static()) return false;
  }
  const DotDimensionNumbers& d = dot.attrs().dot_dimension_numbers();
  return d.lhs_batch_dimensions_size() == d.rhs_batch_dimensions_size() &&
         d.lhs_contracting_dimensions_size() == d.rhs_contracting_dimensions_size() && !IsCanonical(dot);
}

int64_t Product(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= shape.dimensions(d);
  return p;
}

std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& batch, const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}

// transpose(operand, permutation) then reshape to `dims` (each skipped when it would do nothing).
HloInstruction* Arrange(HloComputation* computation, HloInstruction* operand, const std::vector<int64_t>& permutation,
                        const std::vector<int64_t>& dims) {
  const Shape& shape = operand->shape();
  bool identity = true;
  for (size_t i = 0; i < permutation.size(); ++i) identity &= permutation[i] == static_cast<int64_t>(i);
  HloInstruction* value = operand;
  if (!identity) {
    std::vector<int64_t> permuted;
    HloInstructionProto attrs;
    for (int64_t p : permutation) {
      permuted.push_back(shape.dimensions(p));
      attrs.add_dimensions(p);
    }
    value = AddWithShape(computation, HloOpcode::kTranspose,
                         WithDefaultLayout(ShapeUtil::MakeShape(shape.element_type(), permuted)), {value}, attrs);
  }
  if (value->shape().dimensions() != dims) {
    value = AddWithShape(computation, HloOpcode::kReshape,
                         WithDefaultLayout(ShapeUtil::MakeShape(shape.element_type(), dims)), {value});
  }
  return value;
}

absl::Status Decompose(HloComputation* computation, HloInstruction* dot) {
  const DotDimensionNumbers& d = dot->attrs().dot_dimension_numbers();
  HloInstruction* lhs = dot->mutable_operand(0);
  HloInstruction* rhs = dot->mutable_operand(1);
  const std::vector<int64_t> lhs_batch = ToVector(d.lhs_batch_dimensions());
  const std::vector<int64_t> rhs_batch = ToVector(d.rhs_batch_dimensions());
  const std::vector<int64_t> lhs_contracting = ToVector(d.lhs_contracting_dimensions());
  const std::vector<int64_t> rhs_contracting = ToVector(d.rhs_contracting_dimensions());
  const std::vector<int64_t> lhs_free = FreeDims(lhs->shape().rank(), lhs_batch, lhs_contracting);
  const std::vector<int64_t> rhs_free = FreeDims(rhs->shape().rank(), rhs_batch, rhs_contracting);
  const int64_t b = Product(lhs->shape(), lhs_batch);
  const int64_t m = Product(lhs->shape(), lhs_free);
  const int64_t k = Product(lhs->shape(), lhs_contracting);
  const int64_t n = Product(rhs->shape(), rhs_free);
  const bool batched = !lhs_batch.empty();

  std::vector<int64_t> lhs_perm = lhs_batch;
  lhs_perm.insert(lhs_perm.end(), lhs_free.begin(), lhs_free.end());
  lhs_perm.insert(lhs_perm.end(), lhs_contracting.begin(), lhs_contracting.end());
  std::vector<int64_t> rhs_perm = rhs_batch;
  rhs_perm.insert(rhs_perm.end(), rhs_contracting.begin(), rhs_contracting.end());
  rhs_perm.insert(rhs_perm.end(), rhs_free.begin(), rhs_free.end());
  std::vector<int64_t> lhs_dims = batched ? std::vector<int64_t>{b, m, k} : std::vector<int64_t>{m, k};
  std::vector<int64_t> rhs_dims = batched ? std::vector<int64_t>{b, k, n} : std::vector<int64_t>{k, n};
  std::vector<int64_t> out_dims = batched ? std::vector<int64_t>{b, m, n} : std::vector<int64_t>{m, n};

  HloInstruction* new_lhs = Arrange(computation, lhs, lhs_perm, lhs_dims);
  HloInstruction* new_rhs = Arrange(computation, rhs, rhs_perm, rhs_dims);
  HloInstructionProto attrs = dot->attrs();
  DotDimensionNumbers* dnums = attrs.mutable_dot_dimension_numbers();
  dnums->Clear();
  if (batched) {
    dnums->add_lhs_batch_dimensions(0);
    dnums->add_rhs_batch_dimensions(0);
  }
  dnums->add_lhs_contracting_dimensions(batched ? 2 : 1);
  dnums->add_rhs_contracting_dimensions(batched ? 1 : 0);
  HloInstruction* canonical =
      AddWithShape(computation, HloOpcode::kDot,
                   WithDefaultLayout(ShapeUtil::MakeShape(dot->shape().element_type(), out_dims)), {new_lhs, new_rhs},
                   attrs);
  // The canonical result [b, m, n] is the original [batch..., lhs free..., rhs free...] in
  // row-major order: a reshape (with the original's layout) restores it.
  HloInstruction* result = AddWithShape(computation, HloOpcode::kReshape, dot->shape(), {canonical});
  return computation->ReplaceInstruction(dot, result);
}

}  // namespace

absl::StatusOr<bool> DotDecomposer::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    if (computation->is_fusion_computation()) continue;
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (!Decomposable(*instruction)) continue;
      RETURN_IF_ERROR(Decompose(computation, instruction));
      changed = true;
    }
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
