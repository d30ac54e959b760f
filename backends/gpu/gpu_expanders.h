#ifndef XLA_BACKENDS_GPU_GPU_EXPANDERS_H_
#define XLA_BACKENDS_GPU_GPU_EXPANDERS_H_

// HLO rewrites the gpu compiler runs before the shared pipeline, for ops whose gpu form is
// other HLO the backend already runs as kernels:
//  - topk(x), k, largest -> a stable sort of (x, iota) along the last dimension (descending
//    for largest, ascending otherwise, in the total order of floats, so ties keep the lower
//    index first and NaNs sort as XLA's topk sorts them), then the first k of each; long
//    rows and small k as chunks sorted and cut to k first (PlanTopKChunks);
//  - cholesky and triangular-solve of types narrower than f64/c128 -> the same op on
//    operands converted to f64/c128 and its result converted back (the kernels compute in
//    double, as the interpreter does, and round once); then those of large matrices -> loops
//    of small ones and dots (backends/cpu/passes/blocked_solvers.h) over blocks of
//    kGpuSolverBlock rows;
//  - convolutions that pay for it -> patches gathered by slices, then one dot cuBLAS can run
//    (gpu_conv_gemm.h); the others stay convolution kernels;
//  - large reductions with few outputs -> partial reductions and a combining one
//    (reduction_splitter.h): a reduction to a scalar in about kGpuScalarReductionChunks
//    chunks (each a block of a row kernel), one over innermost dimensions into about as
//    many rows, others to at least kGpuMinReductionOutputs partial outputs (each a thread),
//    so the device's threads share the reading.

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace gpu {

inline constexpr int64_t kGpuScalarReductionChunks = 1024;
// The diagonal blocks of large solvers: a dot per block reads the whole factor (34 us for
// 4096 x 4096 f64 on an H200), the small kernels take about block^2 steps per thread.
inline constexpr int64_t kGpuSolverBlock = 32;
inline constexpr int64_t kGpuMinReductionOutputs = 32768;

// Returns whether anything changed.
absl::StatusOr<bool> ExpandForGpu(HloModule* module);

// A topk over rows of n run as `count` chunks of `chunk` elements (the row padded with values
// that sort last): each chunk sorted in a block and its first k kept, then the count * k
// candidates sorted; where that takes clearly fewer bitonic steps than sorting whole rows
// (rows longer than a block's shared memory holds count 4 times over), else nullopt. For
// integer types and f16/bf16/f32/f64.
struct TopKChunks {
  int64_t chunk = 0, count = 0;
};
std::optional<TopKChunks> PlanTopKChunks(int64_t n, int64_t k, PrimitiveType type);

// After the shared pipeline: a dot cuBLAS computes whose operand is a transpose of its two
// minor dimensions (the pipeline's dot decomposer writes them for x . w^T, or a gradient's
// x^T . g) reads the transpose's operand instead, stored transposed (CublasGemmForm, gpu_plan.h):
// cuBLAS reads it through its transpose operation rather than a kernel writing a transposed
// copy first. The transpose goes when nothing else reads it. Returns whether anything changed.
absl::StatusOr<bool> FoldTransposesIntoGemms(HloModule* module);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_GPU_EXPANDERS_H_
