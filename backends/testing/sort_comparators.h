#ifndef XLA_BACKENDS_TESTING_SORT_COMPARATORS_H_
#define XLA_BACKENDS_TESTING_SORT_COMPARATORS_H_

// Sort comparators as frameworks emit them, for the backends' sort tests and the benchmarks.

namespace xla {
namespace testing {

// The body of JAX's comparator for jnp.sort / jnp.argsort of f32 over parameters x and y:
// -0 to +0 and every NaN to one NaN, then a total-order less-than (root `c`).
inline constexpr char kJaxFloatLessBody[] = R"(  zero = f32[] constant(0)
  nan = f32[] constant(nan)
  xz = pred[] compare(x, zero), direction=EQ
  x0 = f32[] select(xz, zero, x)
  xn = pred[] compare(x, x), direction=NE
  x1 = f32[] select(xn, nan, x0)
  yz = pred[] compare(y, zero), direction=EQ
  y0 = f32[] select(yz, zero, y)
  yn = pred[] compare(y, y), direction=NE
  y1 = f32[] select(yn, nan, y0)
  ROOT c = pred[] compare(x1, y1), direction=LT, type=TOTALORDER
)";

}  // namespace testing
}  // namespace xla

#endif  // XLA_BACKENDS_TESTING_SORT_COMPARATORS_H_
