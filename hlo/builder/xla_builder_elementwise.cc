// Elementwise ops: unary, binary with XLA's builder-level broadcasting, comparisons,
// select/clamp with scalar broadcasting, conversions, map.

#include <algorithm>
#include <initializer_list>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/builder/xla_builder.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace {

std::string OpName(HloOpcode opcode) { return std::string(HloOpcodeString(opcode)); }

// Result dimensions of a binary op with XLA's builder rules: equal ranks broadcast
// size-1 dimensions; a scalar broadcasts to anything; otherwise the lower-rank operand's
// dimension i maps to broadcast_dimensions[i] (strictly increasing) of the higher-rank one.
absl::StatusOr<std::vector<int64_t>> BinaryResultDims(HloOpcode opcode, const Shape& lhs,
                                                      const Shape& rhs,
                                                      absl::Span<const int64_t> bdims) {
  auto incompatible = [&]() {
    return absl::InvalidArgumentError(absl::StrCat("binary op ", OpName(opcode),
                                                   " with incompatible shapes: ", lhs.ToString(),
                                                   " and ", rhs.ToString()));
  };
  if (lhs.rank() == rhs.rank()) {
    for (size_t i = 0; i < bdims.size(); ++i) {
      if (bdims.size() != static_cast<size_t>(lhs.rank()) || bdims[i] != static_cast<int64_t>(i)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "binary op ", OpName(opcode), ": broadcast dimensions field must either be not set ",
            "or be the identity on binary operations with operands of the same rank; got {",
            absl::StrJoin(bdims, ","), "}"));
      }
    }
    std::vector<int64_t> dims;
    for (int i = 0; i < lhs.rank(); ++i) {
      int64_t a = lhs.dimensions(i), b = rhs.dimensions(i);
      if (a != b && a != 1 && b != 1) return incompatible();
      dims.push_back(a == 1 ? b : a);
    }
    return dims;
  }
  const Shape& larger = lhs.rank() > rhs.rank() ? lhs : rhs;
  const Shape& smaller = lhs.rank() > rhs.rank() ? rhs : lhs;
  if (bdims.empty() && !ShapeUtil::IsScalar(smaller)) {
    return absl::InvalidArgumentError(absl::StrCat("binary op ", OpName(opcode),
                                                   ": shapes must be equal rank, but are ",
                                                   lhs.ToString(), " and ", rhs.ToString()));
  }
  if (!bdims.empty() && static_cast<int64_t>(bdims.size()) != smaller.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "binary op ", OpName(opcode),
        ": size of broadcast_dimensions has to match lower-rank operand's rank; lower-rank "
        "operand's rank is ",
        smaller.rank(), ", size of broadcast_dimensions is ", bdims.size()));
  }
  std::vector<int64_t> dims = larger.dimensions();
  for (size_t i = 0; i < bdims.size(); ++i) {
    int64_t to = bdims[i];
    if (to < 0 || to >= larger.rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "binary op ", OpName(opcode), ": broadcast dimension number (", to,
          ") out of range for higher-rank operand of rank ", larger.rank()));
    }
    if (i > 0 && bdims[i - 1] >= to) {
      return absl::InvalidArgumentError(absl::StrCat("binary op ", OpName(opcode),
                                                     ": broadcast dimensions order is wrong: ", to,
                                                     " comes after ", bdims[i - 1]));
    }
    int64_t small = smaller.dimensions(static_cast<int>(i)), large = larger.dimensions(to);
    if (small != large && small != 1 && large != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "binary op ", OpName(opcode), ": broadcast dimension ", i, " mismatch: ", small,
          " != ", large, "; ", lhs.ToString(), " and ", rhs.ToString()));
    }
    dims[to] = large == 1 ? small : large;
  }
  return dims;
}

