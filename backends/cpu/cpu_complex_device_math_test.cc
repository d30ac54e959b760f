// The inline IR forms of complex math that device code uses (codegen/elemental_complex_math.cc;
// the gpu backend builds its kernels with the same emitter), run on the host: with
// XLA_CPU_INLINE_COMPLEX_MATH=1 the cpu emitter emits them instead of calling the runtime, so
// the same IR is compiled and executed here. Every op that has an inline form is compared,
// for c64 and c128, with std::complex (and backends/complex_math.h's formulas, which the
// interpreter uses) computed in this test, over a grid of parts crossing zeros of both signs,
// infinities, NaN, the smallest and largest magnitudes, values near 1 and on the branch cuts,
// plus random values of every magnitude. Each result part must
//   * have the reference's class: NaN, the same infinity, zero (with its sign), finite;
//   * and, when finite, be within kUlps ulps of the reference part, or within kUlps * eps of
//     the reference's magnitude |w| (the error of a part that is tiny next to the other is
//     measured against |w|, as complex math libraries state it), or within a few of the
//     smallest subnormals; pow allows kUlps * (1 + |b log a|) ulps: exp amplifies the error
//     of its argument by that much, in the reference too.
// Signs are checked for infinities, and for zeros where an operand part is zero or infinite
// (Annex G's special cases; elsewhere a zero is an underflow of a value at rounding noise),
// except where an operand is NaN (Annex G leaves those signs unspecified) or, for pow, where
// the allowance makes the result's angle undetermined.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/complex_math.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

constexpr double kUlps = 4;

// The test's environment: inline complex forms in every compile of this process.
class InlineComplexEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { setenv("XLA_CPU_INLINE_COMPLEX_MATH", "1", 1); }
};
const ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new InlineComplexEnvironment);

template <typename T>
std::vector<T> PartGrid() {
  using Lim = std::numeric_limits<T>;
  const T inf = Lim::infinity();
  std::vector<T> magnitudes = {0,          1,          0.5,         2,          3,          0.6,
                               0.8,        1 - Lim::epsilon(), 1 + Lim::epsilon(), T(1e-3), T(0.999),
                               T(1.001),   T(3.1415926535897932), T(1.5707963267948966), T(20),
                               T(100),     T(1e-10),   T(1e10),     Lim::min(), Lim::denorm_min(),
                               Lim::max(), Lim::max() / 3, T(std::sqrt(Lim::max())), T(std::sqrt(Lim::min())),
                               T(Lim::max_exponent * 0.6931471805599453 - 0.5),
                               T(Lim::max_exponent * 0.6931471805599453 + 0.5),
                               inf};
  std::vector<T> parts;
  for (T m : magnitudes) {
    parts.push_back(m);
    parts.push_back(-m);
  }
  parts.push_back(Lim::quiet_NaN());
  return parts;
}

template <typename T>
std::vector<std::complex<T>> UnaryInputs() {
  std::vector<std::complex<T>> inputs;
  const std::vector<T> parts = PartGrid<T>();
  for (T re : parts) {
    for (T im : parts) inputs.emplace_back(re, im);
  }
  // Random parts: sign, exponent over the whole range, mantissa.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(1, 2);
  std::uniform_int_distribution<int> exponent(std::numeric_limits<T>::min_exponent - 3,
                                              std::numeric_limits<T>::max_exponent - 2);
  std::uniform_int_distribution<int> small_exponent(-8, 8);
  auto random_part = [&](bool small) {
    const T v = static_cast<T>(std::ldexp(mantissa(rng), small ? small_exponent(rng) : exponent(rng)));
    return rng() & 1 ? -v : v;
  };
  for (int i = 0; i < 4000; ++i) {
    const bool small = i % 2 == 0;
    inputs.emplace_back(random_part(small), random_part(small));
  }
  return inputs;
}

template <typename T>
std::vector<std::complex<T>> BinaryGridValues() {
  using Lim = std::numeric_limits<T>;
  const std::vector<T> parts = {0, -0.0, 1, -1, 0.5, -2, 3, T(1e-20), Lim::max() / 2, Lim::infinity(),
                                -Lim::infinity(), Lim::quiet_NaN()};
  std::vector<std::complex<T>> values;
  for (T re : parts) {
    for (T im : parts) values.emplace_back(re, im);
  }
  return values;
}

