// __xla_cpu_fft: FFT, IFFT, RFFT and IRFFT over the last fft_rank dimensions, computed in
// complex<double> and rounded once: radix-2 for power-of-two lengths, a direct DFT
// otherwise, with the interpreter's twiddles and order of operations so results are
// bit-exact with it (backends/interpreter/ops_linalg_fft.cc). Inverse transforms scale by
// 1/N per axis; IRFFT rebuilds the last axis by Hermitian symmetry and keeps real parts.
#include <cmath>
#include <complex>
#include <utility>
#include <vector>

#include "backends/cpu/runtime/runtime.h"
#include "backends/cpu/runtime/strided_array.h"

namespace xla {
namespace cpu {
namespace {

using Complex = std::complex<double>;

// exp(sign * 2 pi i k / n), exact at quarter turns.
Complex Root(int64_t k, int64_t n, int sign) {
  k %= n;
  if ((4 * k) % n == 0) {
    const int64_t quarter = 4 * k / n;
    if (quarter == 0) return Complex(1, 0);
    if (quarter == 1) return Complex(0, sign);
    if (quarter == 2) return Complex(-1, 0);
    return Complex(0, -sign);
  }
  const double angle = 2.0 * M_PI * static_cast<double>(k) / static_cast<double>(n);
  return Complex(std::cos(angle), sign * std::sin(angle));
}

// Unscaled in-place transform of one line.
void TransformLine(std::vector<Complex>& v, int sign, std::vector<Complex>& scratch) {
  const int64_t n = static_cast<int64_t>(v.size());
  if (n <= 1) return;
  if ((n & (n - 1)) != 0) {
    std::vector<Complex> roots(n);
    for (int64_t k = 0; k < n; ++k) roots[k] = Root(k, n, sign);
    scratch.assign(n, Complex(0, 0));
    for (int64_t k = 0; k < n; ++k) {
      Complex sum(0, 0);
      for (int64_t j = 0; j < n; ++j) sum += v[j] * roots[(j * k) % n];
      scratch[k] = sum;
    }
    v.swap(scratch);
    return;
  }
  for (int64_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    int64_t bit = n >> 1;
    while (j & bit) {
      j ^= bit;
      bit >>= 1;
    }
    j ^= bit;
    if (i < j) std::swap(v[i], v[j]);
  }
  for (int64_t len = 2; len <= n; len *= 2) {
    const int64_t half = len / 2;
    for (int64_t start = 0; start < n; start += len) {
      for (int64_t k = 0; k < half; ++k) {
        const Complex w = Root(k * (n / len), n, sign);
        const Complex even = v[start + k];
        const Complex odd = v[start + k + half] * w;
        v[start + k] = even + odd;
        v[start + k + half] = even - odd;
      }
    }
  }
}

// Transforms every line of row-major `data` with dimensions `dims` along `axis`.
void TransformAxis(std::vector<Complex>& data, const std::vector<int64_t>& dims, size_t axis, int sign, bool scale) {
  const int64_t n = dims[axis];
  if (n == 0 || data.empty()) return;
  int64_t inner = 1, outer = 1;
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  for (size_t d = 0; d < axis; ++d) outer *= dims[d];
  std::vector<Complex> line(n), scratch;
  const double factor = 1.0 / static_cast<double>(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t first = o * n * inner + i;
      line.resize(n);
      for (int64_t k = 0; k < n; ++k) line[k] = data[first + k * inner];
      TransformLine(line, sign, scratch);
      for (int64_t k = 0; k < n; ++k) data[first + k * inner] = scale ? line[k] * factor : line[k];
    }
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla

// fft_type: 0 FFT, 1 IFFT, 2 RFFT, 3 IRFFT (xla::FftType). Shapes were checked when compiling.
static void Fft(void* in, const int64_t* in_descriptor, void* out, const int64_t* out_descriptor,
                int64_t fft_type, int64_t fft_rank) {
  using xla::cpu::Complex;
  const xla::cpu::StridedArray input(in, in_descriptor), output(out, out_descriptor);
  const size_t rank = static_cast<size_t>(input.rank());
  const size_t first_axis = rank - static_cast<size_t>(fft_rank);
  std::vector<Complex> data = xla::cpu::ReadComplex(input);
  if (fft_type == 0 || fft_type == 1) {
    const std::vector<int64_t> dims = input.dims();
    for (size_t a = first_axis; a < rank; ++a) {
      xla::cpu::TransformAxis(data, dims, a, fft_type == 0 ? -1 : 1, fft_type == 1);
    }
    xla::cpu::Write(output, data);
    return;
  }
  if (fft_type == 2) {
    const std::vector<int64_t> full = input.dims();
    for (size_t a = first_axis; a < rank; ++a) xla::cpu::TransformAxis(data, full, a, -1, false);
    const int64_t n = full[rank - 1], h = output.dim(static_cast<int64_t>(rank) - 1);
    std::vector<Complex> spectrum(output.element_count(), Complex(0, 0));
    const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(data.size()) / n;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < h && k < n; ++k) spectrum[r * h + k] = data[r * n + k];
    }
    xla::cpu::Write(output, spectrum);
    return;
  }
  // IRFFT: inverse over the leading transformed axes of the half spectrum, then each row
  // of the last axis rebuilt to full length and transformed back to reals.
  const std::vector<int64_t> half = input.dims();
  for (size_t a = first_axis; a + 1 < rank; ++a) xla::cpu::TransformAxis(data, half, a, 1, true);
  const int64_t n = output.dim(static_cast<int64_t>(rank) - 1), h = half[rank - 1];
  std::vector<double> real(output.element_count(), 0.0);
  const int64_t rows = h == 0 ? 0 : static_cast<int64_t>(data.size()) / h;
  std::vector<Complex> line, scratch;
  for (int64_t r = 0; r < rows && n > 0; ++r) {
    line.assign(n, Complex(0, 0));
    for (int64_t k = 0; k < n; ++k) line[k] = k < h ? data[r * h + k] : std::conj(data[r * h + (n - k)]);
    xla::cpu::TransformLine(line, 1, scratch);
    for (int64_t k = 0; k < n; ++k) real[r * n + k] = line[k].real() / static_cast<double>(n);
  }
  xla::cpu::Write(output, real);
}

extern "C" void __xla_cpu_fft(void* in, const int64_t* in_descriptor, void* out, const int64_t* out_descriptor,
                              int64_t fft_type, int64_t fft_rank) {
  xla::cpu::RunRoutine("fft", [&] { Fft(in, in_descriptor, out, out_descriptor, fft_type, fft_rank); });
}
