// slice, dynamic-slice, dynamic-update-slice, pad and concatenate through the Backend
// interface.
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;

Literal WithLayout(const Literal& literal, std::vector<int64_t> minor_to_major) {
  auto relayouted = literal.Relayout(Layout(std::move(minor_to_major)));
  EXPECT_TRUE(relayouted.ok()) << relayouted.status().message();
  return relayouted.ok() ? *std::move(relayouted) : Literal();
}

std::string Unary(const std::string& in, const std::string& out, const std::string& op) {
  return "HloModule m\nENTRY main {\n  p = " + in + " parameter(0)\n  ROOT r = " + out + " " + op + "\n}";
}

// in[i][j] = 5 * i + j
Literal Grid4x5() {
  return L("s32[4,5] {{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}, {10, 11, 12, 13, 14}, {15, 16, 17, 18, 19}}");
}

TEST(InterpreterShapeIndexingTest, SliceWithStrides) {
  EXPECT_TRUE(
      LiteralEqual(L("s32[2,2] {{5, 8}, {15, 18}}"),
                   RunHlo(Unary("s32[4,5]", "s32[2,2]", "slice(p), slice={[1:4:2], [0:5:3]}"), {Grid4x5()})));
  EXPECT_TRUE(
      LiteralEqual(L("s32[2,2] {{5, 8}, {15, 18}}"),
                   RunHlo(Unary("s32[4,5]{0,1}", "s32[2,2]{0,1}", "slice(p), slice={[1:4:2], [0:5:3]}"),
                          {WithLayout(Grid4x5(), {0, 1})})));
  EXPECT_TRUE(
      LiteralEqual(L("s32[0,5] {}"),
                   RunHlo(Unary("s32[4,5]", "s32[0,5]", "slice(p), slice={[2:2], [0:5]}"), {Grid4x5()})));
  EXPECT_TRUE(LiteralEqual(L("c64[1] {(3, -4)}"), RunHlo(Unary("c64[3]", "c64[1]", "slice(p), slice={[2:3]}"),
                                                         {L("c64[3] {(1, 2), (0, 0), (3, -4)}")})));
  EXPECT_TRUE(
      LiteralEqual(L("f32[] nan"), RunHlo(Unary("f32[]", "f32[]", "slice(p), slice={}"), {L("f32[] nan")})));
  EXPECT_FALSE(RunHlo(Unary("s32[4,5]", "s32[2,5]", "slice(p), slice={[3:5], [0:5]}"), {Grid4x5()}).ok());
  // A stride past the end takes the first element only.
  EXPECT_TRUE(LiteralEqual(L("s32[1,1] {{6}}"),
                           RunHlo(Unary("s32[4,5]", "s32[1,1]",
                                        "slice(p), slice={[1:4:1000000], [1:5:1000000]}"),
                                  {Grid4x5()})));
}

std::string DynamicSliceModule(const std::string& operand, const std::string& index_type,
                               const std::string& out, const std::string& sizes, int rank) {
  std::string text = "HloModule m\nENTRY main {\n  p = " + operand + " parameter(0)\n";
  std::string args = "p";
  for (int i = 0; i < rank; ++i) {
    text += "  i" + std::to_string(i) + " = " + index_type + "[] parameter(" + std::to_string(i + 1) + ")\n";
    args += ", i" + std::to_string(i);
  }
  return text + "  ROOT r = " + out + " dynamic-slice(" + args + "), dynamic_slice_sizes={" + sizes + "}\n}";
}

