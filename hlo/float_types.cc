#include "hlo/float_types.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

// Format facts, checked against ml_dtypes' include/float8.h and
// include/mxfloat.h (numeric_limits max()/quiet_NaN()/infinity() and the
// Traits biases) and its README:
//   F8E5M2        bias 15, IEEE-like (inf 0x7C, NaN 0x7D-0x7F), max 57344.
//   F8E4M3        bias 7, IEEE-like (inf 0x78, NaN 0x79-0x7F), max 240.
//   F8E3M4        bias 3, IEEE-like (inf 0x70, NaN 0x71-0x7F), max 15.5.
//   F8E4M3FN      bias 7, no inf, NaN only S.1111.111, max 448.
//   F8E4M3FNUZ    bias 8, no inf, no -0, NaN only 0x80, max 240.
//   F8E5M2FNUZ    bias 16, no inf, no -0, NaN only 0x80, max 57344.
//   F8E4M3B11FNUZ bias 11, no inf, no -0, NaN only 0x80, max 30.
//   F4E2M1FN      bias 1, no inf, no NaN, max 6.0, subnormal 0.5.
//   F8E8M0FNU     unsigned, bias 127, no zero, no inf, 0xFF = NaN,
//                 0x00 = 2^-127 .. 0xFE = 2^127.
// ml_dtypes' canonical quiet NaNs (which we produce): F16 0x7E00, BF16 0x7FC0,
// E5M2 0x7E, E4M3 0x7C, E3M4 0x78 (top fraction bit set), sign bit copied
// from the input NaN; FN 0x7F/0xFF; FNUZ 0x80; E8M0 0xFF.

namespace xla {
namespace {

constexpr FloatFormat kFormats[] = {
    // bits exp man bias sign   inf    nan    nuz    fn
    {16, 5, 10, 15, true, true, true, false, false},     // F16
    {16, 8, 7, 127, true, true, true, false, false},     // BF16
    {8, 5, 2, 15, true, true, true, false, false},       // F8E5M2
    {8, 4, 3, 7, true, true, true, false, false},        // F8E4M3
    {8, 4, 3, 7, true, false, true, false, true},        // F8E4M3FN
    {8, 4, 3, 11, true, false, true, true, false},       // F8E4M3B11FNUZ
    {8, 3, 4, 3, true, true, true, false, false},        // F8E3M4
    {8, 5, 2, 16, true, false, true, true, false},       // F8E5M2FNUZ
    {8, 4, 3, 8, true, false, true, true, false},        // F8E4M3FNUZ
    {4, 2, 1, 1, true, false, false, false, false},      // F4E2M1FN
    {8, 8, 0, 127, false, false, true, false, false},    // F8E8M0FNU
};

template <typename To, typename From>
To BitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "size mismatch");
  To to;
  std::memcpy(&to, &from, sizeof(to));
  return to;
}

uint32_t SignBit(const FloatFormat& f) {
  return f.has_sign ? 1u << (f.total_bits - 1) : 0u;
}

uint32_t MaxBiasedExponent(const FloatFormat& f) {
  return (1u << f.exponent_bits) - 1;
}

// Magnitude (sign bit clear) of the largest finite value.
uint32_t MaxFiniteMagnitude(const FloatFormat& f) {
  const uint32_t all_fraction = (1u << f.mantissa_bits) - 1;
  if (f.has_infinity) {  // IEEE-like: the top exponent is inf/NaN.
    return ((MaxBiasedExponent(f) - 1) << f.mantissa_bits) | all_fraction;
  }
  if (f.finite_only_nan_all_ones) {  // Only S.1111.111 is NaN.
    return (MaxBiasedExponent(f) << f.mantissa_bits) | (all_fraction - 1);
  }
  // FNUZ and F4E2M1FN: every magnitude pattern is finite.
  return (MaxBiasedExponent(f) << f.mantissa_bits) | all_fraction;
}

