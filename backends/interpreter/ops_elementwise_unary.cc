// Unary elementwise ops: math on floats and complex numbers, rounding, integer bit ops,
// abs/negate/sign/not, is-finite, real/imag. Semantics follow XLA's reference evaluator:
// narrow floats are computed in float and rounded once to their type; integer negate and
// abs wrap (abs(INT_MIN) == INT_MIN); sign(-0.0) == -0.0 and sign(NaN) == NaN.
#include <cmath>
#include <complex>
#include <limits>

#include "backends/complex_math.h"
#include "backends/interpreter/ops_elementwise_internal.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace elementwise {
namespace {

template <typename In, typename Out, typename F>
absl::StatusOr<Literal> MapValues(const Literal& operand, PrimitiveType out_type,
                                  absl::Span<const int64_t> dims, F f) {
  ASSIGN_OR_RETURN(Values<In> in, Load<In>(operand));
  Values<Out> out(in.size());
  for (int64_t i = 0; i < in.size(); ++i) out[i] = f(in[i]);
  return Store<Out>(out, out_type, dims);
}

// Real and complex math functions. `kComplex` says whether XLA defines the op on c64/c128.
#define XLA_FLOAT_UNARY(Name, kComplex, expr)                                        \
  struct Name {                                                                      \
    template <typename T>                                                            \
    static constexpr bool kAccepts = kIsFloat<T> || ((kComplex) && kIsComplex<T>);    \
    template <typename T>                                                            \
    static T Apply(T x, int /*bits*/) {                                              \
      return expr;                                                                   \
    }                                                                                \
  };

XLA_FLOAT_UNARY(ExpOp, true, std::exp(x))
XLA_FLOAT_UNARY(LogOp, true, std::log(x))
XLA_FLOAT_UNARY(SqrtOp, true, std::sqrt(x))
XLA_FLOAT_UNARY(RsqrtOp, true, T(1) / std::sqrt(x))
XLA_FLOAT_UNARY(LogisticOp, true, T(1) / (T(1) + std::exp(-x)))
XLA_FLOAT_UNARY(SinOp, true, std::sin(x))
XLA_FLOAT_UNARY(CosOp, true, std::cos(x))
XLA_FLOAT_UNARY(TanOp, true, std::tan(x))
XLA_FLOAT_UNARY(TanhOp, true, std::tanh(x))
XLA_FLOAT_UNARY(SinhOp, true, std::sinh(x))
XLA_FLOAT_UNARY(CoshOp, true, std::cosh(x))
XLA_FLOAT_UNARY(AsinOp, true, std::asin(x))
XLA_FLOAT_UNARY(AcosOp, true, std::acos(x))
XLA_FLOAT_UNARY(AsinhOp, true, std::asinh(x))
XLA_FLOAT_UNARY(AcoshOp, true, std::acosh(x))
XLA_FLOAT_UNARY(AtanhOp, true, std::atanh(x))
XLA_FLOAT_UNARY(CbrtOp, false, std::cbrt(x))
XLA_FLOAT_UNARY(ErfOp, false, std::erf(x))
XLA_FLOAT_UNARY(FloorOp, false, std::floor(x))
XLA_FLOAT_UNARY(CeilOp, false, std::ceil(x))
XLA_FLOAT_UNARY(RoundAfzOp, false, std::round(x))
// The default floating-point environment rounds to nearest even.
XLA_FLOAT_UNARY(RoundEvenOp, false, std::nearbyint(x))
#undef XLA_FLOAT_UNARY

// expm1 and log1p keep their accuracy near zero for complex arguments too.
struct Expm1Op {
  template <typename T>
  static constexpr bool kAccepts = kIsFloat<T> || kIsComplex<T>;
  template <typename T>
  static T Apply(T x, int) {
    if constexpr (kIsComplex<T>) {
      return complex_math::Expm1(x);
    } else {
      return std::expm1(x);
    }
  }
};

struct Log1pOp {
  template <typename T>
  static constexpr bool kAccepts = kIsFloat<T> || kIsComplex<T>;
  template <typename T>
  static T Apply(T x, int) {
    if constexpr (kIsComplex<T>) {
      return complex_math::Log1p(x);
    } else {
      return std::log1p(x);
    }
  }
};

struct NegateOp {
  template <typename T>
  static constexpr bool kAccepts = !std::is_same_v<T, bool>;
  template <typename T>
  static T Apply(T x, int) {
    if constexpr (kIsInt<T>) {
      return static_cast<T>(uint64_t{0} - static_cast<uint64_t>(x));  // wraps
    } else {
      return -x;
    }
  }
};

// abs of real types (complex abs changes the type: see AbsHandler).
struct AbsOp {
  template <typename T>
  static constexpr bool kAccepts = kIsInt<T> || kIsFloat<T>;
  template <typename T>
  static T Apply(T x, int) {
    if constexpr (std::is_same_v<T, int64_t>) {
      return x < 0 ? static_cast<T>(uint64_t{0} - static_cast<uint64_t>(x)) : x;
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      return x;
    } else {
      return std::fabs(x);
    }
  }
};

struct SignOp {
  template <typename T>
  static constexpr bool kAccepts = !std::is_same_v<T, bool>;
  template <typename T>
  static T Apply(T x, int) {
    if constexpr (kIsInt<T>) {
      return static_cast<T>((T(0) < x) - (x < T(0)));
    } else if constexpr (kIsFloat<T>) {
      return std::isnan(x) ? x : std::copysign(x != T(0) ? T(1) : T(0), x);
    } else {
      const auto magnitude = std::abs(x);
      return magnitude == 0 ? T(0) : x / magnitude;
    }
  }
};

// not: logical for PRED, bitwise for integers (the store wraps to the width).
struct NotOp {
  template <typename T>
  static constexpr bool kAccepts = std::is_same_v<T, bool> || kIsInt<T>;
  template <typename T>
  static T Apply(T x, int) {
    if constexpr (std::is_same_v<T, bool>) {
      return !x;
    } else {
      return static_cast<T>(~static_cast<uint64_t>(x));
    }
  }
};

uint64_t LowBits(uint64_t x, int bits) {
  return bits >= 64 ? x : x & ((uint64_t{1} << bits) - 1);
}

struct PopcntOp {
  template <typename T>
  static constexpr bool kAccepts = kIsInt<T>;
  template <typename T>
  static T Apply(T x, int bits) {
    return static_cast<T>(__builtin_popcountll(LowBits(static_cast<uint64_t>(x), bits)));
  }
};

struct ClzOp {
  template <typename T>
  static constexpr bool kAccepts = kIsInt<T>;
  template <typename T>
  static T Apply(T x, int bits) {
    const uint64_t v = LowBits(static_cast<uint64_t>(x), bits);
    if (v == 0) return static_cast<T>(bits);
    return static_cast<T>(__builtin_clzll(v) - (64 - bits));
  }
};

// Ops whose result has the operand's element type.
template <typename Op>
absl::StatusOr<Literal> SameTypeUnary(EvalContext&, const HloInstruction& instruction,
                                      Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, 1));
  const PrimitiveType type = operands[0]->shape().element_type();
  if (instruction.shape().element_type() != type) {
    return absl::InvalidArgumentError(absl::StrCat("result type ", TypeName(instruction.shape().element_type()),
                                                   " differs from the operand type ", TypeName(type)));
  }
  const int bits = IntegerBits(type);
  const auto& dims = instruction.shape().dimensions();
  return VisitValueType(type, [&](auto tag) -> absl::StatusOr<Literal> {
    using T = decltype(tag);
    if constexpr (Op::template kAccepts<T>) {
      return MapValues<T, T>(*operands[0], type, dims, [bits](T x) { return Op::Apply(x, bits); });
    } else {
      return UnsupportedType(instruction, type);
    }
  });
}

