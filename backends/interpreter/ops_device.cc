// Device ops on the interpreter's single device: replica-id, partition-id, the collectives
// and their async forms, send/recv, infeed/outfeed and custom-call.
//
// The interpreter is one device: replica 0 of 1, partition 0 of 1. A collective whose
// replica groups (or source-target pairs) name only device 0, or no device at all, has one
// participant and its single-device meaning: all-reduce, all-gather, reduce-scatter,
// all-to-all and collective-broadcast return their operands; collective-permute returns
// its operand when the pair (0,0) exists and zeros otherwise (XLA's value for a device
// nobody sends to). A module whose groups name any other device was built for more
// devices; running it here would compute a wrong result, so it is INVALID_ARGUMENT
// "needs N devices" -- even for groups such as {{0},{1}} where device 0 happens to be
// alone: the module still expects a second device to exist.
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/value_checks.h"
#include "backends/interpreter/evaluator.h"
#include "backends/single_device_collectives.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_inference_internal.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace {

using Operands = absl::Span<const Literal* const>;

// How long an infeed waits for a value before DEADLINE_EXCEEDED.
constexpr int64_t kInfeedTimeoutMs = 10000;

// The single-device checks (backends/single_device_collectives.h), for this backend.
constexpr char kBackendName[] = "interpreter";

absl::Status NeedsDevices(int64_t devices, const std::string& why) {
  return backend::NeedsDevices(devices, why, kBackendName);
}

absl::Status CheckSingleParticipant(const HloInstruction& instruction) {
  return backend::CheckSingleParticipant(instruction, "", kBackendName);
}

std::vector<const Shape*> ShapesOf(Operands operands) {
  std::vector<const Shape*> shapes;
  for (const Literal* operand : operands) shapes.push_back(&operand->shape());
  return shapes;
}

absl::Status CheckHasOperands(Operands operands) {
  if (operands.empty()) return absl::InvalidArgumentError("expects at least one operand");
  return absl::OkStatus();
}

bool IsTupleOfOperands(const Shape& result, Operands operands) {
  return backend::IsTupleOfOperands(result, ShapesOf(operands));
}

// The operands as a value of shape `result`: the operand itself, or a tuple of them.
Literal OperandsAsValue(const Shape& result, Operands operands) {
  if (!IsTupleOfOperands(result, operands)) return operands[0]->Clone();
  std::vector<Literal> elements;
  for (const Literal* operand : operands) elements.push_back(operand->Clone());
  return Literal::MakeTuple(std::move(elements));
}

absl::Status CheckSameShapes(const Shape& result, Operands operands) {
  return backend::CheckSameShapes(result, ShapesOf(operands), "", kBackendName);
}

absl::StatusOr<Literal> ZeroU32Id(EvalContext&, const HloInstruction&, Operands) {
  return Literal::CreateR0<uint32_t>(0);
}

// all-reduce, reduce-scatter, all-to-all, collective-broadcast, all-gather: with one
// participant the result is the operands.
absl::StatusOr<Literal> SingleParticipantIdentity(EvalContext&, const HloInstruction& instruction,
                                                  Operands operands) {
  RETURN_IF_ERROR(CheckHasOperands(operands));
  RETURN_IF_ERROR(CheckSingleParticipant(instruction));
  RETURN_IF_ERROR(CheckSameShapes(instruction.shape(), operands));
  return OperandsAsValue(instruction.shape(), operands);
}

// An async -start value around `result` (of shape `result_shape`): the result alone when
// that is the declared shape, else (input, result, zero contexts...).
absl::StatusOr<Literal> StartValue(const Shape& shape, Operands operands, Literal result) {
  if (ShapeUtil::Compatible(shape, result.shape())) return result;
  if (!shape.IsTuple() || shape.tuple_shapes_size() < 2 ||
      !ShapeUtil::Compatible(shape.tuple_shapes(1), result.shape())) {
    return absl::InvalidArgumentError(absl::StrCat("the result ", shape.ToString(),
                                                   " is not (input, ", result.shape().ToString(),
                                                   ", ...)"));
  }
  std::vector<Literal> elements;
  elements.push_back(OperandsAsValue(shape.tuple_shapes(0), operands));
  elements.push_back(std::move(result));
  for (int64_t i = 2; i < shape.tuple_shapes_size(); ++i) {
    ASSIGN_OR_RETURN(Literal context, Literal::Create(shape.tuple_shapes(i)));
    elements.push_back(std::move(context));
  }
  return Literal::MakeTuple(std::move(elements));
}