std::string TypeName(bool c64) { return c64 ? "c64" : "c128"; }

template <typename T>
std::vector<std::complex<T>> RunOp(const std::string& op, const std::vector<std::complex<T>>& a,
                                   const std::vector<std::complex<T>>* c) {
  testing::RegisterBackendsOnce();
  const bool c64 = std::is_same_v<T, float>;
  const int64_t n = static_cast<int64_t>(a.size());
  const std::string type = absl::StrCat(TypeName(c64), "[", n, "]");
  const std::string out = op == "abs" ? absl::StrCat(c64 ? "f32" : "f64", "[", n, "]") : type;
  std::string module_name = absl::StrCat("complex_", op, "_", TypeName(c64));
  for (char& ch : module_name) ch = ch == '-' ? '_' : ch;
  std::string hlo = absl::StrCat("HloModule ", module_name, "\nENTRY e {\n  a = ", type,
                                 " parameter(0)\n");
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<std::complex<T>>(a));
  if (c != nullptr) {
    absl::StrAppend(&hlo, "  c = ", type, " parameter(1)\n  ROOT r = ", out, " ", op, "(a, c)\n}\n");
    args.push_back(Literal::CreateR1<std::complex<T>>(*c));
  } else {
    absl::StrAppend(&hlo, "  ROOT r = ", out, " ", op, "(a)\n}\n");
  }
  absl::StatusOr<Literal> result = xla::testing::RunHlo(hlo, args, "cpu");
  EXPECT_TRUE(result.ok()) << op << ": " << result.status().message();
  std::vector<std::complex<T>> values;
  if (!result.ok()) return values;
  if (op == "abs") {
    for (T v : result->template data<T>()) values.emplace_back(v, 0);
  } else {
    for (const std::complex<T>& v : result->template data<std::complex<T>>()) values.push_back(v);
  }
  return values;
}

template <typename T>
double UlpsApart(T actual, T expected) {
  const T ulp = std::nextafter(std::fabs(expected), std::numeric_limits<T>::infinity()) - std::fabs(expected);
  return std::fabs(static_cast<double>(actual) - static_cast<double>(expected)) / static_cast<double>(ulp);
}

// Empty when `actual` passes against `expected` (see the top of the file).
template <typename T>
std::string PartMismatch(T actual, T expected, double magnitude, double ulps, bool inf_sign, bool zero_sign) {
  if (std::isnan(expected)) return std::isnan(actual) ? "" : "expected NaN";
  if (std::isnan(actual)) return "unexpected NaN";
  if (std::isinf(expected) || std::isinf(actual)) {
    if (std::isinf(expected) != std::isinf(actual)) return "infinity class differs";
    if (inf_sign && std::signbit(expected) != std::signbit(actual)) return "infinity sign differs";
    return "";
  }
  if ((expected == 0) != (actual == 0)) return "zero class differs";
  if (expected == 0) {
    return zero_sign && std::signbit(expected) != std::signbit(actual) ? "zero sign differs" : "";
  }
  if (UlpsApart(actual, expected) <= ulps) return "";
  const double diff = std::fabs(static_cast<double>(actual) - static_cast<double>(expected));
  if (diff <= ulps * std::numeric_limits<T>::epsilon() * magnitude) return "";
  if (diff <= 4 * static_cast<double>(std::numeric_limits<T>::denorm_min())) return "";
  return absl::StrCat("off by ", UlpsApart(actual, expected), " ulps");
}

template <typename T>
std::string Show(std::complex<T> v) {
  char buf[128];
  std::snprintf(buf, sizeof(buf), "(%.*g, %.*g)", std::numeric_limits<T>::max_digits10, static_cast<double>(v.real()),
                std::numeric_limits<T>::max_digits10, static_cast<double>(v.imag()));
  return buf;
}

