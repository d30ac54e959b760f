#ifndef XLA_BACKENDS_FFT_CORE_H_
#define XLA_BACKENDS_FFT_CORE_H_

// The one-dimensional transforms of the fft op in complex<double>, shared by the interpreter
// (backends/interpreter/ops_linalg_fft.cc) and the cpu runtime (backends/cpu/runtime/fft.cc) so
// that their results are the same bit for bit: radix-2 for power-of-two lengths (a
// bit-reversal permutation, then butterflies), a direct DFT otherwise, unscaled. A transform's
// twiddles are computed once per length and direction (FftPlan), each exactly as Twiddle gives
// it; the butterflies of one stage, and the outputs of a direct DFT, are independent of each
// other, so callers may compute them in any order or in parallel (FftPlan's ranges) without
// changing a bit.

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <utility>
#include <vector>

namespace xla {
namespace fft {

using Complex = std::complex<double>;

// exp(sign * 2 pi i k / n), exact at multiples of a quarter turn.
inline Complex Twiddle(int64_t k, int64_t n, int sign) {
  k %= n;
  if (4 * k % n == 0) {
    switch (4 * k / n) {
      case 0: return Complex(1, 0);
      case 1: return Complex(0, sign);
      case 2: return Complex(-1, 0);
      default: return Complex(0, -sign);
    }
  }
  const double angle = 2.0 * M_PI * static_cast<double>(k) / static_cast<double>(n);
  return Complex(std::cos(angle), sign * std::sin(angle));
}

// The transform of lines of n points in one direction (sign -1 forward, +1 inverse).
class FftPlan {
 public:
  FftPlan(int64_t n, int sign) : n_(n), power_of_two_(n > 0 && (n & (n - 1)) == 0) {
    // Radix-2 stage `len` uses twiddle k * (n / len) for k < len / 2: all below n / 2.
    const int64_t count = n <= 1 ? 0 : power_of_two_ ? n / 2 : n;
    roots_.resize(static_cast<size_t>(count));
    for (int64_t k = 0; k < count; ++k) roots_[static_cast<size_t>(k)] = Twiddle(k, n, sign);
  }

  int64_t length() const { return n_; }
  bool power_of_two() const { return power_of_two_; }

  // The whole transform of v[0, n) in place; scratch holds n points for a direct DFT.
  void Transform(Complex* v, std::vector<Complex>& scratch) const {
    if (n_ <= 1) return;
    if (!power_of_two_) {
      scratch.resize(static_cast<size_t>(n_));
      DftOutputs(v, scratch.data(), 0, n_);
      std::copy(scratch.begin(), scratch.end(), v);
      return;
    }
    BitReverse(v);
    for (int64_t len = 2; len <= n_; len *= 2) Butterflies(v, len, 0, n_ / 2);
  }

  // Radix-2 steps, for callers that split one long line: the bit-reversal permutation...
  void BitReverse(Complex* v) const {
    for (int64_t i = 1, j = 0; i < n_; ++i) {
      int64_t bit = n_ >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(v[i], v[j]);
    }
  }
  // ...then, stage by stage (len = 2, 4, ..., n), butterflies [b0, b1) of the stage's n / 2.
  void Butterflies(Complex* v, int64_t len, int64_t b0, int64_t b1) const {
    const int64_t half = len / 2, step = n_ / len;
    int64_t k = b0 % half, start = (b0 - k) * 2;  // butterfly b: k = b mod half, start = 2 (b - k)
    for (int64_t b = b0; b < b1; ++b) {
      const Complex a = v[start + k];
      const Complex odd = v[start + k + half] * roots_[static_cast<size_t>(k * step)];
      v[start + k] = a + odd;
      v[start + k + half] = a - odd;
      if (++k == half) {
        k = 0;
        start += len;
      }
    }
  }

  // A direct DFT's outputs [k0, k1) of v into out[k0, k1) (out apart from v).
  void DftOutputs(const Complex* v, Complex* out, int64_t k0, int64_t k1) const {
    for (int64_t k = k0; k < k1; ++k) {
      Complex sum(0, 0);
      for (int64_t j = 0, at = 0; j < n_; ++j) {  // at = j * k mod n
        sum += v[j] * roots_[static_cast<size_t>(at)];
        at += k;
        if (at >= n_) at -= n_;
      }
      out[k] = sum;
    }
  }

 private:
  int64_t n_;
  bool power_of_two_;
  std::vector<Complex> roots_;
};

// Lines of a row-major array of dimensions `dims` along `axis`: line l (of outer * inner)
// starts at First(l) and its points are `inner` apart.
struct AxisLines {
  int64_t n = 0, inner = 1, count = 0;
  AxisLines(const std::vector<int64_t>& dims, size_t axis) : n(dims[axis]) {
    int64_t outer = 1;
    for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
    for (size_t d = 0; d < axis; ++d) outer *= dims[d];
    count = n == 0 ? 0 : outer * inner;
  }
  int64_t First(int64_t line) const { return (line / inner) * n * inner + line % inner; }
};

// Transforms lines [l0, l1) of `data` in place, scaled by 1 / n when `scale`: each line is
// copied to `line` (the caller's buffer), transform(line.data()) transforms it (FftPlan's
// Transform, or the caller's split of it), and it is copied back.
template <typename Transform>
void TransformLines(const AxisLines& lines, bool scale, Complex* data, int64_t l0, int64_t l1,
                    std::vector<Complex>& line, Transform&& transform) {
  const int64_t n = lines.n;
  const double factor = 1.0 / static_cast<double>(n);
  line.resize(static_cast<size_t>(n));
  for (int64_t l = l0; l < l1; ++l) {
    const int64_t first = lines.First(l);
    for (int64_t k = 0; k < n; ++k) line[static_cast<size_t>(k)] = data[first + k * lines.inner];
    transform(line.data());
    for (int64_t k = 0; k < n; ++k) {
      data[first + k * lines.inner] = scale ? line[static_cast<size_t>(k)] * factor : line[static_cast<size_t>(k)];
    }
  }
}

// IRFFT's last axis: rows [r0, r1) of the half spectrum `half` (rows of h points) rebuilt to
// n points by Hermitian symmetry (X[n - k] = conj(X[k])) in `line`, transformed back by
// transform(line.data()) (n points, inverse), and their real parts / n written to
// real[r * n, (r + 1) * n).
template <typename Transform>
void InverseRealRows(int64_t n, const Complex* half, int64_t h, double* real, int64_t r0, int64_t r1,
                     std::vector<Complex>& line, Transform&& transform) {
  line.resize(static_cast<size_t>(n));
  for (int64_t r = r0; r < r1; ++r) {
    for (int64_t k = 0; k < n; ++k) {
      line[static_cast<size_t>(k)] = k < h ? half[r * h + k] : std::conj(half[r * h + (n - k)]);
    }
    transform(line.data());
    for (int64_t k = 0; k < n; ++k) real[r * n + k] = line[static_cast<size_t>(k)].real() / static_cast<double>(n);
  }
}

}  // namespace fft
}  // namespace xla

#endif  // XLA_BACKENDS_FFT_CORE_H_
