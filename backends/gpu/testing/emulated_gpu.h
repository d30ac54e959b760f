#ifndef XLA_BACKENDS_GPU_TESTING_EMULATED_GPU_H_
#define XLA_BACKENDS_GPU_TESTING_EMULATED_GPU_H_

// For the codegen tests that CMake builds with XLA_FAKE_LIBCUDA (backends/gpu/CMakeLists.txt):
// the gpu backend on that fake driver with the kernel emulator installed, made once per
// process (kernel_emulator.h); a failure to make it fails the test and gives null. Tests built
// with XLA_FAKE_LIBCUBLAS as well run their dots on that fake cuBLAS.

#include "backends/gpu/testing/kernel_emulator.h"
#include "gtest/gtest.h"

namespace xla {
namespace gpu {

inline backend::Backend* EmulatedGpu() {
#ifdef XLA_FAKE_LIBCUBLAS
  absl::StatusOr<backend::Backend*> gpu = EmulatedGpuBackend(XLA_FAKE_LIBCUDA, XLA_FAKE_LIBCUBLAS);
#else
  absl::StatusOr<backend::Backend*> gpu = EmulatedGpuBackend(XLA_FAKE_LIBCUDA);
#endif
  EXPECT_TRUE(gpu.ok()) << gpu.status();
  return gpu.ok() ? *gpu : nullptr;
}

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_TESTING_EMULATED_GPU_H_
