// ragged-dot and scaled-dot: expected values computed by hand.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/interpreter/device_state.h"
#include "backends/interpreter/evaluator.h"
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;

std::string RaggedModule(const std::string& lhs, const std::string& rhs, const std::string& gs,
                         const std::string& out, const std::string& dnums) {
  return "HloModule m\nENTRY main {\n  a = " + lhs + " parameter(0)\n  b = " + rhs + " parameter(1)\n  g = " + gs +
         " parameter(2)\n  ROOT d = " + out + " ragged-dot(a, b, g), " + dnums + "\n}";
}

// Mode 1: [m,k] x [g,k,n] -> [m,n]; rows 0-1 use group 0, rows 2-3 group 1, row 4 no group:
// it gives zeros even though it holds an inf.
TEST(InterpreterRaggedDotTest, RaggedNonContractingRowsPastTheTotalAreZero) {
  auto hlo = RaggedModule("f32[5,2]", "f32[2,2,3]", "s32[2]", "f32[5,3]",
                          "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}");
  EXPECT_TRUE(LiteralEqual(
      L("f32[5,3] {{1, 2, 3}, {3, 4, 7}, {10, 12, 0}, {14, 16, 0}, {0, 0, 0}}"),
      RunHlo(hlo, {L("f32[5,2] {{1, 2}, {3, 4}, {5, 6}, {7, 8}, {inf, 10}}"),
                   L("f32[2,2,3] {{{1, 0, 1}, {0, 1, 1}}, {{2, 0, 0}, {0, 2, 0}}}"), L("s32[2] {2, 2}")})));
}

TEST(InterpreterRaggedDotTest, RaggedNonContractingEmptyGroupAndS64Sizes) {
  // Group 0 is empty, group 1 takes rows 0-2.
  auto hlo = RaggedModule("f32[3,1]", "f32[2,1,1]", "s64[2]", "f32[3,1]",
                          "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[3,1] {{-2}, {-4}, {-6}}"),
                           RunHlo(hlo, {L("f32[3,1] {{1}, {2}, {3}}"), L("f32[2,1,1] {{{5}}, {{-2}}}"),
                                        L("s64[2] {0, 7}")})));
}

TEST(InterpreterRaggedDotTest, RaggedNonContractingPerBatchGroupSizes) {
  // lhs [b=2, m=3, k=1], rhs [g=2, b=2, k=1, n=1], group_sizes [b, g].
  auto hlo = RaggedModule("f32[2,3,1]", "f32[2,2,1,1]", "s64[2,2]", "f32[2,3,1]",
                          "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, "
                          "rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}");
  EXPECT_TRUE(LiteralEqual(
      L("f32[2,3,1] {{{10}, {40}, {60}}, {{400}, {500}, {600}}}"),
      RunHlo(hlo, {L("f32[2,3,1] {{{1}, {2}, {3}}, {{4}, {5}, {6}}}"),
                   L("f32[2,2,1,1] {{{{10}}, {{100}}}, {{{20}}, {{200}}}}"), L("s64[2,2] {{1, 2}, {3, 0}}")})));
}

TEST(InterpreterRaggedDotTest, RaggedContractingGivesOneOutputPerGroup) {
  // k0 -> group 0, k1..k2 -> group 1, group 2 empty, k3 in no group.
  auto hlo = RaggedModule("f32[2,4]", "f32[4,2]", "s32[3]", "f32[3,2,2]",
                          "lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}");
  EXPECT_TRUE(LiteralEqual(
      L("f32[3,2,2] {{{1, 0}, {5, 0}}, {{3, 5}, {7, 13}}, {{0, 0}, {0, 0}}}"),
      RunHlo(hlo, {L("f32[2,4] {{1, 2, 3, 4}, {5, 6, 7, 8}}"), L("f32[4,2] {{1, 0}, {0, 1}, {1, 1}, {100, 100}}"),
                   L("s32[3] {1, 2, 0}")})));
}

TEST(InterpreterRaggedDotTest, RaggedBatchIsAPlainDot) {
  auto hlo = RaggedModule("f32[2,1,2]", "f32[2,2,1]", "s32[2]", "f32[2,1,1]",
                          "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                          "rhs_contracting_dims={1}, lhs_ragged_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[2,1,1] {{{17}}, {{53}}}"),
                           RunHlo(hlo, {L("f32[2,1,2] {{{1, 2}}, {{3, 4}}}"), L("f32[2,2,1] {{{5}, {6}}, {{7}, {8}}}"),
                                        L("s32[2] {1, 0}")})));
}

