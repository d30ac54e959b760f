// Elementwise ops on cpu vs the interpreter over random inputs with edge cases: bit-exact
// for integer, pred and exactly rounded float ops; transcendental ops within the ulp bounds
// of codegen/math.cc (checked as a relative tolerance here; cpu_math_test.cc measures ulps).
#include <cmath>
#include <cstring>
#include <complex>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

using testing::RandomLiteral;
using testing::SameOnBothBackends;

std::string TypeName(PrimitiveType t) { return std::string(primitive_util::LowercasePrimitiveTypeName(t)); }

std::string BinaryModule(const std::string& op, PrimitiveType t, PrimitiveType out, const std::string& extra = "") {
  const std::string in = absl::StrCat(TypeName(t), "[37]");
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", in, " parameter(0)\n  b = ", in, " parameter(1)\n  ROOT r = ",
                      TypeName(out), "[37] ", op, "(a, b)", extra, "\n}\n");
}

std::string UnaryModule(const std::string& op, PrimitiveType t, PrimitiveType out) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", TypeName(t), "[53] parameter(0)\n  ROOT r = ", TypeName(out),
                      "[53] ", op, "(a)\n}\n");
}

const PrimitiveType kInts[] = {S8, S16, S32, S64, U8, U16, U32, U64};
const PrimitiveType kFloats[] = {F16, BF16, F32, F64};

TEST(CpuElementwise, IntegerBinaryOpsBitExact) {
  std::mt19937_64 rng(1);
  for (PrimitiveType t : kInts) {
    for (const char* op : {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or",
                           "xor", "shift-left", "shift-right-logical", "shift-right-arithmetic", "power"}) {
      Shape s = ShapeUtil::MakeShape(t, {37});
      Literal a = RandomLiteral(s, &rng), b = RandomLiteral(s, &rng);
      EXPECT_TRUE(SameOnBothBackends(BinaryModule(op, t, t), {a.Clone(), b.Clone()})) << op << " " << TypeName(t);
    }
  }
}

TEST(CpuElementwise, IntegerUnaryOpsBitExact) {
  std::mt19937_64 rng(2);
  for (PrimitiveType t : kInts) {
    for (const char* op : {"negate", "abs", "sign", "not", "popcnt", "count-leading-zeros"}) {
      if (primitive_util::IsUnsignedIntegralType(t) && (op == std::string("abs") || op == std::string("sign"))) continue;
      Literal a = RandomLiteral(ShapeUtil::MakeShape(t, {53}), &rng);
      EXPECT_TRUE(SameOnBothBackends(UnaryModule(op, t, t), {a.Clone()})) << op << " " << TypeName(t);
    }
  }
}

TEST(CpuElementwise, PredOps) {
  std::mt19937_64 rng(3);
  Shape s = ShapeUtil::MakeShape(PRED, {37});
  for (const char* op : {"and", "or", "xor", "add", "multiply", "maximum", "minimum"}) {
    Literal a = RandomLiteral(s, &rng), b = RandomLiteral(s, &rng);
    EXPECT_TRUE(SameOnBothBackends(BinaryModule(op, PRED, PRED), {a.Clone(), b.Clone()})) << op;
  }
  Literal a = RandomLiteral(ShapeUtil::MakeShape(PRED, {53}), &rng);
  EXPECT_TRUE(SameOnBothBackends(UnaryModule("not", PRED, PRED), {a.Clone()}));
}

TEST(CpuElementwise, FloatArithmeticBitExact) {
  std::mt19937_64 rng(4);
  for (PrimitiveType t : kFloats) {
    for (const char* op : {"add", "subtract", "multiply", "divide", "maximum", "minimum", "remainder"}) {
      Shape s = ShapeUtil::MakeShape(t, {37});
      Literal a = RandomLiteral(s, &rng), b = RandomLiteral(s, &rng);
      EXPECT_TRUE(SameOnBothBackends(BinaryModule(op, t, t), {a.Clone(), b.Clone()})) << op << " " << TypeName(t);
    }
    for (const char* op : {"negate", "abs", "sign", "floor", "ceil", "round-nearest-afz", "round-nearest-even",
                           "sqrt"}) {
      Literal a = RandomLiteral(ShapeUtil::MakeShape(t, {53}), &rng);
      EXPECT_TRUE(SameOnBothBackends(UnaryModule(op, t, t), {a.Clone()})) << op << " " << TypeName(t);
    }
    Literal a = RandomLiteral(ShapeUtil::MakeShape(t, {53}), &rng);
    EXPECT_TRUE(SameOnBothBackends(UnaryModule("is-finite", t, PRED), {a.Clone()})) << TypeName(t);
  }
}

