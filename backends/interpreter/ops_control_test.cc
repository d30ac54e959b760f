// Control flow and structure through the Backend interface.
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;

TEST(BackendRegistryTest, PlatformsAndErrors) {
  auto names = backend::RegisteredPlatforms();
  EXPECT_THAT(names, ::testing::Contains("interpreter"));
  EXPECT_THAT(names, ::testing::Contains("null"));
  auto missing = backend::CreateBackend("tpu");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), ::testing::HasSubstr("interpreter"));
  auto null_backend = backend::CreateBackend("null");
  ASSERT_TRUE(null_backend.ok());
  EXPECT_EQ((*null_backend)->TransferToDevice(L("f32[] 1"), 0).status().code(),
            absl::StatusCode::kUnimplemented);
}

TEST(InterpreterControlTest, TupleAndGetTupleElement) {
  const char* hlo = R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = s32[] parameter(1)
  t = (f32[2], s32[]) tuple(a, b)
  ROOT g = s32[] get-tuple-element(t), index=1
})";
  EXPECT_TRUE(LiteralEqual(L("s32[] 7"), RunHlo(hlo, {L("f32[2] {1, 2}"), L("s32[] 7")})));
}

TEST(InterpreterControlTest, ConstantsAndNestedTuples) {
  const char* hlo = R"(HloModule m
ENTRY main {
  c = s32[3] constant({4, 5, 6})
  d = (s32[3], (pred[])) tuple(c, (pred[]) tuple(pred[] constant(true)))
  ROOT r = ((s32[3], (pred[])), s32[3]) tuple(d, c)
})";
  auto result = RunHlo(hlo, {});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tuple_element(1), L("s32[3] {4, 5, 6}"));
  EXPECT_EQ(result->tuple_element(0).tuple_element(1).tuple_element(0), L("pred[] true"));
}

// A constant of tuple shape (nested too) as a value and as a while loop's initial state.
TEST(InterpreterControlTest, TupleConstants) {
  const char* hlo = R"(HloModule m
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(6)
  ROOT go = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  two = s32[] constant(2)
  next = s32[] add(i, two)
  ROOT t = (s32[], f32[4]) tuple(next, f32[4] add(x, x))
}
ENTRY main {
  init = (s32[], f32[4]) constant((1, {1, 2, 3, 4}))
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  nested = ((pred[], u8[2]), s64[]) constant(((true, {7, 8}), -3))
  ROOT r = ((s32[], f32[4]), ((pred[], u8[2]), s64[])) tuple(w, nested)
})";
  EXPECT_TRUE(LiteralEqual(L("((s32[], f32[4]), ((pred[], u8[2]), s64[])) ((7, {8, 16, 24, 32}), ((true, {7, 8}), -3))"),
                           RunHlo(hlo, {})));
}

// async-start/update/done run the wrapped computation; copy-start/done copy; the parts of
// their start values read as the operands, result and source.
TEST(InterpreterControlTest, AsyncAndCopyPairs) {
  const char* hlo = R"(HloModule m
scaled {
  a = f32[4] parameter(0)
  b = f32[2,2] parameter(1)
  r = f32[4] reshape(b)
  ROOT m = f32[4] multiply(a, r)
}
ENTRY main {
  p = f32[4] parameter(0)
  q = f32[2,2] parameter(1)
  s = ((f32[4], f32[2,2]), f32[4], s32[]) async-start(p, q), calls=scaled
  u = ((f32[4], f32[2,2]), f32[4], s32[]) async-update(s), calls=scaled
  d = f32[4] async-done(u), calls=scaled
  inputs = (f32[4], f32[2,2]) get-tuple-element(s), index=0
  q2 = f32[2,2] get-tuple-element(inputs), index=1
  cs = (f32[2,2], f32[2,2], u32[]) copy-start(q2)
  source = f32[2,2] get-tuple-element(cs), index=1
  cd = f32[2,2] copy-done(cs)
  n = f32[2,2] negate(cd)
  ROOT t = (f32[4], f32[2,2], f32[2,2]) tuple(d, n, source)
})";
  EXPECT_TRUE(LiteralEqual(L("(f32[4], f32[2,2], f32[2,2]) ({5, 12, 21, 32}, {{-5, -6}, {-7, -8}}, {{5, 6}, {7, 8}})"),
                           RunHlo(hlo, {L("f32[4] {1, 2, 3, 4}"), L("f32[2,2] {{5, 6}, {7, 8}}")})));
}

