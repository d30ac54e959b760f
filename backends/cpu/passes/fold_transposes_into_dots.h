#ifndef XLA_BACKENDS_CPU_PASSES_FOLD_TRANSPOSES_INTO_DOTS_H_
#define XLA_BACKENDS_CPU_PASSES_FOLD_TRANSPOSES_INTO_DOTS_H_

#include <functional>

#include "absl/status/statusor.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace cpu {

// After the pipeline: a dot operand that is a transpose swapping the operand's two minor
// dimensions (batch dimensions in front, at least one of the two contracted: how the dot
// decomposer writes x . w^T, or a gradient's x^T . g) is replaced by the transpose's own
// operand, the dot's dimension numbers reading it the other way round, when `gemm` says the
// dot so rewritten is still one GEMM call reading its operands where they are stored (a
// transposed operand is the routine's transpose flag: cblas's CblasTrans, cuBLAS's
// CUBLAS_OP_T). The transpose's pass over the operand is then saved; the transpose goes when
// nothing else reads it. Values are unchanged. Returns whether anything changed.
absl::StatusOr<bool> FoldTransposesIntoDots(HloModule* module,
                                            const std::function<bool(const HloInstruction& dot)>& gemm);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_FOLD_TRANSPOSES_INTO_DOTS_H_
