#ifndef XLA_BACKENDS_GPU_TESTING_GPU_TEST_MODULES_H_
#define XLA_BACKENDS_GPU_TESTING_GPU_TEST_MODULES_H_

// HLO modules the gpu backend's tests share: ptx_emitter_test assembles their kernels,
// gpu_device_test runs them on a GPU against the interpreter, and tests/gpu/gpu_bundle
// compiles them for the device check (with the issue's benchmark sizes); and the seeded
// arguments gpu_device_test and gpu_check_runner give them.

#include <cstdint>
#include <string>
#include <vector>

#include "backends/gpu/testing/gpu_control_flow_modules.h"
#include "backends/gpu/testing/gpu_scatter_modules.h"
#include "backends/gpu/testing/gpu_sort_modules.h"
#include "backends/gpu/testing/gpu_reuse_modules.h"
#include "backends/gpu/testing/gpu_transpose_modules.h"
#include "backends/testing/cumulative_windows.h"
#include "hlo/float_types.h"
#include "hlo/literal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"

namespace xla {
namespace gpu {
namespace testing {

// GELU (tanh form) over `dims`: the issue's elementwise benchmark, and a small checked copy.
inline std::string GeluModule(const std::string& dims) {
  const std::string t = "f32[" + dims + "]";
  return "HloModule gelu\nENTRY main {\n  x = " + t +
         " parameter(0)\n"
         "  half = f32[] constant(0.5)\n  one = f32[] constant(1)\n  c = f32[] constant(0.7978845608)\n"
         "  k = f32[] constant(0.044715)\n"
         "  bh = " + t + " broadcast(half), dimensions={}\n  b1 = " + t + " broadcast(one), dimensions={}\n"
         "  bc = " + t + " broadcast(c), dimensions={}\n  bk = " + t + " broadcast(k), dimensions={}\n"
         "  x2 = " + t + " multiply(x, x)\n  x3 = " + t + " multiply(x2, x)\n  kx3 = " + t + " multiply(bk, x3)\n"
         "  inner = " + t + " add(x, kx3)\n  scaled = " + t + " multiply(bc, inner)\n  th = " + t +
         " tanh(scaled)\n  onept = " + t + " add(b1, th)\n  hx = " + t + " multiply(bh, x)\n  ROOT y = " + t +
         " multiply(hx, onept)\n}\n";
}


// Row softmax over rows x cols: the issue's benchmark (16384 x 16384) and checked sizes.
inline std::string SoftmaxModule(int64_t rows, int64_t cols) {
  const std::string m = "f32[" + std::to_string(rows) + "," + std::to_string(cols) + "]";
  const std::string r = "f32[" + std::to_string(rows) + "]";
  return "HloModule softmax\nmax_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
         "  ROOT m = f32[] maximum(a, b)\n}\nadd_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
         "  ROOT s = f32[] add(a, b)\n}\nENTRY main {\n  x = " + m + " parameter(0)\n"
         "  ninf = f32[] constant(-inf)\n  zero = f32[] constant(0)\n"
         "  mx = " + r + " reduce(x, ninf), dimensions={1}, to_apply=max_f32\n"
         "  bmx = " + m + " broadcast(mx), dimensions={0}\n  sub = " + m + " subtract(x, bmx)\n"
         "  e = " + m + " exponential(sub)\n  s = " + r + " reduce(e, zero), dimensions={1}, to_apply=add_f32\n"
         "  bs = " + m + " broadcast(s), dimensions={0}\n  ROOT y = " + m + " divide(e, bs)\n}\n";
}

inline constexpr char kReductionsModule[] = R"(HloModule reductions
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
})";

// A dot, a batched dot, a convolution, a reduce-window, a gather and a dynamic-update-slice.
inline constexpr char kContractionsModule[] = R"(HloModule contractions
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  a = f32[32,48] parameter(0)
  b = f32[48,16] parameter(1)
  ba = bf16[4,8,16] parameter(2)
  bb = bf16[4,16,8] parameter(3)
  img = f32[2,9,9,3] parameter(4)
  k = f32[3,3,3,5] parameter(5)
  idx = s32[6,1] parameter(6)
  d = f32[32,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest,highest}
  bd = f32[4,8,8] dot(ba, bb), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  conv = f32[2,7,7,5] convolution(img, k), window={size=3x3}, dim_labels=b01f_01io->b01f
  zero = f32[] constant(0)
  pool = f32[2,4,4,3] reduce-window(img, zero), window={size=1x3x3x1 stride=1x2x2x1}, to_apply=add_f32
  g = f32[6,48] gather(a, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,48}
  i0 = s32[] constant(3)
  i1 = s32[] constant(5)
  upd = f32[32,48] dynamic-update-slice(a, g, i0, i1)
  ROOT t = (f32[32,16], f32[4,8,8], f32[2,7,7,5], f32[2,4,4,3], f32[32,48]) tuple(d, bd, conv, pool, upd)
})";

