// Type-changing elementwise ops: convert, bitcast-convert (same width, and size-changing
// with a new or removed minor dimension, little-endian as XLA defines it),
// reduce-precision (XLA's bit algorithm), stochastic-convert, and map.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backends/interpreter/ops_elementwise_internal.h"
#include "hlo/float_types.h"
#include "hlo/hlo_computation.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace elementwise {
namespace {

uint64_t Mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

absl::Status CheckSameDims(const Shape& a, const Shape& b) {
  if (!ShapeUtil::SameDimensions(a, b)) {
    return absl::InvalidArgumentError(absl::StrCat("dimensions differ: ", a.ToString(), " vs ", b.ToString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> Convert(EvalContext&, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, 1));
  RETURN_IF_ERROR(CheckSameDims(operands[0]->shape(), instruction.shape()));
  return operands[0]->Convert(instruction.shape().element_type());
}

// Width used for bit reinterpretation: PRED occupies a byte.
int BitcastWidth(PrimitiveType type) { return type == PRED ? 8 : primitive_util::BitWidth(type); }

absl::StatusOr<Literal> BitcastConvert(EvalContext&, const HloInstruction& instruction,
                                       Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, 1));
  const Shape& in_shape = operands[0]->shape();
  const Shape& out_shape = instruction.shape();
  const PrimitiveType in_type = in_shape.element_type();
  const PrimitiveType out_type = out_shape.element_type();
  const int in_bits = BitcastWidth(in_type);
  const int out_bits = BitcastWidth(out_type);
  // The shapes must relate as XLA's shape inference says.
  bool ok;
  if (in_bits == out_bits) {
    ok = ShapeUtil::SameDimensions(in_shape, out_shape);
  } else if (in_bits > out_bits) {
    ok = out_shape.rank() == in_shape.rank() + 1 && in_bits % out_bits == 0 &&
         out_shape.dimensions(out_shape.rank() - 1) == in_bits / out_bits;
    for (int64_t d = 0; ok && d < in_shape.rank(); ++d) ok = in_shape.dimensions(d) == out_shape.dimensions(d);
  } else {
    ok = in_shape.rank() == out_shape.rank() + 1 && out_bits % in_bits == 0 &&
         in_shape.dimensions(in_shape.rank() - 1) == out_bits / in_bits;
    for (int64_t d = 0; ok && d < out_shape.rank(); ++d) ok = in_shape.dimensions(d) == out_shape.dimensions(d);
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat("cannot bitcast-convert ", in_shape.ToString(), " to ",
                                                   out_shape.ToString()));
  }
  Literal storage;
  ASSIGN_OR_RETURN(const Literal* in, RowMajor(*operands[0], &storage));
  ASSIGN_OR_RETURN(Literal out, Literal::Create(ShapeUtil::MakeShape(out_type, out_shape.dimensions())));
  const int64_t n_in = in->element_count();
  const int64_t n_out = out.element_count();
  if (n_in * in_bits != n_out * out_bits) return absl::InternalError("bitcast-convert bit counts differ");
  const auto* src = static_cast<const uint8_t*>(in->untyped_data());
  auto* dst = static_cast<uint8_t*>(out.untyped_data());
  // Elements of 8 bits or more are stored exactly as their bytes; sub-byte elements are
  // packed least significant first into the stream (and unpacked the same way).
  std::vector<uint8_t> packed;
  const uint8_t* stream = src;
  if (in_bits % 8 != 0) {
    packed.assign(static_cast<size_t>((n_in * in_bits + 7) / 8), 0);
    for (int64_t i = 0; i < n_in; ++i) {
      const int64_t bit = i * in_bits;
      packed[bit / 8] |= static_cast<uint8_t>((src[i] & Mask(in_bits)) << (bit % 8));
    }
    stream = packed.data();
  }
  if (out_bits % 8 == 0) {
    if (n_out > 0) std::memcpy(dst, stream, static_cast<size_t>(n_out * out_bits / 8));
  } else {
    const bool is_signed = primitive_util::IsSignedIntegralType(out_type);
    for (int64_t j = 0; j < n_out; ++j) {
      const int64_t bit = j * out_bits;
      const uint8_t v = static_cast<uint8_t>((stream[bit / 8] >> (bit % 8)) & Mask(out_bits));
      const int shift = 8 - out_bits;
      dst[j] = is_signed ? static_cast<uint8_t>(static_cast<int8_t>(static_cast<uint8_t>(v << shift)) >> shift) : v;
    }
  }
  if (out_type == PRED) {
    for (int64_t j = 0; j < n_out; ++j) dst[j] = dst[j] != 0;
  }
  return out;
}

