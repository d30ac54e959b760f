#include "hlo/float_types.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace xla {
namespace {

using float_types_internal::EncodeFloatGeneric;

// Expected facts per format, written out by hand from the format definitions
// (ml_dtypes / OCP MX spec), independent of the implementation's helpers.
struct Expected {
  FloatFormatKind kind;
  const char* name;
  double max_finite;
  double min_normal;
  double min_subnormal;
  uint32_t max_finite_bits;
  uint32_t nan_pos;       // encoding of +NaN
  uint32_t nan_neg;       // encoding of -NaN
  uint32_t overflow_pos;  // encoding of +inf and of positive overflow
  uint32_t overflow_neg;
  int nan_pattern_count;
  int inf_pattern_count;
};

const Expected kExpected[] = {
    {FloatFormatKind::kF16, "F16", 65504.0, 0x1p-14, 0x1p-24, 0x7BFF, 0x7E00,
     0xFE00, 0x7C00, 0xFC00, 2 * 1023, 2},
    {FloatFormatKind::kBF16, "BF16", 0x1.FEp127, 0x1p-126, 0x1p-133, 0x7F7F,
     0x7FC0, 0xFFC0, 0x7F80, 0xFF80, 2 * 127, 2},
    {FloatFormatKind::kF8E5M2, "F8E5M2", 57344.0, 0x1p-14, 0x1p-16, 0x7B, 0x7E,
     0xFE, 0x7C, 0xFC, 6, 2},
    {FloatFormatKind::kF8E4M3, "F8E4M3", 240.0, 0x1p-6, 0x1p-9, 0x77, 0x7C,
     0xFC, 0x78, 0xF8, 14, 2},
    {FloatFormatKind::kF8E4M3FN, "F8E4M3FN", 448.0, 0x1p-6, 0x1p-9, 0x7E, 0x7F,
     0xFF, 0x7F, 0xFF, 2, 0},
    {FloatFormatKind::kF8E4M3B11FNUZ, "F8E4M3B11FNUZ", 30.0, 0x1p-10, 0x1p-13,
     0x7F, 0x80, 0x80, 0x80, 0x80, 1, 0},
    {FloatFormatKind::kF8E3M4, "F8E3M4", 15.5, 0x1p-2, 0x1p-6, 0x6F, 0x78, 0xF8,
     0x70, 0xF0, 30, 2},
    {FloatFormatKind::kF8E5M2FNUZ, "F8E5M2FNUZ", 57344.0, 0x1p-15, 0x1p-17,
     0x7F, 0x80, 0x80, 0x80, 0x80, 1, 0},
    {FloatFormatKind::kF8E4M3FNUZ, "F8E4M3FNUZ", 240.0, 0x1p-7, 0x1p-10, 0x7F,
     0x80, 0x80, 0x80, 0x80, 1, 0},
    // No NaN: ml_dtypes maps +NaN to 0b1000 (-0) and -NaN to +0; no inf:
    // overflow saturates to +-6.
    {FloatFormatKind::kF4E2M1FN, "F4E2M1FN", 6.0, 1.0, 0.5, 0x7, 0x8, 0x0, 0x7,
     0xF, 0, 0},
};

std::string Hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%X", v);
  return buf;
}

uint32_t FloatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float BitsFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// Brute-force reference encoder for signed formats: finds the nearest
// representable value by search over the decoded table, breaking ties towards
// the even bit pattern. Relies only on DecodeFloat (checked separately) and on
// the hand-written Expected table.
class Oracle {
 public:
  explicit Oracle(const Expected& e) : e_(e) {
    const FloatFormat& f = GetFloatFormat(e.kind);
    sign_bit_ = 1u << (f.total_bits - 1);
    for (uint32_t mag = 0; mag <= e.max_finite_bits; ++mag) {
      values_.push_back(DecodeFloat(e.kind, mag));
    }
    // A virtual value one ulp above the maximum stands for "overflow"; its
    // pattern parity decides ties between it and the maximum.
    const double ulp = values_.back() - values_[values_.size() - 2];
    values_.push_back(values_.back() + ulp);
  }

