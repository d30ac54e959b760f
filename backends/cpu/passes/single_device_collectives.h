#ifndef XLA_BACKENDS_CPU_PASSES_SINGLE_DEVICE_COLLECTIVES_H_
#define XLA_BACKENDS_CPU_PASSES_SINGLE_DEVICE_COLLECTIVES_H_

// The cpu backend is one device (replica 0 of 1, partition 0 of 1), as the interpreter. This
// pass gives collectives, their async start/done forms and the allowlisted custom-calls
// their single-device meaning in plain HLO, with the interpreter's semantics
// (backends/interpreter/ops_device.cc):
//  - all-reduce, all-gather, reduce-scatter, all-to-all, collective-broadcast: the operands;
//  - collective-permute: the operands when the pair (0,0) exists, else zeros;
//  - -start: the result, or (operands, result, zero contexts...); -done: the result part;
//  - async-start/update/done: the wrapped computation as a call at the start (inlined later),
//    ((operands...), result, zero contexts...); copy-start/done: (copy, source, zero
//    contexts...) and the copy;
//  - custom-call Sharding, SPMDFullToShardShape, SPMDShardToFullShape, MoveToHost,
//    MoveToDevice, annotate_device_placement: the operand; AllocateBuffer: zeros; any other
//    target is UNIMPLEMENTED.
// A module whose replica groups, source-target pairs or shapes imply more devices is
// INVALID_ARGUMENT "needs N devices": computing it on one device would give wrong values.
// ragged-all-to-all stays (its offsets are run-time values; codegen computes it). The cpu
// backend runs this pass before RunCpuPipeline, so its errors stop the compile.

#include <string_view>

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

class SingleDeviceCollectives : public HloPass {
 public:
  std::string_view name() const override { return "single-device-collectives"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_SINGLE_DEVICE_COLLECTIVES_H_
