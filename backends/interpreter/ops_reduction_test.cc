// reduce and reduce-window through the Backend interface. Expected values are computed
// by hand; order-sensitive reducers (keep the last input, acc*10+x) pin down the
// iteration order of XLA's evaluator.
#include <atomic>
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/backend.h"
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;
using testing::SumEqualOnReferenceElseNear;

// A module with one reducer named `r` (of type T) and an entry that reduces parameter 0.
std::string ReduceModule(const std::string& type, const std::string& reducer_root, const std::string& in_shape,
                         const std::string& out_shape, const std::string& dims, const std::string& init) {
  return "HloModule m\nr {\n  a = " + type + "[] parameter(0)\n  b = " + type + "[] parameter(1)\n  ROOT o = " +
         type + "[] " + reducer_root + "\n}\nENTRY main {\n  x = " + in_shape + " parameter(0)\n  i = " + type +
         "[] constant(" + init + ")\n  ROOT y = " + out_shape + " reduce(x, i), dimensions={" + dims +
         "}, to_apply=r\n}\n";
}

TEST(InterpreterReduceTest, SumOverEachDimension) {
  const Literal x = L("f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  EXPECT_TRUE(LiteralEqual(L("f32[2] {6, 15}"),
                           RunHlo(ReduceModule("f32", "add(a, b)", "f32[2,3]", "f32[2]", "1", "0"), {x.Clone()})));
  EXPECT_TRUE(LiteralEqual(L("f32[3] {5, 7, 9}"),
                           RunHlo(ReduceModule("f32", "add(a, b)", "f32[2,3]", "f32[3]", "0", "0"), {x.Clone()})));
  EXPECT_TRUE(LiteralEqual(L("f32[] 31"),
                           RunHlo(ReduceModule("f32", "add(a, b)", "f32[2,3]", "f32[]", "0,1", "10"), {x.Clone()})));
  // No reduced dimension: every element is reducer(init, x).
  EXPECT_TRUE(LiteralEqual(L("f32[2,3] {{2, 3, 4}, {5, 6, 7}}"),
                           RunHlo(ReduceModule("f32", "add(a, b)", "f32[2,3]", "f32[2,3]", "", "1"), {x.Clone()})));
}

// XLA's shape checks ignore floating-point precision between a reducer and its inputs and
// inits: f16 inputs to an f32 adder are read as f32 (exact), as are bf16 ones in a window and
// an f16 init. (Inits are identities: XLA may apply an init more than once.)
TEST(InterpreterReduceTest, InputsOfAnotherFloatTypeThanTheReducer) {
  const std::string hlo = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  v = f16[2,3] parameter(0)
  w = bf16[4] parameter(1)
  i = f32[] constant(0)
  h = f16[] constant(0)
  r = f32[2] reduce(v, i), dimensions={1}, to_apply=add
  rw = f32[2] reduce-window(w, i), window={size=2 stride=2}, to_apply=add
  ri = f32[2] reduce(v, h), dimensions={1}, to_apply=add
  ROOT t = (f32[2], f32[2], f32[2]) tuple(r, rw, ri)
})";
  EXPECT_TRUE(LiteralEqual(L("(f32[2], f32[2], f32[2]) ({3.75, 15.5}, {3.5, 7.25}, {3.75, 15.5})"),
                           RunHlo(hlo, {L("f16[2,3] {{0.5, 1.25, 2}, {4, 5, 6.5}}"), L("bf16[4] {1.5, 2, 3, 4.25}")})));
}

TEST(InterpreterReduceTest, KeepLastInputShowsRowMajorOrder) {
  // reducer(acc, x) = x: the result is the last element visited.
  const Literal x = L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  EXPECT_TRUE(LiteralEqual(L("s32[2] {3, 6}"),
                           RunHlo(ReduceModule("s32", "copy(b)", "s32[2,3]", "s32[2]", "1", "0"), {x.Clone()})));
  EXPECT_TRUE(LiteralEqual(L("s32[3] {4, 5, 6}"),
                           RunHlo(ReduceModule("s32", "copy(b)", "s32[2,3]", "s32[3]", "0", "0"), {x.Clone()})));
  // reducer(acc, x) = acc: the init value.
  EXPECT_TRUE(LiteralEqual(L("s32[2] {-7, -7}"),
                           RunHlo(ReduceModule("s32", "copy(a)", "s32[2,3]", "s32[2]", "1", "-7"), {x.Clone()})));
}

