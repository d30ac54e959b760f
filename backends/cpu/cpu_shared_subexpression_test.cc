// Modules whose values are each used twice (x2 = add(x1, x1), ...) compile in time linear in
// their size: generators look their operands up instead of copying their closures, scalar
// values are emitted once per binding of a computation's parameters, and the row cache's use
// check walks each user once. Before, each of these took 2^depth steps (a 60-level chain of
// a dozen lines hung the compile); now each agrees with the interpreter. What cannot be
// emitted in reasonable time is refused with an error instead: modules whose computations,
// copied at each call site, come to more than kMostExpandedInstructions or nest deeper than
// kMostCallNesting (passes/call_expansion.h), fusions that evaluate their instructions more
// than kMostFusedEvaluations times (values read at differing indices along many paths), and
// values whose generators would call one another more than kMostGeneratorDepth deep.
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/testing/hlo_test_util.h"
#include "backends/testing/hostile_modules.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::SameOnBothBackends;
using ::xla::testing::hostile::Doubling;
using ::xla::testing::hostile::DoublingModule;
using ::xla::testing::hostile::ForwardDifferences;
using ::xla::testing::hostile::LongReducerChain;
using ::xla::testing::hostile::NestedCalls;
using ::xla::testing::hostile::ReducerWithArrays;
using ::xla::testing::hostile::SharedBranches;

TEST(CpuSharedSubexpressions, ScalarChainInTheEntry) {
  const std::string hlo = DoublingModule("f32[]", 60);
  EXPECT_TRUE(SameOnBothBackends(hlo, {Literal::CreateR0<float>(0.75f)})) << hlo;
}

TEST(CpuSharedSubexpressions, ArrayChainInAFusion) {
  const std::string hlo = DoublingModule("f32[64]", 60);
  std::mt19937_64 rng(1);
  EXPECT_TRUE(SameOnBothBackends(hlo, {testing::RandomLiteral(ShapeUtil::MakeShape(F32, {64}), &rng, false)}))
      << hlo;
}

// (a + b) doubled 60 times, halved 60 times.
TEST(CpuSharedSubexpressions, ChainInAReducerWithArrays) {
  std::string halving = "  half = f32[] constant(0.5)\n  h0 = f32[] add(x60, x60)\n";
  for (int k = 1; k <= 60; ++k) absl::StrAppend(&halving, "  h", k, " = f32[] multiply(h", k - 1, ", half)\n");
  const std::string hlo = ReducerWithArrays(Doubling("x", "f32[]", "add", 60) + halving, "h60");
  std::mt19937_64 rng(2);
  EXPECT_TRUE(SameOnBothBackends(hlo, {testing::RandomLiteral(ShapeUtil::MakeShape(F32, {16, 8}), &rng, false)},
                                 1e-6, 1e-6))
      << hlo;
}

// A softmax-like fusion (exp, a row sum, a divide) whose divide feeds 45 levels of
// y + (-y): the row cache's check of the divide's uses reaches each level by two paths.
TEST(CpuSharedSubexpressions, RowCacheUseCheck) {
  std::string chain;
  for (int k = 1; k <= 45; ++k) {
    absl::StrAppend(&chain, "  n", k, " = f32[64,64] negate(y", k - 1, ")\n  y", k, " = f32[64,64] add(y", k - 1, ", n",
                    k, ")\n");
  }
  const std::string hlo = absl::StrCat(R"(HloModule rows
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
ENTRY e {
  p = f32[64,64] parameter(0)
  e = f32[64,64] exponential(p)
  zero = f32[] constant(0)
  r = f32[64] reduce(e, zero), dimensions={1}, to_apply=add
  b = f32[64,64] broadcast(r), dimensions={0}
  y0 = f32[64,64] divide(e, b)
)",
                                       chain, "  ROOT out = f32[64,64] add(y45, e)\n}\n");
  std::mt19937_64 rng(3);
  EXPECT_TRUE(SameOnBothBackends(hlo, {testing::RandomLiteral(ShapeUtil::MakeShape(F32, {64, 64}), &rng, false)},
                                 1e-6, 1e-6))
      << hlo;
}

TEST(CpuSharedSubexpressions, ModulesThatExpandTooFarAreRefused) {
  // 10 levels (about 5000 instructions emitted) compile and run; 30 (5e9) are refused at once.
  EXPECT_TRUE(SameOnBothBackends(SharedBranches(10), {Literal::CreateR0<float>(0.5f)}));
  testing::RegisterBackendsOnce();
  absl::StatusOr<Literal> wide = xla::testing::RunHlo(SharedBranches(30), {Literal::CreateR0<float>(0.5f)}, "cpu");
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(wide.status().message().find("more than 4194304 instructions"), std::string::npos) << wide.status();
  // Calls nested 150 deep compile; 250 deep are refused (they recursed that deep in the planner).
  EXPECT_TRUE(SameOnBothBackends(NestedCalls(150), {Literal::CreateR0<float>(0.5f)}));
  absl::StatusOr<Literal> deep = xla::testing::RunHlo(NestedCalls(250), {Literal::CreateR0<float>(0.5f)}, "cpu");
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(deep.status().message().find("nest 252 deep"), std::string::npos) << deep.status();
}

// Forward differences through slices, 30 levels: each level reads the one before at two
// indices, so the fusion's values are evaluated once per path (2^30); the compile gives up
// with an error naming the fusion instead of running for hours.
TEST(CpuSharedSubexpressions, FusionsThatEvaluateTooOftenAreRefused) {
  const std::string hlo = ForwardDifferences(30);
  testing::RegisterBackendsOnce();
  std::mt19937_64 rng(4);
  absl::StatusOr<Literal> result = xla::testing::RunHlo(
      hlo, {testing::RandomLiteral(ShapeUtil::MakeShape(F32, {64}), &rng, false)}, "cpu");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(result.status().message().find("evaluates its instructions more than 1048576 times"), std::string::npos)
      << result.status();
  // Eight levels (256 paths) compile and agree.
  const std::string eight = ForwardDifferences(8);
  EXPECT_TRUE(SameOnBothBackends(eight, {testing::RandomLiteral(ShapeUtil::MakeShape(F32, {64}), &rng, false)}))
      << eight;
}

// 1000 deep compiles and agrees; 100000 deep overflowed the stack (the process died) and
// is refused now.
TEST(CpuSharedSubexpressions, ChainsTooDeepToEmitAreRefused) {
  std::mt19937_64 rng(5);
  const Literal x = testing::RandomLiteral(ShapeUtil::MakeShape(F32, {16, 8}), &rng, false);
  EXPECT_TRUE(SameOnBothBackends(LongReducerChain(1000), {x.Clone()}));
  testing::RegisterBackendsOnce();
  absl::StatusOr<Literal> deep = xla::testing::RunHlo(LongReducerChain(100000), {x.Clone()}, "cpu");
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(deep.status().message().find("a chain of more than 2000 values"), std::string::npos) << deep.status();
}

}  // namespace
}  // namespace cpu
}  // namespace xla
