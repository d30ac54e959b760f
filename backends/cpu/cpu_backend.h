#ifndef XLA_BACKENDS_CPU_CPU_BACKEND_H_
#define XLA_BACKENDS_CPU_CPU_BACKEND_H_

// The cpu backend (platform "cpu"): one device, the host. Modules are compiled to native
// code with LLVM 16 (codegen/); device buffers are host memory from a pool that keeps
// freed blocks for reuse. Ops the code generator does not support fail at Compile with
// UNIMPLEMENTED naming the op; nothing falls back to the interpreter.

#include <memory>

#include "backends/backend.h"

namespace xla {
namespace cpu {

std::unique_ptr<backend::Backend> CreateCpuBackend();

// Registers CreateCpuBackend under "cpu" (idempotent).
void RegisterCpuBackend();

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CPU_BACKEND_H_