TEST(InterpreterControlTest, WhileLoopCountsToTen) {
  const char* hlo = R"(HloModule m
cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT next = (s32[], s32[]) tuple(n, n)
}
ENTRY main {
  n = s32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, n)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT r = s32[] get-tuple-element(w), index=0
})";
  EXPECT_TRUE(LiteralEqual(L("s32[] 10"), RunHlo(hlo, {L("s32[] 10")})));
  EXPECT_TRUE(LiteralEqual(L("s32[] 0"), RunHlo(hlo, {L("s32[] -3")})));  // 0 < -3 fails: body never runs
}

TEST(InterpreterControlTest, ConditionalPredicatedAndIndexed) {
  const char* hlo = R"(HloModule m
first {
  ROOT x = f32[] parameter(0)
}
second {
  x = f32[] parameter(0)
  ROOT t = f32[] get-tuple-element((f32[]) tuple(x)), index=0
}
third {
  ROOT y = f32[] parameter(0)
}
ENTRY main {
  i = s32[] parameter(0)
  a = f32[] parameter(1)
  b = f32[] parameter(2)
  c = f32[] parameter(3)
  ROOT r = f32[] conditional(i, a, b, c), branch_computations={first, second, third}
})";
  EXPECT_TRUE(LiteralEqual(L("f32[] 1"), RunHlo(hlo, {L("s32[] 0"), L("f32[] 1"), L("f32[] 2"), L("f32[] 3")})));
  EXPECT_TRUE(LiteralEqual(L("f32[] 2"), RunHlo(hlo, {L("s32[] 1"), L("f32[] 1"), L("f32[] 2"), L("f32[] 3")})));
  // Out-of-range indices run the last branch.
  EXPECT_TRUE(LiteralEqual(L("f32[] 3"), RunHlo(hlo, {L("s32[] 7"), L("f32[] 1"), L("f32[] 2"), L("f32[] 3")})));
  EXPECT_TRUE(LiteralEqual(L("f32[] 3"), RunHlo(hlo, {L("s32[] -1"), L("f32[] 1"), L("f32[] 2"), L("f32[] 3")})));

  const char* pred_hlo = R"(HloModule m
on_true {
  ROOT x = s32[] parameter(0)
}
on_false {
  ROOT y = s32[] parameter(0)
}
ENTRY main {
  p = pred[] parameter(0)
  a = s32[] parameter(1)
  b = s32[] parameter(2)
  ROOT r = s32[] conditional(p, a, b), true_computation=on_true, false_computation=on_false
})";
  EXPECT_TRUE(LiteralEqual(L("s32[] 5"), RunHlo(pred_hlo, {L("pred[] true"), L("s32[] 5"), L("s32[] 6")})));
  EXPECT_TRUE(LiteralEqual(L("s32[] 6"), RunHlo(pred_hlo, {L("pred[] false"), L("s32[] 5"), L("s32[] 6")})));
}

TEST(InterpreterControlTest, CallAndTokens) {
  const char* hlo = R"(HloModule m
callee {
  x = f32[2] parameter(0)
  ROOT t = (f32[2], f32[2]) tuple(x, x)
}
ENTRY main {
  a = f32[2] parameter(0)
  tok = token[] after-all()
  d = f32[2] add-dependency(a, tok)
  c = (f32[2], f32[2]) call(d), to_apply=callee
  ROOT o = (f32[2], f32[2]) opt-barrier(c)
})";
  auto result = RunHlo(hlo, {L("f32[2] {1.5, -2}")});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tuple_element(1), L("f32[2] {1.5, -2}"));
}

TEST(InterpreterControlTest, CopyKeepsValuesAcrossLayouts) {
  const char* hlo = R"(HloModule m
ENTRY main {
  a = s32[2,3]{1,0} parameter(0)
  ROOT c = s32[2,3]{0,1} copy(a)
})";
  EXPECT_TRUE(LiteralEqual(L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}"),
                           RunHlo(hlo, {L("s32[2,3] {{1, 2, 3}, {4, 5, 6}}")})));
}

TEST(InterpreterControlTest, ErrorsAreClear) {
  // Wrong argument count and shape.
  const char* hlo = R"(HloModule m
ENTRY main {
  ROOT a = f32[2] parameter(0)
})";
  auto none = RunHlo(hlo, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  auto wrong = RunHlo(hlo, {L("f32[3] {1, 2, 3}")});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(std::string(wrong.status().message()), ::testing::HasSubstr("f32[3]"));
  // Invalid modules are rejected at compile time.
  auto invalid = RunHlo(R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  ROOT b = f32[3] negate(a)
})", {L("f32[2] {1, 2}")});
  EXPECT_FALSE(invalid.ok());
}

}  // namespace
}  // namespace xla
