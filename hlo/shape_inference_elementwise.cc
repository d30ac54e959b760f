// Shape inference for elementwise unary, binary and ternary ops, convert-like ops and
// reduce-precision. HLO has no implicit broadcasting: operands of elementwise ops must
// have the result's dimensions (XLA's verifier rejects anything else), and binary ops
// take operands of one element type.

#include "hlo/primitive_util.h"
#include "hlo/shape_inference_internal.h"
#include "hlo/status_macros.h"

namespace xla {
namespace shape_inference_internal {
namespace {

// Result dims of operands that must have equal dims: any dynamic flag wins.
Shape MergeDynamic(const Shape& base, const Shape& other) {
  Shape result = base;
  result.clear_layout();
  for (int64_t i = 0; i < other.rank() && i < base.rank(); ++i) {
    if (other.is_dynamic_dimension(i)) result.set_dynamic_dimension(i, true);
  }
  return result;
}

absl::StatusOr<Shape> InferUnary(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  const Shape& shape = ctx.operand(0);
  if (ctx.opcode == HloOpcode::kCopy) {
    Shape result = shape;
    result.clear_layout();
    return result;
  }
  RETURN_IF_ERROR(ExpectArray(ctx, shape, "the operand"));
  const PrimitiveType t = shape.element_type();
  auto bad_type = [&](absl::string_view expected) {
    return Error(ctx, "expected ", expected, " element type, got ", TypeStr(t));
  };
  Shape result = shape;
  result.clear_layout();
  switch (ctx.opcode) {
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kErf:
      if (!IsFloating(t)) return bad_type("a floating-point");
      return result;
    case HloOpcode::kCosine:
    case HloOpcode::kSine:
    case HloOpcode::kTan:
    case HloOpcode::kExponential:
    case HloOpcode::kExponentialMinusOne:
    case HloOpcode::kLog:
    case HloOpcode::kLogPlusOne:
    case HloOpcode::kLogistic:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSqrt:
    case HloOpcode::kCbrt:
    case HloOpcode::kTanh:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtanh:
    case HloOpcode::kCosh:
    case HloOpcode::kSinh:
      if (!IsFloating(t) && !IsComplex(t)) return bad_type("a floating-point or complex");
      return result;
    case HloOpcode::kReal:
    case HloOpcode::kImag:
      if (IsComplex(t)) return ChangeType(shape, primitive_util::ComplexComponentType(t));
      if (IsFloating(t)) return result;
      return bad_type("a floating-point or complex");
    case HloOpcode::kAbs:
      if (IsComplex(t)) return ChangeType(shape, primitive_util::ComplexComponentType(t));
      if (IsSigned(t)) return result;
      return bad_type("a signed, floating-point or complex");
    case HloOpcode::kCountLeadingZeros:
    case HloOpcode::kPopcnt:
      if (!IsIntegral(t)) return bad_type("an integral");
      return result;
    case HloOpcode::kNegate:
      if (!IsIntegral(t) && !IsFloating(t) && !IsComplex(t)) {
        return bad_type("an integral, floating-point or complex");
      }
      return result;
    case HloOpcode::kSign:
      if (!IsSigned(t)) return bad_type("a signed, floating-point or complex");
      return result;
    case HloOpcode::kNot:
      if (t != PRED && !IsIntegral(t)) return bad_type("a pred or integral");
      return result;
    case HloOpcode::kIsFinite:
      if (!IsFloating(t)) return bad_type("a floating-point");
      return ChangeType(shape, PRED);
    case HloOpcode::kReducePrecision:
      if (!IsFloating(t)) return bad_type("a floating-point");
      if (ctx.attrs.exponent_bits() < 1) {
        return Error(ctx, "exponent_bits must be >= 1, got ", ctx.attrs.exponent_bits());
      }
      if (ctx.attrs.mantissa_bits() < 0) {
        return Error(ctx, "mantissa_bits must be >= 0, got ", ctx.attrs.mantissa_bits());
      }
      return result;
    case HloOpcode::kConvert: {
      ASSIGN_OR_RETURN(const Shape* declared, RequireDeclared(ctx));
      if (!declared->IsArray() || !SameDims(*declared, shape)) {
        return Error(ctx, "converts ", ShapeStr(shape), " and must keep its dimensions, but the "
                     "result shape is ", ShapeStr(*declared));
      }
      return ChangeType(shape, declared->element_type());
    }
    case HloOpcode::kBitcastConvert: {
      ASSIGN_OR_RETURN(const Shape* declared, RequireDeclared(ctx));
      if (!declared->IsArray()) {
        return Error(ctx, "the result must be an array, got ", ShapeStr(*declared));
      }
      const PrimitiveType to = declared->element_type();
      if (IsComplex(t) != IsComplex(to)) {
        return Error(ctx, "cannot bitcast between complex and real types: ", TypeStr(t), " => ",
                     TypeStr(to));
      }
      int in_bits = primitive_util::BitWidth(t), out_bits = primitive_util::BitWidth(to);
      if (in_bits <= 0 || out_bits <= 0 ||
          std::max(in_bits, out_bits) % std::min(in_bits, out_bits) != 0) {
        return Error(ctx, "cannot bitcast types with indivisible bit widths: ", TypeStr(t),
                     " => ", TypeStr(to));
      }
      Shape out = ChangeType(shape, to);
      int ratio = std::max(in_bits, out_bits) / std::min(in_bits, out_bits);
      if (in_bits > out_bits) {
        out.add_dimensions(ratio);
      } else if (in_bits < out_bits) {
        if (shape.rank() < 1 || shape.dimensions(shape.rank() - 1) != ratio) {
          return Error(ctx, "bitcast from ", ShapeStr(shape), " to ", TypeStr(to),
                       " needs a last dimension equal to the bit-width ratio ", ratio);
        }
        std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end() - 1);
        std::vector<bool> dyn(shape.dynamic_dimensions().begin(),
                              shape.dynamic_dimensions().begin() + dims.size());
        out = MakeArray(to, dims, dyn);
      }
      return out;
    }
    default:
      return Error(ctx, "not an elementwise unary op");
  }
}

bool ValidDirection(const std::string& d) {
  return d == "EQ" || d == "NE" || d == "GE" || d == "GT" || d == "LE" || d == "LT";
}

bool ValidComparisonType(const std::string& t) {
  return t.empty() || t == "FLOAT" || t == "TOTALORDER" || t == "SIGNED" || t == "UNSIGNED" ||
         t == "PARTIALORDER";
}

absl::StatusOr<Shape> InferBinary(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 2));
  const Shape& lhs = ctx.operand(0);
  const Shape& rhs = ctx.operand(1);
  RETURN_IF_ERROR(ExpectArray(ctx, lhs, "the lhs"));
  RETURN_IF_ERROR(ExpectArray(ctx, rhs, "the rhs"));
  if (lhs.element_type() != rhs.element_type()) {
    return Error(ctx, "operands must have the same element type, got ", ShapeStr(lhs), " and ",
                 ShapeStr(rhs));
  }
  if (!SameDims(lhs, rhs)) {
    return Error(ctx, "operands must have the same dimensions (HLO has no implicit "
                 "broadcast), got ", ShapeStr(lhs), " and ", ShapeStr(rhs));
  }
  const PrimitiveType t = lhs.element_type();
  Shape result = MergeDynamic(lhs, rhs);
  switch (ctx.opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMultiply:
      return result;
    case HloOpcode::kSubtract:
    case HloOpcode::kAtan2:
    case HloOpcode::kPower:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
      if (t == PRED) return Error(ctx, "expected an arithmetic element type, got pred");
      return result;
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      if (t != PRED && !IsIntegral(t)) {
        return Error(ctx, "expected a pred or integral element type, got ", TypeStr(t));
      }
      return result;
    case HloOpcode::kComplex:
      if (t == F32) return ChangeType(result, C64);
      if (t == F64) return ChangeType(result, C128);
      return Error(ctx, "expected f32 or f64 operands, got ", TypeStr(t));
    case HloOpcode::kCompare:
      if (!ValidDirection(ctx.attrs.comparison_direction())) {
        return Error(ctx, "invalid comparison direction '", ctx.attrs.comparison_direction(),
                     "'");
      }
      if (!ValidComparisonType(ctx.attrs.comparison_type())) {
        return Error(ctx, "invalid comparison type '", ctx.attrs.comparison_type(), "'");
      }
      return ChangeType(result, PRED);
    default:
      return Error(ctx, "not an elementwise binary op");
  }
}