XlaOp BinaryOp(HloOpcode opcode, XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> bdims,
               std::optional<ComparisonDirection> direction = std::nullopt,
               std::optional<ComparisonType> type = std::nullopt) {
  XlaBuilder* b = lhs.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape lhs_shape, b->GetShape(lhs));
    ASSIGN_OR_RETURN(const Shape rhs_shape, b->GetShape(rhs));
    if (!lhs_shape.IsArray() || !rhs_shape.IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat("binary op ", OpName(opcode),
                                                     ": operands must be arrays, got ",
                                                     lhs_shape.ToString(), " and ",
                                                     rhs_shape.ToString()));
    }
    ASSIGN_OR_RETURN(std::vector<int64_t> dims, BinaryResultDims(opcode, lhs_shape, rhs_shape, bdims));
    XlaOp new_lhs = lhs, new_rhs = rhs;
    if (!bdims.empty() && lhs_shape.rank() != rhs_shape.rank()) {
      const bool broadcast_lhs = lhs_shape.rank() < rhs_shape.rank();
      const Shape& from_shape = broadcast_lhs ? lhs_shape : rhs_shape;
      std::vector<int64_t> to_size = dims;
      for (int64_t i = 0; i < from_shape.rank(); ++i) {
        to_size[bdims[i]] = from_shape.dimensions(static_cast<int>(i));
      }
      ASSIGN_OR_RETURN(XlaOp broadcast,
                       b->InDimBroadcast(ShapeUtil::MakeShape(from_shape.element_type(), to_size),
                                         broadcast_lhs ? lhs : rhs, bdims));
      (broadcast_lhs ? new_lhs : new_rhs) = broadcast;
    }
    for (XlaOp* op : {&new_lhs, &new_rhs}) {
      ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(*op));
      if (shape->dimensions() != dims) {
        ASSIGN_OR_RETURN(*op, b->AddBroadcastSequence(
                                  ShapeUtil::MakeShape(shape->element_type(), dims), *op));
      }
    }
    HloInstructionProto instr;
    if (opcode == HloOpcode::kCompare) {
      instr.set_comparison_direction(ComparisonDirectionToString(*direction));
      if (type.has_value() && *type != DefaultComparisonType(lhs_shape.element_type())) {
        instr.set_comparison_type(ComparisonTypeToString(*type));
      }
    }
    return b->AddInferredInstruction(std::move(instr), opcode, {new_lhs, new_rhs});
  });
}

XlaOp UnaryOp(HloOpcode opcode, XlaOp operand) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    return b->AddInferredInstruction(HloInstructionProto(), opcode, {operand});
  });
}

XlaOp TernaryOp(HloOpcode opcode, XlaOp a, XlaOp b_op, XlaOp c) {
  XlaBuilder* b = a.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    std::vector<XlaOp> ops = {a, b_op, c};
    std::optional<Shape> non_scalar;
    for (XlaOp op : ops) {
      ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(op));
      if (shape->IsArray() && shape->rank() != 0) {
        if (non_scalar.has_value() && non_scalar->dimensions() != shape->dimensions()) {
          return absl::InvalidArgumentError(absl::StrCat(
              OpName(opcode), ": non-scalar operands must have the same dimensions, got ",
              non_scalar->ToString(), " and ", shape->ToString()));
        }
        if (!non_scalar.has_value()) non_scalar = *shape;
      }
    }
    if (non_scalar.has_value()) {
      for (XlaOp& op : ops) {
        ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(op));
        if (ShapeUtil::IsScalar(*shape)) {
          ASSIGN_OR_RETURN(op, b->AddBroadcastSequence(*non_scalar, op));
        }
      }
    }
    return b->AddInferredInstruction(HloInstructionProto(), opcode, ops);
  });
}

XlaOp CompareWith(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> bdims,
                  ComparisonDirection direction, bool total_order) {
  XlaBuilder* b = lhs.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(lhs));
    ComparisonType type = DefaultComparisonType(shape->element_type());
    if (total_order) {
      if (!primitive_util::IsFloatingPointType(shape->element_type()) &&
          !primitive_util::IsComplexType(shape->element_type())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "total order comparison requires floating point operands, got ", shape->ToString()));
      }
      type = ComparisonType::kFloatTotalOrder;
    }
    return BinaryOp(HloOpcode::kCompare, lhs, rhs, bdims, direction, type);
  });
}

}  // namespace

