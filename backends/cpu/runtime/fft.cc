// __xla_cpu_fft: FFT, IFFT, RFFT and IRFFT over the last fft_rank dimensions, computed in
// complex<double> and rounded once, by the interpreter's own transforms (backends/fft_core.h:
// mixed-radix Stockham stages, or Bluestein's chirp-z for a length with a large prime factor),
// so results are bit-exact with it (backends/interpreter/ops_linalg_fft.cc). Inverse transforms
// scale by 1/N per axis; IRFFT rebuilds the last axis by Hermitian symmetry and keeps real
// parts. Lines are shared out over the runtime's threads; fewer lines than threads, when long
// (runtime.h SplitLines), are each split instead: each step of the plan (a stage's butterflies,
// a chirp's products) over the threads, which changes no bit since each item is computed on
// its own. A multi-axis transform goes slab by slab (the transformed dimensions of one index
// of the others), whole slabs over the threads when there are enough of them.
#include <algorithm>
#include <complex>
#include <memory>
#include <mutex>
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
void TransformSplit(const fft::FftPlan& plan, Complex* v, fft::FftWork& work, int64_t batch) {
  plan.Prepare(work, batch);
  for (int s = 0; s < plan.steps(); ++s) {
    ParallelRanges(plan.StepItems(s) * batch, 8, [&](int64_t i0, int64_t i1) { plan.Step(s, v, work, i0, i1, batch); });
  }
}

// How `batch` interleaved lines are transformed by a plan: here (fft::RunPlan) or split over
// the threads.
using Run = void (*)(const fft::FftPlan&, Complex*, fft::FftWork&, int64_t);

// Buffers kept from call to call, so that their pages are not faulted in (and zeroed) again:
// for a 2048 x 2048 transform that was a third of its time.
struct Buffers {
  std::vector<Complex> data, spectrum, line;
  std::vector<double> real;
  fft::FftWork work;
  int64_t bytes() const {
    const size_t points = data.capacity() + spectrum.capacity() + line.capacity() + work.a.capacity() + work.b.capacity();
    return static_cast<int64_t>(points * sizeof(Complex) + real.capacity() * sizeof(double));
  }
  void Trim(int64_t limit) {
    if (bytes() > limit) *this = Buffers();
  }
};

// A thread's own buffers, for work on that thread alone (kept up to 8 MiB after each use).
constexpr int64_t kThreadKeptBytes = int64_t{8} << 20;
Buffers& ThreadBuffers() {
  static thread_local Buffers buffers;
  return buffers;
}

// The buffers of a call whose work goes over all the threads: one shared set, kept up to
// 256 MiB, that one call holds at a time (a call that finds it held gets fresh ones).
class CallBuffers {
 public:
  CallBuffers() : lock_(Mutex(), std::try_to_lock) {}
  ~CallBuffers() { get().Trim(int64_t{256} << 20); }
  CallBuffers(const CallBuffers&) = delete;
  CallBuffers& operator=(const CallBuffers&) = delete;
  Buffers& get() { return lock_.owns_lock() ? Shared() : own_; }

 private:
  static std::mutex& Mutex() {
    static std::mutex* mu = new std::mutex();
    return *mu;
  }
  static Buffers& Shared() {
    static Buffers* buffers = new Buffers();
    return *buffers;
  }
  std::unique_lock<std::mutex> lock_;
  Buffers own_;
};

// body(l0, l1, line, work, run) for ranges of `count` lines whose transforms are by `plan`
// (or contain it: a real transform's inner one), with `line` and `work` buffers: ranges over
// the threads, each line's transform on one (its thread's buffers); or, for a few long
// lines, all of them here, each transform split over the threads; or, unless `parallel`, all
// of them here on this thread. `buffers`: the caller's, for the last two.
template <typename Body>
void ForLines(const fft::FftPlan& plan, int64_t count, bool parallel, Buffers& buffers, Body&& body) {
  if (!parallel || SplitsLines(plan, count)) {
    body(0, count, buffers.line, buffers.work, parallel ? Run{TransformSplit} : Run{fft::RunPlan});
    return;
  }
  ParallelRanges(count, plan.cost(), [&](int64_t l0, int64_t l1) {
    Buffers& own = ThreadBuffers();
    body(l0, l1, own.line, own.work, Run{fft::RunPlan});
    own.Trim(kThreadKeptBytes);
  });
}

