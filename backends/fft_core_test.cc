// backends/fft_core.h against a direct DFT in long double: every kind of plan (radix 4 and 2,
// 3, other small primes, mixed lengths, Bluestein's for large prime factors), both
// directions, a step's items run in any order giving the same bits, and interleaved lines
// transformed together giving each line's own bits.
#include "backends/fft_core.h"

#include <cmath>
#include <algorithm>
#include <complex>
#include <cstdint>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace xla {
namespace fft {
namespace {

std::vector<Complex> RandomLine(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Complex> v(static_cast<size_t>(n));
  for (Complex& z : v) z = Complex(u(rng), u(rng));
  return v;
}

// The largest |fft(v) - direct DFT(v)| over the outputs, relative to the largest |output|.
double RelativeError(const std::vector<Complex>& v, int sign) {
  const int64_t n = static_cast<int64_t>(v.size());
  std::vector<Complex> got = v;
  FftWork work;
  FftPlan(n, sign).Transform(got.data(), work);
  std::vector<std::complex<long double>> roots(static_cast<size_t>(n));
  for (int64_t t = 0; t < n; ++t) {
    const long double angle = sign * 2.0L * 3.14159265358979323846264338327950288L * static_cast<long double>(t) /
                              static_cast<long double>(n);
    roots[static_cast<size_t>(t)] = std::complex<long double>(std::cos(angle), std::sin(angle));
  }
  double worst = 0, scale = 1e-300;
  for (int64_t k = 0; k < n; ++k) {
    std::complex<long double> sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      sum += std::complex<long double>(v[j].real(), v[j].imag()) * roots[static_cast<size_t>((j * k) % n)];
    }
    const std::complex<long double> diff = std::complex<long double>(got[k].real(), got[k].imag()) - sum;
    worst = std::max(worst, static_cast<double>(std::abs(diff)));
    scale = std::max(scale, static_cast<double>(std::abs(sum)));
  }
  return worst / scale;
}

TEST(FftCore, EveryKindOfLengthMatchesTheDirectDft) {
  // 1, 2, 4 and 2^k (radix 4 with or without a 2), 3, 5, 7 and 6, 12, 45, 1000 (mixed), 29
  // (a prime done directly), 61, 101, 1009, 2 * 1009, 1021 * 3 (Bluestein's).
  for (int64_t n : {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 29, 32, 45, 61, 64, 101, 128, 1000, 1009, 1024, 2018, 3063}) {
    for (int sign : {-1, 1}) {
      const double error = RelativeError(RandomLine(n, static_cast<uint32_t>(n * 3 + sign)), sign);
      EXPECT_LT(error, 1e-14) << "n = " << n << ", sign = " << sign;
    }
  }
}

TEST(FftCore, PlansPickBluesteinOnlyForLargePrimeFactors) {
  // Bluestein's plan starts with the chirp product (kChirpIn over m >= 2n - 1 points).
  EXPECT_EQ(FftPlan(1000, -1).StepItems(0), 250);   // radix 4 first: 1000 / 4 butterflies
  EXPECT_EQ(FftPlan(29, -1).StepItems(0), 1);       // one 29-point butterfly
  EXPECT_EQ(FftPlan(61, -1).StepItems(0), 128);     // chirp over m = 128
  EXPECT_EQ(FftPlan(1009, -1).StepItems(0), 2048);  // chirp over m = 2048
  EXPECT_EQ(FftPlan(1, -1).steps(), 0);
  EXPECT_EQ(FftPlan(0, -1).steps(), 0);
}

// Items of every step run backwards and in two halves: the same bits as Transform.
TEST(FftCore, StepItemsInAnyOrderGiveTheSameBits) {
  for (int64_t n : {1024, 1000, 1009, 48}) {
    const FftPlan plan(n, -1);
    const std::vector<Complex> v = RandomLine(n, 7);
    std::vector<Complex> whole = v, pieces = v;
    FftWork work, other;
    plan.Transform(whole.data(), work);
    plan.Prepare(other);
    for (int s = 0; s < plan.steps(); ++s) {
      const int64_t items = plan.StepItems(s), half = items / 2;
      for (int64_t i = items; i > half; --i) plan.Step(s, pieces.data(), other, i - 1, i);
      plan.Step(s, pieces.data(), other, 0, half);
    }
    for (int64_t k = 0; k < n; ++k) {
      ASSERT_EQ(whole[k], pieces[k]) << "n = " << n << ", k = " << k;
    }
  }
}

// Lines interleaved point by point and transformed together (whole, and step by step with
// each step's items in two pieces run backwards): every line the bits it gets alone.
TEST(FftCore, InterleavedLinesGetTheirOwnBits) {
  // Radix 4 and 2; 4, 5 and 2; 4 and 3; 7 and 11 as direct butterflies; Bluestein's.
  for (int64_t n : {1024, 1000, 48, 231, 61, 1009}) {
    for (int sign : {-1, 1}) {
      const FftPlan plan(n, sign);
      for (int64_t batch : {3, 16}) {
        std::vector<std::vector<Complex>> alone;
        std::vector<Complex> together(static_cast<size_t>(n * batch)), stepped;
        FftWork work;
        for (int64_t b = 0; b < batch; ++b) {
          alone.push_back(RandomLine(n, static_cast<uint32_t>(100 * n + b)));
          for (int64_t k = 0; k < n; ++k) together[static_cast<size_t>(k * batch + b)] = alone.back()[k];
          plan.Transform(alone.back().data(), work);
        }
        stepped = together;
        plan.Transform(together.data(), work, batch);
        plan.Prepare(work, batch);
        for (int s = 0; s < plan.steps(); ++s) {
          const int64_t items = plan.StepItems(s) * batch, cut = items / 2 + 1;
          plan.Step(s, stepped.data(), work, cut, items, batch);
          plan.Step(s, stepped.data(), work, 0, cut, batch);
        }
        for (int64_t b = 0; b < batch; ++b) {
          for (int64_t k = 0; k < n; ++k) {
            ASSERT_EQ(together[static_cast<size_t>(k * batch + b)], alone[b][k])
                << "n = " << n << ", sign = " << sign << ", batch = " << batch << ", line " << b << ", point " << k;
            ASSERT_EQ(stepped[static_cast<size_t>(k * batch + b)], alone[b][k])
                << "stepped: n = " << n << ", sign = " << sign << ", batch = " << batch << ", line " << b;
          }
        }
      }
    }
  }
}

// TransformLines along a strided axis (blocks of neighbouring lines, fewer for long lines:
// 16 of 512 points, 6 of 10000, a last short block) gives each line's own transform.
TEST(FftCore, StridedAxisLinesMatchEachLineAlone) {
  for (const auto& [n, inner] : std::vector<std::pair<int64_t, int64_t>>{{512, 40}, {10000, 20}, {61, 3}}) {
    for (bool scale : {false, true}) {
      const AxisLines lines({2, n, inner}, 1);
      const std::vector<Complex> data = RandomLine(2 * n * inner, static_cast<uint32_t>(n + inner));
      std::vector<Complex> got = data, line;
      const FftPlan plan(n, scale ? 1 : -1);
      FftWork work;
      TransformLines(lines, scale, got.data(), 0, lines.count, line,
                     [&](Complex* v, int64_t batch) { plan.Transform(v, work, batch); });
      for (int64_t l = 0; l < lines.count; ++l) {
        std::vector<Complex> alone(static_cast<size_t>(n));
        for (int64_t k = 0; k < n; ++k) alone[k] = data[lines.First(l) + k * inner];
        plan.Transform(alone.data(), work);
        for (int64_t k = 0; k < n; ++k) {
          const Complex want = scale ? alone[k] * (1.0 / static_cast<double>(n)) : alone[k];
          ASSERT_EQ(got[lines.First(l) + k * inner], want) << "n = " << n << ", line " << l << ", point " << k;
        }
      }
    }
  }
}

TEST(FftCore, ForwardThenInverseIsNTimesTheLine) {
  for (int64_t n : {3000, 4096, 4099}) {
    const std::vector<Complex> v = RandomLine(n, 11);
    std::vector<Complex> round = v;
    FftWork work;
    FftPlan(n, -1).Transform(round.data(), work);
    FftPlan(n, 1).Transform(round.data(), work);
    for (int64_t k = 0; k < n; ++k) {
      EXPECT_NEAR(round[k].real() / n, v[k].real(), 1e-13);
      EXPECT_NEAR(round[k].imag() / n, v[k].imag(), 1e-13);
    }
  }
}

// RealFftPlan: RFFT against the complex transform of the same reals, IRFFT against the
// complex inverse of the Hermitian-rebuilt spectrum (imaginary parts of the DC and Nyquist
// terms ignored), for even lengths (half-size transform) and odd ones (full size).
TEST(FftCore, RealTransformsMatchTheComplexOnes) {
  for (int64_t n : {1, 2, 3, 4, 6, 7, 8, 10, 1000, 1009, 2018, 4096, 4099}) {
    const int64_t h = n / 2 + 1;
    std::vector<Complex> reals = RandomLine(n, static_cast<uint32_t>(n));
    for (Complex& z : reals) z = Complex(z.real(), 0);
    std::vector<Complex> full = reals, real = reals;
    real.resize(static_cast<size_t>(n + 1));
    FftWork work;
    FftPlan(n, -1).Transform(full.data(), work);
    RealFftPlan(n, -1).Forward(real.data(), work, RunPlan);
    double worst = 0, scale = 1e-300;
    for (int64_t k = 0; k < h; ++k) {
      worst = std::max(worst, std::abs(real[k] - full[k]));
      scale = std::max(scale, std::abs(full[k]));
    }
    EXPECT_LT(worst / scale, 1e-14) << "RFFT n = " << n;

    // IRFFT of a random half spectrum, with noise in the imaginary parts that must not count.
    std::vector<Complex> spectrum = RandomLine(h, static_cast<uint32_t>(n + 7));
    std::vector<Complex> rebuilt(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) rebuilt[k] = k < h ? spectrum[k] : std::conj(spectrum[n - k]);
    rebuilt[0] = Complex(rebuilt[0].real(), 0);
    if (n % 2 == 0) rebuilt[n / 2] = Complex(rebuilt[n / 2].real(), 0);
    FftPlan(n, 1).Transform(rebuilt.data(), work);
    std::vector<Complex> line(static_cast<size_t>(std::max(n, h)));
    std::copy(spectrum.begin(), spectrum.end(), line.begin());
    RealFftPlan(n, 1).Inverse(line.data(), work, RunPlan);
    worst = 0;
    for (int64_t k = 0; k < n; ++k) {
      worst = std::max(worst, std::abs(line[k].real() - rebuilt[k].real() / n));
      EXPECT_EQ(line[k].imag(), 0);
    }
    EXPECT_LT(worst, 1e-15) << "IRFFT n = " << n;
  }
}

// A length transformed again reuses its plan (per direction); the cache keeps what it returned
// alive for as long as a caller holds it.
TEST(FftCore, SharedPlansAreBuiltOncePerLengthAndDirection) {
  const std::shared_ptr<const FftPlan> forward = SharedPlan(1000, -1);
  EXPECT_EQ(forward.get(), SharedPlan(1000, -1).get());
  EXPECT_NE(forward.get(), SharedPlan(1000, 1).get());
  EXPECT_EQ(SharedPlan(1000, 1)->sign(), 1);
  EXPECT_EQ(forward->length(), 1000);
  std::vector<Complex> a = RandomLine(1000, 5), b = a;
  FftWork work;
  forward->Transform(a.data(), work);
  FftPlan(1000, -1).Transform(b.data(), work);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace fft
}  // namespace xla