  uint32_t Encode(double x) const {
    if (std::isnan(x)) return std::signbit(x) ? e_.nan_neg : e_.nan_pos;
    const bool negative = std::signbit(x);
    const double a = std::fabs(x);
    const uint32_t overflow = negative ? e_.overflow_neg : e_.overflow_pos;
    if (a >= values_.back()) return overflow;
    // values_[lo] <= a < values_[lo + 1]
    const size_t lo =
        std::upper_bound(values_.begin(), values_.end(), a) - values_.begin() -
        1;
    const double mid = (values_[lo] + values_[lo + 1]) / 2;  // exact
    size_t pick;
    if (a < mid) {
      pick = lo;
    } else if (a > mid) {
      pick = lo + 1;
    } else {
      pick = (lo % 2 == 0) ? lo : lo + 1;
    }
    if (pick == values_.size() - 1) return overflow;
    const uint32_t mag = static_cast<uint32_t>(pick);
    const bool fnuz = GetFloatFormat(e_.kind).nan_is_negative_zero_pattern;
    if (mag == 0) return (negative && !fnuz) ? sign_bit_ : 0u;
    return (negative ? sign_bit_ : 0u) | mag;
  }

  const std::vector<double>& values() const { return values_; }

 private:
  Expected e_;
  uint32_t sign_bit_;
  std::vector<double> values_;  // magnitudes, indexed by bit pattern
};

TEST(FloatFormatTest, LayoutFacts) {
  for (const Expected& e : kExpected) {
    const FloatFormat& f = GetFloatFormat(e.kind);
    SCOPED_TRACE(e.name);
    EXPECT_EQ(f.total_bits, 1 + f.exponent_bits + f.mantissa_bits);
    EXPECT_TRUE(f.has_sign);
    EXPECT_EQ(f.has_infinity, e.inf_pattern_count > 0);
  }
  const FloatFormat& e8m0 = GetFloatFormat(FloatFormatKind::kF8E8M0FNU);
  EXPECT_EQ(e8m0.total_bits, 8);
  EXPECT_EQ(e8m0.exponent_bits, 8);
  EXPECT_EQ(e8m0.mantissa_bits, 0);
  EXPECT_EQ(e8m0.exponent_bias, 127);
  EXPECT_FALSE(e8m0.has_sign);
  EXPECT_FALSE(e8m0.has_infinity);
  EXPECT_TRUE(e8m0.has_nan);
  EXPECT_EQ(GetFloatFormat(FloatFormatKind::kF8E4M3FNUZ).exponent_bias, 8);
  EXPECT_EQ(GetFloatFormat(FloatFormatKind::kF8E5M2FNUZ).exponent_bias, 16);
  EXPECT_EQ(GetFloatFormat(FloatFormatKind::kF8E4M3B11FNUZ).exponent_bias, 11);
  EXPECT_TRUE(GetFloatFormat(FloatFormatKind::kF8E4M3FN).finite_only_nan_all_ones);
  EXPECT_FALSE(GetFloatFormat(FloatFormatKind::kF4E2M1FN).has_nan);
}

TEST(FloatTypesTest, ExtremeValues) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    EXPECT_EQ(DecodeFloat(e.kind, e.max_finite_bits), e.max_finite);
    EXPECT_EQ(EncodeFloat(e.kind, e.max_finite), e.max_finite_bits);
    const uint32_t sign = 1u << (GetFloatFormat(e.kind).total_bits - 1);
    EXPECT_EQ(EncodeFloat(e.kind, -e.max_finite), sign | e.max_finite_bits);
    EXPECT_EQ(DecodeFloat(e.kind, sign | e.max_finite_bits), -e.max_finite);

    const uint32_t min_normal_bits =
        1u << GetFloatFormat(e.kind).mantissa_bits;
    EXPECT_EQ(DecodeFloat(e.kind, min_normal_bits), e.min_normal);
    EXPECT_EQ(EncodeFloat(e.kind, e.min_normal), min_normal_bits);
    EXPECT_EQ(DecodeFloat(e.kind, 1), e.min_subnormal);
    EXPECT_EQ(EncodeFloat(e.kind, e.min_subnormal), 1u);
    // Half the smallest subnormal is a tie with zero and goes to zero (even);
    // anything above it goes to the smallest subnormal.
    EXPECT_EQ(EncodeFloat(e.kind, e.min_subnormal / 2), 0u);
    EXPECT_EQ(EncodeFloat(e.kind, e.min_subnormal * 0.5000001), 1u);
    EXPECT_EQ(EncodeFloat(e.kind, e.min_subnormal * 0.4999999), 0u);
    // Largest subnormal rounds up into the smallest normal from just below.
    EXPECT_EQ(EncodeFloat(e.kind, std::nextafter(e.min_normal, 0.0)),
              min_normal_bits);
  }
}

