// dot through the Backend interface: expected values computed by hand.
#include <cfloat>
#include <limits>

#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;
using testing::SumEqualOnReferenceElseNear;

std::string DotModule(const std::string& lhs, const std::string& rhs, const std::string& out,
                      const std::string& dnums) {
  return "HloModule m\nENTRY main {\n  a = " + lhs + " parameter(0)\n  b = " + rhs +
         " parameter(1)\n  ROOT d = " + out + " dot(a, b), " + dnums + "\n}";
}

TEST(InterpreterDotTest, VectorDotVector) {
  auto hlo = DotModule("f32[3]", "f32[3]", "f32[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[] 32"), RunHlo(hlo, {L("f32[3] {1, 2, 3}"), L("f32[3] {4, 5, 6}")})));
}

TEST(InterpreterDotTest, MatrixVector) {
  auto hlo = DotModule("f32[2,3]", "f32[3]", "f32[2]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[2] {-2, -2}"),
                           RunHlo(hlo, {L("f32[2,3] {{1, 2, 3}, {4, 5, 6}}"), L("f32[3] {1, 0, -1}")})));
}

TEST(InterpreterDotTest, Matmul) {
  auto hlo = DotModule("f32[2,2]", "f32[2,2]", "f32[2,2]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[2,2] {{19, 22}, {43, 50}}"),
                           RunHlo(hlo, {L("f32[2,2] {{1, 2}, {3, 4}}"), L("f32[2,2] {{5, 6}, {7, 8}}")})));
}

TEST(InterpreterDotTest, NonSquareMatmulWithRhsFreeDims) {
  // [2,3] x [3,5]: every output column uses a different rhs column (covers the 4-wide kernel
  // and its remainder when n = 5).
  auto hlo = DotModule("f32[2,3]", "f32[3,5]", "f32[2,5]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(
      L("f32[2,5] {{1, 2, 3, 6, 12}, {4, 5, 6, 15, 30}}"),
      RunHlo(hlo, {L("f32[2,3] {{1, 2, 3}, {4, 5, 6}}"),
                   L("f32[3,5] {{1, 0, 0, 1, 2}, {0, 1, 0, 1, 2}, {0, 0, 1, 1, 2}}")})));
}

TEST(InterpreterDotTest, TransposedContraction) {
  // lhs contracted on dim 0: result = lhs^T . rhs.
  auto hlo = DotModule("f32[3,2]", "f32[3,2]", "f32[2,2]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[2,2] {{3, 6}, {6, 12}}"),
                           RunHlo(hlo, {L("f32[3,2] {{1, 2}, {1, 2}, {1, 2}}"),
                                        L("f32[3,2] {{1, 2}, {1, 2}, {1, 2}}")})));
}

TEST(InterpreterDotTest, BatchMatmul) {
  auto hlo = DotModule("f32[2,2,2]", "f32[2,2,2]", "f32[2,2,2]",
                       "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}");
  EXPECT_TRUE(LiteralEqual(
      L("f32[2,2,2] {{{19, 22}, {43, 50}}, {{2, 0}, {0, 2}}}"),
      RunHlo(hlo, {L("f32[2,2,2] {{{1, 2}, {3, 4}}, {{1, 1}, {1, -1}}}"),
                   L("f32[2,2,2] {{{5, 6}, {7, 8}}, {{1, 1}, {1, -1}}}")})));
}

TEST(InterpreterDotTest, BatchDimsNotLeadingAndTwoContractingDims) {
  // lhs [k0=2, b=2, k1=1], rhs [k1=1, k0=2, b=2] -> [b]
  auto hlo = DotModule("f32[2,2,1]", "f32[1,2,2]", "f32[2]",
                       "lhs_batch_dims={1}, lhs_contracting_dims={0,2}, rhs_batch_dims={2}, "
                       "rhs_contracting_dims={1,0}");
  // out[b] = sum_k0 lhs[k0][b][0] * rhs[0][k0][b]
  EXPECT_TRUE(LiteralEqual(L("f32[2] {23, 40}"),
                           RunHlo(hlo, {L("f32[2,2,1] {{{1}, {2}}, {{3}, {4}}}"),
                                        L("f32[1,2,2] {{{5, 6}, {6, 7}}}")})));
}

