// broadcast, reshape, transpose, bitcast, reverse, iota, get/set-dimension-size through
// the Backend interface.
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/shape_util.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;

// The same values stored in another layout (minor_to_major).
Literal WithLayout(const Literal& literal, std::vector<int64_t> minor_to_major) {
  auto relayouted = literal.Relayout(Layout(std::move(minor_to_major)));
  EXPECT_TRUE(relayouted.ok()) << relayouted.status().message();
  return relayouted.ok() ? *std::move(relayouted) : Literal();
}

std::string Unary(const std::string& in, const std::string& out, const std::string& op) {
  return "HloModule m\nENTRY main {\n  p = " + in + " parameter(0)\n  ROOT r = " + out + " " + op + "\n}";
}

TEST(InterpreterShapeTest, BroadcastMapsOperandDims) {
  EXPECT_TRUE(LiteralEqual(
      L("f32[2,3] {{1, 2, 3}, {1, 2, 3}}"),
      RunHlo(Unary("f32[3]", "f32[2,3]", "broadcast(p), dimensions={1}"), {L("f32[3] {1, 2, 3}")})));
  EXPECT_TRUE(LiteralEqual(
      L("f32[3,2] {{1, 1}, {-0, -0}, {nan, nan}}"),
      RunHlo(Unary("f32[3]", "f32[3,2]", "broadcast(p), dimensions={0}"), {L("f32[3] {1, -0, nan}")})));
  EXPECT_TRUE(
      LiteralEqual(L("pred[2,2] {{true, true}, {true, true}}"),
                   RunHlo(Unary("pred[]", "pred[2,2]", "broadcast(p), dimensions={}"), {L("pred[] true")})));
  EXPECT_TRUE(LiteralEqual(
      L("s32[0,3] {}"), RunHlo(Unary("s32[]", "s32[0,3]", "broadcast(p), dimensions={}"), {L("s32[] 7")})));
  EXPECT_TRUE(LiteralEqual(
      L("c64[2,2] {{(1, -1), (2, 3)}, {(1, -1), (2, 3)}}"),
      RunHlo(Unary("c64[2]", "c64[2,2]", "broadcast(p), dimensions={1}"), {L("c64[2] {(1, -1), (2, 3)}")})));
  EXPECT_TRUE(
      LiteralEqual(L("bf16[2,1] {{0.1001}, {0.1001}}"),
                   RunHlo(Unary("bf16[]", "bf16[2,1]", "broadcast(p), dimensions={}"), {L("bf16[] 0.1")})));
}