TEST(InterpreterShapeIndexingTest, DynamicSliceClampsStarts) {
  const std::string hlo = DynamicSliceModule("s32[5]", "s32", "s32[3]", "3", 1);
  const Literal in = L("s32[5] {0, 1, 2, 3, 4}");
  EXPECT_TRUE(LiteralEqual(L("s32[3] {1, 2, 3}"), RunHlo(hlo, {in.Clone(), L("s32[] 1")})));
  EXPECT_TRUE(LiteralEqual(L("s32[3] {2, 3, 4}"), RunHlo(hlo, {in.Clone(), L("s32[] 3")})));
  EXPECT_TRUE(LiteralEqual(L("s32[3] {0, 1, 2}"), RunHlo(hlo, {in.Clone(), L("s32[] -5")})));
  EXPECT_TRUE(LiteralEqual(L("s32[3] {2, 3, 4}"), RunHlo(hlo, {in.Clone(), L("s32[] 2147483647")})));
  EXPECT_TRUE(LiteralEqual(L("s32[3] {2, 3, 4}"), RunHlo(DynamicSliceModule("s32[5]", "u8", "s32[3]", "3", 1),
                                                         {in.Clone(), L("u8[] 255")})));
  EXPECT_TRUE(
      LiteralEqual(L("s32[3] {2, 3, 4}"), RunHlo(DynamicSliceModule("s32[5]", "u64", "s32[3]", "3", 1),
                                                 {in.Clone(), L("u64[] 18446744073709551615")})));
  EXPECT_TRUE(
      LiteralEqual(L("s32[3] {0, 1, 2}"), RunHlo(DynamicSliceModule("s32[5]", "s64", "s32[3]", "3", 1),
                                                 {in.Clone(), L("s64[] -9223372036854775808")})));
  // 2-D, column-major operand, one start clamped.
  EXPECT_TRUE(LiteralEqual(L("s32[2,2] {{13, 14}, {18, 19}}"),
                           RunHlo(DynamicSliceModule("s32[4,5]{0,1}", "s32", "s32[2,2]", "2,2", 2),
                                  {WithLayout(Grid4x5(), {0, 1}), L("s32[] 2"), L("s32[] 7")})));
  EXPECT_TRUE(LiteralEqual(L("bf16[0] {}"), RunHlo(DynamicSliceModule("bf16[2]", "s32", "bf16[0]", "0", 1),
                                                   {L("bf16[2] {1, 2}"), L("s32[] 9")})));
  EXPECT_TRUE(LiteralEqual(L("pred[] true"),
                           RunHlo(DynamicSliceModule("pred[]", "s32", "pred[]", "", 0), {L("pred[] true")})));
}

// XLA's older form: the start indices as one rank-1 array, clamped as scalar ones are.
TEST(InterpreterShapeIndexingTest, StartIndicesAsOneArray) {
  const std::string hlo = R"(HloModule m
ENTRY e {
  p = s32[3,4] parameter(0)
  u = s32[2,2] parameter(1)
  i = s32[2] parameter(2)
  ds = s32[2,2] dynamic-slice(p, i), dynamic_slice_sizes={2,2}
  dus = s32[3,4] dynamic-update-slice(p, u, i)
  ROOT t = (s32[2,2], s32[3,4]) tuple(ds, dus)
})";
  const Literal p = L("s32[3,4] {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}}");
  const Literal u = L("s32[2,2] {{-1, -2}, {-3, -4}}");
  EXPECT_TRUE(LiteralEqual(
      L("(s32[2,2], s32[3,4]) ({{5, 6}, {9, 10}}, {{0, 1, 2, 3}, {4, -1, -2, 7}, {8, -3, -4, 11}})"),
      RunHlo(hlo, {p.Clone(), u.Clone(), L("s32[2] {1, 1}")})));
  // Starts past the end are clamped so that the slice fits: (5, 9) -> (1, 2).
  EXPECT_TRUE(LiteralEqual(
      L("(s32[2,2], s32[3,4]) ({{6, 7}, {10, 11}}, {{0, 1, 2, 3}, {4, 5, -1, -2}, {8, 9, -3, -4}})"),
      RunHlo(hlo, {p.Clone(), u.Clone(), L("s32[2] {5, 9}")})));
}

