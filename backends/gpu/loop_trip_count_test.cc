// Counted while loops (loop_trip_count.h): which loops have a trip count fixed by their HLO,
// or by a first value and bound read from their initial state, and the counts.
#include "backends/gpu/loop_trip_count.h"

#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace gpu {
namespace {

// A loop over (T counter, f32[4]) whose condition is `condition` (of i, the counter, and n,
// the constant `limit`), whose body adds `step` to the counter, starting at `first`.
struct Loop {
  std::string type = "s32";
  std::string condition = "compare(i, n), direction=LT";
  std::string first = "0", limit = "10", step = "1";
  std::string increment = "add(i, s)";

  std::string Text() const {
    return absl::StrReplaceAll(R"(HloModule counted
cond {
  p = (T[], f32[4]) parameter(0)
  i = T[] get-tuple-element(p), index=0
  n = T[] constant(LIMIT)
  ROOT go = pred[] CONDITION
}
body {
  p = (T[], f32[4]) parameter(0)
  i = T[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  s = T[] constant(STEP)
  next = T[] INCREMENT
  y = f32[4] add(x, x)
  ROOT t = (T[], f32[4]) tuple(next, y)
}
ENTRY main {
  x = f32[4] parameter(0)
  first = T[] constant(FIRST)
  init = (T[], f32[4]) tuple(first, x)
  ROOT w = (T[], f32[4]) while(init), condition=cond, body=body
})",
                               {{"CONDITION", condition}, {"INCREMENT", increment}, {"LIMIT", limit},
                                {"STEP", step}, {"FIRST", first}, {"T[]", type + "[]"}});
  }
};

std::optional<int64_t> TripCount(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(text);
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << text;
  if (!module.ok()) return std::nullopt;
  return KnownTripCount(*(*module)->entry_computation()->root_instruction());
}

TEST(LoopTripCountTest, CountedLoopsOfEveryComparison) {
  struct Case {
    std::string condition, first, limit, step;
    std::optional<int64_t> trips;
  };
  const Case cases[] = {
      {"compare(i, n), direction=LT", "0", "10", "1", 10},
      {"compare(i, n), direction=LT", "3", "10", "3", 3},  // 3, 6, 9
      {"compare(i, n), direction=LT", "3", "10", "7", 1},
      {"compare(i, n), direction=LT", "10", "10", "1", 0},
      {"compare(i, n), direction=LT", "12", "10", "1", 0},
      {"compare(i, n), direction=LT", "-5", "5", "2", 5},  // -5, -3, -1, 1, 3
      {"compare(i, n), direction=LE", "0", "10", "1", 11},
      {"compare(i, n), direction=LE", "0", "10", "5", 3},
      {"compare(i, n), direction=LE", "11", "10", "1", 0},
      {"compare(i, n), direction=NE", "2", "10", "1", 8},
      {"compare(n, i), direction=GT", "0", "10", "1", 10},
      {"compare(n, i), direction=GE", "0", "10", "1", 11},
      // Not counted: the counter moves away, a step that may jump past n, comparisons the
      // other way.
      {"compare(i, n), direction=LT", "0", "10", "-1", std::nullopt},
      {"compare(i, n), direction=LT", "0", "10", "0", std::nullopt},
      {"compare(i, n), direction=NE", "0", "10", "3", std::nullopt},
      {"compare(i, n), direction=NE", "12", "10", "1", std::nullopt},
      {"compare(i, n), direction=GT", "20", "10", "1", std::nullopt},
      {"compare(i, n), direction=EQ", "10", "10", "1", std::nullopt},
  };
  for (const Case& c : cases) {
    Loop loop;
    loop.condition = c.condition;
    loop.first = c.first;
    loop.limit = c.limit;
    loop.step = c.step;
    EXPECT_EQ(TripCount(loop.Text()), c.trips) << c.condition << " from " << c.first << " to " << c.limit << " by "
                                               << c.step;
  }
}

TEST(LoopTripCountTest, TheCounterMustNotWrap) {
  Loop loop;
  loop.type = "s8";
  loop.limit = "127";
  loop.condition = "compare(i, n), direction=LE";  // i <= 127 always holds: it wraps to -128
  EXPECT_EQ(TripCount(loop.Text()), std::nullopt);
  loop.condition = "compare(i, n), direction=LT";  // 0..126, then 127 ends it
  EXPECT_EQ(TripCount(loop.Text()), 127);
  loop.limit = "125";
  loop.step = "100";  // 0, 100, then 200 wraps to -56 < 125: runs on
  EXPECT_EQ(TripCount(loop.Text()), std::nullopt);
  loop.type = "u8";
  loop.limit = "250";
  loop.step = "100";  // 0, 100, 200, then 300 wraps
  EXPECT_EQ(TripCount(loop.Text()), std::nullopt);
  loop.step = "50";  // 0 .. 200, then 250 ends it
  EXPECT_EQ(TripCount(loop.Text()), 5);
  loop.type = "s64";
  loop.first = "-9223372036854775807";
  loop.limit = "9223372036854775807";
  loop.step = "1";  // more iterations than an int64 counts
  EXPECT_EQ(TripCount(loop.Text()), std::nullopt);
  loop.step = "4611686018427387904";  // 2^62: ..., 2^62 + 1, then 2^63 + 1 wraps
  EXPECT_EQ(TripCount(loop.Text()), std::nullopt);
  loop.limit = "4611686018427387904";  // -2^63 + 1, -2^62 + 1, 1, then 2^62 + 1 ends it
  EXPECT_EQ(TripCount(loop.Text()), 3);
  loop.type = "u64";
  loop.first = "0";
  loop.limit = "18446744073709551615";  // past int64: not handled
  EXPECT_EQ(TripCount(loop.Text()), std::nullopt);
}

TEST(LoopTripCountTest, OnlyAConditionOfOneComparisonAndACounterTheBodyStepsCount) {
  Loop loop;
  loop.increment = "add(s, i)";  // the step first
  EXPECT_EQ(TripCount(loop.Text()), 10);
  loop.increment = "subtract(i, s)";
  EXPECT_EQ(TripCount(loop.Text()), std::nullopt);
  loop.increment = "multiply(i, s)";
  EXPECT_EQ(TripCount(loop.Text()), std::nullopt);
  // A condition that computes more than the comparison (here on the data).
  std::string text = Loop().Text();
  text = absl::StrReplaceAll(text, {{"  ROOT go = pred[] compare(i, n), direction=LT",
                                     "  i2 = s32[] add(i, i)\n  ROOT go = pred[] compare(i2, n), direction=LT"}});
  EXPECT_EQ(TripCount(text), std::nullopt);
  // A limit that is not a constant.
  text = absl::StrReplaceAll(Loop().Text(), {{"n = s32[] constant(10)", "n = s32[] get-tuple-element(p), index=0"}});
  EXPECT_EQ(TripCount(text), std::nullopt);
  // A start that is not a constant.
  text = absl::StrReplaceAll(Loop().Text(), {{"first = s32[] constant(0)", "first = s32[] parameter(1)"}});
  EXPECT_EQ(TripCount(text), std::nullopt);
  // A float counter.
  loop = Loop();
  loop.type = "f32";
  EXPECT_EQ(TripCount(loop.Text()), std::nullopt);
  // An unsigned comparison of a signed counter.
  loop = Loop();
  loop.condition = "compare(i, n), direction=LT, type=UNSIGNED";
  EXPECT_EQ(TripCount(loop.Text()), std::nullopt);
  loop.condition = "compare(i, n), direction=LT, type=SIGNED";
  EXPECT_EQ(TripCount(loop.Text()), 10);
}

TEST(LoopTripCountTest, AConstantStartTupleAndAFusedIncrement) {
  const std::string text = R"(HloModule fused
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(6)
  ROOT go = pred[] compare(i, n), direction=LT
}
increment {
  a = s32[] parameter(0)
  one = s32[] constant(2)
  ROOT sum = s32[] add(a, one)
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  next = s32[] fusion(i), kind=kLoop, calls=increment
  ROOT t = (s32[], f32[4]) tuple(next, x)
}
ENTRY main {
  init = (s32[], f32[4]) constant((1, {1, 2, 3, 4}))
  ROOT w = (s32[], f32[4]) while(init), condition=cond, body=body
})";
  EXPECT_EQ(TripCount(text), 3);  // 1, 3, 5
}

