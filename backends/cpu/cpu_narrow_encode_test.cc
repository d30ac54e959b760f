// Rounding to the 8- and 4-bit floats in generated code (codegen/emit_narrow_float.cc)
// against hlo/float_types.h's EncodeFloat, bit for bit, for f32 and f64 sources:
//  * every f32 exponent (subnormals, infinities and NaNs included) crossed with every
//    pattern of the top 8 fraction bits and a few patterns of the low 15: every format's
//    rounding decision (the round bit is always among the top 6 fraction bits, the implicit
//    bit for the smallest values) is seen at, just above and just below each tie, at every
//    boundary (zero, subnormal, normal, overflow) of every format, for both signs;
//  * for f64, each of those doubles and its neighbours one double ulp away (the sticky bits
//    an f32 cannot hold), doubles outside the f32 range and random double bits;
//  * random f32 bit patterns.
// Converts from the other types that round to these formats (integers, f16, bf16, the
// narrow floats themselves) are compared with the interpreter, exhaustively for f16 and bf16.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"
#include "hlo/float_types.h"

namespace xla {
namespace cpu {
namespace {

using testing::SameOnBothBackends;

const PrimitiveType kNarrowFloats[] = {F8E5M2,     F8E4M3,     F8E4M3FN, F8E4M3B11FNUZ, F8E3M4,
                                       F8E5M2FNUZ, F8E4M3FNUZ, F4E2M1FN, F8E8M0FNU};

std::string TypeName(PrimitiveType t) { return std::string(primitive_util::LowercasePrimitiveTypeName(t)); }

std::string ConvertModule(PrimitiveType from, PrimitiveType to, int64_t n) {
  return absl::StrCat("HloModule m\nENTRY e {\n  x = ", TypeName(from), "[", n, "] parameter(0)\n  ROOT r = ",
                      TypeName(to), "[", n, "] convert(x)\n}\n");
}

template <typename T>
Literal LiteralOfBits(PrimitiveType type, const std::vector<T>& bits) {
  Literal literal = *Literal::Create(ShapeUtil::MakeShape(type, {static_cast<int64_t>(bits.size())}));
  std::memcpy(literal.untyped_data(), bits.data(), bits.size() * sizeof(T));
  return literal;
}

// The f32 bit patterns described at the top.
std::vector<uint32_t> F32Inputs() {
  std::vector<uint32_t> bits;
  const uint32_t low_patterns[] = {0, 1, 0x3FFF, 0x4000, 0x4001, 0x7FFF};
  for (uint32_t sign = 0; sign < 2; ++sign) {
    for (uint32_t exponent = 0; exponent < 256; ++exponent) {
      for (uint32_t top = 0; top < 256; ++top) {
        for (uint32_t low : low_patterns) bits.push_back(sign << 31 | exponent << 23 | top << 15 | low);
      }
    }
  }
  std::mt19937_64 rng(11);
  for (int i = 0; i < 100000; ++i) bits.push_back(static_cast<uint32_t>(rng()));
  return bits;
}

uint64_t DoubleBits(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  return bits;
}

double DoubleOf(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d;
}

// The f64 inputs described at the top.
std::vector<uint64_t> F64Inputs(const std::vector<uint32_t>& f32_inputs) {
  std::vector<uint64_t> bits;
  for (uint32_t b : f32_inputs) {
    float f;
    std::memcpy(&f, &b, sizeof(f));
    const uint64_t d = DoubleBits(static_cast<double>(f));
    bits.push_back(d);
    // One ulp towards and away from zero (zero has nothing below it; past an infinity is a
    // NaN, next to a NaN another payload).
    if ((d & ~(uint64_t{1} << 63)) != 0) bits.push_back(d - 1);
    bits.push_back(d + 1);
  }
  const double specials[] = {1e300, -1e300, 1e-300, -1e-300, 0x1p-1022, -0x1p-1022, 0x1p-1074, -0x1p-1074,
                             0x1p-149, 0x1p-150, 0x1.8p-150, 0x1p-127, 0x1.8p-127, 0x1.000001p-127, 0x0.fffffffp-127,
                             0x1.7ffffffffffffp127, 0x1.8p127, 0x1.8p128, 0x1.fp128, 0x1p129, 0x1.8p1023,
                             0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023};
  for (double s : specials) bits.push_back(DoubleBits(s));
  std::mt19937_64 rng(12);
  for (int i = 0; i < 100000; ++i) bits.push_back(rng());
  return bits;
}

// Runs convert(source) -> `to` on cpu and compares each output byte with EncodeFloat of the
// input's value; reports the number of mismatches and the first few.
::testing::AssertionResult MatchesEncodeFloat(PrimitiveType to, const Literal& source, const std::vector<double>& values) {
  const FloatFormatKind kind = *primitive_util::NarrowFloatFormat(to);
  const int64_t n = static_cast<int64_t>(values.size());
  absl::StatusOr<Literal> result =
      xla::testing::RunHlo(ConvertModule(source.shape().element_type(), to, n), {source.Clone()}, "cpu");
  if (!result.ok()) return ::testing::AssertionFailure() << result.status().message();
  const uint8_t* out = static_cast<const uint8_t*>(result->untyped_data());
  int64_t mismatches = 0;
  std::string examples;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t expected = EncodeFloat(kind, values[i]);
    if (out[i] == expected) continue;
    if (++mismatches <= 8) {
      absl::StrAppend(&examples, "\n  input bits 0x", absl::Hex(DoubleBits(values[i])), " (", values[i],
                      "): expected 0x", absl::Hex(expected), ", got 0x", absl::Hex(out[i]));
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << n << " differ from EncodeFloat" << examples;
}

TEST(CpuNarrowEncode, FromF32MatchesEncodeFloat) {
  testing::RegisterBackendsOnce();
  const std::vector<uint32_t> bits = F32Inputs();
  std::vector<double> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) {
    float f;
    std::memcpy(&f, &bits[i], sizeof(f));
    values[i] = f;  // exact, NaN sign kept
  }
  const Literal source = LiteralOfBits(F32, bits);
  for (PrimitiveType to : kNarrowFloats) EXPECT_TRUE(MatchesEncodeFloat(to, source, values)) << "f32 -> " << TypeName(to);
}

TEST(CpuNarrowEncode, FromF64MatchesEncodeFloat) {
  testing::RegisterBackendsOnce();
  const std::vector<uint64_t> bits = F64Inputs(F32Inputs());
  std::vector<double> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) values[i] = DoubleOf(bits[i]);
  const Literal source = LiteralOfBits(F64, bits);
  for (PrimitiveType to : kNarrowFloats) EXPECT_TRUE(MatchesEncodeFloat(to, source, values)) << "f64 -> " << TypeName(to);
}

// Every f16 and bf16 value, and every value of each narrow format, to each narrow format.
TEST(CpuNarrowEncode, FromHalfWidthsAndNarrowFloatsAsInterpreter) {
  std::vector<uint16_t> all16(1 << 16);
  for (uint32_t i = 0; i < all16.size(); ++i) all16[i] = static_cast<uint16_t>(i);
  std::vector<uint8_t> all8(256);
  for (uint32_t i = 0; i < all8.size(); ++i) all8[i] = static_cast<uint8_t>(i);
  for (PrimitiveType to : kNarrowFloats) {
    for (PrimitiveType from : {F16, BF16}) {
      EXPECT_TRUE(SameOnBothBackends(ConvertModule(from, to, all16.size()), {LiteralOfBits(from, all16)}))
          << TypeName(from) << " -> " << TypeName(to);
    }
    for (PrimitiveType from : kNarrowFloats) {
      // Only the low total_bits of a 4-bit float's byte are its value.
      std::vector<uint8_t> codes = all8;
      if (from == F4E2M1FN) codes.resize(16);
      EXPECT_TRUE(SameOnBothBackends(ConvertModule(from, to, codes.size()), {LiteralOfBits(from, codes)}))
          << TypeName(from) << " -> " << TypeName(to);
    }
  }
}

// Integers: every one in [-1024, 1024] (ties and overflow of every format but F8E8M0FNU) and
// powers of two and their neighbours up to the type's range (F8E8M0FNU's ties and overflow).
TEST(CpuNarrowEncode, FromIntegersAsInterpreter) {
  std::vector<int64_t> s64;
  for (int64_t i = -1024; i <= 1024; ++i) s64.push_back(i);
  for (int shift = 10; shift < 63; ++shift) {
    const int64_t p = int64_t{1} << shift;
    for (int64_t v : {p - 1, p, p + 1, p + p / 2 - 1, p + p / 2, p + p / 2 + 1}) {
      s64.push_back(v);
      s64.push_back(-v);
    }
  }
  std::vector<uint64_t> u64;
  for (int64_t v : s64) u64.push_back(static_cast<uint64_t>(v));
  u64.push_back(~uint64_t{0});
  u64.push_back(uint64_t{3} << 62);
  std::vector<int32_t> s32;
  for (int64_t v : s64) {
    if (v == static_cast<int32_t>(v)) s32.push_back(static_cast<int32_t>(v));
  }
  for (PrimitiveType to : kNarrowFloats) {
    EXPECT_TRUE(SameOnBothBackends(ConvertModule(S64, to, s64.size()), {LiteralOfBits(S64, s64)})) << TypeName(to);
    EXPECT_TRUE(SameOnBothBackends(ConvertModule(U64, to, u64.size()), {LiteralOfBits(U64, u64)})) << TypeName(to);
    EXPECT_TRUE(SameOnBothBackends(ConvertModule(S32, to, s32.size()), {LiteralOfBits(S32, s32)})) << TypeName(to);
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
