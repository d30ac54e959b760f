#ifndef XLA_BACKENDS_FFT_CORE_H_
#define XLA_BACKENDS_FFT_CORE_H_

// The one-dimensional transforms of the fft op in complex<double>, shared by the interpreter
// (backends/interpreter/ops_linalg_fft.cc) and the cpu runtime (backends/cpu/runtime/fft.cc) so
// that their results are the same bit for bit. Every length is O(n log n):
// - a length whose prime factors are small is a mixed-radix Stockham transform (self-sorting,
//   out of place between the line and one buffer): radix-4 stages, then 2, 3, 5 and any other
//   prime factor p (a direct p-point DFT per butterfly);
// - a length with a large prime factor is Bluestein's chirp-z transform: the DFT written as a
//   convolution with a chirp, computed by power-of-two transforms of m >= 2n - 1 points.
// A plan picks by an estimate of the arithmetic of each. Transforms are unscaled.
//
// A plan is a list of steps, each a set of independent items (a stage's butterflies, or the
// points of a chirp or filter product), so a caller may run a step's items in any order or in
// parallel (FftPlan::Step) without changing a bit. Twiddles are computed once per plan, each
// exactly as Twiddle gives it. A plan also transforms a batch of lines interleaved point by
// point (point k of line b at k * batch + b): a Stockham stage's butterflies at one twiddle
// then run over adjacent memory, and each line gets the same operations, so the same bits, as
// alone.

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <type_traits>
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