TEST(InterpreterReduceTest, DigitsRevealIterationOrderAndLayout) {
  // acc*10 + x concatenates the visited digits.
  const char* hlo = R"(HloModule m
r {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ten = s32[] constant(10)
  m = s32[] multiply(a, ten)
  ROOT o = s32[] add(m, b)
}
ENTRY main {
  x = s32[2,2]{1,0} constant({{1, 2}, {3, 4}})
  y = s32[2,2]{0,1} constant({{1, 2}, {3, 4}})
  z = s32[2,2,2] constant({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}})
  i = s32[] constant(0)
  rx = s32[] reduce(x, i), dimensions={0,1}, to_apply=r
  ry = s32[] reduce(y, i), dimensions={0,1}, to_apply=r
  rz = s32[2] reduce(z, i), dimensions={0,2}, to_apply=r
  ROOT t = (s32[], s32[], s32[2]) tuple(rx, ry, rz)
})";
  auto result = RunHlo(hlo, {});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tuple_element(0), L("s32[] 1234"));
  // Column-major storage: the evaluator walks the minor-most dimension (0) fastest.
  EXPECT_EQ(result->tuple_element(1), L("s32[] 1324"));
  EXPECT_EQ(result->tuple_element(2), L("s32[2] {1256, 3478}"));
}

TEST(InterpreterReduceTest, FloatAddAccumulatesInDoubleAsXlaEvaluator) {
  // In f32, 2^24 + 1 + 1 stays 2^24 step by step; XLA's evaluator sums adds in double.
  // Backends that sum in f32 are within 3 terms * FLT_EPSILON * 2^24 of it.
  EXPECT_TRUE(SumEqualOnReferenceElseNear(L("f32[] 16777218"),
                                          RunHlo(ReduceModule("f32", "add(a, b)", "f32[3]", "f32[]", "0", "0"),
                                                 {L("f32[3] {16777216, 1, 1}")}),
                                          0, 3 * FLT_EPSILON * 16777218));
  // bf16: 1 + 2^-8 + 2^-8 is 1 stepwise (ties to even) but 1.0078125 summed exactly; bf16's
  // epsilon is 2^-7.
  EXPECT_TRUE(SumEqualOnReferenceElseNear(L("bf16[] 1.0078125"),
                                          RunHlo(ReduceModule("bf16", "add(a, b)", "bf16[3]", "bf16[]", "0", "0"),
                                                 {L("bf16[3] {1, 0.00390625, 0.00390625}")}),
                                          0, 3 * 0x1p-7 * 1.0078125));
  // -0 + -0 stays -0 (init -0); inf + -inf is NaN.
  EXPECT_TRUE(LiteralEqual(L("f32[] -0"), RunHlo(ReduceModule("f32", "add(a, b)", "f32[2]", "f32[]", "0", "-0"),
                                                 {L("f32[2] {-0, -0}")})));
  auto nan = RunHlo(ReduceModule("f32", "add(a, b)", "f32[2]", "f32[]", "0", "0"), {L("f32[2] {inf, -inf}")});
  ASSERT_TRUE(nan.ok()) << nan.status().message();
  EXPECT_TRUE(std::isnan(nan->GetAsDouble(0)));
  // f64 and denormals.
  auto denormal = RunHlo(ReduceModule("f64", "add(a, b)", "f64[2]", "f64[]", "0", "0"), {L("f64[2] {5e-324, 5e-324}")});
  ASSERT_TRUE(denormal.ok()) << denormal.status().message();
  EXPECT_EQ(denormal->GetAsDouble(0), 2 * std::numeric_limits<double>::denorm_min());
}

TEST(InterpreterReduceTest, MaxMinIntegersAndPredicates) {
  EXPECT_TRUE(LiteralEqual(L("f32[2] {3, -inf}"),
                           RunHlo(ReduceModule("f32", "maximum(a, b)", "f32[2,2]", "f32[2]", "1", "-inf"),
                                  {L("f32[2,2] {{3, -1}, {-inf, -inf}}")})));
  EXPECT_TRUE(LiteralEqual(L("s8[2] {-128, 5}"),
                           RunHlo(ReduceModule("s8", "minimum(a, b)", "s8[2,2]", "s8[2]", "1", "127"),
                                  {L("s8[2,2] {{-128, 127}, {5, 9}}")})));
  // Integer add wraps.
  EXPECT_TRUE(LiteralEqual(L("s32[] -2147483648"),
                           RunHlo(ReduceModule("s32", "add(a, b)", "s32[2]", "s32[]", "0", "0"),
                                  {L("s32[2] {2147483647, 1}")})));
  EXPECT_TRUE(LiteralEqual(L("u64[] 18446744073709551615"),
                           RunHlo(ReduceModule("u64", "maximum(a, b)", "u64[3]", "u64[]", "0", "0"),
                                  {L("u64[3] {1, 18446744073709551615, 7}")})));
  EXPECT_TRUE(LiteralEqual(L("pred[3] {false, true, false}"),
                           RunHlo(ReduceModule("pred", "and(a, b)", "pred[3,2]", "pred[3]", "1", "true"),
                                  {L("pred[3,2] {{true, false}, {true, true}, {false, false}}")})));
  EXPECT_TRUE(LiteralEqual(L("pred[2] {true, true}"),
                           RunHlo(ReduceModule("pred", "or(a, b)", "pred[3,2]", "pred[2]", "0", "false"),
                                  {L("pred[3,2] {{true, false}, {false, true}, {false, false}}")})));
  EXPECT_TRUE(LiteralEqual(L("s4[] -8"), RunHlo(ReduceModule("s4", "copy(b)", "s4[2]", "s4[]", "0", "0"),
                                                {L("s4[2] {7, -8}")})));
}