TEST(CpuElementwise, FloatTranscendentalWithinTolerance) {
  std::mt19937_64 rng(5);
  for (PrimitiveType t : kFloats) {
    // Narrow types round the f32 result once: a few ulps of f32 can move it by one ulp of the type.
    const double rtol = t == F16 ? 1e-3 : t == BF16 ? 8e-3 : 1e-6;
    for (const char* op : {"exponential", "log", "tanh", "logistic", "rsqrt", "sine", "cosine", "tan", "atanh",
                           "exponential-minus-one", "log-plus-one", "erf", "cbrt"}) {
      Literal a = RandomLiteral(ShapeUtil::MakeShape(t, {53}), &rng);
      EXPECT_TRUE(SameOnBothBackends(UnaryModule(op, t, t), {a.Clone()}, rtol, 1e-30)) << op << " " << TypeName(t);
    }
    Shape s = ShapeUtil::MakeShape(t, {37});
    for (const char* op : {"power", "atan2"}) {
      Literal a = RandomLiteral(s, &rng), b = RandomLiteral(s, &rng);
      EXPECT_TRUE(SameOnBothBackends(BinaryModule(op, t, t), {a.Clone(), b.Clone()}, rtol, 1e-30))
          << op << " " << TypeName(t);
    }
  }
}

TEST(CpuElementwise, CompareEveryDirectionAndType) {
  std::mt19937_64 rng(6);
  std::vector<PrimitiveType> types(std::begin(kInts), std::end(kInts));
  types.insert(types.end(), std::begin(kFloats), std::end(kFloats));
  types.push_back(PRED);
  for (PrimitiveType t : types) {
    for (const char* dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
      Shape s = ShapeUtil::MakeShape(t, {37});
      Literal a = RandomLiteral(s, &rng), b = RandomLiteral(s, &rng);
      EXPECT_TRUE(SameOnBothBackends(BinaryModule("compare", t, PRED, absl::StrCat(", direction=", dir)),
                                     {a.Clone(), b.Clone()}))
          << dir << " " << TypeName(t);
      if (primitive_util::IsFloatingPointType(t)) {
        EXPECT_TRUE(SameOnBothBackends(
            BinaryModule("compare", t, PRED, absl::StrCat(", direction=", dir, ", type=TOTALORDER")),
            {a.Clone(), b.Clone()}))
            << dir << " totalorder " << TypeName(t);
      }
    }
  }
}

TEST(CpuElementwise, ConvertBetweenEveryPairOfTypes) {
  std::mt19937_64 rng(7);
  std::vector<PrimitiveType> types(std::begin(kInts), std::end(kInts));
  types.insert(types.end(), std::begin(kFloats), std::end(kFloats));
  types.push_back(PRED);
  for (PrimitiveType from : types) {
    for (PrimitiveType to : types) {
      Literal a = RandomLiteral(ShapeUtil::MakeShape(from, {53}), &rng);
      EXPECT_TRUE(SameOnBothBackends(UnaryModule("convert", from, to), {a.Clone()}))
          << TypeName(from) << " -> " << TypeName(to);
    }
  }
}

TEST(CpuElementwise, SelectClampBitcastConvert) {
  std::mt19937_64 rng(8);
  for (PrimitiveType t : {S32, F32, BF16, U8, F64}) {
    const std::string ty = absl::StrCat(TypeName(t), "[37]");
    Literal p = RandomLiteral(ShapeUtil::MakeShape(PRED, {37}), &rng);
    Literal a = RandomLiteral(ShapeUtil::MakeShape(t, {37}), &rng), b = RandomLiteral(ShapeUtil::MakeShape(t, {37}), &rng);
    Literal c = RandomLiteral(ShapeUtil::MakeShape(t, {37}), &rng);
    EXPECT_TRUE(SameOnBothBackends(absl::StrCat("HloModule m\nENTRY e {\n p = pred[37] parameter(0)\n a = ", ty,
                                                " parameter(1)\n b = ", ty, " parameter(2)\n ROOT r = ", ty,
                                                " select(p, a, b)\n}\n"),
                                   {p.Clone(), a.Clone(), b.Clone()}));
    EXPECT_TRUE(SameOnBothBackends(absl::StrCat("HloModule m\nENTRY e {\n a = ", ty, " parameter(0)\n b = ", ty,
                                                " parameter(1)\n c = ", ty, " parameter(2)\n ROOT r = ", ty,
                                                " clamp(a, b, c)\n}\n"),
                                   {a.Clone(), b.Clone(), c.Clone()}))
        << TypeName(t);
  }
  Literal f = RandomLiteral(ShapeUtil::MakeShape(F32, {53}), &rng);
  EXPECT_TRUE(SameOnBothBackends(UnaryModule("bitcast-convert", F32, S32), {f.Clone()}));
  EXPECT_TRUE(SameOnBothBackends(UnaryModule("bitcast-convert", F32, U32), {f.Clone()}));
}

