// Entry points of shape inference: dispatch by opcode to the op-family files, the few
// ops that fit no family (parameter, constant, rng, copy-start/done, ...), and
// CheckHloShape.

#include "hlo/shape_inference.h"

#include "hlo/hlo_computation.h"
#include "hlo/literal.h"
#include "hlo/shape_inference_checks.h"
#include "hlo/shape_inference_internal.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace shape_inference_internal {
namespace {

absl::StatusOr<Shape> InferRng(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 2));
  const Shape& a = ctx.operand(0);
  const Shape& b = ctx.operand(1);
  RETURN_IF_ERROR(ExpectScalar(ctx, a, "operand 0"));
  RETURN_IF_ERROR(ExpectScalar(ctx, b, "operand 1"));
  if (a.element_type() != b.element_type()) {
    return Error(ctx, "operands must have the same type, got ", ShapeStr(a), " and ", ShapeStr(b));
  }
  const PrimitiveType t = a.element_type();
  switch (ctx.attrs.distribution()) {
    case RNG_UNIFORM:
      if (t == PRED || IsComplex(t)) {
        return Error(ctx, "uniform distribution needs integral or floating-point operands, got ",
                     TypeStr(t));
      }
      break;
    case RNG_NORMAL:
      if (!IsFloating(t)) {
        return Error(ctx, "normal distribution needs floating-point operands, got ", TypeStr(t));
      }
      break;
    default:
      return Error(ctx, "invalid distribution ", static_cast<int>(ctx.attrs.distribution()));
  }
  ASSIGN_OR_RETURN(const Shape* d, RequireDeclared(ctx));
  if (!d->IsArray() || d->element_type() != t) {
    return Error(ctx, "the result ", ShapeStr(*d), " must be an array of the operand type ",
                 TypeStr(t));
  }
  return *d;
}

absl::StatusOr<Shape> InferRngBitGenerator(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  const Shape& state = ctx.operand(0);
  RETURN_IF_ERROR(ExpectArray(ctx, state, "the state"));
  if (!IsIntegral(state.element_type())) {
    return Error(ctx, "the state must be integral, got ", ShapeStr(state));
  }
  ASSIGN_OR_RETURN(const Shape* d, RequireDeclared(ctx));
  // (new_state, bits); importers also print the bits alone.
  const Shape* bits = d;
  if (d->IsTuple()) {
    if (d->tuple_shapes_size() != 2 || !ShapesCompatible(d->tuple_shapes(0), state)) {
      return Error(ctx, "the result must be (", ShapeStr(state), ", bits), got ", ShapeStr(*d));
    }
    bits = &d->tuple_shapes(1);
  }
  if (!bits->IsArray() || !IsIntegral(bits->element_type())) {
    return Error(ctx, "the generated bits must be an integral array, got ", ShapeStr(*bits));
  }
  return *d;
}

absl::StatusOr<Shape> InferMiscOp(const OpContext& ctx) {
  switch (ctx.opcode) {
    case HloOpcode::kParameter: {
      ASSIGN_OR_RETURN(const Shape* d, RequireDeclared(ctx));
      if (ctx.attrs.parameter_number() < 0) {
        return Error(ctx, "negative parameter number ", ctx.attrs.parameter_number());
      }
      return *d;
    }
    case HloOpcode::kConstant:
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 0));
      if (ctx.literal_shape == nullptr) {
        if (ctx.declared != nullptr) return Error(ctx, "has no literal");
        return ShapeMustBeGiven(ctx);
      }
      return StripLayout(*ctx.literal_shape);
    case HloOpcode::kCopyStart: {
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
      Shape operand = StripLayout(ctx.operand(0));
      return Shape::MakeTuple({operand, operand, MakeArray(U32, {})});
    }
    case HloOpcode::kCopyDone: {
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
      const Shape& start = ctx.operand(0);
      if (!start.IsTuple() || start.tuple_shapes_size() < 2) {
        return Error(ctx, "the operand must be a copy-start tuple, got ", ShapeStr(start));
      }
      return StripLayout(start.tuple_shapes(0));
    }
    case HloOpcode::kDomain:
    case HloOpcode::kOptBarrier:
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
      return StripLayout(ctx.operand(0));
    case HloOpcode::kPartitionId:
    case HloOpcode::kReplicaId:
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 0));
      return MakeArray(U32, {});
    case HloOpcode::kRngGetAndUpdateState:
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 0));
      return MakeArray(U64, {2});
    case HloOpcode::kRng:
      return InferRng(ctx);
    case HloOpcode::kRngBitGenerator:
      return InferRngBitGenerator(ctx);
    default:
      return Error(ctx, "has no shape inference rule");
  }
}

}  // namespace

absl::StatusOr<Shape> InferMisc(const OpContext& ctx) { return InferMiscOp(ctx); }

