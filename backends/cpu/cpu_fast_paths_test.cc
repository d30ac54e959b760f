// The cpu backend's performance paths against the interpreter: row-reduction fusions
// (softmax as one kernel per row), reductions to a scalar split into parallel partial
// reductions, and a dense layer with softmax (GEMM then fused epilogue), at shapes large
// enough to run on several threads.
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::RandomLiteral;
using testing::SameOnBothBackends;

Literal R(PrimitiveType t, std::vector<int64_t> dims, uint64_t seed = 1, bool specials = false) {
  std::mt19937_64 rng(seed);
  return RandomLiteral(ShapeUtil::MakeShape(t, dims), &rng, specials);
}

// Uniform in [-1, 1): sums without cancellation of large terms, so that f32 rounding
// differences (summation order, OpenBLAS against the interpreter's dot) stay small.
Literal U(std::vector<int64_t> dims, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Literal literal = *Literal::Create(ShapeUtil::MakeShape(F32, dims));
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (float& v : literal.data<float>()) v = uniform(rng);
  return literal;
}

constexpr char kReducers[] = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}
)";

std::string Softmax(int64_t rows, int64_t cols) {
  return absl::StrReplaceAll(absl::StrCat("HloModule softmax\n", kReducers, R"(
ENTRY e {
  x = f32[$R,$C] parameter(0)
  ninf = f32[] constant(-inf)
  rmax = f32[$R] reduce(x, ninf), dimensions={1}, to_apply=max
  bmax = f32[$R,$C] broadcast(rmax), dimensions={0}
  sub = f32[$R,$C] subtract(x, bmax)
  ex = f32[$R,$C] exponential(sub)
  zero = f32[] constant(0)
  sum = f32[$R] reduce(ex, zero), dimensions={1}, to_apply=add
  bsum = f32[$R,$C] broadcast(sum), dimensions={0}
  ROOT out = f32[$R,$C] divide(ex, bsum)
})"),
                             {{"$R", absl::StrCat(rows)}, {"$C", absl::StrCat(cols)}});
}

TEST(CpuFastPaths, RowSoftmaxMatchesTheInterpreter) {
  // One row, odd widths (vector remainders), many rows across threads.
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 7}, {3, 1}, {37, 129}, {512, 300}, {2048, 10}}) {
    SCOPED_TRACE(absl::StrCat(rows, "x", cols));
    EXPECT_TRUE(SameOnBothBackends(Softmax(rows, cols), {R(F32, {rows, cols})}, 1e-5, 1e-7));
  }
}

TEST(CpuFastPaths, RowSoftmaxOfRowsTooWideToKeepOnTheStack) {
  EXPECT_TRUE(SameOnBothBackends(Softmax(3, 20000), {U({3, 20000}, 4)}, 1e-5, 1e-9));
}

TEST(CpuFastPaths, SharedExpFeedsTwoRowReductionsAndTheOutput) {
  // exp(x - max) is kept per row while the first sum computes it; the second sum (of its
  // square) and the output read it back.
  const std::string hlo = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY e {
  x = f32[70,33] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  rmax = f32[70] reduce(x, ninf), dimensions={1}, to_apply=max
  bmax = f32[70,33] broadcast(rmax), dimensions={0}
  sub = f32[70,33] subtract(x, bmax)
  ex = f32[70,33] exponential(sub)
  s1 = f32[70] reduce(ex, zero), dimensions={1}, to_apply=add
  sq = f32[70,33] multiply(ex, ex)
  s2 = f32[70] reduce(sq, zero), dimensions={1}, to_apply=add
  b1 = f32[70,33] broadcast(s1), dimensions={0}
  b2 = f32[70,33] broadcast(s2), dimensions={0}
  d1 = f32[70,33] divide(ex, b1)
  d2 = f32[70,33] divide(sq, b2)
  ROOT o = f32[70,33] add(d1, d2)
})");
  EXPECT_TRUE(SameOnBothBackends(hlo, {U({70, 33}, 5)}, 1e-5, 1e-7));
}

TEST(CpuFastPaths, HalfPrecisionSoftmax) {
  std::string hlo = absl::StrReplaceAll(Softmax(33, 70), {{"f32", "f16"}});
  std::mt19937_64 rng(6);
  EXPECT_TRUE(SameOnBothBackends(hlo, {RandomLiteral(ShapeUtil::MakeShape(F16, {33, 70}), &rng, false)}, 1e-2, 1e-3));
}

TEST(CpuFastPaths, SoftmaxWithA16MiBOutputWrittenByStreamingStores) {
  // Outputs of 16 MiB and more are written with non-temporal stores (ir_emitter.cc, jit.cc).
  EXPECT_TRUE(SameOnBothBackends(Softmax(1024, 4096), {U({1024, 4096}, 8)}, 1e-5, 1e-9));
}

TEST(CpuFastPaths, LargeElementwiseLoopsSplitAtAlignedBoundaries) {
  // 4M + 7 elements: parallel_for ranges start at multiples of 16 (the kernel assumes it for
  // aligned streaming stores); the odd tail is the last range's.
  const char* hlo = R"(HloModule m
ENTRY e {
  x = f32[4194311] parameter(0)
  t = f32[4194311] tanh(x)
  ROOT y = f32[4194311] multiply(t, x)
})";
  EXPECT_TRUE(SameOnBothBackends(hlo, {U({4194311}, 9)}, 1e-5, 1e-7));
}