TEST(InterpreterReduceTest, ComplexSum) {
  EXPECT_TRUE(LiteralEqual(L("c64[2] {(4, 6), (-1, 0.5)}"),
                           RunHlo(ReduceModule("c64", "add(a, b)", "c64[2,2]", "c64[2]", "1", "(0, 0)"),
                                  {L("c64[2,2] {{(1, 2), (3, 4)}, {(-1, 0), (0, 0.5)}}")})));
}

TEST(InterpreterReduceTest, ZeroSizeDimensionsGiveInit) {
  EXPECT_TRUE(LiteralEqual(L("f32[2] {7, 7}"), RunHlo(ReduceModule("f32", "add(a, b)", "f32[2,0]", "f32[2]", "1", "7"),
                                                      {L("f32[2,0] {{}, {}}")})));
  EXPECT_TRUE(LiteralEqual(L("s32[] 5"), RunHlo(ReduceModule("s32", "add(a, b)", "s32[0]", "s32[]", "0", "5"),
                                                {L("s32[0] {}")})));
  auto empty = RunHlo(ReduceModule("f32", "add(a, b)", "f32[0,3]", "f32[0]", "1", "7"), {L("f32[0,3] {}")});
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->element_count(), 0);
}

TEST(InterpreterReduceTest, VariadicArgmaxLowestIndexOnTies) {
  const char* hlo = R"(HloModule m
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  take_a = pred[] or(gt, tie)
  v = f32[] select(take_a, av, bv)
  i = s32[] select(take_a, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY main {
  x = f32[2,4] parameter(0)
  idx = s32[2,4] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[2], s32[2]) reduce(x, idx, ninf, zero), dimensions={1}, to_apply=argmax
})";
  auto result = RunHlo(hlo, {L("f32[2,4] {{3, 7, 7, 1}, {-1, -2, 0, 0}}")});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tuple_element(0), L("f32[2] {7, 0}"));
  EXPECT_EQ(result->tuple_element(1), L("s32[2] {1, 2}"));
}

TEST(InterpreterReduceTest, VariadicWithoutElementwiseOps) {
  // reducer returns (x1, acc0): element 0 tracks the last input 1, element 1 the init.
  const char* hlo = R"(HloModule m
r {
  a0 = s32[] parameter(0)
  a1 = f32[] parameter(1)
  b0 = s32[] parameter(2)
  b1 = f32[] parameter(3)
  c = s32[] convert(b1)
  ROOT t = (s32[], f32[]) tuple(a0, b1)
}
ENTRY main {
  x = s32[2,2,3] parameter(0)
  y = f32[2,2,3] parameter(1)
  i = s32[] constant(9)
  j = f32[] constant(-1)
  ROOT r = (s32[2], f32[2]) reduce(x, y, i, j), dimensions={0,2}, to_apply=r
})";
  auto result = RunHlo(hlo, {L("s32[2,2,3] {{{1,2,3},{4,5,6}},{{7,8,9},{10,11,12}}}"),
                             L("f32[2,2,3] {{{1,2,3},{4,5,6}},{{7,8,9},{10,11,12}}}")});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tuple_element(0), L("s32[2] {9, 9}"));
  EXPECT_EQ(result->tuple_element(1), L("f32[2] {9, 12}"));
}

TEST(InterpreterReduceTest, BadReducerIsAnError) {
  const char* hlo = R"(HloModule m
r {
  a = f32[] parameter(0)
  ROOT o = f32[] copy(a)
}
ENTRY main {
  x = f32[3] parameter(0)
  i = f32[] constant(0)
  ROOT y = f32[] reduce(x, i), dimensions={0}, to_apply=r
})";
  auto result = RunHlo(hlo, {L("f32[3] {1, 2, 3}")});
  EXPECT_FALSE(result.ok());
}

