#include "backends/cpu/passes/constant_folding.h"

#include <algorithm>
#include <vector>

#include "backends/cpu/passes/pass_util.h"
#include "backends/interpreter/device_state.h"
#include "backends/interpreter/evaluator.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

bool MayFold(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kIota:
    case HloOpcode::kBroadcast:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCustomCall:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency:
    case HloOpcode::kOptBarrier:
    case HloOpcode::kDomain:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
      return false;
    default:
      break;
  }
  if (instruction.operand_count() == 0 || !instruction.shape().IsArray() || !instruction.shape().is_static() ||
      !instruction.control_predecessors().empty() || !instruction.control_successors().empty() ||
      HasSideEffect(instruction)) {
    return false;
  }
  int64_t largest_operand = 0;
  for (const HloInstruction* operand : instruction.operands()) {
    if (operand->opcode() != HloOpcode::kConstant || !operand->has_literal() || !operand->shape().IsArray()) {
      return false;
    }
    largest_operand = std::max(largest_operand, ShapeUtil::ElementsIn(operand->shape()));
  }
  const int64_t elements = ShapeUtil::ElementsIn(instruction.shape());
  return elements <= ConstantFolding::kMaxFoldedElements &&
         elements <= largest_operand + ConstantFolding::kMaxFoldedElements;
}

}  // namespace

absl::StatusOr<bool> ConstantFolding::Run(HloModule* module) {
  interpreter::DeviceState device(0);
  interpreter::Evaluator evaluator(&device);
  interpreter::EvalContext context{&evaluator, &device};
  const interpreter::HandlerTable& table = interpreter::GlobalHandlerTable();
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (!MayFold(*instruction)) continue;
      const interpreter::OpHandler* handler = table.Find(instruction->opcode());
      if (handler == nullptr) continue;
      std::vector<const Literal*> operands;
      for (const HloInstruction* operand : instruction->operands()) operands.push_back(&operand->literal());
      absl::StatusOr<Literal> value = (*handler)(context, *instruction, operands);
      if (!value.ok() || !ShapeUtil::Compatible(value->shape(), instruction->shape())) continue;
      Literal literal = *std::move(value);
      const Shape& shape = instruction->shape();
      if (shape.has_layout() && (!literal.shape().has_layout() || literal.shape().layout() != shape.layout())) {
        absl::StatusOr<Literal> relaid = literal.Relayout(shape.layout());
        if (!relaid.ok()) continue;
        literal = *std::move(relaid);
      }
      auto constant = HloInstruction::Create(HloOpcode::kConstant, shape);
      constant->set_literal(std::move(literal));
      HloInstruction* added = computation->AddInstructionWithUniqueName(std::move(constant), "constant");
      RETURN_IF_ERROR(computation->ReplaceInstruction(instruction, added));
      changed = true;
    }
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
