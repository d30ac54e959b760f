#ifndef XLA_BACKENDS_CPU_PASSES_ALGEBRAIC_SIMPLIFIER_H_
#define XLA_BACKENDS_CPU_PASSES_ALGEBRAIC_SIMPLIFIER_H_

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

// Local algebraic rewrites with XLA's AlgebraicSimplifier semantics, restricted to those
// that are exact for every input: results stay bit-identical, including NaNs and signed
// zeros of floats. Rewrites (A, B arrays; c a constant or broadcast constant):
//   A + 0 -> A (integers; for floats only A + -0.0, since -0.0 + +0.0 is +0.0)
//   A - 0 -> A (integers; floats A - +0.0)        A * 1, A / 1 -> A
//   A * 0 -> 0 (integers only)                     A ^ 1 -> A (power)
//   and(A, true), or(A, false) -> A (pred)         select(true/false, A, B), select(p, A, A)
//   negate(negate(A)), not(not(A)) -> A            convert to the same type, copy within a layout
//   reshape/broadcast/transpose/slice/pad/reverse that do nothing -> operand
//   concatenate of one operand -> operand         get-tuple-element(tuple(..., A, ...)) -> A
//   reshape(reshape(A)) -> reshape(A); transpose(transpose(A)) -> one transpose
//   broadcast(broadcast(A)) -> one broadcast; reshape/transpose/broadcast of a broadcast
//   scalar -> broadcast of the scalar; slice(slice(A)) -> one slice
// A replacement must have the replaced instruction's exact shape, layout included.
class AlgebraicSimplifier : public HloPass {
 public:
  std::string_view name() const override { return "algebraic-simplifier"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_ALGEBRAIC_SIMPLIFIER_H_