// The cpu issue's MLP forward (784-1024-1024-10, ReLU, softmax) at batch `batch`.
// `highest`: the dots ask for full f32 (checked runs); else DEFAULT, which lets cuBLAS use TF32.
inline std::string MlpModule(int batch, bool highest = false) {
  const std::string n = std::to_string(batch);
  const std::string p = highest ? ", operand_precision={highest,highest}" : "";
  return "HloModule mlp\nmax_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT m = f32[] maximum(a, b)\n}\n"
         "add_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
         "ENTRY main {\n  x = f32[" + n + ",784] parameter(0)\n  w1 = f32[784,1024] parameter(1)\n"
         "  b1 = f32[1024] parameter(2)\n  w2 = f32[1024,1024] parameter(3)\n  b2 = f32[1024] parameter(4)\n"
         "  w3 = f32[1024,10] parameter(5)\n  b3 = f32[10] parameter(6)\n  zero = f32[] constant(0)\n"
         "  ninf = f32[] constant(-inf)\n"
         "  d1 = f32[" + n + ",1024] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}" + p + "\n"
         "  bb1 = f32[" + n + ",1024] broadcast(b1), dimensions={1}\n  z1 = f32[" + n + ",1024] add(d1, bb1)\n"
         "  zs1 = f32[" + n + ",1024] broadcast(zero), dimensions={}\n  h1 = f32[" + n + ",1024] maximum(z1, zs1)\n"
         "  d2 = f32[" + n + ",1024] dot(h1, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}" + p + "\n"
         "  bb2 = f32[" + n + ",1024] broadcast(b2), dimensions={1}\n  z2 = f32[" + n + ",1024] add(d2, bb2)\n"
         "  h2 = f32[" + n + ",1024] maximum(z2, zs1)\n"
         "  d3 = f32[" + n + ",10] dot(h2, w3), lhs_contracting_dims={1}, rhs_contracting_dims={0}" + p + "\n"
         "  bb3 = f32[" + n + ",10] broadcast(b3), dimensions={1}\n  l = f32[" + n + ",10] add(d3, bb3)\n"
         "  mx = f32[" + n + "] reduce(l, ninf), dimensions={1}, to_apply=max_f32\n"
         "  bmx = f32[" + n + ",10] broadcast(mx), dimensions={0}\n  sh = f32[" + n + ",10] subtract(l, bmx)\n"
         "  e = f32[" + n + ",10] exponential(sh)\n  s = f32[" + n + "] reduce(e, zero), dimensions={1}, to_apply=add_f32\n"
         "  bs = f32[" + n + ",10] broadcast(s), dimensions={0}\n  ROOT y = f32[" + n + ",10] divide(e, bs)\n}\n";
}

inline constexpr char kMatmulBf16Module[] = R"(HloModule matmul_bf16
ENTRY main {
  a = bf16[8192,8192] parameter(0)
  b = bf16[8192,8192] parameter(1)
  ROOT d = bf16[8192,8192] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";

// The same product with the right operand stored [n, k] (x . w^T): cuBLAS reads it transposed.
inline constexpr char kMatmulBf16RhsTransposedModule[] = R"(HloModule matmul_bf16_rhs_transposed
ENTRY main {
  a = bf16[8192,8192] parameter(0)
  b = bf16[8192,8192] parameter(1)
  ROOT d = bf16[8192,8192] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})";

inline constexpr char kMixedModule[] = R"(HloModule mixed
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
})";