TEST(InterpreterRaggedDotTest, Bf16InputsF32Output) {
  auto hlo = RaggedModule("bf16[2,2]", "bf16[1,2,1]", "s32[1]", "f32[2,1]",
                          "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[2,1] {{3.5}, {0}}"), RunHlo(hlo, {L("bf16[2,2] {{1.5, 2}, {3, 4}}"),
                                                                    L("bf16[1,2,1] {{{2}, {0.25}}}"), L("s32[1] {1}")})));
}

TEST(InterpreterRaggedDotTest, S8InputsS32Output) {
  auto hlo = RaggedModule("s8[2,2]", "s8[1,2,1]", "s32[1]", "s32[2,1]",
                          "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("s32[2,1] {{32513}, {-1}}"), RunHlo(hlo, {L("s8[2,2] {{-128, 127}, {1, 1}}"),
                                                                       L("s8[1,2,1] {{{-128}, {127}}}"), L("s32[1] {2}")})));
}

TEST(InterpreterRaggedDotTest, GroupSizeCumulativeSumWrapsInItsType) {
  // s8 sizes {127, 1, 2}: the running sum wraps to -128 after group 1, so group 1 covers
  // [127, -128) (nothing) and group 2 covers [-128, -126) (nothing): only group 0 is used.
  auto hlo = RaggedModule("f32[3,1]", "f32[3,1,1]", "s8[3]", "f32[3,1]",
                          "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[3,1] {{1}, {2}, {3}}"), RunHlo(hlo, {L("f32[3,1] {{1}, {2}, {3}}"),
                                                                      L("f32[3,1,1] {{{1}}, {{10}}, {{100}}}"),
                                                                      L("s8[3] {127, 1, 2}")})));
}

TEST(InterpreterRaggedDotTest, ZeroSizeShapes) {
  auto no_rows = RaggedModule("f32[0,2]", "f32[2,2,3]", "s32[2]", "f32[0,3]",
                              "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[0,3] {}"), RunHlo(no_rows, {L("f32[0,2] {}"), L("f32[2,2,3] {{{1, 0, 1}, {0, 1, 1}}, "
                                                                                   "{{2, 0, 0}, {0, 2, 0}}}"),
                                                             L("s32[2] {1, 1}")})));
  auto no_groups = RaggedModule("f32[2,1]", "f32[0,1,2]", "s32[0]", "f32[2,2]",
                                "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}");
  EXPECT_TRUE(LiteralEqual(L("f32[2,2] {{0, 0}, {0, 0}}"),
                           RunHlo(no_groups, {L("f32[2,1] {{1}, {2}}"), L("f32[0,1,2] {}"), L("s32[0] {}")})));
}

TEST(InterpreterRaggedDotTest, GroupSizesPrefixMustMatchLhs) {
  auto hlo = RaggedModule("f32[2,3,1]", "f32[2,2,1,1]", "s64[3,2]", "f32[2,3,1]",
                          "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, "
                          "rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}");
  auto result = RunHlo(hlo, {L("f32[2,3,1] {{{1}, {2}, {3}}, {{4}, {5}, {6}}}"),
                             L("f32[2,2,1,1] {{{{1}}, {{1}}}, {{{1}}, {{1}}}}"), L("s64[3,2] {{1, 1}, {1, 1}, {1, 1}}")});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr("does not match lhs"));
}

TEST(InterpreterRaggedDotTest, ComplexHighRankNonDefaultLayouts) {
  // lhs [b=1, m=2, x=1, k=2] with ragged dim m, rhs [g=2, b=1, k=2] with column-major layouts.
  std::string hlo =
      "HloModule m\nENTRY main {\n  a = c64[1,2,1,2]{0,1,2,3} parameter(0)\n  b = c64[2,1,2]{0,1,2} parameter(1)\n"
      "  g = s32[1,2] parameter(2)\n  ROOT d = c64[1,2,1]{0,1,2} ragged-dot(a, b, g), lhs_batch_dims={0}, "
      "lhs_contracting_dims={3}, rhs_batch_dims={1}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, "
      "rhs_group_dims={0}\n}";
  Literal a = *L("c64[1,2,1,2] {{{{(1,1), (2,0)}}, {{(0,1), (3,0)}}}}").Relayout(Layout({0, 1, 2, 3}));
  Literal b = *L("c64[2,1,2] {{{(1,0), (0,1)}}, {{(2,0), (1,0)}}}").Relayout(Layout({0, 1, 2}));
  // Row 0 (group 0): (1+i)*1 + 2*i = 1+3i. Row 1 (group 1): i*2 + 3*1 = 3+2i.
  EXPECT_TRUE(LiteralEqual(L("c64[1,2,1] {{{(1,3)}, {(3,2)}}}"), RunHlo(hlo, {std::move(a), std::move(b), L("s32[1,2] {{1, 1}}")})));
}