// The shape of the result part of a -start: the declared shape when it fits the operands
// as a whole, else its element 1.
const Shape& ResultPartOfStart(const Shape& shape, Operands operands) {
  if (!shape.IsTuple() || shape.tuple_shapes_size() < 2) return shape;
  if (CheckSameShapes(shape, operands).ok()) return shape;
  return shape.tuple_shapes(1);
}

absl::StatusOr<Literal> CollectiveStart(EvalContext&, const HloInstruction& instruction,
                                        Operands operands) {
  RETURN_IF_ERROR(CheckHasOperands(operands));
  RETURN_IF_ERROR(CheckSingleParticipant(instruction));
  const Shape& result_shape = ResultPartOfStart(instruction.shape(), operands);
  RETURN_IF_ERROR(CheckSameShapes(result_shape, operands));
  return StartValue(instruction.shape(), operands, OperandsAsValue(result_shape, operands));
}

// -done: the start value when it already is the result, else its element 1.
absl::StatusOr<Literal> CollectiveDone(EvalContext&, const HloInstruction& instruction,
                                       Operands operands) {
  if (operands.size() != 1) return absl::InvalidArgumentError("expects one operand");
  const Literal& start = *operands[0];
  if (ShapeUtil::Compatible(start.shape(), instruction.shape())) return start.Clone();
  if (start.IsTuple() && start.tuple_element_count() >= 2) return start.tuple_element(1).Clone();
  return absl::InvalidArgumentError(
      absl::StrCat("operand ", start.shape().ToString(), " is not a start value"));
}

// The source-target pairs, with every device id checked against the one device.
absl::StatusOr<bool> PermuteSendsToSelf(const HloInstruction& instruction) {
  bool self = false;
  int64_t max_id = 0;
  for (const SourceTarget& pair : instruction.attrs().source_target_pairs()) {
    if (pair.source() < 0 || pair.target() < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("negative device id in source_target_pairs {", pair.source(), ",",
                       pair.target(), "}"));
    }
    max_id = std::max({max_id, pair.source(), pair.target()});
    if (pair.source() == 0 && pair.target() == 0) self = true;
  }
  if (max_id > 0) {
    return NeedsDevices(max_id + 1, absl::StrCat("source_target_pairs name device ", max_id));
  }
  return self;
}

absl::StatusOr<Literal> PermutedValue(const HloInstruction& instruction, const Shape& result_shape,
                                      Operands operands) {
  RETURN_IF_ERROR(CheckHasOperands(operands));
  if (operands.size() == 4 && instruction.attrs().dynamic_slice_sizes_size() > 0) {
    return absl::UnimplementedError("the in-place form of collective-permute is not supported");
  }
  ASSIGN_OR_RETURN(bool self, PermuteSendsToSelf(instruction));
  if (self) return OperandsAsValue(result_shape, operands);
  std::vector<Literal> zeros;
  for (const Literal* operand : operands) {
    ASSIGN_OR_RETURN(Literal zero, Literal::Create(ShapeUtil::MakeShape(
                                       operand->shape().element_type(), operand->shape().dimensions())));
    zeros.push_back(std::move(zero));
  }
  if (!IsTupleOfOperands(result_shape, operands)) return std::move(zeros[0]);
  return Literal::MakeTuple(std::move(zeros));
}

