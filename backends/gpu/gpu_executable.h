#ifndef XLA_BACKENDS_GPU_GPU_EXECUTABLE_H_
#define XLA_BACKENDS_GPU_GPU_EXECUTABLE_H_

// A gpu plan (gpu_plan.h) loaded on one device (gpu_backend.h): its PTX module, a function per
// kernel step, its constants uploaded; Execute runs the entry's steps on a leased lane's
// stream (gpu_lanes.h), control flow on the host. Values are released after their last
// reader, and an in-place step (GpuPlanStep::in_place) or an elementwise or row kernel
// (ElementwiseReuseOperands) takes its operand's buffer when nothing else holds it and no
// later step reads it: never a constant, never the caller's argument unless donated.

#include <memory>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "backends/gpu/gpu_lanes.h"
#include "backends/gpu/gpu_plan.h"

namespace xla {
namespace gpu {

// `plan` loaded on `device` (through one of its lanes).
absl::StatusOr<std::unique_ptr<backend::Executable>> LoadGpuExecutable(Device* device, GpuPlan plan);

// The plan of an executable LoadGpuExecutable made; null for any other.
const GpuPlan* GpuExecutablePlan(const backend::Executable& executable);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_GPU_EXECUTABLE_H_
