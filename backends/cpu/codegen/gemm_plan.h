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
// Convolutions: f32/f64 with batch_group_count 1 and enough work (kConvGemmMinMacs, measured
// against the generator: bench/RESULTS.md "CPU GEMM paths (issue 6)"). Smaller ones stay on
// the generator, which is bit-exact with the interpreter (f64 sums); the GEMM sums in the
// element type, as XLA's CPU backend does.

#include <cstdint>
#include <optional>
#include <vector>

#include "hlo/hlo_instruction.h"
#include "hlo/shape.h"

namespace xla {
namespace cpu {

// Below this many multiply-adds a convolution stays on the generator.
inline constexpr int64_t kConvGemmMinMacs = int64_t{1} << 16;

// The __xla_cpu_dot call of dot `hlo` whose operands and result are stored with these
// shapes' layouts, or nullopt when the routine cannot compute it.
struct DotCall {
  std::vector<int64_t> descriptor;  // runtime/gemm.h DotField
  bool swap_operands = false;       // the routine's A is rhs (a result stored transposed)
};
std::optional<DotCall> PlanDotCall(const HloInstruction& hlo, const Shape& lhs, const Shape& rhs, const Shape& out);

// The __xla_cpu_conv descriptor (ConvField) of convolution `hlo`, or nullopt.
std::optional<std::vector<int64_t>> PlanConvolutionCall(const HloInstruction& hlo, const Shape& lhs, const Shape& rhs,
                                                        const Shape& out);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CODEGEN_GEMM_PLAN_H_
