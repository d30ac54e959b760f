// fft through the Backend interface: known DFT values and round trips.
#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;
using testing::LiteralNear;
using testing::RunHlo;

// Complex literal text where a bare real number x stands for (x, 0).
Literal CL(const std::string& text) {
  const size_t start = text.find(' ');
  std::string out = text.substr(0, start);
  int depth = 0;
  for (size_t i = start; i < text.size();) {
    const char c = text[i];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.' ||
                       std::isalpha(static_cast<unsigned char>(c)))) {
      size_t j = i;
      while (j < text.size() && text[j] != ',' && text[j] != '}' && text[j] != ' ') ++j;
      out += "(" + text.substr(i, j - i) + ", 0)";
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return L(out);
}

std::string FftModule(const std::string& in, const std::string& out, const std::string& attrs) {
  return "HloModule m\nENTRY main {\n  a = " + in + " parameter(0)\n  ROOT f = " + out + " fft(a), " + attrs + "\n}";
}

TEST(InterpreterFftTest, ForwardPowerOfTwo) {
  auto hlo = FftModule("c64[4]", "c64[4]", "fft_type=FFT, fft_length={4}");
  EXPECT_TRUE(LiteralEqual(CL("c64[4] {(10, 0), (-2, 2), (-2, 0), (-2, -2)}"), RunHlo(hlo, {CL("c64[4] {1, 2, 3, 4}")})));
}

TEST(InterpreterFftTest, InverseScalesByOneOverN) {
  auto hlo = FftModule("c64[4]", "c64[4]", "fft_type=IFFT, fft_length={4}");
  EXPECT_TRUE(LiteralEqual(CL("c64[4] {1, 2, 3, 4}"), RunHlo(hlo, {CL("c64[4] {(10, 0), (-2, 2), (-2, 0), (-2, -2)}")})));
}

TEST(InterpreterFftTest, NonPowerOfTwo) {
  auto hlo = FftModule("c128[3]", "c128[3]", "fft_type=FFT, fft_length={3}");
  EXPECT_TRUE(LiteralNear(CL("c128[3] {3, 0, 0}"), RunHlo(hlo, {CL("c128[3] {1, 1, 1}")}), 1e-15, 1e-15));
  EXPECT_TRUE(LiteralNear(CL("c128[3] {(1, 0), (-0.5, -0.8660254037844386), (-0.5, 0.8660254037844386)}"),
                          RunHlo(hlo, {CL("c128[3] {0, 1, 0}")}), 1e-15, 1e-15));
}

TEST(InterpreterFftTest, TwoAndThreeDimensional) {
  auto hlo = FftModule("c64[2,2]", "c64[2,2]", "fft_type=FFT, fft_length={2,2}");
  EXPECT_TRUE(LiteralEqual(CL("c64[2,2] {{10, -2}, {-4, 0}}"), RunHlo(hlo, {CL("c64[2,2] {{1, 2}, {3, 4}}")})));
  auto hlo3 = FftModule("c64[2,2,2]", "c64[2,2,2]", "fft_type=FFT, fft_length={2,2,2}");
  EXPECT_TRUE(LiteralEqual(CL("c64[2,2,2] {{{8, 0}, {0, 0}}, {{0, 0}, {0, 0}}}"),
                           RunHlo(hlo3, {CL("c64[2,2,2] {{{1, 1}, {1, 1}}, {{1, 1}, {1, 1}}}")})));
}

TEST(InterpreterFftTest, BatchedOverLeadingDims) {
  auto hlo = FftModule("c64[2,2]", "c64[2,2]", "fft_type=FFT, fft_length={2}");
  EXPECT_TRUE(LiteralEqual(CL("c64[2,2] {{3, -1}, {7, -1}}"), RunHlo(hlo, {CL("c64[2,2] {{1, 2}, {3, 4}}")})));
}

TEST(InterpreterFftTest, RealForward) {
  auto hlo = FftModule("f32[4]", "c64[3]", "fft_type=RFFT, fft_length={4}");
  EXPECT_TRUE(LiteralEqual(CL("c64[3] {(10, 0), (-2, 2), (-2, 0)}"), RunHlo(hlo, {L("f32[4] {1, 2, 3, 4}")})));
  auto odd = FftModule("f64[3]", "c128[2]", "fft_type=RFFT, fft_length={3}");
  EXPECT_TRUE(LiteralNear(CL("c128[2] {(6, 0), (-1.5, 0.8660254037844386)}"), RunHlo(odd, {L("f64[3] {1, 2, 3}")}),
                          1e-15, 1e-15));
}

