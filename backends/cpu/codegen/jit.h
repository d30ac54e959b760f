#ifndef XLA_BACKENDS_CPU_CODEGEN_JIT_H_
#define XLA_BACKENDS_CPU_CODEGEN_JIT_H_

// Native code for one HLO module: LLVM IR from the emitter, optimized at O3 (loop and SLP
// vectorization) for the host CPU (its name and features), linked in its own LLJIT
// instance. Compile is thread-safe: every compilation has its own LLVMContext and JIT.
// A CompiledProgram is immutable and may run on several threads at once.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "backends/cpu/codegen/buffer_plan.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace cpu {

class CompiledProgram {
 public:
  // Returns 0, or 1 when cancelled through run_context (see runtime.h).
  using EntryFunction = int32_t (*)(void** slots, void* run_context);

  static absl::StatusOr<std::unique_ptr<CompiledProgram>> Compile(const HloModule& module, const BufferPlan& plan);
  ~CompiledProgram();

  EntryFunction entry() const { return entry_; }

 private:
  struct Jit;
  CompiledProgram(std::unique_ptr<Jit> jit, EntryFunction entry);
  std::unique_ptr<Jit> jit_;
  EntryFunction entry_;
};

// "cpu-name +feature,..." of the host, as the JIT targets it.
std::string HostCpuDescription();

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CODEGEN_JIT_H_