TEST(FloatTypesTest, NamedValues) {
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3FN, 1.0), 0x38u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3FNUZ, 1.0), 0x40u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3B11FNUZ, 1.0), 0x58u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E5M2, 1.0), 0x3Cu);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E5M2FNUZ, 1.0), 0x40u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E3M4, 1.0), 0x30u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3, -2.0), 0xC0u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF4E2M1FN, 1.5), 0x3u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF4E2M1FN, -3.0), 0xDu);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF16, 1.0), 0x3C00u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kBF16, 1.0), 0x3F80u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E8M0FNU, 1.0), 0x7Fu);
  const double f4_values[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (uint32_t b = 0; b < 16; ++b) {
    const double v = DecodeFloat(FloatFormatKind::kF4E2M1FN, b);
    EXPECT_EQ(v, b < 8 ? f4_values[b] : -f4_values[b - 8]) << b;
    EXPECT_EQ(std::signbit(v), b >= 8) << b;
  }
  // Only the low total_bits bits are decoded.
  EXPECT_EQ(DecodeFloat(FloatFormatKind::kF4E2M1FN, 0xF3), 1.5);
  EXPECT_EQ(DecodeFloat(FloatFormatKind::kF8E4M3FN, 0x138), 1.0);
}

TEST(FloatTypesTest, ExhaustiveNarrowRoundTrip) {
  for (const Expected& e : kExpected) {
    const FloatFormat& f = GetFloatFormat(e.kind);
    SCOPED_TRACE(e.name);
    const uint32_t count = 1u << f.total_bits;
    const uint32_t sign = count >> 1;
    int nans = 0, infs = 0;
    double previous = -1;
    for (uint32_t bits = 0; bits < count; ++bits) {
      const double v = DecodeFloat(e.kind, bits);
      const uint32_t back = EncodeFloat(e.kind, v);
      ASSERT_EQ(back, EncodeFloatGeneric(e.kind, v)) << Hex(bits);
      if (std::isnan(v)) {
        ++nans;
        EXPECT_EQ(back, (bits & sign) ? e.nan_neg : e.nan_pos) << Hex(bits);
        continue;
      }
      if (std::isinf(v)) ++infs;
      EXPECT_EQ(back, bits) << Hex(bits) << " decoded " << v;
      EXPECT_EQ(std::signbit(v), (bits & sign) != 0) << Hex(bits);
      // Finite magnitudes grow strictly with the pattern.
      if (bits < sign && std::isfinite(v)) {
        EXPECT_GT(v, previous) << Hex(bits);
        previous = v;
      }
    }
    EXPECT_EQ(nans, e.nan_pattern_count);
    EXPECT_EQ(infs, e.inf_pattern_count);
  }
}

TEST(FloatTypesTest, Exhaustive16BitRoundTrip) {
  for (FloatFormatKind kind : {FloatFormatKind::kF16, FloatFormatKind::kBF16}) {
    const bool is_half = kind == FloatFormatKind::kF16;
    const uint32_t canonical_nan = is_half ? 0x7E00 : 0x7FC0;
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
      const uint16_t h = static_cast<uint16_t>(bits);
      const float as_float = is_half ? HalfToFloat(h) : Bfloat16ToFloat(h);
      const double as_double = DecodeFloat(kind, bits);
      const uint32_t expected =
          std::isnan(as_float) ? (bits & 0x8000) | canonical_nan : bits;
      if (std::isnan(as_float)) {
        ASSERT_TRUE(std::isnan(as_double));
        // The float fast path keeps the payload.
        const uint32_t fb = FloatBits(as_float);
        if (is_half) {
          EXPECT_EQ(fb & 0x7FFFFF, (bits & 0x3FFu) << 13) << Hex(bits);
        } else {
          EXPECT_EQ(fb, bits << 16) << Hex(bits);
        }
      } else {
        ASSERT_EQ(as_double, static_cast<double>(as_float)) << Hex(bits);
        ASSERT_EQ(std::signbit(as_double), (bits & 0x8000) != 0) << Hex(bits);
      }
      EXPECT_EQ(std::signbit(as_float), (bits & 0x8000) != 0) << Hex(bits);
      const uint32_t fast = is_half ? FloatToHalf(as_float)
                                    : FloatToBfloat16(as_float);
      ASSERT_EQ(fast, expected) << Hex(bits);
      ASSERT_EQ(EncodeFloat(kind, as_double), expected) << Hex(bits);
      ASSERT_EQ(EncodeFloatGeneric(kind, as_double), expected) << Hex(bits);
    }
  }
}