// Runs `op` over inputs and checks it against `reference`; `ulps(a, c)` the allowance.
template <typename T>
void Check(const std::string& op, const std::vector<std::complex<T>>& a, const std::vector<std::complex<T>>* c,
           const std::function<std::complex<T>(std::complex<T>, std::complex<T>)>& reference,
           const std::function<double(std::complex<T>, std::complex<T>)>& ulps = nullptr) {
  const std::vector<std::complex<T>> actual = RunOp<T>(op, a, c);
  ASSERT_EQ(actual.size(), a.size());
  int failures = 0;
  double worst = 0;  // the largest part error in ulps (for the log; parts tiny next to |w| included)
  size_t worst_at = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::complex<T> ci = c != nullptr ? (*c)[i] : std::complex<T>();
    const std::complex<T> e = reference(a[i], ci);
    auto has = [&](const std::function<bool(T)>& is) {
      return is(a[i].real()) || is(a[i].imag()) || (c != nullptr && (is(ci.real()) || is(ci.imag())));
    };
    const bool nan_operand = has([](T v) { return std::isnan(v); });
    // Annex G specifies the signs of zero results for special operands; elsewhere a zero is an
    // underflow, whose sign follows a value at the rounding noise.
    const bool special_operand = has([](T v) { return v == 0 || std::isinf(v); });
    const double magnitude = std::hypot(static_cast<double>(e.real()), static_cast<double>(e.imag()));
    const double allowed = ulps ? ulps(a[i], ci) : kUlps;
    // Where the allowance exceeds about 0.1 / eps, the result's angle (pow's) is undetermined.
    const bool angle_known = allowed * std::numeric_limits<T>::epsilon() < 0.1;
    const bool inf_sign = !nan_operand && angle_known;
    const bool zero_sign = inf_sign && special_operand;
    const std::string re = PartMismatch(actual[i].real(), e.real(), magnitude, allowed, inf_sign, zero_sign);
    const std::string im = PartMismatch(actual[i].imag(), e.imag(), magnitude, allowed, inf_sign, zero_sign);
    for (auto [got, want] : {std::pair<T, T>{actual[i].real(), e.real()}, {actual[i].imag(), e.imag()}}) {
      if (std::isfinite(got) && std::isfinite(want) && want != 0 && UlpsApart(got, want) > worst) {
        worst = UlpsApart(got, want);
        worst_at = i;
      }
    }
    if (re.empty() && im.empty()) continue;
    if (++failures <= 4) {
      ADD_FAILURE() << op << " " << TypeName(std::is_same_v<T, float>) << "(" << Show(a[i])
                    << (c != nullptr ? ", " + Show(ci) : std::string()) << ") = " << Show(actual[i]) << ", std::complex "
                    << Show(e) << (re.empty() ? "" : ": real part " + re) << (im.empty() ? "" : ": imaginary part " + im);
    }
  }
  std::printf("%s %s: largest part error %.3g ulps at %s\n", op.c_str(), TypeName(std::is_same_v<T, float>).c_str(),
              worst, Show(a[worst_at]).c_str());
  EXPECT_EQ(failures, 0) << op << " " << TypeName(std::is_same_v<T, float>) << ": " << failures << " of " << a.size()
                         << " results differ";
}

template <typename T>
void CheckUnary(const std::string& op, const std::function<std::complex<T>(std::complex<T>)>& f) {
  const std::vector<std::complex<T>> inputs = UnaryInputs<T>();
  Check<T>(op, inputs, nullptr, [&](std::complex<T> x, std::complex<T>) { return f(x); });
}

template <typename T>
void CheckBinary(const std::string& op, const std::function<std::complex<T>(std::complex<T>, std::complex<T>)>& f,
                 const std::function<double(std::complex<T>, std::complex<T>)>& ulps = nullptr) {
  const std::vector<std::complex<T>> grid = BinaryGridValues<T>();
  std::vector<std::complex<T>> a, c;
  for (const auto& x : grid) {
    for (const auto& y : grid) {
      a.push_back(x);
      c.push_back(y);
    }
  }
  // Random pairs of moderate and wide magnitude.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> mantissa(-2, 2);
  std::uniform_int_distribution<int> exponent(-40, 40);
  for (int i = 0; i < 4000; ++i) {
    auto part = [&] { return static_cast<T>(std::ldexp(mantissa(rng), i % 2 ? exponent(rng) : 0)); };
    const T ar = part(), ai = part(), cr = part(), ci = part();
    a.emplace_back(ar, ai);
    c.emplace_back(cr, ci);
  }
  Check<T>(op, a, &c, f, ulps);
}