TEST(InterpreterFftTest, RealInverse) {
  auto hlo = FftModule("c64[3]", "f32[4]", "fft_type=IRFFT, fft_length={4}");
  EXPECT_TRUE(LiteralEqual(L("f32[4] {1, 2, 3, 4}"), RunHlo(hlo, {CL("c64[3] {(10, 0), (-2, 2), (-2, 0)}")})));
  // The imaginary parts of the DC and Nyquist terms do not contribute.
  EXPECT_TRUE(LiteralEqual(L("f32[4] {1, 2, 3, 4}"), RunHlo(hlo, {CL("c64[3] {(10, 5), (-2, 2), (-2, 7)}")})));
  auto odd = FftModule("c128[2]", "f64[3]", "fft_type=IRFFT, fft_length={3}");
  EXPECT_TRUE(LiteralNear(L("f64[3] {1, 2, 3}"), RunHlo(odd, {CL("c128[2] {(6, 0), (-1.5, 0.8660254037844386)}")}),
                          1e-15, 1e-15));
}

TEST(InterpreterFftTest, TwoDimensionalRealRoundTrip) {
  const char* hlo = R"(HloModule m
ENTRY main {
  a = f32[2,3,4] parameter(0)
  r = c64[2,3,3] fft(a), fft_type=RFFT, fft_length={3,4}
  ROOT i = f32[2,3,4] fft(r), fft_type=IRFFT, fft_length={3,4}
})";
  Literal x = *Literal::Create(Shape(F32, {2, 3, 4}));
  for (int i = 0; i < 24; ++i) x.SetFromDouble(i, (i * 5) % 7 - 3.5);
  EXPECT_TRUE(LiteralNear(x, RunHlo(hlo, {x.Clone()}), 1e-6, 1e-6));
}

TEST(InterpreterFftTest, ComplexRoundTripOddAndEvenLengths) {
  const char* hlo = R"(HloModule m
ENTRY main {
  a = c128[5,8] parameter(0)
  f = c128[5,8] fft(a), fft_type=FFT, fft_length={5,8}
  ROOT i = c128[5,8] fft(f), fft_type=IFFT, fft_length={5,8}
})";
  Literal x = *Literal::Create(Shape(C128, {5, 8}));
  for (int i = 0; i < 40; ++i) x.SetFromComplex(i, {double(i % 6) - 2, double(i % 4) * 0.5});
  EXPECT_TRUE(LiteralNear(x, RunHlo(hlo, {x.Clone()}), 1e-12, 1e-12));
}

TEST(InterpreterFftTest, InfinityAndNanPropagate) {
  auto hlo = FftModule("c64[2]", "c64[2]", "fft_type=FFT, fft_length={2}");
  auto r = RunHlo(hlo, {CL("c64[2] {(inf, 0), (1, 0)}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(std::isinf(r->GetAsComplex(0).real()));
  auto n = RunHlo(hlo, {CL("c64[2] {(nan, 0), (1, 0)}")});
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(std::isnan(n->GetAsComplex(1).real()));
}

TEST(InterpreterFftTest, EmptyBatchAndNonDefaultLayout) {
  auto hlo = FftModule("c64[0,4]", "c64[0,4]", "fft_type=FFT, fft_length={4}");
  auto r = RunHlo(hlo, {CL("c64[0,4] {}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->element_count(), 0);
  const char* layout_hlo = R"(HloModule m
ENTRY main {
  a = c64[2,2]{0,1} parameter(0)
  ROOT f = c64[2,2]{0,1} fft(a), fft_type=FFT, fft_length={2}
})";
  Literal x = *CL("c64[2,2] {{1, 2}, {3, 4}}").Relayout(Layout({0, 1}));
  EXPECT_TRUE(LiteralEqual(CL("c64[2,2] {{3, -1}, {7, -1}}"), RunHlo(layout_hlo, {std::move(x)})));
}

TEST(InterpreterFftTest, MismatchedLengthIsAnError) {
  auto hlo = FftModule("c64[4]", "c64[4]", "fft_type=FFT, fft_length={8}");
  EXPECT_FALSE(RunHlo(hlo, {CL("c64[4] {1, 2, 3, 4}")}).ok());
  auto rfft = FftModule("f32[4]", "c64[4]", "fft_type=RFFT, fft_length={4}");
  EXPECT_FALSE(RunHlo(rfft, {L("f32[4] {1, 2, 3, 4}")}).ok());
}

}  // namespace
}  // namespace xla