// a * b as the textbook formula (std::complex's product also checks for NaN results, to
// recover infinities, which costs a branch per product; an fft spreads NaNs regardless).
inline Complex Mul(Complex a, Complex b) {
  return Complex(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
}

// The buffers of one transform, reused from line to line (FftPlan::Prepare sizes them).
struct FftWork {
  std::vector<Complex> a, b;
};

// The transform of lines of n points in one direction (sign -1 forward, +1 inverse).
class FftPlan {
 public:
  FftPlan(int64_t n, int sign) : n_(n), sign_(sign) {
    if (n <= 1) return;
    std::vector<int64_t> radices = Radices(n);
    const int64_t m = BluesteinLength(n);
    if (MixedCost(n, radices) <= BluesteinCost(m)) {
      buffer_ = n;
      table_ = Table(n);
      if (AddStages(n, radices, sign, kLine, kBufferA) == kBufferA) steps_.push_back(Simple(kCopy, kBufferA, kLine, n));
      return;
    }
    BuildBluestein(m);
  }

  int64_t length() const { return n_; }
  int sign() const { return sign_; }
  // Bytes of the plan's tables.
  int64_t bytes() const {
    return static_cast<int64_t>((table_.size() + chirp_.size() + filter_.size()) * sizeof(Complex) +
                                steps_.size() * sizeof(StepSpec));
  }
  // About the complex multiply-adds of one transform, for sharing lines out.
  int64_t cost() const {
    int64_t total = 0;
    for (const StepSpec& step : steps_) total += step.items * (step.kind == kStage ? step.radix * Weight(step.radix) : 1);
    return total;
  }
  int steps() const { return static_cast<int>(steps_.size()); }
  int64_t StepItems(int s) const { return steps_[static_cast<size_t>(s)].items; }

  // Sizes `work` for batches of up to `batch` lines.
  void Prepare(FftWork& work, int64_t batch = 1) const {
    work.a.resize(static_cast<size_t>(buffer_ * batch));
    work.b.resize(static_cast<size_t>(buffer_ * batch));
  }
  // Items [i0, i1) of step s (of StepItems(s) * batch) on `batch` lines interleaved in
  // v[0, n * batch) and `work` (prepared for them).
  void Step(int s, Complex* v, FftWork& work, int64_t i0, int64_t i1, int64_t batch = 1) const {
    const StepSpec& step = steps_[static_cast<size_t>(s)];
    const Complex* src = Buffer(step.src, v, work);
    Complex* dst = Buffer(step.dst, v, work);
    switch (step.kind) {
      case kStage: Stage(step, src, dst, i0, i1, batch); return;
      case kCopy: std::copy(src + i0, src + i1, dst + i0); return;
      case kChirpIn:
        return Pointwise(i0, i1, batch, [&](int64_t i, int64_t k) {
          dst[i] = k < n_ ? Mul(src[i], chirp_[static_cast<size_t>(k)]) : Complex(0, 0);
        });
      case kFilter:
        return Pointwise(i0, i1, batch, [&](int64_t i, int64_t k) { dst[i] = Mul(src[i], filter_[static_cast<size_t>(k)]); });
      case kChirpOut:
        return Pointwise(i0, i1, batch, [&](int64_t i, int64_t k) { dst[i] = Mul(src[i], chirp_[static_cast<size_t>(k)]); });
    }
  }
  // The whole transform of `batch` lines interleaved in v[0, n * batch), in place.
  void Transform(Complex* v, FftWork& work, int64_t batch = 1) const {
    Prepare(work, batch);
    for (int s = 0; s < steps(); ++s) Step(s, v, work, 0, StepItems(s) * batch, batch);
  }

 private:
  enum Kind { kStage, kCopy, kChirpIn, kFilter, kChirpOut };
  enum BufferId { kLine, kBufferA, kBufferB };
  // A Stockham stage turns `span * radix`-point transforms at `stride` into `span`-point
  // ones at stride * radix: item (j, q) reads src[q + stride (j + r span)] for r < radix,
  // and writes its radix-point DFT, output k times W^(j k stride) (W = the table's root),
  // to dst[q + stride (radix j + k)].
  struct StepSpec {
    Kind kind;
    BufferId src, dst;
    int64_t items, radix = 0, span = 0, stride = 0;
    int sign = 0;
  };

  static StepSpec Simple(Kind kind, BufferId src, BufferId dst, int64_t items) { return StepSpec{kind, src, dst, items}; }

  // n's factors in stage order: 4s, then a 2, then the odd primes in increasing order.
  static std::vector<int64_t> Radices(int64_t n) {
    std::vector<int64_t> radices;
    for (; n % 4 == 0; n /= 4) radices.push_back(4);
    if (n % 2 == 0) {
      radices.push_back(2);
      n /= 2;
    }
    for (int64_t p = 3; p * p <= n; p += 2) {
      for (; n % p == 0; n /= p) radices.push_back(p);
    }
    if (n > 1) radices.push_back(n);
    return radices;
  }
  // Operations per point of a radix's butterfly, roughly (2 to 5 are written out).
  static int64_t Weight(int64_t radix) { return radix <= 5 ? 2 : radix; }
  static int64_t MixedCost(int64_t n, const std::vector<int64_t>& radices) {
    int64_t per_point = 0;
    for (int64_t p : radices) per_point += Weight(p);
    return n * per_point;
  }
  static int64_t BluesteinLength(int64_t n) {
    int64_t m = 1;
    while (m < 2 * n - 1) m *= 2;
    return m;
  }
  // Two power-of-two transforms of m points, and the three products.
  static int64_t BluesteinCost(int64_t m) { return 2 * MixedCost(m, Radices(m)) + 3 * m; }

  // Roots exp(-2 pi i t / n), t < n (a stage takes their conjugates when its sign is +1).
  static std::vector<Complex> Table(int64_t n) {
    std::vector<Complex> table(static_cast<size_t>(n));
    for (int64_t t = 0; t < n; ++t) table[static_cast<size_t>(t)] = Twiddle(t, n, -1);
    return table;
  }
  Complex Root(int64_t t, int sign) const {
    const Complex r = table_[static_cast<size_t>(t)];
    return sign < 0 ? r : std::conj(r);
  }

  // Appends the stages of an n-point transform from buffer `from`, alternating with `other`;
  // returns the buffer holding the result.
  BufferId AddStages(int64_t n, const std::vector<int64_t>& radices, int sign, BufferId from, BufferId other) {
    int64_t stride = 1;
    for (int64_t p : radices) {
      const int64_t span = n / (stride * p);
      steps_.push_back(StepSpec{kStage, from, other, n / p, p, span, stride, sign});
      std::swap(from, other);
      stride *= p;
    }
    return from;
  }

  // X_k = c_k sum_j (x_j c_j) conj(c_(k-j)) with the chirp c_t = exp(sign pi i t^2 / n): the
  // sum is a cyclic convolution of m points, by a forward transform, a product with the
  // chirp's own transform (filter_, scaled by 1 / m) and an inverse transform.
  void BuildBluestein(int64_t m) {
    buffer_ = m;
    table_ = Table(m);
    chirp_.resize(static_cast<size_t>(n_));
    for (int64_t t = 0; t < n_; ++t) {  // t^2 mod 2n, exactly
      const int64_t square = static_cast<int64_t>((static_cast<unsigned __int128>(t) * t) % (2 * static_cast<uint64_t>(n_)));
      chirp_[static_cast<size_t>(t)] = Twiddle(square, 2 * n_, sign_);
    }
    const std::vector<int64_t> radices = Radices(m);
    steps_.push_back(Simple(kChirpIn, kLine, kBufferA, m));
    const size_t forward = steps_.size();
    const BufferId spectrum = AddStages(m, radices, -1, kBufferA, kBufferB);
    const size_t forward_end = steps_.size();
    steps_.push_back(Simple(kFilter, spectrum, spectrum, m));
    const BufferId product = AddStages(m, radices, 1, spectrum, spectrum == kBufferA ? kBufferB : kBufferA);
    steps_.push_back(Simple(kChirpOut, product, kLine, n_));
    // The filter: the forward transform of conj(c_|t|) for |t| < n around 0 (cyclic).
    FftWork work;
    Prepare(work);
    std::fill(work.a.begin(), work.a.end(), Complex(0, 0));
    for (int64_t t = 0; t < n_; ++t) {
      work.a[static_cast<size_t>(t)] = std::conj(chirp_[static_cast<size_t>(t)]);
      if (t > 0) work.a[static_cast<size_t>(m - t)] = work.a[static_cast<size_t>(t)];
    }
    for (size_t s = forward; s < forward_end; ++s) Step(static_cast<int>(s), nullptr, work, 0, steps_[s].items);
    const std::vector<Complex>& result = spectrum == kBufferA ? work.a : work.b;
    filter_.resize(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) filter_[static_cast<size_t>(i)] = result[static_cast<size_t>(i)] / static_cast<double>(m);
  }

  static Complex* Buffer(BufferId id, Complex* v, FftWork& work) {
    return id == kLine ? v : id == kBufferA ? work.a.data() : work.b.data();
  }
  // body(i, k) for the interleaved positions i in [i0, i1), k = i / batch their point.
  template <typename Body>
  static void Pointwise(int64_t i0, int64_t i1, int64_t batch, Body&& body) {
    int64_t k = i0 / batch, b = i0 - k * batch;
    for (int64_t i = i0; i < i1; ++i) {
      body(i, k);
      if (++b == batch) b = 0, ++k;
    }
  }

  // Items [i0, i1) of a stage: item (j, q) is j * stride * batch + q. Interleaved lines are a
  // stage of stride * batch whose twiddles are those of the line's stride.
  void Stage(const StepSpec& st, const Complex* x, Complex* y, int64_t i0, int64_t i1, int64_t batch) const {
    switch (st.radix) {
      case 2: return RadixStage<2>(st, x, y, i0, i1, batch);
      case 3: return RadixStage<3>(st, x, y, i0, i1, batch);
      case 4: return RadixStage<4>(st, x, y, i0, i1, batch);
      case 5: return RadixStage<5>(st, x, y, i0, i1, batch);
      default: return GenericStage(st, x, y, i0, i1, batch);
    }
  }

  // One butterfly of radix P (2 to 5, written out; direction sign): the P-point DFT of
  // in[r gap], output k times w[k] (when kTwiddled; k >= 1) to out[k out_gap].
  template <int P, bool kTwiddled>
  static inline __attribute__((always_inline)) void Butterfly(const Complex* in, int64_t gap, Complex* out,
                                                              int64_t out_gap, const Complex* w, double sign) {
    const auto times_i = [](Complex z, double by) { return Complex(-by * z.imag(), by * z.real()); };  // i by z
    const auto put = [&](int k, Complex v) { out[k * out_gap] = kTwiddled ? Mul(v, w[k]) : v; };
    if constexpr (P == 2) {
      const Complex a0 = in[0], a1 = in[gap];
      out[0] = a0 + a1;
      put(1, a0 - a1);
    } else if constexpr (P == 3) {
      const Complex a0 = in[0], a1 = in[gap], a2 = in[2 * gap];
      const Complex t = a1 + a2, base = a0 - 0.5 * t;
      const Complex rotated = times_i(a1 - a2, sign * 0.8660254037844386);  // sign i sqrt(3) / 2 (a1 - a2)
      out[0] = a0 + t;
      put(1, base + rotated);
      put(2, base - rotated);
    } else if constexpr (P == 4) {
      const Complex a0 = in[0], a1 = in[gap], a2 = in[2 * gap], a3 = in[3 * gap];
      const Complex e = a0 + a2, f = a0 - a2, g = a1 + a3, rotated = times_i(a1 - a3, sign);
      out[0] = e + g;
      put(1, f + rotated);
      put(2, e - g);
      put(3, f - rotated);
    } else {
      static_assert(P == 5);
      constexpr double kCos1 = 0.30901699437494745, kCos2 = -0.8090169943749475;  // cos(2 pi / 5), cos(4 pi / 5)
      constexpr double kSin1 = 0.9510565162951535, kSin2 = 0.5877852522924731;    // sin(2 pi / 5), sin(4 pi / 5)
      const Complex a0 = in[0], a1 = in[gap], a2 = in[2 * gap], a3 = in[3 * gap], a4 = in[4 * gap];
      const Complex t1 = a1 + a4, t2 = a2 + a3, d1 = a1 - a4, d2 = a2 - a3;
      const Complex base1 = a0 + kCos1 * t1 + kCos2 * t2, base2 = a0 + kCos2 * t1 + kCos1 * t2;
      const Complex r1 = times_i(kSin1 * d1 + kSin2 * d2, sign), r2 = times_i(kSin2 * d1 - kSin1 * d2, sign);
      out[0] = a0 + t1 + t2;
      put(1, base1 + r1);
      put(2, base2 + r2);
      put(3, base2 - r2);
      put(4, base1 - r1);
    }
  }

  // A stage of radix P (2 to 5): twiddles once per j, then its butterflies for every q.
  template <int P>
  void RadixStage(const StepSpec& st, const Complex* x, Complex* y, int64_t i0, int64_t i1, int64_t batch) const {
    const int64_t s = st.stride * batch, gap = s * st.span;
    const double sign = st.sign;
    Complex w[P];
    int64_t j = i0 / s, q = i0 - j * s;
    for (int64_t item = i0; item < i1; ++j, q = 0) {
      const int64_t q1 = std::min(s, q + (i1 - item));
      item += q1 - q;
      const Complex* in = x + s * j;  // butterfly q: in[q + r gap]
      Complex* out = y + s * P * j;   // out[q + k s]
      if (j == 0) {  // twiddles of 1
        for (; q < q1; ++q) Butterfly<P, false>(in + q, gap, out + q, s, w, sign);
        continue;
      }
      for (int k = 1; k < P; ++k) w[k] = Root(j * k * st.stride, st.sign);
      for (; q < q1; ++q) Butterfly<P, true>(in + q, gap, out + q, s, w, sign);
    }
  }

  // A stage of any other prime radix p: each butterfly a direct p-point DFT.
  void GenericStage(const StepSpec& st, const Complex* x, Complex* y, int64_t i0, int64_t i1, int64_t batch) const {
    const int64_t p = st.radix, s = st.stride * batch, m = st.span, root_step = static_cast<int64_t>(table_.size()) / p;
    std::vector<Complex> a(static_cast<size_t>(p)), w(static_cast<size_t>(p));
    int64_t j = i0 / s, q = i0 - j * s;
    for (int64_t item = i0; item < i1; ++j, q = 0) {
      const int64_t q1 = std::min(s, q + (i1 - item));
      item += q1 - q;
      for (int64_t k = 1; k < p && j > 0; ++k) w[static_cast<size_t>(k)] = Root(j * k * st.stride, st.sign);
      for (; q < q1; ++q) {
        for (int64_t r = 0; r < p; ++r) a[static_cast<size_t>(r)] = x[q + s * (j + r * m)];
        for (int64_t k = 0; k < p; ++k) {
          Complex sum = a[0];
          for (int64_t r = 1, at = k; r < p; ++r) {  // at = r k mod p
            sum += Mul(a[static_cast<size_t>(r)], Root(at * root_step, st.sign));
            at += k;
            if (at >= p) at -= p;
          }
          y[q + s * (p * j + k)] = j == 0 || k == 0 ? sum : Mul(sum, w[static_cast<size_t>(k)]);
        }
      }
    }
  }

  int64_t n_;
  int sign_;
  int64_t buffer_ = 0;  // points in each of FftWork's buffers
  std::vector<StepSpec> steps_;
  std::vector<Complex> table_, chirp_, filter_;
};

// Plans shared by (n, sign): building one costs a cos and a sin per point (and, for
// Bluestein's, a transform of the chirp), about as much as transforming a line, so a length
// transformed again (the next line of an array, the next execution) reuses it. The most
// recently used plans of each kind are kept, up to kPlanCacheBytes of tables in all.
inline constexpr int64_t kPlanCacheBytes = int64_t{128} << 20;
template <typename Plan>
std::shared_ptr<const Plan> Shared(int64_t n, int sign) {
  static std::mutex mu;
  static auto* plans = new std::list<std::shared_ptr<const Plan>>();
  static int64_t bytes = 0;
  const int direction = sign < 0 ? -1 : 1;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (auto it = plans->begin(); it != plans->end(); ++it) {
      if ((*it)->length() == n && (*it)->sign() == direction) {
        plans->splice(plans->begin(), *plans, it);  // most recently used first
        return plans->front();
      }
    }
  }
  auto plan = std::make_shared<const Plan>(n, direction);  // built outside the lock
  if (plan->bytes() > kPlanCacheBytes) return plan;
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& cached : *plans) {
    if (cached->length() == n && cached->sign() == direction) return cached;  // built meanwhile
  }
  plans->push_front(plan);
  bytes += plan->bytes();
  while (bytes > kPlanCacheBytes) {
    bytes -= plans->back()->bytes();
    plans->pop_back();
  }
  return plan;
}
inline std::shared_ptr<const FftPlan> SharedPlan(int64_t n, int sign) { return Shared<FftPlan>(n, sign); }