uint32_t NanBits(const FloatFormat& f, bool negative) {
  const uint32_t sign = negative ? SignBit(f) : 0u;
  if (f.nan_is_negative_zero_pattern) return SignBit(f);  // the only NaN
  if (f.finite_only_nan_all_ones) {
    return sign | (MaxBiasedExponent(f) << f.mantissa_bits) |
           ((1u << f.mantissa_bits) - 1);
  }
  if (f.has_infinity) {  // quiet NaN: top fraction bit set
    return sign | (MaxBiasedExponent(f) << f.mantissa_bits) |
           (1u << (f.mantissa_bits - 1));
  }
  // F4E2M1FN has no NaN. ml_dtypes' numeric_limits<float4_e2m1fn>::quiet_NaN()
  // is 0b1000 (-0.0) and its conversion negates that for a negative NaN, so
  // +NaN -> 0x8 and -NaN -> 0x0. We keep that so literals match XLA/JAX.
  return negative ? 0u : SignBit(f);
}

// Result for +-inf inputs and for finite values beyond the largest finite one
// after rounding. This is ml_dtypes' non-saturating conversion: it returns
// numeric_limits<T>::infinity(), which for the formats without infinity is
// their NaN, and for F4E2M1FN (no inf, no NaN) is the largest finite value 6.0,
// so F4E2M1FN saturates.
uint32_t OverflowBits(const FloatFormat& f, bool negative) {
  const uint32_t sign = negative ? SignBit(f) : 0u;
  if (f.has_infinity) return sign | (MaxBiasedExponent(f) << f.mantissa_bits);
  if (f.has_nan) return NanBits(f, negative);
  return sign | MaxFiniteMagnitude(f);
}

// Rounds m / 2^shift to the nearest integer, ties to even. shift >= 1.
uint64_t ShiftRightRoundNearestEven(uint64_t m, int shift) {
  if (shift > 63) return 0;  // m < 2^53 here, so m / 2^shift < 1/2.
  const uint64_t kept = m >> shift;
  const uint64_t rest = m & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) return kept + 1;
  return kept;
}

// F8E8M0FNU, following ml_dtypes' non-saturating conversion:
//  * NaN, +-inf, +-0 and every negative value -> 0xFF (NaN): the format has no
//    sign, no zero and no infinity.
//  * Between two powers of two 2^e and 2^(e+1) (e >= -126) the halfway point
//    1.5 * 2^e rounds UP: ml_dtypes rounds with the implicit leading 1 as the
//    "last kept bit", which is always odd, so ties go away from zero.
//  * Below 2^-126 ml_dtypes treats 0x00 (2^-127) like a subnormal zero slot:
//    values <= 2^-127 give 0x00 and values in (2^-127, 2^-126) give 0x01
//    (2^-126), even below the true midpoint 1.5 * 2^-127.
//  * Values from 1.5 * 2^127 upward overflow to 0xFF. (ml_dtypes' current
//    uint8 packing wraps around for doubles in [1.5 * 2^128, 2^129) and returns
//    0x00 there; we treat that as the bug it is and return 0xFF.)
uint32_t EncodeE8M0(double value) {
  if (!(value > 0.0) || std::isinf(value)) return 0xFF;  // NaN, <= 0, inf
  const uint64_t bits = BitCast<uint64_t>(value);
  const int biased = static_cast<int>(bits >> 52);
  if (biased == 0) return 0x00;  // double subnormal: far below 2^-127
  const int exponent = biased - 1023;
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  if (exponent < -127 || (exponent == -127 && fraction == 0)) return 0x00;
  if (exponent == -127) return 0x01;
  const bool round_up = fraction >= (uint64_t{1} << 51);
  const int code = exponent + 127 + (round_up ? 1 : 0);
  return code > 0xFE ? 0xFF : static_cast<uint32_t>(code);
}

}  // namespace

const FloatFormat& GetFloatFormat(FloatFormatKind kind) {
  return kFormats[static_cast<int>(kind)];
}