absl::StatusOr<Shape> InferTernary(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 3));
  for (int i = 0; i < 3; ++i) {
    RETURN_IF_ERROR(ExpectArray(ctx, ctx.operand(i), absl::StrCat("operand ", i)));
  }
  if (ctx.opcode == HloOpcode::kSelect) {
    const Shape& pred = ctx.operand(0);
    const Shape& on_true = ctx.operand(1);
    const Shape& on_false = ctx.operand(2);
    if (!ShapesCompatible(on_true, on_false)) {
      return Error(ctx, "on_true and on_false must have the same shape, got ", ShapeStr(on_true),
                   " and ", ShapeStr(on_false));
    }
    if (pred.element_type() != PRED) {
      return Error(ctx, "the predicate must have element type pred, got ", ShapeStr(pred));
    }
    if (!SameDims(pred, on_true)) {
      return Error(ctx, "the predicate ", ShapeStr(pred), " must have the dimensions of ",
                   ShapeStr(on_true));
    }
    return MergeDynamic(MergeDynamic(on_true, on_false), pred);
  }
  // clamp(min, operand, max): min and max are scalars or have the operand's shape.
  const Shape& min = ctx.operand(0);
  const Shape& operand = ctx.operand(1);
  const Shape& max = ctx.operand(2);
  for (const Shape* bound : {&min, &max}) {
    if (bound->element_type() != operand.element_type()) {
      return Error(ctx, "clamp bounds must have the operand's element type, got ",
                   ShapeStr(min), ", ", ShapeStr(operand), ", ", ShapeStr(max));
    }
    if (bound->rank() != 0 && !SameDims(*bound, operand)) {
      return Error(ctx, "clamp bounds must be scalars or have the operand's shape, got ",
                   ShapeStr(min), ", ", ShapeStr(operand), ", ", ShapeStr(max));
    }
  }
  if (operand.element_type() == PRED || IsComplex(operand.element_type())) {
    return Error(ctx, "clamp needs an ordered element type, got ", TypeStr(operand.element_type()));
  }
  Shape result = operand;
  result.clear_layout();
  return result;
}

