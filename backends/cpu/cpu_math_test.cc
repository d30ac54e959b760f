// Measures the f32 approximations of codegen/math.cc in ulps against the correctly rounded
// f64 libm result over ~1M inputs (a dense sweep of the interesting range plus random bit
// patterns), and checks the bounds stated there.
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

int64_t OrderedBits(float f) {
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i < 0 ? static_cast<int64_t>(INT32_MIN) - i : i;
}

int64_t UlpDistance(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return INT64_MAX;
  if (a == b) return 0;  // also +0 == -0
  return std::llabs(OrderedBits(a) - OrderedBits(b));
}

void CheckUlps(const std::string& op, const std::function<double(double)>& reference, double lo, double hi,
               int64_t bound) {
  testing::RegisterBackendsOnce();
  std::vector<float> inputs;
  const int kSweep = 1 << 19;
  for (int i = 0; i < kSweep; ++i) inputs.push_back(static_cast<float>(lo + (hi - lo) * i / kSweep));
  std::mt19937 rng(42);
  for (int i = 0; i < kSweep; ++i) {
    uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, 4);
    inputs.push_back(f);
  }
  for (float s : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -1e-45f, 1.17549435e-38f, 3.4028235e38f}) {
    inputs.push_back(s);
  }
  const int64_t n = static_cast<int64_t>(inputs.size());
  const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n a = f32[", n, "] parameter(0)\n ROOT r = f32[", n,
                                       "] ", op, "(a)\n}\n");
  Literal arg = Literal::CreateR1<float>(inputs);
  auto result = xla::testing::RunHlo(hlo, {arg.Clone()}, "cpu");
  ASSERT_TRUE(result.ok()) << result.status().message();
  auto values = result->data<float>();
  int64_t worst = 0;
  float worst_input = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float expected = static_cast<float>(reference(static_cast<double>(inputs[i])));
    const int64_t d = UlpDistance(values[i], expected);
    if (d > worst) {
      worst = d;
      worst_input = inputs[i];
    }
  }
  EXPECT_LE(worst, bound) << op << ": worst input " << worst_input;
  std::printf("%s: max error %lld ulp (input %.9g)\n", op.c_str(), static_cast<long long>(worst), worst_input);
}

TEST(CpuMath, Exp) { CheckUlps("exponential", [](double x) { return std::exp(x); }, -104, 89, 2); }
TEST(CpuMath, Log) { CheckUlps("log", [](double x) { return std::log(x); }, 0, 100, 2); }
TEST(CpuMath, Tanh) { CheckUlps("tanh", [](double x) { return std::tanh(x); }, -10, 10, 4); }
// Against the interpreter's formula in f32 (both flush to 0 where e^-x overflows f32).
TEST(CpuMath, Logistic) {
  CheckUlps("logistic", [](double x) {
    const float e = std::exp(-static_cast<float>(x));
    return 1.0f / (1.0f + e);
  }, -88, 30, 4);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
