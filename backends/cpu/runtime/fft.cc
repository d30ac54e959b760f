// __xla_cpu_fft: FFT, IFFT, RFFT and IRFFT over the last fft_rank dimensions, computed in
// complex<double> and rounded once, by the interpreter's own transforms (backends/fft_core.h:
// radix-2 for power-of-two lengths, a direct DFT otherwise, twiddles computed once per length),
// so results are bit-exact with it (backends/interpreter/ops_linalg_fft.cc). Inverse transforms
// scale by 1/N per axis; IRFFT rebuilds the last axis by Hermitian symmetry and keeps real
// parts. Lines are shared out over the runtime's threads; fewer lines than threads, when long
// (runtime.h SplitLines; a direct DFT counts n^2 / 32 points), are each split instead: a
// radix-2 stage's butterflies, or a direct DFT's outputs, over the threads, which changes no
// bit since each is computed on its own.
#include <complex>
#include <vector>

#include "backends/cpu/runtime/runtime.h"
#include "backends/cpu/runtime/strided_array.h"
#include "backends/fft_core.h"

namespace xla {
namespace cpu {
namespace {

using fft::Complex;

// Whether `lines` lines of plan's length are each split over the threads.
bool SplitsLines(const fft::FftPlan& plan, int64_t lines) {
  const int64_t n = plan.length();
  return n > 1 && SplitLines(lines, plan.power_of_two() || n >= kSplitLineFrom ? n : n / 32 * n);
}

// The transform of one line v[0, n) in place over all the threads.
void TransformSplit(const fft::FftPlan& plan, Complex* v, std::vector<Complex>& scratch) {
  const int64_t n = plan.length();
  if (plan.power_of_two()) {
    plan.BitReverse(v);
    for (int64_t len = 2; len <= n; len *= 2) {
      ParallelRanges(n / 2, 8, [&](int64_t b0, int64_t b1) { plan.Butterflies(v, len, b0, b1); });
    }
    return;
  }
  scratch.resize(static_cast<size_t>(n));
  ParallelRanges(n, n, [&](int64_t k0, int64_t k1) { plan.DftOutputs(v, scratch.data(), k0, k1); });
  std::copy(scratch.begin(), scratch.end(), v);
}

// About the steps of one line's transform, for ParallelFor's split.
int64_t LineCost(const fft::FftPlan& plan) {
  const int64_t n = plan.length();
  if (!plan.power_of_two()) return n * n;
  int64_t log2 = 1;
  while ((int64_t{1} << log2) < n) ++log2;
  return n * log2;
}

// Transforms every line of row-major `data` with dimensions `dims` along `axis`.
void TransformAxis(std::vector<Complex>& data, const std::vector<int64_t>& dims, size_t axis, int sign, bool scale) {
  const fft::AxisLines lines(dims, axis);
  if (lines.count == 0 || data.empty()) return;
  const fft::FftPlan plan(lines.n, sign);
  if (SplitsLines(plan, lines.count)) {
    std::vector<Complex> line, scratch;
    fft::TransformLines(lines, scale, data.data(), 0, lines.count, line,
                        [&](Complex* v) { TransformSplit(plan, v, scratch); });
    return;
  }
  ParallelRanges(lines.count, LineCost(plan), [&](int64_t l0, int64_t l1) {
    std::vector<Complex> line, scratch;
    fft::TransformLines(lines, scale, data.data(), l0, l1, line, [&](Complex* v) { plan.Transform(v, scratch); });
  });
}

// IRFFT's last axis (fft_core.h InverseRealRows), rows over the threads or each split.
void InverseRealAxis(const std::vector<Complex>& half, int64_t h, int64_t n, std::vector<double>& real) {
  const int64_t rows = h == 0 ? 0 : static_cast<int64_t>(half.size()) / h;
  if (n <= 0 || rows == 0) return;
  const fft::FftPlan plan(n, 1);
  if (SplitsLines(plan, rows)) {
    std::vector<Complex> line, scratch;
    fft::InverseRealRows(n, half.data(), h, real.data(), 0, rows, line,
                         [&](Complex* v) { TransformSplit(plan, v, scratch); });
    return;
  }
  ParallelRanges(rows, LineCost(plan), [&](int64_t r0, int64_t r1) {
    std::vector<Complex> line, scratch;
    fft::InverseRealRows(n, half.data(), h, real.data(), r0, r1, line, [&](Complex* v) { plan.Transform(v, scratch); });
  });
}

}  // namespace
}  // namespace cpu
}  // namespace xla

// fft_type: 0 FFT, 1 IFFT, 2 RFFT, 3 IRFFT (xla::FftType). Shapes were checked when compiling.
static void Fft(void* in, const int64_t* in_descriptor, void* out, const int64_t* out_descriptor,
                int64_t fft_type, int64_t fft_rank) {
  using xla::fft::Complex;
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
  std::vector<double> real(output.element_count(), 0.0);
  xla::cpu::InverseRealAxis(data, half[rank - 1], output.dim(static_cast<int64_t>(rank) - 1), real);
  xla::cpu::Write(output, real);
}

extern "C" void __xla_cpu_fft(void* in, const int64_t* in_descriptor, void* out, const int64_t* out_descriptor,
                              int64_t fft_type, int64_t fft_rank) {
  xla::cpu::RunRoutine("fft", [&] { Fft(in, in_descriptor, out, out_descriptor, fft_type, fft_rank); });
}