inline constexpr char kMathModule[] = R"(HloModule math
ENTRY main {
  x = f32[100000] parameter(0)
  e = f32[100000] exponential(x)
  a = f32[100000] abs(x)
  l = f32[100000] log(a)
  s = f32[100000] logistic(x)
  th = f32[100000] tanh(x)
  ROOT t = (f32[100000], f32[100000], f32[100000], f32[100000]) tuple(e, l, s, th)
})";

inline constexpr char kIntegersModule[] = R"(HloModule integers
ENTRY main {
  a = s32[4096] parameter(0)
  b = s32[4096] parameter(1)
  m = s32[4096] multiply(a, b)
  d = s32[4096] divide(m, b)
  r = s32[4096] remainder(a, b)
  sh = s32[4096] shift-left(a, b)
  x = s32[4096] xor(m, sh)
  mx = s32[4096] maximum(x, r)
  c = s8[4096] convert(mx)
  ROOT t = (s32[4096], s8[4096], s32[4096]) tuple(d, c, mx)
})";

// Every floating-point elementwise op the cpu emitter computes, over T[n] for T = f32, f64,
// f16, bf16 (the last two are computed in f32 and rounded once): the transcendental ones go
// through libdevice on the GPU. x and y are in [-2, 2) in the device check, so some ops see
// arguments outside their domain (log of a negative, acosh below 1): NaN on both sides.
inline constexpr const char* kFloatUnaryOps[] = {
    "abs",   "negate", "sqrt",  "rsqrt",  "cbrt",  "floor",  "ceil", "round-nearest-afz", "round-nearest-even",
    "sign",  "exponential", "exponential-minus-one", "log", "log-plus-one", "logistic", "tanh", "sine",
    "cosine", "tan", "sinh", "cosh", "asin", "acos", "asinh", "acosh", "atanh", "erf"};
inline constexpr const char* kFloatBinaryOps[] = {"add",     "subtract", "multiply", "divide", "remainder",
                                                  "maximum", "minimum",  "power",    "atan2"};

inline std::string FloatOpsModule(const std::string& type, int64_t n) {
  const std::string t = type + "[" + std::to_string(n) + "]";
  std::string body = "  x = " + t + " parameter(0)\n  y = " + t + " parameter(1)\n";
  std::string names, shapes;
  int i = 0;
  auto add = [&](const std::string& op, const std::string& shape, const std::string& args) {
    const std::string name = "v" + std::to_string(i++);
    body += "  " + name + " = " + shape + " " + op + "(" + args + ")\n";
    names += (names.empty() ? "" : ", ") + name;
    shapes += (shapes.empty() ? "" : ", ") + shape;
  };
  for (const char* op : kFloatUnaryOps) add(op, t, "x");
  for (const char* op : kFloatBinaryOps) add(op, t, "x, y");
  add("is-finite", "pred[" + std::to_string(n) + "]", "x");
  return "HloModule float_ops_" + type + "\nENTRY main {\n" + body + "  ROOT t = (" + shapes + ") tuple(" + names +
         ")\n}\n";
}

// Variadic reduce and reduce-window (a tuple of results, one kernel): argmax over rows (ties
// to the smaller index) and windowed max with its position.
inline constexpr char kVariadicReduceModule[] = R"(HloModule variadic_reductions
argmax {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  eq = pred[] compare(a, b), direction=EQ
  lower = pred[] compare(i, j), direction=LT
  tie = pred[] and(eq, lower)
  keep = pred[] or(gt, tie)
  x = f32[] select(keep, a, b)
  y = s32[] select(keep, i, j)
  ROOT t = (f32[], s32[]) tuple(x, y)
}
ENTRY main {
  x = f32[64,100] parameter(0)
  position = s32[64,100] iota(), iota_dimension=1
  low = f32[] constant(-inf)
  none = s32[] constant(-1)
  rows = (f32[64], s32[64]) reduce(x, position, low, none), dimensions={1}, to_apply=argmax
  windows = (f32[32,50], s32[32,50]) reduce-window(x, position, low, none), window={size=2x2 stride=2x2}, to_apply=argmax
  m = f32[64] get-tuple-element(rows), index=0
  i = s32[64] get-tuple-element(rows), index=1
  wm = f32[32,50] get-tuple-element(windows), index=0
  wi = s32[32,50] get-tuple-element(windows), index=1
  ROOT t = (f32[64], s32[64], f32[32,50], s32[32,50]) tuple(m, i, wm, wi)
})";

