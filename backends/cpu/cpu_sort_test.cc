// sort on cpu against the interpreter: single and variadic (key/value), along each
// dimension, non-default layouts, NaNs and duplicates (stability), total-order compares.
#include <cmath>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/runtime/runtime.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::RandomLiteral;
using testing::SameOnBothBackends;

Literal Random(PrimitiveType t, std::vector<int64_t> dims, uint64_t seed) {
  std::mt19937_64 rng(seed);
  return RandomLiteral(ShapeUtil::MakeShape(t, dims), &rng, true);
}

TEST(CpuSort, EachDimensionAndLayoutWithSpecials) {
  for (const char* type : {"f32", "s32", "f16", "u8", "f64"}) {
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(type);
    for (const char* layout : {"{2,1,0}", "{0,2,1}"}) {
      for (int dim = 0; dim < 3; ++dim) {
        for (const char* compare : {"direction=LT", "direction=GT, type=TOTALORDER"}) {
          if (std::string(compare).find("TOTAL") != std::string::npos && t != F32 && t != F16 && t != F64) continue;
          const std::string hlo = absl::StrCat("HloModule m\nlt {\n  x = ", type, "[] parameter(0)\n  y = ", type,
                                               "[] parameter(1)\n  ROOT c = pred[] compare(x, y), ", compare,
                                               "\n}\nENTRY e {\n  a = ", type, "[4,9,3]", layout,
                                               " parameter(0)\n  ROOT s = ", type, "[4,9,3]", layout,
                                               " sort(a), dimensions={", dim, "}, to_apply=lt\n}\n");
          EXPECT_TRUE(SameOnBothBackends(hlo, {Random(t, {4, 9, 3}, 20 + dim)})) << hlo;
        }
      }
    }
  }
}

TEST(CpuSort, KeyValueIsStableOnDuplicateKeys) {
  const std::string hlo = R"(HloModule m
lt {
  k0 = s32[] parameter(0)
  k1 = s32[] parameter(1)
  v0 = f32[] parameter(2)
  v1 = f32[] parameter(3)
  ROOT c = pred[] compare(k0, k1), direction=LT
}
ENTRY e {
  k = s32[3,16] parameter(0)
  v = f32[3,16] parameter(1)
  ROOT s = (s32[3,16], f32[3,16]) sort(k, v), dimensions={1}, is_stable=true, to_apply=lt
})";
  auto keys = Literal::Create(ShapeUtil::MakeShape(S32, {3, 16}));
  for (int64_t i = 0; i < 48; ++i) keys->SetFromInt64(i, (i * 7) % 4);
  EXPECT_TRUE(SameOnBothBackends(hlo, {*std::move(keys), Random(F32, {3, 16}, 30)}));
}

TEST(CpuTopK, TypesLayoutsDirectionsAndTies) {
  for (const char* type : {"f32", "f16", "bf16", "s8", "u32", "s64", "f64"}) {
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(type);
    for (const char* layout : {"{1,0}", "{0,1}"}) {
      for (const char* largest : {"true", "false"}) {
        for (int k : {0, 1, 5, 12}) {
          const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  a = ", type, "[6,12]", layout,
                                               " parameter(0)\n  ROOT t = (", type, "[6,", k, "]", layout, ", s32[6,",
                                               k, "]) topk(a), k=", k, ", largest=", largest, "\n}\n");
          // Few distinct values (duplicates, so ties) mixed with specials (NaN, +-0, +-inf).
          std::mt19937_64 rng(50 + k);
          Literal a = RandomLiteral(ShapeUtil::MakeShape(t, {6, 12}), &rng, true);
          for (int64_t i = 0; i < 72; i += 5) a.SetFromDouble(i, 3);
          EXPECT_TRUE(SameOnBothBackends(hlo, {std::move(a)})) << hlo;
        }
      }
    }
  }
}