TEST(InterpreterShapeTest, BroadcastRank5AndLayouts) {
  // out[a,0,b,c,0] = in[a,c]
  EXPECT_TRUE(LiteralEqual(L("u8[2,1,2,3,1] { { { { {1}, {2}, {3} }, { {1}, {2}, {3} } } },"
                             " { { { {4}, {5}, {6} }, { {4}, {5}, {6} } } } }"),
                           RunHlo(Unary("u8[2,3]", "u8[2,1,2,3,1]", "broadcast(p), dimensions={0,3}"),
                                  {L("u8[2,3] {{1, 2, 3}, {4, 5, 6}}")})));
  // Column-major input and a transposed result layout.
  const char* hlo = R"(HloModule m
ENTRY main {
  p = s32[2,3]{0,1} parameter(0)
  ROOT r = s32[2,2,3]{0,1,2} broadcast(p), dimensions={0,2}
})";
  EXPECT_TRUE(LiteralEqual(L("s32[2,2,3] {{{1, 2, 3}, {1, 2, 3}}, {{4, 5, 6}, {4, 5, 6}}}"),
                           RunHlo(hlo, {WithLayout(L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}"), {0, 1})})));
}

TEST(InterpreterShapeTest, ReshapeIsRowMajor) {
  const Literal in = WithLayout(L("f32[2,3] {{1, 2, 3}, {4, 5, 6}}"), {0, 1});
  EXPECT_TRUE(LiteralEqual(L("f32[3,2] {{1, 2}, {3, 4}, {5, 6}}"),
                           RunHlo(Unary("f32[2,3]{0,1}", "f32[3,2]{0,1}", "reshape(p)"), {in.Clone()})));
  EXPECT_TRUE(LiteralEqual(L("f32[6] {1, 2, 3, 4, 5, 6}"),
                           RunHlo(Unary("f32[2,3]", "f32[6]", "reshape(p)"), {in.Clone()})));
  EXPECT_TRUE(LiteralEqual(L("c64[] (1, 2)"),
                           RunHlo(Unary("c64[1,1]", "c64[]", "reshape(p)"), {L("c64[1,1] {{(1, 2)}}")})));
  EXPECT_TRUE(LiteralEqual(L("s32[3,0] {{}, {}, {}}"),
                           RunHlo(Unary("s32[0,3]", "s32[3,0]", "reshape(p)"), {L("s32[0,3] {}")})));
  EXPECT_TRUE(
      LiteralEqual(L("pred[1,1,1,2,1] {{{{{true}, {false}}}}}"),
                   RunHlo(Unary("pred[2]", "pred[1,1,1,2,1]", "reshape(p)"), {L("pred[2] {true, false}")})));
}

TEST(InterpreterShapeTest, TransposePermutes) {
  EXPECT_TRUE(LiteralEqual(L("s32[3,2] {{1, 4}, {2, 5}, {3, 6}}"),
                           RunHlo(Unary("s32[2,3]", "s32[3,2]", "transpose(p), dimensions={1,0}"),
                                  {L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}")})));
  // out[i,j,k] = in[j,k,i]
  EXPECT_TRUE(
      LiteralEqual(L("bf16[3,2,1] {{{1}, {4}}, {{2}, {5}}, {{3}, {6}}}"),
                   RunHlo(Unary("bf16[2,1,3]", "bf16[3,2,1]{0,1,2}", "transpose(p), dimensions={2,0,1}"),
                          {WithLayout(L("bf16[2,1,3] {{{1, 2, 3}}, {{4, 5, 6}}}"), {1, 0, 2})})));
  EXPECT_TRUE(LiteralEqual(L("f32[] -0"),
                           RunHlo(Unary("f32[]", "f32[]", "transpose(p), dimensions={}"), {L("f32[] -0")})));
  EXPECT_TRUE(LiteralEqual(
      L("u8[0,2] {}"),
      RunHlo(Unary("u8[2,0]", "u8[0,2]", "transpose(p), dimensions={1,0}"), {L("u8[2,0] {{}, {}}")})));
}

TEST(InterpreterShapeTest, BitcastUsesPhysicalOrder) {
  // Same layouts: a reshape.
  EXPECT_TRUE(LiteralEqual(
      L("f32[3,2] {{1, 2}, {3, 4}, {5, 6}}"),
      RunHlo(Unary("f32[2,3]{1,0}", "f32[3,2]{1,0}", "bitcast(p)"), {L("f32[2,3] {{1, 2, 3}, {4, 5, 6}}")})));
  // A column-major operand is read in its physical (column) order.
  EXPECT_TRUE(LiteralEqual(
      L("f32[6] {1, 4, 2, 5, 3, 6}"),
      RunHlo(Unary("f32[2,3]{0,1}", "f32[6]{0}", "bitcast(p)"), {L("f32[2,3] {{1, 2, 3}, {4, 5, 6}}")})));
  // A column-major result is written in its physical order.
  EXPECT_TRUE(
      LiteralEqual(L("f32[3,2] {{1, 4}, {2, 5}, {3, 6}}"),
                   RunHlo(Unary("f32[6]", "f32[3,2]{0,1}", "bitcast(p)"), {L("f32[6] {1, 2, 3, 4, 5, 6}")})));
  // Transpose as a bitcast: {1,0} [2,3] and {0,1} [3,2] share the buffer.
  EXPECT_TRUE(LiteralEqual(
      L("s32[3,2] {{1, 4}, {2, 5}, {3, 6}}"),
      RunHlo(Unary("s32[2,3]{1,0}", "s32[3,2]{0,1}", "bitcast(p)"), {L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}")})));
  // Same-width element types reinterpret the bits.
  EXPECT_TRUE(LiteralEqual(L("s32[2] {1065353216, -2147483648}"),
                           RunHlo(Unary("f32[2]", "s32[2]", "bitcast(p)"), {L("f32[2] {1, -0}")})));
}

TEST(InterpreterShapeTest, ReverseDims) {
  const Literal in = L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  EXPECT_TRUE(
      LiteralEqual(L("s32[2,3] {{3, 2, 1}, {6, 5, 4}}"),
                   RunHlo(Unary("s32[2,3]", "s32[2,3]", "reverse(p), dimensions={1}"), {in.Clone()})));
  EXPECT_TRUE(LiteralEqual(L("s32[2,3] {{6, 5, 4}, {3, 2, 1}}"),
                           RunHlo(Unary("s32[2,3]{0,1}", "s32[2,3]{0,1}", "reverse(p), dimensions={0,1}"),
                                  {WithLayout(in, {0, 1})})));
  EXPECT_TRUE(LiteralEqual(L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}"),
                           RunHlo(Unary("s32[2,3]", "s32[2,3]", "reverse(p), dimensions={}"), {in.Clone()})));
  EXPECT_TRUE(LiteralEqual(L("pred[3,0] {{}, {}, {}}"),
                           RunHlo(Unary("pred[3,0]", "pred[3,0]", "reverse(p), dimensions={0,1}"),
                                  {L("pred[3,0] {{}, {}, {}}")})));
  EXPECT_TRUE(LiteralEqual(L("c64[3] {(5, 6), (3, 4), (1, 2)}"),
                           RunHlo(Unary("c64[3]", "c64[3]", "reverse(p), dimensions={0}"),
                                  {L("c64[3] {(1, 2), (3, 4), (5, 6)}")})));
}

std::string IotaModule(const std::string& shape, int dim, const std::string& slice = "") {
  std::string text = "HloModule m\nENTRY main {\n  ";
  if (slice.empty())
    return text + "ROOT i = " + shape + " iota(), iota_dimension=" + std::to_string(dim) + "\n}";
  return text + "i = " + shape + " iota(), iota_dimension=" + std::to_string(dim) + "\n  ROOT s = " + slice +
         "\n}";
}

TEST(InterpreterShapeTest, IotaAcrossTypes) {
  EXPECT_TRUE(LiteralEqual(L("s32[2,3] {{0, 1, 2}, {0, 1, 2}}"), RunHlo(IotaModule("s32[2,3]", 1), {})));
  EXPECT_TRUE(
      LiteralEqual(L("f32[3,2] {{0, 0}, {1, 1}, {2, 2}}"), RunHlo(IotaModule("f32[3,2]{0,1}", 0), {})));
  EXPECT_FALSE(RunHlo(IotaModule("pred[3]", 0), {}).ok());  // XLA has no pred iota
  EXPECT_TRUE(LiteralEqual(L("c64[3] {(0, 0), (1, 0), (2, 0)}"), RunHlo(IotaModule("c64[3]", 0), {})));
  EXPECT_TRUE(LiteralEqual(L("s64[0,4] {}"), RunHlo(IotaModule("s64[0,4]", 1), {})));
  // bf16 rounds each index once, to nearest even: 257 -> 256, 259 -> 260.
  EXPECT_TRUE(LiteralEqual(L("bf16[4] {256, 256, 258, 260}"),
                           RunHlo(IotaModule("bf16[260]", 0, "bf16[4] slice(i), slice={[256:260]}"), {})));
  // u8 wraps as a C++ conversion does.
  EXPECT_TRUE(LiteralEqual(L("u8[4] {254, 255, 0, 1}"),
                           RunHlo(IotaModule("u8[300]", 0, "u8[4] slice(i), slice={[254:258]}"), {})));
  EXPECT_TRUE(LiteralEqual(L("s8[1,1,1,1,2] {{{{{0, 1}}}}}"), RunHlo(IotaModule("s8[1,1,1,1,2]", 4), {})));
}

TEST(InterpreterShapeTest, DimensionSizes) {
  EXPECT_TRUE(
      LiteralEqual(L("s32[] 5"), RunHlo(Unary("f32[3,5]", "s32[]", "get-dimension-size(p), dimensions={1}"),
                                        {L("f32[3,5] {{1,2,3,4,5},{1,2,3,4,5},{1,2,3,4,5}}")})));
  EXPECT_TRUE(LiteralEqual(
      L("s32[] 0"),
      RunHlo(Unary("f32[0]", "s32[]", "get-dimension-size(p), dimensions={0}"), {L("f32[0] {}")})));
  const char* hlo = R"(HloModule m
ENTRY main {
  p = s32[3] parameter(0)
  n = s32[] constant(2)
  ROOT r = s32[<=3] set-dimension-size(p, n), dimensions={0}
})";
  auto result = RunHlo(hlo, {L("s32[3] {1, 2, 3}")});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->GetAsInt64(0), 1);
  EXPECT_EQ(result->GetAsInt64(1), 2);
}

TEST(InterpreterShapeTest, NarrowTypesMoveUnchanged) {
  EXPECT_TRUE(LiteralEqual(L("s4[2,2] {{-8, 7}, {-1, 0}}"),
                           RunHlo(Unary("s4[2,2]", "s4[2,2]", "transpose(p), dimensions={1,0}"),
                                  {L("s4[2,2] {{-8, -1}, {7, 0}}")})));
  EXPECT_TRUE(LiteralEqual(L("f8e5m2[2,2] {{-inf, 0.5}, {-inf, 0.5}}"),
                           RunHlo(Unary("f8e5m2[2]", "f8e5m2[2,2]", "broadcast(p), dimensions={1}"),
                                  {L("f8e5m2[2] {-inf, 0.5}")})));
  EXPECT_TRUE(LiteralEqual(L("u1[3] {1, 0, 1}"), RunHlo(Unary("u1[3]", "u1[3]", "reverse(p), dimensions={0}"),
                                                       {L("u1[3] {1, 0, 1}")})));
}

TEST(InterpreterShapeTest, DynamicReshapeAtBounds) {
  const char* hlo = R"(HloModule m
ENTRY main {
  p = s32[2,3] parameter(0)
  a = s32[] parameter(1)
  b = s32[] parameter(2)
  ROOT r = s32[<=3,<=2] dynamic-reshape(p, a, b)
})";
  const Literal in = L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  auto result = RunHlo(hlo, {in.Clone(), L("s32[] 3"), L("s32[] 2")});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->GetAsInt64(2), 3);
  EXPECT_EQ(result->GetAsInt64(5), 6);
  // Sizes below the bounds need dynamic literals, which the interpreter does not model.
  EXPECT_EQ(RunHlo(hlo, {in.Clone(), L("s32[] 1"), L("s32[] 2")}).status().code(),
            absl::StatusCode::kUnimplemented);
}

TEST(InterpreterShapeTest, BadAttributesAreErrors) {
  auto r = RunHlo(Unary("s32[2,3]", "s32[3,2]", "transpose(p), dimensions={0,0}"),
                  {L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}")});
  EXPECT_FALSE(r.ok());
  auto b = RunHlo(Unary("s32[2]", "s32[2,3]", "broadcast(p), dimensions={1}"), {L("s32[2] {1, 2}")});
  EXPECT_FALSE(b.ok());
  auto i = RunHlo(IotaModule("s32[2]", 3), {});
  EXPECT_FALSE(i.ok());
}

}  // namespace
}  // namespace xla