TEST(InterpreterDotTest, AccumulatesWideAndRoundsOnce) {
  // In f32 arithmetic 1e8 + 1 - 1e8 is 0; summed in double it is exactly 1.
  auto hlo = DotModule("f32[3]", "f32[3]", "f32[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  // Backends summing in f32 are within 3 terms * FLT_EPSILON * (2e8 + 1) of it.
  EXPECT_TRUE(SumEqualOnReferenceElseNear(L("f32[] 1"), RunHlo(hlo, {L("f32[3] {1e8, 1, -1e8}"), L("f32[3] {1, 1, 1}")}),
                                          0, 3 * FLT_EPSILON * (2e8 + 1)));
}

TEST(InterpreterDotTest, InfinityAndNan) {
  auto hlo = DotModule("f32[2]", "f32[2]", "f32[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[] inf"), RunHlo(hlo, {L("f32[2] {inf, 1}"), L("f32[2] {1, 1}")})));
  auto nan = RunHlo(hlo, {L("f32[2] {inf, 1}"), L("f32[2] {0, 1}")});
  ASSERT_TRUE(nan.ok()) << nan.status();
  EXPECT_TRUE(std::isnan(nan->GetAsDouble(0)));
  auto nan2 = RunHlo(hlo, {L("f32[2] {nan, 1}"), L("f32[2] {1, 1}")});
  ASSERT_TRUE(nan2.ok());
  EXPECT_TRUE(std::isnan(nan2->GetAsDouble(0)));
}

TEST(InterpreterDotTest, MixedIntegerTypes) {
  // Operands convert to s32 first: -1*255 + 127*2 = -1.
  auto hlo = DotModule("s8[2]", "u8[2]", "s32[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("s32[] -1"), RunHlo(hlo, {L("s8[2] {-1, 127}"), L("u8[2] {255, 2}")})));
}

TEST(InterpreterDotTest, IntegerOverflowWraps) {
  auto hlo = DotModule("s32[2]", "s32[2]", "s32[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("s32[] -2"), RunHlo(hlo, {L("s32[2] {2147483647, 5}"), L("s32[2] {2, 0}")})));
  auto hlo8 = DotModule("s8[2]", "s8[2]", "s8[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  // 100*2 + 100*1 = 300 wraps to 44 (dot wraps; only convolution saturates).
  EXPECT_TRUE(LiteralEqual(L("s8[] 44"), RunHlo(hlo8, {L("s8[2] {100, 100}"), L("s8[2] {2, 1}")})));
  auto hlou = DotModule("u64[2]", "u64[2]", "u64[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  // 2 * (2^64 - 1) + 2 = 2^65 wraps to 0.
  EXPECT_TRUE(LiteralEqual(L("u64[] 0"),
                           RunHlo(hlou, {L("u64[2] {18446744073709551615, 2}"), L("u64[2] {2, 1}")})));
}

TEST(InterpreterDotTest, HalfAndBfloat16InputsWithF32Result) {
  auto hlo = DotModule("f16[2]", "f16[2]", "f32[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[] 129.5"), RunHlo(hlo, {L("f16[2] {0.5, 1024}"), L("f16[2] {3, 0.125}")})));
  auto hlob = DotModule("bf16[2]", "bf16[2]", "f32[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  // 256 + 1 is not representable in bf16 but is in f32.
  EXPECT_TRUE(LiteralEqual(L("f32[] 257"), RunHlo(hlob, {L("bf16[2] {256, 1}"), L("bf16[2] {1, 1}")})));
}

TEST(InterpreterDotTest, HalfResultRoundsOnce) {
  // 2048 + 1 + 1 = 2050 in wide arithmetic; f16 accumulation would give 2048 (ties to even).
  auto hlo = DotModule("f16[3]", "f16[3]", "f16[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f16[] 2050"), RunHlo(hlo, {L("f16[3] {2048, 1, 1}"), L("f16[3] {1, 1, 1}")})));
}

TEST(InterpreterDotTest, Complex) {
  auto hlo = DotModule("c64[2]", "c64[2]", "c64[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("c64[] (-18, 68)"),
                           RunHlo(hlo, {L("c64[2] {(1, 2), (3, 4)}"), L("c64[2] {(5, 6), (7, 8)}")})));
  auto hlo128 = DotModule("c128[1]", "c128[1]", "c128[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("c128[] (0, 2)"), RunHlo(hlo128, {L("c128[1] {(1, 1)}"), L("c128[1] {(1, 1)}")})));
}

TEST(InterpreterDotTest, F64AndScalarsAsOuterProduct) {
  // No contracting dims: an outer product.
  auto hlo = DotModule("f64[2]", "f64[3]", "f64[2,3]", "lhs_contracting_dims={}, rhs_contracting_dims={}");
  EXPECT_TRUE(LiteralEqual(L("f64[2,3] {{1, 2, 3}, {-2, -4, -6}}"),
                           RunHlo(hlo, {L("f64[2] {1, -2}"), L("f64[3] {1, 2, 3}")})));
}

TEST(InterpreterDotTest, ZeroSizeContractingDimGivesZeros) {
  auto hlo = DotModule("f32[2,0]", "f32[0,3]", "f32[2,3]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[2,3] {{0, 0, 0}, {0, 0, 0}}"), RunHlo(hlo, {L("f32[2,0] {{}, {}}"), L("f32[0,3] {}")})));
}

