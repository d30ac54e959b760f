#ifndef XLA_BACKENDS_CPU_PASSES_CSE_H_
#define XLA_BACKENDS_CPU_PASSES_CSE_H_

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

// Common subexpression elimination (XLA's HloCSE): within each computation, an
// instruction structurally identical to an earlier one (opcode, shape with layout,
// operands, attributes, literal, and called computations that are the same or
// structurally identical) is replaced by it. Never merges parameters, side-effecting ops
// (rng, I/O, collectives, ...) or instructions with control edges.
class HloCse : public HloPass {
 public:
  std::string_view name() const override { return "cse"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_CSE_H_
