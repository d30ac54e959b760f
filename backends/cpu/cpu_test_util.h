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
#include "backends/testing/random_values.h"
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

// Random values of `shape` (backends/testing/random_values.h); a shape no literal can hold
// fails the test.
inline Literal RandomLiteral(const Shape& shape, std::mt19937_64* rng, bool specials = true) {
  absl::StatusOr<Literal> literal = xla::testing::RandomValues(shape, rng, specials);
  EXPECT_TRUE(literal.ok()) << literal.status();
  return literal.ok() ? *std::move(literal) : Literal();
}

}  // namespace testing
}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CPU_TEST_UTIL_H_
