// sort, topk and select-and-scatter through the Backend interface; expected values by hand.
#include <cmath>
#include <string>

#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;

// Sorts parameter 0 along `dim` with compare(a, b) in `direction` (and `type` if given).
std::string SortModule(const std::string& elem, const std::string& shape, int dim, const std::string& direction,
                       const std::string& type = "") {
  return "HloModule m\ncmp {\n  a = " + elem + "[] parameter(0)\n  b = " + elem +
         "[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=" + direction +
         (type.empty() ? "" : ", type=" + type) + "\n}\nENTRY main {\n  x = " + shape +
         " parameter(0)\n  ROOT s = " + shape + " sort(x), dimensions={" + std::to_string(dim) + "}, to_apply=cmp\n}\n";
}

TEST(InterpreterSortTest, AscendingDescendingAndDimensions) {
  EXPECT_TRUE(LiteralEqual(L("f32[4] {-2, 1, 2, 3}"),
                           RunHlo(SortModule("f32", "f32[4]", 0, "LT"), {L("f32[4] {3, 1, -2, 2}")})));
  EXPECT_TRUE(LiteralEqual(L("s32[4] {3, 2, 1, -2}"),
                           RunHlo(SortModule("s32", "s32[4]", 0, "GT"), {L("s32[4] {1, 3, -2, 2}")})));
  const Literal m = L("s32[2,3] {{3, 1, 2}, {0, 5, -1}}");
  EXPECT_TRUE(LiteralEqual(L("s32[2,3] {{1, 2, 3}, {-1, 0, 5}}"), RunHlo(SortModule("s32", "s32[2,3]", 1, "LT"), {m.Clone()})));
  EXPECT_TRUE(LiteralEqual(L("s32[2,3] {{0, 1, -1}, {3, 5, 2}}"), RunHlo(SortModule("s32", "s32[2,3]", 0, "LT"), {m.Clone()})));
  EXPECT_TRUE(LiteralEqual(L("u64[3] {0, 1, 18446744073709551615}"),
                           RunHlo(SortModule("u64", "u64[3]", 0, "LT"), {L("u64[3] {18446744073709551615, 0, 1}")})));
  EXPECT_TRUE(LiteralEqual(L("bf16[3] {-1.5, 0, 2}"),
                           RunHlo(SortModule("bf16", "bf16[3]", 0, "LT"), {L("bf16[3] {2, -1.5, 0}")})));
  EXPECT_TRUE(LiteralEqual(L("pred[3] {false, true, true}"),
                           RunHlo(SortModule("pred", "pred[3]", 0, "LT"), {L("pred[3] {true, false, true}")})));
  EXPECT_TRUE(LiteralEqual(L("f32[0] {}"), RunHlo(SortModule("f32", "f32[0]", 0, "LT"), {L("f32[0] {}")})));
  EXPECT_TRUE(LiteralEqual(L("f32[2,0] {{}, {}}"),
                           RunHlo(SortModule("f32", "f32[2,0]", 1, "LT"), {L("f32[2,0] {{}, {}}")})));
}

TEST(InterpreterSortTest, HighRankAndLayout) {
  const char* hlo = R"(HloModule m
cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GT
}
ENTRY main {
  x = s32[2,2,3]{0,2,1} constant({{{1, 9, 5}, {4, 2, 8}}, {{7, 3, 6}, {0, 11, 10}}})
  ROOT s = s32[2,2,3] sort(x), dimensions={2}, to_apply=cmp
})";
  EXPECT_TRUE(LiteralEqual(L("s32[2,2,3] {{{9, 5, 1}, {8, 4, 2}}, {{7, 6, 3}, {11, 10, 0}}}"), RunHlo(hlo, {})));
}

TEST(InterpreterSortTest, KeyValueIsStable) {
  const char* hlo = R"(HloModule m
cmp {
  ka = s32[] parameter(0)
  kb = s32[] parameter(1)
  va = f32[] parameter(2)
  vb = f32[] parameter(3)
  ROOT c = pred[] compare(ka, kb), direction=LT
}
ENTRY main {
  k = s32[6] parameter(0)
  v = f32[6] parameter(1)
  ROOT s = (s32[6], f32[6]) sort(k, v), dimensions={0}, is_stable=true, to_apply=cmp
})";
  auto result = RunHlo(hlo, {L("s32[6] {2, 1, 2, 1, 0, 2}"), L("f32[6] {10, 20, 30, 40, 50, 60}")});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tuple_element(0), L("s32[6] {0, 1, 1, 2, 2, 2}"));
  EXPECT_EQ(result->tuple_element(1), L("f32[6] {50, 20, 40, 10, 30, 60}"));
}

