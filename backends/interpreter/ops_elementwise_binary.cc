// Binary and ternary elementwise ops: arithmetic, bitwise, shifts, maximum/minimum,
// power, atan2, complex, compare (every direction and comparison type), select, clamp.
// Integer edge cases follow XLA: x / 0 == -1 (all bits set), x % 0 == x,
// INT_MIN / -1 == INT_MIN, INT_MIN % -1 == 0; shifts by >= the bit width (or negative
// amounts) give 0, or the sign fill for shift-right-arithmetic. maximum/minimum return the
// first NaN operand (lhs first); clamp checks min, operand, max for NaN in that order.
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <optional>

#include "backends/complex_math.h"
#include "backends/interpreter/ops_elementwise_internal.h"
#include "hlo/comparison_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace elementwise {
namespace {

uint64_t LowBits(uint64_t x, int bits) {
  return bits >= 64 ? x : x & ((uint64_t{1} << bits) - 1);
}

int64_t SignExtend(uint64_t x, int bits) {
  if (bits >= 64) return static_cast<int64_t>(x);
  const int shift = 64 - bits;
  return static_cast<int64_t>(x << shift) >> shift;
}

// Index into an operand that is either full-size or a broadcast scalar.
inline int64_t At(int64_t size, int64_t i) { return size == 1 ? 0 : i; }

absl::Status CheckSizes(int64_t result, std::initializer_list<int64_t> sizes) {
  for (int64_t s : sizes) {
    if (s != result && s != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("operand has ", s, " elements but the result has ", result));
    }
  }
  return absl::OkStatus();
}

template <typename T>
T IntegerPow(T base, T exponent) {
  uint64_t result = 1;
  uint64_t b = static_cast<uint64_t>(base);
  uint64_t e = static_cast<uint64_t>(exponent);
  while (e != 0) {
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<T>(result);
}

struct AddOp {
  template <typename T> static constexpr bool kAccepts = true;
  template <typename T>
  static T Apply(T a, T b, int) {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else if constexpr (kIsInt<T>) return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    else return a + b;
  }
};

struct SubtractOp {
  template <typename T> static constexpr bool kAccepts = true;
  template <typename T>
  static T Apply(T a, T b, int) {
    if constexpr (std::is_same_v<T, bool>) return a != b;
    else if constexpr (kIsInt<T>) return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
    else return a - b;
  }
};

struct MultiplyOp {
  template <typename T> static constexpr bool kAccepts = true;
  template <typename T>
  static T Apply(T a, T b, int) {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else if constexpr (kIsInt<T>) return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    else return a * b;
  }
};

struct DivideOp {
  template <typename T> static constexpr bool kAccepts = !std::is_same_v<T, bool>;
  template <typename T>
  static T Apply(T a, T b, int) {
    if constexpr (kIsInt<T>) {
      if (b == 0) return static_cast<T>(-1);  // all bits set, signed or not
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return static_cast<T>(uint64_t{0} - static_cast<uint64_t>(a));  // INT_MIN stays
      }
      return a / b;
    } else {
      return a / b;
    }
  }
};

struct RemainderOp {
  template <typename T> static constexpr bool kAccepts = kIsInt<T> || kIsFloat<T>;
  template <typename T>
  static T Apply(T a, T b, int) {
    if constexpr (kIsInt<T>) {
      if (b == 0) return a;
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return 0;  // also INT_MIN % -1
      }
      return a % b;
    } else {
      return std::fmod(a, b);
    }
  }
};

