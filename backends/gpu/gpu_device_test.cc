// The gpu backend on a real GPU against the interpreter (the reference): each module runs on
// both and must agree, exactly for integer and data movement, within the cpu backend's
// stated bounds for f32 math. Without a GPU (no driver, no device) every test is skipped
// with the reason; tests/gpu/device_check.sh runs this binary on a GPU machine.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backends/gpu/gpu_compiler.h"
#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"
#include "hlo/shape_util.h"

namespace xla {
namespace gpu {
namespace {

using testing::LiteralEqual;
using testing::LiteralNear;
using testing::RunHlo;

// Deterministic values: floats in [-range, range), integers in [-100, 100).
Literal Random(PrimitiveType type, std::vector<int64_t> dims, uint32_t seed, float range = 2.0f) {
  Literal literal = *Literal::Create(ShapeUtil::MakeShape(type, dims));
  uint32_t state = seed * 2654435761u + 1;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;  // 24 bits
  };
  const int64_t n = ShapeUtil::ElementsIn(literal.shape());
  if (type == F32) {
    auto* p = static_cast<float*>(literal.untyped_data());
    for (int64_t i = 0; i < n; ++i) p[i] = (static_cast<float>(next()) / float(1 << 24) * 2 - 1) * range;
  } else if (type == S32) {
    auto* p = static_cast<int32_t*>(literal.untyped_data());
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<int32_t>(next() % 200) - 100;
  }
  return literal;
}

// Literals are move-only, so argument lists are built by moving.
template <typename... Ls>
std::vector<Literal> Args(Ls&&... literals) {
  std::vector<Literal> v;
  (v.push_back(std::move(literals)), ...);
  return v;
}

class GpuDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterGpuBackend();
    absl::StatusOr<std::unique_ptr<backend::Backend>> b = backend::CreateBackend("gpu");
    if (!b.ok()) GTEST_SKIP() << "no GPU to run on: " << b.status();
  }

  // The module on gpu and on the interpreter, compared.
  static ::testing::AssertionResult Agree(const std::string& hlo, const std::vector<Literal>& args, double rtol,
                                          double atol) {
    absl::StatusOr<Literal> expected = RunHlo(hlo, args, "interpreter");
    if (!expected.ok()) return ::testing::AssertionFailure() << "interpreter: " << expected.status();
    absl::StatusOr<Literal> actual = RunHlo(hlo, args, "gpu");
    if (rtol == 0 && atol == 0) return LiteralEqual(*expected, actual);
    return LiteralNear(*expected, actual, rtol, atol);
  }
};

TEST_F(GpuDeviceTest, Axpy) {
  EXPECT_TRUE(Agree(R"(HloModule axpy
ENTRY main {
  a = f32[] parameter(0)
  x = f32[1000] parameter(1)
  y = f32[1000] parameter(2)
  ba = f32[1000] broadcast(a), dimensions={}
  ax = f32[1000] multiply(ba, x)
  ROOT r = f32[1000] add(ax, y)
})",
                    Args(Random(F32, {}, 1), Random(F32, {1000}, 2), Random(F32, {1000}, 3)), 0, 0));
}

TEST_F(GpuDeviceTest, GeluTanhOverManyBlocks) {
  // 4M elements: more than the grid, so each thread strides over several.
  EXPECT_TRUE(Agree(R"(HloModule gelu
ENTRY main {
  x = f32[2048,2048] parameter(0)
  half = f32[] constant(0.5)
  one = f32[] constant(1)
  c = f32[] constant(0.7978845608)
  k = f32[] constant(0.044715)
  bh = f32[2048,2048] broadcast(half), dimensions={}
  b1 = f32[2048,2048] broadcast(one), dimensions={}
  bc = f32[2048,2048] broadcast(c), dimensions={}
  bk = f32[2048,2048] broadcast(k), dimensions={}
  x2 = f32[2048,2048] multiply(x, x)
  x3 = f32[2048,2048] multiply(x2, x)
  kx3 = f32[2048,2048] multiply(bk, x3)
  inner = f32[2048,2048] add(x, kx3)
  scaled = f32[2048,2048] multiply(bc, inner)
  t = f32[2048,2048] tanh(scaled)
  onept = f32[2048,2048] add(b1, t)
  hx = f32[2048,2048] multiply(bh, x)
  ROOT y = f32[2048,2048] multiply(hx, onept)
})",
                    Args(Random(F32, {2048, 2048}, 4, 4.0f)), 1e-6, 1e-6));
}