// Single-device collectives, a custom-call and tokens: all plain values on one device.
inline constexpr char kCollectivesModule[] = R"(HloModule collectives_tokens
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[64,8] parameter(0)
  reduced = f32[64,8] all-reduce(p), replica_groups={}, to_apply=sum
  gathered = f32[64,8] all-gather(reduced), dimensions={0}, replica_groups={}
  permuted = f32[64,8] collective-permute(gathered), source_target_pairs={{0,0}}
  token = token[] after-all()
  ordered = f32[64,8] add-dependency(permuted, token)
  sharded = f32[64,8] custom-call(ordered), custom_call_target="Sharding"
  ROOT n = f32[64,8] negate(sharded)
})";

// Every fft type, batched, over one to three axes of lengths that are and are not powers of
// two (IRFFT's input is the half spectrum of its last axis).
inline constexpr char kFftModule[] = R"(HloModule ffts
ENTRY main {
  c = c64[3,6,10] parameter(0)
  r = f32[4,12] parameter(1)
  h = c128[2,5,9] parameter(2)
  t = c64[2,4,3,8] parameter(3)
  f = c64[3,6,10] fft(c), fft_type=FFT, fft_length={6,10}
  rf = c64[4,7] fft(r), fft_type=RFFT, fft_length={12}
  irf = f64[2,5,16] fft(h), fft_type=IRFFT, fft_length={5,16}
  i3 = c64[2,4,3,8] fft(t), fft_type=IFFT, fft_length={4,3,8}
  ROOT out = (c64[3,6,10], c64[4,7], f64[2,5,16], c64[2,4,3,8]) tuple(f, rf, irf, i3)
})";

// Cholesky of x x^T + n I (positive definite), then solves with the factor: lower and left
// in f32, upper, right-side and transposed in f64, adjoint in c64.
inline constexpr char kSolversModule[] = R"(HloModule solvers
ENTRY main {
  x = f32[4,16,16] parameter(0)
  b = f32[4,16,5] parameter(1)
  y = f64[3,12,12] parameter(2)
  c = f64[3,7,12] parameter(3)
  z = c64[2,8,8] parameter(4)
  w = c64[2,8,3] parameter(5)
  xx = f32[4,16,16] dot(x, x), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  i0 = s32[16,16] iota(), iota_dimension=0
  i1 = s32[16,16] iota(), iota_dimension=1
  eye = pred[16,16] compare(i0, i1), direction=EQ
  sixteen = f32[] constant(16)
  zero = f32[] constant(0)
  s16 = f32[16,16] broadcast(sixteen), dimensions={}
  z16 = f32[16,16] broadcast(zero), dimensions={}
  d16 = f32[16,16] select(eye, s16, z16)
  dd16 = f32[4,16,16] broadcast(d16), dimensions={1,2}
  a = f32[4,16,16] add(xx, dd16)
  l = f32[4,16,16] cholesky(a), lower=true
  sl = f32[4,16,5] triangular-solve(l, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  yy = f64[3,12,12] dot(y, y), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  j0 = s32[12,12] iota(), iota_dimension=0
  j1 = s32[12,12] iota(), iota_dimension=1
  eye12 = pred[12,12] compare(j0, j1), direction=EQ
  twelve = f64[] constant(12)
  zero64 = f64[] constant(0)
  s12 = f64[12,12] broadcast(twelve), dimensions={}
  z12 = f64[12,12] broadcast(zero64), dimensions={}
  d12 = f64[12,12] select(eye12, s12, z12)
  dd12 = f64[3,12,12] broadcast(d12), dimensions={1,2}
  ay = f64[3,12,12] add(yy, dd12)
  u = f64[3,12,12] cholesky(ay), lower=false
  su = f64[3,7,12] triangular-solve(u, c), left_side=false, lower=false, transpose_a=TRANSPOSE
  zeye = pred[8,8] constant({{1,0,0,0,0,0,0,0},{0,1,0,0,0,0,0,0},{0,0,1,0,0,0,0,0},{0,0,0,1,0,0,0,0},{0,0,0,0,1,0,0,0},{0,0,0,0,0,1,0,0},{0,0,0,0,0,0,1,0},{0,0,0,0,0,0,0,1}})
  four = c64[] constant((4, 0))
  czero = c64[] constant((0, 0))
  s8 = c64[8,8] broadcast(four), dimensions={}
  z8 = c64[8,8] broadcast(czero), dimensions={}
  d8 = c64[8,8] select(zeye, s8, z8)
  dd8 = c64[2,8,8] broadcast(d8), dimensions={1,2}
  zd = c64[2,8,8] add(z, dd8)
  sz = c64[2,8,3] triangular-solve(zd, w), left_side=true, lower=true, transpose_a=ADJOINT
  ROOT out = (f32[4,16,16], f32[4,16,5], f64[3,12,12], f64[3,7,12], c64[2,8,3]) tuple(l, sl, u, su, sz)
})";