struct MaximumOp {
  template <typename T> static constexpr bool kAccepts = !kIsComplex<T>;
  template <typename T>
  static T Apply(T a, T b, int) {
    if constexpr (kIsFloat<T>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a < b ? b : a;  // ties (-0 vs +0) keep lhs, as std::max
  }
};

struct MinimumOp {
  template <typename T> static constexpr bool kAccepts = !kIsComplex<T>;
  template <typename T>
  static T Apply(T a, T b, int) {
    if constexpr (kIsFloat<T>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return b < a ? b : a;
  }
};

struct PowerOp {
  template <typename T> static constexpr bool kAccepts = true;
  template <typename T>
  static T Apply(T a, T b, int) {
    if constexpr (std::is_same_v<T, bool>) {
      return a || !b;
    } else {
      // 1^x == 1 and x^0 == 1 for every x (Kahan), NaN included.
      if (a == T(1) || b == T(0)) return T(1);
      if constexpr (kIsInt<T>) {
        if constexpr (std::is_signed_v<T>) {
          if (b < 0) return 0;
        }
        return IntegerPow(a, b);
      } else if constexpr (kIsComplex<T>) {
        return complex_math::Pow(a, b);
      } else {
        return std::pow(a, b);
      }
    }
  }
};

struct Atan2Op {
  template <typename T> static constexpr bool kAccepts = kIsFloat<T> || kIsComplex<T>;
  template <typename T>
  static T Apply(T y, T x, int) {
    if constexpr (kIsComplex<T>) {
      return complex_math::Atan2(y, x);
    } else {
      return std::atan2(y, x);
    }
  }
};

#define XLA_BITWISE_BINARY(Name, op)                                                       \
  struct Name {                                                                            \
    template <typename T> static constexpr bool kAccepts = std::is_same_v<T, bool> || kIsInt<T>; \
    template <typename T>                                                                  \
    static T Apply(T a, T b, int) {                                                        \
      return static_cast<T>(a op b);                                                       \
    }                                                                                      \
  };
XLA_BITWISE_BINARY(AndOp, &)
XLA_BITWISE_BINARY(OrOp, |)
XLA_BITWISE_BINARY(XorOp, ^)
#undef XLA_BITWISE_BINARY

struct ShiftLeftOp {
  template <typename T> static constexpr bool kAccepts = kIsInt<T>;
  template <typename T>
  static T Apply(T a, T b, int bits) {
    const uint64_t amount = static_cast<uint64_t>(b);
    if (amount >= static_cast<uint64_t>(bits)) return 0;
    return static_cast<T>(static_cast<uint64_t>(a) << amount);
  }
};

struct ShiftRightArithmeticOp {
  template <typename T> static constexpr bool kAccepts = kIsInt<T>;
  template <typename T>
  static T Apply(T a, T b, int bits) {
    const int64_t value = SignExtend(static_cast<uint64_t>(a), bits);
    const uint64_t amount = static_cast<uint64_t>(b);
    if (amount >= static_cast<uint64_t>(bits)) return static_cast<T>(value < 0 ? -1 : 0);
    return static_cast<T>(value >> amount);
  }
};

struct ShiftRightLogicalOp {
  template <typename T> static constexpr bool kAccepts = kIsInt<T>;
  template <typename T>
  static T Apply(T a, T b, int bits) {
    const uint64_t amount = static_cast<uint64_t>(b);
    if (amount >= static_cast<uint64_t>(bits)) return 0;
    return static_cast<T>(LowBits(static_cast<uint64_t>(a), bits) >> amount);
  }
};

template <typename In, typename Out, typename F>
absl::StatusOr<Literal> ZipValues(const Literal& lhs, const Literal& rhs, PrimitiveType out_type,
                                  absl::Span<const int64_t> dims, F f) {
  ASSIGN_OR_RETURN(Values<In> a, Load<In>(lhs));
  ASSIGN_OR_RETURN(Values<In> b, Load<In>(rhs));
  const int64_t n = std::max(a.size(), b.size());
  RETURN_IF_ERROR(CheckSizes(n, {a.size(), b.size()}));
  Values<Out> out(n);
  if (a.size() == n && b.size() == n) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[At(a.size(), i)], b[At(b.size(), i)]);
  }
  return Store<Out>(out, out_type, dims);
}

absl::Status CheckSameTypes(const HloInstruction& instruction, Operands operands) {
  const PrimitiveType type = operands[0]->shape().element_type();
  for (const Literal* operand : operands) {
    if (operand->shape().element_type() != type) {
      return absl::InvalidArgumentError(absl::StrCat("operand types differ: ", TypeName(type), " and ",
                                                     TypeName(operand->shape().element_type())));
    }
  }
  return absl::OkStatus();
}