// Real transforms of n points: RFFT (sign -1: n reals to the n / 2 + 1 spectrum values) and
// IRFFT's last axis (sign +1: the half spectrum to n reals, scaled by 1 / n). An even n goes
// through a complex transform of n / 2 points (the even and odd samples packed as real and
// imaginary parts, then separated by the spectrum's symmetry and joined by W_n^k), half the
// work of a complex transform of n points; an odd n through the n-point transform (IRFFT
// rebuilding the spectrum by Hermitian symmetry, X[n - k] = conj(X[k])). As for the complex
// transform, the imaginary parts of IRFFT's DC and Nyquist terms do not contribute.
class RealFftPlan {
 public:
  RealFftPlan(int64_t n, int sign)
      : n_(n), sign_(sign < 0 ? -1 : 1), half_(n % 2 == 0 ? n / 2 : 0),
        plan_(SharedPlan(half_ > 0 ? half_ : n, sign_)) {
    twiddles_.resize(static_cast<size_t>(half_ + 1));
    for (int64_t k = 0; k <= half_ && half_ > 0; ++k) twiddles_[static_cast<size_t>(k)] = Twiddle(k, n, -1);
  }
  int64_t length() const { return n_; }
  int sign() const { return sign_; }
  // Counts the inner plan too: the complex cache may evict it while this plan keeps it alive.
  int64_t bytes() const { return plan_->bytes() + static_cast<int64_t>(twiddles_.size() * sizeof(Complex)); }
  // The complex transform inside (n / 2 or n points), for callers that split it.
  const FftPlan& inner() const { return *plan_; }

