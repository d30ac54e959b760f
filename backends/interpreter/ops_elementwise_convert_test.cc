// convert, bitcast-convert, reduce-precision, stochastic-convert and map through the
// Backend interface.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;

absl::StatusOr<Literal> UnaryTo(const std::string& op, const Literal& x, const std::string& out_shape,
                                const std::string& attrs = "") {
  const std::string text = "HloModule m\nENTRY main {\n  p = " + x.shape().ToString(false) +
                           " parameter(0)\n  ROOT r = " + out_shape + " " + op + "(p)" + attrs + "\n}\n";
  return RunHlo(text, {x.Clone()});
}

uint32_t F32Bits(const Literal& l, int64_t i) {
  uint32_t bits = 0;
  std::memcpy(&bits, &l.data<float>()[l.StorageIndex(i)], 4);  // keeps NaN payloads
  return bits;
}

TEST(ElementwiseConvertTest, FloatToIntSaturatesAndNaNIsZero) {
  const Literal x = L("f32[7] {nan, inf, -inf, 3.9, -3.9, 1e10, -1e10}");
  EXPECT_TRUE(LiteralEqual(L("s32[7] {0, 2147483647, -2147483648, 3, -3, 2147483647, -2147483648}"),
                           UnaryTo("convert", x, "s32[7]")));
  EXPECT_TRUE(LiteralEqual(L("u8[7] {0, 255, 0, 3, 0, 255, 0}"), UnaryTo("convert", x, "u8[7]")));
  EXPECT_TRUE(LiteralEqual(L("s4[3] {7, -8, -3}"), UnaryTo("convert", L("f64[3] {100, -100, -3.5}"), "s4[3]")));
  EXPECT_TRUE(LiteralEqual(L("u64[2] {18446744073709551615, 0}"), UnaryTo("convert", L("f64[2] {1e30, nan}"), "u64[2]")));
}

TEST(ElementwiseConvertTest, IntToFloatAndBetweenFloats) {
  // 2^24 + 1 is a tie between 2^24 and 2^24 + 2: nearest even.
  EXPECT_TRUE(LiteralEqual(L("f32[2] {16777216, 16777220}"), UnaryTo("convert", L("s32[2] {16777217, 16777219}"), "f32[2]")));
  EXPECT_TRUE(LiteralEqual(L("f16[3] {inf, 65504, -0}"), UnaryTo("convert", L("f32[3] {65520, 65519, -0}"), "f16[3]")));
  EXPECT_TRUE(LiteralEqual(L("bf16[2] {1, 1.015625}"), UnaryTo("convert", L("f32[2] {1.00390625, 1.01171875}"), "bf16[2]")));
  EXPECT_TRUE(LiteralEqual(L("f8e4m3fn[3] {448, 2, -0.5}"), UnaryTo("convert", L("f32[3] {448, 2, -0.5}"), "f8e4m3fn[3]")));
  EXPECT_TRUE(LiteralEqual(L("f8e5m2[2] {inf, 0.25}"), UnaryTo("convert", L("f32[2] {1e6, 0.25}"), "f8e5m2[2]")));
  EXPECT_TRUE(LiteralEqual(L("f32[2] {448, -0.5}"), UnaryTo("convert", L("f8e4m3fn[2] {448, -0.5}"), "f32[2]")));
  EXPECT_TRUE(LiteralEqual(L("pred[4] {false, false, true, true}"), UnaryTo("convert", L("f32[4] {0, -0, nan, 2}"), "pred[4]")));
  EXPECT_TRUE(LiteralEqual(L("s32[2] {1, 0}"), UnaryTo("convert", L("pred[2] {true, false}"), "s32[2]")));
  EXPECT_TRUE(LiteralEqual(L("s8[2] {44, -1}"), UnaryTo("convert", L("s32[2] {300, 255}"), "s8[2]")));
  EXPECT_TRUE(LiteralEqual(L("c64[2] {(1.5, 0), (-2, 0)}"), UnaryTo("convert", L("f32[2] {1.5, -2}"), "c64[2]")));
  // complex -> real is not a convert (use real/imag).
  EXPECT_FALSE(UnaryTo("convert", L("c64[1] {(1, 2)}"), "f32[1]").ok());
  // Layouts: a column-major operand keeps its logical values.
  auto arg = L("s32[2,2] {{1, 2}, {3, 4}}").Relayout(Layout({0, 1}));
  ASSERT_TRUE(arg.ok());
  EXPECT_TRUE(LiteralEqual(L("f64[2,2] {{1, 2}, {3, 4}}"),
                           RunHlo("HloModule m\nENTRY main {\n  p = s32[2,2]{0,1} parameter(0)\n"
                                  "  ROOT r = f64[2,2]{1,0} convert(p)\n}\n",
                                  {arg->Clone()})));
}

