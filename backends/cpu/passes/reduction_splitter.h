#ifndef XLA_BACKENDS_CPU_PASSES_REDUCTION_SPLITTER_H_
#define XLA_BACKENDS_CPU_PASSES_REDUCTION_SPLITTER_H_

#include <cstdint>

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

// Splits a large reduction to a scalar into partial reductions of contiguous chunks and a
// reduction of the partials (XLA's tree reduction rewrite):
//   reduce(x[K]) -> reduce(reduce(reshape(x)[T, K/T], dims={1})[T], dims={0})
// A kernel runs its output elements in parallel and a scalar has one, so the whole input
// would be read by one thread; the partials split it across the runtime's threads.
// Only for reducers whose reordering changes nothing but float rounding (add, multiply,
// maximum, minimum of the two parameters) with an init value that is the reducer's identity,
// since the init is then applied T + 1 times. Inputs must be row-major (run it after layout
// assignment) and have at least kMinElements elements and a divisor T in a useful range.
class ReductionSplitter : public HloPass {
 public:
  static constexpr int64_t kMinElements = int64_t{1} << 20;

  std::string_view name() const override { return "reduction-splitter"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_REDUCTION_SPLITTER_H_
