// gather and scatter through the Backend interface: XLA's operation-semantics examples,
// batching dims, implicit index vectors, clamping (gather) and skipped windows (scatter).
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

std::string GatherModule(const std::string& operand, const std::string& indices, const std::string& out,
                         const std::string& attrs) {
  return "HloModule m\nENTRY main {\n  p = " + operand + " parameter(0)\n  i = " + indices +
         " parameter(1)\n  ROOT g = " + out + " gather(p, i), " + attrs + "\n}";
}

Literal Grid3x3() { return L("s32[3,3] {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}"); }

TEST(InterpreterGatherTest, RowsByIndex) {
  const std::string hlo = GatherModule("s32[3,3]", "s32[2]", "s32[2,3]",
                                       "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
                                       "index_vector_dim=1, slice_sizes={1,3}");
  EXPECT_TRUE(
      LiteralEqual(L("s32[2,3] {{1, 2, 3}, {7, 8, 9}}"), RunHlo(hlo, {Grid3x3(), L("s32[2] {0, 2}")})));
  // Out-of-bounds starts are clamped into the operand.
  EXPECT_TRUE(
      LiteralEqual(L("s32[2,3] {{7, 8, 9}, {1, 2, 3}}"), RunHlo(hlo, {Grid3x3(), L("s32[2] {7, -4}")})));
  // Column-major operand and result.
  const std::string hlo_layout = GatherModule("s32[3,3]{0,1}", "u8[2]", "s32[2,3]{0,1}",
                                              "offset_dims={1}, collapsed_slice_dims={0}, "
                                              "start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}");
  EXPECT_TRUE(LiteralEqual(L("s32[2,3] {{4, 5, 6}, {7, 8, 9}}"),
                           RunHlo(hlo_layout, {WithLayout(Grid3x3(), {0, 1}), L("u8[2] {1, 255}")})));
}

TEST(InterpreterGatherTest, ClampedWindows) {
  const std::string hlo = GatherModule("f32[3,3]", "s32[2,1]", "f32[2,2,3]",
                                       "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, "
                                       "index_vector_dim=1, slice_sizes={2,3}");
  EXPECT_TRUE(LiteralEqual(
      L("f32[2,2,3] {{{1, 2, 3}, {4, 5, 6}}, {{4, 5, 6}, {7, 8, nan}}}"),
      RunHlo(hlo, {L("f32[3,3] {{1, 2, 3}, {4, 5, 6}, {7, 8, nan}}"), L("s32[2,1] {{-1}, {5}}")})));
}

TEST(InterpreterGatherTest, IndexVectorDims) {
  // index_vector_dim=0: the vectors are the columns, (0,2) and (1,1).
  const std::string leading = GatherModule("s32[3,3]", "s32[2,2]", "s32[2]",
                                           "offset_dims={}, collapsed_slice_dims={0,1}, "
                                           "start_index_map={0,1}, index_vector_dim=0, slice_sizes={1,1}");
  EXPECT_TRUE(LiteralEqual(L("s32[2] {3, 5}"), RunHlo(leading, {Grid3x3(), L("s32[2,2] {{0, 1}, {2, 1}}")})));
  // index_vector_dim == rank: each index is a 1-vector; the offset dim comes first.
  const std::string implicit = GatherModule("s32[3,3]", "s32[2]", "s32[3,2]",
                                            "offset_dims={0}, collapsed_slice_dims={1}, start_index_map={1}, "
                                            "index_vector_dim=1, slice_sizes={3,1}");
  EXPECT_TRUE(LiteralEqual(L("s32[3,2] {{3, 1}, {6, 4}, {9, 7}}"),
                           RunHlo(implicit, {Grid3x3(), L("s32[2] {2, 0}")})));
  // A scalar index picks one row; start_index_map lists dimension 0 only.
  const std::string scalar = GatherModule("bf16[3,2]", "s64[]", "bf16[2]",
                                          "offset_dims={0}, collapsed_slice_dims={0}, start_index_map={0}, "
                                          "index_vector_dim=0, slice_sizes={1,2}");
  EXPECT_TRUE(LiteralEqual(L("bf16[2] {5, -inf}"),
                           RunHlo(scalar, {L("bf16[3,2] {{1, 2}, {3, 4}, {5, -inf}}"), L("s64[] 2")})));
}

