#ifndef XLA_BACKENDS_WINDOW_CONGRUENCE_H_
#define XLA_BACKENDS_WINDOW_CONGRUENCE_H_

// Which window indices k of a base-dilated window dimension land on operand elements:
// s + k * window_dilation must be a multiple of base_dilation. Shared by the interpreter's
// window iterator and the cpu/gpu window loops, which solve it rather than try every k.

#include <cstdint>
#include <numeric>

namespace xla {
namespace backend {

// x^-1 modulo m, for x and m coprime and m >= 1 (0 when m is 1).
inline int64_t InverseModulo(int64_t x, int64_t m) {
  int64_t r0 = m, r1 = x % m, t0 = 0, t1 = 1;
  while (r1 != 0) {
    const int64_t q = r0 / r1;
    const int64_t r2 = r0 - q * r1, t2 = t0 - q * t1;
    r0 = r1, r1 = r2, t0 = t1, t1 = t2;
  }
  return ((t0 % m) + m) % m;
}

// s + k * wd == 0 (mod bd) holds exactly for the k with k == residue (mod modulus), when
// gcd(wd, bd) divides s; modulus = bd / gcd(wd, bd) and the residue depends on s mod bd
// (`s_mod_bd`, in [0, bd)) alone. `solvable` is false when no k qualifies.
struct WindowCongruence {
  bool solvable;
  int64_t residue, modulus;
};
inline WindowCongruence SolveWindowCongruence(int64_t s_mod_bd, int64_t wd, int64_t bd) {
  const int64_t g = std::gcd(wd, bd), m = bd / g;
  if (s_mod_bd % g != 0) return {false, 0, m};
  const int64_t minus = (m - (s_mod_bd / g) % m) % m;
  // m <= 2^31 in every window the verifier accepts; the product is taken in 128 bits anyway.
  const int64_t residue = static_cast<int64_t>((static_cast<__int128>(minus) * InverseModulo((wd / g) % m, m)) % m);
  return {true, residue, m};
}

}  // namespace backend
}  // namespace xla

#endif  // XLA_BACKENDS_WINDOW_CONGRUENCE_H_