TEST(ElementwiseConvertTest, BitcastConvertSameWidth) {
  EXPECT_TRUE(LiteralEqual(L("s32[3] {1065353216, -2147483648, 2143289344}"),
                           UnaryTo("bitcast-convert", L("f32[3] {1, -0, nan}"), "s32[3]")));
  EXPECT_TRUE(LiteralEqual(L("f32[2] {1, -2}"), UnaryTo("bitcast-convert", L("u32[2] {1065353216, 3221225472}"), "f32[2]")));
  EXPECT_TRUE(LiteralEqual(L("u16[2] {15360, 32768}"), UnaryTo("bitcast-convert", L("f16[2] {1, -0}"), "u16[2]")));
  EXPECT_TRUE(LiteralEqual(L("bf16[1] {1}"), UnaryTo("bitcast-convert", L("s16[1] {16256}"), "bf16[1]")));
  EXPECT_TRUE(LiteralEqual(L("s4[2] {-1, 7}"), UnaryTo("bitcast-convert", L("u4[2] {15, 7}"), "s4[2]")));
  EXPECT_TRUE(LiteralEqual(L("u8[2] {56, 128}"), UnaryTo("bitcast-convert", L("f8e4m3fn[2] {1, -0}"), "u8[2]")));
  EXPECT_TRUE(LiteralEqual(L("s64[1] {-4616189618054758400}"), UnaryTo("bitcast-convert", L("f64[1] {-1}"), "s64[1]")));
}

TEST(ElementwiseConvertTest, BitcastConvertChangesSize) {
  // Little-endian: the new minor dimension runs from the least significant part.
  EXPECT_TRUE(LiteralEqual(L("u8[2,4] {{0, 0, 128, 63}, {1, 0, 0, 0}}"),
                           UnaryTo("bitcast-convert", L("f32[2] {1, 1.4e-45}"), "u8[2,4]")));
  EXPECT_TRUE(LiteralEqual(L("f32[2] {1, -2}"),
                           UnaryTo("bitcast-convert", L("u8[2,4] {{0, 0, 128, 63}, {0, 0, 0, 192}}"), "f32[2]")));
  EXPECT_TRUE(LiteralEqual(L("s16[1,4] {{1, 0, 0, -32768}}"),
                           UnaryTo("bitcast-convert", L("s64[1] {-9223372036854775807}"), "s16[1,4]")));
  // XLA rejects bitcasts between complex and real types.
  EXPECT_FALSE(UnaryTo("bitcast-convert", L("c64[1] {(1, -2)}"), "f32[1,2]").ok());
  // Sub-byte: two nibbles per byte, low nibble first.
  EXPECT_TRUE(LiteralEqual(L("s4[2,2] {{1, 2}, {-1, -8}}"), UnaryTo("bitcast-convert", L("s8[2] {33, -113}"), "s4[2,2]")));
  EXPECT_TRUE(LiteralEqual(L("u8[2] {33, 143}"), UnaryTo("bitcast-convert", L("u4[2,2] {{1, 2}, {15, 8}}"), "u8[2]")));
  // Scalars and zero-size arrays.
  EXPECT_TRUE(LiteralEqual(L("u16[2] {0, 16256}"), UnaryTo("bitcast-convert", L("f32[] 1"), "u16[2]")));
  auto empty = Literal::Create(ShapeUtil::MakeShape(F32, {0}));
  ASSERT_TRUE(empty.ok());
  auto r = UnaryTo("bitcast-convert", *empty, "u8[0,4]");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->element_count(), 0);
}