TEST_F(GpuDeviceTest, RowSoftmax) {
  EXPECT_TRUE(Agree(R"(HloModule softmax
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[64,128] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  mx = f32[64] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  bmx = f32[64,128] broadcast(mx), dimensions={0}
  sub = f32[64,128] subtract(x, bmx)
  e = f32[64,128] exponential(sub)
  s = f32[64] reduce(e, zero), dimensions={1}, to_apply=add_f32
  bs = f32[64,128] broadcast(s), dimensions={0}
  ROOT y = f32[64,128] divide(e, bs)
})",
                    Args(Random(F32, {64, 128}, 5, 8.0f)), 1e-5, 1e-7));
}

TEST_F(GpuDeviceTest, RowKernelsWithManyRowsPerBlockAndColumnReductions) {
  // 300 rows of 35 (a row kernel whose blocks take several rows), and a column reduction (a
  // thread per output); the sums reassociate, so they are held to a sum tolerance.
  EXPECT_TRUE(Agree(R"(HloModule reductions
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
ENTRY main {
  x = f32[300,7,5] parameter(0)
  i = s32[40,33] parameter(1)
  zero = f32[] constant(0)
  lowest = s32[] constant(-2147483648)
  sq = f32[300,7,5] multiply(x, x)
  rows = f32[300] reduce(sq, zero), dimensions={1,2}, to_apply=add_f32
  cols = s32[33] reduce(i, lowest), dimensions={0}, to_apply=max_s32
  ROOT t = (f32[300], s32[33]) tuple(rows, cols)
})",
                    Args(Random(F32, {300, 7, 5}, 10), Random(S32, {40, 33}, 11)), 1e-5, 1e-6));
}

TEST_F(GpuDeviceTest, DotConvolutionReduceWindowGather) {
  EXPECT_TRUE(Agree(R"(HloModule contractions
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  a = f32[32,48] parameter(0)
  b = f32[48,16] parameter(1)
  img = f32[2,9,9,3] parameter(2)
  k = f32[3,3,3,5] parameter(3)
  idx = s32[6,1] constant({{0}, {31}, {7}, {-4}, {40}, {3}})
  d = f32[32,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  conv = f32[2,7,7,5] convolution(img, k), window={size=3x3}, dim_labels=b01f_01io->b01f
  zero = f32[] constant(0)
  pool = f32[2,4,4,3] reduce-window(img, zero), window={size=1x3x3x1 stride=1x2x2x1}, to_apply=add_f32
  g = f32[6,48] gather(a, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,48}
  ROOT t = (f32[32,16], f32[2,7,7,5], f32[2,4,4,3], f32[6,48]) tuple(d, conv, pool, g)
})",
                    Args(Random(F32, {32, 48}, 12), Random(F32, {48, 16}, 13), Random(F32, {2, 9, 9, 3}, 14),
                         Random(F32, {3, 3, 3, 5}, 15)),
                    1e-5, 1e-4));  // f32 sums of up to 48 terms, accumulated in another order
}

TEST_F(GpuDeviceTest, IntegersBf16AndDataMovementAreExact) {
  EXPECT_TRUE(Agree(R"(HloModule mixed
ENTRY main {
  a = s32[16,8] parameter(0)
  b = s32[16,8] parameter(1)
  h = f32[8,16] parameter(2)
  sum = s32[16,8] add(a, b)
  lt = pred[16,8] compare(a, b), direction=LT
  sel = s32[16,8] select(lt, sum, a)
  t = s32[8,16] transpose(sel), dimensions={1,0}
  f = bf16[8,16] convert(t)
  hb = bf16[8,16] convert(h)
  prod = bf16[8,16] multiply(f, hb)
  sl = bf16[4,16] slice(prod), slice={[2:6], [0:16]}
  io = s32[4,16] iota(), iota_dimension=1
  iof = bf16[4,16] convert(io)
  cat = bf16[8,16] concatenate(sl, iof), dimensions={0}
  zero = bf16[] constant(0)
  p = bf16[10,20] pad(cat, zero), padding=1_1x2_2
  r = bf16[10,20] reverse(p), dimensions={1}
  ROOT out = (bf16[10,20], s32[16,8]) tuple(r, sel)
})",
                    Args(Random(S32, {16, 8}, 6), Random(S32, {16, 8}, 7), Random(F32, {8, 16}, 8)), 0, 0));
}

TEST_F(GpuDeviceTest, ExpLogLogisticWithinTheirBounds) {
  EXPECT_TRUE(Agree(R"(HloModule math
ENTRY main {
  x = f32[100000] parameter(0)
  e = f32[100000] exponential(x)
  a = f32[100000] abs(x)
  l = f32[100000] log(a)
  s = f32[100000] logistic(x)
  ROOT t = (f32[100000], f32[100000], f32[100000]) tuple(e, l, s)
})",
                    Args(Random(F32, {100000}, 9, 20.0f)), 2e-6, 1e-30));
}

}  // namespace
}  // namespace gpu
}  // namespace xla
