// Arithmetic on sub-byte integers, 8- and 4-bit floats and complex numbers on cpu vs the
// interpreter over random inputs: bit-exact for integers, the narrow floats (computed in f32
// and rounded once, as the interpreter), complex add/multiply/divide (the runtime's
// std::complex, as the interpreter) and converts; complex transcendental functions too, as
// both call the same library. Also dot, convolution and reductions of these types,
// stochastic-convert and reducers with array ops inside.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::RandomLiteral;
using testing::SameOnBothBackends;

std::string TypeName(PrimitiveType t) { return std::string(primitive_util::LowercasePrimitiveTypeName(t)); }

std::string Module(const std::string& op, const std::vector<PrimitiveType>& in, PrimitiveType out, int64_t n,
                   const std::string& extra = "") {
  std::string text = "HloModule m\nENTRY e {\n";
  std::string args;
  for (size_t i = 0; i < in.size(); ++i) {
    absl::StrAppend(&text, "  p", i, " = ", TypeName(in[i]), "[", n, "] parameter(", i, ")\n");
    absl::StrAppend(&args, i == 0 ? "" : ", ", "p", i);
  }
  absl::StrAppend(&text, "  ROOT r = ", TypeName(out), "[", n, "] ", op, "(", args, ")", extra, "\n}\n");
  return text;
}

Literal Random(PrimitiveType t, int64_t n, std::mt19937_64* rng) { return RandomLiteral(ShapeUtil::MakeShape(t, {n}), rng); }

// Complex values with both parts random (RandomLiteral sets real parts only).
Literal RandomComplex(const Shape& shape, std::mt19937_64* rng) {
  Literal l = *Literal::Create(shape);
  const int64_t n = ShapeUtil::ElementsIn(shape);
  std::uniform_real_distribution<double> u(-3, 3);
  const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN};
  for (int64_t i = 0; i < n; ++i) {
    double re = u(*rng), im = u(*rng);
    if (i % 9 == 1) re = specials[(*rng)() % 5];
    if (i % 11 == 2) im = specials[(*rng)() % 5];
    l.SetFromComplex(i, {re, im});
  }
  return l;
}
Literal RandomComplex(PrimitiveType t, int64_t n, std::mt19937_64* rng) {
  return RandomComplex(ShapeUtil::MakeShape(t, {n}), rng);
}

const PrimitiveType kSubByteInts[] = {S2, S4, U2, U4};
const PrimitiveType kNarrowFloats[] = {F8E5M2,     F8E4M3,     F8E4M3FN, F8E4M3B11FNUZ, F8E3M4,
                                       F8E5M2FNUZ, F8E4M3FNUZ, F4E2M1FN, F8E8M0FNU};

TEST(CpuNarrowTypes, SubByteIntegerOpsBitExact) {
  std::mt19937_64 rng(1);
  for (PrimitiveType t : kSubByteInts) {
    for (const char* op : {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or",
                           "xor", "shift-left", "shift-right-logical", "shift-right-arithmetic", "power"}) {
      EXPECT_TRUE(SameOnBothBackends(Module(op, {t, t}, t, 37), {Random(t, 37, &rng), Random(t, 37, &rng)}))
          << op << " " << TypeName(t);
    }
    for (const char* op : {"negate", "abs", "sign", "not", "popcnt", "count-leading-zeros"}) {
      if (primitive_util::IsUnsignedIntegralType(t) && (op == std::string("abs") || op == std::string("sign"))) continue;
      EXPECT_TRUE(SameOnBothBackends(Module(op, {t}, t, 53), {Random(t, 53, &rng)})) << op << " " << TypeName(t);
    }
    for (const char* dir : {"EQ", "LT", "GE"}) {
      for (const char* type : {"", ", type=SIGNED", ", type=UNSIGNED"}) {
        EXPECT_TRUE(SameOnBothBackends(Module("compare", {t, t}, PRED, 37, absl::StrCat(", direction=", dir, type)),
                                       {Random(t, 37, &rng), Random(t, 37, &rng)}))
            << dir << type << " " << TypeName(t);
      }
    }
  }
}