// XLA's reduce-precision on the element's own bits: round the mantissa to nearest even,
// then flush exponents out of range to signed zero / infinity. NaNs stay NaN (the input
// value) unless no mantissa bits remain, when they become +inf.
absl::StatusOr<Literal> ReducePrecision(EvalContext&, const HloInstruction& instruction,
                                        Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, 1));
  const PrimitiveType type = operands[0]->shape().element_type();
  if (instruction.shape().element_type() != type) return UnsupportedType(instruction, type);
  const int nbits = primitive_util::BitWidth(type);
  const int src_e = primitive_util::ExponentWidth(type);
  const int src_m = primitive_util::MantissaWidth(type);
  if (!primitive_util::IsFloatingPointType(type) || nbits != 1 + src_e + src_m) {
    return UnsupportedType(instruction, type);
  }
  const int64_t e = instruction.attrs().exponent_bits();
  const int64_t m = instruction.attrs().mantissa_bits();
  if (e < 1 || m < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, got ", e, " and ", m));
  }
  Literal storage;
  ASSIGN_OR_RETURN(const Literal* in, RowMajor(*operands[0], &storage));
  ASSIGN_OR_RETURN(Literal out, Literal::Create(ShapeUtil::MakeShape(type, in->shape().dimensions())));
  const int bytes = primitive_util::ByteWidth(type);
  const auto* src = static_cast<const uint8_t*>(in->untyped_data());
  auto* dst = static_cast<uint8_t*>(out.untyped_data());
  const uint64_t sign_mask = uint64_t{1} << (nbits - 1);
  const uint64_t exp_mask = Mask(src_e) << src_m;
  const std::optional<FloatFormatKind> kind = primitive_util::NarrowFloatFormat(type);
  for (int64_t i = 0; i < in->element_count(); ++i) {
    uint64_t original = 0;
    std::memcpy(&original, src + i * bytes, bytes);
    original &= Mask(nbits);
    bool is_nan;
    if (type == F32) {
      float f;
      std::memcpy(&f, &original, 4);
      is_nan = std::isnan(f);
    } else if (type == F64) {
      double d;
      std::memcpy(&d, &original, 8);
      is_nan = std::isnan(d);
    } else {
      is_nan = std::isnan(DecodeFloat(*kind, static_cast<uint32_t>(original)));
    }
    uint64_t x = original;
    if (m < src_m) {
      const uint64_t last_bit = uint64_t{1} << (src_m - m);
      const uint64_t base_bias = (last_bit >> 1) - 1;
      const uint64_t x_last = (x & last_bit) >> (src_m - m);
      x = (x + x_last + base_bias) & ~(last_bit - 1);
    }
    if (e < src_e) {
      const uint64_t bias = Mask(src_e - 1);
      const uint64_t reduced_bias = Mask(static_cast<int>(e) - 1);
      const uint64_t max_exponent = bias + reduced_bias;
      const uint64_t min_exponent = bias - reduced_bias;
      const uint64_t x_exponent = x & exp_mask;
      const uint64_t signed_zero = x & sign_mask;
      if (x_exponent > (max_exponent << src_m)) x = signed_zero | exp_mask;
      if (x_exponent <= (min_exponent << src_m)) x = signed_zero;
    }
    x &= Mask(nbits);
    if (is_nan) x = m > 0 ? original : exp_mask;
    std::memcpy(dst + i * bytes, &x, bytes);
  }
  return out;
}

