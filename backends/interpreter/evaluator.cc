#include "backends/interpreter/evaluator.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace {

// Called computations nest (while bodies calling reducers ...); real programs stay
// shallow, and the bound turns a malicious recursion into an error, not a stack overflow.
constexpr int kMaxCallDepth = 200;

// Gives `value` the layouts of `shape` where `shape` has them.
absl::StatusOr<Literal> ConformToShape(Literal value, const Shape& shape) {
  if (shape.IsTuple()) {
    if (!value.IsTuple() || value.tuple_element_count() != shape.tuple_shapes_size()) return value;
    std::vector<Literal> elements = value.DecomposeTuple();
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      ASSIGN_OR_RETURN(elements[i], ConformToShape(std::move(elements[i]), shape.tuple_shapes(i)));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (!shape.IsArray() || !shape.has_layout() || !value.shape().IsArray()) return value;
  if (value.shape().has_layout() &&
      value.shape().layout().minor_to_major() == shape.layout().minor_to_major()) {
    return value;
  }
  return value.Relayout(shape.layout());
}

}  // namespace

std::string Describe(const HloInstruction& instruction) {
  return absl::StrCat(std::string(HloOpcodeString(instruction.opcode())), " '", instruction.name(), "'");
}

const HandlerTable& GlobalHandlerTable() {
  static const HandlerTable* table = [] {
    auto* t = new HandlerTable();
    RegisterControlHandlers(t);
    RegisterElementwiseHandlers(t);
    RegisterShapeHandlers(t);
    RegisterReductionHandlers(t);
    RegisterLinalgHandlers(t);
    RegisterRngHandlers(t);
    RegisterDeviceHandlers(t);
    return t;
  }();
  return *table;
}

absl::Status Evaluator::CheckCancelled() const {
  if (should_cancel_ && should_cancel_()) return absl::CancelledError("execution cancelled");
  return absl::OkStatus();
}

absl::StatusOr<Literal> Evaluator::Evaluate(const HloComputation& computation,
                                            absl::Span<const Literal* const> arguments) {
  if (depth_ >= kMaxCallDepth) {
    return absl::ResourceExhaustedError(
        absl::StrCat("computations nest deeper than ", kMaxCallDepth, " calls"));
  }
  if (static_cast<int64_t>(arguments.size()) != computation.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat("computation '", computation.name(), "' takes ",
                                                   computation.num_parameters(), " arguments, got ",
                                                   arguments.size()));
  }
  ++depth_;
  struct DepthGuard {
    int* depth;
    ~DepthGuard() { --*depth; }
  } guard{&depth_};

  const HandlerTable& table = GlobalHandlerTable();
  EvalContext ctx{this, device_};
  std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  // Values are dropped after their last use so that peak memory follows the live set.
  absl::flat_hash_map<const HloInstruction*, int64_t> remaining_uses;
  for (const HloInstruction* instruction : order) {
    for (const HloInstruction* operand : instruction->operands()) ++remaining_uses[operand];
  }
  absl::flat_hash_map<const HloInstruction*, Literal> values;
  values.reserve(order.size());
  const HloInstruction* root = computation.root_instruction();
  for (const HloInstruction* instruction : order) {
    if (should_cancel_ && should_cancel_()) {
      return absl::CancelledError(absl::StrCat("execution cancelled before ", Describe(*instruction)));
    }
    Literal value;
    if (instruction->opcode() == HloOpcode::kParameter) {
      const int64_t number = instruction->parameter_number();
      if (!ShapeUtil::Compatible(arguments[number]->shape(), instruction->shape())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "argument ", number, " of '", computation.name(), "' has shape ",
            arguments[number]->shape().ToString(), " but parameter '", instruction->name(),
            "' is ", instruction->shape().ToString()));
      }
      value = arguments[number]->Clone();
    } else {
      const OpHandler* handler = table.Find(instruction->opcode());
      if (handler == nullptr) {
        return absl::UnimplementedError(
            absl::StrCat("the interpreter does not implement ", Describe(*instruction)));
      }
      std::vector<const Literal*> operands;
      operands.reserve(instruction->operand_count());
      for (const HloInstruction* operand : instruction->operands()) {
        auto it = values.find(operand);
        if (it == values.end()) {
          return absl::InternalError(absl::StrCat("operand '", operand->name(), "' of ",
                                                  Describe(*instruction), " was not evaluated"));
        }
        operands.push_back(&it->second);
      }
      absl::StatusOr<Literal> result = (*handler)(ctx, *instruction, operands);
      if (!result.ok()) {
        return absl::Status(result.status().code(),
                            absl::StrCat(Describe(*instruction), ": ", result.status().message()));
      }
      if (!ShapeUtil::Compatible(result->shape(), instruction->shape()) &&
          !instruction->shape().is_dynamic()) {
        return absl::InternalError(absl::StrCat(Describe(*instruction), " produced ",
                                                result->shape().ToString(), ", expected ",
                                                instruction->shape().ToString()));
      }
      ASSIGN_OR_RETURN(value, ConformToShape(*std::move(result), instruction->shape()));
      for (const HloInstruction* operand : instruction->operands()) {
        if (--remaining_uses[operand] == 0 && operand != root) values.erase(operand);
      }
    }
    values[instruction] = std::move(value);
  }
  auto it = values.find(root);
  if (it == values.end()) return absl::InternalError("root was not evaluated");
  return std::move(it->second);
}

}  // namespace interpreter
}  // namespace xla
