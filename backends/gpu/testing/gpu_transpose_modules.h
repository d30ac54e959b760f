#ifndef XLA_BACKENDS_GPU_TESTING_GPU_TRANSPOSE_MODULES_H_
#define XLA_BACKENDS_GPU_TESTING_GPU_TRANSPOSE_MODULES_H_

// Transposing modules for the gpu tests and the device check (gpu_test_modules.h): kernels
// whose output's minor dimension is not where an operand's minor dimension goes, which the
// emitter tiles through shared memory (ptx_transpose.cc).

#include <cstdint>
#include <string>

namespace xla {
namespace gpu {
namespace testing {

// Transposes and layout changes of every kind the tiled kernel takes, none a multiple of the
// tile in both dimensions: alone, fused with elementwise ops (an operand read directly, a
// broadcast row, two operands through tiles, one read twice), three dimensions with the
// minor one moving to the front, complex and half and byte types, a copy into another
// layout, and short dimensions the plain kernel keeps. Values are only moved: exact.
inline constexpr char kTransposesModule[] = R"(HloModule transposes
ENTRY main {
  a = f32[100,37] parameter(0)
  ta = f32[37,100] transpose(a), dimensions={1,0}
  b = f32[37,100] parameter(1)
  s = f32[37,100] add(ta, b)
  c = f16[6,40,70] parameter(2)
  tc = f16[70,6,40] transpose(c), dimensions={2,0,1}
  d = c64[33,65] parameter(3)
  td = c64[65,33] transpose(d), dimensions={1,0}
  e = f32[64,48] parameter(4)
  le = f32[64,48]{0,1} copy(e)
  ne = f32[64,48]{0,1} negate(le)
  g = s8[48,96] parameter(5)
  tg = s8[96,48] transpose(g), dimensions={1,0}
  h = f32[50,40] parameter(6)
  th = f32[40,50] transpose(h), dimensions={1,0}
  hh = f32[40,50] multiply(th, th)
  bias = f32[50] parameter(7)
  bb = f32[40,50] broadcast(bias), dimensions={1}
  hb = f32[40,50] subtract(hh, bb)
  i = f32[8,300] parameter(8)
  ti = f32[300,8] transpose(i), dimensions={1,0}
  j = pred[70,20] parameter(9)
  tj = pred[20,70] transpose(j), dimensions={1,0}
  k = f32[3,17,19,5] parameter(10)
  tk = f32[5,19,3,17] transpose(k), dimensions={3,2,0,1}
  ROOT r = (f32[37,100], f16[70,6,40], c64[65,33], f32[64,48]{0,1}, s8[96,48], f32[40,50], f32[300,8], pred[20,70],
            f32[5,19,3,17]) tuple(s, tc, td, ne, tg, hb, ti, tj, tk)
}
)";

// An [n, m] f32 matrix transposed (the device check times it against a copy of its bytes).
inline std::string TransposeModule(int64_t n, int64_t m) {
  const std::string in = "f32[" + std::to_string(n) + "," + std::to_string(m) + "]";
  const std::string out = "f32[" + std::to_string(m) + "," + std::to_string(n) + "]";
  return "HloModule transpose\nENTRY main {\n  x = " + in + " parameter(0)\n  ROOT t = " + out +
         " transpose(x), dimensions={1,0}\n}\n";
}

// Attention's key transpose: [batch, seq, heads, dim] to [batch, heads, dim, seq] in bf16,
// scaled (a fusion reading its operand through a tile).
inline std::string KeyTransposeModule(int64_t batch, int64_t seq, int64_t heads, int64_t dim) {
  auto s = [](int64_t v) { return std::to_string(v); };
  const std::string in = "bf16[" + s(batch) + "," + s(seq) + "," + s(heads) + "," + s(dim) + "]";
  const std::string out = "bf16[" + s(batch) + "," + s(heads) + "," + s(dim) + "," + s(seq) + "]";
  return "HloModule key_transpose\nENTRY main {\n  k = " + in + " parameter(0)\n  t = " + out +
         " transpose(k), dimensions={0,2,3,1}\n  c = bf16[] constant(0.125)\n  cb = " + out +
         " broadcast(c), dimensions={}\n  ROOT y = " + out + " multiply(t, cb)\n}\n";
}

}  // namespace testing
}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_TESTING_GPU_TRANSPOSE_MODULES_H_