  // RFFT: line[0, n) holds the reals (as real parts); leaves the spectrum in line[0, n / 2].
  // run(plan, v, work, 1) transforms v by plan (plan.Transform(v, work), or the caller's split).
  template <typename Run>
  void Forward(Complex* line, FftWork& work, Run&& run) const {
    if (half_ == 0) return run(*plan_, line, work, 1);
    const int64_t h = half_;
    for (int64_t j = 0; j < h; ++j) line[j] = Complex(line[2 * j].real(), line[2 * j + 1].real());
    run(*plan_, line, work, 1);  // Z: the even samples' transform E = (Z[k] + conj Z[h-k]) / 2, the odd O = (...) / 2i
    const Complex z0 = line[0];
    line[0] = Complex(z0.real() + z0.imag(), 0);
    line[h] = Complex(z0.real() - z0.imag(), 0);
    for (int64_t k = 1; k <= h - k; ++k) {  // X[k] = E[k] + W_n^k O[k], k and h - k from the same pair
      const Complex a = line[k], b = line[h - k];
      line[k] = Separate(a, b, k);
      line[h - k] = Separate(b, a, h - k);
    }
  }
  // IRFFT: line[0, n / 2] holds the half spectrum; leaves the n reals / n in line[0, n).
  template <typename Run>
  void Inverse(Complex* line, FftWork& work, Run&& run) const {
    const double scale = static_cast<double>(n_);
    if (half_ == 0) {
      const int64_t h = n_ / 2 + 1;
      for (int64_t k = h; k < n_; ++k) line[k] = std::conj(line[n_ - k]);
      run(*plan_, line, work, 1);
      for (int64_t k = 0; k < n_; ++k) line[k] = Complex(line[k].real() / scale, 0);
      return;
    }
    const int64_t h = half_;
    const double x0 = line[0].real(), xh = line[h].real();
    line[0] = Complex(x0 + xh, x0 - xh);
    for (int64_t k = 1; k <= h - k; ++k) {
      const Complex a = line[k], b = line[h - k];
      line[k] = Pack(a, b, k);
      line[h - k] = Pack(b, a, h - k);
    }
    run(*plan_, line, work, 1);  // the even outputs in the real parts, the odd ones in the imaginary parts
    for (int64_t j = h - 1; j >= 0; --j) {
      const Complex z = line[j];
      line[2 * j + 1] = Complex(z.imag() / scale, 0);
      line[2 * j] = Complex(z.real() / scale, 0);
    }
  }

