// Inline IR for EncodeFloat (hlo/float_types.h) to the 8- and 4-bit floats. The IR follows
// the reference encoder's steps on the source's integer bits, with every branch turned into
// a select, so one element's code is straight-line and a loop of it vectorizes:
//   1. split |x| into the biased source exponent and the significand with its implicit bit;
//   2. shift the significand right to the target's quantum at that exponent (the normal one,
//      or the fixed subnormal one below the normal range), rounding to nearest even once;
//   3. add the rebiased exponent field, so a carry out of the fraction bumps the exponent;
//   4. choose among that magnitude (with the sign), the format's zero, its overflow result
//      and its NaN.
// The source is f64 or f32, so f32 values round without first widening (the same result:
// every f32 is exactly a double, and both round once from the exact value). The constants
// that differ by format come from its FloatFormat, so one function serves every format.
#include "backends/cpu/codegen/emit_narrow_float.h"

#include <cstdint>
#include <cstring>

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"

namespace xla {
namespace cpu {
namespace {

// An IEEE binary source format, as its integer bits.
struct SourceFormat {
  int width;          // 32 or 64
  int mantissa_bits;  // 23 or 52
  int exponent_bias;  // 127 or 1023
  uint64_t infinity;  // bits of +inf (larger magnitudes are NaN)
  uint64_t two_to_minus_127;  // bits of 2^-127 (an f32 subnormal, an f64 normal)
  uint64_t two_to_minus_126;  // bits of 2^-126
};

template <typename T, typename Bits>
uint64_t BitsOf(T value) {
  Bits bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

SourceFormat SourceOf(llvm::Type* scalar) {
  if (scalar->isFloatTy()) {
    return {32, 23, 127, 0x7F800000u, BitsOf<float, uint32_t>(0x1p-127f), BitsOf<float, uint32_t>(0x1p-126f)};
  }
  return {64, 52, 1023, uint64_t{0x7FF} << 52, BitsOf<double, uint64_t>(0x1p-127), BitsOf<double, uint64_t>(0x1p-126)};
}

// The target's constants, from its FloatFormat. Results whose bits depend on the input's
// sign come in pairs (positive, negative).
struct TargetConstants {
  uint64_t sign_bit;      // 0 for an unsigned format
  uint64_t max_finite;    // magnitude bits of the largest finite value
  uint64_t zero[2];       // +0 and -0 (FNUZ formats have no -0: 0 for both)
  uint64_t overflow[2];   // +-inf and finite values beyond max_finite after rounding
  uint64_t nan[2];        // NaN inputs
};

TargetConstants TargetOf(const FloatFormat& f) {
  TargetConstants c;
  c.sign_bit = f.has_sign ? uint64_t{1} << (f.total_bits - 1) : 0;
  const uint64_t max_exponent = (uint64_t{1} << f.exponent_bits) - 1;
  const uint64_t all_fraction = (uint64_t{1} << f.mantissa_bits) - 1;
  const uint64_t top_exponent = max_exponent << f.mantissa_bits;
  if (f.has_infinity) {
    c.max_finite = (top_exponent - (uint64_t{1} << f.mantissa_bits)) | all_fraction;  // top exponent is inf/NaN
  } else if (f.finite_only_nan_all_ones) {
    c.max_finite = top_exponent | (all_fraction - 1);  // only S.1111.111 is NaN
  } else {
    c.max_finite = top_exponent | all_fraction;  // FNUZ and F4E2M1FN: every magnitude is finite
  }
  for (int negative = 0; negative < 2; ++negative) {
    const uint64_t sign = negative ? c.sign_bit : 0;
    c.zero[negative] = f.nan_is_negative_zero_pattern ? 0 : sign;
    if (f.nan_is_negative_zero_pattern) {
      c.nan[negative] = c.sign_bit;  // the one NaN, 0x80
    } else if (f.finite_only_nan_all_ones) {
      c.nan[negative] = sign | top_exponent | all_fraction;
    } else if (f.has_infinity) {
      c.nan[negative] = sign | top_exponent | (uint64_t{1} << (f.mantissa_bits - 1));  // quiet NaN
    } else {
      // F4E2M1FN has no NaN; as ml_dtypes (and EncodeFloat), +NaN -> 0x8 and -NaN -> 0x0.
      c.nan[negative] = negative ? 0 : c.sign_bit;
    }
    // Without infinity, overflow is the NaN; F4E2M1FN, with neither, saturates.
    if (f.has_infinity) c.overflow[negative] = sign | top_exponent;
    else if (f.has_nan) c.overflow[negative] = c.nan[negative];
    else c.overflow[negative] = sign | c.max_finite;
  }
  return c;
}

class Encoder {
 public:
  Encoder(llvm::IRBuilder<>* b, llvm::Value* x)
      : b_(b), source_(SourceOf(x->getType()->getScalarType())), int_type_(WithElement(x, b->getIntNTy(source_.width))),
        byte_type_(WithElement(x, b->getInt8Ty())) {
    bits_ = b_->CreateBitCast(x, int_type_);
    negative_ = b_->CreateICmpSLT(bits_, K(0));
    magnitude_bits_ = b_->CreateAnd(bits_, K(~(uint64_t{1} << (source_.width - 1))));
    biased_exponent_ = b_->CreateLShr(magnitude_bits_, K(source_.mantissa_bits));
  }

  // The general formats: sign, exponent, fraction.
  llvm::Value* EncodeSigned(const FloatFormat& f) {
    const TargetConstants c = TargetOf(f);
    const int width = source_.width;
    const int m = f.mantissa_bits;
    // The target's biased exponent of |x|, signed. Source subnormals are far below half of
    // every target's smallest subnormal (the largest is F8E5M2FNUZ's 2^-17), so they may go
    // through the normal path: whatever their exponent says, they round to zero below.
    llvm::Value* target_exponent = b_->CreateAdd(biased_exponent_, K(f.exponent_bias - source_.exponent_bias));
    llvm::Value* significand =
        b_->CreateOr(b_->CreateAnd(magnitude_bits_, K((uint64_t{1} << source_.mantissa_bits) - 1)),
                     K(uint64_t{1} << source_.mantissa_bits));
    // Below the normal range the quantum stays that of exponent 1: shift 1 - e more bits.
    llvm::Value* is_subnormal = b_->CreateICmpSLT(target_exponent, K(1));
    llvm::Value* shift = b_->CreateAdd(K(source_.mantissa_bits - m),
                                       b_->CreateSelect(is_subnormal, b_->CreateSub(K(1), target_exponent), K(0)));
    // The significand is below 2^(mantissa_bits + 1) <= 2^(width - 8), so shifting by width - 1
    // rounds it to zero just as any larger shift would (and keeps the shift defined).
    shift = b_->CreateSelect(b_->CreateICmpUGT(shift, K(width - 1)), K(width - 1), shift);
    // Round to nearest even: add half a quantum less one, plus the kept part's last bit, so
    // exactly the halves above the tie and the tie of an odd kept part carry into it.
    llvm::Value* kept_lsb = b_->CreateAnd(b_->CreateLShr(significand, shift), K(1));
    llvm::Value* half_less_one = b_->CreateSub(b_->CreateShl(K(1), b_->CreateSub(shift, K(1))), K(1));
    llvm::Value* rounded = b_->CreateLShr(b_->CreateAdd(b_->CreateAdd(significand, half_less_one), kept_lsb), shift);
    // A normal's rounded significand keeps its implicit bit (1 << m), so adding it to
    // (e - 1) << m gives the exponent field, and the rounding's carry moves into it.
    llvm::Value* exponent_field = b_->CreateSelect(
        is_subnormal, K(0), b_->CreateShl(b_->CreateSub(target_exponent, K(1)), K(m)));
    llvm::Value* magnitude = b_->CreateAdd(exponent_field, rounded);
    // Exponents beyond the format's (infinities included: their exponent is the source's
    // largest) give magnitudes of at least (max exponent + 1) << m > max_finite, so this one
    // comparison catches every overflow. The source exponent is at most 2^11, so no wrap.
    llvm::Value* overflows = b_->CreateICmpUGT(magnitude, K(c.max_finite));
    llvm::Value* is_nan = b_->CreateICmpUGT(magnitude_bits_, K(source_.infinity));
    llvm::Value* result = b_->CreateOr(b_->CreateSelect(negative_, K(c.sign_bit), K(0)), magnitude);
    result = b_->CreateSelect(b_->CreateICmpEQ(magnitude, K(0)), BySign(c.zero), result);
    result = b_->CreateSelect(overflows, BySign(c.overflow), result);
    result = b_->CreateSelect(is_nan, BySign(c.nan), result);
    return b_->CreateTrunc(result, byte_type_);
  }

  // F8E8M0FNU: unsigned powers of two 2^-127 (0x00) .. 2^127 (0xFE), 0xFF = NaN. As
  // EncodeFloat: NaN, zeros, negatives, inf and overflow give 0xFF; halfway between two powers
  // rounds up; below 2^-126, values up to 2^-127 give 0x00 and the rest 0x01.
  llvm::Value* EncodeE8M0() {
    constexpr uint64_t kNaN = 0xFF;
    // From 2^-126 up: the exponent rebiased to 127, plus one when the fraction is at least
    // half (its top bit). NaN and inf have the source's top exponent and land above 0xFE.
    llvm::Value* round_up = b_->CreateAnd(b_->CreateLShr(magnitude_bits_, K(source_.mantissa_bits - 1)), K(1));
    llvm::Value* code =
        b_->CreateAdd(b_->CreateAdd(biased_exponent_, K(127 - source_.exponent_bias)), round_up);
    llvm::Value* result = b_->CreateSelect(b_->CreateICmpSGT(code, K(0xFE)), K(kNaN), code);
    result = b_->CreateSelect(b_->CreateICmpULT(magnitude_bits_, K(source_.two_to_minus_126)), K(0x01), result);
    result = b_->CreateSelect(b_->CreateICmpULE(magnitude_bits_, K(source_.two_to_minus_127)), K(0x00), result);
    llvm::Value* no_value = b_->CreateOr(negative_, b_->CreateICmpEQ(magnitude_bits_, K(0)));
    result = b_->CreateSelect(no_value, K(kNaN), result);
    return b_->CreateTrunc(result, byte_type_);
  }

 private:
  // `element` in the shape of x: itself for a scalar, a vector of it for a vector.
  static llvm::Type* WithElement(llvm::Value* x, llvm::Type* element) {
    if (auto* vector = llvm::dyn_cast<llvm::VectorType>(x->getType())) {
      return llvm::VectorType::get(element, vector->getElementCount());
    }
    return element;
  }

  // A constant of the source's integer type (splat for vectors); negative values wrap.
  llvm::Constant* K(uint64_t v) { return llvm::ConstantInt::get(int_type_, v); }
  llvm::Constant* K(int v) { return llvm::ConstantInt::get(int_type_, static_cast<uint64_t>(static_cast<int64_t>(v)), true); }

  llvm::Value* BySign(const uint64_t (&by_sign)[2]) {
    if (by_sign[0] == by_sign[1]) return K(by_sign[0]);
    return b_->CreateSelect(negative_, K(by_sign[1]), K(by_sign[0]));
  }

  llvm::IRBuilder<>* b_;
  SourceFormat source_;
  llvm::Type* int_type_;
  llvm::Type* byte_type_;
  llvm::Value* bits_;
  llvm::Value* negative_;         // the sign bit (NaNs included)
  llvm::Value* magnitude_bits_;   // |x| as bits
  llvm::Value* biased_exponent_;  // the source's exponent field
};

}  // namespace

llvm::Value* EmitEncodeNarrowFloat(llvm::IRBuilder<>* b, llvm::Value* x, FloatFormatKind kind) {
  Encoder encoder(b, x);
  if (kind == FloatFormatKind::kF8E8M0FNU) return encoder.EncodeE8M0();
  return encoder.EncodeSigned(GetFloatFormat(kind));
}

}  // namespace cpu
}  // namespace xla