TEST(ElementwiseConvertTest, ReducePrecision) {
  // f32 reduced to f16's range and precision.
  const Literal x = L("f32[8] {1.00048828125, 1.00146484375, 65520, 65504, 1e-8, -0, nan, -inf}");
  EXPECT_TRUE(LiteralEqual(L("f32[8] {1, 1.001953125, inf, 65504, 0, -0, nan, -inf}"),
                           UnaryTo("reduce-precision", x, "f32[8]", ", exponent_bits=5, mantissa_bits=10")));
  // Underflow keeps the sign.
  auto neg = UnaryTo("reduce-precision", L("f32[1] {-1e-8}"), "f32[1]", ", exponent_bits=5, mantissa_bits=10");
  ASSERT_TRUE(neg.ok());
  EXPECT_EQ(F32Bits(*neg, 0), 0x80000000u);
  // No mantissa bits: NaN becomes +inf; ties (1.5, 3) go to the even exponent; 1.25 -> 1.
  EXPECT_TRUE(LiteralEqual(L("f32[4] {inf, 2, 1, 2}"), UnaryTo("reduce-precision", L("f32[4] {nan, 1.5, 1.25, 3}"),
                                                               "f32[4]", ", exponent_bits=8, mantissa_bits=0")));
  // A NaN whose payload rounds away stays the input NaN.
  auto nan = UnaryTo("reduce-precision", L("f32[1] {nan(0x1)}"), "f32[1]", ", exponent_bits=8, mantissa_bits=3");
  ASSERT_TRUE(nan.ok());
  EXPECT_EQ(F32Bits(*nan, 0), 0x7F800001u);
  // f16 in its own bit space: denormals survive a no-op reduction.
  EXPECT_TRUE(LiteralEqual(L("f16[2] {5.96046448e-08, 1.5}"), UnaryTo("reduce-precision", L("f16[2] {5.96046448e-08, 1.5}"),
                                                                      "f16[2]", ", exponent_bits=5, mantissa_bits=10")));
  EXPECT_TRUE(LiteralEqual(L("f64[2] {1, inf}"), UnaryTo("reduce-precision", L("f64[2] {1.0000001, 1e300}"), "f64[2]",
                                                         ", exponent_bits=8, mantissa_bits=7")));
  EXPECT_TRUE(LiteralEqual(L("bf16[1] {1}"), UnaryTo("reduce-precision", L("bf16[1] {1.0078125}"), "bf16[1]",
                                                     ", exponent_bits=8, mantissa_bits=2")));
  EXPECT_FALSE(UnaryTo("reduce-precision", L("s32[1] {1}"), "s32[1]", ", exponent_bits=5, mantissa_bits=10").ok());
}

TEST(ElementwiseConvertTest, StochasticConvert) {
  const char* hlo = R"(HloModule m
ENTRY main {
  x = f32[10] parameter(0)
  r = u32[10] parameter(1)
  ROOT y = s32[10] stochastic-convert(x, r)
})";
  auto result = RunHlo(hlo, {L("f32[10] {2.25, 2.25, -2.25, -2.25, nan, inf, -inf, 1e10, -0.5, 3}"),
                             L("u32[10] {0, 4294967295, 0, 4294967295, 0, 0, 0, 0, 0, 0}")});
  EXPECT_TRUE(LiteralEqual(L("s32[10] {3, 2, -3, -2, 0, 2147483647, -2147483648, 2147483647, -1, 3}"), result));
  // The threshold: fraction 0.25 scaled to 2^30 for 32 random bits.
  auto edge = RunHlo(hlo, {L("f32[10] {2.25, 2.25, 0.5, 0.5, 0, 0, 0, 0, 0, 0}"),
                           L("u32[10] {1073741823, 1073741824, 2147483647, 2147483648, 0, 0, 0, 0, 0, 0}")});
  EXPECT_TRUE(LiteralEqual(L("s32[10] {3, 2, 1, 0, 0, 0, 0, 0, 0, 0}"), edge));
  const char* narrow = R"(HloModule m
ENTRY main {
  x = f16[3] parameter(0)
  r = u16[3] parameter(1)
  ROOT y = s8[3] stochastic-convert(x, r)
})";
  EXPECT_TRUE(LiteralEqual(L("s8[3] {127, -128, -128}"),
                           RunHlo(narrow, {L("f16[3] {300, -127.5, -200}"), L("u16[3] {0, 0, 0}")})));
}

TEST(ElementwiseMapTest, AppliesComputationPerElement) {
  const char* hlo = R"(HloModule m
add_times_two {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  ROOT r = f32[] add(s, s)
}
ENTRY main {
  x = f32[2,2]{0,1} parameter(0)
  y = f32[2,2] parameter(1)
  ROOT m = f32[2,2] map(x, y), dimensions={0,1}, to_apply=add_times_two
})";
  auto x = L("f32[2,2] {{1, 2}, {3, 4}}").Relayout(Layout({0, 1}));
  ASSERT_TRUE(x.ok());
  EXPECT_TRUE(LiteralEqual(L("f32[2,2] {{22, 44}, {66, 88}}"),
                           RunHlo(hlo, {x->Clone(), L("f32[2,2] {{10, 20}, {30, 40}}")})));
  const char* to_pred = R"(HloModule m
is_big {
  a = s8[] parameter(0)
  c = s8[] constant(10)
  ROOT r = pred[] compare(a, c), direction=GT
}
ENTRY main {
  x = s8[3] parameter(0)
  ROOT m = pred[3] map(x), dimensions={0}, to_apply=is_big
})";
  EXPECT_TRUE(LiteralEqual(L("pred[3] {false, true, false}"), RunHlo(to_pred, {L("s8[3] {10, 11, -128}")})));
}

}  // namespace
}  // namespace xla