TEST(CpuFastPaths, RowSoftmaxPropagatesInfinitiesAndNaN) {
  EXPECT_TRUE(SameOnBothBackends(Softmax(64, 33), {R(F32, {64, 33}, 7, /*specials=*/true)}, 1e-5, 1e-7));
}

TEST(CpuFastPaths, RowReductionsOverSeveralDimensionsAndRowOutputs) {
  // Rows of a 3-D array; the row sums are also an output of their own (so that reduce is
  // not fused into the normalisation: it has a user outside).
  const std::string hlo = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY e {
  x = f32[40,6,9] parameter(0)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  m = f32[40] reduce(x, ninf), dimensions={1,2}, to_apply=max
  bm = f32[40,6,9] broadcast(m), dimensions={0}
  c = f32[40,6,9] subtract(x, bm)
  sq = f32[40,6,9] multiply(c, c)
  ss = f32[40] reduce(sq, zero), dimensions={1,2}, to_apply=add
  bss = f32[40,6,9] broadcast(ss), dimensions={0}
  n = f32[40,6,9] divide(c, bss)
  s = f32[40] reduce(x, zero), dimensions={2,1}, to_apply=add
  ROOT t = (f32[40,6,9], f32[40], f32[40]) tuple(n, s, ss)
})");
  EXPECT_TRUE(SameOnBothBackends(hlo, {U({40, 6, 9}, 1)}, 1e-5, 1e-6));
}

TEST(CpuFastPaths, ColumnReductionFeedingRowsIsNotMixedUp) {
  // Square input: a column reduction broadcast back along rows must not be taken for a row one.
  const std::string hlo = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY e {
  x = f32[96,96] parameter(0)
  zero = f32[] constant(0)
  cols = f32[96] reduce(x, zero), dimensions={0}, to_apply=add
  bc = f32[96,96] broadcast(cols), dimensions={1}
  rows = f32[96] reduce(x, zero), dimensions={1}, to_apply=add
  br = f32[96,96] broadcast(rows), dimensions={0}
  t = f32[96,96] transpose(br), dimensions={1,0}
  a = f32[96,96] add(bc, t)
  ROOT o = f32[96,96] add(a, br)
})");
  EXPECT_TRUE(SameOnBothBackends(hlo, {U({96, 96}, 1)}, 1e-5, 1e-5));
}

TEST(CpuFastPaths, LargeSumsToAScalar) {
  const std::string hlo = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY e {
  x = f32[2097152] parameter(0)
  y = f32[1024,1536] parameter(1)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  s = f32[] reduce(x, zero), dimensions={0}, to_apply=add
  m = f32[] reduce(y, ninf), dimensions={0,1}, to_apply=max
  ROOT t = (f32[], f32[]) tuple(s, m)
})");
  // Values in [-4, 4): the sum's error bound is relative to the sum of magnitudes.
  EXPECT_TRUE(SameOnBothBackends(hlo, {R(F32, {2097152}), R(F32, {1024, 1536}, 2)}, 1e-4, 1e-1));
}

TEST(CpuFastPaths, LargeIntegerSumAndPrimeLengthSumAreExact) {
  const char* hlo = R"(HloModule m
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
ENTRY e {
  x = s32[2097152] parameter(0)
  p = s32[1048573] parameter(1)
  zero = s32[] constant(0)
  one = s32[] constant(1)
  s = s32[] reduce(x, zero), dimensions={0}, to_apply=add
  q = s32[] reduce(p, one), dimensions={0}, to_apply=add
  ROOT t = (s32[], s32[]) tuple(s, q)
})";
  EXPECT_TRUE(SameOnBothBackends(hlo, {R(S32, {2097152}), R(S32, {1048573}, 3)}));
}

TEST(CpuFastPaths, DenseLayerWithReluAndSoftmax) {
  const std::string hlo = absl::StrCat("HloModule m\n", kReducers, R"(
ENTRY e {
  x = f32[64,100] parameter(0)
  w = f32[100,50] parameter(1)
  b = f32[50] parameter(2)
  v = f32[50,10] parameter(3)
  c = f32[10] parameter(4)
  d = f32[64,50] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[64,50] broadcast(b), dimensions={1}
  a = f32[64,50] add(d, bb)
  z = f32[] constant(0)
  bz = f32[64,50] broadcast(z), dimensions={}
  h = f32[64,50] maximum(a, bz)
  d2 = f32[64,10] dot(h, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bc = f32[64,10] broadcast(c), dimensions={1}
  l = f32[64,10] add(d2, bc)
  ninf = f32[] constant(-inf)
  rmax = f32[64] reduce(l, ninf), dimensions={1}, to_apply=max
  bmax = f32[64,10] broadcast(rmax), dimensions={0}
  sub = f32[64,10] subtract(l, bmax)
  ex = f32[64,10] exponential(sub)
  sum = f32[64] reduce(ex, z), dimensions={1}, to_apply=add
  bsum = f32[64,10] broadcast(sum), dimensions={0}
  ROOT out = f32[64,10] divide(ex, bsum)
})");
  EXPECT_TRUE(SameOnBothBackends(hlo, {U({64, 100}, 1), U({100, 50}, 2), U({50}, 3), U({50, 10}, 4), U({10}, 5)},
                                 1e-4, 1e-6));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
