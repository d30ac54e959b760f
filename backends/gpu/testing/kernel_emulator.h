#ifndef XLA_BACKENDS_GPU_TESTING_KERNEL_EMULATOR_H_
#define XLA_BACKENDS_GPU_TESTING_KERNEL_EMULATOR_H_

// Runs the gpu backend's kernels on the host, so that the backend (plans, control flow,
// buffers) and the kernels' own logic (indexing, grid-stride loops, block reductions through
// shared memory, barriers, sorts) are tested on machines without a GPU.
//
// How: EmitPtx hands each module's kernel IR to the emulator (SetKernelIrObserver, before
// libdevice is linked). When the fake libcuda (fake_libcuda.cc) launches a kernel of that
// module, the emulator compiles the IR for the host (once per module), with the NVPTX special
// registers and the block barrier turned into calls to the emulator, and runs every thread of
// the grid: one block after another, a block's threads as cooperative fibers that switch at
// barriers (so shared memory, which is one host array per kernel, is the block's own). libm
// stands in for libdevice.
//
// What it does not check: the NVPTX code generator and ptxas (ptx_emitter_test assembles the
// PTX), the real driver, timing, and races between threads of a block (fibers switch only at
// barriers; a read that a GPU could see before another thread's write is not caught).

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/backend.h"

namespace xla {
namespace gpu {

// Installs the emulator in this process: the kernel IR observer, and the kernel runner of the
// fake libcuda loaded from `fake_libcuda` (which the gpu backend must load too: set
// XLA_GPU_LIBCUDA to it). Launches are serialized (one block of one kernel at a time).
absl::Status InstallKernelEmulator(const std::string& fake_libcuda);

// Kernel launches the emulator has run since the process started.
int EmulatedLaunches();
// Of those, the launches whose first array parameter (the first output) is also another of
// theirs: an in-place update, or an elementwise kernel writing over its operand.
int EmulatedOverwritingLaunches();

// The gpu backend, with its compiler, on the fake libcuda at `fake_libcuda` with the emulator
// installed, deferred streams (queued work runs when the host waits) and cuBLAS absent (dots
// are kernels), or the fake cuBLAS at `fake_cublas` (testing/fake_libcublas.cc): made once
// per process, by the first call, and never destroyed, for tests.
absl::StatusOr<backend::Backend*> EmulatedGpuBackend(const std::string& fake_libcuda,
                                                     const std::string& fake_cublas = "");

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_TESTING_KERNEL_EMULATOR_H_