// Transforms every line of row-major `data` with dimensions `dims` along `axis`.
void TransformAxis(std::vector<Complex>& data, const std::vector<int64_t>& dims, size_t axis, int sign, bool scale,
                   bool parallel, Buffers& buffers) {
  const fft::AxisLines lines(dims, axis);
  if (lines.count == 0 || data.empty()) return;
  const std::shared_ptr<const fft::FftPlan> plan = fft::SharedPlan(lines.n, sign);
  ForLines(*plan, lines.count, parallel, buffers,
           [&](int64_t l0, int64_t l1, std::vector<Complex>& line, fft::FftWork& work, Run run) {
             fft::TransformLines(lines, scale, data.data(), l0, l1, line,
                                 [&](Complex* v, int64_t batch) { run(*plan, v, work, batch); });
           });
}

// RFFT's last axis (fft_core.h RealRows, RealFftPlan).
void ForwardRealAxis(const std::vector<Complex>& real, int64_t n, int64_t h, std::vector<Complex>& half, bool parallel,
                     Buffers& buffers) {
  const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(real.size()) / n;
  if (rows == 0 || h == 0) return;
  const std::shared_ptr<const fft::RealFftPlan> plan = fft::SharedRealPlan(n, -1);
  ForLines(plan->inner(), rows, parallel, buffers,
           [&](int64_t r0, int64_t r1, std::vector<Complex>& line, fft::FftWork& work, Run run) {
             fft::RealRows(real.data(), n, half.data(), h, r0, r1, line, [&](Complex* v) { plan->Forward(v, work, run); });
           });
}

// IRFFT's last axis (fft_core.h RealRows, RealFftPlan).
void InverseRealAxis(const std::vector<Complex>& half, int64_t h, int64_t n, std::vector<double>& real, bool parallel,
                     Buffers& buffers) {
  const int64_t rows = h == 0 ? 0 : static_cast<int64_t>(half.size()) / h;
  if (n <= 0 || rows == 0) return;
  const std::shared_ptr<const fft::RealFftPlan> plan = fft::SharedRealPlan(n, 1);
  ForLines(plan->inner(), rows, parallel, buffers,
           [&](int64_t r0, int64_t r1, std::vector<Complex>& line, fft::FftWork& work, Run run) {
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
        run(*plan, line.data(), work, 1);
        for (int64_t k = 0; k < n && fft_type == 1; ++k) line[static_cast<size_t>(k)] *= factor;
      }
      out.StoreLine(out.RowStart(l), out.stride(axis), out_points, line.data());
    }
  };
  CallBuffers buffers;
  ForLines(plan ? *plan : real->inner(), lines, true, buffers.get(), body);
}

// FFT, IFFT, RFFT or IRFFT over every dimension of `in` (a slab of the operand) into `out`,
// computed in `buffers` as the interpreter does (axis after axis, the last one first for
// RFFT and last for IRFFT), each axis's lines over the threads when `parallel`.
void TransformSlab(const StridedArray& in, const StridedArray& out, int64_t fft_type, bool parallel, Buffers& buffers) {
  const size_t rank = static_cast<size_t>(in.rank()), last = rank - 1;
  std::vector<Complex>& data = buffers.data;
  Read(in, data, parallel);
  if (fft_type == 0 || fft_type == 1) {
    const std::vector<int64_t> dims = in.dims();
    for (size_t a = 0; a < rank; ++a) {
      TransformAxis(data, dims, a, fft_type == 0 ? -1 : 1, fft_type == 1, parallel, buffers);
    }
    Write(out, data, parallel);
    return;
  }
  // The last axis's rows fill the spectrum (or the reals) whole: an operand with no elements
  // has a result with none (the verifier's shapes), so no zero fill first.
  if (fft_type == 2) {  // reals to half spectra along the last axis, then the others
    const std::vector<int64_t> spectrum_dims = out.dims();
    buffers.spectrum.resize(static_cast<size_t>(out.element_count()));
    ForwardRealAxis(data, in.dim(last), out.dim(last), buffers.spectrum, parallel, buffers);
    for (size_t a = 0; a < last; ++a) TransformAxis(buffers.spectrum, spectrum_dims, a, -1, false, parallel, buffers);
    Write(out, buffers.spectrum, parallel);
    return;
  }
  // IRFFT: inverse over the other axes of the half spectrum, then each row of the last axis
  // rebuilt to full length and transformed back to reals.
  const std::vector<int64_t> half = in.dims();
  for (size_t a = 0; a < last; ++a) TransformAxis(data, half, a, 1, true, parallel, buffers);
  buffers.real.resize(static_cast<size_t>(out.element_count()));
  InverseRealAxis(data, half[last], out.dim(last), buffers.real, parallel, buffers);
  Write(out, buffers.real, parallel);
}

