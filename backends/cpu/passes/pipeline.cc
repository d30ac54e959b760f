#include "backends/cpu/passes/pipeline.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "backends/cpu/passes/algebraic_simplifier.h"
#include "backends/cpu/passes/batch_norm_expander.h"
#include "backends/cpu/passes/call_expansion.h"
#include "backends/cpu/passes/call_inliner.h"
#include "backends/cpu/passes/constant_folding.h"
#include "backends/cpu/passes/cse.h"
#include "backends/cpu/passes/dce.h"
#include "backends/cpu/passes/dot_decomposer.h"
#include "backends/cpu/passes/fusion.h"
#include "backends/cpu/passes/layout_assignment.h"
#include "backends/cpu/passes/pass.h"
#include "backends/cpu/passes/reduction_splitter.h"
#include "backends/cpu/passes/tuple_constants.h"
#include "hlo/hlo_verifier.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {

absl::Status RunCpuPipeline(HloModule* module, const CpuPipelineOptions& options) {
  if (module == nullptr) return absl::InvalidArgumentError("RunCpuPipeline: null module");
  RETURN_IF_ERROR(VerifyHloModule(*module));
  RETURN_IF_ERROR(CheckCallExpansion(*module));  // before CallInliner copies callees per call site
  const bool verify = options.verify_after_each_pass;

  HloPassPipeline pipeline("cpu", verify);
  // Expansions first, so that their output is simplified and fused like everything else.
  // (Large cholesky and triangular-solve stay single ops: the runtime hands them to LAPACK
  // and BLAS, runtime/linalg.cc; the gpu blocks them first, blocked_solvers.h.)
  pipeline.AddPass<TupleConstantSplitter>();
  pipeline.AddPass<CallInliner>();
  pipeline.AddPass<BatchNormExpander>();
  pipeline.AddPass<DotDecomposer>();
  {
    auto simplify = std::make_unique<HloPassPipeline>("simplify", verify);
    simplify->AddPass<AlgebraicSimplifier>();
    simplify->AddPass<ConstantFolding>();
    simplify->AddPass<HloCse>();
    simplify->AddPass<HloDce>();
    pipeline.AddPass(std::make_unique<FixedPointPass>(std::move(simplify)));
  }
  pipeline.AddPass<LayoutAssignment>();
  pipeline.AddPass<ReductionSplitter>();
  pipeline.AddPass<CpuFusion>();
  pipeline.AddPass<HloDce>();
  RETURN_IF_ERROR(pipeline.Run(module).status());

  absl::Status status = VerifyHloModule(*module);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("the cpu pipeline produced a module that does not verify: ",
                                            status.message()));
  }
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace xla