TEST(InterpreterSortTest, TotalOrderPlacesNaNsAndSignedZeros) {
  auto sorted = RunHlo(SortModule("f32", "f32[8]", 0, "LT", "TOTALORDER"),
                       {L("f32[8] {nan, 1, -nan, -inf, 0, -0, inf, -1e-45}")});
  ASSERT_TRUE(sorted.ok()) << sorted.status().message();
  const float* v = sorted->data<float>().data();
  EXPECT_TRUE(std::isnan(v[0]) && std::signbit(v[0]));
  EXPECT_EQ(v[1], -INFINITY);
  EXPECT_EQ(v[2], -1e-45f);
  EXPECT_TRUE(v[3] == 0 && std::signbit(v[3]));
  EXPECT_TRUE(v[4] == 0 && !std::signbit(v[4]));
  EXPECT_EQ(v[5], 1);
  EXPECT_EQ(v[6], INFINITY);
  EXPECT_TRUE(std::isnan(v[7]) && !std::signbit(v[7]));
}

TEST(InterpreterSortTest, InconsistentComparatorsNeverCrash) {
  // Always true is no strict weak order; any permutation is acceptable, a crash is not.
  const char* always = R"(HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] constant(true)
}
ENTRY main {
  x = f32[40] iota(), iota_dimension=0
  ROOT s = f32[40] sort(x), dimensions={0}, to_apply=cmp
})";
  auto result = RunHlo(always, {});
  ASSERT_TRUE(result.ok()) << result.status().message();
  double sum = 0;
  for (int i = 0; i < 40; ++i) sum += result->GetAsDouble(i);
  EXPECT_EQ(sum, 780);  // still a permutation
  // Never true keeps the input order (stable).
  const char* never = R"(HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] constant(false)
}
ENTRY main {
  x = f32[3] parameter(0)
  ROOT s = f32[3] sort(x), dimensions={0}, to_apply=cmp
})";
  EXPECT_TRUE(LiteralEqual(L("f32[3] {3, 1, 2}"), RunHlo(never, {L("f32[3] {3, 1, 2}")})));
  // NaNs with a plain LT comparator.
  auto with_nans = RunHlo(SortModule("f32", "f32[6]", 0, "LT"), {L("f32[6] {nan, 3, nan, 1, nan, 2}")});
  EXPECT_TRUE(with_nans.ok()) << with_nans.status().message();
}

TEST(InterpreterSortTest, BadComparatorIsAnError) {
  const char* hlo = R"(HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY main {
  x = f32[3] parameter(0)
  ROOT s = f32[3] sort(x), dimensions={0}, to_apply=cmp
})";
  auto result = RunHlo(hlo, {L("f32[3] {3, 1, 2}")});
  EXPECT_FALSE(result.ok());
}

std::string TopKModule(const std::string& in_shape, const std::string& values_shape, const std::string& indices_shape,
                       int k, bool largest) {
  return "HloModule m\nENTRY main {\n  x = " + in_shape + " parameter(0)\n  ROOT t = (" + values_shape + ", " +
         indices_shape + ") topk(x), k=" + std::to_string(k) + ", largest=" + (largest ? "true" : "false") + "\n}\n";
}

TEST(InterpreterTopKTest, LargestSmallestAndTies) {
  auto top = RunHlo(TopKModule("f32[5]", "f32[3]", "s32[3]", 3, true), {L("f32[5] {1, 3, 2, 3, 0}")});
  ASSERT_TRUE(top.ok()) << top.status().message();
  EXPECT_EQ(top->tuple_element(0), L("f32[3] {3, 3, 2}"));
  EXPECT_EQ(top->tuple_element(1), L("s32[3] {1, 3, 2}"));
  auto bottom = RunHlo(TopKModule("f32[5]", "f32[2]", "s32[2]", 2, false), {L("f32[5] {1, 3, 2, 3, 0}")});
  ASSERT_TRUE(bottom.ok()) << bottom.status().message();
  EXPECT_EQ(bottom->tuple_element(0), L("f32[2] {0, 1}"));
  EXPECT_EQ(bottom->tuple_element(1), L("s32[2] {4, 0}"));
  auto rows = RunHlo(TopKModule("s32[2,3]", "s32[2,2]", "s32[2,2]", 2, true),
                     {L("s32[2,3] {{-2147483648, 2147483647, 0}, {5, 5, 5}}")});
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ(rows->tuple_element(0), L("s32[2,2] {{2147483647, 0}, {5, 5}}"));
  EXPECT_EQ(rows->tuple_element(1), L("s32[2,2] {{1, 2}, {0, 1}}"));
  auto none = RunHlo(TopKModule("f32[2,3]", "f32[2,0]", "s32[2,0]", 0, true), {L("f32[2,3] {{1, 2, 3}, {4, 5, 6}}")});
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->tuple_element(0).element_count(), 0);
}

