#include "backends/cpu/passes/fold_transposes_into_dots.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/algorithm/container.h"
#include "hlo/hlo_computation.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

// `dims` (dimension numbers of a dot operand) read through `permutation`: operand dimension
// d is dimension permutation[d] of the transpose's operand.
void Permute(google::protobuf::RepeatedField<int64_t>* dims, const std::vector<int64_t>& permutation) {
  for (int64_t& d : *dims) d = permutation[d];
}

}  // namespace

absl::StatusOr<bool> FoldTransposesIntoDots(HloModule* module,
                                            const std::function<bool(const HloInstruction& dot)>& gemm) {
  bool changed = false;
  for (const std::unique_ptr<HloComputation>& computation : module->computations()) {
    if (computation->is_fusion_computation()) continue;  // a fused dot is computed per element
    for (HloInstruction* dot : computation->MakeInstructionPostOrder()) {
      if (dot->opcode() != HloOpcode::kDot || dot->operand_count() != 2) continue;
      for (int64_t i = 0; i < 2; ++i) {
        HloInstruction* transpose = dot->mutable_operand(i);
        if (transpose->opcode() != HloOpcode::kTranspose || dot->operand(1 - i) == transpose) continue;
        const int64_t r = transpose->shape().rank();
        if (r < 2) continue;
        std::vector<int64_t> swap(r);
        for (int64_t d = 0; d < r; ++d) swap[d] = d;
        std::swap(swap[r - 2], swap[r - 1]);
        if (!absl::c_equal(transpose->attrs().dimensions(), swap)) continue;
        DotDimensionNumbers* numbers = dot->mutable_attrs()->mutable_dot_dimension_numbers();
        auto* contracting = i == 0 ? numbers->mutable_lhs_contracting_dimensions() : numbers->mutable_rhs_contracting_dimensions();
        auto* batch = i == 0 ? numbers->mutable_lhs_batch_dimensions() : numbers->mutable_rhs_batch_dimensions();
        // Two free dimensions swapped would swap them in the result too.
        if (!absl::c_linear_search(*contracting, r - 2) && !absl::c_linear_search(*contracting, r - 1)) continue;
        if (absl::c_linear_search(*batch, r - 2) || absl::c_linear_search(*batch, r - 1)) continue;
        const DotDimensionNumbers before = *numbers;
        Permute(contracting, swap);
        RETURN_IF_ERROR(dot->ReplaceOperandWith(i, transpose->mutable_operand(0)));
        if (!gemm(*dot)) {  // read that way, no routine takes it: as it was
          *numbers = before;
          RETURN_IF_ERROR(dot->ReplaceOperandWith(i, transpose));
          continue;
        }
        if (transpose->users().empty() && transpose != computation->root_instruction()) {
          RETURN_IF_ERROR(computation->RemoveInstruction(transpose));
        }
        changed = true;
      }
    }
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
