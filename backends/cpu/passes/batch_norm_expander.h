#ifndef XLA_BACKENDS_CPU_PASSES_BATCH_NORM_EXPANDER_H_
#define XLA_BACKENDS_CPU_PASSES_BATCH_NORM_EXPANDER_H_

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

// Rewrites batch-norm-training, batch-norm-inference and batch-norm-grad into broadcasts,
// elementwise ops and reduces over every dimension but feature_index, computed in the
// operand's type, as XLA's BatchNormExpander does for CPU (so they fuse like any other
// elementwise work). Formulas follow the interpreter's (hence the variance is
// E[(x - mean)^2], not E[x^2] - mean^2); results agree with it up to float rounding.
class BatchNormExpander : public HloPass {
 public:
  std::string_view name() const override { return "batch-norm-expander"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_BATCH_NORM_EXPANDER_H_
