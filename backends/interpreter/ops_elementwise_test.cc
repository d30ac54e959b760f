// Elementwise unary, binary and ternary ops through the Backend interface.
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>

#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;
using testing::LiteralNear;
using testing::RunHlo;

// ROOT r = <out> <op>(p0[, p1[, p2]])<attrs>, parameters typed as given.
std::string OpHlo(const std::string& op, const std::vector<std::string>& in_shapes,
                  const std::string& out_shape, const std::string& attrs = "") {
  std::string text = "HloModule m\nENTRY main {\n";
  std::string args;
  for (size_t i = 0; i < in_shapes.size(); ++i) {
    text += "  p" + std::to_string(i) + " = " + in_shapes[i] + " parameter(" + std::to_string(i) + ")\n";
    args += (i ? ", p" : "p") + std::to_string(i);
  }
  text += "  ROOT r = " + out_shape + " " + op + "(" + args + ")" + attrs + "\n}\n";
  return text;
}

absl::StatusOr<Literal> Unary(const std::string& op, const Literal& x, const std::string& out_type = "") {
  const std::string in = x.shape().ToString(false);
  std::string out = in;
  if (!out_type.empty()) out = out_type + in.substr(in.find('['));
  return RunHlo(OpHlo(op, {in}, out), {x.Clone()});
}

absl::StatusOr<Literal> Binary(const std::string& op, const Literal& a, const Literal& b,
                               const std::string& out_type = "", const std::string& attrs = "") {
  const std::string in = a.shape().ToString(false);
  std::string out = in;
  if (!out_type.empty()) out = out_type + in.substr(in.find('['));
  return RunHlo(OpHlo(op, {in, b.shape().ToString(false)}, out, attrs), {a.Clone(), b.Clone()});
}

bool SignBit(const Literal& l, int64_t i) { return std::signbit(l.GetAsDouble(i)); }

TEST(ElementwiseUnaryTest, IntegerNegateAbsSignWrap) {
  EXPECT_TRUE(LiteralEqual(L("s8[4] {-128, 1, 0, -127}"), Unary("negate", L("s8[4] {-128, -1, 0, 127}"))));
  EXPECT_TRUE(LiteralEqual(L("s8[4] {-128, 1, 0, 127}"), Unary("abs", L("s8[4] {-128, -1, 0, 127}"))));
  EXPECT_TRUE(LiteralEqual(L("s64[2] {-9223372036854775808, 5}"),
                           Unary("abs", L("s64[2] {-9223372036854775808, -5}"))));
  EXPECT_TRUE(LiteralEqual(L("u8[3] {255, 0, 1}"), Unary("negate", L("u8[3] {1, 0, 255}"))));
  EXPECT_TRUE(LiteralEqual(L("s32[3] {-1, 0, 1}"), Unary("sign", L("s32[3] {-5, 0, 7}"))));
  EXPECT_TRUE(LiteralEqual(L("s4[3] {-8, 1, -7}"), Unary("negate", L("s4[3] {-8, -1, 7}"))));
}

