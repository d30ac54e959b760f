// Structure and control flow: constant, tuple, get-tuple-element, call, fusion, while,
// conditional, opt-barrier, after-all, add-dependency, domain, copy, async and copy
// start/update/done (run synchronously on one device).
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/interpreter/evaluator.h"
#include "hlo/hlo_computation.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace {

using Operands = absl::Span<const Literal* const>;

absl::StatusOr<Literal> Identity(EvalContext&, const HloInstruction&, Operands operands) {
  return operands[0]->Clone();
}

absl::StatusOr<Literal> Constant(EvalContext&, const HloInstruction& instruction, Operands) {
  if (!instruction.has_literal()) return absl::InvalidArgumentError("constant has no literal");
  return instruction.literal().Clone();
}

absl::StatusOr<Literal> Tuple(EvalContext&, const HloInstruction&, Operands operands) {
  std::vector<Literal> elements;
  elements.reserve(operands.size());
  for (const Literal* operand : operands) elements.push_back(operand->Clone());
  return Literal::MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> GetTupleElement(EvalContext&, const HloInstruction& instruction,
                                        Operands operands) {
  const int64_t index = instruction.tuple_index();
  if (!operands[0]->IsTuple() || index < 0 || index >= operands[0]->tuple_element_count()) {
    return absl::InvalidArgumentError(absl::StrCat("tuple index ", index, " out of range"));
  }
  return operands[0]->tuple_element(index).Clone();
}

absl::StatusOr<Literal> Token(EvalContext&, const HloInstruction&, Operands) {
  return Literal::Create(Shape::MakeToken());
}

// call, fusion: evaluate the called computation on the operands.
absl::StatusOr<Literal> Call(EvalContext& ctx, const HloInstruction& instruction, Operands operands) {
  HloComputation* callee = instruction.to_apply();
  if (callee == nullptr) return absl::InvalidArgumentError("no called computation");
  return ctx.evaluator->Evaluate(*callee, operands);
}

absl::StatusOr<Literal> While(EvalContext& ctx, const HloInstruction& instruction, Operands operands) {
  const HloComputation* condition = instruction.while_condition();
  const HloComputation* body = instruction.while_body();
  if (condition == nullptr || body == nullptr) {
    return absl::InvalidArgumentError("while needs a condition and a body");
  }
  Literal state = operands[0]->Clone();
  while (true) {
    const Literal* args[] = {&state};
    ASSIGN_OR_RETURN(Literal keep_going, ctx.evaluator->Evaluate(*condition, args));
    if (keep_going.GetAsInt64(0) == 0) break;
    ASSIGN_OR_RETURN(state, ctx.evaluator->Evaluate(*body, args));
  }
  return state;
}

// conditional(pred, true_operand, false_operand) or conditional(index, operands...): an
// out-of-range index runs the last branch, as XLA defines.
absl::StatusOr<Literal> Conditional(EvalContext& ctx, const HloInstruction& instruction,
                                    Operands operands) {
  const auto& branches = instruction.called_computations();
  if (branches.empty() || operands.size() != branches.size() + 1) {
    return absl::InvalidArgumentError("conditional needs one operand per branch");
  }
  int64_t branch;
  if (operands[0]->shape().element_type() == PRED) {
    branch = operands[0]->GetAsInt64(0) != 0 ? 0 : 1;  // {true, false}
  } else {
    branch = operands[0]->GetAsInt64(0);
    if (branch < 0 || branch >= static_cast<int64_t>(branches.size())) {
      branch = static_cast<int64_t>(branches.size()) - 1;
    }
  }
  const Literal* args[] = {operands[branch + 1]};
  return ctx.evaluator->Evaluate(*branches[branch], args);
}

// async-start: ((operands...), result, context) with the wrapped op run right away.
absl::StatusOr<Literal> AsyncStart(EvalContext& ctx, const HloInstruction& instruction,
                                   Operands operands) {
  HloComputation* wrapped = instruction.to_apply();
  if (wrapped == nullptr) return absl::InvalidArgumentError("async-start has no wrapped computation");
  ASSIGN_OR_RETURN(Literal result, ctx.evaluator->Evaluate(*wrapped, operands));
  std::vector<Literal> elements;
  std::vector<Literal> inputs;
  for (const Literal* operand : operands) inputs.push_back(operand->Clone());
  elements.push_back(Literal::MakeTuple(std::move(inputs)));
  elements.push_back(std::move(result));
  const Shape& shape = instruction.shape();
  for (int64_t i = 2; i < shape.tuple_shapes_size(); ++i) {
    ASSIGN_OR_RETURN(Literal context, Literal::Create(shape.tuple_shapes(i)));
    elements.push_back(std::move(context));
  }
  return Literal::MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> AsyncDone(EvalContext&, const HloInstruction&, Operands operands) {
  if (!operands[0]->IsTuple() || operands[0]->tuple_element_count() < 2) {
    return absl::InvalidArgumentError("async-done operand is not an async-start value");
  }
  return operands[0]->tuple_element(1).Clone();
}

// copy-start: (destination, source, u32[] context); copy-done takes the destination.
absl::StatusOr<Literal> CopyStart(EvalContext&, const HloInstruction& instruction, Operands operands) {
  std::vector<Literal> elements;
  elements.push_back(operands[0]->Clone());
  elements.push_back(operands[0]->Clone());
  for (int64_t i = 2; i < instruction.shape().tuple_shapes_size(); ++i) {
    ASSIGN_OR_RETURN(Literal context, Literal::Create(instruction.shape().tuple_shapes(i)));
    elements.push_back(std::move(context));
  }
  return Literal::MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> CopyDone(EvalContext&, const HloInstruction&, Operands operands) {
  if (!operands[0]->IsTuple() || operands[0]->tuple_element_count() < 1) {
    return absl::InvalidArgumentError("copy-done operand is not a copy-start value");
  }
  return operands[0]->tuple_element(0).Clone();
}

}  // namespace

void RegisterControlHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kConstant, Constant);
  table->Register(HloOpcode::kTuple, Tuple);
  table->Register(HloOpcode::kGetTupleElement, GetTupleElement);
  table->Register(HloOpcode::kCall, Call);
  table->Register(HloOpcode::kFusion, Call);
  table->Register(HloOpcode::kWhile, While);
  table->Register(HloOpcode::kConditional, Conditional);
  table->Register(HloOpcode::kOptBarrier, Identity);
  table->Register(HloOpcode::kAddDependency, Identity);
  table->Register(HloOpcode::kDomain, Identity);
  table->Register(HloOpcode::kCopy, Identity);
  table->Register(HloOpcode::kAfterAll, Token);
  table->Register(HloOpcode::kAsyncStart, AsyncStart);
  table->Register(HloOpcode::kAsyncUpdate, Identity);
  table->Register(HloOpcode::kAsyncDone, AsyncDone);
  table->Register(HloOpcode::kCopyStart, CopyStart);
  table->Register(HloOpcode::kCopyDone, CopyDone);
}

}  // namespace interpreter
}  // namespace xla