// stochastic-convert(operand, random): rounds |operand| up when its fraction, scaled to the
// random type's range, exceeds the random bits; saturates; NaN -> 0; +-inf -> max/min.
absl::StatusOr<Literal> StochasticConvert(EvalContext&, const HloInstruction& instruction,
                                          Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, 2));
  const PrimitiveType in_type = operands[0]->shape().element_type();
  const PrimitiveType random_type = operands[1]->shape().element_type();
  const PrimitiveType out_type = instruction.shape().element_type();
  if (!primitive_util::IsFloatingPointType(in_type) || !primitive_util::IsUnsignedIntegralType(random_type) ||
      primitive_util::BitWidth(random_type) != primitive_util::BitWidth(in_type) ||
      !primitive_util::IsIntegralType(out_type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stochastic-convert needs a float operand, unsigned random bits of its width and an integer result; got ",
        TypeName(in_type), ", ", TypeName(random_type), " -> ", TypeName(out_type)));
  }
  RETURN_IF_ERROR(CheckSameDims(operands[0]->shape(), instruction.shape()));
  RETURN_IF_ERROR(CheckSameDims(operands[1]->shape(), instruction.shape()));
  Values<double> values(0);
  if (in_type == F64) {
    ASSIGN_OR_RETURN(values, Load<double>(*operands[0]));
  } else {
    ASSIGN_OR_RETURN(Values<float> f, Load<float>(*operands[0]));
    values = Values<double>(f.size());
    for (int64_t i = 0; i < f.size(); ++i) values[i] = f[i];
  }
  ASSIGN_OR_RETURN(Values<uint64_t> random, Load<uint64_t>(*operands[1]));
  const int out_bits = primitive_util::BitWidth(out_type);
  const int random_bits = primitive_util::BitWidth(random_type);
  const bool is_signed = primitive_util::IsSignedIntegralType(out_type);
  const int64_t min_value = is_signed ? -static_cast<int64_t>(Mask(out_bits - 1)) - 1 : 0;
  const uint64_t max_value = is_signed ? Mask(out_bits - 1) : Mask(out_bits);
  Values<uint64_t> out(values.size());
  for (int64_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    const bool negative = std::signbit(v);
    uint64_t result;
    if (std::isinf(v)) {
      result = negative ? static_cast<uint64_t>(min_value) : max_value;
    } else if (std::isnan(v)) {
      result = 0;
    } else if (v >= static_cast<double>(max_value)) {
      result = max_value;
    } else if (v <= static_cast<double>(min_value)) {
      result = static_cast<uint64_t>(min_value);
    } else {
      const double magnitude = std::fabs(v);
      uint64_t truncated = static_cast<uint64_t>(magnitude);
      const double fraction = magnitude - static_cast<double>(truncated);
      bool wrapped = false;
      if (fraction != 0) {
        const uint64_t fixed = static_cast<uint64_t>(std::ldexp(fraction, random_bits));
        if (random[i] < fixed) {
          // Only reachable for negative values just above min: rounding up gives min.
          if (truncated == max_value) {
            result = static_cast<uint64_t>(min_value);
            wrapped = true;
          }
          ++truncated;
        }
      }
      if (!wrapped) result = negative ? uint64_t{0} - truncated : truncated;
    }
    out[i] = result;
  }
  return Store<uint64_t>(out, out_type, instruction.shape().dimensions());
}

// map: applies to_apply to each element tuple (scalars in, scalar out).
absl::StatusOr<Literal> Map(EvalContext& ctx, const HloInstruction& instruction, Operands operands) {
  const HloComputation* fn = instruction.to_apply();
  if (fn == nullptr) return absl::InvalidArgumentError("map has no to_apply computation");
  RETURN_IF_ERROR(CheckArrayOperands(instruction, operands, static_cast<int>(operands.size())));
  const PrimitiveType out_type = instruction.shape().element_type();
  std::vector<Literal> storage(operands.size());
  std::vector<const Literal*> inputs;
  for (size_t k = 0; k < operands.size(); ++k) {
    RETURN_IF_ERROR(CheckSameDims(operands[k]->shape(), instruction.shape()));
    ASSIGN_OR_RETURN(const Literal* rm, RowMajor(*operands[k], &storage[k]));
    inputs.push_back(rm);
  }
  ASSIGN_OR_RETURN(Literal out, Literal::Create(ShapeUtil::MakeShape(out_type, instruction.shape().dimensions())));
  const int out_bytes = primitive_util::ByteWidth(out_type);
  auto* dst = static_cast<uint8_t*>(out.untyped_data());
  std::vector<Literal> scalars(inputs.size());
  std::vector<const Literal*> args(inputs.size());
  for (int64_t i = 0; i < out.element_count(); ++i) {
    for (size_t k = 0; k < inputs.size(); ++k) {
      const PrimitiveType t = inputs[k]->shape().element_type();
      const int bytes = primitive_util::ByteWidth(t);
      const auto* src = static_cast<const uint8_t*>(inputs[k]->untyped_data()) + i * bytes;
      ASSIGN_OR_RETURN(scalars[k], Literal::CreateFromBuffer(ShapeUtil::MakeShape(t, {}), src, bytes));
      args[k] = &scalars[k];
    }
    ASSIGN_OR_RETURN(Literal r, ctx.evaluator->Evaluate(*fn, args));
    if (!r.shape().IsArray() || r.shape().element_type() != out_type || r.element_count() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("map computation returned ", r.shape().ToString(),
                                                     ", expected ", TypeName(out_type), "[]"));
    }
    std::memcpy(dst + i * out_bytes, r.untyped_data(), out_bytes);
  }
  return out;
}

}  // namespace

void RegisterConvertHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kConvert, Convert);
  table->Register(HloOpcode::kBitcastConvert, BitcastConvert);
  table->Register(HloOpcode::kReducePrecision, ReducePrecision);
  table->Register(HloOpcode::kStochasticConvert, StochasticConvert);
  table->Register(HloOpcode::kMap, Map);
}

}  // namespace elementwise
}  // namespace interpreter
}  // namespace xla
