#include "backends/cpu/passes/single_device_collectives.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/passes/pass_util.h"
#include "backends/single_device_collectives.h"
#include "hlo/shape_inference_internal.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

// The single-device checks (backends/single_device_collectives.h), for this backend, with
// the instruction's name in their messages.
constexpr char kBackendName[] = "cpu backend";

absl::Status NeedsDevices(int64_t devices, const std::string& why) {
  return backend::NeedsDevices(devices, why, kBackendName);
}

absl::Status CheckSingleParticipant(const HloInstruction& hlo) {
  return backend::CheckSingleParticipant(hlo, hlo.name(), kBackendName);
}

std::vector<const Shape*> ShapesOf(const std::vector<HloInstruction*>& operands) {
  std::vector<const Shape*> shapes;
  for (const HloInstruction* operand : operands) shapes.push_back(&operand->shape());
  return shapes;
}

std::vector<HloInstruction*> Operands(const HloInstruction& hlo) {
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < hlo.operand_count(); ++i) operands.push_back(const_cast<HloInstruction*>(hlo.operand(i)));
  return operands;
}

bool IsTupleOfOperands(const Shape& result, const std::vector<HloInstruction*>& operands) {
  return backend::IsTupleOfOperands(result, ShapesOf(operands));
}

absl::Status CheckSameShapes(const HloInstruction& hlo, const Shape& result, const std::vector<HloInstruction*>& operands) {
  if (operands.empty()) return absl::InvalidArgumentError(absl::StrCat(hlo.name(), " expects at least one operand"));
  return backend::CheckSameShapes(result, ShapesOf(operands), hlo.name(), kBackendName);
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

// A start value: `parts` (its first elements), then zeros for each context `declared` lists
// after them, as a tuple of its elements' shapes.
absl::StatusOr<HloInstruction*> WithZeroContexts(HloComputation* c, const Shape& declared,
                                                 std::vector<HloInstruction*> parts) {
  std::vector<Shape> shapes;
  for (const HloInstruction* part : parts) shapes.push_back(part->shape());
  for (int64_t i = static_cast<int64_t>(parts.size()); i < declared.tuple_shapes_size(); ++i) {
    ASSIGN_OR_RETURN(HloInstruction * context, Zeros(c, declared.tuple_shapes(i)));
    parts.push_back(context);
    shapes.push_back(context->shape());
  }
  return AddWithShape(c, HloOpcode::kTuple, Shape::MakeTuple(std::move(shapes)), parts);
}

absl::StatusOr<HloInstruction*> StartValue(HloComputation* c, const HloInstruction& hlo,
                                           const std::vector<HloInstruction*>& operands, HloInstruction* result) {
  const Shape& shape = hlo.shape();
  if (ShapeUtil::Compatible(shape, result->shape())) return result;
  if (!shape.IsTuple() || shape.tuple_shapes_size() < 2 || !ShapeUtil::Compatible(shape.tuple_shapes(1), result->shape())) {
    return absl::InvalidArgumentError(absl::StrCat(hlo.name(), ": the result ", shape.ToString(), " is not (input, ",
                                                   result->shape().ToString(), ", ...)"));
  }
  return WithZeroContexts(c, shape, {OperandsValue(c, shape.tuple_shapes(0), operands), result});
}

// A -done's value: element `index` of its start value (the result of an async op or a
// collective, the destination of a copy).
absl::StatusOr<HloInstruction*> PartOfStart(HloComputation* c, const HloInstruction& hlo,
                                            const std::vector<HloInstruction*>& operands, int index) {
  if (operands.size() != 1) return absl::InvalidArgumentError(absl::StrCat(hlo.name(), " expects one operand"));
  const Shape& start = operands[0]->shape();
  if (!start.IsTuple() || start.tuple_shapes_size() <= index ||
      !ShapeUtil::Compatible(start.tuple_shapes(index), hlo.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(hlo.name(), ": operand ", start.ToString(), " is not a start value of ",
                                                   hlo.shape().ToString()));
  }
  HloInstructionProto attrs;
  attrs.set_tuple_index(index);
  return AddWithShape(c, HloOpcode::kGetTupleElement, start.tuple_shapes(index), operands, attrs);
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
    case HloOpcode::kCollectivePermuteDone:
      if (operands.size() == 1 && ShapeUtil::Compatible(operands[0]->shape(), hlo->shape())) return operands[0];
      return PartOfStart(c, *hlo, operands, 1);
    case HloOpcode::kAsyncStart: {
      // The wrapped computation runs at once, as a call (inlined by the pipeline); the start
      // value is ((operands...), its result, zero contexts...), as on the interpreter.
      HloComputation* wrapped = hlo->to_apply();
      const Shape& shape = hlo->shape();
      if (wrapped == nullptr || hlo->called_computations().size() != 1 ||
          wrapped->num_parameters() != hlo->operand_count() || !shape.IsTuple() || shape.tuple_shapes_size() < 2 ||
          !ShapeUtil::Compatible(shape.tuple_shapes(1), wrapped->root_instruction()->shape())) {
        return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": the result ", shape.ToString(),
                                                       " is not ((operands...), the wrapped computation's result, ...)"));
      }
      HloInstruction* call = AddWithShape(c, HloOpcode::kCall, shape.tuple_shapes(1), operands);
      call->AppendComputation(wrapped);
      return StartValue(c, *hlo, operands, call);
    }
    case HloOpcode::kAsyncUpdate:
      RETURN_IF_ERROR(CheckSameShapes(*hlo, hlo->shape(), operands));
      return operands[0];
    case HloOpcode::kAsyncDone:
      return PartOfStart(c, *hlo, operands, 1);
    case HloOpcode::kCopyStart: {
      // (destination, source, contexts...): the copy is made at once.
      const Shape& shape = hlo->shape();
      if (operands.size() != 1 || !shape.IsTuple() || shape.tuple_shapes_size() < 2 ||
          !ShapeUtil::Compatible(shape.tuple_shapes(0), operands[0]->shape()) ||
          !ShapeUtil::Compatible(shape.tuple_shapes(1), operands[0]->shape())) {
        return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": the result ", shape.ToString(),
                                                       " is not (destination, source, contexts...) of its operand"));
      }
      // One device has one memory: the destination keeps the source's layout (a memory space
      // it names is dropped), so that the copy of a value nothing writes folds away.
      return WithZeroContexts(c, shape,
                              {AddWithShape(c, HloOpcode::kCopy, operands[0]->shape(), operands), operands[0]});
    }
    case HloOpcode::kCopyDone:
      return PartOfStart(c, *hlo, operands, 0);
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