// Seeded arguments (the device check and gpu_device_test): floats in [-range, range), integers
// in [-100, 100) (unsigned: [0, 100)), random pred; other types keep the literal's zeros.
inline void FillRandom(Literal* literal, const Shape& shape, uint64_t* state, double range = 2.0) {
  auto next = [state] {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(*state >> 40);  // 24 bits
  };
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < ShapeUtil::TupleElementCount(shape); ++i) {
      FillRandom(&literal->tuple_element(i), shape.tuple_shapes(i), state, range);
    }
    return;
  }
  if (!shape.IsArray()) return;
  const int64_t n = ShapeUtil::ElementsIn(shape);
  const PrimitiveType t = shape.element_type();
  auto* bytes = static_cast<uint8_t*>(literal->untyped_data());
  for (int64_t i = 0; i < n; ++i) {
    const double f = (static_cast<double>(next()) / (1 << 24) * 2 - 1) * range;
    const int64_t k = primitive_util::IsUnsignedIntegralType(t) ? next() % 100 : static_cast<int64_t>(next() % 200) - 100;
    switch (t) {
      case PRED: bytes[i] = next() & 1; break;
      case F32: reinterpret_cast<float*>(bytes)[i] = static_cast<float>(f); break;
      case F64: reinterpret_cast<double*>(bytes)[i] = f; break;
      case BF16: reinterpret_cast<uint16_t*>(bytes)[i] = FloatToBfloat16(static_cast<float>(f)); break;
      case F16: reinterpret_cast<uint16_t*>(bytes)[i] = FloatToHalf(static_cast<float>(f)); break;
      case S8: case U8: bytes[i] = static_cast<uint8_t>(k); break;
      case S16: case U16: reinterpret_cast<int16_t*>(bytes)[i] = static_cast<int16_t>(k); break;
      case S32: case U32: reinterpret_cast<int32_t*>(bytes)[i] = static_cast<int32_t>(k); break;
      case S64: case U64: reinterpret_cast<int64_t*>(bytes)[i] = k; break;
      case C64:
        reinterpret_cast<float*>(bytes)[2 * i] = static_cast<float>(f);
        reinterpret_cast<float*>(bytes)[2 * i + 1] = static_cast<float>((static_cast<double>(next()) / (1 << 24) * 2 - 1) * range);
        break;
      case C128:
        reinterpret_cast<double*>(bytes)[2 * i] = f;
        reinterpret_cast<double*>(bytes)[2 * i + 1] = (static_cast<double>(next()) / (1 << 24) * 2 - 1) * range;
        break;
      default: break;  // other types keep the literal's zeros
    }
  }
}

// A `type` array of `dims` filled by FillRandom from `seed`.
inline Literal RandomLiteral(PrimitiveType type, const std::vector<int64_t>& dims, uint64_t seed,
                             double range = 2.0) {
  Literal literal = *Literal::Create(ShapeUtil::MakeShape(type, dims));
  FillRandom(&literal, literal.shape(), &seed, range);
  return literal;
}

// The gpu device check's curated cases (tests/gpu/gpu_bundle.cc), also run on the kernel
// emulator (kernel_emulator_test.cc).
struct CuratedCase {
  std::string name;
  std::string hlo;
  std::string check;  // "rtol atol"; or "bench" (timed against a copy of as many bytes) or
                      // "bench flops N" (timed, N floating-point operations), not compared
};