TEST(InterpreterDotTest, EmptyResult) {
  auto hlo = DotModule("f32[0,2]", "f32[2,3]", "f32[0,3]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  auto r = RunHlo(hlo, {L("f32[0,2] {}"), L("f32[2,3] {{1, 2, 3}, {4, 5, 6}}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->element_count(), 0);
}

TEST(InterpreterDotTest, NonDefaultLayouts) {
  const char* hlo = R"(HloModule m
ENTRY main {
  a = f32[2,2]{0,1} parameter(0)
  b = f32[2,2]{0,1} parameter(1)
  ROOT d = f32[2,2]{0,1} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  Literal a = *L("f32[2,2] {{1, 2}, {3, 4}}").Relayout(Layout({0, 1}));
  Literal b = *L("f32[2,2] {{5, 6}, {7, 8}}").Relayout(Layout({0, 1}));
  EXPECT_TRUE(LiteralEqual(L("f32[2,2] {{19, 22}, {43, 50}}"), RunHlo(hlo, {std::move(a), std::move(b)})));
}

TEST(InterpreterDotTest, HighRank) {
  // [1,2,1,2] . [2,1,1] contracting lhs dim 3 with rhs dim 0 -> [1,2,1,1,1]
  auto hlo = DotModule("f32[1,2,1,2]", "f32[2,1,1]", "f32[1,2,1,1,1]",
                       "lhs_contracting_dims={3}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[1,2,1,1,1] {{{{{5}}}, {{{11}}}}}"),
                           RunHlo(hlo, {L("f32[1,2,1,2] {{{{1, 2}}, {{3, 4}}}}"), L("f32[2,1,1] {{{1}}, {{2}}}")})));
}

