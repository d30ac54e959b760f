#ifndef XLA_BACKENDS_CPU_PASSES_PIPELINE_H_
#define XLA_BACKENDS_CPU_PASSES_PIPELINE_H_

// The CPU backend's HLO pass pipeline: what the code generator runs before emitting code.
//
// Output contract (what code generation may rely on after RunCpuPipeline returns OK):
//  - the module verifies (hlo/hlo_verifier.h);
//  - no dead instructions or unreachable computations;
//  - no call instructions, and the only fusions are the pipeline's own (input fusions and
//    calls are inlined first);
//  - no batch-norm ops (expanded into elementwise ops and reduces);
//  - every dot is [m,k]x[k,n] or [b,m,k]x[b,k,n] (dot_decomposer.h);
//  - every shape carries a layout, and every value is row-major except entry parameters
//    and the copies at the module's interface (layout_assignment.h);
//  - elementwise chains are `fusion` instructions (kind=kLoop, or kInput with a reduce
//    root) whose contents are restricted as fusion.h says.
// Pass order: call inlining; batch-norm expansion; dot canonicalization; {algebraic simplification, constant folding, CSE, DCE}
// to a fixed point; layout assignment; splitting of large reductions to a scalar
// (reduction_splitter.h); fusion; DCE.

#include "absl/status/status.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace cpu {

struct CpuPipelineOptions {
  // Verify the module after every pass that changed it (tests); the input and the final
  // result are verified always.
  bool verify_after_each_pass = false;
};

absl::Status RunCpuPipeline(HloModule* module, const CpuPipelineOptions& options = {});

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_PIPELINE_H_