// scaled-dot through the backend: scalar operands and scales.
TEST(InterpreterScaledDotTest, ScalarOperandsAndScales) {
  std::string hlo =
      "HloModule m\nENTRY main {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  sa = f32[] parameter(2)\n"
      "  sb = f32[] parameter(3)\n  ROOT d = f32[] scaled-dot(a, b, sa, sb)\n}";
  EXPECT_TRUE(LiteralEqual(L("f32[] 12"), RunHlo(hlo, {L("f32[] 3"), L("f32[] 4"), L("f32[] 2"), L("f32[] 0.5")})));
}

TEST(InterpreterScaledDotTest, BlockScalesThroughTheBackend) {
  // lhs [4,4] with scale [4,2] (blocks of 1x2), rhs [4,2] with scale [2,1] (blocks of 2x2).
  std::string hlo =
      "HloModule m\nENTRY main {\n  a = f32[4,4] parameter(0)\n  b = f32[4,2] parameter(1)\n"
      "  sa = f32[4,2] parameter(2)\n  sb = f32[2,1] parameter(3)\n"
      "  ROOT d = f32[4,2] scaled-dot(a, b, sa, sb), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}";
  EXPECT_TRUE(LiteralEqual(
      L("f32[4,2] {{244, 286}, {3, 6}, {420, 480}, {64, 76}}"),
      RunHlo(hlo, {L("f32[4,4] {{1, 1, 1, 1}, {1, 0, 0, 0}, {0, 0, 0, 1}, {2, 2, 2, 2}}"),
                   L("f32[4,2] {{1, 2}, {3, 4}, {5, 6}, {7, 8}}"),
                   L("f32[4,2] {{1, 2}, {3, 4}, {5, 6}, {0.5, 0.25}}"), L("f32[2,1] {{1}, {10}}")})));
}

// Calls the scaled-dot handler directly on an unverified module, so that operand shapes in
// XLA's order (lhs, rhs, lhs_scale, rhs_scale) are tested independently of shape inference.
absl::StatusOr<Literal> RunScaledDotHandler(const std::string& lhs, const std::string& rhs, const std::string& lhs_scale,
                                            const std::string& rhs_scale, const std::string& out,
                                            const std::string& dnums, const std::vector<Literal>& args) {
  std::string hlo = "HloModule m\nENTRY main {\n  a = " + lhs + " parameter(0)\n  b = " + rhs +
                    " parameter(1)\n  sa = " + lhs_scale + " parameter(2)\n  sb = " + rhs_scale +
                    " parameter(3)\n  ROOT d = " + out + " scaled-dot(a, b, sa, sb)" + dnums + "\n}";
  auto module = ParseAndReturnUnverifiedModule(hlo);
  if (!module.ok()) return module.status();
  const HloInstruction* root = (*module)->entry_computation()->root_instruction();
  const interpreter::OpHandler* handler = interpreter::GlobalHandlerTable().Find(HloOpcode::kScaledDot);
  if (handler == nullptr) return absl::UnimplementedError("no scaled-dot handler");
  interpreter::DeviceState device(0);
  interpreter::EvalContext ctx;
  ctx.device = &device;
  std::vector<const Literal*> operands;
  for (const Literal& arg : args) operands.push_back(&arg);
  return (*handler)(ctx, *root, operands);
}

