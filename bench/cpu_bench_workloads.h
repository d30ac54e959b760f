#ifndef XLA_BENCH_CPU_BENCH_WORKLOADS_H_
#define XLA_BENCH_CPU_BENCH_WORKLOADS_H_

// The issue 6 workloads as HLO text (what a JAX/XLA client sends for them), all f32. The
// NumPy side of each lives in bench/cpu_bench_numpy.py under the same name.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/testing/sort_comparators.h"
#include "hlo/shape.h"

namespace xla {
namespace bench {

// How a workload's aim is judged.
enum class Aim {
  kSpeedupOverNumpy,   // numpy_ms / cpu_ms >= target
  kFractionOfTriad,    // (bytes read / cpu_ms) / triad GB/s >= target
  kFractionOfSgemm,    // sgemm_ms / cpu_ms >= target
};

// One row-major C[m,n] = A[m,k] B[k,n].
struct GemmShape {
  int64_t m, n, k;
};

struct Workload {
  std::string name;  // also the NumPy script's name for it
  std::string hlo;
  std::vector<Shape> parameters;
  Aim aim;
  double target;
  int64_t bytes_read = 0;  // for kFractionOfTriad
  // The matrix products inside: cblas_sgemm alone on them is the floor of the workload's
  // time (the kFractionOfSgemm ceiling; for others, the best any backend calling it can do).
  std::vector<GemmShape> gemms;
  bool numpy = true;  // NumPy runs it too (bench/cpu_bench_numpy.py knows `name`)
  // Also timed as compiled with XLA_CPU_GEMM_PATHS=0: the generator the GEMM paths of issue 6
  // replaced (the "before" figure).
  bool compare_generator = false;
};

inline std::string Substitute(std::string text, const std::vector<std::pair<std::string, std::string>>& subs) {
  return absl::StrReplaceAll(text, subs);
}

inline Workload GeluWorkload(int64_t n) {
  std::string hlo = Substitute(R"(HloModule gelu_tanh
ENTRY main {
  x = f32[$N] parameter(0)
  half = f32[] constant(0.5)
  one = f32[] constant(1)
  c = f32[] constant(0.044715)
  k = f32[] constant(0.7978845608)
  bhalf = f32[$N] broadcast(half), dimensions={}
  bone = f32[$N] broadcast(one), dimensions={}
  bc = f32[$N] broadcast(c), dimensions={}
  bk = f32[$N] broadcast(k), dimensions={}
  x2 = f32[$N] multiply(x, x)
  x3 = f32[$N] multiply(x2, x)
  cx3 = f32[$N] multiply(bc, x3)
  inner = f32[$N] add(x, cx3)
  scaled = f32[$N] multiply(bk, inner)
  t = f32[$N] tanh(scaled)
  onet = f32[$N] add(bone, t)
  hx = f32[$N] multiply(bhalf, x)
  ROOT y = f32[$N] multiply(hx, onet)
})",
                               {{"$N", absl::StrCat(n)}});
  return {"gelu", hlo, {Shape(F32, {n})}, Aim::kSpeedupOverNumpy, 8.0};
}

// Row softmax as jax.nn.softmax lowers it: max, subtract, exp, sum, divide.
inline std::string SoftmaxText(const std::string& rows, const std::string& cols, const std::string& input) {
  return Substitute(R"(
  ninf.$X = f32[] constant(-inf)
  rmax.$X = f32[$ROWS] reduce($X, ninf.$X), dimensions={1}, to_apply=max_f32
  bmax.$X = f32[$ROWS,$COLS] broadcast(rmax.$X), dimensions={0}
  shifted.$X = f32[$ROWS,$COLS] subtract($X, bmax.$X)
  e.$X = f32[$ROWS,$COLS] exponential(shifted.$X)
  zero.$X = f32[] constant(0)
  rsum.$X = f32[$ROWS] reduce(e.$X, zero.$X), dimensions={1}, to_apply=add_f32
  bsum.$X = f32[$ROWS,$COLS] broadcast(rsum.$X), dimensions={0}
  ROOT softmax.$X = f32[$ROWS,$COLS] divide(e.$X, bsum.$X)
})",
                    {{"$X", input}, {"$ROWS", rows}, {"$COLS", cols}});
}

