#include "backends/gpu/gpu_compiler.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/passes/pipeline.h"
#include "backends/cpu/passes/single_device_collectives.h"
#include "backends/gpu/gpu_expanders.h"
#include "hlo/hlo_verifier.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {

namespace {

// Builds the plan's sequences: the entry's first, then one per call site of a while,
// conditional or call (each after its caller's, as ValidateGpuPlan wants).
class PlanBuilder {
 public:
  explicit PlanBuilder(GpuPlan* plan) : plan_(plan) {}

  // Appends the sequence of `computation` (and those it calls); returns its index.
  int Build(const HloComputation* computation) {
    const int index = static_cast<int>(plan_->sequences.size());
    plan_->sequences.emplace_back().computation = computation;
    GpuSequence sequence;  // filled here: the callees' sequences grow plan_->sequences meanwhile
    sequence.computation = computation;
    absl::flat_hash_map<const HloInstruction*, int> position;
    for (const HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
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
        case HloOpcode::kWhile:
        case HloOpcode::kConditional:
        case HloOpcode::kCall:
          step.kind = hlo->opcode() == HloOpcode::kWhile         ? GpuPlanStep::Kind::kWhile
                      : hlo->opcode() == HloOpcode::kConditional ? GpuPlanStep::Kind::kConditional
                                                                 : GpuPlanStep::Kind::kCall;
          for (const HloComputation* callee : StepCallees(*hlo)) step.callees.push_back(Build(callee));
          break;
        case HloOpcode::kAfterAll:
          step.kind = GpuPlanStep::Kind::kToken;
          break;
        case HloOpcode::kSend:
        case HloOpcode::kRecv:
          // As the interpreter and the cpu backend: one device, no peer and no host channels.
          refusals_.push_back(absl::StrCat(std::string(HloOpcodeString(hlo->opcode())), " on channel ",
                                           hlo->attrs().channel_id(),
                                           hlo->attrs().is_host_transfer() ? " (host transfer)" : "",
                                           " needs a peer device or host; the gpu backend has one device and no "
                                           "host channels"));
          break;
        default:
          if (IsAlias(*hlo)) {
            step.kind = GpuPlanStep::Kind::kAlias;
          } else if (IsKernelCandidate(*hlo)) {
            step.kind = GpuPlanStep::Kind::kKernel;
            kernels_.push_back(hlo);
            kernel_steps_.emplace_back(index, static_cast<int>(sequence.steps.size()));
          } else {
            unsupported_.push_back(absl::StrCat(std::string(HloOpcodeString(hlo->opcode())), " (", hlo->name(), ")"));
          }
      }
      if (hlo == computation->root_instruction()) sequence.root = static_cast<int>(sequence.steps.size());
      position[hlo] = static_cast<int>(sequence.steps.size());
      sequence.steps.push_back(std::move(step));
    }
    plan_->sequences[index] = std::move(sequence);
    return index;
  }

  const std::vector<const HloInstruction*>& kernels() const { return kernels_; }
  // Where kernels()[k]'s step is: {sequence, step}.
  const std::vector<std::pair<int, int>>& kernel_steps() const { return kernel_steps_; }
  const std::vector<std::string>& unsupported() const { return unsupported_; }
  const std::vector<std::string>& refusals() const { return refusals_; }

 private:
  GpuPlan* const plan_;
  std::vector<const HloInstruction*> kernels_;
  std::vector<std::pair<int, int>> kernel_steps_;
  std::vector<std::string> unsupported_;
  std::vector<std::string> refusals_;  // ops no single-device backend runs, with the reason
};

// The single-device pass names the cpu backend in its errors (the one device it speaks of
// is the executable's, here a GPU's).
absl::Status ForThisBackend(absl::Status status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrReplaceAll(status.message(), {{"cpu backend", "gpu backend"}}));
}

}  // namespace

absl::StatusOr<GpuPlan> CompileGpuPlan(std::unique_ptr<HloModule> module, const GpuTarget& target) {
  if (module == nullptr) return absl::InvalidArgumentError("gpu: no module");
  RETURN_IF_ERROR(VerifyHloModule(*module));
  // One device, as the cpu backend: collectives and the allowlisted custom-calls become plain
  // HLO (a module built for more devices, or an unknown custom-call target, fails here).
  RETURN_IF_ERROR(ForThisBackend(cpu::SingleDeviceCollectives().Run(module.get()).status()));
  RETURN_IF_ERROR(ExpandForGpu(module.get()).status());
  RETURN_IF_ERROR(cpu::RunCpuPipeline(module.get()));
  GpuPlan plan;
  plan.sm = target.sm;
  PlanBuilder builder(&plan);
  builder.Build(module->entry_computation());
  if (!builder.refusals().empty()) return absl::UnimplementedError(absl::StrJoin(builder.refusals(), "; "));
  if (!builder.unsupported().empty()) {
    return absl::UnimplementedError(
        absl::StrCat("gpu backend does not run these ops yet: ", absl::StrJoin(builder.unsupported(), ", ")));
  }
  const std::vector<const HloInstruction*>& kernels = builder.kernels();
  if (!kernels.empty()) {
    ASSIGN_OR_RETURN(PtxModule ptx, EmitPtx(kernels, module->name(), target));
    for (size_t k = 0; k < kernels.size(); ++k) {
      const auto [sequence, index] = builder.kernel_steps()[k];
      GpuPlanStep& step = plan.sequences[sequence].steps[index];
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