// --- unary ---
XlaOp Abs(XlaOp x) { return UnaryOp(HloOpcode::kAbs, x); }
XlaOp Neg(XlaOp x) { return UnaryOp(HloOpcode::kNegate, x); }
XlaOp Exp(XlaOp x) { return UnaryOp(HloOpcode::kExponential, x); }
XlaOp Expm1(XlaOp x) { return UnaryOp(HloOpcode::kExponentialMinusOne, x); }
XlaOp Log(XlaOp x) { return UnaryOp(HloOpcode::kLog, x); }
XlaOp Log1p(XlaOp x) { return UnaryOp(HloOpcode::kLogPlusOne, x); }
XlaOp Logistic(XlaOp x) { return UnaryOp(HloOpcode::kLogistic, x); }
XlaOp Sign(XlaOp x) { return UnaryOp(HloOpcode::kSign, x); }
XlaOp Floor(XlaOp x) { return UnaryOp(HloOpcode::kFloor, x); }
XlaOp Ceil(XlaOp x) { return UnaryOp(HloOpcode::kCeil, x); }
XlaOp Round(XlaOp x) { return UnaryOp(HloOpcode::kRoundNearestAfz, x); }
XlaOp RoundNearestEven(XlaOp x) { return UnaryOp(HloOpcode::kRoundNearestEven, x); }
XlaOp Sqrt(XlaOp x) { return UnaryOp(HloOpcode::kSqrt, x); }
XlaOp Rsqrt(XlaOp x) { return UnaryOp(HloOpcode::kRsqrt, x); }
XlaOp Cbrt(XlaOp x) { return UnaryOp(HloOpcode::kCbrt, x); }
XlaOp Sin(XlaOp x) { return UnaryOp(HloOpcode::kSine, x); }
XlaOp Cos(XlaOp x) { return UnaryOp(HloOpcode::kCosine, x); }
XlaOp Tan(XlaOp x) { return UnaryOp(HloOpcode::kTan, x); }
XlaOp Tanh(XlaOp x) { return UnaryOp(HloOpcode::kTanh, x); }
XlaOp Acos(XlaOp x) { return UnaryOp(HloOpcode::kAcos, x); }
XlaOp Acosh(XlaOp x) { return UnaryOp(HloOpcode::kAcosh, x); }
XlaOp Asin(XlaOp x) { return UnaryOp(HloOpcode::kAsin, x); }
XlaOp Asinh(XlaOp x) { return UnaryOp(HloOpcode::kAsinh, x); }
XlaOp Atanh(XlaOp x) { return UnaryOp(HloOpcode::kAtanh, x); }
XlaOp Cosh(XlaOp x) { return UnaryOp(HloOpcode::kCosh, x); }
XlaOp Sinh(XlaOp x) { return UnaryOp(HloOpcode::kSinh, x); }
XlaOp Erf(XlaOp x) { return UnaryOp(HloOpcode::kErf, x); }

XlaOp ErfInv(XlaOp x) {
  XlaBuilder* b = x.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape shape, b->GetShape(x));
    const PrimitiveType type = shape.IsArray() ? shape.element_type() : PRIMITIVE_TYPE_INVALID;
    if (type != F16 && type != BF16 && type != F32 && type != F64) {
      return absl::InvalidArgumentError("ErfInv needs an f16, bf16, f32 or f64 operand, got " + shape.ToString());
    }
    const PrimitiveType compute = type == F64 ? F64 : F32;
    XlaOp y = compute == type ? x : ConvertElementType(x, F32);
    auto c = [&](double v) { return compute == F64 ? ConstantR0<double>(b, v) : ConstantR0<float>(b, static_cast<float>(v)); };
    auto horner = [&](std::initializer_list<double> coefficients, XlaOp v) {
      XlaOp p;
      for (double k : coefficients) p = p.valid() ? Add(c(k), Mul(p, v)) : c(k);
      return p;
    };
    // Giles's single-precision polynomials in w = -log(1 - y^2): one for w < 5, one in
    // sqrt(w) for the tails.
    XlaOp w = Neg(Log(Mul(Sub(c(1), y), Add(c(1), y))));
    XlaOp central = horner({2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                            -0.00125372503, -0.00417768164, 0.246640727, 1.50140941},
                           Sub(w, c(2.5)));
    XlaOp tail = horner({-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                         -0.0076224613, 0.00943887047, 1.00167406, 2.83297682},
                        Sub(Sqrt(w), c(3)));
    XlaOp out = Mul(Select(Lt(w, c(5)), central, tail), y);
    if (compute == F64) {
      // f32 accuracy, to double's: Newton steps x -= (erf(x) - y) / erf'(x). Close to +-1 the
      // result is as ill-conditioned as erf is flat (erf rounds to +-1 there), so the steps
      // bring it within erf's conditioning from up to 1e-10 away from +-1, a few per cent at
      // the last doubles below 1.
      for (int step = 0; step < 3; ++step) {
        XlaOp slope = Mul(c(1.1283791670955126), Exp(Neg(Mul(out, out))));  // 2/sqrt(pi) e^(-x^2)
        out = Sub(out, Div(Sub(Erf(out), y), slope));
      }
    }
    out = Select(Eq(Abs(y), c(1)), Mul(y, c(std::numeric_limits<double>::infinity())), out);
    return compute == type ? out : ConvertElementType(out, type);
  });
}