inline const char* kReducers = R"(
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
)";

inline Workload SoftmaxWorkload(int64_t rows, int64_t cols) {
  std::string hlo = absl::StrCat("HloModule row_softmax\n", kReducers, "ENTRY main {\n  x = f32[",
                                 rows, ",", cols, "] parameter(0)",
                                 SoftmaxText(absl::StrCat(rows), absl::StrCat(cols), "x"));
  return {"softmax", hlo, {Shape(F32, {rows, cols})}, Aim::kSpeedupOverNumpy, 5.0};
}

inline Workload SumWorkload(int64_t n) {
  std::string hlo = absl::StrCat("HloModule sum_all\n", kReducers, "ENTRY main {\n  x = f32[", n,
                                 "] parameter(0)\n  zero = f32[] constant(0)\n"
                                 "  ROOT s = f32[] reduce(x, zero), dimensions={0}, to_apply=add_f32\n}");
  Workload w{"sum", hlo, {Shape(F32, {n})}, Aim::kFractionOfTriad, 0.7};
  w.bytes_read = n * 4;
  return w;
}

inline Workload MatmulWorkload(int64_t n) {
  std::string hlo = Substitute(R"(HloModule matmul
ENTRY main {
  a = f32[$N,$N] parameter(0)
  b = f32[$N,$N] parameter(1)
  ROOT d = f32[$N,$N] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                               {{"$N", absl::StrCat(n)}});
  Workload w{"matmul", hlo, {Shape(F32, {n, n}), Shape(F32, {n, n})}, Aim::kFractionOfSgemm, 0.9};
  w.gemms = {{n, n, n}};
  return w;
}

// x . w^T, w stored [out, in] as PyTorch-style layers and attention's keys are: the GEMM reads
// w as stored through its trans flag (FoldTransposesIntoDots), against sgemm on the plain
// product and NumPy's `a @ b.T`.
inline Workload MatmulTransposedWorkload(int64_t n) {
  Workload w = MatmulWorkload(n);
  w.name = "matmul_wT";
  w.hlo = absl::StrReplaceAll(w.hlo, {{"HloModule matmul", "HloModule matmul_wT"},
                                      {"rhs_contracting_dims={0}", "rhs_contracting_dims={1}"}});
  return w;
}

// Dense layer: dot, bias broadcast along rows, optional ReLU.
inline std::string LayerText(const std::string& name, const std::string& input, int64_t batch, int64_t in,
                             int64_t out, bool relu) {
  std::string text = Substitute(R"(
  w.$NAME = f32[$IN_DIM,$OUT_DIM] parameter($PW)
  b.$NAME = f32[$OUT_DIM] parameter($PB)
  d.$NAME = f32[$BATCH,$OUT_DIM] dot($X, w.$NAME), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb.$NAME = f32[$BATCH,$OUT_DIM] broadcast(b.$NAME), dimensions={1}
  a.$NAME = f32[$BATCH,$OUT_DIM] add(d.$NAME, bb.$NAME))",
                                {{"$NAME", name}, {"$X", input}, {"$BATCH", absl::StrCat(batch)},
                                 {"$IN_DIM", absl::StrCat(in)}, {"$OUT_DIM", absl::StrCat(out)}});
  if (relu) {
    text += Substitute(R"(
  z.$NAME = f32[] constant(0)
  bz.$NAME = f32[$BATCH,$OUT_DIM] broadcast(z.$NAME), dimensions={}
  r.$NAME = f32[$BATCH,$OUT_DIM] maximum(a.$NAME, bz.$NAME))",
                       {{"$NAME", name}, {"$BATCH", absl::StrCat(batch)}, {"$OUT_DIM", absl::StrCat(out)}});
  }
  return text;
}