namespace float_types_internal {

uint32_t EncodeFloatGeneric(FloatFormatKind kind, double value) {
  if (kind == FloatFormatKind::kF8E8M0FNU) return EncodeE8M0(value);
  const FloatFormat& f = GetFloatFormat(kind);
  const uint64_t bits = BitCast<uint64_t>(value);
  const bool negative = (bits >> 63) != 0;
  const uint64_t abs_bits = bits & ~(uint64_t{1} << 63);
  constexpr uint64_t kDoubleInf = uint64_t{0x7FF} << 52;
  if (abs_bits > kDoubleInf) return NanBits(f, negative);
  if (abs_bits == kDoubleInf) return OverflowBits(f, negative);

  // A signed zero: FNUZ formats have no -0 (their 0x80 is NaN).
  const uint32_t zero =
      (negative && !f.nan_is_negative_zero_pattern) ? SignBit(f) : 0u;
  const int double_biased = static_cast<int>(abs_bits >> 52);
  // Double subnormals (< 2^-1022) are far below half the smallest subnormal of
  // every format here (BF16's is 2^-133), so they round to zero.
  if (double_biased == 0) return zero;

  const int exponent = double_biased - 1023;
  const uint64_t significand =
      (abs_bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  const int biased = exponent + f.exponent_bias;
  if (biased > static_cast<int>(MaxBiasedExponent(f))) {
    return OverflowBits(f, negative);
  }
  // Round once, directly to the target's quantum at this exponent: 2^(e - M)
  // for normals, the fixed subnormal quantum below the normal range.
  const int subnormal_extra = biased < 1 ? 1 - biased : 0;
  const uint64_t rounded = ShiftRightRoundNearestEven(
      significand, 52 - f.mantissa_bits + subnormal_extra);
  // `rounded` still carries the implicit bit (value 1 << M) for normals, so
  // adding it to (biased - 1) << M yields the right exponent field, and a
  // carry out of the fraction bumps the exponent, as does a subnormal that
  // rounds up to the smallest normal.
  const uint64_t magnitude =
      (biased >= 1 ? static_cast<uint64_t>(biased - 1) << f.mantissa_bits : 0) +
      rounded;
  if (magnitude > MaxFiniteMagnitude(f)) return OverflowBits(f, negative);
  if (magnitude == 0) return zero;
  return (negative ? SignBit(f) : 0u) | static_cast<uint32_t>(magnitude);
}

}  // namespace float_types_internal

uint32_t EncodeFloat(FloatFormatKind kind, double value) {
  if (kind == FloatFormatKind::kF16 || kind == FloatFormatKind::kBF16) {
    // A double that is exactly a float rounds the same way from either width,
    // so the float bit tricks give the single correct rounding.
    const float narrow = static_cast<float>(value);
    if (static_cast<double>(narrow) == value) {
      return kind == FloatFormatKind::kF16 ? FloatToHalf(narrow)
                                           : FloatToBfloat16(narrow);
    }
  }
  return float_types_internal::EncodeFloatGeneric(kind, value);
}

double DecodeFloat(FloatFormatKind kind, uint32_t bits) {
  if (kind == FloatFormatKind::kF16) {
    return HalfToFloat(static_cast<uint16_t>(bits));
  }
  if (kind == FloatFormatKind::kBF16) {
    return Bfloat16ToFloat(static_cast<uint16_t>(bits));
  }
  const FloatFormat& f = GetFloatFormat(kind);
  bits &= (1u << f.total_bits) - 1;
  if (kind == FloatFormatKind::kF8E8M0FNU) {
    if (bits == 0xFF) return std::numeric_limits<double>::quiet_NaN();
    return std::ldexp(1.0, static_cast<int>(bits) - 127);
  }
  const bool negative = (bits & SignBit(f)) != 0;
  const uint32_t magnitude = bits & ~SignBit(f);
  const double nan = std::copysign(std::numeric_limits<double>::quiet_NaN(),
                                   negative ? -1.0 : 1.0);
  if (f.nan_is_negative_zero_pattern && bits == SignBit(f)) return nan;
  const uint32_t exponent_field = magnitude >> f.mantissa_bits;
  const uint32_t fraction = magnitude & ((1u << f.mantissa_bits) - 1);
  if (f.has_infinity && exponent_field == MaxBiasedExponent(f)) {
    if (fraction != 0) return nan;
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  if (f.finite_only_nan_all_ones && magnitude > MaxFiniteMagnitude(f)) {
    return nan;
  }
  const double value =
      exponent_field == 0
          ? std::ldexp(static_cast<double>(fraction),
                       1 - f.exponent_bias - f.mantissa_bits)
          : std::ldexp(static_cast<double>(fraction | (1u << f.mantissa_bits)),
                       static_cast<int>(exponent_field) - f.exponent_bias -
                           f.mantissa_bits);
  return negative ? -value : value;
}

uint16_t FloatToHalf(float f) {
  const uint32_t x = BitCast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const uint32_t abs_bits = x & 0x7FFFFFFF;
  if (abs_bits >= 0x7F800000) {  // inf or NaN
    return sign | (abs_bits > 0x7F800000 ? 0x7E00 : 0x7C00);
  }
  // 65520 = 65504 + half an ulp; the tie rounds to the even neighbour, which
  // is 65536 = inf because 65504's fraction 0x3FF is odd.
  if (abs_bits >= 0x477FF000) return sign | 0x7C00;
  if (abs_bits >= 0x38800000) {  // result is a normal half (>= 2^-14)
    // Rebias the exponent (127 -> 15) and round off 13 fraction bits; the
    // carry of the rounding moves into the exponent field by itself.
    const uint32_t rebiased = abs_bits - (uint32_t{127 - 15} << 23);
    const uint32_t round_bias = 0xFFF + ((rebiased >> 13) & 1);
    return sign | static_cast<uint16_t>((rebiased + round_bias) >> 13);
  }
  const int float_biased = static_cast<int>(abs_bits >> 23);
  // Below 2^-25 (half the smallest subnormal, 2^-24) everything rounds to 0.
  if (float_biased < 102) return sign;
  // Subnormal half: the value in units of 2^-24 is m * 2^(e - 150 + 24).
  const uint32_t significand = (abs_bits & 0x7FFFFF) | 0x800000;
  const int shift = 126 - float_biased;  // 14..24
  uint32_t kept = significand >> shift;
  const uint32_t rest = significand & ((uint32_t{1} << shift) - 1);
  const uint32_t half = uint32_t{1} << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;
  return sign | static_cast<uint16_t>(kept);
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exponent = (h >> 10) & 0x1F;
  const uint32_t fraction = h & 0x3FF;
  if (exponent == 0x1F) {  // inf/NaN, payload kept
    return BitCast<float>(sign | 0x7F800000 | (fraction << 13));
  }
  if (exponent != 0) {
    return BitCast<float>(sign | ((exponent + (127 - 15)) << 23) |
                          (fraction << 13));
  }
  if (fraction == 0) return BitCast<float>(sign);
  // Subnormal half: fraction * 2^-24, a normal float, computed exactly.
  const float magnitude = static_cast<float>(fraction) * 0x1p-24f;
  return BitCast<float>(sign | BitCast<uint32_t>(magnitude));
}

uint16_t FloatToBfloat16(float f) {
  const uint32_t x = BitCast<uint32_t>(f);
  if ((x & 0x7FFFFFFF) > 0x7F800000) {  // NaN -> canonical quiet NaN
    return static_cast<uint16_t>(((x >> 16) & 0x8000) | 0x7FC0);
  }
  // Round off the low 16 bits to nearest even. A carry moves into the
  // exponent, and the largest finite floats correctly round up to inf.
  const uint32_t round_bias = 0x7FFF + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + round_bias) >> 16);
}

float Bfloat16ToFloat(uint16_t b) {
  return BitCast<float>(static_cast<uint32_t>(b) << 16);
}

}  // namespace xla
