#include "backends/cpu/passes/single_device_collectives.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/passes/pass_util.h"
#include "hlo/shape_inference_internal.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

absl::Status NeedsDevices(int64_t devices, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat(why, ": the module needs ", devices, " devices; the cpu backend has one"));
}

// OK when the replica groups name no device but device 0. Groups such as {{0},{1}} still
// need a second device: the module was built for it.
absl::Status CheckSingleParticipant(const HloInstruction& hlo) {
  const HloInstructionProto& attrs = hlo.attrs();
  if (attrs.has_collective_device_list() && attrs.collective_device_list().has_iota_replica_group_list()) {
    const IotaReplicaGroupListProto& iota = attrs.collective_device_list().iota_replica_group_list();
    const int64_t groups = iota.num_replica_groups(), per_group = iota.num_devices_per_group();
    if (groups < 0 || per_group < 0 || (per_group > 0 && groups > (int64_t{1} << 40) / per_group)) {
      return absl::InvalidArgumentError(absl::StrCat(hlo.name(), ": invalid iota replica groups"));
    }
    if (groups * per_group > 1) {
      return NeedsDevices(groups * per_group, absl::StrCat(hlo.name(), ": replica_groups=[", groups, ",", per_group, "]"));
    }
    return absl::OkStatus();
  }
  int64_t max_id = 0;
  for (const auto& group : shape_inference_internal::ReplicaGroupsOf(attrs)) {
    for (int64_t id : group) {
      if (id < 0) return absl::InvalidArgumentError(absl::StrCat(hlo.name(), ": negative device id ", id));
      max_id = std::max(max_id, id);
    }
  }
  if (max_id > 0) return NeedsDevices(max_id + 1, absl::StrCat(hlo.name(), ": replica groups name device ", max_id));
  return absl::OkStatus();
}

std::vector<HloInstruction*> Operands(const HloInstruction& hlo) {
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < hlo.operand_count(); ++i) operands.push_back(const_cast<HloInstruction*>(hlo.operand(i)));
  return operands;
}

// The result holds one element per operand rather than being the only operand itself.
bool IsTupleOfOperands(const Shape& result, const std::vector<HloInstruction*>& operands) {
  return result.IsTuple() && !(operands.size() == 1 && operands[0]->shape().IsTuple());
}