// Routes an opcode to its family.
absl::StatusOr<Shape> Dispatch(const OpContext& ctx) {
  const int arity = HloOpcodeArity(ctx.opcode);
  if (arity != kVariadic) RETURN_IF_ERROR(ExpectOperandCount(ctx, arity));
  for (const Shape* s : ctx.operands) {
    if (s == nullptr) return Error(ctx, "has a missing operand shape");
  }
  for (const ProgramShape* p : ctx.called) {
    if (p == nullptr) return Error(ctx, "has a missing called computation");
  }
  switch (ctx.opcode) {
    case HloOpcode::kStochasticConvert:
      return InferElementwise(ctx);
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kDynamicReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kConcatenate:
    case HloOpcode::kPad:
    case HloOpcode::kReverse:
    case HloOpcode::kIota:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
    case HloOpcode::kBitcast:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
      return InferDataMovement(ctx);
    case HloOpcode::kGather:
    case HloOpcode::kScatter:
      return InferGatherScatter(ctx);
    case HloOpcode::kConvolution:
    case HloOpcode::kDot:
    case HloOpcode::kRaggedDot:
    case HloOpcode::kScaledDot:
      return InferConvDot(ctx);
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kMap:
    case HloOpcode::kSort:
    case HloOpcode::kTopk:
      return InferReduceFamily(ctx);
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
      return InferCollective(ctx);
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCustomCall:
      return InferControl(ctx);
    case HloOpcode::kCholesky:
    case HloOpcode::kTriangularSolve:
    case HloOpcode::kFft:
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      return InferLinalg(ctx);
    default:
      break;
  }
  if (HloOpcodeCategoryOf(ctx.opcode) != HloOpcodeCategory::kOther) {
    return InferElementwise(ctx);
  }
  return InferMisc(ctx);
}

namespace {

// Operand shapes and called program shapes of an instruction, kept alive for an OpContext.
struct InstructionInputs {
  std::vector<const Shape*> operands;
  std::vector<ProgramShape> programs;
  std::vector<const ProgramShape*> program_ptrs;
};

absl::Status GatherInputs(const HloInstruction& instr, InstructionInputs* in) {
  for (const HloInstruction* op : instr.operands()) {
    if (op == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(std::string(HloOpcodeString(instr.opcode())), " '",
                                                     instr.name(), "' has a null operand"));
    }
    in->operands.push_back(&op->shape());
  }
  for (const HloComputation* c : instr.called_computations()) {
    if (c == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          std::string(HloOpcodeString(instr.opcode())), " '", instr.name(), "' has a null called computation"));
    }
    in->programs.push_back(c->ComputeProgramShape());
  }
  for (const ProgramShape& p : in->programs) in->program_ptrs.push_back(&p);
  return absl::OkStatus();
}

}  // namespace
}  // namespace shape_inference_internal

using shape_inference_internal::OpContext;

absl::StatusOr<Shape> InferHloShape(HloOpcode opcode,
                                    absl::Span<const Shape* const> operand_shapes,
                                    const HloInstructionProto& attrs,
                                    absl::Span<const ProgramShape* const> called_program_shapes,
                                    const Shape* declared) {
  OpContext ctx{opcode, operand_shapes, attrs, called_program_shapes};
  ctx.declared = declared;
  std::optional<Shape> literal_shape;
  if (opcode == HloOpcode::kConstant && attrs.has_literal()) {
    absl::StatusOr<Shape> s = Shape::FromProto(attrs.literal().shape());
    if (!s.ok()) {
      return shape_inference_internal::Error(ctx, "invalid literal shape: ", s.status().message());
    }
    literal_shape = *std::move(s);
    ctx.literal_shape = &*literal_shape;
  }
  return shape_inference_internal::Dispatch(ctx);
}

absl::StatusOr<Shape> InferHloShape(const HloInstruction& instruction) {
  shape_inference_internal::InstructionInputs in;
  RETURN_IF_ERROR(shape_inference_internal::GatherInputs(instruction, &in));
  OpContext ctx{instruction.opcode(), in.operands, instruction.attrs(), in.program_ptrs};
  ctx.name = instruction.name();
  if (instruction.opcode() == HloOpcode::kConstant && instruction.has_literal()) {
    ctx.literal_shape = &instruction.literal().shape();
  }
  return shape_inference_internal::Dispatch(ctx);
}

absl::Status CheckHloShape(const HloInstruction& instruction) {
  shape_inference_internal::InstructionInputs in;
  RETURN_IF_ERROR(shape_inference_internal::GatherInputs(instruction, &in));
  OpContext ctx{instruction.opcode(), in.operands, instruction.attrs(), in.program_ptrs};
  ctx.name = instruction.name();
  ctx.declared = &instruction.shape();
  if (instruction.opcode() == HloOpcode::kConstant && instruction.has_literal()) {
    ctx.literal_shape = &instruction.literal().shape();
  }
  absl::Status valid = ShapeUtil::ValidateShape(instruction.shape());
  if (!valid.ok()) {
    return shape_inference_internal::Error(ctx, "invalid result shape ",
                                           instruction.shape().ToString(true), ": ",
                                           valid.message());
  }
  ASSIGN_OR_RETURN(Shape expected, shape_inference_internal::Dispatch(ctx));
  if (!shape_inference_internal::ShapesCompatible(expected, instruction.shape())) {
    return shape_inference_internal::Error(
        ctx, "the result shape should be ", expected.ToString(false), " but is declared as ",
        instruction.shape().ToString(false));
  }
  return absl::OkStatus();
}

}  // namespace xla