// The slabs of an array over its first `axes` dimensions, each a strided array of the others.
class Slabs {
 public:
  Slabs(const StridedArray& a, int64_t axes) : a_(a), axes_(axes) {
    descriptor_ = {a.type(), a.rank() - axes};
    for (int64_t d = axes; d < a.rank(); ++d) descriptor_.push_back(a.dim(d));
    for (int64_t d = axes; d < a.rank(); ++d) descriptor_.push_back(a.stride(d));
    for (int64_t d = 0; d < axes; ++d) count_ *= a.dim(d);
  }
  int64_t count() const { return count_; }
  StridedArray operator[](int64_t s) const { return StridedArray(a_.address(a_.OuterStart(s, axes_)), descriptor_.data()); }

 private:
  const StridedArray& a_;
  int64_t axes_, count_ = 1;
  std::vector<int64_t> descriptor_;
};

// A transform over the last `fft_rank` dimensions is one per slab of the others: with slabs
// enough to share evenly, whole slabs go over the threads, each transformed on one in its
// thread's buffers (a slab is often small enough to stay in cache from axis to axis);
// otherwise slab after slab, each axis's lines over the threads.
void TransformSlabs(const StridedArray& in, const StridedArray& out, int64_t fft_type, int64_t fft_rank) {
  const Slabs in_slabs(in, in.rank() - fft_rank), out_slabs(out, out.rank() - fft_rank);
  const int64_t slabs = in_slabs.count(), threads = RuntimeThreadCount();
  if (threads > 1 && slabs >= threads && (slabs % threads == 0 || slabs >= 4 * threads)) {
    const int64_t points = std::max(in.element_count(), out.element_count()) / std::max<int64_t>(slabs, 1);
    ParallelRanges(slabs, 64 * points, [&](int64_t s0, int64_t s1) {
      Buffers& buffers = ThreadBuffers();
      for (int64_t s = s0; s < s1; ++s) TransformSlab(in_slabs[s], out_slabs[s], fft_type, false, buffers);
      buffers.Trim(kThreadKeptBytes);
    });
    return;
  }
  CallBuffers buffers;
  for (int64_t s = 0; s < slabs; ++s) TransformSlab(in_slabs[s], out_slabs[s], fft_type, true, buffers.get());
}

}  // namespace
}  // namespace cpu
}  // namespace xla

// fft_type: 0 FFT, 1 IFFT, 2 RFFT, 3 IRFFT (xla::FftType). Shapes were checked when compiling.
static void Fft(void* in, const int64_t* in_descriptor, void* out, const int64_t* out_descriptor,
                int64_t fft_type, int64_t fft_rank) {
  const xla::cpu::StridedArray input(in, in_descriptor), output(out, out_descriptor);
  const int64_t last = input.rank() - 1;
  if (fft_rank == 1 && output.dim(last) > 0 && input.dim(last) > 0) {
    xla::cpu::TransformLastAxis(input, output, fft_type);
    return;
  }
  xla::cpu::TransformSlabs(input, output, fft_type, fft_rank);
}

extern "C" void __xla_cpu_fft(void* in, const int64_t* in_descriptor, void* out, const int64_t* out_descriptor,
                              int64_t fft_type, int64_t fft_rank) {
  xla::cpu::RunRoutine("fft", [&] { Fft(in, in_descriptor, out, out_descriptor, fft_type, fft_rank); });
}
