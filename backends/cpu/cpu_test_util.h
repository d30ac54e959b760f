#ifndef XLA_BACKENDS_CPU_CPU_TEST_UTIL_H_
#define XLA_BACKENDS_CPU_CPU_TEST_UTIL_H_

// Test helpers: run a module on "cpu" and on the reference interpreter and compare.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"

namespace xla {
namespace cpu {
namespace testing {

inline void RegisterBackendsOnce() {
  static const bool done = [] {
    backend::RegisterBuiltinBackends();
    RegisterCpuBackend();
    return true;
  }();
  (void)done;
}

// Bit-exact for integers/pred/shape ops (rtol = -1), else |a-e| <= atol + rtol |e|.
inline ::testing::AssertionResult SameOnBothBackends(const std::string& hlo, absl::Span<const Literal> args,
                                                     double rtol = -1, double atol = 0) {
  RegisterBackendsOnce();
  absl::StatusOr<Literal> expected = xla::testing::RunHlo(hlo, args, "interpreter");
  if (!expected.ok()) return ::testing::AssertionFailure() << "interpreter: " << expected.status().message();
  absl::StatusOr<Literal> actual = xla::testing::RunHlo(hlo, args, "cpu");
  if (!actual.ok()) return ::testing::AssertionFailure() << "cpu: " << actual.status().message() << "\n" << hlo;
  auto result = rtol < 0 ? xla::testing::LiteralEqual(*expected, actual)
                         : xla::testing::LiteralNear(*expected, actual, rtol, atol);
  if (!result) result << "\nmodule:\n" << hlo;
  return result;
}

// Random values of `shape` (row-major): integers over the whole range mixed with edge
// cases, floats of mixed magnitude with some specials when `specials`.
inline Literal RandomLiteral(const Shape& shape, std::mt19937_64* rng, bool specials = true) {
  auto literal = Literal::Create(shape);
  EXPECT_TRUE(literal.ok());
  const PrimitiveType t = shape.element_type();
  const int64_t n = ShapeUtil::ElementsIn(shape);
  std::uniform_int_distribution<int> pick(0, 9);
  for (int64_t i = 0; i < n; ++i) {
    if (t == PRED) {
      literal->SetFromInt64(i, (*rng)() & 1);
    } else if (primitive_util::IsIntegralType(t)) {
      const int bits = primitive_util::BitWidth(t);
      const int p = pick(*rng);
      int64_t v;
      if (p == 0) v = 0;
      else if (p == 1) v = -1;
      else if (p == 2) v = std::uniform_int_distribution<int64_t>(-3, 3)(*rng);
      else if (p == 3) v = std::uniform_int_distribution<int64_t>(0, bits + 2)(*rng);
      else if (p == 4) v = int64_t{1} << (bits - 1);
      else v = static_cast<int64_t>((*rng)());
      literal->SetFromInt64(i, v);
    } else {
      const int p = pick(*rng);
      double v = std::uniform_real_distribution<double>(-4, 4)(*rng);
      if (p == 0) v *= 1000;
      if (specials && p == 1) {
        const double s[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5};
        v = s[(*rng)() % 8];
      }
      literal->SetFromDouble(i, v);
    }
  }
  return *std::move(literal);
}

}  // namespace testing
}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CPU_TEST_UTIL_H_
