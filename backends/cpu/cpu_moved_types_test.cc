// Data-movement ops on the types the cpu backend carries only as bits (complex, sub-byte
// integers, 8-bit floats) against the interpreter, bit-exact: transpose and relayout,
// slice, pad, concatenate, reverse, broadcast, dynamic-slice, dynamic-update-slice, gather
// and select, and complex iota.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::SameOnBothBackends;

Literal Random(PrimitiveType t, std::vector<int64_t> dims, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-6, 6);
  auto literal = Literal::Create(ShapeUtil::MakeShape(t, dims));
  EXPECT_TRUE(literal.ok());
  for (int64_t i = 0; i < ShapeUtil::ElementsIn(literal->shape()); ++i) {
    if (primitive_util::IsIntegralType(t)) {
      literal->SetFromInt64(i, static_cast<int64_t>(rng() % 16));
    } else {
      literal->SetFromComplex(i, {u(rng), u(rng)});
    }
  }
  return *std::move(literal);
}

const char* const kTypes[] = {"c64", "c128", "s4", "u4", "f8e4m3fn", "f8e5m2"};

TEST(CpuMovedTypes, EveryDataMovementOp) {
  const char* const bodies[] = {
      "ROOT r = T[5,4]{0,1} transpose(a), dimensions={1,0}",
      "ROOT r = T[4,5]{0,1} copy(a)",
      "ROOT r = T[2,2] slice(a), slice={[1:4:2], [0:5:3]}",
      "z = T[] parameter(1)\n  ROOT r = T[7,11] pad(a, z), padding=1_2x0_2_1",
      "ROOT r = T[8,5] concatenate(a, a), dimensions={0}",
      "ROOT r = T[4,5] reverse(a), dimensions={0,1}",
      "s = T[1,5] slice(a), slice={[2:3], [0:5]}\n  t = T[5] reshape(s)\n  ROOT r = T[3,5,2] broadcast(t), "
      "dimensions={1}",
      "i = s32[] constant(2)\n  j = s32[] constant(1)\n  ROOT r = T[2,3] dynamic-slice(a, i, j), dynamic_slice_sizes={2,3}",
      "u = T[2,2] slice(a), slice={[0:2], [0:2]}\n  i = s32[] constant(1)\n  j = s32[] constant(3)\n"
      "  ROOT r = T[4,5] dynamic-update-slice(a, u, i, j)",
      "idx = s32[3,1] constant({{3}, {0}, {2}})\n  ROOT r = T[3,5] gather(a, idx), offset_dims={1}, "
      "collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,5}",
      "b = T[4,5] reverse(a), dimensions={1}\n  p = pred[4,5] constant({{1,0,1,0,1},{0,0,1,1,0},{1,1,1,1,1},{0,0,0,0,0}})\n"
      "  ROOT r = T[4,5] select(p, a, b)",
  };
  uint64_t seed = 60;
  for (const char* type : kTypes) {
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(type);
    for (const char* body : bodies) {
      std::string text = absl::StrCat("HloModule m\nENTRY e {\n  a = T[4,5] parameter(0)\n  ", body, "\n}\n");
      for (size_t p = text.find("T["); p != std::string::npos; p = text.find("T[", p)) text.replace(p, 1, type);
      for (size_t p = text.find("T[]"); p != std::string::npos; p = text.find("T[]", p)) text.replace(p, 1, type);
      std::vector<Literal> args;
      args.push_back(Random(t, {4, 5}, seed++));
      if (text.find("parameter(1)") != std::string::npos) args.push_back(Random(t, {}, seed++));
      EXPECT_TRUE(SameOnBothBackends(text, args)) << text;
    }
  }
}

TEST(CpuMovedTypes, ComplexIota) {
  for (const char* type : {"c64", "c128"}) {
    for (const char* layout : {"{1,0}", "{0,1}"}) {
      for (int dim = 0; dim < 2; ++dim) {
        const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  ROOT i = ", type, "[3,70]", layout,
                                             " iota(), iota_dimension=", dim, "\n}\n");
        EXPECT_TRUE(SameOnBothBackends(hlo, {})) << hlo;
      }
    }
  }
}

TEST(CpuMovedTypes, ArithmeticComputesLikeTheInterpreter) {
  // These types once moved only as bits; arithmetic on them is now computed
  // (cpu_narrow_types_test.cc covers it op by op).
  for (const char* type : {"c64", "s4", "f8e4m3fn"}) {
    const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  a = ", type, "[4] parameter(0)\n  ROOT r = ", type,
                                         "[4] add(a, a)\n}\n");
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(type);
    EXPECT_TRUE(SameOnBothBackends(hlo, {Random(t, {4}, 1)})) << hlo;
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