template <typename Op>
absl::StatusOr<Literal> SameTypeBinary(EvalContext&, const HloInstruction& instruction,
                                       Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, 2));
  RETURN_IF_ERROR(CheckSameTypes(instruction, operands));
  const PrimitiveType type = operands[0]->shape().element_type();
  if (instruction.shape().element_type() != type) {
    return absl::InvalidArgumentError(absl::StrCat("result type ", TypeName(instruction.shape().element_type()),
                                                   " differs from the operand type ", TypeName(type)));
  }
  const int bits = IntegerBits(type);
  return VisitValueType(type, [&](auto tag) -> absl::StatusOr<Literal> {
    using T = decltype(tag);
    if constexpr (Op::template kAccepts<T>) {
      return ZipValues<T, T>(*operands[0], *operands[1], type, instruction.shape().dimensions(),
                             [bits](T a, T b) { return static_cast<T>(Op::Apply(a, b, bits)); });
    } else {
      return UnsupportedType(instruction, type);
    }
  });
}

absl::StatusOr<Literal> Complex(EvalContext&, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, 2));
  RETURN_IF_ERROR(CheckSameTypes(instruction, operands));
  const PrimitiveType type = operands[0]->shape().element_type();
  const auto& dims = instruction.shape().dimensions();
  if (type == F32 && instruction.shape().element_type() == C64) {
    return ZipValues<float, c64>(*operands[0], *operands[1], C64, dims,
                                 [](float re, float im) { return c64(re, im); });
  }
  if (type == F64 && instruction.shape().element_type() == C128) {
    return ZipValues<double, c128>(*operands[0], *operands[1], C128, dims,
                                   [](double re, double im) { return c128(re, im); });
  }
  return UnsupportedType(instruction, type);
}

template <typename T>
bool CompareValues(ComparisonDirection direction, T a, T b) {
  switch (direction) {
    case ComparisonDirection::kEq: return a == b;
    case ComparisonDirection::kNe: return a != b;
    case ComparisonDirection::kLt: return a < b;
    case ComparisonDirection::kLe: return a <= b;
    case ComparisonDirection::kGt: return a > b;
    case ComparisonDirection::kGe: return a >= b;
  }
  return false;
}

// Total-order keys of floats from their storage bits: negative values get their
// magnitude bits flipped so that -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN.
absl::StatusOr<Values<int64_t>> TotalOrderKeys(const Literal& literal) {
  Literal storage;
  ASSIGN_OR_RETURN(const Literal* rm, RowMajor(literal, &storage));
  const PrimitiveType type = rm->shape().element_type();
  const int bits = primitive_util::BitWidth(type);
  const int bytes = primitive_util::ByteWidth(type);
  const auto* base = static_cast<const uint8_t*>(rm->untyped_data());
  const bool has_sign = type != F8E8M0FNU;
  Values<int64_t> keys(rm->element_count());
  for (int64_t i = 0; i < keys.size(); ++i) {
    uint64_t raw = 0;
    std::memcpy(&raw, base + i * bytes, bytes);  // little-endian host
    raw = LowBits(raw, bits);
    if (!has_sign) {
      keys[i] = static_cast<int64_t>(raw);
      continue;
    }
    const int64_t s = SignExtend(raw, bits);
    const int64_t magnitude_mask = static_cast<int64_t>(LowBits(~uint64_t{0}, bits - 1));
    keys[i] = s < 0 ? (s ^ magnitude_mask) : s;
  }
  return keys;
}