inline Workload MlpWorkload(int64_t batch, const std::vector<int64_t>& widths) {
  std::string body = absl::StrCat("\n  x = f32[", batch, ",", widths[0], "] parameter(0)");
  std::vector<Shape> parameters = {Shape(F32, {batch, widths[0]})};
  std::string input = "x";
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    const bool last = l + 2 == widths.size();
    const std::string name = absl::StrCat("l", l);
    std::string layer = LayerText(name, input, batch, widths[l], widths[l + 1], !last);
    absl::StrReplaceAll({{"$PW", absl::StrCat(parameters.size())}, {"$PB", absl::StrCat(parameters.size() + 1)}},
                        &layer);
    body += layer;
    parameters.push_back(Shape(F32, {widths[l], widths[l + 1]}));
    parameters.push_back(Shape(F32, {widths[l + 1]}));
    input = absl::StrCat(last ? "a." : "r.", name);
  }
  std::string hlo = absl::StrCat("HloModule mlp\n", kReducers, "ENTRY main {", body,
                                 SoftmaxText(absl::StrCat(batch), absl::StrCat(widths.back()), input));
  Workload w{"mlp", hlo, parameters, Aim::kSpeedupOverNumpy, 1.5};
  for (size_t l = 0; l + 1 < widths.size(); ++l) w.gemms.push_back({batch, widths[l + 1], widths[l]});
  return w;
}

// 3x3 SAME convolution, NHWC input and HWIO filters, as a JAX CNN layer sends it. Its
// reference is sgemm alone on the im2col product it amounts to ([N*H*W, 9*C] x [9*C, O]):
// NumPy has no convolution to compare with.
inline Workload ConvWorkload(int64_t batch, int64_t size, int64_t in, int64_t out) {
  std::string hlo = Substitute(R"(HloModule conv_nhwc
ENTRY main {
  x = f32[$B,$S,$S,$C] parameter(0)
  w = f32[3,3,$C,$O] parameter(1)
  ROOT c = f32[$B,$S,$S,$O] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})",
                               {{"$B", absl::StrCat(batch)}, {"$S", absl::StrCat(size)}, {"$C", absl::StrCat(in)},
                                {"$O", absl::StrCat(out)}});
  Workload w{"conv", hlo, {Shape(F32, {batch, size, size, in}), Shape(F32, {3, 3, in, out})}, Aim::kFractionOfSgemm,
             0.7};
  w.gemms = {{batch * size * size, out, 9 * in}};
  w.numpy = false;
  w.compare_generator = true;
  return w;
}

// The kernel gradient of that convolution as jax.grad lowers it: a convolution of the input
// with the output gradient whose window is the gradient's positions, the kernel's taps the
// output positions and the batch the contracted features (ShiftedGridConv in
// runtime/conv_gemm.cc). Its references: sgemm alone on the product it amounts to
// ([9*C, N*H*W] x [N*H*W, O]) and NumPy's nine tensordots of the padded input's shifted slices.
inline Workload ConvKernelGradWorkload(int64_t batch, int64_t size, int64_t in, int64_t out) {
  std::string hlo = Substitute(R"(HloModule conv_kernel_grad
ENTRY main {
  x = f32[$B,$S,$S,$C] parameter(0)
  g = f32[$B,$S,$S,$O] parameter(1)
  ROOT dw = f32[3,3,$C,$O] convolution(x, g), window={size=$Sx$S pad=1_1x1_1}, dim_labels=f01b_i01o->01bf
})",
                               {{"$B", absl::StrCat(batch)}, {"$S", absl::StrCat(size)}, {"$C", absl::StrCat(in)},
                                {"$O", absl::StrCat(out)}});
  Workload w{"conv_wgrad", hlo, {Shape(F32, {batch, size, size, in}), Shape(F32, {batch, size, size, out})},
             Aim::kFractionOfSgemm, 0.5};
  w.gemms = {{9 * in, out, batch * size * size}};
  return w;
}

