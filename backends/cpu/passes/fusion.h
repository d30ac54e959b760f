#ifndef XLA_BACKENDS_CPU_PASSES_FUSION_H_
#define XLA_BACKENDS_CPU_PASSES_FUSION_H_

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

// Loop and reduction (input) fusion, in XLA's form:
//   %fusion = f32[...] fusion(%a, %b), kind=kLoop, calls=%fused_computation
// The fused computation (is_fusion_computation) has one parameter per fusion operand, in
// operand order (param_0, param_1, ...), and its root is the fused root.
//
// What code generation may rely on (output contract):
//  - kLoop fusions: the root is elementwise or one of broadcast/reshape/transpose/slice
//    over fused elementwise work; every fused instruction is a parameter, an elementwise
//    op (HloOpcodeCategory other than kOther, except copy and bitcast-convert), broadcast,
//    reshape, transpose, slice, iota or a scalar constant.
//  - kInput fusions: the root is a reduce (possibly variadic); everything else is as in
//    kLoop fusions (the reduce's inputs and init values).
//  - row reductions: besides the root, a fusion of either kind may contain reduces of a
//    row-major x[R, ...] over every dimension but the first (one value per row) whose every
//    path to the root goes through row-aligned ops only: elementwise ops, broadcasts keeping
//    dimension 0 as their first, other row reductions; the root is such an op, row-major, with
//    R rows. Row r of the root then needs row r of each row reduction only, so a kernel
//    computes them once per row (a softmax is one fusion reading each row once). Such a
//    reduce has no users outside its fusion (it is never duplicated).
//  - never inside a fusion: dot, convolution, sort, while, conditional, call, custom-call,
//    rng, infeed/outfeed, collectives, any side-effecting op, tuples, copies.
//  - fusions form only in the entry computation and in computations called by while,
//    conditional and call; reducers, comparators and other applied computations are left
//    as they are.
// A producer with several users is duplicated into the fusion only when that is cheap
// (broadcast, iota, constant, reshape, transpose, slice, cheap elementwise ops), or when it
// is an expensive elementwise op whose users are at most two fusible consumers (softmax's
// exp feeds both the sum and the divide, so neither pass materializes it).
class CpuFusion : public HloPass {
 public:
  // Largest number of instructions in one fused computation.
  static constexpr int kMaxFusedInstructions = 96;

  std::string_view name() const override { return "fusion"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_FUSION_H_