// Every midpoint between neighbouring values is a tie and must go to the even
// pattern; just above/below it must go up/down. Covers subnormals, the
// subnormal/normal boundary, binade boundaries and the overflow threshold.
TEST(FloatTypesTest, AllTiesRoundToEven) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    Oracle oracle(e);
    const std::vector<double>& v = oracle.values();
    for (size_t i = 0; i + 1 < v.size(); ++i) {
      const double mid = (v[i] + v[i + 1]) / 2;
      const double above = std::nextafter(mid, HUGE_VAL);
      const double below = std::nextafter(mid, 0.0);
      for (double x : {mid, above, below}) {
        for (double s : {x, -x}) {
          const uint32_t want = oracle.Encode(s);
          ASSERT_EQ(EncodeFloat(e.kind, s), want) << s;
          ASSERT_EQ(EncodeFloatGeneric(e.kind, s), want) << s;
        }
      }
      // Independent of the oracle's parity rule: a tie lands on an even
      // pattern (or overflows when the even neighbour is past the maximum).
      const uint32_t got = EncodeFloat(e.kind, mid);
      const bool overflowed = got == e.overflow_pos;
      if (!overflowed) {
        EXPECT_EQ(got & 1, 0u) << mid;
        EXPECT_TRUE(got == i || got == i + 1) << mid;
      } else {
        EXPECT_EQ(i + 2, v.size()) << mid;
        EXPECT_EQ(e.max_finite_bits & 1, 1u);
      }
      EXPECT_EQ(EncodeFloat(e.kind, below), static_cast<uint32_t>(i)) << below;
    }
  }
}

TEST(FloatTypesTest, SpecificTies) {
  // 1 + half an ulp -> 1 (even), 1 + 3 half-ulps -> 1 + 2 ulps (even).
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF16, 1 + 0x1p-11), 0x3C00u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF16, 1 + 3 * 0x1p-11), 0x3C02u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kBF16, 1 + 0x1p-8), 0x3F80u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kBF16, 1 + 3 * 0x1p-8), 0x3F82u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3FN, 1 + 0x1p-4), 0x38u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3FN, 1 + 3 * 0x1p-4), 0x3Au);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E5M2, -(1 + 0x1p-3)), 0xBCu);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E5M2, 1 + 3 * 0x1p-3), 0x3Eu);
  // Subnormal ties in F8E5M2 (quantum 2^-16).
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E5M2, 3 * 0x1p-17), 0x02u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E5M2, 5 * 0x1p-17), 0x02u);
  // F4E2M1FN: 2.5 is between 2 (0b010) and 3 (0b011) -> 2; 5 between 4 and
  // 6 -> 4 (0b110); 1.75 -> 2.
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF4E2M1FN, 2.5), 0x4u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF4E2M1FN, 5.0), 0x6u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF4E2M1FN, 1.75), 0x4u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF4E2M1FN, 0.25), 0x0u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF4E2M1FN, 0.75), 0x2u);
}

TEST(FloatTypesTest, NoDoubleRounding) {
  // Through float, 1 + 2^-11 + 2^-40 would first become the tie 1 + 2^-11 and
  // then round down to 1; rounding once from double gives 1 + 2^-10.
  const double x = 1 + 0x1p-11 + 0x1p-40;
  ASSERT_EQ(static_cast<double>(static_cast<float>(x)), 1 + 0x1p-11);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF16, x), 0x3C01u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF16, -x), 0xBC01u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kBF16, 1 + 0x1p-8 + 0x1p-40), 0x3F81u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3FN, 1 + 0x1p-4 + 0x1p-40),
            0x39u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E5M2, 1 + 0x1p-3 + 0x1p-50), 0x3Du);
  // Just below a tie, through float, would round up to the tie and then up.
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF16, 1 + 3 * 0x1p-11 - 0x1p-40),
            0x3C01u);
}