// reduce-window over parameter 0 with window text `window` and reducer root `root`.
std::string WindowModule(const std::string& type, const std::string& root, const std::string& in_shape,
                         const std::string& out_shape, const std::string& window, const std::string& init) {
  return "HloModule m\nr {\n  a = " + type + "[] parameter(0)\n  b = " + type + "[] parameter(1)\n  ROOT o = " +
         type + "[] " + root + "\n}\nENTRY main {\n  x = " + in_shape + " parameter(0)\n  i = " + type +
         "[] constant(" + init + ")\n  ROOT y = " + out_shape + " reduce-window(x, i), window={" + window +
         "}, to_apply=r\n}\n";
}

TEST(InterpreterReduceWindowTest, PaddingAndHolesAreSkipped) {
  const Literal x = L("f32[5] {1, 2, 3, 4, 5}");
  // Keep-last reducer: padding positions never reach the reducer.
  EXPECT_TRUE(LiteralEqual(L("f32[5] {2, 3, 4, 5, 5}"),
                           RunHlo(WindowModule("f32", "copy(b)", "f32[5]", "f32[5]", "size=3 pad=1_1", "9"),
                                  {x.Clone()})));
  // Windows entirely in padding keep the init value.
  EXPECT_TRUE(LiteralEqual(L("f32[7] {9, 9, 1, 2, 3, 4, 5}"),
                           RunHlo(WindowModule("f32", "copy(b)", "f32[5]", "f32[7]", "size=2 pad=3_0", "9"),
                                  {x.Clone()})));
  // Base dilation: [1 _ 2 _ 3]; a window on a hole and an element holds just the element.
  EXPECT_TRUE(LiteralEqual(L("f32[4] {1, 2, 2, 3}"),
                           RunHlo(WindowModule("f32", "copy(b)", "f32[3]", "f32[4]", "size=2 lhs_dilate=2", "9"),
                                  {L("f32[3] {1, 2, 3}")})));
  // A window on a hole only keeps the init value.
  EXPECT_TRUE(LiteralEqual(L("f32[5] {1, 9, 2, 9, 3}"),
                           RunHlo(WindowModule("f32", "copy(b)", "f32[3]", "f32[5]", "size=1 lhs_dilate=2", "9"),
                                  {L("f32[3] {1, 2, 3}")})));
}

TEST(InterpreterReduceWindowTest, SumsWithStridePaddingAndDilations) {
  const Literal x = L("f32[5] {1, 2, 3, 4, 5}");
  EXPECT_TRUE(LiteralEqual(L("f32[4] {3, 5, 7, 9}"),
                           RunHlo(WindowModule("f32", "add(a, b)", "f32[5]", "f32[4]", "size=2", "0"), {x.Clone()})));
  EXPECT_TRUE(LiteralEqual(L("f32[3] {3, 9, 9}"),
                           RunHlo(WindowModule("f32", "add(a, b)", "f32[5]", "f32[3]", "size=3 stride=2 pad=1_1", "0"),
                                  {x.Clone()})));
  // Base dilation 2: [1 _ 2 _ 3 _ 4 _ 5], size 2: every window holds one element.
  EXPECT_TRUE(LiteralEqual(L("f32[8] {1, 2, 2, 3, 3, 4, 4, 5}"),
                           RunHlo(WindowModule("f32", "add(a, b)", "f32[5]", "f32[8]", "size=2 lhs_dilate=2", "0"),
                                  {x.Clone()})));
  // Window dilation 2: {x0+x2, x1+x3, x2+x4}.
  EXPECT_TRUE(LiteralEqual(L("f32[3] {4, 6, 8}"),
                           RunHlo(WindowModule("f32", "add(a, b)", "f32[5]", "f32[3]", "size=2 rhs_dilate=2", "0"),
                                  {x.Clone()})));
  // Padding does not add the init value per padded position (init 10 once per window).
  EXPECT_TRUE(LiteralEqual(L("f32[3] {13, 19, 19}"),
                           RunHlo(WindowModule("f32", "add(a, b)", "f32[5]", "f32[3]", "size=3 stride=2 pad=1_1", "10"),
                                  {x.Clone()})));
  // Negative padding crops.
  EXPECT_TRUE(LiteralEqual(L("f32[2] {5, 7}"),
                           RunHlo(WindowModule("f32", "add(a, b)", "f32[5]", "f32[2]", "size=2 pad=-1_-1", "0"),
                                  {x.Clone()})));
}

