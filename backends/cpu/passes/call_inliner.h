#ifndef XLA_BACKENDS_CPU_PASSES_CALL_INLINER_H_
#define XLA_BACKENDS_CPU_PASSES_CALL_INLINER_H_

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

// Inlines every `call` (XLA's CallInliner) and every `fusion` that came with the input
// module into its caller, so that the rest of the pipeline sees one flat graph and forms
// its own fusions (whose form code generation relies on). Called computations left
// without callers are removed by DCE.
class CallInliner : public HloPass {
 public:
  std::string_view name() const override { return "call-inliner"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_CALL_INLINER_H_