 private:
  // X[k] from a = Z[k] and b = Z[h - k]: (a + conj b) / 2 + W_n^k (a - conj b) / 2i.
  Complex Separate(Complex a, Complex b, int64_t k) const {
    const Complex even = 0.5 * (a + std::conj(b)), d = a - std::conj(b);
    return even + Mul(twiddles_[static_cast<size_t>(k)], Complex(0.5 * d.imag(), -0.5 * d.real()));
  }
  // Z[k] from a = X[k] and b = X[h - k]: (a + conj b) + i (a - conj b) W_n^-k.
  Complex Pack(Complex a, Complex b, int64_t k) const {
    const Complex odd = Mul(a - std::conj(b), std::conj(twiddles_[static_cast<size_t>(k)]));
    return a + std::conj(b) + Complex(-odd.imag(), odd.real());
  }

  int64_t n_;
  int sign_;
  int64_t half_;  // n / 2 for even n, else 0
  std::shared_ptr<const FftPlan> plan_;
  std::vector<Complex> twiddles_;  // W_n^k = exp(-2 pi i k / n), k <= n / 2
};

inline std::shared_ptr<const RealFftPlan> SharedRealPlan(int64_t n, int sign) { return Shared<RealFftPlan>(n, sign); }

// Runs a plan's whole transform of `batch` interleaved lines (RealFftPlan's `run` argument, here).
inline void RunPlan(const FftPlan& plan, Complex* v, FftWork& work, int64_t batch) { plan.Transform(v, work, batch); }

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