TEST(InterpreterShapeIndexingTest, DynamicUpdateSliceClampsStarts) {
  const char* hlo = R"(HloModule m
ENTRY main {
  p = s32[4] parameter(0)
  u = s32[2] parameter(1)
  i = s32[] parameter(2)
  ROOT r = s32[4] dynamic-update-slice(p, u, i)
})";
  const Literal in = L("s32[4] {1, 2, 3, 4}");
  EXPECT_TRUE(
      LiteralEqual(L("s32[4] {1, 8, 9, 4}"), RunHlo(hlo, {in.Clone(), L("s32[2] {8, 9}"), L("s32[] 1")})));
  EXPECT_TRUE(
      LiteralEqual(L("s32[4] {1, 2, 8, 9}"), RunHlo(hlo, {in.Clone(), L("s32[2] {8, 9}"), L("s32[] 3")})));
  EXPECT_TRUE(
      LiteralEqual(L("s32[4] {8, 9, 3, 4}"), RunHlo(hlo, {in.Clone(), L("s32[2] {8, 9}"), L("s32[] -1")})));
  const char* hlo2d = R"(HloModule m
ENTRY main {
  p = f32[3,3]{0,1} parameter(0)
  u = f32[2,1] parameter(1)
  i = u32[] parameter(2)
  j = u32[] parameter(3)
  ROOT r = f32[3,3]{0,1} dynamic-update-slice(p, u, i, j)
})";
  EXPECT_TRUE(
      LiteralEqual(L("f32[3,3] {{1, 2, 3}, {4, 5, -0}, {7, 8, nan}}"),
                   RunHlo(hlo2d, {WithLayout(L("f32[3,3] {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}"), {0, 1}),
                                  L("f32[2,1] {{-0}, {nan}}"), L("u32[] 4000000000"), L("u32[] 2")})));
  const char* hlo_pred = R"(HloModule m
ENTRY main {
  p = pred[2,2] parameter(0)
  u = pred[0,2] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT r = pred[2,2] dynamic-update-slice(p, u, i, j)
})";
  EXPECT_TRUE(LiteralEqual(L("pred[2,2] {{true, false}, {false, true}}"),
                           RunHlo(hlo_pred, {L("pred[2,2] {{true, false}, {false, true}}"), L("pred[0,2] {}"),
                                             L("s32[] 1"), L("s32[] 0")})));
}

std::string PadModule(const std::string& in, const std::string& out, const std::string& padding,
                      const std::string& type) {
  return "HloModule m\nENTRY main {\n  p = " + in + " parameter(0)\n  v = " + type +
         "[] parameter(1)\n  ROOT r = " + out + " pad(p, v), padding=" + padding + "\n}";
}

