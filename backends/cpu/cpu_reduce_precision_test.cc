// reduce-precision on cpu against the interpreter, bit-exact, over random values with
// specials (NaN, infinities, signed zeros, denormals) for each float type and a range of
// exponent/mantissa widths (rounding ties, overflow to inf, underflow to signed zero).
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::RandomLiteral;
using testing::SameOnBothBackends;

TEST(CpuReducePrecision, EveryFloatTypeAndWidth) {
  const int widths[][2] = {{1, 0}, {2, 1}, {5, 10}, {8, 0}, {8, 3}, {8, 7}, {8, 23}, {11, 52}, {4, 2}};
  uint64_t seed = 90;
  for (const char* type : {"f32", "f64", "f16", "bf16"}) {
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(type);
    for (const auto& w : widths) {
      const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  x = ", type, "[64] parameter(0)\n  ROOT r = ", type,
                                           "[64] reduce-precision(x), exponent_bits=", w[0], ", mantissa_bits=", w[1],
                                           "\n}\n");
      std::mt19937_64 rng(seed++);
      Literal x = RandomLiteral(ShapeUtil::MakeShape(t, {64}), &rng, true);
      // Tiny and huge magnitudes, and values halfway between representable ones.
      const double extra[] = {1e-40, -1e-310, 1e30, 65520, 1.5, 1.25, 3, -2.5, 1.00048828125, 1e-8};
      for (int i = 0; i < 10; ++i) x.SetFromDouble(i, extra[i]);
      EXPECT_TRUE(SameOnBothBackends(hlo, {std::move(x)})) << hlo;
    }
  }
}

// 8- and 4-bit floats: every encoding, each format's NaNs and infinities included.
TEST(CpuReducePrecision, NarrowFloatsEveryEncoding) {
  const int widths[][2] = {{1, 0}, {2, 1}, {3, 2}, {4, 3}, {5, 2}, {2, 0}, {8, 23}};
  for (PrimitiveType t : {F8E5M2, F8E4M3FN, F8E4M3B11FNUZ, F8E5M2FNUZ, F8E4M3FNUZ, F8E4M3, F8E3M4, F4E2M1FN}) {
    const std::string type(primitive_util::LowercasePrimitiveTypeName(t));
    const int count = 1 << primitive_util::BitWidth(t);
    Literal x = *Literal::Create(ShapeUtil::MakeShape(t, {count}));
    for (int i = 0; i < count; ++i) static_cast<uint8_t*>(x.untyped_data())[i] = static_cast<uint8_t>(i);
    for (const auto& w : widths) {
      const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  x = ", type, "[", count, "] parameter(0)\n  ROOT r = ",
                                           type, "[", count, "] reduce-precision(x), exponent_bits=", w[0],
                                           ", mantissa_bits=", w[1], "\n}\n");
      EXPECT_TRUE(SameOnBothBackends(hlo, {x.Clone()})) << hlo;
    }
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
