#ifndef XLA_BACKENDS_CPU_PASSES_TUPLE_CONSTANTS_H_
#define XLA_BACKENDS_CPU_PASSES_TUPLE_CONSTANTS_H_

#include <string_view>

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

// A constant of tuple shape (`constant((1, {1, 2}))`, as a while loop's initial state) becomes
// a tuple of array constants, nested tuples element by element, so that later passes and the
// buffer plans, which hold constants as arrays, see only array constants.
class TupleConstantSplitter : public HloPass {
 public:
  std::string_view name() const override { return "tuple-constant-splitter"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_TUPLE_CONSTANTS_H_
