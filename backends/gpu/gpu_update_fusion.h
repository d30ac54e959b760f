#ifndef XLA_BACKENDS_GPU_GPU_UPDATE_FUSION_H_
#define XLA_BACKENDS_GPU_GPU_UPDATE_FUSION_H_

// A gpu pass after the shared pipeline: a dynamic-update-slice whose update is computed only
// for it (a loop fusion or one elementwise or data-movement op, used by nothing else) takes
// that computation into one fusion with the update at its root, so that one kernel computes
// the update and writes it into the operand's buffer in place (UpdatedSlice, gpu_plan.h),
// instead of a kernel writing the update to memory and another copying it into the array:
// a scan writing ys.at[i].set(f(carry)) runs a kernel fewer per iteration. An update that
// reads the updated array itself is left alone (the kernel would read what it writes).

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace gpu {

// Fuses updates into their dynamic-update-slices in every non-fusion computation of
// `module`; true when it changed something.
absl::StatusOr<bool> FuseUpdatesIntoSlices(HloModule* module);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_GPU_UPDATE_FUSION_H_