TEST(InterpreterTopKTest, TotalOrderForFloats) {
  auto top = RunHlo(TopKModule("f32[6]", "f32[6]", "s32[6]", 6, true), {L("f32[6] {nan, 1, inf, -nan, -0, 0}")});
  ASSERT_TRUE(top.ok()) << top.status().message();
  EXPECT_EQ(top->tuple_element(1), L("s32[6] {0, 2, 1, 5, 4, 3}"));
  auto u = RunHlo(TopKModule("u64[3]", "u64[2]", "s32[2]", 2, true), {L("u64[3] {1, 18446744073709551615, 7}")});
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->tuple_element(0), L("u64[2] {18446744073709551615, 7}"));
  auto h = RunHlo(TopKModule("bf16[4]", "bf16[2]", "s32[2]", 2, false), {L("bf16[4] {0, -0, -inf, 1}")});
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->tuple_element(1), L("s32[2] {2, 1}"));
  auto s4 = RunHlo(TopKModule("s4[3]", "s4[1]", "s32[1]", 1, false), {L("s4[3] {7, -8, 0}")});
  ASSERT_TRUE(s4.ok()) << s4.status().message();
  EXPECT_EQ(s4->tuple_element(0), L("s4[1] {-8}"));
}

const char* kSelectAndScatter = R"(HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  operand = f32[4,6] parameter(0)
  source = f32[2,2] parameter(1)
  zero = f32[] constant(0)
  ROOT r = f32[4,6] select-and-scatter(operand, source, zero), window={size=2x3 stride=2x3}, select=ge, scatter=add
})";

TEST(InterpreterSelectAndScatterTest, XlaDocsExample) {
  const Literal operand = L("f32[4,6] {{7, 2, 5, 3, 10, 2}, {3, 8, 9, 3, 4, 2}, {1, 5, 7, 5, 6, 1}, {0, 6, 2, 10, 2, 4}}");
  EXPECT_TRUE(LiteralEqual(
      L("f32[4,6] {{0, 0, 0, 0, 6, 0}, {0, 0, 2, 0, 0, 0}, {0, 0, 3, 0, 0, 0}, {0, 0, 0, 1, 0, 0}}"),
      RunHlo(kSelectAndScatter, {operand.Clone(), L("f32[2,2] {{2, 6}, {3, 1}}")})));
  // Ties: GE keeps the first maximum in window order.
  const Literal flat = L("f32[4,6] {{1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}}");
  EXPECT_TRUE(LiteralEqual(
      L("f32[4,6] {{2, 0, 0, 6, 0, 0}, {0, 0, 0, 0, 0, 0}, {3, 0, 0, 1, 0, 0}, {0, 0, 0, 0, 0, 0}}"),
      RunHlo(kSelectAndScatter, {flat.Clone(), L("f32[2,2] {{2, 6}, {3, 1}}")})));
}

TEST(InterpreterSelectAndScatterTest, OverlapPaddingAndInit) {
  // Overlapping windows (size 3, stride 1, padding 1) select the same maximum twice.
  const char* hlo = R"(HloModule m
ge {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  operand = s32[4] parameter(0)
  source = s32[4] parameter(1)
  init = s32[] constant(100)
  ROOT r = s32[4] select-and-scatter(operand, source, init), window={size=3 pad=1_1}, select=ge, scatter=add
})";
  // Windows: [P,5,1] -> 5@0, [5,1,9] -> 9@2, [1,9,2] -> 9@2, [9,2,P] -> 9@2.
  EXPECT_TRUE(LiteralEqual(L("s32[4] {101, 100, 1210, 100}"),
                           RunHlo(hlo, {L("s32[4] {5, 1, 9, 2}"), L("s32[4] {1, 10, 100, 1000}")})));
  // Empty source: the result is all init.
  const char* empty = R"(HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  operand = f32[2] parameter(0)
  source = f32[0] parameter(1)
  init = f32[] constant(-0)
  ROOT r = f32[2] select-and-scatter(operand, source, init), window={size=3}, select=ge, scatter=add
})";
  EXPECT_TRUE(LiteralEqual(L("f32[2] {-0, -0}"), RunHlo(empty, {L("f32[2] {1, 2}"), L("f32[0] {}")})));
}


