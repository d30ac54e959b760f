// __xla_cpu_fft: FFT, IFFT, RFFT and IRFFT over the last fft_rank dimensions, computed in
// complex<double> and rounded once, by the interpreter's own transforms (backends/fft_core.h:
// mixed-radix Stockham stages, or Bluestein's chirp-z for a length with a large prime factor),
// so results are bit-exact with it (backends/interpreter/ops_linalg_fft.cc). Inverse transforms
// scale by 1/N per axis; IRFFT rebuilds the last axis by Hermitian symmetry and keeps real
// parts. Lines are shared out over the runtime's threads; fewer lines than threads, when long
// (runtime.h SplitLines), are each split instead: each step of the plan (a stage's butterflies,
// a chirp's products) over the threads, which changes no bit since each item is computed on
// its own.
#include <algorithm>
#include <complex>
#include <memory>
#include <vector>

#include "backends/cpu/runtime/runtime.h"
#include "backends/cpu/runtime/strided_array.h"
#include "backends/fft_core.h"

namespace xla {
namespace cpu {
namespace {

using fft::Complex;

// Whether `lines` lines of plan's length are each split over the threads (a transform counts
// as many points as its arithmetic).
bool SplitsLines(const fft::FftPlan& plan, int64_t lines) {
  return plan.length() > 1 && SplitLines(lines, std::max(plan.length(), plan.cost() / 16));
}

// The transform of one line v[0, n) in place over all the threads: each step's items (a
// stage's butterflies, a chirp's points) shared out, one step after another.
void TransformSplit(const fft::FftPlan& plan, Complex* v, fft::FftWork& work) {
  plan.Prepare(work);
  for (int s = 0; s < plan.steps(); ++s) {
    ParallelRanges(plan.StepItems(s), 8, [&](int64_t i0, int64_t i1) { plan.Step(s, v, work, i0, i1); });
  }
}

// How a line is transformed by a plan: here (fft::RunPlan) or split over the threads.
using Run = void (*)(const fft::FftPlan&, Complex*, fft::FftWork&);

// body(l0, l1, line, work, run) for ranges of `count` lines whose transforms are by `plan`
// (or contain it: a real transform's inner one), `line` and `work` buffers: ranges over the
// threads, each line's transform on one; or, for a few long lines, all of them here, each
// transform split over the threads.
template <typename Body>
void ForLines(const fft::FftPlan& plan, int64_t count, Body&& body) {
  if (SplitsLines(plan, count)) {
    std::vector<Complex> line;
    fft::FftWork work;
    body(0, count, line, work, Run{TransformSplit});
    return;
  }
  ParallelRanges(count, plan.cost(), [&](int64_t l0, int64_t l1) {
    std::vector<Complex> line;
    fft::FftWork work;
    body(l0, l1, line, work, Run{fft::RunPlan});
  });
}

// Transforms every line of row-major `data` with dimensions `dims` along `axis`.
void TransformAxis(std::vector<Complex>& data, const std::vector<int64_t>& dims, size_t axis, int sign, bool scale) {
  const fft::AxisLines lines(dims, axis);
  if (lines.count == 0 || data.empty()) return;
  const std::shared_ptr<const fft::FftPlan> plan = fft::SharedPlan(lines.n, sign);
  ForLines(*plan, lines.count, [&](int64_t l0, int64_t l1, std::vector<Complex>& line, fft::FftWork& work, Run run) {
    fft::TransformLines(lines, scale, data.data(), l0, l1, line, [&](Complex* v) { run(*plan, v, work); });
  });
}

// RFFT's last axis (fft_core.h RealRows, RealFftPlan).
void ForwardRealAxis(const std::vector<Complex>& real, int64_t n, int64_t h, std::vector<Complex>& half) {
  const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(real.size()) / n;
  if (rows == 0 || h == 0) return;
  const std::shared_ptr<const fft::RealFftPlan> plan = fft::SharedRealPlan(n, -1);
  ForLines(plan->inner(), rows, [&](int64_t r0, int64_t r1, std::vector<Complex>& line, fft::FftWork& work, Run run) {
    fft::RealRows(real.data(), n, half.data(), h, r0, r1, line, [&](Complex* v) { plan->Forward(v, work, run); });
  });
}

// IRFFT's last axis (fft_core.h RealRows, RealFftPlan).
void InverseRealAxis(const std::vector<Complex>& half, int64_t h, int64_t n, std::vector<double>& real) {
  const int64_t rows = h == 0 ? 0 : static_cast<int64_t>(half.size()) / h;
  if (n <= 0 || rows == 0) return;
  const std::shared_ptr<const fft::RealFftPlan> plan = fft::SharedRealPlan(n, 1);
  ForLines(plan->inner(), rows, [&](int64_t r0, int64_t r1, std::vector<Complex>& line, fft::FftWork& work, Run run) {
    fft::RealRows(half.data(), h, real.data(), n, r0, r1, line, [&](Complex* v) { plan->Inverse(v, work, run); });
  });
}

// A transform of the last axis alone (fft_length of one entry, n >= 1): each line read from
// the operand, transformed (RFFT and IRFFT by fft_core.h RealFftPlan) and written to the
// result, with no copy of the whole array; the same values, in the same order of operations,
// as the interpreter.
void TransformLastAxis(const StridedArray& in, const StridedArray& out, int64_t fft_type) {
  const int64_t axis = out.rank() - 1, in_points = in.dim(axis), out_points = out.dim(axis);
  const int64_t n = fft_type == 3 ? out_points : in_points, lines = out.element_count() / out_points;
  const int sign = fft_type == 0 || fft_type == 2 ? -1 : 1;
  const double factor = 1.0 / static_cast<double>(n);
  std::shared_ptr<const fft::FftPlan> plan;
  std::shared_ptr<const fft::RealFftPlan> real;
  if (fft_type <= 1) {
    plan = fft::SharedPlan(n, sign);
  } else {
    real = fft::SharedRealPlan(n, sign);
  }
  const auto body = [&](int64_t l0, int64_t l1, std::vector<Complex>& line, fft::FftWork& work, Run run) {
    line.resize(static_cast<size_t>(std::max(n, in_points)));
    for (int64_t l = l0; l < l1; ++l) {
      in.LoadLine(in.RowStart(l), in.stride(axis), in_points, line.data());
      if (fft_type == 2) {
        real->Forward(line.data(), work, run);
      } else if (fft_type == 3) {
        real->Inverse(line.data(), work, run);
      } else {
        run(*plan, line.data(), work);
        for (int64_t k = 0; k < n && fft_type == 1; ++k) line[static_cast<size_t>(k)] *= factor;
      }
      out.StoreLine(out.RowStart(l), out.stride(axis), out_points, line.data());
    }
  };
  ForLines(plan ? *plan : real->inner(), lines, body);
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
  const int64_t last = static_cast<int64_t>(rank) - 1;
  if (fft_rank == 1 && output.dim(last) > 0 && input.dim(last) > 0) {
    xla::cpu::TransformLastAxis(input, output, fft_type);
    return;
  }
  std::vector<Complex> data = xla::cpu::ReadComplex(input);
  if (fft_type == 0 || fft_type == 1) {
    const std::vector<int64_t> dims = input.dims();
    for (size_t a = first_axis; a < rank; ++a) {
      xla::cpu::TransformAxis(data, dims, a, fft_type == 0 ? -1 : 1, fft_type == 1);
    }
    xla::cpu::Write(output, data);
    return;
  }
  if (fft_type == 2) {  // the last axis first, reals to half spectra, then the others (as the interpreter)
    const std::vector<int64_t> spectrum_dims = output.dims();
    std::vector<Complex> spectrum(output.element_count(), Complex(0, 0));
    xla::cpu::ForwardRealAxis(data, input.dim(last), output.dim(last), spectrum);
    for (size_t a = first_axis; a + 1 < rank; ++a) xla::cpu::TransformAxis(spectrum, spectrum_dims, a, -1, false);
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
