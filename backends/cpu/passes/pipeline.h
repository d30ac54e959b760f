#ifndef XLA_BACKENDS_CPU_PASSES_PIPELINE_H_
#define XLA_BACKENDS_CPU_PASSES_PIPELINE_H_

// The CPU backend's HLO pass pipeline: what the code generator runs before emitting code.
//
// Output contract (what code generation may rely on after RunCpuPipeline returns OK):
//  - the module verifies (hlo/hlo_verifier.h);
//  - no dead instructions or unreachable computations;
//  - (once layout assignment runs) every array shape carries a layout; see
//    layout_assignment.h for which layouts;
//  - (once fusion runs) elementwise chains are `fusion` instructions (kind=kLoop, or kInput
//    with a reduce root); see fusion.h.

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