// A fori_loop with traced bounds: the start is the caller's, the bound an element of the
// state the body passes through. Counted, with both read from the initial state; a bound the
// body changes, or of another type, is not.
constexpr char kTracedBounds[] = R"(HloModule traced
cond {
  p = (s32[], s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  ROOT go = pred[] compare(n, i), direction=GT
}
body {
  p = (s32[], s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  x = f32[4] get-tuple-element(p), index=2
  two = s32[] constant(2)
  next = s32[] add(i, two)
  y = f32[4] add(x, x)
  ROOT t = (s32[], s32[], f32[4]) tuple(next, BOUND, y)
}
ENTRY main {
  first = s32[] parameter(0)
  n = s32[] parameter(1)
  x = f32[4] parameter(2)
  init = (s32[], s32[], f32[4]) tuple(first, n, x)
  ROOT w = (s32[], s32[], f32[4]) while(init), condition=cond, body=body
})";

std::optional<CountedLoop> Counted(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(text);
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << text;
  if (!module.ok()) return std::nullopt;
  return FindCountedLoop(*(*module)->entry_computation()->root_instruction());
}

TEST(LoopTripCountTest, BoundsFromTheStateAreReadOnce) {
  const std::optional<CountedLoop> counted = Counted(absl::StrReplaceAll(kTracedBounds, {{"BOUND", "n"}}));
  ASSERT_TRUE(counted.has_value());
  EXPECT_EQ(counted->counter, 0);
  EXPECT_EQ(counted->first_element, 0);
  EXPECT_EQ(counted->limit_element, 1);
  EXPECT_FALSE(counted->first.has_value());
  EXPECT_FALSE(counted->limit.has_value());
  EXPECT_EQ(counted->step, 2);
  EXPECT_EQ(counted->direction, ComparisonDirection::kLt);  // n > i, turned around
  EXPECT_EQ(TripCount(*counted, 0, 10), 5);
  EXPECT_EQ(TripCount(*counted, 3, 10), 4);  // 3, 5, 7, 9
  EXPECT_EQ(TripCount(*counted, 10, -4), 0);
  EXPECT_EQ(TripCount(*counted, 0, 2147483647), std::nullopt) << "its last step would pass 2^31 - 1";
  EXPECT_EQ(TripCount(*counted, int64_t{1} << 40, 10), std::nullopt) << "not an s32";
  // A bound the body changes is not a bound, nor is a bound another element takes.
  EXPECT_FALSE(Counted(absl::StrReplaceAll(kTracedBounds, {{"BOUND", "next"}})).has_value());
  EXPECT_FALSE(Counted(absl::StrReplaceAll(kTracedBounds, {{"BOUND", "i"}})).has_value());
  // A u32 counter read as int64 past its range is refused.
  CountedLoop unsigned_loop = *counted;
  unsigned_loop.type = U32;
  EXPECT_EQ(TripCount(unsigned_loop, 0, -1), std::nullopt);
  EXPECT_EQ(TripCount(unsigned_loop, 0, 4294967294), 2147483647);
}

}  // namespace
}  // namespace gpu
}  // namespace xla
