// Native evaluation of the commonest scalar computations of the reduction family, so
// that a 1M-element reduce or sort does not call the evaluator a million times:
//   root = op(parameter i, parameter j) with op one of
//     add, multiply, and, or, xor, maximum, minimum on S8..S64 / U8..U64 (wrapping),
//     and, or on PRED, add, multiply, maximum and minimum on F32 / F64 (checked against
//     the elementwise handlers on NaNs, signed zeros and infinities before use: which
//     NaN wins is not fixed by C++),
//     compare on integers (default signedness), PRED, F16 / BF16 / F32 / F64 (FLOAT or
//     TOTALORDER).
// Everything else (narrow floats, explicit signedness, complex...) goes through the
// elementwise handlers.
#include <cstring>
#include <optional>
#include <type_traits>

#include "backends/interpreter/ops_reduction_util.h"
#include "hlo/comparison_util.h"
#include "hlo/float_types.h"
#include "hlo/hlo_computation.h"
#include "hlo/primitive_util.h"

namespace xla {
namespace interpreter {
namespace {

template <typename T>
T Read(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <typename T>
void Write(uint8_t* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

enum class Op { kAdd, kMul, kAnd, kOr, kXor, kMax, kMin };

template <typename T, Op op>
void IntegerBinary(const uint8_t* a, const uint8_t* b, uint8_t* out) {
  const T x = Read<T>(a), y = Read<T>(b);
  // Wrapping arithmetic in uint64 (no signed overflow, no promotion surprises).
  const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  T r;
  switch (op) {
    case Op::kAdd: r = static_cast<T>(ux + uy); break;
    case Op::kMul: r = static_cast<T>(ux * uy); break;
    case Op::kAnd: r = static_cast<T>(ux & uy); break;
    case Op::kOr: r = static_cast<T>(ux | uy); break;
    case Op::kXor: r = static_cast<T>(ux ^ uy); break;
    case Op::kMax: r = x < y ? y : x; break;
    case Op::kMin: r = y < x ? y : x; break;
  }
  Write<T>(out, r);
}

// Which NaN a + b returns when both are NaN is up to the compiler (it may commute the
// operands), so both orders exist and the one matching the handlers is used.
template <typename T, Op op, bool swap>
void FloatBinary(const uint8_t* a, const uint8_t* b, uint8_t* out) {
  const T x = Read<T>(swap ? b : a), y = Read<T>(swap ? a : b);
  Write<T>(out, op == Op::kAdd ? x + y : x * y);
}

// maximum / minimum of floats: a NaN operand wins (lhs first), ties keep lhs. Callers
// check these against the elementwise handlers once (see ScalarCaller::Create).
template <typename T, Op op>
void FloatMinMax(const uint8_t* a, const uint8_t* b, uint8_t* out) {
  const T x = Read<T>(a), y = Read<T>(b);
  T r;
  if (x != x) {
    r = x;
  } else if (y != y) {
    r = y;
  } else if (op == Op::kMax) {
    r = x < y ? y : x;
  } else {
    r = y < x ? y : x;
  }
  Write<T>(out, r);
}

template <Op op>
void PredBinary(const uint8_t* a, const uint8_t* b, uint8_t* out) {
  const bool x = a[0] != 0, y = b[0] != 0;
  out[0] = static_cast<uint8_t>(op == Op::kAnd ? (x && y) : (x || y));
}

template <typename T>
bool Apply(ComparisonDirection direction, T x, T y) {
  switch (direction) {
    case ComparisonDirection::kEq: return x == y;
    case ComparisonDirection::kNe: return x != y;
    case ComparisonDirection::kLt: return x < y;
    case ComparisonDirection::kLe: return x <= y;
    case ComparisonDirection::kGt: return x > y;
    case ComparisonDirection::kGe: return x >= y;
  }
  return false;
}

// F16 / BF16 values, exact in double, for FLOAT comparisons.
double LoadHalf(const uint8_t* p) { return HalfToFloat(Read<uint16_t>(p)); }
double LoadBf16(const uint8_t* p) { return Bfloat16ToFloat(Read<uint16_t>(p)); }

template <typename T, ComparisonDirection direction>
void CompareNative(const uint8_t* a, const uint8_t* b, uint8_t* out) {
  out[0] = Apply(direction, Read<T>(a), Read<T>(b));
}

template <double (*load)(const uint8_t*), ComparisonDirection direction>
void CompareLoaded(const uint8_t* a, const uint8_t* b, uint8_t* out) {
  out[0] = Apply(direction, load(a), load(b));
}

// Total order over the sign-magnitude bits of a float of `Bits` bits stored in `U`.
template <typename U, int Bits>
int64_t TotalKey(const uint8_t* p) {
  const uint64_t raw = Read<U>(p);
  const uint64_t sign = uint64_t{1} << (Bits - 1);
  const int64_t magnitude = static_cast<int64_t>(raw & (sign - 1));
  return (raw & sign) ? -magnitude - 1 : magnitude;
}

template <typename U, int Bits, ComparisonDirection direction>
void CompareTotal(const uint8_t* a, const uint8_t* b, uint8_t* out) {
  out[0] = Apply(direction, TotalKey<U, Bits>(a), TotalKey<U, Bits>(b));
}

template <template <ComparisonDirection> class Pick>
NativeScalarFn ForDirection(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kEq: return Pick<ComparisonDirection::kEq>::fn;
    case ComparisonDirection::kNe: return Pick<ComparisonDirection::kNe>::fn;
    case ComparisonDirection::kLt: return Pick<ComparisonDirection::kLt>::fn;
    case ComparisonDirection::kLe: return Pick<ComparisonDirection::kLe>::fn;
    case ComparisonDirection::kGt: return Pick<ComparisonDirection::kGt>::fn;
    case ComparisonDirection::kGe: return Pick<ComparisonDirection::kGe>::fn;
  }
  return nullptr;
}

template <typename T>
struct NativeCmp {
  template <ComparisonDirection d>
  struct Pick {
    static constexpr NativeScalarFn fn = CompareNative<T, d>;
  };
};
template <double (*load)(const uint8_t*)>
struct LoadedCmp {
  template <ComparisonDirection d>
  struct Pick {
    static constexpr NativeScalarFn fn = CompareLoaded<load, d>;
  };
};
template <typename U, int Bits>
struct TotalCmp {
  template <ComparisonDirection d>
  struct Pick {
    static constexpr NativeScalarFn fn = CompareTotal<U, Bits, d>;
  };
};

NativeScalarFn CompareFn(PrimitiveType type, ComparisonDirection direction, ComparisonType comparison) {
  if (comparison == ComparisonType::kFloatTotalOrder) {
    switch (type) {
      case F16:
      case BF16: return ForDirection<TotalCmp<uint16_t, 16>::Pick>(direction);
      case F32: return ForDirection<TotalCmp<uint32_t, 32>::Pick>(direction);
      case F64: return ForDirection<TotalCmp<uint64_t, 64>::Pick>(direction);
      default: return nullptr;
    }
  }
  if (comparison != DefaultComparisonType(type)) return nullptr;
  switch (type) {
    case PRED: return ForDirection<NativeCmp<uint8_t>::Pick>(direction);  // stored 0/1
    case S8: return ForDirection<NativeCmp<int8_t>::Pick>(direction);
    case S16: return ForDirection<NativeCmp<int16_t>::Pick>(direction);
    case S32: return ForDirection<NativeCmp<int32_t>::Pick>(direction);
    case S64: return ForDirection<NativeCmp<int64_t>::Pick>(direction);
    case U8: return ForDirection<NativeCmp<uint8_t>::Pick>(direction);
    case U16: return ForDirection<NativeCmp<uint16_t>::Pick>(direction);
    case U32: return ForDirection<NativeCmp<uint32_t>::Pick>(direction);
    case U64: return ForDirection<NativeCmp<uint64_t>::Pick>(direction);
    case F32: return ForDirection<NativeCmp<float>::Pick>(direction);
    case F64: return ForDirection<NativeCmp<double>::Pick>(direction);
    case F16: return ForDirection<LoadedCmp<LoadHalf>::Pick>(direction);
    case BF16: return ForDirection<LoadedCmp<LoadBf16>::Pick>(direction);
    default: return nullptr;
  }
}

template <Op op>
NativeScalarFn IntegerFn(PrimitiveType type) {
  switch (type) {
    case S8: return IntegerBinary<int8_t, op>;
    case S16: return IntegerBinary<int16_t, op>;
    case S32: return IntegerBinary<int32_t, op>;
    case S64: return IntegerBinary<int64_t, op>;
    case U8: return IntegerBinary<uint8_t, op>;
    case U16: return IntegerBinary<uint16_t, op>;
    case U32: return IntegerBinary<uint32_t, op>;
    case U64: return IntegerBinary<uint64_t, op>;
    default: return nullptr;
  }
}

NativeScalarFn ArithmeticFn(HloOpcode opcode, PrimitiveType type, bool swap) {
  const bool is_int = primitive_util::IsIntegralType(type);
  switch (opcode) {
    case HloOpcode::kAdd:
      if (type == F32) return swap ? FloatBinary<float, Op::kAdd, true> : FloatBinary<float, Op::kAdd, false>;
      if (type == F64) return swap ? FloatBinary<double, Op::kAdd, true> : FloatBinary<double, Op::kAdd, false>;
      return IntegerFn<Op::kAdd>(type);
    case HloOpcode::kMultiply:
      if (type == F32) return swap ? FloatBinary<float, Op::kMul, true> : FloatBinary<float, Op::kMul, false>;
      if (type == F64) return swap ? FloatBinary<double, Op::kMul, true> : FloatBinary<double, Op::kMul, false>;
      return IntegerFn<Op::kMul>(type);
    case HloOpcode::kAnd:
      if (type == PRED) return PredBinary<Op::kAnd>;
      return IntegerFn<Op::kAnd>(type);
    case HloOpcode::kOr:
      if (type == PRED) return PredBinary<Op::kOr>;
      return IntegerFn<Op::kOr>(type);
    case HloOpcode::kXor:
      return IntegerFn<Op::kXor>(type);
    case HloOpcode::kMaximum:
      if (type == F32) return FloatMinMax<float, Op::kMax>;
      if (type == F64) return FloatMinMax<double, Op::kMax>;
      return is_int ? IntegerFn<Op::kMax>(type) : nullptr;
    case HloOpcode::kMinimum:
      if (type == F32) return FloatMinMax<float, Op::kMin>;
      if (type == F64) return FloatMinMax<double, Op::kMin>;
      return is_int ? IntegerFn<Op::kMin>(type) : nullptr;
    default:
      return nullptr;
  }
}

}  // namespace

NativeScalarFn FindNativeScalarFn(const HloComputation& computation, int64_t* lhs_param, int64_t* rhs_param,
                                  bool* verify, NativeScalarFn* alternative) {
  *verify = false;
  *alternative = nullptr;
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr || root->operand_count() != 2 || !root->called_computations().empty()) return nullptr;
  const HloInstruction* lhs = root->operand(0);
  const HloInstruction* rhs = root->operand(1);
  if (lhs->opcode() != HloOpcode::kParameter || rhs->opcode() != HloOpcode::kParameter) return nullptr;
  const Shape& shape = root->shape();
  if (!shape.IsArray() || shape.rank() != 0 || !lhs->shape().IsArray() || lhs->shape().rank() != 0 ||
      !rhs->shape().IsArray() || rhs->shape().rank() != 0) {
    return nullptr;
  }
  const PrimitiveType type = lhs->shape().element_type();
  if (rhs->shape().element_type() != type) return nullptr;
  NativeScalarFn fn = nullptr;
  if (root->opcode() == HloOpcode::kCompare) {
    if (shape.element_type() != PRED) return nullptr;
    std::optional<ComparisonDirection> direction =
        StringToComparisonDirection(root->attrs().comparison_direction());
    if (!direction.has_value()) return nullptr;
    ComparisonType comparison = DefaultComparisonType(type);
    if (!root->attrs().comparison_type().empty()) {
      std::optional<ComparisonType> parsed = StringToComparisonType(root->attrs().comparison_type());
      if (!parsed.has_value()) return nullptr;
      comparison = *parsed;
    }
    fn = CompareFn(type, *direction, comparison);
  } else {
    if (shape.element_type() != type) return nullptr;
    fn = ArithmeticFn(root->opcode(), type, false);
    *verify = primitive_util::IsFloatingPointType(type);
    if (*verify) *alternative = ArithmeticFn(root->opcode(), type, true);
  }
  if (fn == nullptr) return nullptr;
  *lhs_param = lhs->parameter_number();
  *rhs_param = rhs->parameter_number();
  if (*lhs_param < 0 || *rhs_param < 0 || *lhs_param >= computation.num_parameters() ||
      *rhs_param >= computation.num_parameters()) {
    return nullptr;
  }
  return fn;
}

}  // namespace interpreter
}  // namespace xla
