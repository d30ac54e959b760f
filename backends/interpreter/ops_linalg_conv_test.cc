// convolution through the Backend interface: expected values computed by hand.
#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;

std::string ConvModule(const std::string& lhs, const std::string& rhs, const std::string& out,
                       const std::string& attrs) {
  return "HloModule m\nENTRY main {\n  a = " + lhs + " parameter(0)\n  b = " + rhs +
         " parameter(1)\n  ROOT c = " + out + " convolution(a, b), " + attrs + "\n}";
}

// 1D, one batch and one feature: x = {1, 2, 3, 4, 5}, kernel {1, 2, 3}.
absl::StatusOr<Literal> Conv1D(const std::string& out, const std::string& window) {
  return RunHlo(ConvModule("f32[1,1,5]", "f32[1,1,3]", out, window + ", dim_labels=bf0_oi0->bf0"),
                {L("f32[1,1,5] {{{1, 2, 3, 4, 5}}}"), L("f32[1,1,3] {{{1, 2, 3}}}")});
}

TEST(InterpreterConvTest, Valid1D) {
  EXPECT_TRUE(LiteralEqual(L("f32[1,1,3] {{{14, 20, 26}}}"), Conv1D("f32[1,1,3]", "window={size=3}")));
}

TEST(InterpreterConvTest, PaddingAndStride) {
  // padded 0 1 2 3 4 5 0, windows start at 0, 2, 4
  EXPECT_TRUE(LiteralEqual(L("f32[1,1,3] {{{8, 20, 14}}}"), Conv1D("f32[1,1,3]", "window={size=3 stride=2 pad=1_1}")));
}

TEST(InterpreterConvTest, NegativePadding) {
  EXPECT_TRUE(LiteralEqual(L("f32[1,1,2] {{{20, 26}}}"), Conv1D("f32[1,1,2]", "window={size=3 pad=-1_0}")));
}

TEST(InterpreterConvTest, BaseDilation) {
  // dilated input 1 0 2 0 3 0 4 0 5
  EXPECT_TRUE(LiteralEqual(L("f32[1,1,7] {{{7, 4, 11, 6, 15, 8, 19}}}"),
                           Conv1D("f32[1,1,7]", "window={size=3 lhs_dilate=2}")));
}

TEST(InterpreterConvTest, WindowDilation) {
  EXPECT_TRUE(LiteralEqual(L("f32[1,1,1] {{{22}}}"), Conv1D("f32[1,1,1]", "window={size=3 rhs_dilate=2}")));
}

TEST(InterpreterConvTest, WindowReversal) {
  EXPECT_TRUE(LiteralEqual(L("f32[1,1,3] {{{10, 16, 22}}}"), Conv1D("f32[1,1,3]", "window={size=3 rhs_reversal=1}")));
}

TEST(InterpreterConvTest, WrongOutputSizeIsAnError) {
  EXPECT_FALSE(Conv1D("f32[1,1,4]", "window={size=3}").ok());
}

TEST(InterpreterConvTest, TwoDimensionalNhwc) {
  auto hlo = ConvModule("f32[1,3,3,1]", "f32[2,2,1,1]", "f32[1,2,2,1]", "window={size=2x2}, dim_labels=b01f_01io->b01f");
  EXPECT_TRUE(LiteralEqual(L("f32[1,2,2,1] {{{{37}, {47}}, {{67}, {77}}}}"),
                           RunHlo(hlo, {L("f32[1,3,3,1] {{{{1}, {2}, {3}}, {{4}, {5}, {6}}, {{7}, {8}, {9}}}}"),
                                        L("f32[2,2,1,1] {{{{1}}, {{2}}}, {{{3}}, {{4}}}}")})));
}

TEST(InterpreterConvTest, SamePadding3x3) {
  auto hlo = ConvModule("f32[1,3,3,1]", "f32[3,3,1,1]", "f32[1,3,3,1]",
                        "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f");
  Literal ones = *Literal::Create(Shape(F32, {3, 3, 1, 1}));
  for (int i = 0; i < 9; ++i) ones.SetFromDouble(i, 1);
  EXPECT_TRUE(LiteralEqual(
      L("f32[1,3,3,1] {{{{12}, {21}, {16}}, {{27}, {45}, {33}}, {{24}, {39}, {28}}}}"),
      RunHlo(hlo, {L("f32[1,3,3,1] {{{{1}, {2}, {3}}, {{4}, {5}, {6}}, {{7}, {8}, {9}}}}"), std::move(ones)})));
}

TEST(InterpreterConvTest, NoSpatialDimsIsMatmul) {
  auto hlo = ConvModule("f32[2,2]", "f32[2,3]", "f32[2,3]", "dim_labels=bf_io->bf");
  EXPECT_TRUE(LiteralEqual(L("f32[2,3] {{1, 2, 3}, {3, 4, 7}}"),
                           RunHlo(hlo, {L("f32[2,2] {{1, 2}, {3, 4}}"), L("f32[2,3] {{1, 0, 1}, {0, 1, 1}}")})));
}

