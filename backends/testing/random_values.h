#ifndef XLA_BACKENDS_TESTING_RANDOM_VALUES_H_
#define XLA_BACKENDS_TESTING_RANDOM_VALUES_H_

// Random literals that reach edge cases, without gtest: shared by the cpu tests
// (cpu_test_util.h) and the compile fuzzer (backends/cpu/hlo_compile_fuzz.cc).

#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/literal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"

namespace xla {
namespace testing {

// Random values of `shape` (row-major; tuples element by element): integers over the whole
// range mixed with edge cases, floats of mixed magnitude with some specials when `specials`.
inline absl::StatusOr<Literal> RandomValues(const Shape& shape, std::mt19937_64* rng, bool specials = true) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& element : shape.tuple_shapes()) {
      absl::StatusOr<Literal> value = RandomValues(element, rng, specials);
      if (!value.ok()) return value.status();
      elements.push_back(*std::move(value));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  absl::StatusOr<Literal> literal = Literal::Create(shape);
  if (!literal.ok() || !shape.IsArray()) return literal;
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
  return literal;
}

}  // namespace testing
}  // namespace xla

#endif  // XLA_BACKENDS_TESTING_RANDOM_VALUES_H_