// abs: complex -> component type, otherwise as AbsOp.
absl::StatusOr<Literal> Abs(EvalContext& ctx, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, 1));
  const PrimitiveType type = operands[0]->shape().element_type();
  const auto& dims = instruction.shape().dimensions();
  if (type == C64) {
    if (instruction.shape().element_type() != F32) return UnsupportedType(instruction, type);
    return MapValues<c64, float>(*operands[0], F32, dims, [](c64 x) { return std::abs(x); });
  }
  if (type == C128) {
    if (instruction.shape().element_type() != F64) return UnsupportedType(instruction, type);
    return MapValues<c128, double>(*operands[0], F64, dims, [](c128 x) { return std::abs(x); });
  }
  return SameTypeUnary<AbsOp>(ctx, instruction, operands);
}

// real / imag: the component of a complex number; on real floats real is the identity
// and imag is zero (as XLA's shape inference allows).
template <bool kImag>
absl::StatusOr<Literal> RealOrImag(EvalContext&, const HloInstruction& instruction,
                                   Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, 1));
  const PrimitiveType type = operands[0]->shape().element_type();
  const PrimitiveType out_type = instruction.shape().element_type();
  const auto& dims = instruction.shape().dimensions();
  if (type == C64 || type == C128) {
    if (out_type != primitive_util::ComplexComponentType(type)) return UnsupportedType(instruction, type);
    if (type == C64) {
      return MapValues<c64, float>(*operands[0], F32, dims,
                                   [](c64 x) { return kImag ? x.imag() : x.real(); });
    }
    return MapValues<c128, double>(*operands[0], F64, dims,
                                   [](c128 x) { return kImag ? x.imag() : x.real(); });
  }
  if (!primitive_util::IsFloatingPointType(type) || out_type != type) {
    return UnsupportedType(instruction, type);
  }
  if (type == F64) {
    return MapValues<double, double>(*operands[0], type, dims,
                                     [](double x) { return kImag ? 0.0 : x; });
  }
  return MapValues<float, float>(*operands[0], type, dims, [](float x) { return kImag ? 0.0f : x; });
}