// A 3x3 SAME depthwise convolution (feature_group_count = channels, as flax's
// nn.Conv(feature_group_count=C) in MobileNet-style blocks sends it) of NHWC f32[b, s, s, c]:
// direct sums (DirectConv in runtime/conv_gemm.cc), against NumPy's nine shifted
// slices of the zero-padded input times each tap's weights.
inline Workload DepthwiseConvWorkload(int64_t batch, int64_t size, int64_t channels) {
  std::string hlo = Substitute(R"(HloModule conv_depthwise
ENTRY main {
  x = f32[$B,$S,$S,$C] parameter(0)
  w = f32[3,3,1,$C] parameter(1)
  ROOT c = f32[$B,$S,$S,$C] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=$C
})",
                               {{"$B", absl::StrCat(batch)}, {"$S", absl::StrCat(size)}, {"$C", absl::StrCat(channels)}});
  return {"conv_depthwise", hlo, {Shape(F32, {batch, size, size, channels}), Shape(F32, {3, 3, 1, channels})},
          Aim::kSpeedupOverNumpy, 1.0};
}

// That depthwise convolution's kernel gradient as jax.grad lowers it: batch_group_count =
// channels, the batch as the contracted features, the output gradient as the kernel (direct
// sums), against NumPy's nine einsums of the padded input's shifted slices with the gradient.
inline Workload DepthwiseKernelGradWorkload(int64_t batch, int64_t size, int64_t channels) {
  std::string hlo = Substitute(R"(HloModule conv_depthwise_grad
ENTRY main {
  x = f32[$B,$S,$S,$C] parameter(0)
  g = f32[$B,$S,$S,$C] parameter(1)
  ROOT dw = f32[3,3,1,$C] convolution(x, g), window={size=$Sx$S pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, batch_group_count=$C
})",
                               {{"$B", absl::StrCat(batch)}, {"$S", absl::StrCat(size)}, {"$C", absl::StrCat(channels)}});
  return {"conv_dw_wgrad", hlo, {Shape(F32, {batch, size, size, channels}), Shape(F32, {batch, size, size, channels})},
          Aim::kSpeedupOverNumpy, 1.0};
}

// Batched matmul, as jnp.matmul on stacks of matrices lowers it.
inline Workload BatchedMatmulWorkload(int64_t batch, int64_t n) {
  std::string hlo = Substitute(R"(HloModule batched_matmul
ENTRY main {
  a = f32[$B,$N,$N] parameter(0)
  b = f32[$B,$N,$N] parameter(1)
  ROOT d = f32[$B,$N,$N] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
})",
                               {{"$B", absl::StrCat(batch)}, {"$N", absl::StrCat(n)}});
  Workload w{"bmm", hlo, {Shape(F32, {batch, n, n}), Shape(F32, {batch, n, n})}, Aim::kSpeedupOverNumpy, 1.0};
  w.gemms.assign(batch, GemmShape{n, n, n});
  w.compare_generator = true;
  return w;
}

// The issue's sizes, and x . w^T beside the plain product.
// jnp.cumsum as JAX lowers it: a reduce-window whose window spans the whole array, padded
// before it (a scan on the backends, cumulative_window.h), against np.cumsum.
inline Workload CumsumWorkload(int64_t n) {
  std::string hlo = absl::StrCat("HloModule cumsum\n", kReducers, "ENTRY main {\n  x = f32[", n,
                                 "] parameter(0)\n  zero = f32[] constant(0)\n  ROOT s = f32[", n,
                                 "] reduce-window(x, zero), window={size=", n, " pad=", n - 1, "_0}, to_apply=add_f32\n}");
  return {"cumsum", hlo, {Shape(F32, {n})}, Aim::kSpeedupOverNumpy, 1.0};
}