TEST(InterpreterShapeIndexingTest, PadEdgeAndInterior) {
  const Literal in = L("f32[3] {1, 2, 3}");
  EXPECT_TRUE(
      LiteralEqual(L("f32[8] {0, 1, 0, 2, 0, 3, 0, 0}"),
                   RunHlo(PadModule("f32[3]", "f32[8]", "1_2_1", "f32"), {in.Clone(), L("f32[] 0")})));
  // Negative edges cut the interior-padded operand: {1,p,2,p,3} without its ends.
  EXPECT_TRUE(LiteralEqual(L("f32[3] {-0, 2, -0}"), RunHlo(PadModule("f32[3]", "f32[3]", "-1_-1_1", "f32"),
                                                           {in.Clone(), L("f32[] -0")})));
  EXPECT_TRUE(LiteralEqual(L("f32[2] {3, inf}"), RunHlo(PadModule("f32[3]", "f32[2]", "-2_1", "f32"),
                                                        {in.Clone(), L("f32[] inf")})));
  EXPECT_TRUE(LiteralEqual(
      L("f32[1] {nan}"), RunHlo(PadModule("f32[3]", "f32[1]", "-3_1", "f32"), {in.Clone(), L("f32[] nan")})));
  EXPECT_TRUE(LiteralEqual(
      L("s32[7] {2, 9, 9, 3, 9, 9, 4}"),
      RunHlo(PadModule("s32[4]", "s32[7]", "-3_0_2", "s32"), {L("s32[4] {1, 2, 3, 4}"), L("s32[] 9")})));
  EXPECT_TRUE(LiteralEqual(L("u8[3] {7, 7, 7}"),
                           RunHlo(PadModule("u8[0]", "u8[3]", "2_1_3", "u8"), {L("u8[0] {}"), L("u8[] 7")})));
  EXPECT_TRUE(LiteralEqual(L("s32[0] {}"), RunHlo(PadModule("s32[2]", "s32[0]", "-1_-1", "s32"),
                                                  {L("s32[2] {1, 2}"), L("s32[] 5")})));
  EXPECT_TRUE(LiteralEqual(L("c64[4] {(1, 2), (0, -1), (0, -1), (3, 4)}"),
                           RunHlo(PadModule("c64[2]", "c64[4]", "0_0_2", "c64"),
                                  {L("c64[2] {(1, 2), (3, 4)}"), L("c64[] (0, -1)")})));
  // 2-D with layouts: rows get 1 low and 1 interior, columns lose one at the high end.
  EXPECT_TRUE(
      LiteralEqual(L("bf16[4,2] {{5, 5}, {1, 2}, {5, 5}, {4, 5}}"),
                   RunHlo(PadModule("bf16[2,3]{0,1}", "bf16[4,2]{0,1}", "1_0_1x0_-1", "bf16"),
                          {WithLayout(L("bf16[2,3] {{1, 2, 3}, {4, 5, 6}}"), {0, 1}), L("bf16[] 5")})));
  EXPECT_FALSE(RunHlo(PadModule("s32[2]", "s32[5]", "1_1", "s32"), {L("s32[2] {1, 2}"), L("s32[] 0")}).ok());
}

TEST(InterpreterShapeIndexingTest, ConcatenateAlongDims) {
  const char* hlo = R"(HloModule m
ENTRY main {
  a = s32[2,1] parameter(0)
  b = s32[2,0] parameter(1)
  c = s32[2,2]{0,1} parameter(2)
  ROOT r = s32[2,3]{0,1} concatenate(a, b, c), dimensions={1}
})";
  EXPECT_TRUE(LiteralEqual(L("s32[2,3] {{1, 3, 4}, {2, 5, 6}}"),
                           RunHlo(hlo, {L("s32[2,1] {{1}, {2}}"), L("s32[2,0] {{}, {}}"),
                                        WithLayout(L("s32[2,2] {{3, 4}, {5, 6}}"), {0, 1})})));
  const char* hlo_rows = R"(HloModule m
ENTRY main {
  a = c64[1,2] parameter(0)
  b = c64[2,2] parameter(1)
  ROOT r = c64[3,2] concatenate(a, b), dimensions={0}
})";
  EXPECT_TRUE(LiteralEqual(L("c64[3,2] {{(1, 1), (2, 2)}, {(3, 3), (4, 4)}, {(5, 5), (6, -6)}}"),
                           RunHlo(hlo_rows, {L("c64[1,2] {{(1, 1), (2, 2)}}"),
                                             L("c64[2,2] {{(3, 3), (4, 4)}, {(5, 5), (6, -6)}}")})));
  const char* hlo_pred = R"(HloModule m
ENTRY main {
  a = pred[1] parameter(0)
  b = pred[2] parameter(1)
  ROOT r = pred[3] concatenate(a, b), dimensions={0}
})";
  EXPECT_TRUE(LiteralEqual(L("pred[3] {true, false, true}"),
                           RunHlo(hlo_pred, {L("pred[1] {true}"), L("pred[2] {false, true}")})));
}

}  // namespace
}  // namespace xla