TEST(CpuNarrowTypes, NarrowFloatOpsBitExact) {
  std::mt19937_64 rng(2);
  for (PrimitiveType t : kNarrowFloats) {
    for (const char* op : {"add", "subtract", "multiply", "divide", "maximum", "minimum", "remainder", "power", "atan2"}) {
      EXPECT_TRUE(SameOnBothBackends(Module(op, {t, t}, t, 37), {Random(t, 37, &rng), Random(t, 37, &rng)}))
          << op << " " << TypeName(t);
    }
    for (const char* op : {"negate", "abs", "sign", "floor", "ceil", "round-nearest-afz", "round-nearest-even",
                           "sqrt", "sine", "cbrt"}) {
      EXPECT_TRUE(SameOnBothBackends(Module(op, {t}, t, 53), {Random(t, 53, &rng)})) << op << " " << TypeName(t);
    }
    EXPECT_TRUE(SameOnBothBackends(Module("is-finite", {t}, PRED, 53), {Random(t, 53, &rng)})) << TypeName(t);
    for (const char* dir : {"EQ", "NE", "LT", "GE"}) {
      for (const char* type : {"", ", type=TOTALORDER"}) {
        EXPECT_TRUE(SameOnBothBackends(Module("compare", {t, t}, PRED, 37, absl::StrCat(", direction=", dir, type)),
                                       {Random(t, 37, &rng), Random(t, 37, &rng)}))
            << dir << type << " " << TypeName(t);
      }
    }
  }
}

TEST(CpuNarrowTypes, ConvertsBitExact) {
  std::mt19937_64 rng(3);
  std::vector<PrimitiveType> types = {PRED, S4, U4, S2, S8, U8, S32, U64, S64, F16, BF16, F32, F64};
  types.insert(types.end(), std::begin(kNarrowFloats), std::end(kNarrowFloats));
  for (PrimitiveType from : types) {
    for (PrimitiveType to : types) {
      EXPECT_TRUE(SameOnBothBackends(Module("convert", {from}, to, 53), {Random(from, 53, &rng)}))
          << TypeName(from) << " -> " << TypeName(to);
    }
    for (PrimitiveType to : {C64, C128}) {
      EXPECT_TRUE(SameOnBothBackends(Module("convert", {from}, to, 53), {Random(from, 53, &rng)}))
          << TypeName(from) << " -> " << TypeName(to);
    }
  }
  EXPECT_TRUE(SameOnBothBackends(Module("convert", {C64}, C128, 53), {RandomComplex(C64, 53, &rng)}));
  EXPECT_TRUE(SameOnBothBackends(Module("convert", {C128}, C64, 53), {RandomComplex(C128, 53, &rng)}));
}

TEST(CpuNarrowTypes, ComplexOps) {
  std::mt19937_64 rng(4);
  for (PrimitiveType t : {C64, C128}) {
    const PrimitiveType part = primitive_util::ComplexComponentType(t);
    for (const char* op : {"add", "subtract", "multiply", "divide", "power", "atan2"}) {
      EXPECT_TRUE(SameOnBothBackends(Module(op, {t, t}, t, 37), {RandomComplex(t, 37, &rng), RandomComplex(t, 37, &rng)}))
          << op << " " << TypeName(t);
    }
    for (const char* op : {"negate", "sign", "exponential", "exponential-minus-one", "log", "log-plus-one", "sqrt",
                           "rsqrt", "logistic", "sine", "cosine", "tan", "tanh"}) {
      EXPECT_TRUE(SameOnBothBackends(Module(op, {t}, t, 53), {RandomComplex(t, 53, &rng)})) << op << " " << TypeName(t);
    }
    for (const char* op : {"abs", "real", "imag"}) {
      EXPECT_TRUE(SameOnBothBackends(Module(op, {t}, part, 53), {RandomComplex(t, 53, &rng)})) << op << " " << TypeName(t);
    }
    for (const char* dir : {"EQ", "NE"}) {
      Literal a = RandomComplex(t, 37, &rng);
      EXPECT_TRUE(SameOnBothBackends(Module("compare", {t, t}, PRED, 37, absl::StrCat(", direction=", dir)),
                                     {a.Clone(), a.Clone()}));
      EXPECT_TRUE(SameOnBothBackends(Module("compare", {t, t}, PRED, 37, absl::StrCat(", direction=", dir)),
                                     {a.Clone(), RandomComplex(t, 37, &rng)}));
    }
    EXPECT_TRUE(SameOnBothBackends(Module("complex", {part, part}, t, 37), {Random(part, 37, &rng), Random(part, 37, &rng)}));
  }
}