// A comparator compare(p0, p1) (run natively) and compare(copy(p0), p1) (through the
// elementwise handler) must give the same permutation, even where LT with NaNs is no
// strict weak order.
void ExpectSortPathsAgree(const std::string& type, const std::string& direction, const std::string& cmp_type,
                          const std::string& values, int n) {
  const std::string t = cmp_type.empty() ? "" : ", type=" + cmp_type;
  const std::string shape = type + "[" + std::to_string(n) + "]";
  const std::string hlo = "HloModule m\nnative {\n  a = " + type + "[] parameter(0)\n  b = " + type +
                          "[] parameter(1)\n  ia = s32[] parameter(2)\n  ib = s32[] parameter(3)\n  ROOT c = pred[] "
                          "compare(a, b), direction=" + direction + t + "\n}\ngeneral {\n  a = " + type +
                          "[] parameter(0)\n  b = " + type + "[] parameter(1)\n  ia = s32[] parameter(2)\n  ib = s32[] "
                          "parameter(3)\n  x = " + type + "[] copy(a)\n  ROOT c = pred[] compare(x, b), direction=" +
                          direction + t + "\n}\nENTRY main {\n  v = " + shape + " parameter(0)\n  i = s32[" +
                          std::to_string(n) + "] iota(), iota_dimension=0\n  s1 = (" + shape + ", s32[" +
                          std::to_string(n) + "]) sort(v, i), dimensions={0}, to_apply=native\n  s2 = (" + shape +
                          ", s32[" + std::to_string(n) + "]) sort(v, i), dimensions={0}, to_apply=general\n  g1 = s32[" +
                          std::to_string(n) + "] get-tuple-element(s1), index=1\n  g2 = s32[" + std::to_string(n) +
                          "] get-tuple-element(s2), index=1\n  ROOT t = (s32[" + std::to_string(n) + "], s32[" +
                          std::to_string(n) + "]) tuple(g1, g2)\n}\n";
  auto result = RunHlo(hlo, {L(shape + " " + values)});
  ASSERT_TRUE(result.ok()) << type << " " << direction << ": " << result.status().message();
  EXPECT_EQ(result->tuple_element(0), result->tuple_element(1))
      << type << " " << direction << " " << cmp_type << "\n  native  " << result->tuple_element(0).ToString()
      << "\n  general " << result->tuple_element(1).ToString();
}

TEST(InterpreterSortTest, NativeAndGeneralComparatorsAgree) {
  const std::string floats = "{nan, -0, 0, -inf, inf, 1.5, -nan, 3, 3, 1e-30, -0, nan, 0, -1e-30, -inf, 2}";
  for (const std::string type : {"f32", "f64", "bf16", "f16"}) {
    for (const std::string direction : {"LT", "GT", "LE", "GE", "EQ", "NE"}) {
      ExpectSortPathsAgree(type, direction, "", floats, 16);
      ExpectSortPathsAgree(type, direction, "TOTALORDER", floats, 16);
    }
  }
  for (const std::string direction : {"LT", "GT", "LE", "GE", "NE"}) {
    ExpectSortPathsAgree("s32", direction, "", "{5, -2147483648, 2147483647, 0, -1, 5, 3}", 7);
    ExpectSortPathsAgree("u32", direction, "", "{5, 4294967295, 0, 1, 5, 3}", 6);
    ExpectSortPathsAgree("s8", direction, "", "{5, -128, 127, 0, -1, 5}", 6);
    ExpectSortPathsAgree("u64", direction, "", "{5, 18446744073709551615, 0, 1, 5}", 5);
    ExpectSortPathsAgree("s64", direction, "", "{5, -9223372036854775808, 9223372036854775807, -1, 5}", 5);
    ExpectSortPathsAgree("pred", direction, "", "{true, false, true, false}", 4);
  }
}

