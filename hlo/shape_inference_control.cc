// Shape inference for ops that call computations: call, fusion, while, conditional,
// async-start/update/done and custom-call.

#include "hlo/shape_inference_internal.h"
#include "hlo/status_macros.h"

namespace xla {
namespace shape_inference_internal {
namespace {

// Operands must match the computation's parameters one to one.
absl::Status CheckArguments(const OpContext& ctx, const ProgramShape& fn,
                            absl::Span<const Shape* const> args, absl::string_view what) {
  if (fn.parameters().size() != args.size()) {
    return Error(ctx, what, " takes ", fn.parameters().size(), " parameters but gets ",
                 args.size(), " operands; signature ", fn.ToString());
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!ShapesCompatible(*args[i], fn.parameters()[i])) {
      return Error(ctx, what, " parameter ", i, " has shape ", ShapeStr(fn.parameters()[i]),
                   " but the operand has shape ", ShapeStr(*args[i]));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferCall(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectCalledCount(ctx, 1));
  RETURN_IF_ERROR(CheckArguments(ctx, *ctx.called[0], ctx.operands, "the called computation"));
  return StripLayout(ctx.called[0]->result());
}

absl::StatusOr<Shape> InferWhile(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  RETURN_IF_ERROR(ExpectCalledCount(ctx, 2));
  // XLA's order: {body, condition}.
  const ProgramShape& body = *ctx.called[0];
  const ProgramShape& cond = *ctx.called[1];
  const Shape& init = ctx.operand(0);
  if (cond.parameters().size() != 1) {
    return Error(ctx, "the condition must take 1 parameter, takes ", cond.parameters().size());
  }
  if (body.parameters().size() != 1) {
    return Error(ctx, "the body must take 1 parameter, takes ", body.parameters().size());
  }
  if (!ShapesCompatible(cond.result(), MakeArray(PRED, {}))) {
    return Error(ctx, "the condition must return pred[], returns ", ShapeStr(cond.result()));
  }
  if (!ShapesCompatible(body.result(), cond.parameters()[0]) ||
      !ShapesCompatible(body.result(), body.parameters()[0]) ||
      !ShapesCompatible(body.result(), init)) {
    return Error(ctx, "the condition parameter, body parameter, body result and operand must "
                 "have the same shape; condition ", cond.ToString(), ", body ", body.ToString(),
                 ", operand ", ShapeStr(init));
  }
  return StripLayout(init);
}

absl::StatusOr<Shape> InferConditional(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectMinOperandCount(ctx, 1));
  const Shape& index = ctx.operand(0);
  const bool is_pred = ShapesCompatible(index, MakeArray(PRED, {}));
  if (!is_pred && !ShapesCompatible(index, MakeArray(S32, {}))) {
    return Error(ctx, "the branch index must be pred[] or s32[], got ", ShapeStr(index));
  }
  const int64_t branches = static_cast<int64_t>(ctx.called.size());
  if (branches < 1) return Error(ctx, "needs at least one branch computation");
  if (is_pred && branches != 2) {
    return Error(ctx, "a pred branch index needs exactly 2 branches, got ", branches);
  }
  if (ctx.operand_count() != branches + 1) {
    return Error(ctx, "expects one operand per branch (", branches, ") after the index, got ",
                 ctx.operand_count() - 1);
  }
  Shape result = StripLayout(ctx.called[0]->result());
  for (int64_t j = 0; j < branches; ++j) {
    const ProgramShape& branch = *ctx.called[j];
    if (branch.parameters().size() != 1) {
      return Error(ctx, "branch ", j, " must take 1 parameter, takes ",
                   branch.parameters().size());
    }
    if (!ShapesCompatible(branch.parameters()[0], ctx.operand(j + 1))) {
      return Error(ctx, "branch ", j, " takes ", ShapeStr(branch.parameters()[0]),
                   " but its operand is ", ShapeStr(ctx.operand(j + 1)));
    }
    if (!ShapesCompatible(branch.result(), result)) {
      return Error(ctx, "branch ", j, " returns ", ShapeStr(branch.result()), " but branch 0 returns ",
                   ShapeStr(result));
    }
  }
  return result;
}

absl::StatusOr<Shape> InferAsyncStart(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectCalledCount(ctx, 1));
  const ProgramShape& fn = *ctx.called[0];
  RETURN_IF_ERROR(CheckArguments(ctx, fn, ctx.operands, "the async computation"));
  std::vector<Shape> operands;
  for (const Shape* s : ctx.operands) operands.push_back(StripLayout(*s));
  Shape operand_tuple = Shape::MakeTuple(operands);
  if (ctx.declared != nullptr) {
    const Shape& d = *ctx.declared;
    // ((operands...), result, context...): the context part is backend-defined.
    if (!d.IsTuple() || d.tuple_shapes_size() < 2) {
      return Error(ctx, "result must be ((operands...), wrapped result, context...), got ",
                   ShapeStr(d));
    }
    if (!ShapesCompatible(d.tuple_shapes(0), operand_tuple)) {
      return Error(ctx, "result element 0 ", ShapeStr(d.tuple_shapes(0)),
                   " must be the operand tuple ", ShapeStr(operand_tuple));
    }
    if (!ShapesCompatible(d.tuple_shapes(1), fn.result())) {
      return Error(ctx, "result element 1 ", ShapeStr(d.tuple_shapes(1)),
                   " must be the wrapped computation's result ", ShapeStr(fn.result()));
    }
    return d;
  }
  return Shape::MakeTuple({operand_tuple, StripLayout(fn.result()), MakeArray(S32, {})});
}

absl::StatusOr<Shape> InferAsyncUpdateOrDone(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  const Shape& start = ctx.operand(0);
  if (!start.IsTuple() || start.tuple_shapes_size() < 2) {
    return Error(ctx, "the operand must be an async tuple ((operands...), result, context...), "
                 "got ", ShapeStr(start));
  }
  if (ctx.opcode == HloOpcode::kAsyncUpdate) return StripLayout(start);
  return StripLayout(start.tuple_shapes(1));
}

}  // namespace

absl::StatusOr<Shape> InferControl(const OpContext& ctx) {
  switch (ctx.opcode) {
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
      return InferCall(ctx);
    case HloOpcode::kWhile:
      return InferWhile(ctx);
    case HloOpcode::kConditional:
      return InferConditional(ctx);
    case HloOpcode::kAsyncStart:
      return InferAsyncStart(ctx);
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return InferAsyncUpdateOrDone(ctx);
    case HloOpcode::kCustomCall: {
      // A custom call's result is whatever its target produces.
      ASSIGN_OR_RETURN(const Shape* d, RequireDeclared(ctx));
      return *d;
    }
    default:
      return Error(ctx, "not a control op");
  }
}

}  // namespace shape_inference_internal
}  // namespace xla