XlaOp IsFinite(XlaOp x) { return UnaryOp(HloOpcode::kIsFinite, x); }
XlaOp Not(XlaOp x) { return UnaryOp(HloOpcode::kNot, x); }
XlaOp PopulationCount(XlaOp x) { return UnaryOp(HloOpcode::kPopcnt, x); }
XlaOp Clz(XlaOp x) { return UnaryOp(HloOpcode::kCountLeadingZeros, x); }
XlaOp Real(XlaOp x) { return UnaryOp(HloOpcode::kReal, x); }
XlaOp Imag(XlaOp x) { return UnaryOp(HloOpcode::kImag, x); }
XlaOp Copy(XlaOp x) { return UnaryOp(HloOpcode::kCopy, x); }
XlaOp Conj(XlaOp x) { return Complex(Real(x), Neg(Imag(x))); }
XlaOp Square(XlaOp x) { return Mul(x, x); }

// --- binary ---
XlaOp Add(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return BinaryOp(HloOpcode::kAdd, l, r, d); }
XlaOp Sub(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return BinaryOp(HloOpcode::kSubtract, l, r, d); }
XlaOp Mul(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return BinaryOp(HloOpcode::kMultiply, l, r, d); }
XlaOp Div(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return BinaryOp(HloOpcode::kDivide, l, r, d); }
XlaOp Rem(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return BinaryOp(HloOpcode::kRemainder, l, r, d); }
XlaOp Max(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return BinaryOp(HloOpcode::kMaximum, l, r, d); }
XlaOp Min(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return BinaryOp(HloOpcode::kMinimum, l, r, d); }
XlaOp Pow(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return BinaryOp(HloOpcode::kPower, l, r, d); }
XlaOp And(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return BinaryOp(HloOpcode::kAnd, l, r, d); }
XlaOp Or(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return BinaryOp(HloOpcode::kOr, l, r, d); }
XlaOp Xor(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return BinaryOp(HloOpcode::kXor, l, r, d); }
XlaOp ShiftLeft(XlaOp l, XlaOp r, absl::Span<const int64_t> d) {
  return BinaryOp(HloOpcode::kShiftLeft, l, r, d);
}
XlaOp ShiftRightArithmetic(XlaOp l, XlaOp r, absl::Span<const int64_t> d) {
  return BinaryOp(HloOpcode::kShiftRightArithmetic, l, r, d);
}
XlaOp ShiftRightLogical(XlaOp l, XlaOp r, absl::Span<const int64_t> d) {
  return BinaryOp(HloOpcode::kShiftRightLogical, l, r, d);
}
XlaOp Complex(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return BinaryOp(HloOpcode::kComplex, l, r, d); }
XlaOp Atan2(XlaOp y, XlaOp x, absl::Span<const int64_t> d) { return BinaryOp(HloOpcode::kAtan2, y, x, d); }

// --- comparisons ---
XlaOp Eq(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return CompareWith(l, r, d, ComparisonDirection::kEq, false); }
XlaOp Ne(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return CompareWith(l, r, d, ComparisonDirection::kNe, false); }
XlaOp Ge(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return CompareWith(l, r, d, ComparisonDirection::kGe, false); }
XlaOp Gt(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return CompareWith(l, r, d, ComparisonDirection::kGt, false); }
XlaOp Le(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return CompareWith(l, r, d, ComparisonDirection::kLe, false); }
XlaOp Lt(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return CompareWith(l, r, d, ComparisonDirection::kLt, false); }
XlaOp EqTotalOrder(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return CompareWith(l, r, d, ComparisonDirection::kEq, true); }
XlaOp NeTotalOrder(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return CompareWith(l, r, d, ComparisonDirection::kNe, true); }
XlaOp GeTotalOrder(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return CompareWith(l, r, d, ComparisonDirection::kGe, true); }
XlaOp GtTotalOrder(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return CompareWith(l, r, d, ComparisonDirection::kGt, true); }
XlaOp LeTotalOrder(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return CompareWith(l, r, d, ComparisonDirection::kLe, true); }
XlaOp LtTotalOrder(XlaOp l, XlaOp r, absl::Span<const int64_t> d) { return CompareWith(l, r, d, ComparisonDirection::kLt, true); }

