// Bit-exact conversions between double/float and XLA's narrow floating-point
// types (F16, BF16, the F8 family, F4E2M1FN, F8E8M0FNU).
//
// Self-contained on purpose (no other project header) so that literals, the
// interpreter, the text parser and the backends can all share one definition
// of rounding, overflow and NaN behaviour. The behaviour follows ml_dtypes'
// non-saturating `static_cast` (which is what XLA itself uses for these types);
// every deviation or quirk is stated next to the code in float_types.cc.
//
// Thread-safety: all functions are pure and may be called concurrently.
#ifndef XLA_HLO_FLOAT_TYPES_H_
#define XLA_HLO_FLOAT_TYPES_H_

#include <cstdint>

namespace xla {

enum class FloatFormatKind {
  kF16,
  kBF16,
  kF8E5M2,
  kF8E4M3,
  kF8E4M3FN,
  kF8E4M3B11FNUZ,
  kF8E3M4,
  kF8E5M2FNUZ,
  kF8E4M3FNUZ,
  kF4E2M1FN,
  kF8E8M0FNU,
};

// Static description of one format's bit layout and special values.
struct FloatFormat {
  int total_bits;     // 16, 8 or 4
  int exponent_bits;
  int mantissa_bits;  // explicit fraction bits
  int exponent_bias;
  bool has_sign;      // false for F8E8M0FNU
  bool has_infinity;
  bool has_nan;       // F4E2M1FN has none
  // The "FNUZ" types: the negative-zero pattern (0x80) is the single NaN, so
  // there is no -0.
  bool nan_is_negative_zero_pattern;
  // The "FN" types (F8E4M3FN): only S.1111.111 is NaN, no infinity.
  bool finite_only_nan_all_ones;
};

// Returns the layout of `kind`; the reference is to static storage.
const FloatFormat& GetFloatFormat(FloatFormatKind kind);

// Encodes `value` with round-to-nearest-even, rounding exactly once from
// double (no double rounding through float). The result is in the low
// total_bits bits.
//  * Overflow (after rounding) and +-inf: +-inf where the format has infinity;
//    otherwise its NaN (F8E4M3FN: sign kept, 0x7F/0xFF; FNUZ: 0x80); F4E2M1FN
//    (no inf, no NaN) saturates to +-6.0.
//  * NaN: the format's canonical quiet NaN, sign kept where the format can
//    hold it. F4E2M1FN has no NaN: like ml_dtypes, +NaN -> 0x8 (-0.0) and
//    -NaN -> 0x0 (+0.0).
//  * -0.0 (and negative values that round to zero) -> -0 where the format has
//    one, +0 for the FNUZ types.
//  * F8E8M0FNU (unsigned powers of two 2^-127..2^127, 0xFF = NaN): zero,
//    negative values, inf, NaN and overflow all give 0xFF; ties between two
//    powers of two round up (see float_types.cc).
uint32_t EncodeFloat(FloatFormatKind kind, double value);

// Decodes the low total_bits bits of `bits`; exact (every value of every
// format is a double). NaN patterns decode to a quiet NaN with the pattern's
// sign bit (the FNUZ NaN 0x80 decodes to -NaN, as in ml_dtypes).
double DecodeFloat(FloatFormatKind kind, uint32_t bits);

// Fast paths for large arrays (integer bit manipulation, no FP environment
// dependence). Same results as EncodeFloat/DecodeFloat. The *ToFloat
// functions keep NaN payloads; the FloatTo* functions canonicalize NaNs.
uint16_t FloatToHalf(float f);
float HalfToFloat(uint16_t h);
uint16_t FloatToBfloat16(float f);
float Bfloat16ToFloat(uint16_t b);

namespace float_types_internal {
// The slow, format-generic encoder that EncodeFloat falls back to; exposed so
// tests can check the fast paths against it.
uint32_t EncodeFloatGeneric(FloatFormatKind kind, double value);
}  // namespace float_types_internal

}  // namespace xla

#endif  // XLA_HLO_FLOAT_TYPES_H_