// Transforms lines [l0, l1) of `data` in place, scaled by 1 / n when `scale`, through
// transform(pointer, batch) (FftPlan's Transform of `batch` interleaved lines, or the caller's
// split of it). Contiguous lines (inner 1) are transformed where they are, one at a time;
// lines `inner` apart are neighbours a block at a time, copied as they lie (point k of each
// next to each other) to `line` (the caller's buffer), transformed there together and copied
// back.
template <typename Transform>
void TransformLines(const AxisLines& lines, bool scale, Complex* data, int64_t l0, int64_t l1,
                    std::vector<Complex>& line, Transform&& transform) {
  // Up to 16 lines, and up to 2^16 points in all: a batch's line and work buffers hold n *
  // block points each, so long lines go fewer at a time (one from 2^16 points).
  constexpr int64_t kMostLines = 16, kMostPoints = int64_t{1} << 16;
  const int64_t n = lines.n, inner = lines.inner;
  const int64_t block = std::clamp<int64_t>(kMostPoints / std::max<int64_t>(n, 1), 1, kMostLines);
  const double factor = 1.0 / static_cast<double>(n);
  if (inner == 1) {  // contiguous lines: transformed where they are
    for (int64_t l = l0; l < l1; ++l) {
      Complex* at = data + l * n;
      transform(at, 1);
      for (int64_t k = 0; k < n && scale; ++k) at[k] *= factor;
    }
    return;
  }
  line.resize(static_cast<size_t>(n * std::min(block, inner)));
  for (int64_t l = l0; l < l1;) {
    // Neighbours l, l + 1, ... share their outer index: first(l + b) = first(l) + b.
    const int64_t count = std::min({l1 - l, block, inner - l % inner});
    Complex* at = data + lines.First(l);
    for (int64_t k = 0; k < n; ++k) std::copy(at + k * inner, at + k * inner + count, line.begin() + k * count);
    transform(line.data(), count);
    for (int64_t k = 0; k < n; ++k) {
      for (int64_t b = 0; b < count; ++b) {
        const Complex v = line[static_cast<size_t>(k * count + b)];
        at[k * inner + b] = scale ? v * factor : v;
      }
    }
    l += count;
  }
}

// The last axis of RFFT and IRFFT, row by row: rows [r0, r1) of `in` (rows of in_points)
// copied to `line`, transformed there by transform(line.data()) (RealFftPlan::Forward: n
// reals as real parts to the half spectrum; RealFftPlan::Inverse: the half spectrum to n
// reals) and written to out[r * out_points, (r + 1) * out_points) (double: the real parts).
template <typename Out, typename Transform>
void RealRows(const Complex* in, int64_t in_points, Out* out, int64_t out_points, int64_t r0, int64_t r1,
              std::vector<Complex>& line, Transform&& transform) {
  line.resize(static_cast<size_t>(std::max(in_points, out_points)));
  for (int64_t r = r0; r < r1; ++r) {
    std::copy(in + r * in_points, in + (r + 1) * in_points, line.begin());
    transform(line.data());
    for (int64_t k = 0; k < out_points; ++k) {
      const Complex v = line[static_cast<size_t>(k)];
      if constexpr (std::is_same_v<Out, double>) {
        out[r * out_points + k] = v.real();
      } else {
        out[r * out_points + k] = v;
      }
    }
  }
}

}  // namespace fft
}  // namespace xla

#endif  // XLA_BACKENDS_FFT_CORE_H_