// jnp.cumsum(x, axis=0) of a [rows, cols] matrix: each column a scan, the columns run side
// by side in tiles of adjacent ones (and tiles over threads), against np.cumsum(x, axis=0).
inline Workload CumsumColumnsWorkload(int64_t rows, int64_t cols) {
  std::string hlo = absl::StrCat("HloModule cumsum_cols\n", kReducers, "ENTRY main {\n  x = f32[", rows, ",", cols,
                                 "] parameter(0)\n  zero = f32[] constant(0)\n  ROOT s = f32[", rows, ",", cols,
                                 "] reduce-window(x, zero), window={size=", rows, "x1 pad=", rows - 1,
                                 "_0x0_0}, to_apply=add_f32\n}");
  return {"cumsum_cols", hlo, {Shape(F32, {rows, cols})}, Aim::kSpeedupOverNumpy, 1.0};
}

// A ResNet stem's max pooling as JAX's lax.reduce_window lowers it (flax's nn.max_pool(x,
// (3, 3), strides=(2, 2), padding=((1, 1), (1, 1))) of NHWC f32[b, h, w, c]): a reduce-window
// with windows of one along the channels (ir_emitter.h InnerWindowSplit), against NumPy's
// maximum of the nine strided slices of the -inf-padded array.
inline Workload MaxPoolWorkload(int64_t b, int64_t h, int64_t w, int64_t c) {
  std::string hlo = absl::StrCat("HloModule maxpool\n", kReducers, "ENTRY main {\n  x = f32[", b, ",", h, ",", w, ",", c,
                                 "] parameter(0)\n  lo = f32[] constant(-inf)\n  ROOT p = f32[", b, ",", h / 2, ",", w / 2,
                                 ",", c, "] reduce-window(x, lo), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}",
                                 ", to_apply=max_f32\n}");
  return {"maxpool", hlo, {Shape(F32, {b, h, w, c})}, Aim::kSpeedupOverNumpy, 1.0};
}

// The gradient of that max pooling as JAX's autodiff lowers it: a select-and-scatter (GE
// select, add scatter) of the output gradient onto each window's first maximum
// (ir_emitter.h InnerSelectSplit), against NumPy's nine strided slices compared with the
// pooled maxima, each window's first match taking its gradient.
inline Workload MaxPoolGradWorkload(int64_t b, int64_t h, int64_t w, int64_t c) {
  const std::string x = absl::StrCat("f32[", b, ",", h, ",", w, ",", c, "]");
  std::string hlo = absl::StrCat("HloModule maxpool_grad\n", kReducers,
                                 "ge_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
                                 "  ROOT c = pred[] compare(a, b), direction=GE\n}\nENTRY main {\n  x = ",
                                 x, " parameter(0)\n  g = f32[", b, ",", h / 2, ",", w / 2, ",", c,
                                 "] parameter(1)\n  zero = f32[] constant(0)\n  ROOT d = ", x,
                                 " select-and-scatter(x, g, zero), window={size=1x3x3x1 stride=1x2x2x1 ",
                                 "pad=0_0x1_1x1_1x0_0}, select=ge_f32, scatter=add_f32\n}");
  return {"maxpool_grad", hlo, {Shape(F32, {b, h, w, c}), Shape(F32, {b, h / 2, w / 2, c})}, Aim::kSpeedupOverNumpy,
          1.0};
}

// JAX's comparator for jnp.sort / jnp.argsort of f32: -0 to +0 and NaNs to one NaN, then a
// total-order less-than (a radix sort by key on the cpu, emit_sort.cc).
inline const std::string kJaxSortLess = absl::StrCat(
    "\njax_less {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n", ::xla::testing::kJaxFloatLessBody,
    "}\njax_less_indexed {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  i = s32[] parameter(2)\n"
    "  j = s32[] parameter(3)\n  ROOT lt = pred[] call(x, y), to_apply=jax_less\n}\n");

