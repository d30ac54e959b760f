#ifndef XLA_BACKENDS_GPU_TESTING_GPU_SCATTER_MODULES_H_
#define XLA_BACKENDS_GPU_TESTING_GPU_SCATTER_MODULES_H_

// The scatter and select-and-scatter modules of the gpu backend's shared test modules
// (gpu_test_modules.h, which includes this and lists them among its curated cases).

#include <cstdint>
#include <string>

namespace xla {
namespace gpu {
namespace testing {

// scatter: add with duplicate indices (rows 0 and 3 get several updates); overwrite
// with unique indices; windows of 3 rows of which those starting at -1 and 8 (of 10) leave the
// operand and are skipped whole.
inline constexpr char kScatterModule[] = R"(HloModule scatters
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
overwrite {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
ENTRY main {
  operand = f32[10,4] parameter(0)
  updates = f32[6,4] parameter(1)
  windows = f32[4,3,4] parameter(2)
  duplicates = s32[6,1] constant({{0},{3},{0},{7},{3},{0}})
  added = f32[10,4] scatter(operand, duplicates, updates), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  unique = s32[6,1] constant({{9},{1},{4},{2},{8},{5}})
  overwritten = f32[10,4] scatter(operand, unique, updates), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=overwrite
  starts = s32[4,1] constant({{-1},{8},{2},{7}})
  windowed = f32[10,4] scatter(operand, starts, windows), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT t = (f32[10,4], f32[10,4], f32[10,4]) tuple(added, overwritten, windowed)
})";

// Atomic scatters under contention: 16384 updates of 8 columns into 16 rows (about 1000 per
// element; index 16 is out of bounds) for the types updated by a compare-and-swap of the
// word holding them (pred, s4, u8, f8) or a 64-bit one (a c64 product) and complex sums
// (two float atomic adds). Every result is exact in any order: bit ops, integer arithmetic
// that wraps, max, integer-valued complex sums and products of 1, i, -1 and -i; and a set
// (the last update in the interpreter's order wins, found by an atomic max of positions).
inline constexpr char kScatterContentionModule[] = R"(HloModule scatter_contention
set_f32 {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
or_pred {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT r = pred[] or(a, b)
}
and_pred {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT r = pred[] and(b, a)
}
add_s4 {
  a = s4[] parameter(0)
  b = s4[] parameter(1)
  ROOT r = s4[] add(a, b)
}
mul_u8 {
  a = u8[] parameter(0)
  b = u8[] parameter(1)
  ROOT r = u8[] multiply(a, b)
}
max_f8 {
  a = f8e4m3fn[] parameter(0)
  b = f8e4m3fn[] parameter(1)
  ROOT r = f8e4m3fn[] maximum(a, b)
}
add_c64 {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT r = c64[] add(a, b)
}
mul_c64 {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT r = c64[] multiply(a, b)
}
add_c128 {
  a = c128[] parameter(0)
  b = c128[] parameter(1)
  ROOT r = c128[] add(a, b)
}
ENTRY main {
  p = pred[16,8] parameter(0)
  s = s4[16,8] parameter(1)
  u = u8[16,8] parameter(2)
  f = f8e4m3fn[16,8] parameter(3)
  o = f32[16,8] parameter(4)
  i = s32[16384,8] iota(), iota_dimension=0
  j = s32[16384,8] iota(), iota_dimension=1
  ij = s32[16384,8] add(i, j)
  row = s32[16384] iota(), iota_dimension=0
  c17 = s32[] constant(17)
  b17 = s32[16384] broadcast(c17), dimensions={}
  row17 = s32[16384] remainder(row, b17)
  indices = s32[16384,1] reshape(row17)
  c7 = s32[] constant(7)
  b7 = s32[16384,8] broadcast(c7), dimensions={}
  i7 = s32[16384,8] multiply(i, b7)
  i7j = s32[16384,8] add(i7, j)
  c2048 = s32[] constant(2048)
  b2048 = s32[16384,8] broadcast(c2048), dimensions={}
  sparse_mod = s32[16384,8] remainder(i7j, b2048)
  zero = s32[] constant(0)
  b0 = s32[16384,8] broadcast(zero), dimensions={}
  sparse = pred[16384,8] compare(sparse_mod, b0), direction=EQ
  c1500 = s32[] constant(1500)
  b1500 = s32[16384,8] broadcast(c1500), dimensions={}
  dense_mod = s32[16384,8] remainder(i7j, b1500)
  dense = pred[16384,8] compare(dense_mod, b0), direction=NE
  c15 = s32[] constant(15)
  b15 = s32[16384,8] broadcast(c15), dimensions={}
  ij15 = s32[16384,8] remainder(ij, b15)
  ij15m7 = s32[16384,8] subtract(ij15, b7)
  s4u = s4[16384,8] convert(ij15m7)
  c64i = s32[] constant(64)
  b64 = s32[16384,8] broadcast(c64i), dimensions={}
  ij64 = s32[16384,8] remainder(ij, b64)
  twice = s32[16384,8] add(ij64, ij64)
  one = s32[] constant(1)
  b1 = s32[16384,8] broadcast(one), dimensions={}
  odd = s32[16384,8] add(twice, b1)
  u8u = u8[16384,8] convert(odd)
  c200 = s32[] constant(200)
  b200 = s32[16384,8] broadcast(c200), dimensions={}
  ij200 = s32[16384,8] remainder(i7j, b200)
  fl = f32[16384,8] convert(ij200)
  eighth = f32[] constant(0.125)
  b8th = f32[16384,8] broadcast(eighth), dimensions={}
  scaled = f32[16384,8] multiply(fl, b8th)
  twelve = f32[] constant(12)
  b12 = f32[16384,8] broadcast(twelve), dimensions={}
  centered = f32[16384,8] subtract(scaled, b12)
  f8u = f8e4m3fn[16384,8] convert(centered)
  re_i = s32[16384,8] remainder(i, b7)
  c5 = s32[] constant(5)
  b5 = s32[16384,8] broadcast(c5), dimensions={}
  im_i = s32[16384,8] remainder(ij, b5)
  im_m = s32[16384,8] subtract(im_i, b1)
  re = f32[16384,8] convert(re_i)
  im = f32[16384,8] convert(im_m)
  sums = c64[16384,8] complex(re, im)
  re64 = f64[16384,8] convert(re_i)
  im64 = f64[16384,8] convert(im_m)
  sums128 = c128[16384,8] complex(re64, im64)
  c4 = s32[] constant(4)
  b4 = s32[16384,8] broadcast(c4), dimensions={}
  k = s32[16384,8] remainder(i7j, b4)
  k0 = pred[16384,8] compare(k, b0), direction=EQ
  k1 = pred[16384,8] compare(k, b1), direction=EQ
  c2 = s32[] constant(2)
  b2 = s32[16384,8] broadcast(c2), dimensions={}
  k2 = pred[16384,8] compare(k, b2), direction=EQ
  c3 = s32[] constant(3)
  b3 = s32[16384,8] broadcast(c3), dimensions={}
  k3 = pred[16384,8] compare(k, b3), direction=EQ
  k0f = f32[16384,8] convert(k0)
  k1f = f32[16384,8] convert(k1)
  k2f = f32[16384,8] convert(k2)
  k3f = f32[16384,8] convert(k3)
  unit_re = f32[16384,8] subtract(k0f, k2f)
  unit_im = f32[16384,8] subtract(k1f, k3f)
  units = c64[16384,8] complex(unit_re, unit_im)
  czero = c64[] constant((0, 0))
  zeros = c64[16,8] broadcast(czero), dimensions={}
  cone = c64[] constant((1, 0))
  ones = c64[16,8] broadcast(cone), dimensions={}
  czero128 = c128[] constant((0, 0))
  zeros128 = c128[16,8] broadcast(czero128), dimensions={}
  any = pred[16,8] scatter(p, indices, sparse), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=or_pred
  all = pred[16,8] scatter(p, indices, dense), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=and_pred
  s4sum = s4[16,8] scatter(s, indices, s4u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_s4
  u8prod = u8[16,8] scatter(u, indices, u8u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mul_u8
  f8max = f8e4m3fn[16,8] scatter(f, indices, f8u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=max_f8
  c64sum = c64[16,8] scatter(zeros, indices, sums), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_c64
  c64prod = c64[16,8] scatter(ones, indices, units), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mul_c64
  c128sum = c128[16,8] scatter(zeros128, indices, sums128), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_c128
  written = f32[16,8] scatter(o, indices, fl), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=set_f32
  ROOT t = (pred[16,8], pred[16,8], s4[16,8], u8[16,8], f8e4m3fn[16,8], c64[16,8], c64[16,8], c128[16,8], f32[16,8]) tuple(any, all, s4sum, u8prod, f8max, c64sum, c64prod, c128sum, written)
})";

// select-and-scatter (max pooling's gradient, overlapping 3x3 windows of stride 2, padded) and
// a scatter of two operands at once (a tuple result) with a combiner keeping the larger key's
// pair.
inline constexpr char kSelectAndScatterModule[] = R"(HloModule select_and_scatter_variadic
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
larger {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  keep = pred[] compare(a, b), direction=GE
  x = f32[] select(keep, a, b)
  y = s32[] select(keep, i, j)
  ROOT t = (f32[], s32[]) tuple(x, y)
}
ENTRY main {
  input = f32[12,10] parameter(0)
  source = f32[6,5] parameter(1)
  zero = f32[] constant(0)
  grad = f32[12,10] select-and-scatter(input, source, zero), window={size=3x3 stride=2x2 pad=1_1x1_1}, select=ge, scatter=add
  keys = f32[8] parameter(2)
  ids = s32[8] parameter(3)
  indices = s32[5,1] constant({{1},{6},{1},{3},{6}})
  new_keys = f32[5] parameter(4)
  new_ids = s32[5] parameter(5)
  pair = (f32[8], s32[8]) scatter(keys, ids, indices, new_keys, new_ids), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=larger
  k = f32[8] get-tuple-element(pair), index=0
  i = s32[8] get-tuple-element(pair), index=1
  ROOT t = (f32[12,10], f32[8], s32[8]) tuple(grad, k, i)
})";

// A scatter of `updates` scalars into f32[elements] at indices (i * 7919) mod (elements + 1)
// (the last out of bounds, skipped), combined by `combiner` of a (the element) and b (the
// update): subtract(b, a) does not commute, so the gpu sorts the updates by element
// (ScatterStrategy::kSortedUpdates); add(a, b) combines atomically.
inline std::string ScalarScatterModule(int64_t elements, int64_t updates, const std::string& combiner) {
  const std::string n = std::to_string(updates), e = std::to_string(elements);
  return "HloModule scalar_scatter\ncombine {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] " +
         combiner + "\n}\nENTRY main {\n  operand = f32[" + e + "] parameter(0)\n  values = f32[" + n +
         "] parameter(1)\n  i = s32[" + n + "] iota(), iota_dimension=0\n  c = s32[] constant(7919)\n  cb = s32[" + n +
         "] broadcast(c), dimensions={}\n  m = s32[] constant(" + std::to_string(elements + 1) + ")\n  mb = s32[" + n +
         "] broadcast(m), dimensions={}\n  ic = s32[" + n + "] multiply(i, cb)\n  at = s32[" + n +
         "] remainder(ic, mb)\n  indices = s32[" + n + ",1] reshape(at)\n  ROOT s = f32[" + e +
         "] scatter(operand, indices, values), update_window_dims={}, inserted_window_dims={0}, "
         "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine\n}\n";
}

}  // namespace testing
}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_TESTING_GPU_SCATTER_MODULES_H_
