#ifndef XLA_BACKENDS_TESTING_HLO_TEST_UTIL_H_
#define XLA_BACKENDS_TESTING_HLO_TEST_UTIL_H_

// Helpers for backend tests: run HLO text through the Backend interface (parse, compile,
// transfer, execute, transfer back) so the same suite runs on every backend. The platform
// comes from XLA_TEST_PLATFORM (default "interpreter").

#include <cmath>
#include <complex>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "backends/backend.h"
#include "backends/testing/random_values.h"
#include "backends/testing/run_hlo.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/literal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"

namespace xla {
namespace testing {

inline std::string TestPlatform() {
  const char* env = std::getenv("XLA_TEST_PLATFORM");
  return env != nullptr ? env : "interpreter";
}

// Runs the module's entry computation on `args`.
inline absl::StatusOr<Literal> RunHlo(const std::string& hlo_text, absl::Span<const Literal> args,
                                      const std::string& platform = TestPlatform()) {
  auto backend = backend::CreateBackend(platform);
  if (!backend.ok()) return backend.status();
  return RunHloOn(**backend, hlo_text, args);
}

// The interpreter, made once per process and never destroyed (the reference of tests that
// compare another backend with it); a failure to make it fails the test.
inline backend::Backend* SharedInterpreter() {
  static backend::Backend* interpreter = [] {
    backend::RegisterBuiltinBackends();
    absl::StatusOr<std::unique_ptr<backend::Backend>> b = backend::CreateBackend("interpreter");
    EXPECT_TRUE(b.ok()) << b.status();
    return b.ok() ? b->release() : nullptr;
  }();
  return interpreter;
}

// Parses XLA literal text ("f32[2] {1, 2}"); a malformed literal fails the test.
inline Literal L(const std::string& text) {
  auto literal = Literal::Parse(text);
  EXPECT_TRUE(literal.ok()) << "bad literal '" << text << "': " << literal.status().message();
  return literal.ok() ? *std::move(literal) : Literal();
}

// For a module whose last op runs long: compiles `hlo` on `platform`, runs it on `args`
// (random finite values of the parameters' shapes when empty) with should_cancel turning
// true at its `cancel_at`th call, and expects CANCELLED at exactly that call. `cancel_at` is
// one past the polls the execution makes before that op's own loop (cpu: one, before the
// run; interpreter: one before each instruction), so without a check inside the op the
// execution would finish with fewer polls. The same executable then runs uncancelled.
inline void ExpectCancelledInsideTheOp(const std::string& platform, const std::string& hlo, int cancel_at,
                                       std::vector<Literal> args = {}) {
  SCOPED_TRACE(hlo);
  backend::RegisterBuiltinBackends();
  auto backend = backend::CreateBackend(platform);
  ASSERT_TRUE(backend.ok()) << backend.status().message();
  auto module = ParseAndReturnUnverifiedModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status().message();
  if (args.empty()) {
    std::mt19937_64 rng(7);
    const ProgramShape program = (*module)->entry_computation()->ComputeProgramShape();
    for (const Shape& shape : program.parameters()) {
      auto value = RandomValues(shape, &rng, /*specials=*/false);
      ASSERT_TRUE(value.ok()) << value.status().message();
      args.push_back(*std::move(value));
    }
  }
  auto executable = (*backend)->Compile(*std::move(module), backend::CompileOptions());
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  int polls = 0;
  backend::ExecuteOptions options;
  options.should_cancel = [&polls, cancel_at] { return ++polls >= cancel_at; };
  auto cancelled = ExecuteOnDevice0(**backend, **executable, args, options);
  EXPECT_EQ(cancelled.status().code(), absl::StatusCode::kCancelled) << cancelled.status().message();
  EXPECT_EQ(polls, cancel_at);
  auto full = ExecuteOnDevice0(**backend, **executable, args);
  EXPECT_TRUE(full.ok()) << full.status().message();
}

// Exact equality of shape (ignoring layout) and bits; prints both on mismatch.
inline ::testing::AssertionResult LiteralEqual(const Literal& expected, const absl::StatusOr<Literal>& actual) {
  if (!actual.ok()) return ::testing::AssertionFailure() << "error: " << actual.status().message();
  if (expected == *actual) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << expected.ToString() << "\n  actual   "
                                       << actual->ToString();
}

// Elementwise |a - e| <= atol + rtol * |e| for floating and complex arrays (NaN matches
// NaN, infinities must match exactly); other types must be equal. Recurses into tuples.
inline ::testing::AssertionResult LiteralNear(const Literal& expected, const absl::StatusOr<Literal>& actual,
                                              double rtol, double atol = 0) {
  if (!actual.ok()) return ::testing::AssertionFailure() << "error: " << actual.status().message();
  if (!ShapeUtil::Compatible(expected.shape(), actual->shape())) {
    return ::testing::AssertionFailure() << "shape " << actual->shape().ToString() << ", expected "
                                         << expected.shape().ToString();
  }
  if (expected.IsTuple()) {
    for (int64_t i = 0; i < expected.tuple_element_count(); ++i) {
      auto r = LiteralNear(expected.tuple_element(i), actual->tuple_element(i).Clone(), rtol, atol);
      if (!r) return r << " (tuple element " << i << ")";
    }
    return ::testing::AssertionSuccess();
  }
  const PrimitiveType type = expected.shape().element_type();
  const bool fp = primitive_util::IsFloatingPointType(type) || primitive_util::IsComplexType(type);
  if (!fp) return LiteralEqual(expected, actual);
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    std::complex<double> e = expected.GetAsComplex(i);
    std::complex<double> a = actual->GetAsComplex(i);
    for (int part = 0; part < 2; ++part) {
      double ev = part == 0 ? e.real() : e.imag();
      double av = part == 0 ? a.real() : a.imag();
      bool ok = (std::isnan(ev) && std::isnan(av)) || ev == av ||
                (std::isfinite(ev) && std::fabs(av - ev) <= atol + rtol * std::fabs(ev));
      if (!ok) {
        return ::testing::AssertionFailure()
               << "element " << i << ": expected " << expected.ElementToString(i) << ", got "
               << actual->ElementToString(i) << "\n  expected " << expected.ToString() << "\n  actual   "
               << actual->ToString();
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// For values that come out of floating-point dot or reduce sums. The interpreter (the
// reference) accumulates f32 and narrower sums in f64 and rounds once, so it is held to the
// exact value; other backends may reassociate and accumulate in the element type (issue 6
// allows a dot/reduce tolerance), so they are held to `rtol`/`atol` as in LiteralNear. For n
// terms whose magnitudes add up to S, n * epsilon(type) * S bounds such a sum's error.
inline ::testing::AssertionResult SumEqualOnReferenceElseNear(const Literal& expected,
                                                              const absl::StatusOr<Literal>& actual, double rtol,
                                                              double atol = 0) {
  if (TestPlatform() == "interpreter") return LiteralEqual(expected, actual);
  return LiteralNear(expected, actual, rtol, atol);
}

// Hermitian positive definite matrices M M^H + n I of type `t`, shape batch + [n, n]: M's
// parts uniform in [-1, 1) (imaginary parts for complex types only), drawn matrix by matrix in
// row-major order from `seed`. Matrix `not_definite` (when in range) has -1 at (n/2, n/2).
inline Literal PositiveDefinite(PrimitiveType t, const std::vector<int64_t>& batch, int64_t n, uint64_t seed,
                                int64_t not_definite = -1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const bool complex = primitive_util::IsComplexType(t);
  std::vector<int64_t> dims = batch;
  dims.push_back(n);
  dims.push_back(n);
  absl::StatusOr<Literal> literal = Literal::Create(ShapeUtil::MakeShape(t, dims));
  EXPECT_TRUE(literal.ok()) << literal.status();
  if (!literal.ok()) return Literal();
  const int64_t matrices = n == 0 ? 0 : ShapeUtil::ElementsIn(literal->shape()) / (n * n);
  std::vector<std::complex<double>> m(n * n);
  for (int64_t b = 0; b < matrices; ++b) {
    for (auto& v : m) v = {u(rng), complex ? u(rng) : 0.0};
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        std::complex<double> s = i == j ? static_cast<double>(n) : 0.0;
        for (int64_t k = 0; k < n; ++k) s += m[i * n + k] * std::conj(m[j * n + k]);
        if (b == not_definite && i == j && i == n / 2) s = -1;
        literal->SetFromComplex((b * n + i) * n + j, s);
      }
    }
  }
  return *std::move(literal);
}

}  // namespace testing
}  // namespace xla

#endif  // XLA_BACKENDS_TESTING_HLO_TEST_UTIL_H_