TEST(InterpreterConvTest, PermutedDimLabels) {
  // input [f, 0, b], kernel [i, 0, o], output [0, b, f]: the same matmul as above.
  auto hlo = ConvModule("f32[2,1,2]", "f32[2,1,3]", "f32[1,2,3]", "window={size=1}, dim_labels=f0b_i0o->0bf");
  EXPECT_TRUE(LiteralEqual(L("f32[1,2,3] {{{1, 2, 3}, {3, 4, 7}}}"),
                           RunHlo(hlo, {L("f32[2,1,2] {{{1, 3}}, {{2, 4}}}"),
                                        L("f32[2,1,3] {{{1, 0, 1}}, {{0, 1, 1}}}")})));
}

TEST(InterpreterConvTest, DepthwiseFeatureGroups) {
  auto hlo = ConvModule("f32[1,4,2]", "f32[2,1,2]", "f32[1,3,2]",
                        "window={size=2}, dim_labels=b0f_0io->b0f, feature_group_count=2");
  EXPECT_TRUE(LiteralEqual(L("f32[1,3,2] {{{5, 10}, {8, 30}, {11, 50}}}"),
                           RunHlo(hlo, {L("f32[1,4,2] {{{1, 10}, {2, 20}, {3, 30}, {4, 40}}}"),
                                        L("f32[2,1,2] {{{1, 3}}, {{2, -1}}}")})));
}

TEST(InterpreterConvTest, FeatureGroupsWithTwoInputFeaturesPerGroup) {
  // 4 input features in 2 groups of 2; 2 output features (one per group); no spatial dims.
  auto hlo = ConvModule("f32[1,4]", "f32[2,2]", "f32[1,2]", "dim_labels=bf_io->bf, feature_group_count=2");
  // out0 = 1*1 + 2*10 = 21 (features 0,1); out1 = 3*2 + 4*20 = 86 (features 2,3)
  EXPECT_TRUE(LiteralEqual(L("f32[1,2] {{21, 86}}"),
                           RunHlo(hlo, {L("f32[1,4] {{1, 2, 3, 4}}"), L("f32[2,2] {{1, 2}, {10, 20}}")})));
}

TEST(InterpreterConvTest, BatchGroups) {
  auto hlo = ConvModule("f32[2,3,1]", "f32[2,1,2]", "f32[1,2,2]",
                        "window={size=2}, dim_labels=b0f_0io->b0f, batch_group_count=2");
  EXPECT_TRUE(LiteralEqual(L("f32[1,2,2] {{{3, -1}, {5, -1}}}"),
                           RunHlo(hlo, {L("f32[2,3,1] {{{1}, {2}, {3}}, {{4}, {5}, {6}}}"),
                                        L("f32[2,1,2] {{{1, 1}}, {{1, -1}}}")})));
}

TEST(InterpreterConvTest, IntegersSaturateBelow32Bits) {
  auto s8 = ConvModule("s8[1,1,2]", "s8[1,1,2]", "s8[1,1,1]", "window={size=2}, dim_labels=bf0_oi0->bf0");
  EXPECT_TRUE(LiteralEqual(L("s8[1,1,1] {{{127}}}"), RunHlo(s8, {L("s8[1,1,2] {{{100, 100}}}"), L("s8[1,1,2] {{{1, 1}}}")})));
  EXPECT_TRUE(
      LiteralEqual(L("s8[1,1,1] {{{-128}}}"), RunHlo(s8, {L("s8[1,1,2] {{{-100, -100}}}"), L("s8[1,1,2] {{{1, 1}}}")})));
  auto s32 = ConvModule("s8[1,1,2]", "s8[1,1,2]", "s32[1,1,1]", "window={size=2}, dim_labels=bf0_oi0->bf0");
  EXPECT_TRUE(LiteralEqual(L("s32[1,1,1] {{{200}}}"), RunHlo(s32, {L("s8[1,1,2] {{{100, 100}}}"), L("s8[1,1,2] {{{1, 1}}}")})));
  auto u8 = ConvModule("u8[1,1,2]", "u8[1,1,2]", "u8[1,1,1]", "window={size=2}, dim_labels=bf0_oi0->bf0");
  EXPECT_TRUE(LiteralEqual(L("u8[1,1,1] {{{255}}}"), RunHlo(u8, {L("u8[1,1,2] {{{200, 200}}}"), L("u8[1,1,2] {{{1, 1}}}")})));
}