XlaOp Compare(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions,
              ComparisonDirection direction, ComparisonType type) {
  return BinaryOp(HloOpcode::kCompare, lhs, rhs, broadcast_dimensions, direction, type);
}
XlaOp Compare(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions,
              ComparisonDirection direction) {
  return CompareWith(lhs, rhs, broadcast_dimensions, direction, false);
}
XlaOp Compare(XlaOp lhs, XlaOp rhs, ComparisonDirection direction) {
  return CompareWith(lhs, rhs, {}, direction, false);
}

// --- ternary ---
XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false) {
  return TernaryOp(HloOpcode::kSelect, pred, on_true, on_false);
}
XlaOp Clamp(XlaOp min, XlaOp operand, XlaOp max) {
  return TernaryOp(HloOpcode::kClamp, min, operand, max);
}

// --- conversions ---
XlaOp StochasticConvertType(XlaOp operand, XlaOp random, PrimitiveType new_element_type) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(operand));
    if (!shape->IsArray() || !primitive_util::IsArrayType(new_element_type)) {
      return absl::InvalidArgumentError(
          absl::StrCat("stochastic-convert: cannot convert ", shape->ToString(), " to element type ",
                       std::string(primitive_util::LowercasePrimitiveTypeName(new_element_type))));
    }
    ASSIGN_OR_RETURN(const Shape* bits, b->GetShapePtr(random));
    if (!primitive_util::IsFloatingPointType(shape->element_type())) {
      return absl::InvalidArgumentError("stochastic-convert: only floating-point operands, got " + shape->ToString());
    }
    if (!bits->IsArray() || !primitive_util::IsUnsignedIntegralType(bits->element_type())) {
      return absl::InvalidArgumentError("stochastic-convert: random bits must be unsigned integers, got " +
                                        bits->ToString());
    }
    if (primitive_util::BitWidth(bits->element_type()) != primitive_util::BitWidth(shape->element_type()) ||
        !ShapeUtil::SameDimensions(*bits, *shape)) {
      return absl::InvalidArgumentError(absl::StrCat("stochastic-convert: random bits must have the operand's bit "
                                                     "width and dimensions, got ",
                                                     bits->ToString(), " for ", shape->ToString()));
    }
    Shape declared = *shape;
    declared.set_element_type(new_element_type);
    return b->AddOpWithShape(HloOpcode::kStochasticConvert, declared, {operand, random});
  });
}

XlaOp ConvertElementType(XlaOp operand, PrimitiveType new_element_type) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(operand));
    if (!shape->IsArray() || !primitive_util::IsArrayType(new_element_type)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "convert: cannot convert ", shape->ToString(), " to element type ",
          std::string(primitive_util::LowercasePrimitiveTypeName(new_element_type))));
    }
    XlaOp input = operand;
    if (primitive_util::IsComplexType(shape->element_type()) &&
        !primitive_util::IsComplexType(new_element_type)) {
      input = Real(operand);  // XLA drops the imaginary part explicitly
    }
    ASSIGN_OR_RETURN(const Shape* input_shape, b->GetShapePtr(input));
    return b->AddOpWithShape(HloOpcode::kConvert,
                             ShapeUtil::ChangeElementType(*input_shape, new_element_type), {input});
  });
}

XlaOp BitcastConvertType(XlaOp operand, PrimitiveType new_element_type) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape shape, b->GetShape(operand));
    auto error = [&](const std::string& why) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bitcast-convert: cannot convert ", shape.ToString(), " to ",
          std::string(primitive_util::LowercasePrimitiveTypeName(new_element_type)), ": ", why));
    };
    if (!shape.IsArray() || !primitive_util::IsArrayType(new_element_type)) return error("not an array type");
    const int old_bits = primitive_util::BitWidth(shape.element_type());
    const int new_bits = primitive_util::BitWidth(new_element_type);
    if (primitive_util::IsComplexType(shape.element_type()) !=
        primitive_util::IsComplexType(new_element_type)) {
      return error("conversion between complex and real types");
    }
    if (shape.element_type() == PRED || new_element_type == PRED) {
      if (shape.element_type() != new_element_type) return error("pred cannot be bitcast");
    }
    std::vector<int64_t> dims = shape.dimensions();
    if (new_bits < old_bits) {
      if (old_bits % new_bits != 0) return error("bit widths do not divide");
      dims.push_back(old_bits / new_bits);
    } else if (new_bits > old_bits) {
      if (new_bits % old_bits != 0) return error("bit widths do not divide");
      if (dims.empty() || dims.back() != new_bits / old_bits) {
        return error(absl::StrCat("the minor dimension must be ", new_bits / old_bits));
      }
      dims.pop_back();
    }
    return b->AddOpWithShape(HloOpcode::kBitcastConvert,
                             ShapeUtil::MakeShape(new_element_type, dims), {operand});
  });
}