absl::StatusOr<Shape> InferStochasticConvert(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 2));
  const Shape& operand = ctx.operand(0);
  const Shape& random = ctx.operand(1);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  RETURN_IF_ERROR(ExpectArray(ctx, random, "the random bits"));
  if (!primitive_util::IsUnsignedIntegralType(random.element_type())) {
    return Error(ctx, "random bits must be unsigned integers, got ", ShapeStr(random));
  }
  if (!IsFloating(operand.element_type())) {
    return Error(ctx, "only floating-point operands can be converted, got ", ShapeStr(operand));
  }
  if (primitive_util::BitWidth(operand.element_type()) !=
      primitive_util::BitWidth(random.element_type())) {
    return Error(ctx, "random bits must have the operand's bit width, got ", ShapeStr(random),
                 " for ", ShapeStr(operand));
  }
  if (!SameDims(operand, random)) {
    return Error(ctx, "operand ", ShapeStr(operand), " and random bits ", ShapeStr(random),
                 " must have the same dimensions");
  }
  ASSIGN_OR_RETURN(const Shape* declared, RequireDeclared(ctx));
  if (!declared->IsArray() || !SameDims(*declared, operand)) {
    return Error(ctx, "the result ", ShapeStr(*declared), " must keep the operand dimensions of ",
                 ShapeStr(operand));
  }
  return ChangeType(operand, declared->element_type());
}

}  // namespace

absl::StatusOr<Shape> InferElementwise(const OpContext& ctx) {
  if (ctx.opcode == HloOpcode::kStochasticConvert) return InferStochasticConvert(ctx);
  switch (HloOpcodeCategoryOf(ctx.opcode)) {
    case HloOpcodeCategory::kElementwiseUnary:
      return InferUnary(ctx);
    case HloOpcodeCategory::kElementwiseBinary:
      return InferBinary(ctx);
    case HloOpcodeCategory::kElementwiseTernary:
      return InferTernary(ctx);
    default:
      return Error(ctx, "not an elementwise op");
  }
}

}  // namespace shape_inference_internal
}  // namespace xla
