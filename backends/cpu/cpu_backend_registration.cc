// Registers "cpu" from a static initializer. Built as an object (never archived) and linked
// through xla_all_backends, so every binary that asks for all backends gets "cpu" without
// the LLVM-free registry (backends/builtin_backends.cc) knowing about it.
#include "backends/cpu/cpu_backend.h"

namespace {

const bool kCpuBackendRegistered = [] {
  xla::cpu::RegisterCpuBackend();
  return true;
}();

}  // namespace