XlaOp ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    instr.set_exponent_bits(exponent_bits);
    instr.set_mantissa_bits(mantissa_bits);
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kReducePrecision, {operand});
  });
}

XlaOp Map(XlaBuilder* builder, absl::Span<const XlaOp> operands, const XlaComputation& computation,
          absl::Span<const int64_t> dimensions, absl::Span<const XlaOp> static_operands) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (!static_operands.empty()) {
      return absl::UnimplementedError("map: static_operands are not supported");
    }
    if (operands.empty()) return absl::InvalidArgumentError("map: needs at least one operand");
    // The highest-rank operand fixes the dimensions; others are broadcast to it.
    Shape output;
    for (XlaOp op : operands) {
      ASSIGN_OR_RETURN(const Shape* shape, builder->GetShapePtr(op));
      if (!shape->IsArray()) {
        return absl::InvalidArgumentError(absl::StrCat("map: operand ", shape->ToString(), " is not an array"));
      }
      if (output.element_type() == PRIMITIVE_TYPE_INVALID || shape->rank() > output.rank()) output = *shape;
    }
    if (static_cast<int64_t>(dimensions.size()) != output.rank()) {
      return absl::InvalidArgumentError(absl::StrCat("map: ", dimensions.size(),
                                                     " dimensions given for operands of rank ",
                                                     output.rank()));
    }
    for (size_t i = 0; i < dimensions.size(); ++i) {
      if (dimensions[i] != static_cast<int64_t>(i)) {
        return absl::InvalidArgumentError("map: dimensions must be {0, 1, ..., rank-1}");
      }
    }
    std::vector<XlaOp> new_operands(operands.begin(), operands.end());
    for (XlaOp& op : new_operands) {
      ASSIGN_OR_RETURN(const Shape* shape, builder->GetShapePtr(op));
      if (shape->dimensions() != output.dimensions()) {
        ASSIGN_OR_RETURN(op, builder->AddBroadcastSequence(output, op));
      }
    }
    HloInstructionProto instr;
    for (int64_t i = 0; i < output.rank(); ++i) instr.add_dimensions(i);
    RETURN_IF_ERROR(builder->AddCalledComputation(computation, &instr));
    return builder->AddInferredInstruction(std::move(instr), HloOpcode::kMap, new_operands);
  });
}

// --- operators ---
XlaOp operator-(XlaOp x) { return Neg(x); }
XlaOp operator+(XlaOp x, XlaOp y) { return Add(x, y); }
XlaOp operator-(XlaOp x, XlaOp y) { return Sub(x, y); }
XlaOp operator*(XlaOp x, XlaOp y) { return Mul(x, y); }
XlaOp operator/(XlaOp x, XlaOp y) { return Div(x, y); }
XlaOp operator%(XlaOp x, XlaOp y) { return Rem(x, y); }
XlaOp operator~(XlaOp x) { return Not(x); }
XlaOp operator&(XlaOp x, XlaOp y) { return And(x, y); }
XlaOp operator|(XlaOp x, XlaOp y) { return Or(x, y); }
XlaOp operator^(XlaOp x, XlaOp y) { return Xor(x, y); }
XlaOp operator<<(XlaOp x, XlaOp y) { return ShiftLeft(x, y); }
XlaOp operator>>(XlaOp x, XlaOp y) {
  XlaBuilder* b = x.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(x));
    if (!primitive_util::IsIntegralType(shape->element_type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument to >> operator does not have an integral type (", shape->ToString(), ")"));
    }
    return primitive_util::IsSignedIntegralType(shape->element_type()) ? ShiftRightArithmetic(x, y)
                                                                        : ShiftRightLogical(x, y);
  });
}

}  // namespace xla