TEST(FloatTypesTest, Overflow) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(EncodeFloat(e.kind, inf), e.overflow_pos);
    EXPECT_EQ(EncodeFloat(e.kind, -inf), e.overflow_neg);
    EXPECT_EQ(EncodeFloat(e.kind, e.max_finite * 4), e.overflow_pos);
    EXPECT_EQ(EncodeFloat(e.kind, -e.max_finite * 4), e.overflow_neg);
    EXPECT_EQ(EncodeFloat(e.kind, std::numeric_limits<double>::max()),
              e.overflow_pos);
    EXPECT_EQ(EncodeFloat(e.kind, -std::numeric_limits<double>::max()),
              e.overflow_neg);
    EXPECT_EQ(EncodeFloat(e.kind, 0x1p1000), e.overflow_pos);
    // Just above the maximum but below the rounding threshold stays finite.
    EXPECT_EQ(EncodeFloat(e.kind, std::nextafter(e.max_finite, inf)),
              e.max_finite_bits);
  }
  // Thresholds, worked by hand.
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF16, 65519.99), 0x7BFFu);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF16, 65520.0), 0x7C00u);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00u);
  EXPECT_EQ(FloatToHalf(65519.996f), 0x7BFFu);
  EXPECT_EQ(FloatToBfloat16(std::numeric_limits<float>::max()), 0x7F80u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E5M2, 61439.0), 0x7Bu);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E5M2, 61440.0), 0x7Cu);
  // E4M3FN: the tie at 464 goes to 448 (0x7E has an even fraction); above it
  // would be 0x7F, which is NaN.
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3FN, 464.0), 0x7Eu);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3FN, 464.5), 0x7Fu);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3FN, -464.5), 0xFFu);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3FNUZ, 247.9), 0x7Fu);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3FNUZ, 248.0), 0x80u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3FNUZ, -248.0), 0x80u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3B11FNUZ, 31.0), 0x80u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E5M2FNUZ, 61440.0), 0x80u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E3M4, 15.75), 0x70u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF8E4M3, 248.0), 0x78u);
  // F4E2M1FN saturates.
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF4E2M1FN, 7.0), 0x7u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF4E2M1FN, 1e9), 0x7u);
  EXPECT_EQ(EncodeFloat(FloatFormatKind::kF4E2M1FN, -1e9), 0xFu);
}

TEST(FloatTypesTest, NanAndZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double snan = std::numeric_limits<double>::signaling_NaN();
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    const FloatFormat& f = GetFloatFormat(e.kind);
    EXPECT_EQ(EncodeFloat(e.kind, nan), e.nan_pos);
    EXPECT_EQ(EncodeFloat(e.kind, -nan), e.nan_neg);
    EXPECT_EQ(EncodeFloat(e.kind, snan), e.nan_pos);
    EXPECT_EQ(EncodeFloat(e.kind, std::copysign(snan, -1.0)), e.nan_neg);
    if (f.has_nan) {
      EXPECT_TRUE(std::isnan(DecodeFloat(e.kind, e.nan_pos)));
    }
    const uint32_t sign = 1u << (f.total_bits - 1);
    const uint32_t neg_zero = f.nan_is_negative_zero_pattern ? 0u : sign;
    EXPECT_EQ(EncodeFloat(e.kind, 0.0), 0u);
    EXPECT_EQ(EncodeFloat(e.kind, -0.0), neg_zero);
    EXPECT_EQ(EncodeFloat(e.kind, -e.min_subnormal / 4), neg_zero);
    EXPECT_EQ(EncodeFloat(e.kind, -std::numeric_limits<double>::denorm_min()),
              neg_zero);
    EXPECT_EQ(EncodeFloat(e.kind, 1e-300), 0u);
    const double z = DecodeFloat(e.kind, 0);
    EXPECT_EQ(z, 0.0);
    EXPECT_FALSE(std::signbit(z));
  }
  // FNUZ: 0x80 is the NaN, not -0.
  EXPECT_TRUE(std::isnan(DecodeFloat(FloatFormatKind::kF8E4M3FNUZ, 0x80)));
  EXPECT_TRUE(std::isnan(DecodeFloat(FloatFormatKind::kF8E5M2FNUZ, 0x80)));
  EXPECT_TRUE(std::isnan(DecodeFloat(FloatFormatKind::kF8E4M3B11FNUZ, 0x80)));
  // FN: only the all-ones patterns are NaN; 0x78 is 256, not inf.
  EXPECT_EQ(DecodeFloat(FloatFormatKind::kF8E4M3FN, 0x78), 256.0);
  EXPECT_TRUE(std::isnan(DecodeFloat(FloatFormatKind::kF8E4M3FN, 0x7F)));
  EXPECT_TRUE(std::isnan(DecodeFloat(FloatFormatKind::kF8E4M3FN, 0xFF)));
  // IEEE-like: sign of a decoded NaN follows the pattern.
  EXPECT_TRUE(std::signbit(DecodeFloat(FloatFormatKind::kF8E5M2, 0xFF)));
  EXPECT_FALSE(std::signbit(DecodeFloat(FloatFormatKind::kF8E5M2, 0x7F)));
  EXPECT_EQ(FloatToHalf(-std::numeric_limits<float>::quiet_NaN()), 0xFE00u);
  EXPECT_EQ(FloatToHalf(BitsFloat(0x7F800001)), 0x7E00u);  // sNaN stays NaN
  EXPECT_EQ(FloatToBfloat16(BitsFloat(0x7F800001)), 0x7FC0u);
  EXPECT_EQ(FloatToBfloat16(BitsFloat(0xFFFFFFFF)), 0xFFC0u);
}

