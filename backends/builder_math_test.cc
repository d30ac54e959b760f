// Ops the C++ XlaBuilder composes from HLO (no opcode of their own), run on the interpreter
// against references computed here: ErfInv, for f64, f32, f16 and bf16.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"
#include "hlo/builder/xla_builder.h"
#include "hlo/hlo_printer.h"
#include "hlo/primitive_util.h"

namespace xla {
namespace {

using ::xla::testing::RunHloOn;
using ::xla::testing::SharedInterpreter;

// erf^-1(y) for 0 <= y < 1 by bisection on erfc (1 - y is exact from 1/2 up, where the tails
// need it), to the last bit of a double.
double ReferenceErfInv(double y) {
  if (y == 0) return 0;
  double lo = 0, hi = 30;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    const bool below = y < 0.5 ? std::erf(mid) < y : std::erfc(mid) > 1 - y;
    (below ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// ErfInv of `values` built as an f64 parameter, converted to `type` and the result back to
// f64, run on the interpreter.
std::vector<double> RunErfInv(PrimitiveType type, const std::vector<double>& values) {
  XlaBuilder b("erf_inv");
  const int64_t n = static_cast<int64_t>(values.size());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F64, {n}), "x");
  XlaOp y = ErfInv(type == F64 ? x : ConvertElementType(x, type));
  if (type != F64) ConvertElementType(y, F64);
  absl::StatusOr<XlaComputation> computation = b.Build();
  EXPECT_TRUE(computation.ok()) << computation.status();
  if (!computation.ok()) return {};
  absl::StatusOr<std::unique_ptr<HloModule>> module = computation->ToModule();
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<double>(values));
  absl::StatusOr<Literal> result = RunHloOn(*SharedInterpreter(), HloModuleToString(**module), args);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return {};
  std::vector<double> out(values.size());
  for (int64_t i = 0; i < n; ++i) out[i] = result->GetAsDouble(i);
  return out;
}

TEST(BuilderMathTest, ErfInvInvertsErf) {
  const std::vector<double> ys = {0.0, 1e-30, 1e-8, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.999999};
  std::vector<double> values;
  for (double y : ys) {
    values.push_back(y);
    values.push_back(-y);
  }
  struct Case {
    PrimitiveType type;
    double tolerance;  // relative
  };
  // f64: Newton-refined to double's rounding; f32: Giles's polynomials (a few ulps); f16 and
  // bf16 round f32's result, and their inputs round first (checked against the rounded input).
  for (const Case& c : {Case{F64, 4e-15}, Case{F32, 2.5e-7}, Case{F16, 2e-3}, Case{BF16, 1.6e-2}}) {
    SCOPED_TRACE(primitive_util::LowercasePrimitiveTypeName(c.type));
    std::vector<double> rounded = values;
    if (c.type == F32) {
      for (double& v : rounded) v = static_cast<float>(v);
    }
    const std::vector<double> got = RunErfInv(c.type, rounded);
    ASSERT_EQ(got.size(), values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      if (c.type == F16 || c.type == BF16) {
        // Their inputs round to 11 or 8 bits: check erf of the result against the input instead.
        EXPECT_NEAR(std::erf(got[i]), values[i], c.type == F16 ? 2e-3 : 1.6e-2) << values[i];
        continue;
      }
      const double y = rounded[i];
      const double want = std::copysign(ReferenceErfInv(std::fabs(y)), y);
      // Plus what erf's flatness allows: y's rounding (an ulp of the type) over erf's slope.
      const double ulp = c.type == F64 ? std::nextafter(std::fabs(y), 2.0) - std::fabs(y)
                                       : std::nextafter(static_cast<float>(std::fabs(y)), 2.0f) - std::fabs(y);
      const double slope = 1.1283791670955126 * std::exp(-want * want);
      EXPECT_NEAR(got[i], want, c.tolerance * std::fabs(want) + 2 * ulp / slope) << "erfinv(" << y << ")";
      if (y == 0) EXPECT_EQ(std::signbit(got[i]), std::signbit(y)) << "erfinv(" << y << ") keeps the sign of zero";
    }
  }
  // Far out in f64's tail, within what erf's flatness allows (a change of y by one ulp moves
  // the answer by 2.6e-8 of itself at 1 - 1e-10).
  const std::vector<double> tails = {1 - 1e-10, -(1 - 1e-10)};
  const std::vector<double> got = RunErfInv(F64, tails);
  ASSERT_EQ(got.size(), tails.size());
  for (size_t i = 0; i < tails.size(); ++i) {
    const double want = std::copysign(ReferenceErfInv(std::fabs(tails[i])), tails[i]);
    EXPECT_NEAR(got[i], want, 3e-8 * std::fabs(want)) << tails[i];
  }
}

TEST(BuilderMathTest, ErfInvIsInfiniteAtOneAndNanOutside) {
  const double inf = std::numeric_limits<double>::infinity();
  for (PrimitiveType type : {F64, F32, F16, BF16}) {
    SCOPED_TRACE(primitive_util::LowercasePrimitiveTypeName(type));
    const std::vector<double> got = RunErfInv(type, {1.0, -1.0, 1.5, -2.0, std::nan("")});
    ASSERT_EQ(got.size(), 5u);
    EXPECT_EQ(got[0], inf);
    EXPECT_EQ(got[1], -inf);
    EXPECT_TRUE(std::isnan(got[2]));
    EXPECT_TRUE(std::isnan(got[3]));
    EXPECT_TRUE(std::isnan(got[4]));
  }
}

TEST(BuilderMathTest, ErfInvRefusesNonFloatOperands) {
  XlaBuilder b("erf_inv_s32");
  ErfInv(Parameter(&b, 0, ShapeUtil::MakeShape(S32, {3}), "x"));
  absl::StatusOr<XlaComputation> computation = b.Build();
  ASSERT_FALSE(computation.ok());
  EXPECT_NE(std::string(computation.status().message()).find("ErfInv needs an f16, bf16, f32 or f64 operand"),
            std::string::npos)
      << computation.status();
}

}  // namespace
}  // namespace xla
