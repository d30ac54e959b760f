// Linked into the interpreter's op suites (gpu_suites.cmake): with XLA_GPU_EMULATE=1 the
// kernel emulator (kernel_emulator.h) runs the gpu backend's kernels on the host, through the
// fake libcuda named by XLA_GPU_LIBCUDA, so the suites run on "gpu" without a GPU.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backends/gpu/testing/kernel_emulator.h"

namespace {

const bool emulator_installed = [] {
  const char* on = std::getenv("XLA_GPU_EMULATE");
  if (on == nullptr || std::strcmp(on, "1") != 0) return false;
  const char* lib = std::getenv("XLA_GPU_LIBCUDA");
  const absl::Status status = xla::gpu::InstallKernelEmulator(lib != nullptr ? lib : "");
  if (!status.ok()) {
    std::fprintf(stderr, "XLA_GPU_EMULATE=1 but the kernel emulator is not installed: %s\n",
                 std::string(status.message()).c_str());
    std::exit(2);
  }
  return true;
}();

}  // namespace
