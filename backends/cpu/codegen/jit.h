#ifndef XLA_BACKENDS_CPU_CODEGEN_JIT_H_
#define XLA_BACKENDS_CPU_CODEGEN_JIT_H_

// Native code for one HLO module: LLVM IR from the emitter, optimized at O3 (loop and SLP
// vectorization) for the host CPU (its name and features), linked in its own LLJIT
// instance. Compile is thread-safe: every compilation has its own LLVMContext and JIT.
// A CompiledProgram is immutable and may run on several threads at once.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "backends/cpu/codegen/buffer_plan.h"
#include "hlo/hlo_module.h"

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace xla {
namespace cpu {

// LLVM's O3 pipeline with loop and SLP vectorization and without loop unrolling, for `tm`'s
// target (the gpu backend runs it on NVPTX modules too).
void OptimizeLlvmModule(llvm::Module& module, llvm::TargetMachine* tm);

class CompiledProgram {
 public:
  // Returns 0, or 1 when cancelled through run_context (see runtime.h).
  using EntryFunction = int32_t (*)(void** slots, void* run_context);

  // The module is compiled to a relocatable object file, which is then linked in the JIT;
  // object_file() keeps it for serialization.
  static absl::StatusOr<std::unique_ptr<CompiledProgram>> Compile(const HloModule& module, const BufferPlan& plan);
  // Links an object file from object_file() of a program compiled on this host (the caller
  // checks the target: HostTarget()) and finds `entry_name` in it. Runtime routines and libc
  // symbols are resolved here, in this process.
  static absl::StatusOr<std::unique_ptr<CompiledProgram>> Load(std::string_view object_file,
                                                               const std::string& entry_name);
  ~CompiledProgram();

  EntryFunction entry() const { return entry_; }
  const std::string& entry_name() const { return entry_name_; }
  const std::string& object_file() const { return object_file_; }

 private:
  struct Jit;
  CompiledProgram(std::unique_ptr<Jit> jit, EntryFunction entry, std::string entry_name, std::string object_file);
  std::unique_ptr<Jit> jit_;
  EntryFunction entry_;
  std::string entry_name_;
  std::string object_file_;
};

// What compiled code depends on: the target triple and the host CPU with the feature string
// the JIT's target machine gets (code compiled for other features may not run here).
struct HostTarget {
  std::string triple;
  std::string cpu;
  std::string features;
};
absl::StatusOr<HostTarget> DetectHostTarget();

// "cpu-name +feature,..." of the host, as the JIT targets it.
std::string HostCpuDescription();

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CODEGEN_JIT_H_