// Each result element must have its operand's shape; a multiple of it means more devices.
absl::Status CheckSameShapes(const HloInstruction& hlo, const Shape& result, const std::vector<HloInstruction*>& operands) {
  if (operands.empty()) return absl::InvalidArgumentError(absl::StrCat(hlo.name(), " expects at least one operand"));
  const bool per_operand = IsTupleOfOperands(result, operands);
  if (per_operand && result.tuple_shapes_size() != static_cast<int64_t>(operands.size())) {
    return absl::InvalidArgumentError(absl::StrCat(hlo.name(), ": the result ", result.ToString(), " has ",
                                                   result.tuple_shapes_size(), " elements for ", operands.size(),
                                                   " operands"));
  }
  for (size_t i = 0; i < (per_operand ? operands.size() : 1); ++i) {
    const Shape& want = per_operand ? result.tuple_shapes(static_cast<int>(i)) : result;
    const Shape& have = operands[i]->shape();
    if (ShapeUtil::Compatible(want, have)) continue;
    if (want.IsArray() && have.IsArray() && want.rank() == have.rank()) {
      for (int64_t d = 0; d < want.rank(); ++d) {
        const int64_t big = std::max(want.dimensions(d), have.dimensions(d));
        const int64_t small = std::min(want.dimensions(d), have.dimensions(d));
        if (big != small && small > 0 && big % small == 0) {
          return NeedsDevices(big / small, absl::StrCat(hlo.name(), ": operand ", have.ToString(), " and result ",
                                                        want.ToString()));
        }
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(hlo.name(), ": operand ", i, " ", have.ToString(),
                                                   " does not match the result ", want.ToString()));
  }
  return absl::OkStatus();
}

// The operands as a value of `shape`: the only operand, or a tuple of them.
HloInstruction* OperandsValue(HloComputation* c, const Shape& shape, const std::vector<HloInstruction*>& operands) {
  if (!IsTupleOfOperands(shape, operands)) return operands[0];
  return AddWithShape(c, HloOpcode::kTuple, shape, operands);
}

// Zeros of `shape` (arrays as a broadcast scalar zero; tuples element by element).
absl::StatusOr<HloInstruction*> Zeros(HloComputation* c, const Shape& shape) {
  if (shape.IsTuple()) {
    std::vector<HloInstruction*> elements;
    for (const Shape& element : shape.tuple_shapes()) {
      ASSIGN_OR_RETURN(HloInstruction * zero, Zeros(c, element));
      elements.push_back(zero);
    }
    return AddWithShape(c, HloOpcode::kTuple, shape, elements);
  }
  if (!shape.IsArray()) return absl::InvalidArgumentError(absl::StrCat("no zeros of ", shape.ToString()));
  ASSIGN_OR_RETURN(Literal zero, Literal::Create(ShapeUtil::MakeShape(shape.element_type(), {})));
  HloInstruction* scalar = AddConstant(c, std::move(zero));
  return AddWithShape(c, HloOpcode::kBroadcast, shape, {scalar});
}

// collective-permute's value: the operands when device 0 sends to itself, else zeros.
absl::StatusOr<HloInstruction*> PermutedValue(HloComputation* c, const HloInstruction& hlo, const Shape& result,
                                              const std::vector<HloInstruction*>& operands) {
  if (operands.size() == 4 && hlo.attrs().dynamic_slice_sizes_size() > 0) {
    return absl::UnimplementedError(absl::StrCat(hlo.name(), ": the in-place form of collective-permute is not supported"));
  }
  bool self = false;
  int64_t max_id = 0;
  for (const SourceTarget& pair : hlo.attrs().source_target_pairs()) {
    if (pair.source() < 0 || pair.target() < 0) {
      return absl::InvalidArgumentError(absl::StrCat(hlo.name(), ": negative device id in source_target_pairs {",
                                                     pair.source(), ",", pair.target(), "}"));
    }
    max_id = std::max({max_id, pair.source(), pair.target()});
    if (pair.source() == 0 && pair.target() == 0) self = true;
  }
  if (max_id > 0) return NeedsDevices(max_id + 1, absl::StrCat(hlo.name(), ": source_target_pairs name device ", max_id));
  if (self) return OperandsValue(c, result, operands);
  if (!IsTupleOfOperands(result, operands)) return Zeros(c, operands[0]->shape());
  std::vector<HloInstruction*> zeros;
  for (HloInstruction* operand : operands) {
    ASSIGN_OR_RETURN(HloInstruction * zero, Zeros(c, operand->shape()));
    zeros.push_back(zero);
  }
  return AddWithShape(c, HloOpcode::kTuple, result, zeros);
}

// The result part of a -start: its declared shape when that fits the operands as a whole,
// else its element 1 (the start value is then (operands, result, contexts...)).
const Shape& ResultPartOfStart(const HloInstruction& hlo, const std::vector<HloInstruction*>& operands) {
  const Shape& shape = hlo.shape();
  if (!shape.IsTuple() || shape.tuple_shapes_size() < 2) return shape;
  if (CheckSameShapes(hlo, shape, operands).ok()) return shape;
  return shape.tuple_shapes(1);
}

absl::StatusOr<HloInstruction*> StartValue(HloComputation* c, const HloInstruction& hlo,
                                           const std::vector<HloInstruction*>& operands, HloInstruction* result) {
  const Shape& shape = hlo.shape();
  if (ShapeUtil::Compatible(shape, result->shape())) return result;
  if (!shape.IsTuple() || shape.tuple_shapes_size() < 2 || !ShapeUtil::Compatible(shape.tuple_shapes(1), result->shape())) {
    return absl::InvalidArgumentError(absl::StrCat(hlo.name(), ": the result ", shape.ToString(), " is not (input, ",
                                                   result->shape().ToString(), ", ...)"));
  }
  std::vector<HloInstruction*> elements = {OperandsValue(c, shape.tuple_shapes(0), operands), result};
  for (int i = 2; i < shape.tuple_shapes_size(); ++i) {
    ASSIGN_OR_RETURN(HloInstruction * context, Zeros(c, shape.tuple_shapes(i)));
    elements.push_back(context);
  }
  return AddWithShape(c, HloOpcode::kTuple, shape, elements);
}

bool IsAnnotationTarget(const std::string& target) {
  return target == "Sharding" || target == "SPMDFullToShardShape" || target == "SPMDShardToFullShape" ||
         target == "MoveToHost" || target == "MoveToDevice" || target == "annotate_device_placement";
}

// The replacement of `hlo`, or null when it is not rewritten here.
absl::StatusOr<HloInstruction*> Lower(HloComputation* c, HloInstruction* hlo) {
  const std::vector<HloInstruction*> operands = Operands(*hlo);
  switch (hlo->opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
      RETURN_IF_ERROR(CheckSingleParticipant(*hlo));
      RETURN_IF_ERROR(CheckSameShapes(*hlo, hlo->shape(), operands));
      return OperandsValue(c, hlo->shape(), operands);
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGatherStart: {
      RETURN_IF_ERROR(CheckSingleParticipant(*hlo));
      const Shape& result = ResultPartOfStart(*hlo, operands);
      RETURN_IF_ERROR(CheckSameShapes(*hlo, result, operands));
      return StartValue(c, *hlo, operands, OperandsValue(c, result, operands));
    }
    case HloOpcode::kCollectivePermute:
      RETURN_IF_ERROR(CheckSameShapes(*hlo, hlo->shape(), operands));
      return PermutedValue(c, *hlo, hlo->shape(), operands);
    case HloOpcode::kCollectivePermuteStart: {
      const Shape& result = ResultPartOfStart(*hlo, operands);
      RETURN_IF_ERROR(CheckSameShapes(*hlo, result, operands));
      ASSIGN_OR_RETURN(HloInstruction * value, PermutedValue(c, *hlo, result, operands));
      return StartValue(c, *hlo, operands, value);
    }
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone: {
      if (operands.size() != 1) return absl::InvalidArgumentError(absl::StrCat(hlo->name(), " expects one operand"));
      const Shape& start = operands[0]->shape();
      if (ShapeUtil::Compatible(start, hlo->shape())) return operands[0];
      if (!start.IsTuple() || start.tuple_shapes_size() < 2) {
        return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": operand ", start.ToString(), " is not a start value"));
      }
      HloInstructionProto attrs;
      attrs.set_tuple_index(1);
      return AddWithShape(c, HloOpcode::kGetTupleElement, start.tuple_shapes(1), operands, attrs);
    }
    case HloOpcode::kCustomCall: {
      const std::string& target = hlo->attrs().custom_call_target();
      if (IsAnnotationTarget(target)) {
        if (operands.size() != 1) {
          return absl::InvalidArgumentError(absl::StrCat("custom-call target '", target, "' takes one operand"));
        }
        RETURN_IF_ERROR(CheckSameShapes(*hlo, hlo->shape(), operands));
        return operands[0];
      }
      if (target == "AllocateBuffer") {
        if (!operands.empty()) return absl::InvalidArgumentError("custom-call target 'AllocateBuffer' takes no operands");
        return Zeros(c, hlo->shape());
      }
      return absl::UnimplementedError(
          absl::StrCat("custom-call target '", target, "' is not available in the interpreter or the cpu backend"));
    }
    case HloOpcode::kRaggedAllToAll:
      // Offsets are run-time values: codegen computes it (emit_ragged_all_to_all.cc).
      RETURN_IF_ERROR(CheckSingleParticipant(*hlo));
      return nullptr;
    default:
      return nullptr;
  }
}

}  // namespace

absl::StatusOr<bool> SingleDeviceCollectives::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    if (computation->is_fusion_computation()) continue;
    // Post order: a -start is rewritten before its -done reads it.
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      ASSIGN_OR_RETURN(HloInstruction * replacement, Lower(computation, hlo));
      if (replacement == nullptr) continue;
      RETURN_IF_ERROR(computation->ReplaceInstruction(hlo, replacement));
      changed = true;
    }
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
