#ifndef XLA_BACKENDS_GPU_GPU_CONV_GEMM_H_
#define XLA_BACKENDS_GPU_GPU_CONV_GEMM_H_

// convolution as one GEMM (im2col), in plain HLO the gpu backend already runs:
//   x --pad--> zeros for the window padding (negative crops) and base (lhs) dilation, in x's
//       own type and dimension order (a kernel of its own; only when there is padding)
//     --convert, transpose--> [batch, spatial..., feature]  (feature groups: [group * batch,
//       spatial..., feature / group]; batch groups: the input batch is already group * batch)
//     --strided slices, one per window offset (offsets window_dilation apart), stacked by
//       select on an iota: one loop fusion per run of spatial dimensions (at most
//       kMaxStackedOffsets slices each)--> patches [batch, output spatial..., window..., feature]
//       (a dimension with fewer outputs than window offsets, as in weight gradients, is
//       sliced per output position instead: a slice is one window, strided by the dilation)
//     --reshape--> [m, k]  (groups: [group, m, k])
//   kernel --reverse (window reversal), transpose, reshape--> [k, n]  (groups: [group, k, n])
//   dot [m, k] x [k, n] -> [m, n] (a batched dot over the groups), in the row-major form
//   IsCublasGemm accepts, with the convolution's precision_config; then reshape and transpose
//   to the convolution's dimension numbers and layout.
// k runs over window offsets then input features, the order in which the interpreter sums.
// Padding and base dilation holes are multiplied as zeros where the direct convolution skips
// them: with a non-finite kernel value 0 * inf is NaN there (as cuDNN's zero padding gives).
// The select stack rather than concatenate: the shared fusion pass fuses slices, broadcasts,
// iota, compare and select into one kernel but leaves each concatenate and its slices as
// kernels of their own.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace gpu {

struct ConvGemmOptions {
  // Only when the dot is one cuBLAS computes (IsCublasGemm's types: f32, f64, f16/bf16 with
  // an f16/bf16/f32 result): otherwise the dot would be a thread-per-output kernel too and
  // the patches only cost memory. Tests turn it off to check the rewrite's semantics for
  // every type it can express (integer results of 32 and 64 bits, complex, f8).
  bool cublas_types_only = true;
  // Below this many multiply-adds the direct kernel's one launch is taken to be cheaper than
  // the patch fusion, the gemm and the relayouts (a few launches of some microseconds each).
  // An estimate: no GPU has measured the crossover yet.
  int64_t min_multiply_adds = int64_t{1} << 22;
  // Per group: a dot of fewer output features (n) or a shorter contraction (k) is closer to
  // a matrix-vector product; the direct kernel reads its inputs once where the patches
  // would copy them window-size times (depthwise convolutions).
  int64_t min_output_features = 4;
  int64_t min_contraction = 8;
  // The patch matrix (and any padded copy of the input) is materialized in device memory:
  // at most 1 GiB of it; larger convolutions stay with the direct kernel.
  int64_t max_patch_bytes = int64_t{1} << 30;
};

// Slices stacked in one fusion; a spatial dimension with more window offsets and more
// outputs than this is left to the direct kernel (the fusion pass caps a fused computation at
// 96 instructions and each slice takes six).
inline constexpr int64_t kMaxStackedOffsets = 12;

// Why `conv` is not rewritten under `options`, or an empty string when it is rewritten.
std::string ConvGemmRefusal(const HloInstruction& conv, const ConvGemmOptions& options = ConvGemmOptions());

// Rewrites every convolution of `module` that ConvGemmRefusal accepts; returns whether any was.
absl::StatusOr<bool> RewriteConvolutionsAsGemm(HloModule* module, const ConvGemmOptions& options = ConvGemmOptions());

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_GPU_CONV_GEMM_H_
