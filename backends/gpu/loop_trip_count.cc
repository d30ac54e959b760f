#include "backends/gpu/loop_trip_count.h"

#include <limits>
#include <string>

#include "hlo/comparison_util.h"
#include "hlo/hlo_computation.h"
#include "hlo/literal.h"
#include "hlo/primitive_util.h"

namespace xla {
namespace gpu {
namespace {

// The value of a scalar integer literal that fits in int64.
std::optional<int64_t> ScalarValue(const Literal& literal) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray() || shape.rank() != 0 || !primitive_util::IsIntegralType(shape.element_type())) {
    return std::nullopt;
  }
  const int64_t v = literal.GetAsInt64(0);
  if (!primitive_util::IsSignedIntegralType(shape.element_type()) && v < 0) return std::nullopt;  // u64 past int64
  return v;
}

// The value of a scalar integer constant instruction that fits in int64.
std::optional<int64_t> ScalarConstant(const HloInstruction* hlo) {
  if (hlo->opcode() != HloOpcode::kConstant || !hlo->has_literal()) return std::nullopt;
  return ScalarValue(hlo->literal());
}

// The values an integer type holds, capped to int64.
struct Range {
  int64_t lo, hi;
};
Range IntegerRange(PrimitiveType type) {
  const int bits = primitive_util::BitWidth(type);
  if (primitive_util::IsSignedIntegralType(type)) {
    if (bits >= 64) return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    return {-(int64_t{1} << (bits - 1)), (int64_t{1} << (bits - 1)) - 1};
  }
  if (bits >= 64) return {0, std::numeric_limits<int64_t>::max()};
  return {0, (int64_t{1} << bits) - 1};
}

// Whether `hlo` is element `k` of parameter 0 of its computation.
bool IsCounter(const HloInstruction* hlo, const HloComputation& computation, int64_t k) {
  return hlo->opcode() == HloOpcode::kGetTupleElement && hlo->tuple_index() == k &&
         hlo->operand(0) == computation.parameter_instruction(0);
}

// The step when `value` (in `body`) is counter `k` plus a constant: add(counter, constant)
// in either order, or a fusion of that add whose operands are the counter and maybe the
// constant.
std::optional<int64_t> CounterStep(const HloInstruction* value, const HloComputation& body, int64_t k) {
  // An add's two operands, as seen from the body: fused parameters stand for the fusion's
  // operands.
  const HloInstruction* add = value;
  const HloInstruction* fusion = nullptr;
  if (value->opcode() == HloOpcode::kFusion && value->called_computations().size() == 1) {
    fusion = value;
    add = value->called_computations()[0]->root_instruction();
  }
  if (add->opcode() != HloOpcode::kAdd || add->operand_count() != 2) return std::nullopt;
  auto outside = [fusion](const HloInstruction* operand) {
    if (fusion != nullptr && operand->opcode() == HloOpcode::kParameter &&
        operand->parameter_number() < fusion->operand_count()) {
      return static_cast<const HloInstruction*>(fusion->operand(operand->parameter_number()));
    }
    return operand;
  };
  for (int side = 0; side < 2; ++side) {
    const HloInstruction* counter = outside(add->operand(side));
    const HloInstruction* step = outside(add->operand(1 - side));
    if (!IsCounter(counter, body, k)) continue;
    return ScalarConstant(step);
  }
  return std::nullopt;
}

// The counter's first value: element k of the tuple instruction or tuple constant the loop
// starts from.
std::optional<int64_t> InitialValue(const HloInstruction* init, int64_t k) {
  if (init->opcode() == HloOpcode::kTuple) {
    return k < init->operand_count() ? ScalarConstant(init->operand(k)) : std::nullopt;
  }
  if (init->opcode() != HloOpcode::kConstant || !init->has_literal() || !init->shape().IsTuple() ||
      k >= init->literal().tuple_element_count()) {
    return std::nullopt;
  }
  return ScalarValue(init->literal().tuple_element(k));
}

}  // namespace

