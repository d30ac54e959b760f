#ifndef XLA_BACKENDS_GPU_TESTING_GPU_REUSE_MODULES_H_
#define XLA_BACKENDS_GPU_TESTING_GPU_REUSE_MODULES_H_

// Modules whose kernels write over their operands' memory (ElementwiseReuseOperands,
// gpu_plan.h), for the gpu tests and the device check (gpu_test_modules.h).

#include <string>

namespace xla {
namespace gpu {
namespace testing {

// Combiners for row reductions: max_f32, min_f32 and add_s32.
inline constexpr char kRowCombiners[] = R"(max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
min_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] minimum(a, b)
}
add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
)";

// Row kernels over values nothing reads afterwards (a sort's, two reverses' outputs), so
// that each writes its result over its operand: rows kept in registers with two reductions
// (the second of the first's result), rows of 20000 re-read from memory for each pass, and
// an integer sum. Max, min and integer sums are exact in any order, so the results are
// exact wherever a block reads a row only before any of it is written.
inline std::string RowsOverDeadValuesModule() {
  return std::string("HloModule rows_over_dead_values\n") + kRowCombiners + R"(lt_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT l = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[200,300] parameter(0)
  t = f32[200,300] sort(x), dimensions={1}, to_apply=lt_f32
  ninf = f32[] constant(-inf)
  m = f32[200] reduce(t, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[200,300] broadcast(m), dimensions={0}
  d = f32[200,300] subtract(t, mb)
  inf = f32[] constant(inf)
  n = f32[200] reduce(d, inf), dimensions={1}, to_apply=min_f32
  nb = f32[200,300] broadcast(n), dimensions={0}
  scaled = f32[200,300] multiply(d, nb)
  y = f32[4,20000] parameter(1)
  r = f32[4,20000] reverse(y), dimensions={1}
  my = f32[4] reduce(r, ninf), dimensions={1}, to_apply=max_f32
  myb = f32[4,20000] broadcast(my), dimensions={0}
  ry = f32[4,20000] subtract(r, myb)
  i = s32[64,1000] parameter(2)
  ri = s32[64,1000] reverse(i), dimensions={0}
  zero = s32[] constant(0)
  si = s32[64] reduce(ri, zero), dimensions={1}, to_apply=add_s32
  sib = s32[64,1000] broadcast(si), dimensions={0}
  pi = s32[64,1000] multiply(ri, sib)
  ROOT out = (f32[200,300], f32[4,20000], s32[64,1000]) tuple(scaled, ry, pi)
}
)";
}

}  // namespace testing
}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_TESTING_GPU_REUSE_MODULES_H_