// Row kernels of every shape the emitter treats apart (ptx_emitter.cc): rows kept in registers
// with whole and partial slots, 4 or 1 elements per chunk, two reductions (a layer norm),
// rows of several dimensions, more rows than blocks, f64, s8 and pred reductions (shuffled as
// 32-bit words), reductions at the root, and rows too long to keep (the looping kernel).
inline constexpr char kRowKernelsModule[] = R"(HloModule row_kernels
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f64 {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
max_f64 {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT m = f64[] maximum(a, b)
}
max_s8 {
  a = s8[] parameter(0)
  b = s8[] parameter(1)
  ROOT m = s8[] maximum(a, b)
}
or_pred {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT o = pred[] or(a, b)
}
ENTRY main {
  x = f32[16,4096] parameter(0)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  n = f32[16] constant({4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096})
  xs = f32[16] reduce(x, zero), dimensions={1}, to_apply=add_f32
  mean = f32[16] divide(xs, n)
  bmean = f32[16,4096] broadcast(mean), dimensions={0}
  d = f32[16,4096] subtract(x, bmean)
  sq = f32[16,4096] multiply(d, d)
  ss = f32[16] reduce(sq, zero), dimensions={1}, to_apply=add_f32
  var = f32[16] divide(ss, n)
  eps = f32[] constant(1e-5)
  beps = f32[16] broadcast(eps), dimensions={}
  ve = f32[16] add(var, beps)
  rs = f32[16] rsqrt(ve)
  brs = f32[16,4096] broadcast(rs), dimensions={0}
  norm = f32[16,4096] multiply(d, brs)
  c = f32[8,12,100] parameter(1)
  cm = f32[8] reduce(c, ninf), dimensions={1,2}, to_apply=max_f32
  bcm = f32[8,12,100] broadcast(cm), dimensions={0}
  cd = f32[8,12,100] subtract(c, bcm)
  ce = f32[8,12,100] exponential(cd)
  cs = f32[8] reduce(ce, zero), dimensions={1,2}, to_apply=add_f32
  bcs = f32[8,12,100] broadcast(cs), dimensions={0}
  csm = f32[8,12,100] divide(ce, bcs)
  l = f32[2,40000] parameter(2)
  lm = f32[2] reduce(l, ninf), dimensions={1}, to_apply=max_f32
  blm = f32[2,40000] broadcast(lm), dimensions={0}
  ld = f32[2,40000] subtract(l, blm)
  le = f32[2,40000] exponential(ld)
  ls = f32[2] reduce(le, zero), dimensions={1}, to_apply=add_f32
  bls = f32[2,40000] broadcast(ls), dimensions={0}
  lsm = f32[2,40000] divide(le, bls)
  m = f32[1100,35] parameter(3)
  ms = f32[1100] reduce(m, zero), dimensions={1}, to_apply=add_f32
  bms = f32[1100,35] broadcast(ms), dimensions={0}
  mc = f32[1100,35] subtract(m, bms)
  w = f64[4,2048] parameter(4)
  wz = f64[] constant(0)
  wninf = f64[] constant(-inf)
  wm = f64[4] reduce(w, wninf), dimensions={1}, to_apply=max_f64
  bwm = f64[4,2048] broadcast(wm), dimensions={0}
  wd = f64[4,2048] subtract(w, bwm)
  we = f64[4,2048] exponential(wd)
  ws = f64[4] reduce(we, wz), dimensions={1}, to_apply=add_f64
  bws = f64[4,2048] broadcast(ws), dimensions={0}
  wsm = f64[4,2048] divide(we, bws)
  i = s8[300,700] parameter(5)
  ni = s8[300,700] negate(i)
  lowest = s8[] constant(-128)
  imax = s8[300] reduce(ni, lowest), dimensions={1}, to_apply=max_s8
  p = f32[128,3000] parameter(6)
  half = f32[] constant(1.5)
  bhalf = f32[128,3000] broadcast(half), dimensions={}
  gt = pred[128,3000] compare(p, bhalf), direction=GT
  no = pred[] constant(false)
  any = pred[128] reduce(gt, no), dimensions={1}, to_apply=or_pred
  pe = f32[128,3000] exponential(p)
  psum = f32[128] reduce(pe, zero), dimensions={1}, to_apply=add_f32
  ROOT t = (f32[16,4096], f32[8,12,100], f32[2,40000], f32[1100,35], f64[4,2048], s8[300], pred[128], f32[128]) tuple(norm, csm, lsm, mc, wsm, imax, any, psum)
})";

