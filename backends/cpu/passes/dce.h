#ifndef XLA_BACKENDS_CPU_PASSES_DCE_H_
#define XLA_BACKENDS_CPU_PASSES_DCE_H_

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

// Dead code elimination (XLA's HloDCE): removes instructions whose value nobody uses
// (no users, not a root, not a parameter, no control edges, no side effect), then
// computations that the entry no longer reaches.
class HloDce : public HloPass {
 public:
  std::string_view name() const override { return "dce"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_DCE_H_