// Exact, except that a NaN matches any NaN: the random operands hold infinities and NaNs, and
// which sign an inf - inf or 0 * inf in a sum of products gets depends on the instructions the
// host's code generator picks (XLA specifies no NaN sign or payload).
TEST(CpuNarrowTypes, DotConvolutionAndReduce) {
  std::mt19937_64 rng(5);
  for (PrimitiveType t : {S4, U4, F8E4M3FN, F8E5M2, C64, C128}) {
    const std::string ty = TypeName(t);
    auto arg = [&](std::vector<int64_t> dims) {
      const Shape s = ShapeUtil::MakeShape(t, dims);
      return primitive_util::IsComplexType(t) ? RandomComplex(s, &rng) : RandomLiteral(s, &rng);
    };
    const std::string dot = absl::StrCat("HloModule m\nENTRY e {\n  a = ", ty, "[3,5] parameter(0)\n  b = ", ty,
                                         "[5,4] parameter(1)\n  ROOT d = ", ty,
                                         "[3,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
    EXPECT_TRUE(SameOnBothBackends(dot, {arg({3, 5}), arg({5, 4})}, 0, 0)) << ty;
    const std::string conv = absl::StrCat("HloModule m\nENTRY e {\n  a = ", ty, "[1,2,6] parameter(0)\n  b = ", ty,
                                          "[3,2,2] parameter(1)\n  ROOT c = ", ty,
                                          "[1,3,5] convolution(a, b), window={size=2}, dim_labels=bf0_oi0->bf0\n}\n");
    EXPECT_TRUE(SameOnBothBackends(conv, {arg({1, 2, 6}), arg({3, 2, 2})}, 0, 0)) << ty;
    const std::string reduce = absl::StrCat("HloModule m\nadd {\n  a = ", ty, "[] parameter(0)\n  b = ", ty,
                                            "[] parameter(1)\n  ROOT s = ", ty, "[] add(a, b)\n}\nENTRY e {\n  x = ", ty,
                                            "[4,7] parameter(0)\n  z = ", ty, "[] constant(",
                                            primitive_util::IsComplexType(t) ? "(0, 0)" : "0", ")\n  ROOT r = ", ty,
                                            "[4] reduce(x, z), dimensions={1}, to_apply=add\n}\n");
    EXPECT_TRUE(SameOnBothBackends(reduce, {arg({4, 7})}, 0, 0)) << ty;
  }
}

TEST(CpuNarrowTypes, StochasticConvert) {
  std::mt19937_64 rng(6);
  const std::pair<PrimitiveType, PrimitiveType> pairs[] = {{F32, U32}, {F16, U16}, {F64, U64}, {BF16, U16}};
  for (const auto& [in, random] : pairs) {
    for (PrimitiveType out : {S8, S32, U8, S64, U64, S4}) {
      const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  x = ", TypeName(in), "[53] parameter(0)\n  r = ",
                                           TypeName(random), "[53] parameter(1)\n  ROOT y = ", TypeName(out),
                                           "[53] stochastic-convert(x, r)\n}\n");
      EXPECT_TRUE(SameOnBothBackends(hlo, {Random(in, 53, &rng), Random(random, 53, &rng)})) << hlo;
    }
  }
}

TEST(CpuNarrowTypes, ReducerWithArrayOps) {
  // The reducer multiplies by a constant vector and sums it with a nested reduce.
  const char* hlo = R"(HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
weighted {
  acc = s32[] parameter(0)
  x = s32[] parameter(1)
  xs = s32[3] broadcast(x), dimensions={}
  w = s32[3] constant({1, -2, 5})
  m = s32[3] multiply(xs, w)
  ROOT r = s32[] reduce(m, acc), dimensions={0}, to_apply=add
}
ENTRY e {
  v = s32[4,6] parameter(0)
  i = s32[] constant(7)
  ROOT y = s32[4] reduce(v, i), dimensions={1}, to_apply=weighted
})";
  std::mt19937_64 rng(7);
  EXPECT_TRUE(SameOnBothBackends(hlo, {RandomLiteral(ShapeUtil::MakeShape(S32, {4, 6}), &rng)}));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