absl::StatusOr<Literal> CollectivePermute(EvalContext&, const HloInstruction& instruction,
                                          Operands operands) {
  RETURN_IF_ERROR(CheckHasOperands(operands));
  RETURN_IF_ERROR(CheckSameShapes(instruction.shape(), operands));
  return PermutedValue(instruction, instruction.shape(), operands);
}

absl::StatusOr<Literal> CollectivePermuteStart(EvalContext&, const HloInstruction& instruction,
                                               Operands operands) {
  RETURN_IF_ERROR(CheckHasOperands(operands));
  const Shape& result_shape = ResultPartOfStart(instruction.shape(), operands);
  RETURN_IF_ERROR(CheckSameShapes(result_shape, operands));
  ASSIGN_OR_RETURN(Literal result, PermutedValue(instruction, result_shape, operands));
  return StartValue(instruction.shape(), operands, std::move(result));
}

// ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets, recv_sizes):
// with one peer, rows [input_offsets[0], +send_sizes[0]) of the input land at row
// output_offsets[0] of the output; the rest of the output keeps its values.
absl::StatusOr<Literal> RaggedAllToAll(EvalContext&, const HloInstruction& instruction,
                                       Operands operands) {
  if (operands.size() != 6) return absl::InvalidArgumentError("expects 6 operands");
  RETURN_IF_ERROR(CheckSingleParticipant(instruction));
  const Literal& input = *operands[0];
  const Literal& output = *operands[1];
  for (int i = 2; i < 6; ++i) {
    if (operands[i]->element_count() != 1) {
      return NeedsDevices(operands[i]->element_count(),
                          absl::StrCat("offsets and sizes have ", operands[i]->element_count(),
                                       " entries (one per peer)"));
    }
  }
  if (input.shape().rank() < 1 || output.shape().rank() != input.shape().rank()) {
    return absl::InvalidArgumentError("input and output must be arrays of the same rank >= 1");
  }
  const int64_t in_offset = operands[2]->GetAsInt64(0);
  const int64_t send_size = operands[3]->GetAsInt64(0);
  const int64_t out_offset = operands[4]->GetAsInt64(0);
  const int64_t recv_size = operands[5]->GetAsInt64(0);
  const int64_t in_rows = input.shape().dimensions(0);
  const int64_t out_rows = output.shape().dimensions(0);
  RETURN_IF_ERROR(backend::CheckRaggedAllToAllRows(in_offset, send_size, out_offset, recv_size, in_rows, out_rows));
  if (input.shape().element_type() != output.shape().element_type()) {
    return absl::InvalidArgumentError("input and output must have the same element type");
  }
  const int64_t row = in_rows == 0 ? 0 : input.element_count() / in_rows;
  if (out_rows > 0 && in_rows > 0 && output.element_count() / out_rows != row) {
    return absl::InvalidArgumentError("input and output rows must have the same size");
  }
  Literal result = output.Clone();
  // Copy element storage (exact for every type, NaN payloads included).
  const int64_t element_bytes =
      input.element_count() == 0 ? 0 : input.size_bytes() / input.element_count();
  const char* from_data = static_cast<const char*>(input.untyped_data());
  char* to_data = static_cast<char*>(result.untyped_data());
  for (int64_t i = 0; i < send_size * row; ++i) {
    const int64_t from = input.StorageIndex(in_offset * row + i);
    const int64_t to = result.StorageIndex(out_offset * row + i);
    std::memcpy(to_data + to * element_bytes, from_data + from * element_bytes, element_bytes);
  }
  return result;
}

absl::StatusOr<Literal> SendRecv(EvalContext&, const HloInstruction& instruction, Operands) {
  return absl::UnimplementedError(absl::StrCat(
      std::string(HloOpcodeString(instruction.opcode())), " on channel ",
      instruction.attrs().channel_id(),
      instruction.attrs().is_host_transfer() ? " (host transfer)" : "",
      " needs a peer device or host; the interpreter has one device and no host channels"));
}

