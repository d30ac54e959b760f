#ifndef XLA_BACKENDS_GPU_TESTING_GPU_SORT_MODULES_H_
#define XLA_BACKENDS_GPU_TESTING_GPU_SORT_MODULES_H_

// Sort and topk modules for the gpu tests and the device check (gpu_test_modules.h, which
// includes this and lists them among its curated cases).

#include <cstdint>
#include <string>

namespace xla {
namespace gpu {
namespace testing {

// sort: f32 keys carrying s32 values along the minor dimension; coarse keys (floor of 3x: many
// ties) with their positions, stable, so the positions show the order ties keep; descending
// along the major dimension (a row strides through memory).
inline constexpr char kSortModule[] = R"(HloModule sorts
less_key {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
greater {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT
}
ENTRY main {
  keys = f32[16,300] parameter(0)
  values = s32[16,300] parameter(1)
  by_key = (f32[16,300], s32[16,300]) sort(keys, values), dimensions={1}, to_apply=less_key
  three = f32[] constant(3)
  threes = f32[16,300] broadcast(three), dimensions={}
  scaled = f32[16,300] multiply(keys, threes)
  coarse = f32[16,300] floor(scaled)
  position = s32[16,300] iota(), iota_dimension=1
  ties = (f32[16,300], s32[16,300]) sort(coarse, position), dimensions={1}, is_stable=true, to_apply=less_key
  descending = f32[16,300] sort(keys), dimensions={0}, to_apply=greater
  k0 = f32[16,300] get-tuple-element(by_key), index=0
  v0 = s32[16,300] get-tuple-element(by_key), index=1
  k1 = f32[16,300] get-tuple-element(ties), index=0
  v1 = s32[16,300] get-tuple-element(ties), index=1
  ROOT t = (f32[16,300], s32[16,300], f32[16,300], s32[16,300], f32[16,300]) tuple(k0, v0, k1, v1, descending)
})";

// sort rows too long for shared memory (9000 > 8192: a block per row, its positions in
// scratch memory), with many ties (floor of 3x) carried with their positions: stable.
inline constexpr char kLongSortModule[] = R"(HloModule long_sort_rows
less_key {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  keys = f32[3,9000] parameter(0)
  three = f32[] constant(3)
  threes = f32[3,9000] broadcast(three), dimensions={}
  scaled = f32[3,9000] multiply(keys, threes)
  coarse = f32[3,9000] floor(scaled)
  position = s32[3,9000] iota(), iota_dimension=1
  ROOT sorted = (f32[3,9000], s32[3,9000]) sort(coarse, position), dimensions={1}, is_stable=true, to_apply=less_key
})";

// An argsort of one row of n f32 keys (stable: equal keys keep their positions' order): one
// long row, which the whole grid sorts (a spread sort, ptx_sort.h).
inline std::string ArgsortModule(int64_t n) {
  const std::string k = "f32[" + std::to_string(n) + "]", v = "s32[" + std::to_string(n) + "]";
  return "HloModule argsort\nless {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = s32[] parameter(2)\n"
         "  d = s32[] parameter(3)\n  ROOT lt = pred[] compare(a, b), direction=LT\n}\nENTRY main {\n  keys = " + k +
         " parameter(0)\n  positions = " + v + " iota(), iota_dimension=0\n  ROOT sorted = (" + k + ", " + v +
         ") sort(keys, positions), dimensions={0}, is_stable=true, to_apply=less\n}\n";
}

// jax.lax.top_k(x, k) of f32[rows, n] (its topk instruction): on the gpu, chunks sorted and
// cut to k, then the candidates sorted (gpu_expanders.h, PlanTopKChunks).
inline std::string TopKModule(int64_t rows, int64_t n, int64_t k) {
  const std::string in = "f32[" + std::to_string(rows) + "," + std::to_string(n) + "]";
  const std::string out = "[" + std::to_string(rows) + "," + std::to_string(k) + "]";
  return "HloModule topk\nENTRY main {\n  x = " + in + " parameter(0)\n  ROOT t = (f32" + out + ", s32" + out +
         ") topk(x), k=" + std::to_string(k) + ", largest=true\n}\n";
}

}  // namespace testing
}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_TESTING_GPU_SORT_MODULES_H_
