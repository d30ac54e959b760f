#ifndef XLA_BACKENDS_COMPLEX_MATH_H_
#define XLA_BACKENDS_COMPLEX_MATH_H_

// Complex elementwise formulas where std::complex alone is not what XLA computes: the one
// definition the interpreter's ops and the cpu backend's runtime routines both use, so the
// two agree to the bit.

#include <cmath>
#include <complex>

namespace xla {
namespace complex_math {

// a^b with 1^b == 1 and a^0 == 1 for every operand, NaN included (Kahan), and
// inf^(r + 0i) == inf for r > 0, 0 for r < 0.
template <typename R>
std::complex<R> Pow(std::complex<R> a, std::complex<R> b) {
  using C = std::complex<R>;
  if (a == C(1) || b == C(0)) return C(1);
  const bool a_pos_inf = a.imag() == 0 && a.real() > 0 && std::isinf(a.real());
  if (a_pos_inf && b.imag() == 0 && b.real() > 0) return a;
  if (a_pos_inf && b.imag() == 0 && b.real() < 0) return C(0);
  return std::pow(a, b);
}

// atan2(y, x) = -i * log((x + i*y) / sqrt(x^2 + y^2)).
template <typename R>
std::complex<R> Atan2(std::complex<R> y, std::complex<R> x) {
  const std::complex<R> i(0, 1);
  return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
}

// expm1(a + bi) = expm1(a) cos(b) - 2 sin^2(b/2) + i e^a sin(b): accurate near zero.
template <typename R>
std::complex<R> Expm1(std::complex<R> x) {
  const R a = x.real(), b = x.imag();
  const R half_sin = std::sin(b / 2);
  return std::complex<R>(std::expm1(a) * std::cos(b) - 2 * half_sin * half_sin, std::exp(a) * std::sin(b));
}

// log1p(a + bi) = log1p(a (2 + a) + b^2) / 2 + i atan2(b, 1 + a): accurate near zero.
template <typename R>
std::complex<R> Log1p(std::complex<R> x) {
  const R a = x.real(), b = x.imag();
  return std::complex<R>(R(0.5) * std::log1p(a * (2 + a) + b * b), std::atan2(b, 1 + a));
}

}  // namespace complex_math
}  // namespace xla

#endif  // XLA_BACKENDS_COMPLEX_MATH_H_
