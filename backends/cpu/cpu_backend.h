#ifndef XLA_BACKENDS_CPU_CPU_BACKEND_H_
#define XLA_BACKENDS_CPU_CPU_BACKEND_H_

// The cpu backend (platform "cpu"): one device, the host. Modules are compiled to native
// code with LLVM 16 (codegen/); device buffers are host memory from a pool that keeps
// freed blocks for reuse. Ops the code generator does not support fail at Compile with
// UNIMPLEMENTED naming the op; nothing falls back to the interpreter.
//
// Serialized executables (SerializeExecutable, backends/executable_format.h) carry the
// relocatable object file the executable runs, its buffer plan with the constants' data
// (plan_format.h), the optimized module and the entry symbol, plus the target triple, host
// CPU and feature string: loading needs all three to equal this host's, links the object in a
// new JIT (runtime routines and libc resolved here) and compiles nothing. Modules with infeed
// or outfeed are not serialized (their code holds a pointer into the compiling process).

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
