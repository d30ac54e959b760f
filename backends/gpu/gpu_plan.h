#ifndef XLA_BACKENDS_GPU_GPU_PLAN_H_
#define XLA_BACKENDS_GPU_GPU_PLAN_H_

// What a compiled gpu executable is, apart from a device: the optimized module, one PTX
// module with a kernel per fusion or elementwise op, and the steps an execution takes in
// order. Compiling a plan needs LLVM (gpu_compiler.h); loading and running one needs only the
// driver, so a plan compiled here runs on a GPU machine that has no LLVM (the serialized form
// is the executable's, backends/executable_format.h, platform "gpu").

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace gpu {

// Threads per block of every kernel (the row kernels' block reductions are written for it).
inline constexpr int kGpuThreadsPerBlock = 256;

struct GpuTarget {
  int sm = 90;   // compute capability (sm_90: H100/H200)
  int ptx = 78;  // PTX ISA version (7.8: the newest LLVM 16 writes)
};

struct GpuPlanStep {
  enum class Kind { kParameter = 0, kConstant = 1, kTuple = 2, kGetTupleElement = 3, kKernel = 4 };
  Kind kind = Kind::kKernel;
  const HloInstruction* hlo = nullptr;  // in the plan's module's entry computation
  std::vector<int> operands;            // earlier steps, in operand order
  int64_t index = 0;                    // parameter number or tuple index
  std::string kernel;                   // the PTX entry (kKernel)
  int64_t elements = 0;                 // the kernel's output elements (kKernel)
  // A row kernel (ptx_emitter.h) when > 0: blocks stride over this many rows; else threads
  // stride over the elements.
  int64_t rows = 0;
  // A dot cuBLAS can compute (IsCublasGemm): run through cublasGemmStridedBatchedEx when
  // cuBLAS loads on the GPU machine, through `kernel` otherwise.
  bool gemm = false;
};

struct GpuPlan {
  std::unique_ptr<HloModule> module;  // after the pass pipeline
  std::string ptx;                    // empty when no step is a kernel
  int sm = 90;                        // the PTX's target: loads on devices of this or a newer one
  std::vector<GpuPlanStep> steps;     // the entry's instructions in execution order
  int root = -1;                      // the step computing the entry's result
};

// The plan as an executable container (FAILED_PRECONDITION or INVALID_ARGUMENT on reading
// bytes of another platform or version, or damaged ones; see executable_format.h).
absl::StatusOr<std::string> SerializeGpuPlan(const GpuPlan& plan);
absl::StatusOr<GpuPlan> DeserializeGpuPlan(std::string_view bytes);

// True for a dot of the canonical forms the pipeline leaves ([m,k]x[k,n] or [b,m,k]x[b,k,n],
// all row-major) on f32, f64, or bf16/f16 inputs (with an output of their type or f32).
bool IsCublasGemm(const HloInstruction& dot);

// INVALID_ARGUMENT unless every step names an entry instruction, its operands are the steps
// of that instruction's operands, and kinds, indices and kernels are consistent.
absl::Status ValidateGpuPlan(const GpuPlan& plan);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_GPU_PLAN_H_
