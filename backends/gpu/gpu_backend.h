#ifndef XLA_BACKENDS_GPU_GPU_BACKEND_H_
#define XLA_BACKENDS_GPU_GPU_BACKEND_H_

// The gpu backend (platform "gpu", issue 7): one device per visible CUDA GPU, driven through
// the driver API loaded at run time (cuda_driver.h). Modules go through the cpu backend's
// pass pipeline; every fusion and elementwise or data-movement op becomes a PTX kernel
// (ptx_emitter.h) loaded at Compile; parameters, constants, tuples and get-tuple-element
// are buffer bookkeeping. Other ops fail at Compile with UNIMPLEMENTED naming the op:
// nothing runs on the host behind the caller's back.
//
// Per device: the primary context, one stream that executions and transfers use in turn,
// and a DeviceMemoryPool. Buffers are device memory; host_data() is null.
//
// Stage of the work (see README): dot/convolution (cuBLAS), reductions with warp/block
// trees, transcendental functions beyond f32 exp/log/tanh/logistic, infeed/outfeed and
// pinned staging for transfers are still to come.

#include <memory>

#include "backends/backend.h"
#include "backends/gpu/cuda_driver.h"

namespace xla {
namespace gpu {

// UNAVAILABLE (with the driver's reason) when there is no driver or no device.
absl::StatusOr<std::unique_ptr<backend::Backend>> CreateGpuBackend(const CudaDriver* driver);

// Registers "gpu" (idempotent); its factory loads the default driver.
void RegisterGpuBackend();

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_GPU_BACKEND_H_