absl::StatusOr<Literal> IsFinite(EvalContext&, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, 1));
  const PrimitiveType type = operands[0]->shape().element_type();
  if (!primitive_util::IsFloatingPointType(type) || instruction.shape().element_type() != PRED) {
    return UnsupportedType(instruction, type);
  }
  const auto& dims = instruction.shape().dimensions();
  if (type == F64) {
    return MapValues<double, bool>(*operands[0], PRED, dims, [](double x) { return std::isfinite(x); });
  }
  return MapValues<float, bool>(*operands[0], PRED, dims, [](float x) { return std::isfinite(x); });
}

}  // namespace

void RegisterUnaryHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kExponential, SameTypeUnary<ExpOp>);
  table->Register(HloOpcode::kExponentialMinusOne, SameTypeUnary<Expm1Op>);
  table->Register(HloOpcode::kLog, SameTypeUnary<LogOp>);
  table->Register(HloOpcode::kLogPlusOne, SameTypeUnary<Log1pOp>);
  table->Register(HloOpcode::kSqrt, SameTypeUnary<SqrtOp>);
  table->Register(HloOpcode::kRsqrt, SameTypeUnary<RsqrtOp>);
  table->Register(HloOpcode::kCbrt, SameTypeUnary<CbrtOp>);
  table->Register(HloOpcode::kLogistic, SameTypeUnary<LogisticOp>);
  table->Register(HloOpcode::kSine, SameTypeUnary<SinOp>);
  table->Register(HloOpcode::kCosine, SameTypeUnary<CosOp>);
  table->Register(HloOpcode::kTan, SameTypeUnary<TanOp>);
  table->Register(HloOpcode::kTanh, SameTypeUnary<TanhOp>);
  table->Register(HloOpcode::kSinh, SameTypeUnary<SinhOp>);
  table->Register(HloOpcode::kCosh, SameTypeUnary<CoshOp>);
  table->Register(HloOpcode::kAsin, SameTypeUnary<AsinOp>);
  table->Register(HloOpcode::kAcos, SameTypeUnary<AcosOp>);
  table->Register(HloOpcode::kAsinh, SameTypeUnary<AsinhOp>);
  table->Register(HloOpcode::kAcosh, SameTypeUnary<AcoshOp>);
  table->Register(HloOpcode::kAtanh, SameTypeUnary<AtanhOp>);
  table->Register(HloOpcode::kErf, SameTypeUnary<ErfOp>);
  table->Register(HloOpcode::kFloor, SameTypeUnary<FloorOp>);
  table->Register(HloOpcode::kCeil, SameTypeUnary<CeilOp>);
  table->Register(HloOpcode::kRoundNearestAfz, SameTypeUnary<RoundAfzOp>);
  table->Register(HloOpcode::kRoundNearestEven, SameTypeUnary<RoundEvenOp>);
  table->Register(HloOpcode::kNegate, SameTypeUnary<NegateOp>);
  table->Register(HloOpcode::kSign, SameTypeUnary<SignOp>);
  table->Register(HloOpcode::kNot, SameTypeUnary<NotOp>);
  table->Register(HloOpcode::kPopcnt, SameTypeUnary<PopcntOp>);
  table->Register(HloOpcode::kCountLeadingZeros, SameTypeUnary<ClzOp>);
  table->Register(HloOpcode::kAbs, Abs);
  table->Register(HloOpcode::kReal, RealOrImag<false>);
  table->Register(HloOpcode::kImag, RealOrImag<true>);
  table->Register(HloOpcode::kIsFinite, IsFinite);
}

}  // namespace elementwise
}  // namespace interpreter
}  // namespace xla
