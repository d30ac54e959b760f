// rng (uniform, normal) and rng-get-and-update-state through the Backend interface.
// rng's bits are backend-defined, so these tests check ranges, statistics, determinism
// per seed and the type coverage; rng-bit-generator's exact bits are in
// ops_rng_bits_test.cc.
#include <cmath>

#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using testing::L;
using testing::RunHlo;

// Runs `hlo` (no parameters) `runs` times on one backend with `seed`.
std::vector<Literal> RunSeeded(const std::string& hlo, uint64_t seed, int runs = 1) {
  std::vector<Literal> results;
  auto module = ParseAndReturnUnverifiedModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return results;
  auto backend = backend::CreateBackend(testing::TestPlatform());
  EXPECT_TRUE(backend.ok());
  if (!backend.ok()) return results;
  auto executable = (*backend)->Compile(*std::move(module), backend::CompileOptions());
  EXPECT_TRUE(executable.ok()) << executable.status().message();
  if (!executable.ok()) return results;
  backend::ExecuteOptions options;
  options.rng_seed = seed;
  for (int i = 0; i < runs; ++i) {
    auto buffer = (*executable)->Execute({}, options);
    EXPECT_TRUE(buffer.ok()) << buffer.status().message();
    if (!buffer.ok()) return results;
    auto value = (*backend)->TransferFromDevice(**buffer);
    EXPECT_TRUE(value.ok());
    if (value.ok()) results.push_back(*std::move(value));
  }
  return results;
}

std::string RngHlo(const std::string& type, const std::string& dims, const std::string& a,
                   const std::string& b, const std::string& distribution) {
  return "HloModule m\nENTRY main {\n  a = " + type + "[] constant(" + a + ")\n  b = " + type +
         "[] constant(" + b + ")\n  ROOT r = " + type + dims + " rng(a, b), distribution=" +
         distribution + "\n}";
}

void ExpectAllIn(const Literal& values, double low, double high_exclusive) {
  for (int64_t i = 0; i < values.element_count(); ++i) {
    const double v = values.GetAsDouble(i);
    ASSERT_TRUE(v >= low && v < high_exclusive) << "element " << i << " = " << v;
  }
}

double Mean(const Literal& values) {
  double sum = 0;
  for (int64_t i = 0; i < values.element_count(); ++i) sum += values.GetAsDouble(i);
  return sum / values.element_count();
}

double StdDev(const Literal& values) {
  const double mean = Mean(values);
  double sum = 0;
  for (int64_t i = 0; i < values.element_count(); ++i) {
    sum += (values.GetAsDouble(i) - mean) * (values.GetAsDouble(i) - mean);
  }
  return std::sqrt(sum / values.element_count());
}

TEST(InterpreterRngTest, UniformFloatRangesAndMoments) {
  for (const char* type : {"f32", "f64", "f16", "bf16"}) {
    auto r = RunSeeded(RngHlo(type, "[4000]", "-2", "3", "rng_uniform"), 7);
    ASSERT_EQ(r.size(), 1u) << type;
    // bf16/f16 round once from f32, so b itself can appear after rounding (as in XLA).
    const bool narrow = std::string(type) == "f16" || std::string(type) == "bf16";
    ExpectAllIn(r[0], -2, narrow ? 3.0000001 : 3);
    EXPECT_NEAR(Mean(r[0]), 0.5, 0.1) << type;
    EXPECT_NEAR(StdDev(r[0]), 5 / std::sqrt(12.0), 0.1) << type;  // uniform on [-2, 3)
  }
}

TEST(InterpreterRngTest, UniformIntegersCoverTheRange) {
  auto s32 = RunSeeded(RngHlo("s32", "[2000]", "-5", "5", "rng_uniform"), 3);
  ASSERT_EQ(s32.size(), 1u);
  ExpectAllIn(s32[0], -5, 5);
  std::vector<int> seen(10, 0);
  for (int64_t i = 0; i < 2000; ++i) ++seen[s32[0].GetAsInt64(i) + 5];
  for (int count : seen) EXPECT_GT(count, 120);  // about 200 each
  auto u8 = RunSeeded(RngHlo("u8", "[500]", "250", "255", "rng_uniform"), 3);
  ASSERT_EQ(u8.size(), 1u);
  ExpectAllIn(u8[0], 250, 255);
  auto s8 = RunSeeded(RngHlo("s8", "[500]", "-128", "-120", "rng_uniform"), 3);
  ASSERT_EQ(s8.size(), 1u);
  ExpectAllIn(s8[0], -128, -120);
  auto s64 = RunSeeded(RngHlo("s64", "[2,3,50]", "-3", "3", "rng_uniform"), 3);
  ASSERT_EQ(s64.size(), 1u);
  ExpectAllIn(s64[0], -3, 3);
  auto u64 = RunSeeded(RngHlo("u64", "[300]", "18446744073709551600", "18446744073709551610",
                              "rng_uniform"), 3);
  ASSERT_EQ(u64.size(), 1u);
  for (int64_t i = 0; i < 300; ++i) {
    const uint64_t v = u64[0].GetAsUint64(i);
    ASSERT_TRUE(v >= 18446744073709551600ull && v < 18446744073709551610ull) << v;
  }
  auto u16 = RunSeeded(RngHlo("u16", "[300]", "0", "3", "rng_uniform"), 3);
  ASSERT_EQ(u16.size(), 1u);
  ExpectAllIn(u16[0], 0, 3);
}