// a = x x^T + n I (positive definite), its lower factor, then a solve with a and the factor
// (forward, then the transposed factor): past 64 rows the gpu runs both as loops of 32-row
// blocks whose bulk is dots (backends/cpu/passes/blocked_solvers.h), in f64.
inline std::string CholeskySolveModule(int64_t n, int64_t k) {
  const std::string m = "f32[" + std::to_string(n) + "," + std::to_string(n) + "]",
                    r = "f32[" + std::to_string(n) + "," + std::to_string(k) + "]";
  return "HloModule cholesky_solve\nENTRY main {\n  x = " + m + " parameter(0)\n  b = " + r + " parameter(1)\n  xx = " + m +
         " dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={1}, operand_precision={highest,highest}\n"
         "  i = s32" + m.substr(3) + " iota(), iota_dimension=0\n  j = s32" + m.substr(3) + " iota(), iota_dimension=1\n"
         "  eq = pred" + m.substr(3) + " compare(i, j), direction=EQ\n  n = f32[] constant(" + std::to_string(n) + ")\n"
         "  nb = " + m + " broadcast(n), dimensions={}\n  z = f32[] constant(0)\n  zb = " + m + " broadcast(z), dimensions={}\n"
         "  d = " + m + " select(eq, nb, zb)\n  a = " + m + " add(xx, d)\n  l = " + m + " cholesky(a), lower=true\n"
         "  y = " + r + " triangular-solve(l, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n"
         "  s = " + r + " triangular-solve(l, y), left_side=true, lower=true, transpose_a=TRANSPOSE\n"
         "  ROOT t = (" + m + ", " + r + ") tuple(l, s)\n}\n";
}