TEST(InterpreterConvTest, HalfInputsAndNan) {
  auto hlo = ConvModule("bf16[1,1,3]", "bf16[1,1,2]", "f32[1,1,2]", "window={size=2}, dim_labels=bf0_oi0->bf0");
  auto r = RunHlo(hlo, {L("bf16[1,1,3] {{{256, 1, nan}}}"), L("bf16[1,1,2] {{{1, 1}}}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->GetAsDouble(0), 257);
  EXPECT_TRUE(std::isnan(r->GetAsDouble(1)));
}

TEST(InterpreterConvTest, ComplexAndF64) {
  auto c = ConvModule("c64[1,1,2]", "c64[1,1,2]", "c64[1,1,1]", "window={size=2}, dim_labels=bf0_oi0->bf0");
  EXPECT_TRUE(LiteralEqual(L("c64[1,1,1] {{{(-18, 68)}}}"),
                           RunHlo(c, {L("c64[1,1,2] {{{(1, 2), (3, 4)}}}"), L("c64[1,1,2] {{{(5, 6), (7, 8)}}}")})));
  auto d = ConvModule("f64[1,1,2]", "f64[1,1,2]", "f64[1,1,1]", "window={size=2}, dim_labels=bf0_oi0->bf0");
  EXPECT_TRUE(LiteralEqual(L("f64[1,1,1] {{{-0.5}}}"), RunHlo(d, {L("f64[1,1,2] {{{0.5, 1}}}"), L("f64[1,1,2] {{{1, -1}}}")})));
}

TEST(InterpreterConvTest, EmptyBatch) {
  auto hlo = ConvModule("f32[0,1,3]", "f32[1,1,2]", "f32[0,1,2]", "window={size=2}, dim_labels=bf0_oi0->bf0");
  auto r = RunHlo(hlo, {L("f32[0,1,3] {}"), L("f32[1,1,2] {{{1, 1}}}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->element_count(), 0);
}

TEST(InterpreterConvTest, EveryElementType) {
  for (const char* type : {"s4", "s8", "s16", "s32", "s64", "u4", "u8", "u16", "u32", "u64", "f16", "bf16", "f32",
                           "f64", "f8e4m3fn", "f8e5m2", "c64", "c128"}) {
    const std::string t = type;
    auto hlo = ConvModule(t + "[1,1,2]", t + "[1,1,2]", t + "[1,1,1]", "window={size=2}, dim_labels=bf0_oi0->bf0");
    const bool complex = t[0] == 'c';
    const std::string v = complex ? "[1,1,2] {{{(1, 0), (2, 0)}}}" : "[1,1,2] {{{1, 2}}}";
    auto r = RunHlo(hlo, {L(t + v), L(t + v)});
    ASSERT_TRUE(r.ok()) << t << ": " << r.status();
    EXPECT_EQ(r->GetAsDouble(0), 5) << t;
  }
}

TEST(InterpreterConvTest, HighRankThreeSpatialDims) {
  // 2x2x2 input of ones, 2x2x2 kernel of ones, one output element: 8.
  auto hlo = ConvModule("f32[1,2,2,2,1]", "f32[2,2,2,1,1]", "f32[1,1,1,1,1]",
                        "window={size=2x2x2}, dim_labels=b012f_012io->b012f");
  Literal x = *Literal::Create(Shape(F32, {1, 2, 2, 2, 1}));
  Literal k = *Literal::Create(Shape(F32, {2, 2, 2, 1, 1}));
  for (int i = 0; i < 8; ++i) {
    x.SetFromDouble(i, i + 1);
    k.SetFromDouble(i, 1);
  }
  EXPECT_TRUE(LiteralEqual(L("f32[1,1,1,1,1] {{{{{36}}}}}"), RunHlo(hlo, {std::move(x), std::move(k)})));
}

TEST(InterpreterConvTest, NonDefaultLayouts) {
  const char* hlo = R"(HloModule m
ENTRY main {
  a = f32[1,3,3,1]{1,2,3,0} parameter(0)
  b = f32[2,2,1,1]{0,1,2,3} parameter(1)
  ROOT c = f32[1,2,2,1]{2,1,0,3} convolution(a, b), window={size=2x2}, dim_labels=b01f_01io->b01f
})";
  Literal a = *L("f32[1,3,3,1] {{{{1}, {2}, {3}}, {{4}, {5}, {6}}, {{7}, {8}, {9}}}}").Relayout(Layout({1, 2, 3, 0}));
  Literal b = *L("f32[2,2,1,1] {{{{1}}, {{2}}}, {{{3}}, {{4}}}}").Relayout(Layout({0, 1, 2, 3}));
  EXPECT_TRUE(LiteralEqual(L("f32[1,2,2,1] {{{{37}, {47}}, {{67}, {77}}}}"), RunHlo(hlo, {std::move(a), std::move(b)})));
}

// A long convolution polls cancellation between output positions (about every 2^20 taps and
// multiply-adds): polls 1-3 are the evaluator's, before the two parameters and the op.
TEST(InterpreterConvolutionTest, LongConvolutionsStopWhenCancelled) {
  testing::ExpectCancelledInsideTheOp("interpreter", R"(HloModule m
ENTRY e {
  x = f32[1,64,64,16] parameter(0)
  k = f32[3,3,16,16] parameter(1)
  ROOT c = f32[1,64,64,16] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})",
                                      4);
}

}  // namespace
}  // namespace xla