TEST(InterpreterDotTest, BadDimensionNumbersAreErrors) {
  auto hlo = DotModule("f32[2,3]", "f32[2,3]", "f32[2,2]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  auto r = RunHlo(hlo, {L("f32[2,3] {{1, 2, 3}, {4, 5, 6}}"), L("f32[2,3] {{1, 2, 3}, {4, 5, 6}}")});
  EXPECT_FALSE(r.ok());
  auto hlo2 = DotModule("f32[2]", "f32[2]", "f32[]", "lhs_contracting_dims={3}, rhs_contracting_dims={0}");
  EXPECT_FALSE(RunHlo(hlo2, {L("f32[2] {1, 2}"), L("f32[2] {1, 2}")}).ok());
}

TEST(InterpreterDotTest, EveryElementType) {
  for (const char* type : {"s4", "s8", "s16", "s32", "s64", "u4", "u8", "u16", "u32", "u64", "f16", "bf16", "f32",
                           "f64", "f8e4m3fn", "f8e5m2", "c64", "c128"}) {
    const std::string t = type;
    auto hlo = DotModule(t + "[2]", t + "[2]", t + "[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
    const bool complex = t[0] == 'c';
    auto r = RunHlo(hlo, {L(t + (complex ? "[2] {(1, 0), (2, 0)}" : "[2] {1, 2}")),
                          L(t + (complex ? "[2] {(1, 0), (2, 0)}" : "[2] {1, 2}"))});
    ASSERT_TRUE(r.ok()) << t << ": " << r.status();
    EXPECT_EQ(r->shape().element_type(), L(t + (complex ? "[] (0, 0)" : "[] 0")).shape().element_type()) << t;
    EXPECT_EQ(r->GetAsDouble(0), 5) << t;
  }
  auto pred = DotModule("pred[2]", "pred[2]", "pred[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("pred[] true"), RunHlo(pred, {L("pred[2] {true, false}"), L("pred[2] {true, true}")})));
  EXPECT_TRUE(LiteralEqual(L("pred[] false"), RunHlo(pred, {L("pred[2] {true, false}"), L("pred[2] {false, true}")})));
}

TEST(InterpreterDotTest, ScalarsAndDenormals) {
  auto hlo = DotModule("f32[]", "f32[]", "f32[]", "lhs_contracting_dims={}, rhs_contracting_dims={}");
  EXPECT_TRUE(LiteralEqual(L("f32[] -6"), RunHlo(hlo, {L("f32[] 2"), L("f32[] -3")})));
  // The smallest f32 denormal survives: products are exact in double.
  auto vec = DotModule("f32[2]", "f32[2]", "f32[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  auto r = RunHlo(vec, {L("f32[2] {1.4e-45, 1.4e-45}"), L("f32[2] {1, 2}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->GetAsDouble(0), 3 * static_cast<double>(std::numeric_limits<float>::denorm_min()));
  // Integer extremes: INT64_MIN * -1 wraps to INT64_MIN.
  auto s64 = DotModule("s64[1]", "s64[1]", "s64[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("s64[] -9223372036854775808"),
                           RunHlo(s64, {L("s64[1] {-9223372036854775808}"), L("s64[1] {-1}")})));
}

TEST(InterpreterDotTest, LargeMatmulMatchesIdentity) {
  // 64x64 times identity: exercises the blocked kernel on a non-trivial size.
  const int n = 64;
  Literal a = *Literal::Create(Shape(F32, {n, n}));
  Literal id = *Literal::Create(Shape(F32, {n, n}));
  for (int i = 0; i < n * n; ++i) a.SetFromDouble(i, (i * 7) % 13 - 6);
  for (int i = 0; i < n; ++i) id.SetFromDouble(i * n + i, 1);
  auto hlo = DotModule("f32[64,64]", "f32[64,64]", "f32[64,64]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  EXPECT_TRUE(LiteralEqual(a, RunHlo(hlo, {a.Clone(), std::move(id)})));
}

// A long dot polls its execution's cancellation between blocks of rows (about 2^20
// multiply-adds each), not only before it starts: the evaluator's polls 1-3 come before the
// two parameters and the dot, the fourth is the dot's own.
TEST(InterpreterDotTest, LongDotsStopWhenCancelled) {
  testing::ExpectCancelledInsideTheOp("interpreter", R"(HloModule m
ENTRY e {
  a = f32[256,256] parameter(0)
  b = f32[256,256] parameter(1)
  ROOT d = f32[256,256] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                                      4);
}

}  // namespace
}  // namespace xla