// jnp.sort(x) of f32[n] (stable) against np.sort(x).
inline Workload SortWorkload(int64_t n) {
  std::string hlo = absl::StrCat("HloModule sort\n", kJaxSortLess, "ENTRY main {\n  x = f32[", n,
                                 "] parameter(0)\n  ROOT s = f32[", n,
                                 "] sort(x), dimensions={0}, is_stable=true, to_apply=jax_less\n}");
  return {"sort", hlo, {Shape(F32, {n})}, Aim::kSpeedupOverNumpy, 0.5};
}

// jnp.argsort(x, axis=1) of f32[rows, cols] (stable; the indices converted to f32 for the
// bench's checks) against np.argsort(x, axis=1, kind="stable").
inline Workload ArgsortWorkload(int64_t rows, int64_t cols) {
  const std::string f = absl::StrCat("f32[", rows, ",", cols, "]"), s = absl::StrCat("s32[", rows, ",", cols, "]");
  std::string hlo = absl::StrCat("HloModule argsort\n", kJaxSortLess, "ENTRY main {\n  x = ", f,
                                 " parameter(0)\n  i = ", s, " iota(), iota_dimension=1\n  s = (", f, ", ", s,
                                 ") sort(x, i), dimensions={1}, is_stable=true, to_apply=jax_less_indexed\n  n = ", s,
                                 " get-tuple-element(s), index=1\n  ROOT r = ", f, " convert(n)\n}");
  return {"argsort", hlo, {Shape(F32, {rows, cols})}, Aim::kSpeedupOverNumpy, 1.0};
}

// jnp.lexsort((b, floor(16 a))) of f32[n] (JAX's sort of (floor(16 a), b, iota) with
// num_keys=2, stable; the indices converted to f32), against np.lexsort of the same keys.
// The first key has 32 values, so the second orders most of the elements.
inline Workload LexsortWorkload(int64_t n) {
  const std::string f = absl::StrCat("f32[", n, "]"), s = absl::StrCat("s32[", n, "]");
  std::string hlo = absl::StrCat(
      "HloModule lexsort\njax_lex {\n  x0 = f32[] parameter(0)\n  y0 = f32[] parameter(1)\n  x1 = f32[] parameter(2)\n"
      "  y1 = f32[] parameter(3)\n  i = s32[] parameter(4)\n  j = s32[] parameter(5)\n",
      ::xla::testing::JaxCanonicalFloat(0, "f32"), ::xla::testing::JaxCanonicalFloat(1, "f32"),
      ::xla::testing::JaxLexicographic({{"x0_", "y0_"}, {"x1_", "y1_"}}), "}\nENTRY main {\n  a = ", f,
      " parameter(0)\n  b = ", f, " parameter(1)\n  c = f32[] constant(16)\n  cs = ", f,
      " broadcast(c), dimensions={}\n  m = ", f, " multiply(a, cs)\n  q = ", f, " floor(m)\n  i = ", s,
      " iota(), iota_dimension=0\n  s = (", f, ", ", f, ", ", s,
      ") sort(q, b, i), dimensions={0}, is_stable=true, to_apply=jax_lex\n  n = ", s,
      " get-tuple-element(s), index=2\n  ROOT r = ", f, " convert(n)\n}");
  return {"lexsort", hlo, {Shape(F32, {n}), Shape(F32, {n})}, Aim::kSpeedupOverNumpy, 1.0};
}

