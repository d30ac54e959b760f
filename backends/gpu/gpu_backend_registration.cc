// Registers "gpu" from a static initializer, as cpu_backend_registration.cc does for "cpu":
// an object linked through xla_all_backends. Registering loads nothing: the driver is opened
// when a server asks for the platform.
#include "backends/gpu/gpu_compiler.h"

namespace {

const bool kGpuBackendRegistered = [] {
  xla::gpu::RegisterGpuBackend();
  return true;
}();

}  // namespace
