#include "backends/gpu/gpu_update_fusion.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/passes/pass_util.h"
#include "backends/gpu/gpu_plan.h"
#include "hlo/hlo_computation.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {
namespace {

// An instruction of an update's computation that one kernel computes per element: elementwise
// math, data movement, iota, constants and parameters (no reductions, no windows).
bool PerElement(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kIota:
      return hlo.shape().IsArray();
    default:
      return cpu::IsElementwise(hlo) && hlo.shape().IsArray();
  }
}

// The update of `dus` when it may join it: computed for it alone, per element, without
// reading the array being updated, with no control edges.
HloInstruction* FusibleUpdate(const HloInstruction& dus) {
  HloInstruction* update = const_cast<HloInstruction*>(dus.operand(1));
  if (update->users().size() != 1 || update == update->parent()->root_instruction() ||
      !update->control_predecessors().empty() || !update->control_successors().empty() ||
      !dus.control_predecessors().empty() || !dus.control_successors().empty()) {
    return nullptr;
  }
  for (const HloInstruction* operand : update->operands()) {
    if (operand == dus.operand(0) || !operand->shape().IsArray()) return nullptr;
  }
  if (update->opcode() == HloOpcode::kFusion) {
    const HloComputation* fused = update->to_apply();
    if (fused == nullptr || update->called_computations().size() != 1) return nullptr;
    for (const auto& inner : fused->instructions()) {
      if (!PerElement(*inner)) return nullptr;
    }
    return update;
  }
  if (update->opcode() == HloOpcode::kParameter || update->opcode() == HloOpcode::kConstant ||
      update->opcode() == HloOpcode::kGetTupleElement || !PerElement(*update)) {
    return nullptr;
  }
  return update;
}

// Replaces `dus` and `update` with one fusion: parameter 0 the array updated, then the
// update's operands and the start indices.
absl::Status Fuse(HloComputation* computation, HloInstruction* dus, HloInstruction* update) {
  HloModule* module = computation->parent();
  auto fused = std::make_unique<HloComputation>(module->UniqueComputationName("fused_update"));
  fused->set_is_fusion_computation(true);
  std::vector<HloInstruction*> operands;
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> parameter_of;
  auto parameter = [&](HloInstruction* outside) {
    auto it = parameter_of.find(outside);
    if (it != parameter_of.end()) return it->second;
    const int64_t number = static_cast<int64_t>(operands.size());
    auto p = HloInstruction::Create(HloOpcode::kParameter, outside->shape());
    p->mutable_attrs()->set_parameter_number(number);
    p->set_name(absl::StrCat("param_", number));
    HloInstruction* added = fused->AddInstruction(std::move(p));
    operands.push_back(outside);
    parameter_of[outside] = added;
    return added;
  };
  HloInstruction* target = parameter(dus->mutable_operand(0));
  HloInstruction* value = nullptr;
  if (update->opcode() == HloOpcode::kFusion) {
    absl::flat_hash_map<const HloInstruction*, HloInstruction*> mapped;
    for (HloInstruction* inner : update->to_apply()->MakeInstructionPostOrder()) {
      if (inner->opcode() == HloOpcode::kParameter) {
        mapped[inner] = parameter(update->mutable_operand(inner->parameter_number()));
        continue;
      }
      std::vector<HloInstruction*> inner_operands;
      for (HloInstruction* operand : inner->operands()) inner_operands.push_back(mapped.at(operand));
      mapped[inner] = fused->AddInstruction(inner->CloneWithNewOperands(inner->shape(), inner_operands));
    }
    value = mapped.at(update->to_apply()->root_instruction());
  } else {
    std::vector<HloInstruction*> update_operands;
    for (HloInstruction* operand : update->operands()) update_operands.push_back(parameter(operand));
    value = fused->AddInstruction(update->CloneWithNewOperands(update->shape(), update_operands));
  }
  std::vector<HloInstruction*> root_operands = {target, value};
  for (int64_t i = 2; i < dus->operand_count(); ++i) root_operands.push_back(parameter(dus->mutable_operand(i)));
  fused->set_root_instruction(fused->AddInstruction(dus->CloneWithNewOperands(dus->shape(), root_operands)));
  HloComputation* fused_raw = module->AddEmbeddedComputation(std::move(fused));
  auto fusion = HloInstruction::Create(HloOpcode::kFusion, dus->shape(), operands);
  fusion->mutable_attrs()->set_fusion_kind("kLoop");
  fusion->AppendComputation(fused_raw);
  HloInstruction* fusion_raw = computation->AddInstructionWithUniqueName(std::move(fusion), dus->name());
  RETURN_IF_ERROR(computation->ReplaceInstruction(dus, fusion_raw));
  return computation->RemoveInstruction(update);
}

}  // namespace

absl::StatusOr<bool> FuseUpdatesIntoSlices(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    if (computation->is_fusion_computation()) continue;
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      if (!UpdatesInPlace(*hlo) || hlo->opcode() != HloOpcode::kDynamicUpdateSlice) continue;
      HloInstruction* update = FusibleUpdate(*hlo);
      if (update == nullptr) continue;
      RETURN_IF_ERROR(Fuse(computation, hlo, update));
      changed = true;
    }
  }
  return changed;
}

}  // namespace gpu
}  // namespace xla
