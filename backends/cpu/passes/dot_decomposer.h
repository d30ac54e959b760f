#ifndef XLA_BACKENDS_CPU_PASSES_DOT_DECOMPOSER_H_
#define XLA_BACKENDS_CPU_PASSES_DOT_DECOMPOSER_H_

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

// Canonicalizes every dot for a GEMM call (XLA's DotDecomposer): operands are transposed
// and reshaped so that the dot is
//   [m, k] x [k, n] -> [m, n]                      (no batch dimensions), or
//   [b, m, k] x [b, k, n] -> [b, m, n]             (batch dimension 0),
// with m, n, k the products of the free and contracting dimensions (1 when there are
// none), and the result is reshaped back to the original shape. Attributes other than
// the dimension numbers (precision, result type) are kept. Values are unchanged: only the
// order in which the operands are stored changes, not the order of the sums.
class DotDecomposer : public HloPass {
 public:
  std::string_view name() const override { return "dot-decomposer"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_DOT_DECOMPOSER_H_