TEST(ElementwiseUnaryTest, FloatSignKeepsNegativeZeroAndNaN) {
  auto r = Unary("sign", L("f32[6] {-2, -0, 0, nan, inf, -inf}"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(LiteralEqual(L("f32[6] {-1, -0, 0, nan, 1, -1}"), r));
  EXPECT_TRUE(SignBit(*r, 1));
  EXPECT_FALSE(SignBit(*r, 2));
  auto h = Unary("sign", L("f16[3] {-0.5, -0, 3}"));
  EXPECT_TRUE(LiteralEqual(L("f16[3] {-1, -0, 1}"), h));
  EXPECT_TRUE(SignBit(*h, 1));
  EXPECT_TRUE(LiteralNear(L("c64[2] {(0.6, 0.8), (0, 0)}"), Unary("sign", L("c64[2] {(3, 4), (0, 0)}")), 1e-6));
}

TEST(ElementwiseUnaryTest, Rounding) {
  const Literal x = L("f32[7] {0.5, 1.5, 2.5, -0.5, -2.5, -0.2, 7}");
  EXPECT_TRUE(LiteralEqual(L("f32[7] {1, 2, 3, -1, -3, -0, 7}"), Unary("round-nearest-afz", x)));
  auto even = Unary("round-nearest-even", x);
  EXPECT_TRUE(LiteralEqual(L("f32[7] {0, 2, 2, -0, -2, -0, 7}"), even));
  EXPECT_TRUE(SignBit(*even, 3));
  EXPECT_TRUE(LiteralEqual(L("f32[7] {0, 1, 2, -1, -3, -1, 7}"), Unary("floor", x)));
  EXPECT_TRUE(LiteralEqual(L("f32[7] {1, 2, 3, -0, -2, -0, 7}"), Unary("ceil", x)));
  EXPECT_TRUE(LiteralEqual(L("bf16[3] {2, -3, inf}"), Unary("ceil", L("bf16[3] {1.5, -3.5, inf}"))));
  EXPECT_TRUE(LiteralEqual(L("f64[2] {3, nan}"), Unary("round-nearest-afz", L("f64[2] {2.5, nan}"))));
  // Not defined on integers: an error, not a crash.
  auto bad = Unary("floor", L("s32[1] {1}"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("s32"));
}

TEST(ElementwiseUnaryTest, FloatMath) {
  EXPECT_TRUE(LiteralNear(L("f32[4] {1, 2.718281828, 0, inf}"), Unary("exponential", L("f32[4] {0, 1, -inf, inf}")), 1e-6));
  EXPECT_TRUE(LiteralNear(L("f64[4] {0, 1, -inf, nan}"), Unary("log", L("f64[4] {1, 2.718281828459045, 0, -1}")), 1e-15));
  EXPECT_TRUE(LiteralNear(L("f32[4] {2, 0, -0, nan}"), Unary("sqrt", L("f32[4] {4, 0, -0, -1}")), 0));
  EXPECT_TRUE(LiteralNear(L("f32[3] {0.5, inf, nan}"), Unary("rsqrt", L("f32[3] {4, 0, -4}")), 1e-7));
  EXPECT_TRUE(LiteralNear(L("f64[3] {-2, 3, -0}"), Unary("cbrt", L("f64[3] {-8, 27, -0}")), 1e-15));
  EXPECT_TRUE(LiteralNear(L("f64[2] {1e-20, -1e-20}"), Unary("exponential-minus-one", L("f64[2] {1e-20, -1e-20}")), 1e-15));
  EXPECT_TRUE(LiteralNear(L("f64[2] {1e-20, -inf}"), Unary("log-plus-one", L("f64[2] {1e-20, -1}")), 1e-15));
  EXPECT_TRUE(LiteralNear(L("f32[3] {0.5, 1, 0}"), Unary("logistic", L("f32[3] {0, inf, -inf}")), 1e-7));
  EXPECT_TRUE(LiteralNear(L("f32[3] {0, 0.841470985, -1}"), Unary("sine", L("f32[3] {0, 1, -1.5707963}")), 1e-6));
  EXPECT_TRUE(LiteralNear(L("f32[2] {1, 0.540302306}"), Unary("cosine", L("f32[2] {0, 1}")), 1e-6));
  EXPECT_TRUE(LiteralNear(L("f64[2] {0, 1.5574077246549023}"), Unary("tan", L("f64[2] {0, 1}")), 1e-14));
  EXPECT_TRUE(LiteralNear(L("f32[3] {0, 1, -1}"), Unary("tanh", L("f32[3] {0, inf, -inf}")), 0));
  EXPECT_TRUE(LiteralNear(L("f64[1] {1.1752011936438014}"), Unary("sinh", L("f64[1] {1}")), 1e-15));
  EXPECT_TRUE(LiteralNear(L("f64[1] {1.5430806348152437}"), Unary("cosh", L("f64[1] {1}")), 1e-15));
  EXPECT_TRUE(LiteralNear(L("f64[3] {1.5707963267948966, 0, nan}"), Unary("asin", L("f64[3] {1, 0, 2}")), 1e-15));
  EXPECT_TRUE(LiteralNear(L("f64[2] {0, 3.141592653589793}"), Unary("acos", L("f64[2] {1, -1}")), 1e-15));
  EXPECT_TRUE(LiteralNear(L("f64[2] {0.881373587019543, 0}"), Unary("asinh", L("f64[2] {1, 0}")), 1e-15));
  EXPECT_TRUE(LiteralNear(L("f64[2] {0, nan}"), Unary("acosh", L("f64[2] {1, 0.5}")), 1e-15));
  EXPECT_TRUE(LiteralNear(L("f64[3] {0, inf, 0.5493061443340549}"), Unary("atanh", L("f64[3] {0, 1, 0.5}")), 1e-15));
  EXPECT_TRUE(LiteralNear(L("f32[3] {0, 1, -0.842700793}"), Unary("erf", L("f32[3] {0, inf, -1}")), 1e-6));
  EXPECT_TRUE(LiteralEqual(L("pred[5] {true, false, false, false, true}"),
                           Unary("is-finite", L("f32[5] {1, inf, -inf, nan, -0}"), "pred")));
  EXPECT_TRUE(LiteralEqual(L("pred[2] {true, false}"), Unary("is-finite", L("bf16[2] {3, nan}"), "pred")));
}

TEST(ElementwiseUnaryTest, NarrowFloatsRoundOnce) {
  // e = 2.71828...: the nearest f16 is 2.71875, the nearest bf16 2.71875 too.
  EXPECT_TRUE(LiteralEqual(L("f16[2] {2.71875, 1}"), Unary("exponential", L("f16[2] {1, 0}"))));
  EXPECT_TRUE(LiteralEqual(L("bf16[1] {2.71875}"), Unary("exponential", L("bf16[1] {1}"))));
  EXPECT_TRUE(LiteralEqual(L("f16[2] {inf, 0}"), Unary("exponential", L("f16[2] {12, -20}"))));
  // f16 denormals are values, not zero.
  EXPECT_TRUE(LiteralEqual(L("f16[1] {-5.96046448e-08}"), Unary("negate", L("f16[1] {5.96046448e-08}"))));
  EXPECT_TRUE(LiteralEqual(L("f8e4m3fn[2] {-448, 2}"), Unary("negate", L("f8e4m3fn[2] {448, -2}"))));
}

TEST(ElementwiseUnaryTest, ComplexMath) {
  EXPECT_TRUE(LiteralNear(L("c64[2] {(-1, 0), (2.718281828, 0)}"),
                          Unary("exponential", L("c64[2] {(0, 3.14159265), (1, 0)}")), 1e-6, 1e-6));
  EXPECT_TRUE(LiteralNear(L("c128[1] {(0, 2)}"), Unary("sqrt", L("c128[1] {(-4, 0)}")), 1e-15));
  EXPECT_TRUE(LiteralNear(L("c128[1] {(0, 3.141592653589793)}"), Unary("log", L("c128[1] {(-1, 0)}")), 1e-15));
  EXPECT_TRUE(LiteralNear(L("c128[1] {(1e-20, 2e-20)}"), Unary("exponential-minus-one", L("c128[1] {(1e-20, 2e-20)}")), 1e-12));
  EXPECT_TRUE(LiteralNear(L("c128[1] {(1e-20, 2e-20)}"), Unary("log-plus-one", L("c128[1] {(1e-20, 2e-20)}")), 1e-12));
  EXPECT_TRUE(LiteralEqual(L("f32[2] {5, inf}"), Unary("abs", L("c64[2] {(3, -4), (inf, nan)}"), "f32")));
  EXPECT_TRUE(LiteralEqual(L("f64[1] {5}"), Unary("abs", L("c128[1] {(-3, 4)}"), "f64")));
  EXPECT_TRUE(LiteralEqual(L("f32[2] {1, -0}"), Unary("real", L("c64[2] {(1, 2), (-0, 3)}"), "f32")));
  EXPECT_TRUE(LiteralEqual(L("f32[2] {2, 3}"), Unary("imag", L("c64[2] {(1, 2), (-0, 3)}"), "f32")));
  EXPECT_TRUE(LiteralEqual(L("f32[2] {7, nan}"), Unary("real", L("f32[2] {7, nan}"))));
  EXPECT_TRUE(LiteralEqual(L("f32[2] {0, 0}"), Unary("imag", L("f32[2] {7, nan}"))));
  EXPECT_TRUE(LiteralEqual(L("c64[1] {(-1, 2)}"), Unary("negate", L("c64[1] {(1, -2)}"))));
  EXPECT_FALSE(Unary("floor", L("c64[1] {(1, 2)}")).ok());
  EXPECT_FALSE(Unary("cbrt", L("c64[1] {(1, 2)}")).ok());
}

TEST(ElementwiseUnaryTest, BitOps) {
  EXPECT_TRUE(LiteralEqual(L("pred[2] {false, true}"), Unary("not", L("pred[2] {true, false}"))));
  EXPECT_TRUE(LiteralEqual(L("u8[3] {255, 0, 127}"), Unary("not", L("u8[3] {0, 255, 128}"))));
  EXPECT_TRUE(LiteralEqual(L("s32[2] {-1, 5}"), Unary("not", L("s32[2] {0, -6}"))));
  EXPECT_TRUE(LiteralEqual(L("s4[2] {-1, 7}"), Unary("not", L("s4[2] {0, -8}"))));
  EXPECT_TRUE(LiteralEqual(L("s8[3] {8, 0, 1}"), Unary("popcnt", L("s8[3] {-1, 0, -128}"))));
  EXPECT_TRUE(LiteralEqual(L("u64[2] {64, 1}"), Unary("popcnt", L("u64[2] {18446744073709551615, 1024}"))));
  EXPECT_TRUE(LiteralEqual(L("s32[4] {32, 31, 0, 1}"),
                           Unary("count-leading-zeros", L("s32[4] {0, 1, -1, 1073741824}"))));
  EXPECT_TRUE(LiteralEqual(L("u8[3] {8, 7, 0}"), Unary("count-leading-zeros", L("u8[3] {0, 1, 128}"))));
  EXPECT_TRUE(LiteralEqual(L("s4[3] {4, 3, 0}"), Unary("count-leading-zeros", L("s4[3] {0, 1, -1}"))));
  EXPECT_TRUE(LiteralEqual(L("u4[2] {4, 1}"), Unary("popcnt", L("u4[2] {15, 8}"))));
  EXPECT_FALSE(Unary("not", L("f32[1] {1}")).ok());
  EXPECT_FALSE(Unary("popcnt", L("pred[1] {true}")).ok());
}

TEST(ElementwiseUnaryTest, ShapesLayoutsAndEmpty) {
  // Zero-size arrays and scalars.
  auto empty = Literal::Create(ShapeUtil::MakeShape(F32, {0, 3}));
  ASSERT_TRUE(empty.ok());
  auto r = RunHlo(OpHlo("negate", {"f32[0,3]"}, "f32[0,3]"), {empty->Clone()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->element_count(), 0);
  EXPECT_EQ(r->shape().dimensions(), std::vector<int64_t>({0, 3}));
  EXPECT_TRUE(LiteralEqual(L("f64[] -2.5"), Unary("negate", L("f64[] 2.5"))));
  // A column-major operand and a row-major result: values follow logical indices.
  auto arg = L("f32[2,3] {{1, -2, 3}, {-4, 5, -6}}").Relayout(Layout({0, 1}));
  ASSERT_TRUE(arg.ok());
  auto abs = RunHlo(OpHlo("abs", {"f32[2,3]{0,1}"}, "f32[2,3]{1,0}"), {arg->Clone()});
  EXPECT_TRUE(LiteralEqual(L("f32[2,3] {{1, 2, 3}, {4, 5, 6}}"), abs));
  auto col = RunHlo(OpHlo("negate", {"s32[2,2,2]{1,2,0}"}, "s32[2,2,2]{0,2,1}"),
                    {*L("s32[2,2,2] {{{1,2},{3,4}},{{5,6},{7,8}}}").Relayout(Layout({1, 2, 0}))});
  EXPECT_TRUE(LiteralEqual(L("s32[2,2,2] {{{-1,-2},{-3,-4}},{{-5,-6},{-7,-8}}}"), col));
}

TEST(ElementwiseBinaryTest, IntegerDivisionEdgeCases) {
  const Literal a = L("s32[5] {7, -7, 5, -2147483648, -2147483648}");
  const Literal b = L("s32[5] {2, 2, 0, -1, 1}");
  EXPECT_TRUE(LiteralEqual(L("s32[5] {3, -3, -1, -2147483648, -2147483648}"), Binary("divide", a, b)));
  EXPECT_TRUE(LiteralEqual(L("s32[5] {1, -1, 5, 0, 0}"), Binary("remainder", a, b)));
  EXPECT_TRUE(LiteralEqual(L("s8[2] {-128, 0}"), Binary("divide", L("s8[2] {-128, 0}"), L("s8[2] {-1, -1}"))));
  EXPECT_TRUE(LiteralEqual(L("s64[2] {-9223372036854775808, -1}"),
                           Binary("divide", L("s64[2] {-9223372036854775808, 3}"), L("s64[2] {-1, 0}"))));
  EXPECT_TRUE(LiteralEqual(L("s64[1] {0}"), Binary("remainder", L("s64[1] {-9223372036854775808}"), L("s64[1] {-1}"))));
  EXPECT_TRUE(LiteralEqual(L("u8[2] {255, 2}"), Binary("divide", L("u8[2] {7, 5}"), L("u8[2] {0, 2}"))));
  EXPECT_TRUE(LiteralEqual(L("u8[2] {7, 1}"), Binary("remainder", L("u8[2] {7, 5}"), L("u8[2] {0, 2}"))));
  EXPECT_TRUE(LiteralEqual(L("u64[1] {18446744073709551615}"), Binary("divide", L("u64[1] {9}"), L("u64[1] {0}"))));
  EXPECT_TRUE(LiteralNear(L("f32[4] {inf, -inf, nan, -1.5}"),
                          Binary("divide", L("f32[4] {1, -1, 0, 3}"), L("f32[4] {0, 0, 0, -2}")), 0));
  EXPECT_TRUE(LiteralNear(L("f64[3] {1, -1, nan}"), Binary("remainder", L("f64[3] {7, -7, 1}"), L("f64[3] {3, 3, 0}")), 0));
}

TEST(ElementwiseBinaryTest, WrappingArithmetic) {
  EXPECT_TRUE(LiteralEqual(L("s8[2] {-128, 127}"), Binary("add", L("s8[2] {127, -128}"), L("s8[2] {1, -1}"))));
  EXPECT_TRUE(LiteralEqual(L("u8[1] {0}"), Binary("add", L("u8[1] {255}"), L("u8[1] {1}"))));
  EXPECT_TRUE(LiteralEqual(L("s32[1] {0}"), Binary("multiply", L("s32[1] {65536}"), L("s32[1] {65536}"))));
  EXPECT_TRUE(LiteralEqual(L("u16[1] {65535}"), Binary("subtract", L("u16[1] {0}"), L("u16[1] {1}"))));
  EXPECT_TRUE(LiteralEqual(L("s4[2] {-8, 7}"), Binary("add", L("s4[2] {7, -8}"), L("s4[2] {1, -1}"))));
  EXPECT_TRUE(LiteralEqual(L("pred[4] {false, true, true, true}"),
                           Binary("add", L("pred[4] {false, true, false, true}"), L("pred[4] {false, false, true, true}"))));
  EXPECT_TRUE(LiteralEqual(L("pred[4] {false, false, false, true}"),
                           Binary("multiply", L("pred[4] {false, true, false, true}"), L("pred[4] {false, false, true, true}"))));
  // bf16 and f16 are computed in float and rounded once (ties to even).
  EXPECT_TRUE(LiteralEqual(L("bf16[2] {1, 1.015625}"),
                           Binary("add", L("bf16[2] {1, 1}"), L("bf16[2] {0.00390625, 0.01171875}"))));
  EXPECT_TRUE(LiteralEqual(L("f16[2] {inf, 65504}"), Binary("add", L("f16[2] {65504, 65504}"), L("f16[2] {16, 15}"))));
  EXPECT_TRUE(LiteralNear(L("c64[1] {(-5, 10)}"), Binary("multiply", L("c64[1] {(1, 2)}"), L("c64[1] {(3, 4)}")), 1e-7));
  EXPECT_TRUE(LiteralNear(L("c64[1] {(0.44, 0.08)}"), Binary("divide", L("c64[1] {(1, 2)}"), L("c64[1] {(3, 4)}")), 1e-6));
}

TEST(ElementwiseBinaryTest, ZeroSizeHighRankAndLayouts) {
  auto empty = Literal::Create(ShapeUtil::MakeShape(F32, {2, 0, 3}));
  ASSERT_TRUE(empty.ok());
  auto r = RunHlo(OpHlo("add", {"f32[2,0,3]", "f32[2,0,3]"}, "f32[2,0,3]"), {empty->Clone(), empty->Clone()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->element_count(), 0);
  EXPECT_EQ(r->shape().dimensions(), std::vector<int64_t>({2, 0, 3}));
  // Rank 5 with a permuted layout on one side.
  const Literal a = L("s32[1,2,1,2,1] {{{{{1},{2}}},{{{3},{4}}}}}");
  auto a_perm = a.Relayout(Layout({0, 1, 2, 3, 4}));
  ASSERT_TRUE(a_perm.ok());
  EXPECT_TRUE(LiteralEqual(L("s32[1,2,1,2,1] {{{{{-9},{-18}}},{{{-27},{-36}}}}}"),
                           RunHlo(OpHlo("subtract", {"s32[1,2,1,2,1]{0,1,2,3,4}", "s32[1,2,1,2,1]"},
                                        "s32[1,2,1,2,1]{2,4,0,1,3}"),
                                  {a_perm->Clone(), L("s32[1,2,1,2,1] {{{{{10},{20}}},{{{30},{40}}}}}")})));
  EXPECT_TRUE(LiteralEqual(L("u64[2] {0, 18446744073709551615}"),
                           Binary("multiply", L("u64[2] {4294967296, 18446744073709551615}"), L("u64[2] {4294967296, 1}"))));
  auto col = L("f64[2,2] {{1, nan}, {3, 4}}").Relayout(Layout({0, 1}));
  ASSERT_TRUE(col.ok());
  EXPECT_TRUE(LiteralEqual(L("pred[2,2] {{true, false}, {false, true}}"),
                           RunHlo(OpHlo("compare", {"f64[2,2]{0,1}", "f64[2,2]"}, "pred[2,2]{0,1}", ", direction=LE"),
                                  {col->Clone(), L("f64[2,2] {{1, 1}, {2, 4}}")})));
}

TEST(ElementwiseBinaryTest, Shifts) {
  EXPECT_TRUE(LiteralEqual(L("s32[5] {1, -2147483648, 0, 0, 0}"),
                           Binary("shift-left", L("s32[5] {1, 1, 1, 1, 1}"), L("s32[5] {0, 31, 32, -1, 100}"))));
  EXPECT_TRUE(LiteralEqual(L("s32[5] {-4, -1, 0, -1, 2}"),
                           Binary("shift-right-arithmetic", L("s32[5] {-8, -8, 8, -8, 8}"), L("s32[5] {1, 32, 40, 31, 2}"))));
  EXPECT_TRUE(LiteralEqual(L("s32[3] {2147483644, 0, 0}"),
                           Binary("shift-right-logical", L("s32[3] {-8, -8, -8}"), L("s32[3] {1, 32, -1}"))));
  EXPECT_TRUE(LiteralEqual(L("u8[3] {192, 255, 0}"),
                           Binary("shift-right-arithmetic", L("u8[3] {128, 128, 127}"), L("u8[3] {1, 8, 200}"))));
  EXPECT_TRUE(LiteralEqual(L("s8[2] {127, 1}"), Binary("shift-right-logical", L("s8[2] {-1, -128}"), L("s8[2] {1, 7}"))));
  EXPECT_TRUE(LiteralEqual(L("u8[2] {0, 128}"), Binary("shift-left", L("u8[2] {255, 1}"), L("u8[2] {8, 7}"))));
  EXPECT_TRUE(LiteralEqual(L("u64[2] {9223372036854775808, 0}"),
                           Binary("shift-left", L("u64[2] {1, 1}"), L("u64[2] {63, 64}"))));
  EXPECT_TRUE(LiteralEqual(L("s4[3] {-4, -1, 7}"), Binary("shift-right-arithmetic", L("s4[3] {-8, -8, 7}"), L("s4[3] {1, 4, 0}"))));
  EXPECT_FALSE(Binary("shift-left", L("f32[1] {1}"), L("f32[1] {1}")).ok());
}

TEST(ElementwiseBinaryTest, MaximumMinimumPropagateNaN) {
  const Literal a = L("f32[5] {nan, 1, -0, 0, 3}");
  const Literal b = L("f32[5] {1, nan, 0, -0, -inf}");
  auto mx = Binary("maximum", a, b);
  EXPECT_TRUE(LiteralEqual(L("f32[5] {nan, nan, -0, 0, 3}"), mx));
  EXPECT_TRUE(SignBit(*mx, 2));   // equal values keep lhs (-0)
  EXPECT_FALSE(SignBit(*mx, 3));
  auto mn = Binary("minimum", a, b);
  EXPECT_TRUE(LiteralEqual(L("f32[5] {nan, nan, -0, 0, -inf}"), mn));
  EXPECT_TRUE(LiteralEqual(L("bf16[2] {nan, 2}"), Binary("maximum", L("bf16[2] {1, 2}"), L("bf16[2] {nan, -2}"))));
  EXPECT_TRUE(LiteralEqual(L("s8[2] {-1, 127}"), Binary("maximum", L("s8[2] {-1, -128}"), L("s8[2] {-2, 127}"))));
  EXPECT_TRUE(LiteralEqual(L("u32[1] {4294967295}"), Binary("maximum", L("u32[1] {4294967295}"), L("u32[1] {1}"))));
  EXPECT_TRUE(LiteralEqual(L("pred[2] {false, true}"), Binary("maximum", L("pred[2] {false, false}"), L("pred[2] {false, true}"))));
  EXPECT_FALSE(Binary("maximum", L("c64[1] {(1, 2)}"), L("c64[1] {(1, 2)}")).ok());
}

TEST(ElementwiseBinaryTest, Power) {
  EXPECT_TRUE(LiteralEqual(L("s32[7] {1024, 1, 0, 0, 1, 27, 0}"),
                           Binary("power", L("s32[7] {2, 0, 2, -1, 1, 3, 2}"), L("s32[7] {10, 0, -1, -1, -5, 3, 32}"))));
  EXPECT_TRUE(LiteralEqual(L("u8[2] {0, 1}"), Binary("power", L("u8[2] {2, 255}"), L("u8[2] {8, 0}"))));
  EXPECT_TRUE(LiteralNear(L("f32[5] {1, 1, 1.41421356, 1, inf}"),
                          Binary("power", L("f32[5] {nan, 1, 2, 0, 0}"), L("f32[5] {0, nan, 0.5, 0, -1}")), 1e-7));
  EXPECT_TRUE(LiteralNear(L("c128[2] {(-1, 0), (inf, 0)}"),
                          Binary("power", L("c128[2] {(0, 1), (inf, 0)}"), L("c128[2] {(2, 0), (2, 0)}")), 1e-15, 1e-15));
}

TEST(ElementwiseBinaryTest, Atan2AndComplex) {
  EXPECT_TRUE(LiteralNear(L("f64[4] {0.7853981633974483, 3.141592653589793, -3.141592653589793, nan}"),
                          Binary("atan2", L("f64[4] {1, 0, -0, nan}"), L("f64[4] {1, -1, -1, 1}")), 1e-15));
  EXPECT_TRUE(LiteralEqual(L("c64[2] {(1, 3), (2, nan)}"),
                           Binary("complex", L("f32[2] {1, 2}"), L("f32[2] {3, nan}"), "c64")));
  EXPECT_TRUE(LiteralEqual(L("c128[1] {(-0, 4)}"), Binary("complex", L("f64[1] {-0}"), L("f64[1] {4}"), "c128")));
}

TEST(ElementwiseBinaryTest, Bitwise) {
  const Literal p = L("pred[4] {false, true, false, true}");
  const Literal q = L("pred[4] {false, false, true, true}");
  EXPECT_TRUE(LiteralEqual(L("pred[4] {false, false, false, true}"), Binary("and", p, q)));
  EXPECT_TRUE(LiteralEqual(L("pred[4] {false, true, true, true}"), Binary("or", p, q)));
  EXPECT_TRUE(LiteralEqual(L("pred[4] {false, true, true, false}"), Binary("xor", p, q)));
  EXPECT_TRUE(LiteralEqual(L("u8[1] {8}"), Binary("and", L("u8[1] {12}"), L("u8[1] {10}"))));
  EXPECT_TRUE(LiteralEqual(L("s32[1] {-2}"), Binary("xor", L("s32[1] {-1}"), L("s32[1] {1}"))));
  EXPECT_FALSE(Binary("and", L("f32[1] {1}"), L("f32[1] {1}")).ok());
}

TEST(ElementwiseCompareTest, FloatDirectionsWithNaN) {
  const Literal a = L("f32[4] {1, nan, -0, 2}");
  const Literal b = L("f32[4] {2, nan, 0, 1}");
  auto cmp = [&](const std::string& dir) { return Binary("compare", a, b, "pred", ", direction=" + dir); };
  EXPECT_TRUE(LiteralEqual(L("pred[4] {false, false, true, false}"), cmp("EQ")));
  EXPECT_TRUE(LiteralEqual(L("pred[4] {true, true, false, true}"), cmp("NE")));
  EXPECT_TRUE(LiteralEqual(L("pred[4] {true, false, false, false}"), cmp("LT")));
  EXPECT_TRUE(LiteralEqual(L("pred[4] {true, false, true, false}"), cmp("LE")));
  EXPECT_TRUE(LiteralEqual(L("pred[4] {false, false, false, true}"), cmp("GT")));
  EXPECT_TRUE(LiteralEqual(L("pred[4] {false, false, true, true}"), cmp("GE")));
}

TEST(ElementwiseCompareTest, TotalOrder) {
  const Literal a = L("f32[7] {-nan, -inf, -0, -0, 1, inf, nan}");
  const Literal b = L("f32[7] {-inf, -1, 0, -0, nan, nan, nan}");
  EXPECT_TRUE(LiteralEqual(L("pred[7] {true, true, true, false, true, true, false}"),
                           Binary("compare", a, b, "pred", ", direction=LT, type=TOTALORDER")));
  EXPECT_TRUE(LiteralEqual(L("pred[7] {false, false, false, true, false, false, true}"),
                           Binary("compare", a, b, "pred", ", direction=EQ, type=TOTALORDER")));
  EXPECT_TRUE(LiteralEqual(L("pred[4] {true, false, true, false}"),
                           Binary("compare", L("bf16[4] {-0, nan, -nan, 1}"), L("bf16[4] {0, inf, -inf, 1}"), "pred",
                                  ", direction=LT, type=TOTALORDER")));
  EXPECT_TRUE(LiteralEqual(L("pred[2] {true, true}"),
                           Binary("compare", L("f64[2] {-0, inf}"), L("f64[2] {0, nan}"), "pred",
                                  ", direction=NE, type=TOTALORDER")));
}

TEST(ElementwiseCompareTest, IntegersPredAndComplex) {
  EXPECT_TRUE(LiteralEqual(L("pred[2] {true, false}"),
                           Binary("compare", L("u32[2] {4294967295, 0}"), L("u32[2] {0, 0}"), "pred", ", direction=GT")));
  EXPECT_TRUE(LiteralEqual(L("pred[2] {false, false}"),
                           Binary("compare", L("s32[2] {-1, 0}"), L("s32[2] {0, 0}"), "pred", ", direction=GT")));
  // An explicit UNSIGNED comparison of signed operands reads their bits as unsigned.
  EXPECT_TRUE(LiteralEqual(L("pred[2] {true, false}"),
                           Binary("compare", L("s8[2] {-1, 0}"), L("s8[2] {0, 0}"), "pred", ", direction=GT, type=UNSIGNED")));
  EXPECT_TRUE(LiteralEqual(L("pred[2] {true, false}"),
                           Binary("compare", L("pred[2] {true, false}"), L("pred[2] {false, false}"), "pred", ", direction=GT")));
  EXPECT_TRUE(LiteralEqual(L("pred[2] {true, false}"),
                           Binary("compare", L("c64[2] {(1, 2), (1, 2)}"), L("c64[2] {(1, 2), (1, -2)}"), "pred", ", direction=EQ")));
  EXPECT_FALSE(Binary("compare", L("c64[1] {(1, 2)}"), L("c64[1] {(1, 2)}"), "pred", ", direction=LT").ok());
}

TEST(ElementwiseTernaryTest, Select) {
  const char* hlo = R"(HloModule m
ENTRY main {
  p = pred[4] parameter(0)
  a = f32[4] parameter(1)
  b = f32[4] parameter(2)
  ROOT r = f32[4] select(p, a, b)
})";
  EXPECT_TRUE(LiteralEqual(L("f32[4] {1, 20, nan, -0}"),
                           RunHlo(hlo, {L("pred[4] {true, false, true, false}"), L("f32[4] {1, 2, nan, 4}"),
                                        L("f32[4] {10, 20, 30, -0}")})));
  const char* sub_byte = R"(HloModule m
ENTRY main {
  p = pred[2,2] parameter(0)
  a = s4[2,2] parameter(1)
  b = s4[2,2] parameter(2)
  ROOT r = s4[2,2] select(p, a, b)
})";
  EXPECT_TRUE(LiteralEqual(L("s4[2,2] {{-8, 7}, {-3, 4}}"),
                           RunHlo(sub_byte, {L("pred[2,2] {{true, true}, {false, false}}"),
                                             L("s4[2,2] {{-8, 7}, {1, 2}}"), L("s4[2,2] {{0, 0}, {-3, 4}}")})));
  const char* layouts = R"(HloModule m
ENTRY main {
  p = pred[2,2]{0,1} parameter(0)
  a = c64[2,2]{1,0} parameter(1)
  b = c64[2,2]{0,1} parameter(2)
  ROOT r = c64[2,2]{1,0} select(p, a, b)
})";
  EXPECT_TRUE(LiteralEqual(
      L("c64[2,2] {{(1, 1), (0, 2)}, {(0, 3), (4, 4)}}"),
      RunHlo(layouts, {*L("pred[2,2] {{true, false}, {false, true}}").Relayout(Layout({0, 1})),
                       L("c64[2,2] {{(1, 1), (2, 2)}, {(3, 3), (4, 4)}}"),
                       *L("c64[2,2] {{(0, 1), (0, 2)}, {(0, 3), (0, 4)}}").Relayout(Layout({0, 1}))})));
}

TEST(ElementwiseTernaryTest, Clamp) {
  const char* hlo = R"(HloModule m
ENTRY main {
  lo = f32[] parameter(0)
  x = f32[5] parameter(1)
  hi = f32[] parameter(2)
  ROOT r = f32[5] clamp(lo, x, hi)
})";
  EXPECT_TRUE(LiteralEqual(L("f32[5] {-1, 0.5, 1, nan, 1}"),
                           RunHlo(hlo, {L("f32[] -1"), L("f32[5] {-5, 0.5, 7, nan, inf}"), L("f32[] 1")})));
  EXPECT_TRUE(LiteralEqual(L("f32[5] {nan, nan, nan, nan, nan}"),
                           RunHlo(hlo, {L("f32[] nan"), L("f32[5] {-5, 0.5, 7, nan, inf}"), L("f32[] 1")})));
  const char* ints = R"(HloModule m
ENTRY main {
  lo = s8[3] parameter(0)
  x = s8[3] parameter(1)
  hi = s8[3] parameter(2)
  ROOT r = s8[3] clamp(lo, x, hi)
})";
  EXPECT_TRUE(LiteralEqual(L("s8[3] {-128, 5, 10}"),
                           RunHlo(ints, {L("s8[3] {-128, 0, 0}"), L("s8[3] {-128, 5, 127}"), L("s8[3] {0, 10, 10}")})));
}

}  // namespace
}  // namespace xla