TEST(InterpreterScaledDotTest, BlockScalesInXlaOperandOrder) {
  // lhs_scale [2,2]: blocks of 1x2; rhs_scale [2,1]: blocks of 2x3.
  std::vector<Literal> args;
  args.push_back(L("f32[2,4] {{1, 2, 3, 4}, {5, 6, 7, 8}}"));
  args.push_back(L("f32[4,3] {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}"));
  args.push_back(L("f32[2,2] {{1, 2}, {10, 0.5}}"));
  args.push_back(L("f32[2,1] {{2}, {-1}}"));
  EXPECT_TRUE(LiteralEqual(L("f32[2,3] {{-6, -4, -14}, {96, 116, -7.5}}"),
                           RunScaledDotHandler("f32[2,4]", "f32[4,3]", "f32[2,2]", "f32[2,1]", "f32[2,3]",
                                               ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", args)));
}

TEST(InterpreterScaledDotTest, ScalarScalesOnAMatmul) {
  std::vector<Literal> args;
  args.push_back(L("f32[2,2] {{1, 2}, {3, 4}}"));
  args.push_back(L("f32[2,2] {{5, 6}, {7, 8}}"));
  args.push_back(L("f32[] 2"));
  args.push_back(L("f32[] -0.5"));
  EXPECT_TRUE(LiteralEqual(L("f32[2,2] {{-19, -22}, {-43, -50}}"),
                           RunScaledDotHandler("f32[2,2]", "f32[2,2]", "f32[]", "f32[]", "f32[2,2]",
                                               ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", args)));
}

TEST(InterpreterScaledDotTest, Bf16OperandsF32Result) {
  std::vector<Literal> args;
  args.push_back(L("bf16[1,2] {{1.5, 3}}"));
  args.push_back(L("bf16[2,1] {{2}, {4}}"));
  args.push_back(L("bf16[] 2"));
  args.push_back(L("f32[1,1] {{0.5}}"));
  EXPECT_TRUE(LiteralEqual(L("f32[1,1] {{15}}"),
                           RunScaledDotHandler("bf16[1,2]", "bf16[2,1]", "bf16[]", "f32[1,1]", "f32[1,1]",
                                               ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", args)));
}

TEST(InterpreterScaledDotTest, DequantizedValuesRoundToTheResultType) {
  // 1 + 2^-8 is not a bf16: converted to the bf16 result type it rounds (to even) to 1, so
  // the result is 1 * 1 rather than 1.00390625 rounded after the product.
  std::vector<Literal> args;
  args.push_back(L("f32[1,1] {{1.00390625}}"));
  args.push_back(L("f32[1,1] {{1}}"));
  args.push_back(L("f32[] 3"));
  args.push_back(L("f32[] 1"));
  EXPECT_TRUE(LiteralEqual(L("bf16[1,1] {{3}}"),
                           RunScaledDotHandler("f32[1,1]", "f32[1,1]", "f32[]", "f32[]", "bf16[1,1]",
                                               ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", args)));
}

TEST(InterpreterScaledDotTest, S8OperandsS32Result) {
  std::vector<Literal> args;
  args.push_back(L("s8[1,2] {{-128, 127}}"));
  args.push_back(L("s8[2,1] {{3}, {-1}}"));
  args.push_back(L("s8[] 2"));
  args.push_back(L("s8[2,1] {{1}, {-2}}"));
  EXPECT_TRUE(LiteralEqual(L("s32[1,1] {{-260}}"),
                           RunScaledDotHandler("s8[1,2]", "s8[2,1]", "s8[]", "s8[2,1]", "s32[1,1]",
                                               ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", args)));
}

TEST(InterpreterScaledDotTest, ScaleThatDoesNotDivideIsAnError) {
  std::vector<Literal> args;
  args.push_back(L("f32[1,3] {{1, 2, 3}}"));
  args.push_back(L("f32[3,1] {{1}, {1}, {1}}"));
  args.push_back(L("f32[1,2] {{1, 1}}"));
  args.push_back(L("f32[] 1"));
  auto result = RunScaledDotHandler("f32[1,3]", "f32[3,1]", "f32[1,2]", "f32[]", "f32[1,1]",
                                    ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", args);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr("does not divide"));
}

TEST(InterpreterScaledDotTest, BlockScalesInXlaOperandOrderThroughTheVerifier) {
  // scaled-dot(lhs, rhs, lhs_scale, rhs_scale); each lhs scale covers 1x2, each rhs scale 2x1.
  const char* hlo = R"(HloModule m
ENTRY main {
  lhs = f32[2,4] parameter(0)
  rhs = f32[4,2] parameter(1)
  ls = f32[2,2] parameter(2)
  rs = f32[2,2] parameter(3)
  ROOT d = f32[2,2] scaled-dot(lhs, rhs, ls, rs), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  EXPECT_TRUE(LiteralEqual(L("f32[2,2] {{14, 14}, {16, 16}}"),
                           RunHlo(hlo, {L("f32[2,4] {{1, 1, 1, 1}, {2, 2, 2, 2}}"),
                                        L("f32[4,2] {{1, 1}, {1, 1}, {1, 1}, {1, 1}}"),
                                        L("f32[2,2] {{1, 2}, {1, 1}}"), L("f32[2,2] {{1, 1}, {3, 3}}")})));
}

}  // namespace
}  // namespace xla
