#ifndef XLA_BACKENDS_GPU_GPU_COMPILER_H_
#define XLA_BACKENDS_GPU_GPU_COMPILER_H_

// HLO -> GpuPlan (needs LLVM): verification, the cpu backend's single-device collectives pass
// and pass pipeline, then a step per
// instruction of the entry and of every computation a while, conditional or call runs, and
// one PTX module for the kernels. No device is needed, so plans for a
// GPU machine can be compiled anywhere (tests/gpu/device_check.sh does).

#include <memory>

#include "absl/status/statusor.h"
#include "backends/gpu/gpu_backend.h"
#include "backends/gpu/gpu_plan.h"
#include "backends/gpu/ptx_emitter.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace gpu {

// UNIMPLEMENTED naming every entry op the gpu backend cannot run yet.
absl::StatusOr<GpuPlan> CompileGpuPlan(std::unique_ptr<HloModule> module, const GpuTarget& target);

// Registers "gpu" (idempotent): the default driver, compiling with CompileGpuPlan.
void RegisterGpuBackend();

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_GPU_COMPILER_H_