// jnp.sort(z) of z = floor(16 a) + b i, c64[n] (JAX's comparator for complex operands: the
// real parts, then the imaginary parts, total order; the result's real parts then its
// imaginary parts as f32[2n]), against np.sort of the same complex64 array.
inline Workload SortComplexWorkload(int64_t n) {
  const std::string f = absl::StrCat("f32[", n, "]"), c = absl::StrCat("c64[", n, "]");
  std::string hlo = absl::StrCat(
      "HloModule sort_complex\njax_complex_less {\n  x = c64[] parameter(0)\n  y = c64[] parameter(1)\n"
      "  xr = f32[] real(x)\n  yr = f32[] real(y)\n  xi = f32[] imag(x)\n  yi = f32[] imag(y)\n",
      ::xla::testing::JaxLexicographic({{"xr", "yr"}, {"xi", "yi"}}), "}\nENTRY main {\n  a = ", f,
      " parameter(0)\n  b = ", f, " parameter(1)\n  c = f32[] constant(16)\n  cs = ", f,
      " broadcast(c), dimensions={}\n  m = ", f, " multiply(a, cs)\n  q = ", f, " floor(m)\n  z = ", c,
      " complex(q, b)\n  s = ", c, " sort(z), dimensions={0}, is_stable=true, to_apply=jax_complex_less\n  re = ", f,
      " real(s)\n  im = ", f, " imag(s)\n  ROOT r = f32[", 2 * n, "] concatenate(re, im), dimensions={0}\n}");
  return {"sort_complex", hlo, {Shape(F32, {n}), Shape(F32, {n})}, Aim::kSpeedupOverNumpy, 1.0};
}

// jax.lax.top_k(x, k) of f32[rows, cols] as its topk instruction (the values, then the
// indices converted to f32), against NumPy's way: np.argpartition, then the k sorted.
// "topk_row": one long row, split over the threads (runtime.h SplitLines).
inline Workload TopkWorkload(int64_t rows, int64_t cols, int64_t k, const std::string& name = "topk") {
  const std::string v = absl::StrCat("f32[", rows, ",", k, "]"), i = absl::StrCat("s32[", rows, ",", k, "]");
  std::string hlo = absl::StrCat("HloModule topk\nENTRY main {\n  x = f32[", rows, ",", cols, "] parameter(0)\n  t = (", v,
                                 ", ", i, ") topk(x), k=", k, ", largest=true\n  v = ", v,
                                 " get-tuple-element(t), index=0\n  i = ", i, " get-tuple-element(t), index=1\n  f = ", v,
                                 " convert(i)\n  ROOT r = f32[", rows, ",", 2 * k, "] concatenate(v, f), dimensions={1}\n}");
  return {name, hlo, {Shape(F32, {rows, cols})}, Aim::kSpeedupOverNumpy, 1.0};
}

// jnp.fft.fft(a + 1j b) along the last axis of c64[rows, n] (the result's real parts, then its
// imaginary parts, as f32[rows, 2n]), against np.fft.fft of the same (pocketfft, in double,
// rounded to f32 by the same concatenation). Lengths: powers of two, 1000 = 2^3 5^3 (mixed
// radix) and the prime 1009 (Bluestein's). "fft2": jnp.fft.fft2 of c64[batch, n, n] (the
// last two axes), against np.fft.fft2: 8 images of 512 x 512, and one of 2048 x 2048.
inline Workload FftWorkload(std::vector<int64_t> dims, int64_t fft_rank, const std::string& name) {
  const auto text = [&](const char* type, int64_t last) {
    std::string t = absl::StrCat(type, "[");
    for (size_t d = 0; d < dims.size(); ++d) absl::StrAppend(&t, d == 0 ? "" : ",", d + 1 == dims.size() ? last : dims[d]);
    return t + "]";
  };
  const int64_t n = dims.back();
  const std::string f = text("f32", n), c = text("c64", n);
  std::string lengths;
  for (int64_t d = static_cast<int64_t>(dims.size()) - fft_rank; d < static_cast<int64_t>(dims.size()); ++d) {
    absl::StrAppend(&lengths, lengths.empty() ? "" : ",", dims[d]);
  }
  std::string hlo = absl::StrCat("HloModule fft\nENTRY main {\n  a = ", f, " parameter(0)\n  b = ", f,
                                 " parameter(1)\n  z = ", c, " complex(a, b)\n  t = ", c, " fft(z), fft_type=FFT, fft_length={",
                                 lengths, "}\n  re = ", f, " real(t)\n  im = ", f, " imag(t)\n  ROOT r = ", text("f32", 2 * n),
                                 " concatenate(re, im), dimensions={", dims.size() - 1, "}\n}");
  return {name, hlo, {Shape(F32, dims), Shape(F32, dims)}, Aim::kSpeedupOverNumpy, 1.0};
}