// The ops of runtime/scalar_math.cc, as std::complex and complex_math.h compute them.
template <typename T>
void CheckEveryOp() {
  using C = std::complex<T>;
  CheckUnary<T>("exponential", [](C x) { return std::exp(x); });
  CheckUnary<T>("exponential-minus-one", [](C x) { return complex_math::Expm1(x); });
  CheckUnary<T>("log", [](C x) { return std::log(x); });
  CheckUnary<T>("log-plus-one", [](C x) { return complex_math::Log1p(x); });
  CheckUnary<T>("sqrt", [](C x) { return std::sqrt(x); });
  CheckUnary<T>("rsqrt", [](C x) { return C(1) / std::sqrt(x); });
  CheckUnary<T>("logistic", [](C x) { return C(1) / (C(1) + std::exp(-x)); });
  CheckUnary<T>("sine", [](C x) { return std::sin(x); });
  CheckUnary<T>("cosine", [](C x) { return std::cos(x); });
  CheckUnary<T>("tan", [](C x) { return std::tan(x); });
  CheckUnary<T>("tanh", [](C x) { return std::tanh(x); });
  CheckUnary<T>("sinh", [](C x) { return std::sinh(x); });
  CheckUnary<T>("cosh", [](C x) { return std::cosh(x); });
  CheckUnary<T>("asin", [](C x) { return std::asin(x); });
  CheckUnary<T>("acos", [](C x) { return std::acos(x); });
  CheckUnary<T>("asinh", [](C x) { return std::asinh(x); });
  CheckUnary<T>("acosh", [](C x) { return std::acosh(x); });
  CheckUnary<T>("atanh", [](C x) { return std::atanh(x); });
  CheckUnary<T>("sign", [](C x) {
    const T magnitude = std::abs(x);
    return magnitude == 0 ? C(0) : x / magnitude;
  });
  CheckUnary<T>("abs", [](C x) { return C(std::abs(x), 0); });
  CheckBinary<T>("divide", [](C x, C y) { return x / y; });
  CheckBinary<T>("atan2", [](C y, C x) { return complex_math::Atan2(y, x); });
  CheckBinary<T>(
      "power", [](C x, C y) { return complex_math::Pow(x, y); },
      [](C x, C y) {
        const std::complex<double> w = std::complex<double>(y) * std::log(std::complex<double>(x));
        const double m = std::abs(w);
        return kUlps * (1 + (std::isfinite(m) ? m : HUGE_VAL));
      });
}

TEST(CpuComplexDeviceMath, C64MatchesStdComplex) { CheckEveryOp<float>(); }
TEST(CpuComplexDeviceMath, C128MatchesStdComplex) { CheckEveryOp<double>(); }

// The seam works: the compiled IR of every op has no call to the runtime routine, so the
// comparisons above measure the inline forms.
TEST(CpuComplexDeviceMath, InlineFormsCallNoRuntimeRoutine) {
  char dir[] = "/tmp/xla_complex_ir_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  setenv("XLA_CPU_DUMP_IR", dir, 1);
  const std::vector<std::complex<double>> x = {{1, 2}, {-3, 0.5}};
  const std::vector<std::string> unary = {"exponential", "exponential-minus-one", "log", "log-plus-one", "sqrt",
                                          "rsqrt", "logistic", "sine", "cosine", "tan", "tanh", "sinh", "cosh",
                                          "asin", "acos", "asinh", "acosh", "atanh", "sign", "abs"};
  const std::vector<std::string> binary = {"divide", "power", "atan2"};
  std::vector<std::string> ops = unary;
  ops.insert(ops.end(), binary.begin(), binary.end());
  for (const std::string& op : ops) {
    const bool is_binary = std::find(binary.begin(), binary.end(), op) != binary.end();
    EXPECT_EQ(RunOp<double>(op, x, is_binary ? &x : nullptr).size(), 2u) << op;
    std::string name = absl::StrCat("complex_", op, "_c128");
    for (char& ch : name) ch = ch == '-' ? '_' : ch;
    const std::string path = absl::StrCat(dir, "/", name, ".ll");
    std::ifstream file(path);
    ASSERT_TRUE(file.good()) << path;
    std::stringstream ir;
    ir << file.rdbuf();
    EXPECT_EQ(ir.str().find("__xla_cpu_complex"), std::string::npos) << op;
    std::remove(path.c_str());
  }
  unsetenv("XLA_CPU_DUMP_IR");
  std::remove(dir);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