TEST(InterpreterRngTest, NormalMoments) {
  auto f32 = RunSeeded(RngHlo("f32", "[101,100]", "10", "2", "rng_normal"), 11);
  ASSERT_EQ(f32.size(), 1u);
  EXPECT_NEAR(Mean(f32[0]), 10, 0.06);
  EXPECT_NEAR(StdDev(f32[0]), 2, 0.06);
  auto f64 = RunSeeded(RngHlo("f64", "[3,3333]", "-1", "0.5", "rng_normal"), 11);
  ASSERT_EQ(f64.size(), 1u);
  EXPECT_NEAR(Mean(f64[0]), -1, 0.02);
  EXPECT_NEAR(StdDev(f64[0]), 0.5, 0.02);
  auto f16 = RunSeeded(RngHlo("f16", "[2001]", "0", "1", "rng_normal"), 11);
  ASSERT_EQ(f16.size(), 1u);
  EXPECT_NEAR(Mean(f16[0]), 0, 0.1);
  EXPECT_NEAR(StdDev(f16[0]), 1, 0.1);
  for (int64_t i = 0; i < 2001; ++i) ASSERT_TRUE(std::isfinite(f16[0].GetAsDouble(i)));
}

TEST(InterpreterRngTest, ScalarsAndEmptyShapes) {
  auto scalar = RunSeeded(RngHlo("f32", "[]", "1", "2", "rng_uniform"), 5);
  ASSERT_EQ(scalar.size(), 1u);
  ExpectAllIn(scalar[0], 1, 2);
  auto normal_scalar = RunSeeded(RngHlo("f32", "[]", "0", "1", "rng_normal"), 5);
  ASSERT_EQ(normal_scalar.size(), 1u);
  EXPECT_TRUE(std::isfinite(normal_scalar[0].GetAsDouble(0)));
  auto empty = RunSeeded(RngHlo("f32", "[0,4]", "0", "1", "rng_normal"), 5);
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0], L("f32[0,4] {}"));
  // A non-default layout holds the same kind of values.
  auto col = RunSeeded(RngHlo("s32", "[3,4]{0,1}", "0", "4", "rng_uniform"), 5);
  ASSERT_EQ(col.size(), 1u);
  ExpectAllIn(col[0], 0, 4);
}

TEST(InterpreterRngTest, DeterministicPerSeedAndDistinctPerInstruction) {
  const std::string hlo = R"(HloModule m
ENTRY main {
  a = f32[] constant(0)
  b = f32[] constant(1)
  x = f32[64] rng(a, b), distribution=rng_uniform
  y = f32[64] rng(a, b), distribution=rng_uniform
  ROOT t = (f32[64], f32[64]) tuple(x, y)
})";
  auto first = RunSeeded(hlo, 123, 2);
  auto again = RunSeeded(hlo, 123, 1);
  auto other = RunSeeded(hlo, 124, 1);
  ASSERT_EQ(first.size(), 2u);
  ASSERT_EQ(again.size(), 1u);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(first[0], first[1]);  // repeated runs on one backend
  EXPECT_EQ(first[0], again[0]);  // a fresh backend
  EXPECT_NE(first[0], other[0]);  // another seed
  EXPECT_NE(first[0].tuple_element(0), first[0].tuple_element(1));  // two instructions
}

TEST(InterpreterRngTest, RngInsideALoopDrawsFreshValuesEachIteration) {
  // Two iterations each draw one f32[8]; the loop keeps the first and the second draw.
  const char* hlo = R"(HloModule m
cond {
  s = (s32[], f32[8], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  two = s32[] constant(2)
  ROOT lt = pred[] compare(i, two), direction=LT
}
body {
  s = (s32[], f32[8], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[8] rng(lo, hi), distribution=rng_uniform
  first = f32[8] get-tuple-element(s), index=1
  zero = s32[] constant(0)
  is_first = pred[] compare(i, zero), direction=EQ
  is_first_v = pred[8] broadcast(is_first), dimensions={}
  keep_first = f32[8] select(is_first_v, r, first)
  ROOT t = (s32[], f32[8], f32[8]) tuple(next, keep_first, r)
}
ENTRY main {
  z = s32[] constant(0)
  e = f32[8] constant({0, 0, 0, 0, 0, 0, 0, 0})
  init = (s32[], f32[8], f32[8]) tuple(z, e, e)
  ROOT w = (s32[], f32[8], f32[8]) while(init), condition=cond, body=body
})";
  auto a = RunHlo(hlo, {});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_NE(a->tuple_element(1), a->tuple_element(2));
  // Whole runs stay reproducible.
  auto b = RunHlo(hlo, {});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
}

TEST(InterpreterRngTest, RejectsUnsupportedTypes) {
  EXPECT_FALSE(RunHlo(RngHlo("pred", "[4]", "false", "true", "rng_uniform"), {}).ok());
  EXPECT_FALSE(RunHlo(RngHlo("s32", "[4]", "0", "1", "rng_normal"), {}).ok());
}

TEST(InterpreterRngTest, GetAndUpdateStateAdvancesByDelta) {
  const std::string hlo = R"(HloModule m
ENTRY main {
  ROOT s = u64[2] rng-get-and-update-state(), delta=16
})";
  auto runs = RunSeeded(hlo, 0, 3);
  ASSERT_EQ(runs.size(), 3u);
  const uint64_t start = runs[0].GetAsUint64(0);
  EXPECT_EQ(runs[0].GetAsUint64(1), 0u);
  EXPECT_EQ(runs[1].GetAsUint64(0), start + 16);
  EXPECT_EQ(runs[2].GetAsUint64(0), start + 32);
}

}  // namespace
}  // namespace xla
