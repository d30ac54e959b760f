#include "backends/gpu/gpu_compiler.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/passes/pipeline.h"
#include "hlo/hlo_verifier.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {

absl::StatusOr<GpuPlan> CompileGpuPlan(std::unique_ptr<HloModule> module, const GpuTarget& target) {
  if (module == nullptr) return absl::InvalidArgumentError("gpu: no module");
  RETURN_IF_ERROR(VerifyHloModule(*module));
  RETURN_IF_ERROR(cpu::RunCpuPipeline(module.get()));
  GpuPlan plan;
  plan.sm = target.sm;
  const HloComputation& entry = *module->entry_computation();
  absl::flat_hash_map<const HloInstruction*, int> position;
  std::vector<const HloInstruction*> kernels;
  std::vector<std::string> unsupported;
  for (const HloInstruction* hlo : entry.MakeInstructionPostOrder()) {
    GpuPlanStep step;
    step.hlo = hlo;
    for (const HloInstruction* operand : hlo->operands()) step.operands.push_back(position.at(operand));
    switch (hlo->opcode()) {
      case HloOpcode::kParameter:
        step.kind = GpuPlanStep::Kind::kParameter;
        step.index = hlo->parameter_number();
        break;
      case HloOpcode::kConstant:
        step.kind = GpuPlanStep::Kind::kConstant;
        break;
      case HloOpcode::kTuple:
        step.kind = GpuPlanStep::Kind::kTuple;
        break;
      case HloOpcode::kGetTupleElement:
        step.kind = GpuPlanStep::Kind::kGetTupleElement;
        step.index = hlo->tuple_index();
        break;
      default:
        if (IsKernelCandidate(*hlo)) {
          step.kind = GpuPlanStep::Kind::kKernel;
          kernels.push_back(hlo);
        } else {
          unsupported.push_back(absl::StrCat(std::string(HloOpcodeString(hlo->opcode())), " (", hlo->name(), ")"));
        }
    }
    if (hlo == entry.root_instruction()) plan.root = static_cast<int>(plan.steps.size());
    position[hlo] = static_cast<int>(plan.steps.size());
    plan.steps.push_back(std::move(step));
  }
  if (!unsupported.empty()) {
    return absl::UnimplementedError(
        absl::StrCat("gpu backend does not run these ops yet: ", absl::StrJoin(unsupported, ", ")));
  }
  if (!kernels.empty()) {
    ASSIGN_OR_RETURN(PtxModule ptx, EmitPtx(kernels, module->name(), target));
    for (size_t k = 0; k < kernels.size(); ++k) {
      GpuPlanStep& step = plan.steps[position.at(kernels[k])];
      step.kernel = ptx.kernels[k].name;
      step.elements = ptx.kernels[k].elements;
      step.rows = ptx.kernels[k].rows;
      step.gemm = IsCublasGemm(*kernels[k]);
    }
    plan.ptx = std::move(ptx.ptx);
  }
  plan.module = std::move(module);
  RETURN_IF_ERROR(ValidateGpuPlan(plan));
  return plan;
}

void RegisterGpuBackend() {
  backend::RegisterBackendFactory("gpu", []() -> absl::StatusOr<std::unique_ptr<backend::Backend>> {
    ASSIGN_OR_RETURN(const CudaDriver* driver, CudaDriver::Default());
    return CreateGpuBackend(driver, CompileGpuPlan);
  });
}

}  // namespace gpu
}  // namespace xla