absl::StatusOr<Literal> Compare(EvalContext&, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, 2));
  RETURN_IF_ERROR(CheckSameTypes(instruction, operands));
  const PrimitiveType type = operands[0]->shape().element_type();
  if (instruction.shape().element_type() != PRED) {
    return absl::InvalidArgumentError("compare must produce pred");
  }
  const std::string& direction_name = instruction.attrs().comparison_direction();
  std::optional<ComparisonDirection> direction = StringToComparisonDirection(direction_name);
  if (!direction.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown comparison direction '", direction_name, "'"));
  }
  ComparisonType comparison_type = DefaultComparisonType(type);
  const std::string& type_name = instruction.attrs().comparison_type();
  if (!type_name.empty()) {
    std::optional<ComparisonType> parsed = StringToComparisonType(type_name);
    if (!parsed.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown comparison type '", type_name, "'"));
    }
    comparison_type = *parsed;
  }
  const auto& dims = instruction.shape().dimensions();
  const ComparisonDirection dir = *direction;
  const bool is_float = primitive_util::IsFloatingPointType(type);
  if (is_float && comparison_type == ComparisonType::kFloatTotalOrder) {
    ASSIGN_OR_RETURN(Values<int64_t> a, TotalOrderKeys(*operands[0]));
    ASSIGN_OR_RETURN(Values<int64_t> b, TotalOrderKeys(*operands[1]));
    const int64_t n = std::max(a.size(), b.size());
    RETURN_IF_ERROR(CheckSizes(n, {a.size(), b.size()}));
    Values<bool> out(n);
    for (int64_t i = 0; i < n; ++i) out[i] = CompareValues(dir, a[At(a.size(), i)], b[At(b.size(), i)]);
    return Store<bool>(out, PRED, dims);
  }
  if (primitive_util::IsIntegralType(type) && comparison_type != DefaultComparisonType(type) &&
      (comparison_type == ComparisonType::kSigned || comparison_type == ComparisonType::kUnsigned)) {
    // An explicit signedness reinterprets the element bits.
    const int bits = IntegerBits(type);
    const bool as_signed = comparison_type == ComparisonType::kSigned;
    return VisitValueType(type, [&](auto tag) -> absl::StatusOr<Literal> {
      using T = decltype(tag);
      if constexpr (kIsInt<T>) {
        return ZipValues<T, bool>(*operands[0], *operands[1], PRED, dims, [&](T a, T b) {
          const uint64_t ua = LowBits(static_cast<uint64_t>(a), bits);
          const uint64_t ub = LowBits(static_cast<uint64_t>(b), bits);
          return as_signed ? CompareValues(dir, SignExtend(ua, bits), SignExtend(ub, bits))
                           : CompareValues(dir, ua, ub);
        });
      } else {
        return UnsupportedType(instruction, type);
      }
    });
  }
  return VisitValueType(type, [&](auto tag) -> absl::StatusOr<Literal> {
    using T = decltype(tag);
    if constexpr (kIsComplex<T>) {
      if (dir != ComparisonDirection::kEq && dir != ComparisonDirection::kNe) {
        return absl::InvalidArgumentError(absl::StrCat("complex numbers only compare with EQ and NE, not ",
                                                       direction_name));
      }
      const bool eq = dir == ComparisonDirection::kEq;
      return ZipValues<T, bool>(*operands[0], *operands[1], PRED, dims,
                                [eq](T a, T b) { return eq ? a == b : a != b; });
    } else {
      return ZipValues<T, bool>(*operands[0], *operands[1], PRED, dims,
                                [dir](T a, T b) { return CompareValues(dir, a, b); });
    }
  });
}

// select(pred, on_true, on_false): copies element bytes, so every type (and NaN payload)
// passes through unchanged. pred may be a scalar; with a scalar pred the other operands
// may also be tuples (old XLA's tuple select).
absl::StatusOr<Literal> Select(EvalContext&, const HloInstruction& instruction, Operands operands) {
  if (operands.size() != 3) return absl::InvalidArgumentError("select takes three operands");
  const Literal& pred = *operands[0];
  if (!pred.shape().IsArray() || pred.shape().element_type() != PRED) {
    return absl::InvalidArgumentError(
        absl::StrCat("select predicate must be a pred array, got ", pred.shape().ToString()));
  }
  if (!ShapeUtil::Compatible(operands[1]->shape(), operands[2]->shape())) {
    return absl::InvalidArgumentError(absl::StrCat("select branches differ: ", operands[1]->shape().ToString(),
                                                   " vs ", operands[2]->shape().ToString()));
  }
  const bool scalar_pred = pred.shape().rank() == 0;
  if (operands[1]->shape().IsTuple()) {
    if (!scalar_pred) return absl::InvalidArgumentError("tuple select needs a scalar predicate");
    return (pred.GetAsInt64(0) != 0 ? operands[1] : operands[2])->Clone();
  }
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, 3));
  const PrimitiveType type = operands[1]->shape().element_type();
  if (instruction.shape().element_type() != type) return UnsupportedType(instruction, type);
  Literal s0, s1, s2;
  ASSIGN_OR_RETURN(const Literal* p, RowMajor(pred, &s0));
  ASSIGN_OR_RETURN(const Literal* t, RowMajor(*operands[1], &s1));
  ASSIGN_OR_RETURN(const Literal* f, RowMajor(*operands[2], &s2));
  ASSIGN_OR_RETURN(Literal out, Literal::Create(ShapeUtil::MakeShape(type, instruction.shape().dimensions())));
  const int64_t n = out.element_count();
  if (t->element_count() != n || (!scalar_pred && p->element_count() != n)) {
    return absl::InvalidArgumentError("select operands do not match the result shape");
  }
  const int64_t width = primitive_util::ByteWidth(type);
  const auto* pb = static_cast<const uint8_t*>(p->untyped_data());
  const auto* tb = static_cast<const uint8_t*>(t->untyped_data());
  const auto* fb = static_cast<const uint8_t*>(f->untyped_data());
  auto* ob = static_cast<uint8_t*>(out.untyped_data());
  for (int64_t i = 0; i < n; ++i) {
    const bool take_true = pb[scalar_pred ? 0 : i] != 0;
    std::memcpy(ob + i * width, (take_true ? tb : fb) + i * width, width);
  }
  return out;
}