TEST(FloatTypesTest, E8M0) {
  const FloatFormatKind k = FloatFormatKind::kF8E8M0FNU;
  for (uint32_t b = 0; b < 0xFF; ++b) {
    const double v = DecodeFloat(k, b);
    ASSERT_EQ(v, std::ldexp(1.0, static_cast<int>(b) - 127)) << b;
    ASSERT_EQ(EncodeFloat(k, v), b) << b;
  }
  EXPECT_TRUE(std::isnan(DecodeFloat(k, 0xFF)));
  EXPECT_EQ(DecodeFloat(k, 0x00), 0x1p-127);
  EXPECT_EQ(DecodeFloat(k, 0xFE), 0x1p127);
  // No zero, no sign, no inf: all NaN.
  const double inf = std::numeric_limits<double>::infinity();
  for (double x : {0.0, -0.0, -1.0, -0x1p-127, inf, -inf,
                   std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_EQ(EncodeFloat(k, x), 0xFFu) << x;
  }
  // Ties between powers of two round up (ml_dtypes).
  EXPECT_EQ(EncodeFloat(k, 1.5), 0x80u);
  EXPECT_EQ(EncodeFloat(k, std::nextafter(1.5, 0.0)), 0x7Fu);
  EXPECT_EQ(EncodeFloat(k, 0.75), 0x7Fu);
  EXPECT_EQ(EncodeFloat(k, 3.0), 0x81u);
  EXPECT_EQ(EncodeFloat(k, 1.25), 0x7Fu);
  EXPECT_EQ(EncodeFloat(k, 1.9), 0x80u);
  // Bottom of the range (ml_dtypes' treatment of 0x00 as the subnormal slot).
  EXPECT_EQ(EncodeFloat(k, 0x1p-127), 0x00u);
  EXPECT_EQ(EncodeFloat(k, 0x1p-128), 0x00u);
  EXPECT_EQ(EncodeFloat(k, 1e-300), 0x00u);
  EXPECT_EQ(EncodeFloat(k, std::numeric_limits<double>::denorm_min()), 0x00u);
  EXPECT_EQ(EncodeFloat(k, 1.25 * 0x1p-127), 0x01u);
  EXPECT_EQ(EncodeFloat(k, 1.75 * 0x1p-127), 0x01u);
  EXPECT_EQ(EncodeFloat(k, 0x1p-126), 0x01u);
  EXPECT_EQ(EncodeFloat(k, 1.5 * 0x1p-126), 0x02u);
  // Top of the range.
  EXPECT_EQ(EncodeFloat(k, 0x1p127), 0xFEu);
  EXPECT_EQ(EncodeFloat(k, 1.4 * 0x1p127), 0xFEu);
  EXPECT_EQ(EncodeFloat(k, 1.5 * 0x1p127), 0xFFu);
  EXPECT_EQ(EncodeFloat(k, 0x1p128), 0xFFu);
  EXPECT_EQ(EncodeFloat(k, 1.6 * 0x1p128), 0xFFu);
  EXPECT_EQ(EncodeFloat(k, std::numeric_limits<double>::max()), 0xFFu);
  // Random positive values in range: nearest power of two, ties up.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::uniform_int_distribution<int> expo(-126, 126);
  for (int i = 0; i < 100000; ++i) {
    const int e = expo(rng);
    const double m = mant(rng);
    const double x = std::ldexp(m, e);
    const uint32_t want = static_cast<uint32_t>(e + 127 + (m >= 1.5 ? 1 : 0));
    ASSERT_EQ(EncodeFloat(k, x), want) << x;
  }
}

// Random doubles over each format's whole range (plus a margin) against the
// brute-force oracle.
TEST(FloatTypesTest, RandomDoublesMatchOracle) {
  std::mt19937_64 rng(12345);
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    Oracle oracle(e);
    int lo_exp, hi_exp;
    std::frexp(e.min_subnormal, &lo_exp);
    std::frexp(e.max_finite, &hi_exp);
    std::uniform_int_distribution<int> expo(lo_exp - 3, hi_exp + 2);
    for (int i = 0; i < 200000; ++i) {
      const uint64_t r = rng();
      const double m = 1.0 + static_cast<double>(r >> 12) * 0x1p-52;
      double x = std::ldexp(m, expo(rng));
      if (r & 1) x = -x;
      const uint32_t want = oracle.Encode(x);
      ASSERT_EQ(EncodeFloat(e.kind, x), want) << x;
      ASSERT_EQ(EncodeFloatGeneric(e.kind, x), want) << x;
    }
  }
}

