#ifndef XLA_BACKENDS_GPU_GPU_BACKEND_H_
#define XLA_BACKENDS_GPU_GPU_BACKEND_H_

// The gpu backend (platform "gpu", issue 7): one device per visible CUDA GPU, driven through
// the driver API loaded at run time (cuda_driver.h). Compile turns a module into a GpuPlan
// (gpu_compiler.h: the cpu backend's pass pipeline, a PTX kernel per fusion or elementwise
// or data-movement op) and loads it; parameters, constants, tuples and get-tuple-element are
// buffer bookkeeping. while, conditional and call run their computations' steps; the host
// decides which to run next from the pred or branch index their kernels computed, read back
// with a device-to-host copy of a few bytes per iteration or branch (gpu_plan.h), the one
// genuine host involvement in computing. The host also moves what only it has: the device's
// rng state (rng-get-and-update-state) and rng's per-execution key, a few bytes each, and
// infeed and outfeed values between the device's host-side queues and device memory. Other
// ops fail at Compile with UNIMPLEMENTED naming the op: nothing is computed on the host
// behind the caller's back. Executables serialize as their plans and load
// without LLVM: this file and the plan are LLVM-free.
//
// Per device (gpu_lanes.h): the primary context, a DeviceMemoryPool and lanes, each a
// stream with its own cuBLAS handle and pinned staging buffers. Every execution and
// transfer leases a lane, so several run on a device at once ($XLA_GPU_LANES, default 4).
// Buffers are device memory; host_data() is null.

#include <functional>
#include <memory>

#include "backends/backend.h"
#include "backends/gpu/cuda_driver.h"
#include "backends/gpu/gpu_plan.h"

namespace xla {
namespace gpu {

using GpuCompileFn = std::function<absl::StatusOr<GpuPlan>(std::unique_ptr<HloModule>, const GpuTarget&)>;

// UNAVAILABLE (with the driver's reason) when there is no driver or no device. Without
// `compile` (a binary without LLVM), Compile is UNIMPLEMENTED and executables come from
// DeserializeExecutable only.
absl::StatusOr<std::unique_ptr<backend::Backend>> CreateGpuBackend(const CudaDriver* driver,
                                                                   GpuCompileFn compile = nullptr);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_GPU_BACKEND_H_