std::optional<CountedLoop> FindCountedLoop(const HloInstruction& loop) {
  if (loop.opcode() != HloOpcode::kWhile || loop.operand_count() != 1) return std::nullopt;
  const HloComputation* condition = loop.while_condition();
  const HloComputation* body = loop.while_body();
  if (condition == nullptr || body == nullptr || condition->num_parameters() != 1 || body->num_parameters() != 1 ||
      !loop.shape().IsTuple()) {
    return std::nullopt;
  }
  // The condition: one comparison of the counter with a constant or a state element, and
  // nothing else.
  const HloInstruction* compare = condition->root_instruction();
  if (compare->opcode() != HloOpcode::kCompare || compare->operand_count() != 2) return std::nullopt;
  for (const auto& hlo : condition->instructions()) {
    const HloOpcode op = hlo->opcode();
    if (op != HloOpcode::kParameter && op != HloOpcode::kGetTupleElement && op != HloOpcode::kConstant &&
        op != HloOpcode::kCompare) {
      return std::nullopt;
    }
  }
  std::optional<ComparisonDirection> direction = StringToComparisonDirection(compare->attrs().comparison_direction());
  if (!direction.has_value()) return std::nullopt;
  const HloComputation* cond = condition;
  // Element k of the condition's state, or -1.
  auto element = [cond](const HloInstruction* hlo) -> int64_t {
    return hlo->opcode() == HloOpcode::kGetTupleElement && hlo->operand(0) == cond->parameter_instruction(0)
               ? hlo->tuple_index()
               : -1;
  };
  // The result tuple of the body, whose element k is the counter's next value.
  const HloInstruction* result = body->root_instruction();
  if (result->opcode() != HloOpcode::kTuple) return std::nullopt;
  // The counter is the side the body steps; the other is the bound.
  for (int side = 0; side < 2; ++side) {
    const HloInstruction* lhs = compare->operand(side);
    const HloInstruction* rhs = compare->operand(1 - side);
    const int64_t k = element(lhs);
    if (k < 0 || k >= result->operand_count()) continue;
    std::optional<int64_t> step = CounterStep(result->operand(k), *body, k);
    if (!step.has_value() || *step <= 0) continue;
    CountedLoop counted;
    counted.counter = k;
    counted.step = *step;
    counted.direction = *direction;
    if (side == 1) {  // bound first: turn it around
      switch (*direction) {
        case ComparisonDirection::kGt: counted.direction = ComparisonDirection::kLt; break;
        case ComparisonDirection::kGe: counted.direction = ComparisonDirection::kLe; break;
        case ComparisonDirection::kLt: counted.direction = ComparisonDirection::kGt; break;
        case ComparisonDirection::kLe: counted.direction = ComparisonDirection::kGe; break;
        default: break;
      }
    }
    const Shape& counter_shape = lhs->shape();
    if (!counter_shape.IsArray() || counter_shape.rank() != 0 ||
        !primitive_util::IsIntegralType(counter_shape.element_type())) {
      return std::nullopt;
    }
    counted.type = counter_shape.element_type();
    const std::string& comparison_type = compare->attrs().comparison_type();
    if (!comparison_type.empty()) {
      std::optional<ComparisonType> t = StringToComparisonType(comparison_type);
      if (!t.has_value() || *t != DefaultComparisonType(counted.type)) return std::nullopt;
    }
    counted.first = InitialValue(loop.operand(0), k);
    if (!counted.first.has_value()) counted.first_element = k;
    counted.limit = ScalarConstant(rhs);
    if (!counted.limit.has_value()) {
      // A state element the body passes through unchanged.
      const int64_t j = element(rhs);
      if (j < 0 || j == k || j >= result->operand_count() || rhs->shape() != counter_shape) return std::nullopt;
      const HloInstruction* passed = result->operand(j);
      if (passed->opcode() != HloOpcode::kGetTupleElement || passed->tuple_index() != j ||
          passed->operand(0) != body->parameter_instruction(0)) {
        return std::nullopt;
      }
      counted.limit_element = j;
    }
    if (counted.direction != ComparisonDirection::kLt && counted.direction != ComparisonDirection::kLe &&
        (counted.direction != ComparisonDirection::kNe || counted.step != 1)) {
      return std::nullopt;
    }
    return counted;
  }
  return std::nullopt;
}

std::optional<int64_t> TripCount(const CountedLoop& loop, int64_t first, int64_t limit) {
  const Range range = IntegerRange(loop.type);
  // Wide enough that no difference or product below overflows.
  const __int128 a = first, c = limit, s = loop.step;
  if (a < range.lo || a > range.hi || c < range.lo || c > range.hi || s > range.hi) return std::nullopt;
  __int128 trips = 0;
  switch (loop.direction) {
    case ComparisonDirection::kLt:
      trips = a >= c ? 0 : (c - a - 1) / s + 1;
      break;
    case ComparisonDirection::kLe:
      trips = a > c ? 0 : (c - a) / s + 1;
      break;
    case ComparisonDirection::kNe:
      if (s != 1 || a > c) return std::nullopt;  // otherwise it may step past c and wrap
      trips = c - a;
      break;
    default:
      return std::nullopt;
  }
  // The counter's value after the last iteration must not wrap.
  if (a + trips * s > range.hi) return std::nullopt;
  if (trips > std::numeric_limits<int64_t>::max()) return std::nullopt;
  return static_cast<int64_t>(trips);
}

std::optional<int64_t> KnownTripCount(const HloInstruction& loop) {
  const std::optional<CountedLoop> counted = FindCountedLoop(loop);
  if (!counted.has_value() || !counted->first.has_value() || !counted->limit.has_value()) return std::nullopt;
  return TripCount(*counted, *counted->first, *counted->limit);
}

}  // namespace gpu
}  // namespace xla
