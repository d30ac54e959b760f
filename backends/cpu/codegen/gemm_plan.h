#ifndef XLA_BACKENDS_CPU_CODEGEN_GEMM_PLAN_H_
#define XLA_BACKENDS_CPU_CODEGEN_GEMM_PLAN_H_

// Dots and convolutions computed by runtime routines over whole arrays (runtime/gemm.h)
// instead of the per-element generators (emit_dot.cc, emit_conv.cc): which ones, and the
// routines' descriptors (ir_emitter.cc emits the calls). No LLVM here, so tests include it.
//
// Dots: float (f32/f64; bf16/f16 through f32) and integer dots whose operands and result,
// under the layouts they are read with, are batches of strided matrices: batch dimensions
// majormost in the same order in all three, the free and the contracting dimensions of each
// operand each collapsing into one contiguous run (in either order: a transposed operand or
// result is a trans flag), size-1 dimensions ignored. Everything else stays on the generator.
//
// Convolutions: f32/f64, with feature or batch groups. The GEMMs sum in the element type, as
// XLA's CPU backend does; the generator, and the routine's direct sums (batch groups, feature
// groups of up to four input features), sum in f64 as the interpreter. Only problems with
// enough work (below) leave the generator.

#include <cstdint>
#include <optional>
#include <vector>

#include "hlo/hlo_instruction.h"
#include "hlo/shape.h"

namespace xla {
namespace cpu {

// Below these many multiply-adds the generator computes the op (bench/cpu_bench --sweep,
// bench/RESULTS.md "CPU GEMM paths (issue 6)"). Integer dots: the routine's packing and call
// cost more than the generator's loops below about 2^15-2^16 (0.8-0.96x there, 1.4x at 2^18).
// bf16/f16 dots: sgemm wins from about 12^3. Convolutions: im2col + sgemm wins from about
// 2^13 already, but below 2^16 the gain is under 0.05 ms per convolution, and there the
// generator stays bit-exact with the interpreter (f64 sums), which small modules are tested
// against. f32/f64 dots always call the GEMM, as before.
inline constexpr int64_t kIntDotGemmMinMacs = int64_t{1} << 16;
inline constexpr int64_t kNarrowFloatDotGemmMinMacs = int64_t{1} << 10;
inline constexpr int64_t kConvGemmMinMacs = int64_t{1} << 16;
// The routines' scratch (widened bf16/f16 operands, packed integer matrices, a convolution's
// packed kernel and result) above this stays off them: the generators need none, and a
// server must not hold (or fail to find) gigabytes per thread for one op.
inline constexpr int64_t kMaxGemmScratchBytes = int64_t{256} << 20;

// The __xla_cpu_dot call of dot `hlo` whose operands and result are stored with these
// shapes' layouts, or nullopt when the routine cannot compute it.
struct DotCall {
  std::vector<int64_t> descriptor;  // runtime/gemm.h DotField
  bool swap_operands = false;       // the routine's A is rhs (a result stored transposed)
};
std::optional<DotCall> PlanDotCall(const HloInstruction& hlo, const Shape& lhs, const Shape& rhs, const Shape& out);

// Whether a planned call beats the generator (the thresholds above).
bool PreferDotCall(const DotCall& call);

// The __xla_cpu_conv descriptor (ConvField) of convolution `hlo`, or nullopt.
std::optional<std::vector<int64_t>> PlanConvolutionCall(const HloInstruction& hlo, const Shape& lhs, const Shape& rhs,
                                                        const Shape& out);
bool PreferConvolutionCall(const std::vector<int64_t>& descriptor);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CODEGEN_GEMM_PLAN_H_
