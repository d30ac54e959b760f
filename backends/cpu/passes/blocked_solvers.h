#ifndef XLA_BACKENDS_CPU_PASSES_BLOCKED_SOLVERS_H_
#define XLA_BACKENDS_CPU_PASSES_BLOCKED_SOLVERS_H_

// Large cholesky and triangular-solve as loops of small ones and dots, for the gpu
// (ExpandForGpu). Its solver kernels (ptx_linalg.cc) run a matrix's factorization or a
// right-hand side's substitution in order on one thread, in double: fine for batches of
// small matrices, hopeless for one large one (a 4096 x 4096 cholesky is 2e10 dependent
// multiply-adds). Blocked, the serial part shrinks to `block`-sized diagonal blocks and the
// bulk becomes dots (cuBLAS). (The cpu ran this with 64-row blocks until its runtime handed
// large matrices to LAPACK and BLAS, 3-7x faster again: bench/RESULTS.md.) Narrower types are computed in f64 / c128 (converted on the way
// in and out) as the small solvers compute them, so the result is rounded once more only by
// the dots' order of summation:
//  - cholesky (lower; upper through the conjugate transpose of its operand and result): a
//    counted while over column blocks of `block` columns, left-looking: the block's columns
//    are the operand's less L times the conjugate of L's block row (a dot over all of L,
//    whose unfinished columns are still zero), its diagonal block factored by the small
//    kernel, the rows below solved against it (a triangular-solve, a thread per row), and
//    the column written into L in place (dynamic-update-slice of the loop state). A matrix
//    is padded to a multiple of `block` with an identity, and a factor with any NaN (a
//    pivot that is not positive in some block) becomes all NaN, as the interpreter's.
//  - triangular-solve: brought to one form (left side, lower, no transpose) by transposing,
//    conjugating and reversing operands and result, then a counted while over row blocks
//    of the solution: the block's right-hand sides less the finished rows' contribution (a
//    dot with the masked triangle, whose unfinished rows of x are zero), solved by the small
//    kernel and written into x in place.
// Only the named triangle of the operand is read (the other is masked off before any dot),
// so values there, NaN included, change nothing.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace cpu {

// Rewrites every cholesky and triangular-solve of matrices of more than 2 * `block` rows
// (in every computation) into a call of its blocked form with diagonal blocks of `block`
// rows. Returns whether anything changed.
absl::StatusOr<bool> BlockSolvers(HloModule* module, int64_t block);

// The blocked form of `hlo` (a cholesky or triangular-solve) as the text of a module whose
// entry takes its operands and returns its value; INVALID_ARGUMENT for other instructions
// or malformed shapes.
absl::StatusOr<std::string> BlockedSolverText(const HloInstruction& hlo, int64_t block);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_BLOCKED_SOLVERS_H_