// The window positions that land on elements are solved for, not tried one by one: every
// combination of small sizes, strides, paddings and dilations against a direct walk over
// the taps. x[i] = 2^i, so a sum names the set of elements a window covers and the
// keep-last reducer the last of them in window order. (On the interpreter only, whatever the
// suite's platform: ~3000 compiles would take a minute on cpu, whose windows other suites check.)
TEST(InterpreterReduceWindowTest, CoveredElementsMatchATapByTapWalk) {
  const std::string kPlatform = "interpreter";
  int cases = 0;
  for (int64_t n : {0, 1, 2, 5}) {
    std::string values;
    for (int64_t i = 0; i < n; ++i) absl::StrAppend(&values, i == 0 ? "" : ", ", int64_t{1} << i);
    const Literal x = L(absl::StrCat("s64[", n, "] {", values, "}"));
    for (int64_t size : {1, 2, 3, 5}) {
      for (int64_t stride : {1, 2, 3}) {
        for (int64_t low : {-2, 0, 1, 4}) {
          for (int64_t high : {-1, 0, 3}) {
            for (int64_t wd : {1, 2, 3}) {
              for (int64_t bd : {1, 2, 4}) {
                const int64_t dilated = n == 0 ? 0 : (n - 1) * bd + 1;
                const int64_t padded = dilated + low + high;
                const int64_t effective = (size - 1) * wd + 1;
                if (padded < effective) continue;
                const int64_t outputs = (padded - effective) / stride + 1;
                std::string sums, lasts;
                for (int64_t o = 0; o < outputs; ++o) {
                  int64_t sum = 0, last = -1;
                  for (int64_t k = 0; k < size; ++k) {
                    const int64_t p = o * stride - low + k * wd;
                    if (p < 0 || p % bd != 0 || p / bd >= n) continue;
                    sum += int64_t{1} << (p / bd);
                    last = int64_t{1} << (p / bd);
                  }
                  absl::StrAppend(&sums, o == 0 ? "" : ", ", sum);
                  absl::StrAppend(&lasts, o == 0 ? "" : ", ", last);
                }
                const std::string window = absl::StrCat("size=", size, " stride=", stride, " pad=", low, "_", high,
                                                        " rhs_dilate=", wd, " lhs_dilate=", bd);
                const std::string in = absl::StrCat("s64[", n, "]"), out = absl::StrCat("s64[", outputs, "]");
                EXPECT_TRUE(LiteralEqual(L(absl::StrCat(out, " {", sums, "}")),
                                         RunHlo(WindowModule("s64", "add(a, b)", in, out, window, "0"), {x.Clone()}, kPlatform)))
                    << window << " over " << in;
                EXPECT_TRUE(LiteralEqual(L(absl::StrCat(out, " {", lasts, "}")),
                                         RunHlo(WindowModule("s64", "copy(b)", in, out, window, "-1"), {x.Clone()}, kPlatform)))
                    << window << " over " << in;
                ++cases;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(cases, 1000);
}

// A window of 2^31 x 2^31 taps, nearly all padding, over one element costs that element:
// the answer comes at once instead of after 2^62 tries.
TEST(InterpreterReduceWindowTest, HugePaddedWindowsCostTheirElements) {
  EXPECT_TRUE(LiteralEqual(
      L("f32[1,1] {{10}}"),
      RunHlo(WindowModule("f32", "add(a, b)", "f32[1,1]", "f32[1,1]",
                          "size=2147483648x2147483648 pad=2147483647_0x2147483647_0", "7"),
             {L("f32[1,1] {{3}}")})));
  EXPECT_TRUE(LiteralEqual(
      L("f32[4] {1, 1, 1, 2}"),  // [1 _ _ 2] under a window reaching back 2^31 - 1 positions
      RunHlo(WindowModule("f32", "copy(b)", "f32[2]", "f32[4]", "size=2147483648 pad=2147483647_0 lhs_dilate=3", "9"),
             {L("f32[2] {1, 2}")})));
}

// One reduce-window making ~5M reducer calls stops at its execution's cancellation, not
// after the op: the reducer calls poll it (the evaluator alone polls between ops).
TEST(InterpreterReduceWindowTest, LongWindowOpsStopWhenCancelled) {
  backend::RegisterBuiltinBackends();
  auto backend = backend::CreateBackend("interpreter");
  ASSERT_TRUE(backend.ok());
  auto module = ParseAndReturnUnverifiedModule(
      WindowModule("f32", "copy(b)", "f32[64,64]", "f32[64,64]", "size=64x64 pad=63_0x63_0", "0"));
  ASSERT_TRUE(module.ok());
  auto executable = (*backend)->Compile(*std::move(module), {});
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  auto arg = Literal::Create(ShapeUtil::MakeShape(F32, {64, 64}));
  ASSERT_TRUE(arg.ok());
  auto buffer = (*backend)->TransferToDevice(*arg, 0);
  ASSERT_TRUE(buffer.ok());
  // Polls 1-3 are the evaluator's before the parameter, the constant and the reduce-window.
  std::atomic<int> polls{0};
  backend::ExecuteOptions options;
  options.should_cancel = [&polls] { return ++polls > 3; };
  auto result = (*executable)->Execute({*buffer}, options);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status().message();
  EXPECT_EQ(polls.load(), 4);
}

TEST(InterpreterReduceWindowTest, MaxPool2DAndEmpty) {
  const Literal x = L("f32[4,4] {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, -1, nan, 0}, {-inf, -2, 3, 1}}");
  auto pooled = RunHlo(WindowModule("f32", "maximum(a, b)", "f32[4,4]", "f32[2,2]", "size=2x2 stride=2x2", "-inf"),
                       {x.Clone()});
  ASSERT_TRUE(pooled.ok()) << pooled.status().message();
  EXPECT_EQ(pooled->GetAsDouble(0), 6);
  EXPECT_EQ(pooled->GetAsDouble(1), 8);
  EXPECT_EQ(pooled->GetAsDouble(2), 9);
  EXPECT_TRUE(std::isnan(pooled->GetAsDouble(3)));  // maximum propagates NaN
  // A window larger than the input gives an empty result; an empty input too.
  auto none = RunHlo(WindowModule("f32", "add(a, b)", "f32[2]", "f32[0]", "size=3", "0"), {L("f32[2] {1, 2}")});
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->element_count(), 0);
  // Zero-size input with padding: every window is init.
  EXPECT_TRUE(LiteralEqual(L("s32[3] {4, 4, 4}"),
                           RunHlo(WindowModule("s32", "add(a, b)", "s32[0]", "s32[3]", "size=1 pad=1_2", "4"),
                                  {L("s32[0] {}")})));
}

TEST(InterpreterReduceWindowTest, VariadicAndLayouts) {
  const char* hlo = R"(HloModule m
r {
  a0 = s32[] parameter(0)
  a1 = f32[] parameter(1)
  b0 = s32[] parameter(2)
  b1 = f32[] parameter(3)
  ROOT t = (s32[], f32[]) tuple(b0, a1)
}
ENTRY main {
  x = s32[2,3]{0,1} constant({{1, 2, 3}, {4, 5, 6}})
  y = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  i = s32[] constant(0)
  j = f32[] constant(-1)
  ROOT r = (s32[1,2], f32[1,2]) reduce-window(x, y, i, j), window={size=2x2}, to_apply=r
})";
  auto result = RunHlo(hlo, {});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tuple_element(0), L("s32[1,2] {{5, 6}}"));
  EXPECT_EQ(result->tuple_element(1), L("f32[1,2] {{-1, -1}}"));
}

namespace more {

using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;

// The same reducer written as op(p0, p1) (run natively where possible) and as
// op(copy(p0), p1) (always through the elementwise handlers) must agree bit for bit.
void ExpectPathsAgree(const std::string& type, const std::string& op, const std::string& values, int n,
                      const std::string& init) {
  const std::string hlo = "HloModule m\nnative {\n  a = " + type + "[] parameter(0)\n  b = " + type +
                          "[] parameter(1)\n  ROOT o = " + type + "[] " + op + "(a, b)\n}\ngeneral {\n  a = " + type +
                          "[] parameter(0)\n  b = " + type + "[] parameter(1)\n  c = " + type +
                          "[] copy(a)\n  ROOT o = " + type + "[] " + op + "(c, b)\n}\nENTRY main {\n  x = " + type +
                          "[" + std::to_string(n) + "] parameter(0)\n  i = " + type + "[] constant(" + init +
                          ")\n  w1 = " + type + "[" + std::to_string(n - 1) +
                          "] reduce-window(x, i), window={size=2}, to_apply=native\n  w2 = " + type + "[" +
                          std::to_string(n - 1) + "] reduce-window(x, i), window={size=2}, to_apply=general\n  ROOT t = (" +
                          type + "[" + std::to_string(n - 1) + "], " + type + "[" + std::to_string(n - 1) +
                          "]) tuple(w1, w2)\n}\n";
  auto result = RunHlo(hlo, {L(type + "[" + std::to_string(n) + "] " + values)});
  ASSERT_TRUE(result.ok()) << op << " " << type << ": " << result.status().message();
  EXPECT_EQ(result->tuple_element(0), result->tuple_element(1))
      << op << " " << type << "\n  native  " << result->tuple_element(0).ToString() << "\n  general "
      << result->tuple_element(1).ToString();
}

TEST(InterpreterReduceWindowTest, NativeAndGeneralReducersAgree) {
  const std::string floats = "{nan, -0, 0, -inf, inf, 1.5, -nan, 3.4e38, 3.4e38, 1e-45, -0, nan, 0, -1e-45, -inf}";
  for (const std::string type : {"f32", "f64"}) {
    for (const std::string op : {"add", "multiply", "maximum", "minimum"}) {
      ExpectPathsAgree(type, op, floats, 15, "0");
      ExpectPathsAgree(type, op, floats, 15, "-0");
      ExpectPathsAgree(type, op, floats, 15, "nan");
    }
  }
  const std::string ints = "{0, 1, -1, 127, -128, 5, -7, 100, -100, 3, 0}";
  const std::string uints = "{0, 1, 255, 128, 127, 5, 7, 100, 200, 3, 0}";
  for (const std::string op : {"add", "multiply", "maximum", "minimum", "and", "or", "xor"}) {
    ExpectPathsAgree("s8", op, ints, 11, "0");
    ExpectPathsAgree("s8", op, ints, 11, "-1");
    ExpectPathsAgree("u8", op, uints, 11, "1");
    ExpectPathsAgree("s16", op, "{32767, 1, -32768, -1, 2, 300, -300}", 7, "3");
    ExpectPathsAgree("u16", op, "{65535, 1, 0, 2, 300, 40000}", 6, "65535");
    ExpectPathsAgree("s32", op, "{2147483647, 1, -2147483648, -1, 65536, 65536}", 6, "2");
    ExpectPathsAgree("u32", op, "{4294967295, 2, 0, 65536, 65536}", 5, "7");
    ExpectPathsAgree("s64", op, "{9223372036854775807, 1, -9223372036854775808, -1, 4294967296, 4294967296}", 6,
                     "0");
    ExpectPathsAgree("u64", op, "{18446744073709551615, 1, 0, 4294967296, 4294967296}", 5, "3");
  }
  for (const std::string op : {"and", "or"}) {
    ExpectPathsAgree("pred", op, "{true, false, true, true, false, false}", 6, "true");
    ExpectPathsAgree("pred", op, "{true, false, true, true, false, false}", 6, "false");
  }
}

TEST(InterpreterReduceTest, NarrowAndWideTypes) {
  // f16: 2048 + 1 + 1 is 2048 stepwise in f16 but 2050 summed in double.
  EXPECT_TRUE(LiteralEqual(L("f16[] 2050"), RunHlo(ReduceModule("f16", "add(a, b)", "f16[3]", "f16[]", "0", "0"),
                                                   {L("f16[3] {2048, 1, 1}")})));
  // f16 overflow to inf after the exact sum.
  EXPECT_TRUE(LiteralEqual(L("f16[] inf"), RunHlo(ReduceModule("f16", "add(a, b)", "f16[2]", "f16[]", "0", "0"),
                                                  {L("f16[2] {65504, 65504}")})));
  EXPECT_TRUE(LiteralEqual(L("u8[2] {255, 9}"), RunHlo(ReduceModule("u8", "maximum(a, b)", "u8[2,3]", "u8[2]", "1", "0"),
                                                       {L("u8[2,3] {{1, 255, 3}, {9, 8, 7}}")})));
  EXPECT_TRUE(LiteralEqual(L("s64[] -9223372036854775808"),
                           RunHlo(ReduceModule("s64", "minimum(a, b)", "s64[3]", "s64[]", "0", "0"),
                                  {L("s64[3] {5, -9223372036854775808, 9223372036854775807}")})));
  EXPECT_TRUE(LiteralEqual(L("c128[] (1, -1)"), RunHlo(ReduceModule("c128", "add(a, b)", "c128[2]", "c128[]", "0", "(0, 0)"),
                                                       {L("c128[2] {(0.5, -2), (0.5, 1)}")})));
  // Types without native code: the reducer runs through the handlers.
  EXPECT_TRUE(LiteralEqual(L("f8e4m3fn[] 2"),
                           RunHlo(ReduceModule("f8e4m3fn", "copy(b)", "f8e4m3fn[3]", "f8e4m3fn[]", "0", "0"),
                                  {L("f8e4m3fn[3] {1, -448, 2}")})));
  EXPECT_TRUE(LiteralEqual(L("u4[] 15"), RunHlo(ReduceModule("u4", "maximum(a, b)", "u4[3]", "u4[]", "0", "0"),
                                                {L("u4[3] {3, 15, 0}")})));
  // bf16 maximum keeps NaN.
  auto nan = RunHlo(ReduceModule("bf16", "maximum(a, b)", "bf16[3]", "bf16[]", "0", "-inf"), {L("bf16[3] {1, nan, 2}")});
  ASSERT_TRUE(nan.ok()) << nan.status().message();
  EXPECT_TRUE(std::isnan(nan->GetAsDouble(0)));
}

TEST(InterpreterReduceWindowTest, HighRankPooling) {
  // NHWC 1x3x3x2, 2x2 windows, stride 1: sums per channel.
  const char* hlo = R"(HloModule m
r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT o = f32[] add(a, b)
}
ENTRY main {
  x = f32[1,3,3,2] parameter(0)
  i = f32[] constant(0)
  ROOT y = f32[1,2,2,2] reduce-window(x, i), window={size=1x2x2x1}, to_apply=r
})";
  const Literal x = L("f32[1,3,3,2] {{{{1, 10}, {2, 20}, {3, 30}}, {{4, 40}, {5, 50}, {6, 60}}, {{7, 70}, {8, 80}, {9, 90}}}}");
  EXPECT_TRUE(LiteralEqual(L("f32[1,2,2,2] {{{{12, 120}, {16, 160}}, {{24, 240}, {28, 280}}}}"), RunHlo(hlo, {x.Clone()})));
}

TEST(InterpreterReduceTest, ReducerWithArraysRunsThroughTheEvaluator) {
  // The reducer itself broadcasts and reduces: acc + 2*x, via a nested reduce.
  const char* hlo = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
twice {
  acc = f32[] parameter(0)
  x = f32[] parameter(1)
  xs = f32[2] broadcast(x), dimensions={}
  ROOT r = f32[] reduce(xs, acc), dimensions={0}, to_apply=add
}
ENTRY main {
  v = f32[3] parameter(0)
  i = f32[] constant(0.5)
  ROOT y = f32[] reduce(v, i), dimensions={0}, to_apply=twice
})";
  EXPECT_TRUE(LiteralEqual(L("f32[] 12.5"), RunHlo(hlo, {L("f32[3] {1, 2, 3}")})));
}

TEST(InterpreterReduceTest, MalformedInstructionsAreErrors) {
  // Unverified modules reach the handlers: every inconsistency is an error, never a crash.
  const std::string add = "HloModule m\nr {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT o = f32[] add(a, b)\n}\n";
  const char* bodies[] = {
      "ENTRY main {\n  x = f32[2,3] parameter(0)\n  i = f32[] constant(0)\n  ROOT y = f32[2] reduce(x, i), dimensions={5}, to_apply=r\n}\n",
      "ENTRY main {\n  x = f32[2,3] parameter(0)\n  i = f32[] constant(0)\n  ROOT y = f32[2] reduce(x, i), dimensions={1,1}, to_apply=r\n}\n",
      "ENTRY main {\n  x = f32[2,3] parameter(0)\n  i = f32[] constant(0)\n  ROOT y = f32[3] reduce(x, i), dimensions={1}, to_apply=r\n}\n",
      "ENTRY main {\n  x = f32[2,3] parameter(0)\n  i = f32[2] constant({0, 0})\n  ROOT y = f32[2] reduce(x, i), dimensions={1}, to_apply=r\n}\n",
      "ENTRY main {\n  x = f32[2,3] parameter(0)\n  i = f32[] constant(0)\n  ROOT y = f32[2,2] reduce-window(x, i), window={size=1x1}, to_apply=r\n}\n",
      "ENTRY main {\n  x = f32[2,3] parameter(0)\n  i = f32[] constant(0)\n  ROOT y = f32[2,3] reduce-window(x, i), window={size=1}, to_apply=r\n}\n",
      "ENTRY main {\n  x = f32[2,3] parameter(0)\n  i = f32[] constant(0)\n  ROOT y = f32[2,3] reduce-window(x, i), window={size=1x1 stride=0x1}, to_apply=r\n}\n",
  };
  for (const char* body : bodies) {
    auto result = RunHlo(add + body, {L("f32[2,3] {{1, 2, 3}, {4, 5, 6}}")});
    EXPECT_FALSE(result.ok()) << body;
  }
}

}  // namespace more
}  // namespace
}  // namespace xla