inline constexpr char kDefaultPrecisionDotModule[] = R"(HloModule dot_default
ENTRY main {
  a = f32[256,512] parameter(0)
  b = f32[512,256] parameter(1)
  ROOT d = f32[256,256] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";

inline std::vector<CuratedCase> CuratedCases() {
  return {
      {"gelu_small", GeluModule("1024,1000"), "1e-6 1e-6"},
      {"softmax_64x128", SoftmaxModule(64, 128), "1e-5 1e-7"},
      {"softmax_97x5000", SoftmaxModule(97, 5000), "1e-5 1e-9"},
      {"row_and_column_reductions", kReductionsModule, "1e-5 1e-6"},
      {"row_kernels", kRowKernelsModule, "1e-5 1e-6"},
      {"mixed_int_bf16_movement", kMixedModule, "0 0"},
      {"f32_math", kMathModule, "2e-6 1e-30"},
      {"integers", kIntegersModule, "0 0"},
      // Every float elementwise op; the transcendental ones through libdevice (within a few
      // ulps of libm: 2-4 for f32, 1-3 for f64); f16 and bf16 round f32 results once, so they
      // may differ from the interpreter by one of their own ulps.
      {"float_ops_f32", FloatOpsModule("f32", 65536), "4e-6 1e-7"},
      {"float_ops_f64", FloatOpsModule("f64", 65536), "1e-13 1e-300"},
      {"float_ops_f16", FloatOpsModule("f16", 65536), "2e-3 1e-4"},
      {"float_ops_bf16", FloatOpsModule("bf16", 65536), "1.6e-2 1e-3"},
      // Control flow: the host loops and branches on a pred or index read back per step. The
      // first chains five x + sin(x) steps (each may double an ulp-level difference); the last
      // takes cos of exp(x) (up to e^2: its ulps are absolute errors of the cosine). A wrong
      // iteration count or branch is off by far more.
      {"while_counted_with_branches", kWhileModule, "1e-4 1e-6"},
      {"while_until_small", kDataDependentWhileModule, "0 0"},
      {"conditionals_index_and_pred", kConditionalModule, "4e-6 2e-6"},
      {"contractions_windows_indexing", kContractionsModule, "1e-5 1e-4"},
      {"mlp_forward_batch64", MlpModule(64, /*highest=*/true), "1e-3 1e-5"},
      // Sort moves values without arithmetic: exact. The f32 scatter-add with repeated
      // indices adds atomically (ptx_emitter.h, ScatterStrategy), so its sums may round in
      // another order than the interpreter's; select-and-scatter and the variadic scatter
      // keep the interpreter's order: exact.
      {"sort_keys_values_ties_descending", kSortModule, "0 0"},
      {"sort_long_rows_stable", kLongSortModule, "0 0"},
      {"argsort_1M", ArgsortModule(int64_t{1} << 20), "0 0"},
      {"topk_vocab_rows", TopKModule(4, 32000, 40), "0 0"},
      {"counted_loop_100", CountedLoopModule(100, 4096), "1e-5 1e-7"},
      {"kv_cache_update_64", KvCacheModule(64, 256, 1024), "0 0"},
      {"scatter_duplicates_unique_out_of_bounds", kScatterModule, "1e-6 1e-6"},
      {"scatter_atomic_contention", kScatterContentionModule, "0 0"},
      {"scatter_sorted_100k_into_1000", ScalarScatterModule(1000, 100000, "subtract(b, a)"), "0 0"},
      {"select_and_scatter_variadic_scatter", kSelectAndScatterModule, "0 0"},
      {"variadic_reduce_and_reduce_window", kVariadicReduceModule, "0 0"},
      {"collectives_custom_call_tokens", kCollectivesModule, "0 0"},
      // Computed in double and rounded once, as the interpreter; the sums run in another
      // order (a direct DFT where the interpreter may use radix-2).
      {"fft_every_type_1_to_3_axes", kFftModule, "1e-5 1e-4"},
      {"cholesky_and_triangular_solves", kSolversModule, "1e-5 1e-6"},
      {"transposes_tiled_and_plain", kTransposesModule, "0 0"},
      {"key_transpose_small", KeyTransposeModule(2, 100, 3, 40), "0 0"},
      {"rows_over_dead_values", RowsOverDeadValuesModule(), "0 0"},
      // x x^T rounds in another order than the interpreter's (f32 sums of 200 products).
      {"cholesky_solve_blocked_200", CholeskySolveModule(200, 8), "1e-4 1e-5"},
      // DEFAULT precision: cuBLAS may round the operands to TF32 (10-bit mantissas).
      {"dot_default_precision_tf32", kDefaultPrecisionDotModule, "1e-2 0.5"},
      {"gelu_256M", GeluModule("16384,16384"), "bench"},
      {"softmax_16384x16384", SoftmaxModule(16384, 16384), "bench"},
      // Timed as FLOP rates.
      {"mlp_forward_batch4096", MlpModule(4096), "bench flops 15360000000"},
      {"matmul_bf16_8192", kMatmulBf16Module, "bench flops 1099511627776"},
      {"matmul_bf16_8192_rhs_transposed", kMatmulBf16RhsTransposedModule, "bench flops 1099511627776"},
      {"argsort_16M", ArgsortModule(int64_t{1} << 24), "bench"},
      // Sampling's top 40 of a 32000-word vocabulary, 256 rows.
      {"topk_256x32000_k40", TopKModule(256, 32000, 40), "bench"},
      {"counted_loop_1000", CountedLoopModule(1000, 4096), "bench"},
      // 256 rows of a 64 MiB cache: in place, about 256 small kernels; copying, 32 GiB moved.
      {"kv_cache_update_256", KvCacheModule(256, 4096, 4096), "bench"},
      // 16M updates into 1M elements: sorted by element (the combiner does not commute), and
      // the same indices adding atomically.
      {"scatter_sorted_16M", ScalarScatterModule(1 << 20, 1 << 24, "subtract(b, a)"), "bench"},
      {"scatter_add_16M", ScalarScatterModule(1 << 20, 1 << 24, "add(a, b)"), "bench"},
      {"cumsum_16M", ::xla::testing::CumulativeWindowModule("f32", {1 << 24}, 0, false, "add(a, b)"), "bench"},
      // 128 blocks of 32 rows; a thread per matrix took ~2e10 dependent steps on one thread.
      {"cholesky_solve_4096", CholeskySolveModule(4096, 16), "bench"},
      // 256 MiB each way; a tiled transpose reads and writes whole sectors.
      {"transpose_8192x8192", TransposeModule(8192, 8192), "bench"},
      {"key_transpose_bf16", KeyTransposeModule(8, 4096, 32, 128), "bench"},
  };
}

}  // namespace testing
}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_TESTING_GPU_TEST_MODULES_H_