// clamp(min, operand, max); min and max may be scalars.
absl::StatusOr<Literal> Clamp(EvalContext&, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, 3));
  RETURN_IF_ERROR(CheckSameTypes(instruction, operands));
  const PrimitiveType type = operands[1]->shape().element_type();
  if (instruction.shape().element_type() != type) return UnsupportedType(instruction, type);
  return VisitValueType(type, [&](auto tag) -> absl::StatusOr<Literal> {
    using T = decltype(tag);
    if constexpr (kIsComplex<T>) {
      return UnsupportedType(instruction, type);
    } else {
      ASSIGN_OR_RETURN(Values<T> lo, Load<T>(*operands[0]));
      ASSIGN_OR_RETURN(Values<T> x, Load<T>(*operands[1]));
      ASSIGN_OR_RETURN(Values<T> hi, Load<T>(*operands[2]));
      const int64_t n = x.size();
      RETURN_IF_ERROR(CheckSizes(n, {lo.size(), hi.size()}));
      Values<T> out(n);
      for (int64_t i = 0; i < n; ++i) {
        const T l = lo[At(lo.size(), i)], v = x[i], h = hi[At(hi.size(), i)];
        if constexpr (kIsFloat<T>) {
          if (std::isnan(l)) { out[i] = l; continue; }
          if (std::isnan(v)) { out[i] = v; continue; }
          if (std::isnan(h)) { out[i] = h; continue; }
        }
        const T raised = v < l ? l : v;      // std::max(v, l)
        out[i] = raised < h ? raised : h;    // std::min(h, raised)
      }
      return Store<T>(out, type, instruction.shape().dimensions());
    }
  });
}

}  // namespace

void RegisterBinaryHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kAdd, SameTypeBinary<AddOp>);
  table->Register(HloOpcode::kSubtract, SameTypeBinary<SubtractOp>);
  table->Register(HloOpcode::kMultiply, SameTypeBinary<MultiplyOp>);
  table->Register(HloOpcode::kDivide, SameTypeBinary<DivideOp>);
  table->Register(HloOpcode::kRemainder, SameTypeBinary<RemainderOp>);
  table->Register(HloOpcode::kMaximum, SameTypeBinary<MaximumOp>);
  table->Register(HloOpcode::kMinimum, SameTypeBinary<MinimumOp>);
  table->Register(HloOpcode::kPower, SameTypeBinary<PowerOp>);
  table->Register(HloOpcode::kAtan2, SameTypeBinary<Atan2Op>);
  table->Register(HloOpcode::kAnd, SameTypeBinary<AndOp>);
  table->Register(HloOpcode::kOr, SameTypeBinary<OrOp>);
  table->Register(HloOpcode::kXor, SameTypeBinary<XorOp>);
  table->Register(HloOpcode::kShiftLeft, SameTypeBinary<ShiftLeftOp>);
  table->Register(HloOpcode::kShiftRightArithmetic, SameTypeBinary<ShiftRightArithmeticOp>);
  table->Register(HloOpcode::kShiftRightLogical, SameTypeBinary<ShiftRightLogicalOp>);
  table->Register(HloOpcode::kComplex, Complex);
  table->Register(HloOpcode::kCompare, Compare);
  table->Register(HloOpcode::kSelect, Select);
  table->Register(HloOpcode::kClamp, Clamp);
}

}  // namespace elementwise
}  // namespace interpreter
}  // namespace xla