// Rows long enough for the one-pass selection to cut its candidates many times (runtime/
// topk.cc), over threads: random rows, rows of a few values (ties everywhere), rows already
// in increasing and decreasing order (every element a candidate), and NaNs of both signs
// with both zeros, for k from 1 to the whole row.
TEST(CpuTopK, LongRowsSelectAsAStableSortWould) {
  constexpr int64_t kRows = 24, kLength = 3000;
  for (const char* type : {"f32", "bf16", "s32", "u64", "f64", "pred"}) {
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(type);
    for (int pattern = 0; pattern < 4; ++pattern) {
      std::mt19937_64 rng(70 + pattern);
      Literal a = RandomLiteral(ShapeUtil::MakeShape(t, {kRows, kLength}), &rng, /*specials=*/pattern == 0);
      for (int64_t i = 0; i < kRows * kLength; ++i) {
        const int64_t j = i % kLength;
        if (pattern == 1) a.SetFromInt64(i, static_cast<int64_t>(rng() % 4));
        if (pattern == 2) a.SetFromInt64(i, (i / kLength) % 2 == 0 ? j : kLength - j);
        if (pattern == 3 && t != PRED) a.SetFromDouble(i, j % 7 == 0 ? std::nan("") : (j % 11 == 0 ? -0.0 : 0.0));
        if (pattern == 3 && j % 13 == 0 && primitive_util::IsFloatingPointType(t)) a.SetFromDouble(i, -std::nan(""));
      }
      for (const char* largest : {"true", "false"}) {
        for (int64_t k : {int64_t{1}, int64_t{7}, int64_t{40}, int64_t{100}, int64_t{1700}, kLength}) {
          const std::string hlo =
              absl::StrCat("HloModule m\nENTRY e {\n  a = ", type, "[", kRows, ",", kLength, "] parameter(0)\n  ROOT t = (",
                           type, "[", kRows, ",", k, "], s32[", kRows, ",", k, "]) topk(a), k=", k, ", largest=", largest,
                           "\n}\n");
          EXPECT_TRUE(SameOnBothBackends(hlo, absl::MakeConstSpan(&a, 1))) << type << " pattern " << pattern;
        }
      }
    }
  }
}

// Rows of kSplitLineFrom elements or more, fewer than SetSplitLinesBelow says (raised here so
// that several rows take that path on any machine): each row's parts select their k best
// over the threads, then the row's k best are the best of those. Random rows with specials,
// rows of a few values (ties across parts), increasing rows (every element a candidate), a
// column-major layout (strided rows), k up to length / 16 (split) and beyond (not split).
TEST(CpuTopK, LongRowsSplitOverThreads) {
  constexpr int64_t kRows = 3, kLength = kSplitLineFrom + 7232;  // 40000
  SetSplitLinesBelow(64);
  for (const char* type : {"f32", "s32", "bf16"}) {
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(type);
    for (int pattern = 0; pattern < 3; ++pattern) {
      std::mt19937_64 rng(90 + pattern);
      Literal a = RandomLiteral(ShapeUtil::MakeShape(t, {kRows, kLength}), &rng, /*specials=*/pattern == 0);
      for (int64_t i = 0; i < kRows * kLength; ++i) {
        if (pattern == 1) a.SetFromInt64(i, static_cast<int64_t>(rng() % 3));
        if (pattern == 2) a.SetFromInt64(i, (i % kLength) % 100);
      }
      for (const char* layout : {"{1,0}", "{0,1}"}) {
        if (std::string(layout) == "{0,1}" && t != F32) continue;
        for (const char* largest : {"true", "false"}) {
          for (int64_t k : {int64_t{1}, int64_t{40}, kLength / 16, kLength / 8}) {
            const std::string shape = absl::StrCat("[", kRows, ",", kLength, "]", layout);
            const std::string out = absl::StrCat("[", kRows, ",", k, "]", layout);
            const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  a = ", type, shape,
                                                 " parameter(0)\n  ROOT t = (", type, out, ", s32", out,
                                                 ") topk(a), k=", k, ", largest=", largest, "\n}\n");
            EXPECT_TRUE(SameOnBothBackends(hlo, absl::MakeConstSpan(&a, 1))) << type << " pattern " << pattern;
          }
        }
      }
    }
  }
  SetSplitLinesBelow(0);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