// Random float bit patterns: the float fast paths, the generic double path
// and the oracle all agree, for every format.
TEST(FloatTypesTest, FloatAndDoubleEncodingAgree) {
  std::mt19937 rng(99);
  std::vector<Oracle> oracles;
  for (const Expected& e : kExpected) oracles.emplace_back(e);
  for (int i = 0; i < 300000; ++i) {
    uint32_t bits = rng();
    // Bias half of the samples towards the narrow formats' range, 2^-23..2^8.
    if (i & 1) bits = (bits & 0x807FFFFF) | ((0x68 + (rng() & 0x1F)) << 23);
    const float f = BitsFloat(bits);
    const double d = f;
    ASSERT_EQ(FloatToHalf(f), EncodeFloatGeneric(FloatFormatKind::kF16, d))
        << Hex(bits);
    ASSERT_EQ(FloatToHalf(f), EncodeFloat(FloatFormatKind::kF16, d))
        << Hex(bits);
    ASSERT_EQ(FloatToBfloat16(f), EncodeFloatGeneric(FloatFormatKind::kBF16, d))
        << Hex(bits);
    ASSERT_EQ(FloatToBfloat16(f), EncodeFloat(FloatFormatKind::kBF16, d))
        << Hex(bits);
    for (size_t k = 0; k < oracles.size(); ++k) {
      ASSERT_EQ(EncodeFloat(kExpected[k].kind, d), oracles[k].Encode(d))
          << kExpected[k].name << " " << Hex(bits);
    }
  }
}

// Every float in the half/bfloat16 subnormal and near-overflow regions,
// exhaustively over a slice of the low bits.
TEST(FloatTypesTest, HalfFastPathDenseRegions) {
  for (uint32_t hi = 0x33000000; hi < 0x39000000; hi += 0x1000) {
    for (uint32_t lo : {0u, 1u, 0x7FFu, 0x800u, 0x801u, 0xFFFu}) {
      const uint32_t bits = hi | lo;
      const float f = BitsFloat(bits);
      ASSERT_EQ(FloatToHalf(f), EncodeFloatGeneric(FloatFormatKind::kF16, f))
          << Hex(bits);
      ASSERT_EQ(FloatToHalf(-f), EncodeFloatGeneric(FloatFormatKind::kF16, -f))
          << Hex(bits);
    }
  }
  for (uint32_t bits = 0x477F0000; bits < 0x47810000; ++bits) {
    const float f = BitsFloat(bits);
    ASSERT_EQ(FloatToHalf(f), EncodeFloatGeneric(FloatFormatKind::kF16, f))
        << Hex(bits);
  }
  for (uint32_t bits = 0; bits < 0x01000000; bits += 0x3F) {  // BF16 subnormals
    const float f = BitsFloat(bits);
    ASSERT_EQ(FloatToBfloat16(f), EncodeFloatGeneric(FloatFormatKind::kBF16, f))
        << Hex(bits);
  }
  for (uint32_t bits = 0x7F7F0000; bits < 0x7F800000; ++bits) {
    const float f = BitsFloat(bits);
    ASSERT_EQ(FloatToBfloat16(f), EncodeFloatGeneric(FloatFormatKind::kBF16, f))
        << Hex(bits);
  }
}

}  // namespace
}  // namespace xla