// jnp.fft.rfft(x) of f32[rows, n] along its last axis, or jnp.fft.rfft2 of f32[batch, n1, n]
// (real parts, then imaginary parts, as f32[..., 2 (n / 2 + 1)]), against np.fft.rfft and
// np.fft.rfft2.
inline Workload RfftWorkload(std::vector<int64_t> dims, const std::string& name) {
  const int64_t n = dims.back(), h = n / 2 + 1;
  const auto text = [&](const char* type, int64_t last) {
    std::string t = absl::StrCat(type, "[");
    for (size_t d = 0; d < dims.size(); ++d) absl::StrAppend(&t, d == 0 ? "" : ",", d + 1 == dims.size() ? last : dims[d]);
    return t + "]";
  };
  const std::string f = text("f32", h), c = text("c64", h);
  const std::string lengths = dims.size() == 3 ? absl::StrCat(dims[1], ",", n) : absl::StrCat(n);
  std::string hlo = absl::StrCat("HloModule rfft\nENTRY main {\n  x = ", text("f32", n), " parameter(0)\n  t = ", c,
                                 " fft(x), fft_type=RFFT, fft_length={", lengths, "}\n  re = ", f, " real(t)\n  im = ", f,
                                 " imag(t)\n  ROOT r = ", text("f32", 2 * h), " concatenate(re, im), dimensions={",
                                 dims.size() - 1, "}\n}");
  return {name, hlo, {Shape(F32, dims)}, Aim::kSpeedupOverNumpy, 1.0};
}

inline std::vector<Workload> IssueWorkloads() {
  return {GeluWorkload(int64_t{16} << 20), SoftmaxWorkload(4096, 4096), SumWorkload(int64_t{64} << 20),
          MatmulWorkload(2048), MatmulTransposedWorkload(2048), MlpWorkload(256, {784, 1024, 1024, 10}),
          ConvWorkload(8, 64, 64, 64), ConvKernelGradWorkload(8, 56, 64, 64), DepthwiseConvWorkload(8, 56, 64),
          DepthwiseKernelGradWorkload(8, 56, 64),
          BatchedMatmulWorkload(32, 256), CumsumWorkload(int64_t{4} << 20),
          CumsumColumnsWorkload(4096, 1024), MaxPoolWorkload(32, 112, 112, 64),
          MaxPoolGradWorkload(32, 112, 112, 64), SortWorkload(int64_t{1} << 20), ArgsortWorkload(256, 4096),
          LexsortWorkload(int64_t{1} << 20), SortComplexWorkload(int64_t{1} << 20), TopkWorkload(256, 32000, 40),
          TopkWorkload(1, int64_t{1} << 22, 40, "topk_row"), FftWorkload({1, int64_t{1} << 20}, 1, "fft_1m"),
          FftWorkload({256, 4096}, 1, "fft_rows"), FftWorkload({64, 1000}, 1, "fft_1000"),
          FftWorkload({64, 1009}, 1, "fft_1009"), FftWorkload({8, 512, 512}, 2, "fft2"),
          FftWorkload({1, 2048, 2048}, 2, "fft2_2048"), RfftWorkload({256, 4096}, "rfft_rows"),
          RfftWorkload({8, 512, 512}, "rfft2")};
}

}  // namespace bench
}  // namespace xla

#endif  // XLA_BENCH_CPU_BENCH_WORKLOADS_H_