TEST(InterpreterSelectAndScatterTest, NonDefaultLayouts) {
  const char* hlo = R"(HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  operand = f32[4,6]{0,1} constant({{7, 2, 5, 3, 10, 2}, {3, 8, 9, 3, 4, 2}, {1, 5, 7, 5, 6, 1}, {0, 6, 2, 10, 2, 4}})
  source = f32[2,2]{0,1} constant({{2, 6}, {3, 1}})
  zero = f32[] constant(0)
  ROOT r = f32[4,6]{0,1} select-and-scatter(operand, source, zero), window={size=2x3 stride=2x3}, select=ge, scatter=add
})";
  EXPECT_TRUE(LiteralEqual(
      L("f32[4,6] {{0, 0, 0, 0, 6, 0}, {0, 0, 2, 0, 0, 0}, {0, 0, 3, 0, 0, 0}, {0, 0, 0, 1, 0, 0}}"), RunHlo(hlo, {})));
}

TEST(InterpreterTopKTest, LayoutAndHighRank) {
  const char* hlo = R"(HloModule m
ENTRY main {
  x = s32[2,2,3]{1,0,2} constant({{{1, 9, 5}, {4, 2, 8}}, {{7, 3, 6}, {0, 11, 10}}})
  ROOT t = (s32[2,2,2], s32[2,2,2]) topk(x), k=2, largest=true
})";
  auto result = RunHlo(hlo, {});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tuple_element(0), L("s32[2,2,2] {{{9, 5}, {8, 4}}, {{7, 6}, {11, 10}}}"));
  EXPECT_EQ(result->tuple_element(1), L("s32[2,2,2] {{{1, 2}, {2, 0}}, {{0, 2}, {1, 2}}}"));
}

TEST(InterpreterSelectAndScatterTest, ArgumentOrderOfSelectAndScatter) {
  // select(selected, candidate) = GT: on ties the candidate replaces the selection, so the
  // last of equal maxima wins; scatter(source, current) = source: the last source
  // scattered to an element stays.
  const char* hlo = R"(HloModule m
gt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GT
}
first {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] copy(a)
}
ENTRY main {
  operand = s32[5] parameter(0)
  source = s32[4] parameter(1)
  init = s32[] constant(-1)
  ROOT r = s32[5] select-and-scatter(operand, source, init), window={size=2}, select=gt, scatter=first
})";
  // Windows [0,1] [1,2] [2,3] [3,4] over {3, 3, 1, 4, 4}: selections 1, 1, 3, 4.
  EXPECT_TRUE(LiteralEqual(L("s32[5] {-1, 20, -1, 30, 40}"),
                           RunHlo(hlo, {L("s32[5] {3, 3, 1, 4, 4}"), L("s32[4] {10, 20, 30, 40}")})));
}

TEST(InterpreterSortTest, MalformedInstructionsAreErrors) {
  const char* cases[] = {
      "HloModule m\ncmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), "
      "direction=LT\n}\nENTRY main {\n  x = f32[3] parameter(0)\n  ROOT s = f32[3] sort(x), dimensions={1}, "
      "to_apply=cmp\n}\n",
      "HloModule m\ncmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), "
      "direction=LT\n}\nENTRY main {\n  x = f32[3] parameter(0)\n  ROOT s = (f32[3], f32[3]) sort(x), dimensions={0}, "
      "to_apply=cmp\n}\n",
      "HloModule m\nENTRY main {\n  x = f32[3] parameter(0)\n  ROOT t = (f32[4], s32[4]) topk(x), k=4, largest=true\n}\n",
      "HloModule m\nENTRY main {\n  x = f32[3] parameter(0)\n  ROOT t = (f32[2], s32[2]) topk(x), k=-1, largest=true\n}\n",
      "HloModule m\nENTRY main {\n  x = f32[3] parameter(0)\n  ROOT t = (f32[2], s32[3]) topk(x), k=2, largest=true\n}\n",
      "HloModule m\nge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), "
      "direction=GE\n}\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
      "ENTRY main {\n  x = f32[3] parameter(0)\n  src = f32[3] constant({1, 2, 3})\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[3] select-and-scatter(x, src, z), window={size=2}, select=ge, scatter=add\n}\n",
      "HloModule m\nge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n"
      "ENTRY main {\n  x = f32[3] parameter(0)\n  src = f32[2] constant({1, 2})\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[3] select-and-scatter(x, src, z), window={size=2}, select=ge, scatter=ge\n}\n",
  };
  for (const char* hlo : cases) {
    auto result = RunHlo(hlo, {L("f32[3] {3, 1, 2}")});
    EXPECT_FALSE(result.ok()) << hlo;
  }
}

}  // namespace
}  // namespace xla
