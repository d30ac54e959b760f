#ifndef XLA_BACKENDS_GPU_TESTING_GPU_CONTROL_FLOW_MODULES_H_
#define XLA_BACKENDS_GPU_TESTING_GPU_CONTROL_FLOW_MODULES_H_

// Control-flow modules (while loops, conditionals, counted loops, a KV-cache update in a
// loop) for the gpu tests and the device check (gpu_test_modules.h, which includes this and
// lists them among its curated cases).

#include <cstdint>
#include <string>

namespace xla {
namespace gpu {
namespace testing {

// Control flow (while, conditional; the host picks the next computation from a pred or an
// index read back from the device). A counted loop whose body branches on the counter's
// parity, a loop whose trip count depends on the data, and conditionals on an s32 index (out
// of range: the last branch) and on a pred.
inline constexpr char kWhileModule[] = R"(HloModule while_loop
cond {
  p = (s32[], f32[1000]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
halve {
  a = f32[1000] parameter(0)
  h = f32[] constant(0.5)
  bh = f32[1000] broadcast(h), dimensions={}
  ROOT m = f32[1000] multiply(a, bh)
}
wave {
  a = f32[1000] parameter(0)
  s = f32[1000] sine(a)
  ROOT r = f32[1000] add(s, a)
}
body {
  p = (s32[], f32[1000]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[1000] get-tuple-element(p), index=1
  one = s32[] constant(1)
  two = s32[] constant(2)
  parity = s32[] remainder(i, two)
  y = f32[1000] conditional(parity, x, x), branch_computations={halve, wave}
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[1000]) tuple(i1, y)
}
ENTRY main {
  x = f32[1000] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[1000]) tuple(zero, x)
  w = (s32[], f32[1000]) while(init), condition=cond, body=body
  ROOT r = f32[1000] get-tuple-element(w), index=1
})";

inline constexpr char kDataDependentWhileModule[] = R"(HloModule while_until_small
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
cond {
  p = (f32[1000], s32[]) parameter(0)
  x = f32[1000] get-tuple-element(p), index=0
  ax = f32[1000] abs(x)
  zero = f32[] constant(0)
  m = f32[] reduce(ax, zero), dimensions={0}, to_apply=max_f32
  eps = f32[] constant(0.01)
  ROOT gt = pred[] compare(m, eps), direction=GT
}
body {
  p = (f32[1000], s32[]) parameter(0)
  x = f32[1000] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  h = f32[] constant(0.5)
  bh = f32[1000] broadcast(h), dimensions={}
  y = f32[1000] multiply(x, bh)
  one = s32[] constant(1)
  n1 = s32[] add(n, one)
  ROOT t = (f32[1000], s32[]) tuple(y, n1)
}
ENTRY main {
  x = f32[1000] parameter(0)
  zero = s32[] constant(0)
  init = (f32[1000], s32[]) tuple(x, zero)
  ROOT w = (f32[1000], s32[]) while(init), condition=cond, body=body
})";

inline constexpr char kConditionalModule[] = R"(HloModule conditionals
b0 {
  p = f32[1000] parameter(0)
  ROOT e = f32[1000] exponential(p)
}
b1 {
  p = f32[1000] parameter(0)
  ROOT s = f32[1000] sine(p)
}
b2 {
  p = f32[1000] parameter(0)
  ROOT n = f32[1000] negate(p)
}
on_true {
  p = f32[1000] parameter(0)
  ROOT c = f32[1000] cosine(p)
}
on_false {
  p = f32[1000] parameter(0)
  ROOT a = f32[1000] abs(p)
}
ENTRY main {
  k = s32[] parameter(0)
  x = f32[1000] parameter(1)
  flag = pred[] parameter(2)
  three = s32[] constant(3)
  r = s32[] remainder(k, three)
  c = f32[1000] conditional(r, x, x, x), branch_computations={b0, b1, b2}
  d = f32[1000] conditional(flag, c, x), true_computation=on_true, false_computation=on_false
  ROOT t = (f32[1000], f32[1000]) tuple(c, d)
})";

// A counted loop (fori_loop): `iterations` steps of x = x * 0.999 + 0.001 over f32[n], the
// counter from 0 against a constant. The gpu runtime runs it without reading the condition
// back (loop_trip_count.h): the benchmark times that per-iteration overhead.
inline std::string CountedLoopModule(int64_t iterations, int64_t n) {
  const std::string x = "f32[" + std::to_string(n) + "]", state = "(s32[], " + x + ")";
  return "HloModule counted_loop\ncond {\n  p = " + state + " parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
         "  n = s32[] constant(" + std::to_string(iterations) + ")\n  ROOT lt = pred[] compare(i, n), direction=LT\n}\n"
         "body {\n  p = " + state + " parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  x = " + x +
         " get-tuple-element(p), index=1\n  one = s32[] constant(1)\n  next = s32[] add(i, one)\n  decay = f32[] "
         "constant(0.999)\n  bd = " + x + " broadcast(decay), dimensions={}\n  scaled = " + x + " multiply(x, bd)\n"
         "  bias = f32[] constant(0.001)\n  bb = " + x + " broadcast(bias), dimensions={}\n  y = " + x +
         " add(scaled, bb)\n  ROOT t = " + state + " tuple(next, y)\n}\nENTRY main {\n  x = " + x +
         " parameter(0)\n  zero = s32[] constant(0)\n  init = " + state + " tuple(zero, x)\n  w = " + state +
         " while(init), condition=cond, body=body\n  ROOT r = " + x + " get-tuple-element(w), index=1\n}\n";
}

// A decoding loop's KV-cache update: `iterations` steps each writing row i of a
// f32[rows, width] cache held in the loop state (i + iota over the row), as fori_loop with
// cache.at[i].set(...) lowers. The gpu runtime writes the row in place (after one copy of the
// caller's cache), so a step costs its row, not the cache (GpuPlanStep::in_place).
inline std::string KvCacheModule(int64_t iterations, int64_t rows, int64_t width) {
  const std::string w = std::to_string(width), c = "f32[" + std::to_string(rows) + "," + w + "]",
                    state = "(s32[], " + c + ")", row = "f32[1," + w + "]";
  return "HloModule kv_cache\ncond {\n  p = " + state + " parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
         "  n = s32[] constant(" + std::to_string(iterations) + ")\n  ROOT lt = pred[] compare(i, n), direction=LT\n}\n"
         "body {\n  p = " + state + " parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  cache = " + c +
         " get-tuple-element(p), index=1\n  x = f32[] convert(i)\n  bx = " + row + " broadcast(x), dimensions={}\n"
         "  io = " + row + " iota(), iota_dimension=1\n  v = " + row + " add(bx, io)\n  zero = s32[] constant(0)\n"
         "  updated = " + c + " dynamic-update-slice(cache, v, i, zero)\n  one = s32[] constant(1)\n"
         "  next = s32[] add(i, one)\n  ROOT t = " + state + " tuple(next, updated)\n}\nENTRY main {\n  cache = " + c +
         " parameter(0)\n  zero = s32[] constant(0)\n  init = " + state + " tuple(zero, cache)\n  w = " + state +
         " while(init), condition=cond, body=body\n  ROOT r = " + c + " get-tuple-element(w), index=1\n}\n";
}

}  // namespace testing
}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_TESTING_GPU_CONTROL_FLOW_MODULES_H_