absl::StatusOr<Literal> Infeed(EvalContext& ctx, const HloInstruction& instruction, Operands) {
  const Shape& shape = instruction.shape();
  if (!shape.IsTuple() || shape.tuple_shapes_size() != 2) {
    return absl::InvalidArgumentError("infeed must produce (data, token)");
  }
  ASSIGN_OR_RETURN(Literal value, ctx.device->PopInfeed(kInfeedTimeoutMs));
  if (!ShapeUtil::Compatible(value.shape(), shape.tuple_shapes(0))) {
    return absl::InvalidArgumentError(absl::StrCat("the infeed value has shape ",
                                                   value.shape().ToString(), ", the infeed expects ",
                                                   shape.tuple_shapes(0).ToString()));
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(value));
  ASSIGN_OR_RETURN(Literal token, Literal::Create(Shape::MakeToken()));
  elements.push_back(std::move(token));
  return Literal::MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> Outfeed(EvalContext& ctx, const HloInstruction&, Operands operands) {
  if (operands.size() != 2) return absl::InvalidArgumentError("expects (value, token)");
  ctx.device->PushOutfeed(operands[0]->Clone());
  return Literal::Create(Shape::MakeToken());
}

// custom-call targets the interpreter implements: annotations that mean nothing on one
// device (sharding, host/device memory placement, SPMD shape changes that are identities
// with one partition) and AllocateBuffer (a zeroed buffer of the result shape).
absl::StatusOr<Literal> CustomCall(EvalContext&, const HloInstruction& instruction,
                                   Operands operands) {
  const std::string& target = instruction.attrs().custom_call_target();
  if (target == "Sharding" || target == "SPMDFullToShardShape" ||
      target == "SPMDShardToFullShape" || target == "MoveToHost" || target == "MoveToDevice" ||
      target == "annotate_device_placement") {
    if (operands.size() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("custom-call target '", target, "' takes one operand"));
    }
    RETURN_IF_ERROR(CheckSameShapes(instruction.shape(), operands));
    return operands[0]->Clone();
  }
  if (target == "AllocateBuffer") {
    if (!operands.empty()) {
      return absl::InvalidArgumentError("custom-call target 'AllocateBuffer' takes no operands");
    }
    return Literal::Create(instruction.shape());
  }
  return absl::UnimplementedError(
      absl::StrCat("custom-call target '", target, "' is not available in the interpreter"));
}

}  // namespace

void RegisterDeviceHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kReplicaId, ZeroU32Id);
  table->Register(HloOpcode::kPartitionId, ZeroU32Id);
  table->Register(HloOpcode::kAllReduce, SingleParticipantIdentity);
  table->Register(HloOpcode::kAllReduceStart, CollectiveStart);
  table->Register(HloOpcode::kAllReduceDone, CollectiveDone);
  table->Register(HloOpcode::kAllGather, SingleParticipantIdentity);
  table->Register(HloOpcode::kAllGatherStart, CollectiveStart);
  table->Register(HloOpcode::kAllGatherDone, CollectiveDone);
  table->Register(HloOpcode::kReduceScatter, SingleParticipantIdentity);
  table->Register(HloOpcode::kAllToAll, SingleParticipantIdentity);
  table->Register(HloOpcode::kCollectiveBroadcast, SingleParticipantIdentity);
  table->Register(HloOpcode::kRaggedAllToAll, RaggedAllToAll);
  table->Register(HloOpcode::kCollectivePermute, CollectivePermute);
  table->Register(HloOpcode::kCollectivePermuteStart, CollectivePermuteStart);
  table->Register(HloOpcode::kCollectivePermuteDone, CollectiveDone);
  table->Register(HloOpcode::kSend, SendRecv);
  table->Register(HloOpcode::kSendDone, SendRecv);
  table->Register(HloOpcode::kRecv, SendRecv);
  table->Register(HloOpcode::kRecvDone, SendRecv);
  table->Register(HloOpcode::kInfeed, Infeed);
  table->Register(HloOpcode::kOutfeed, Outfeed);
  table->Register(HloOpcode::kCustomCall, CustomCall);
}

}  // namespace interpreter
}  // namespace xla