TEST(InterpreterGatherTest, BatchingDims) {
  // out[b][k] = in[b][idx[b][k]]
  const std::string hlo = GatherModule(
      "s32[2,3]", "s32[2,2,1]", "s32[2,2]",
      "offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, "
      "start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1}");
  EXPECT_TRUE(LiteralEqual(
      L("s32[2,2] {{3, 1}, {5, 5}}"),
      RunHlo(hlo, {L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}"), L("s32[2,2,1] {{{2}, {0}}, {{1}, {1}}}")})));
  // The batch dimension of the indices is their second one: out[k][b] = in[b][idx[k][b]].
  const std::string second = GatherModule(
      "pred[2,3]", "s32[3,2]", "pred[3,2]",
      "offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, "
      "start_indices_batching_dims={1}, index_vector_dim=2, slice_sizes={1,1}");
  EXPECT_TRUE(LiteralEqual(L("pred[3,2] {{true, false}, {false, true}, {false, false}}"),
                           RunHlo(second, {L("pred[2,3] {{true, false, false}, {false, false, true}}"),
                                           L("s32[3,2] {{0, 0}, {1, 2}, {9, -9}}")})));
}

TEST(InterpreterGatherTest, ZeroSizeAndRank5) {
  const std::string empty = GatherModule("c64[2,2]", "s32[0,1]", "c64[0,2]",
                                         "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
                                         "index_vector_dim=1, slice_sizes={1,2}");
  EXPECT_TRUE(
      LiteralEqual(L("c64[0,2] {}"),
                   RunHlo(empty, {L("c64[2,2] {{(1, 1), (2, 2)}, {(3, 3), (4, 4)}}"), L("s32[0,1] {}")})));
  // A rank-5 operand with size-1 dims; a window of the last two dims at (0,0,1,*,*).
  const std::string rank5 = GatherModule(
      "u8[1,1,2,2,2]", "s32[3]", "u8[2,2]",
      "offset_dims={0,1}, collapsed_slice_dims={0,1,2}, start_index_map={0,1,2}, index_vector_dim=0, "
      "slice_sizes={1,1,1,2,2}");
  EXPECT_TRUE(LiteralEqual(
      L("u8[2,2] {{5, 6}, {7, 8}}"),
      RunHlo(rank5, {L("u8[1,1,2,2,2] {{{{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}}}"), L("s32[3] {0, 0, 1}")})));
}

std::string ScatterModule(const std::string& operand, const std::string& indices, const std::string& updates,
                          const std::string& attrs, const std::string& combiner = "add") {
  // combiner: a binary opcode, "overwrite" (returns the update parameter) or "update"
  // (a copy of it, which takes the generic path).
  const std::string type = operand.substr(0, operand.find('['));
  std::string body = "  a = " + type + "[] parameter(0)\n";
  if (combiner == "overwrite") {
    body += "  ROOT b = " + type + "[] parameter(1)\n";
  } else {
    body += "  b = " + type + "[] parameter(1)\n  ROOT r = " + type + "[] " +
            (combiner == "update" ? std::string("copy(b)") : combiner + "(a, b)") + "\n";
  }
  return "HloModule m\ncombine {\n" + body + "}\nENTRY main {\n  p = " + operand +
         " parameter(0)\n  i = " + indices + " parameter(1)\n  u = " + updates +
         " parameter(2)\n  ROOT s = " + operand + " scatter(p, i, u), " + attrs + ", to_apply=combine\n}";
}

const char kRowAttrs[] =
    "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1";

TEST(InterpreterScatterTest, RowsAddedAndOverwritten) {
  const Literal zeros = L("s32[3,3] {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}");
  const Literal updates = L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  EXPECT_TRUE(LiteralEqual(L("s32[3,3] {{1, 2, 3}, {0, 0, 0}, {4, 5, 6}}"),
                           RunHlo(ScatterModule("s32[3,3]", "s32[2]", "s32[2,3]", kRowAttrs),
                                  {zeros.Clone(), L("s32[2] {0, 2}"), updates.Clone()})));
  // Repeated indices accumulate.
  EXPECT_TRUE(LiteralEqual(L("s32[3,3] {{0, 0, 0}, {5, 7, 9}, {0, 0, 0}}"),
                           RunHlo(ScatterModule("s32[3,3]", "s32[2]", "s32[2,3]", kRowAttrs),
                                  {zeros.Clone(), L("s32[2] {1, 1}"), updates.Clone()})));
  // Out-of-bounds windows are skipped, not clamped.
  EXPECT_TRUE(LiteralEqual(L("s32[3,3] {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}"),
                           RunHlo(ScatterModule("s32[3,3]", "s32[2]", "s32[2,3]", kRowAttrs),
                                  {zeros.Clone(), L("s32[2] {3, -1}"), updates.Clone()})));
  // The combiner gets (operand, update) in that order.
  EXPECT_TRUE(LiteralEqual(L("s32[3,3] {{9, 8, 7}, {0, 0, 0}, {0, 0, 0}}"),
                           RunHlo(ScatterModule("s32[3,3]", "s32[1]", "s32[1,3]", kRowAttrs, "subtract"),
                                  {L("s32[3,3] {{10, 10, 10}, {0, 0, 0}, {0, 0, 0}}"), L("s32[1] {0}"),
                                   L("s32[1,3] {{1, 2, 3}}")})));
  // Overwrite keeps the update bits (NaN, -0) and the last of repeated indices wins.
  EXPECT_TRUE(
      LiteralEqual(L("f32[3] {-0, 5, nan}"),
                   RunHlo(ScatterModule("f32[3]", "s32[3,1]", "f32[3]",
                                        "update_window_dims={}, inserted_window_dims={0}, "
                                        "scatter_dims_to_operand_dims={0}, index_vector_dim=1",
                                        "overwrite"),
                          {L("f32[3] {1, 2, 3}"), L("s32[3,1] {{2}, {0}, {1}}"), L("f32[3] {nan, -0, 5}")})));
  EXPECT_TRUE(LiteralEqual(L("f32[2] {1, 7}"),
                           RunHlo(ScatterModule("f32[2]", "s32[2,1]", "f32[2]",
                                                "update_window_dims={}, inserted_window_dims={0}, "
                                                "scatter_dims_to_operand_dims={0}, index_vector_dim=1",
                                                "update"),
                                  {L("f32[2] {1, 2}"), L("s32[2,1] {{1}, {1}}"), L("f32[2] {3, 7}")})));
}

TEST(InterpreterScatterTest, PartialWindowOutOfBoundsIsSkipped) {
  // Windows of 2 rows in a 4-row operand: start 2 fits, start 3 does not.
  const std::string hlo = ScatterModule("s32[4,2]", "s32[2]", "s32[2,2,2]",
                                        "update_window_dims={1,2}, inserted_window_dims={}, "
                                        "scatter_dims_to_operand_dims={0}, index_vector_dim=1");
  EXPECT_TRUE(LiteralEqual(L("s32[4,2] {{0, 0}, {0, 0}, {1, 2}, {3, 4}}"),
                           RunHlo(hlo, {L("s32[4,2] {{0, 0}, {0, 0}, {0, 0}, {0, 0}}"), L("s32[2] {2, 3}"),
                                        L("s32[2,2,2] {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}")})));
}

TEST(InterpreterScatterTest, ScalarIndexAndLayouts) {
  const std::string hlo = ScatterModule("u8[2,3]{0,1}", "u32[2]", "u8[]",
                                        "update_window_dims={}, inserted_window_dims={0,1}, "
                                        "scatter_dims_to_operand_dims={0,1}, index_vector_dim=0",
                                        "maximum");
  EXPECT_TRUE(LiteralEqual(L("u8[2,3] {{1, 2, 3}, {4, 5, 200}}"),
                           RunHlo(hlo, {WithLayout(L("u8[2,3] {{1, 2, 3}, {4, 5, 6}}"), {0, 1}),
                                        L("u32[2] {1, 2}"), L("u8[] 200")})));
}

TEST(InterpreterScatterTest, BatchingDims) {
  // operand[b][idx[b][k]] += upd[b][k]
  const std::string hlo =
      ScatterModule("s32[2,3]", "s32[2,2,1]", "s32[2,2]",
                    "update_window_dims={}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, "
                    "input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2");
  EXPECT_TRUE(LiteralEqual(
      L("s32[2,3] {{10, 0, 1}, {0, 200, 0}}"),
      RunHlo(hlo, {L("s32[2,3] {{0, 0, 0}, {0, 0, 0}}"), L("s32[2,2,1] {{{2}, {0}}, {{1}, {1}}}"),
                   L("s32[2,2] {{1, 10}, {100, 100}}")})));
}

TEST(InterpreterScatterTest, VariadicCombiner) {
  // Keeps the (value, index) pair with the larger value: an argmax scatter.
  const char* hlo = R"(HloModule m
combine {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v1, v0), direction=GT
  v = f32[] select(gt, v1, v0)
  i = s32[] select(gt, i1, i0)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY main {
  v = f32[2] parameter(0)
  x = s32[2] parameter(1)
  idx = s32[3,1] parameter(2)
  uv = f32[3] parameter(3)
  ux = s32[3] parameter(4)
  ROOT s = (f32[2], s32[2]) scatter(v, x, idx, uv, ux), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine
})";
  auto result = RunHlo(hlo, {L("f32[2] {0, 0}"), L("s32[2] {-1, -1}"), L("s32[3,1] {{0}, {0}, {1}}"),
                             L("f32[3] {3, 5, -1}"), L("s32[3] {10, 11, 12}")});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tuple_element(0), L("f32[2] {5, 0}"));
  EXPECT_EQ(result->tuple_element(1), L("s32[2] {11, -1}"));
}

TEST(InterpreterScatterTest, ZeroSizeUpdatesAndBf16) {
  EXPECT_TRUE(LiteralEqual(L("bf16[2] {1, 2}"),
                           RunHlo(ScatterModule("bf16[2]", "s32[0,1]", "bf16[0]",
                                                "update_window_dims={}, inserted_window_dims={0}, "
                                                "scatter_dims_to_operand_dims={0}, index_vector_dim=1"),
                                  {L("bf16[2] {1, 2}"), L("s32[0,1] {}"), L("bf16[0] {}")})));
  // bf16 add rounds each combination: 256 + 1 = 256 (ties to even), twice.
  EXPECT_TRUE(LiteralEqual(L("bf16[2] {256, 2}"),
                           RunHlo(ScatterModule("bf16[2]", "s32[2,1]", "bf16[2]",
                                                "update_window_dims={}, inserted_window_dims={0}, "
                                                "scatter_dims_to_operand_dims={0}, index_vector_dim=1"),
                                  {L("bf16[2] {256, 2}"), L("s32[2,1] {{0}, {0}}"), L("bf16[2] {1, 1}")})));
}

}  // namespace
}  // namespace xla