TEST(CpuElementwise, SizeChangingBitcastConvert) {
  std::mt19937_64 rng(9);
  // (in, out) pairs whose element widths differ; the wider side has one dimension less.
  const char* const pairs[][2] = {{"u8[5,4]", "f32[5]"}, {"f32[5]", "u8[5,4]"}, {"s64[3]", "s16[3,4]"},
                                  {"s16[3,4]", "f64[3]"}, {"s8[6]", "s4[6,2]"}, {"u4[6,2]", "u8[6]"},
                                  {"f16[4]", "f8e5m2[4,2]"}, {"c128[3]", "c64[3,2]"}};
  for (const auto& pair : pairs) {
    const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n a = ", pair[0], " parameter(0)\n ROOT r = ", pair[1],
                                         " bitcast-convert(a)\n}\n");
    auto module = ParseAndReturnUnverifiedModule(hlo);
    ASSERT_TRUE(module.ok()) << module.status().message();
    const Shape& in = (*module)->entry_computation()->parameter_instruction(0)->shape();
    EXPECT_TRUE(SameOnBothBackends(hlo, {RandomLiteral(in, &rng)})) << hlo;
  }
}

// Complex multiply is inline code: every pairing of special parts (signed zeros,
// infinities, NaNs, values whose products overflow) against std::complex in the interpreter,
// to the bit, for c64 and c128.
TEST(CpuElementwise, ComplexMultiplyRecoversInfinitiesAsAnnexG) {
  for (PrimitiveType t : {C64, C128}) {
    const double huge = t == C64 ? 1e30 : 1e300;
    const double parts[] = {0.0, -0.0, 1.0, -2.5, huge, -huge, 1e-30, INFINITY, -INFINITY, NAN, -NAN};
    const int n = sizeof(parts) / sizeof(parts[0]);
    const int count = n * n * n * n;
    Literal a = *Literal::Create(ShapeUtil::MakeShape(t, {count}));
    Literal b = *Literal::Create(ShapeUtil::MakeShape(t, {count}));
    int i = 0;
    for (double ar : parts) {
      for (double ai : parts) {
        for (double br : parts) {
          for (double bi : parts) {
            if (t == C64) {
              static_cast<std::complex<float>*>(a.untyped_data())[i] = {static_cast<float>(ar), static_cast<float>(ai)};
              static_cast<std::complex<float>*>(b.untyped_data())[i] = {static_cast<float>(br), static_cast<float>(bi)};
            } else {
              static_cast<std::complex<double>*>(a.untyped_data())[i] = {ar, ai};
              static_cast<std::complex<double>*>(b.untyped_data())[i] = {br, bi};
            }
            ++i;
          }
        }
      }
    }
    const std::string type = TypeName(t);
    const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  a = ", type, "[", count, "] parameter(0)\n  b = ",
                                         type, "[", count, "] parameter(1)\n  ROOT r = ", type, "[", count,
                                         "] multiply(a, b)\n}\n");
    // NaN where the interpreter has NaN (which of two NaN operands a sum propagates, and so
    // the NaN's sign, is the machine's choice: the code generator may swap operands); every
    // other part, signed zeros and infinities included, to the bit.
    std::vector<Literal> args;
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    testing::RegisterBackendsOnce();
    auto expected = xla::testing::RunHlo(hlo, args, "interpreter");
    auto actual = xla::testing::RunHlo(hlo, args, "cpu");
    ASSERT_TRUE(expected.ok() && actual.ok()) << actual.status();
    int mismatches = 0;
    for (int k = 0; k < count; ++k) {
      const std::complex<double> e = expected->GetAsComplex(k), g = actual->GetAsComplex(k);
      for (auto [x, y] : {std::pair{e.real(), g.real()}, std::pair{e.imag(), g.imag()}}) {
        const bool same = std::isnan(x) ? std::isnan(y) : std::memcmp(&x, &y, sizeof(x)) == 0;
        if (!same && ++mismatches <= 5) {
          ADD_FAILURE() << type << " " << args[0].GetAsComplex(k) << " * " << args[1].GetAsComplex(k) << ": interpreter "
                        << e << ", cpu " << g;
        }
      }
    }
    EXPECT_EQ(mismatches, 0) << type;
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
