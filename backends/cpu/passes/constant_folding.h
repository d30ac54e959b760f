#ifndef XLA_BACKENDS_CPU_PASSES_CONSTANT_FOLDING_H_
#define XLA_BACKENDS_CPU_PASSES_CONSTANT_FOLDING_H_

#include <cstdint>

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

// Replaces an instruction whose operands are all constants by a constant computed with the
// reference interpreter's handlers (XLA's HloConstantFolding). Not folded: side-effecting
// ops, while/conditional/custom-call, ops without operands (iota, parameters), tokens and
// tuples, broadcasts (folding `broadcast(scalar)` would only materialize a large constant;
// the code generator broadcasts for free), and any result with more than
// kMaxFoldedElements elements or larger than its largest operand by more than that.
// An instruction the interpreter cannot evaluate is left alone.
class ConstantFolding : public HloPass {
 public:
  static constexpr int64_t kMaxFoldedElements = 1 << 16;

  std::string_view name() const override { return "constant-folding"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_CONSTANT_FOLDING_H_
