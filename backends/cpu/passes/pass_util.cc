#include "backends/cpu/passes/pass_util.h"

#include <cmath>
#include <string>
#include <vector>

#include "hlo/shape_inference.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {

bool HasSideEffectNoRecurse(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kRng:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCopyDone:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return true;
    case HloOpcode::kCustomCall:
      return instruction.attrs().custom_call_has_side_effect();
    default:
      return false;
  }
}

bool HasSideEffect(const HloInstruction& instruction) {
  if (HasSideEffectNoRecurse(instruction)) return true;
  // Called computations: iterative walk so deep nesting cannot overflow the stack.
  std::vector<const HloComputation*> stack(instruction.called_computations().begin(),
                                           instruction.called_computations().end());
  std::vector<const HloComputation*> seen;
  while (!stack.empty()) {
    const HloComputation* computation = stack.back();
    stack.pop_back();
    if (computation == nullptr) continue;
    bool visited = false;
    for (const HloComputation* s : seen) visited |= s == computation;
    if (visited) continue;
    seen.push_back(computation);
    for (const auto& inner : computation->instructions()) {
      if (HasSideEffectNoRecurse(*inner)) return true;
      for (const HloComputation* callee : inner->called_computations()) stack.push_back(callee);
    }
  }
  return false;
}

bool IsElementwise(const HloInstruction& instruction) {
  return HloOpcodeCategoryOf(instruction.opcode()) != HloOpcodeCategory::kOther;
}

Shape WithDefaultLayout(Shape shape) {
  ShapeUtil::ForEachMutableSubshape(&shape, [](Shape* sub, const ShapeIndex&) {
    if (sub->IsArray()) sub->set_layout(ShapeUtil::MakeDescendingLayout(sub->rank()));
  });
  return shape;
}

absl::StatusOr<HloInstruction*> AddInferred(HloComputation* computation, HloOpcode opcode,
                                            absl::Span<HloInstruction* const> operands,
                                            const HloInstructionProto& attrs) {
  std::vector<const Shape*> shapes;
  shapes.reserve(operands.size());
  for (const HloInstruction* operand : operands) shapes.push_back(&operand->shape());
  ASSIGN_OR_RETURN(Shape shape, InferHloShape(opcode, shapes, attrs, {}));
  return AddWithShape(computation, opcode, WithDefaultLayout(std::move(shape)), operands, attrs);
}

HloInstruction* AddWithShape(HloComputation* computation, HloOpcode opcode, const Shape& shape,
                             absl::Span<HloInstruction* const> operands, const HloInstructionProto& attrs) {
  std::unique_ptr<HloInstruction> instruction = HloInstruction::Create(opcode, shape, operands);
  *instruction->mutable_attrs() = attrs;
  return computation->AddInstructionWithUniqueName(std::move(instruction), std::string(HloOpcodeString(opcode)));
}

HloInstruction* AddConstant(HloComputation* computation, Literal literal) {
  Shape shape = WithDefaultLayout(literal.shape());
  std::unique_ptr<HloInstruction> instruction = HloInstruction::Create(HloOpcode::kConstant, shape);
  instruction->set_literal(std::move(literal));
  return computation->AddInstructionWithUniqueName(std::move(instruction), "constant");
}

absl::StatusOr<Literal> ScalarLiteral(PrimitiveType type, double value) {
  ASSIGN_OR_RETURN(Literal literal, Literal::Create(ShapeUtil::MakeShape(type, {})));
  literal.SetFromDouble(0, value);
  return literal;
}

bool IsConstantWithValue(const HloInstruction& instruction, double value) {
  if (instruction.opcode() != HloOpcode::kConstant || !instruction.has_literal()) return false;
  const Literal& literal = instruction.literal();
  if (!literal.shape().IsArray()) return false;
  const PrimitiveType type = literal.shape().element_type();
  if (type == TOKEN || type == OPAQUE_TYPE) return false;
  const int64_t count = literal.element_count();
  if (count == 0) return false;
  for (int64_t i = 0; i < count; ++i) {
    // Complex values must have a zero imaginary part; -0.0 == 0.0 is not good enough for
    // callers that care (they check the sign separately where it matters).
    std::complex<double> v = literal.GetAsComplex(i);
    if (v.real() != value || v.imag() != 0) return false;
  }
  return true;
}

bool IsEffectiveConstantWithValue(const HloInstruction& instruction, double value) {
  if (instruction.opcode() == HloOpcode::kBroadcast) {
    return IsConstantWithValue(*instruction.operand(0), value);
  }
  return IsConstantWithValue(instruction, value);
}

}  // namespace cpu
}  // namespace xla
