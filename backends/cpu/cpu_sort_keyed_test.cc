// Sorts whose comparator compares f(a) with f(b) for one operand's elements by LT or GT are
// radix-sorted by a compiled key (emit_sort.cc, runtime/sort.cc); lines with a NaN under a
// float comparison go through the comparator instead. Each case agrees with the
// interpreter's stable sort bit for bit: long and short lines (the radix sort starts at 64),
// many lines over threads, ties (stability), NaNs and signed zeros, every key type, JAX's
// canonicalizing comparator, descending orders, keys in a later operand, lines along a
// dimension that is not the minor-most, one long line, and comparators the key does not
// cover. Lexicographic comparators over several keys (JAX's for num_keys > 1 and complex
// operands, XLA's select forms) are radix-sorted by packed keys, least significant first.
#include <stdlib.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/runtime/runtime.h"
#include "backends/testing/sort_comparators.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::RandomLiteral;
using testing::SameOnBothBackends;

Literal Random(PrimitiveType t, const std::vector<int64_t>& dims, uint64_t seed) {
  std::mt19937_64 rng(seed);
  return RandomLiteral(ShapeUtil::MakeShape(t, dims), &rng, true);
}

// Values drawn from a few distinct ones (many ties), with NaNs (both signs) and both zeros
// when `specials`; a third of the rows of a 2-D shape get none of those.
Literal FewValues(PrimitiveType t, const std::vector<int64_t>& dims, uint64_t seed, bool specials) {
  std::mt19937_64 rng(seed);
  auto literal = Literal::Create(ShapeUtil::MakeShape(t, dims));
  EXPECT_TRUE(literal.ok());
  const int64_t n = ShapeUtil::ElementsIn(literal->shape());
  const int64_t row = dims.back();
  const std::vector<double> pool = {-2.5, -1, 0, 1, 3, 1e30, -1e30};
  for (int64_t i = 0; i < n; ++i) {
    const bool clean = dims.size() > 1 && (i / row) % 3 == 0;
    const int pick = static_cast<int>(rng() % 10);
    double v = pool[rng() % pool.size()];
    if (specials && !clean && pick == 0) v = std::nan("");
    if (specials && !clean && pick == 1) v = -std::nan("");
    if (specials && pick == 2) v = -0.0;
    if (primitive_util::IsFloatingPointType(t)) {
      literal->SetFromDouble(i, v);
    } else {
      literal->SetFromInt64(i, static_cast<int64_t>(rng() % 5));
    }
  }
  return *std::move(literal);
}

template <typename... L>
std::vector<Literal> Args(L&&... literals) {
  std::vector<Literal> v;
  (v.push_back(std::forward<L>(literals)), ...);
  return v;
}

std::string ShapeText(const std::string& t, const std::vector<int64_t>& dims) {
  return absl::StrCat(t, "[", absl::StrJoin(dims, ","), "]");
}

// sort(keys, iota) along `dim` with `body` as the comparator over (x, y, i, j): the iota shows
// where every element went.
std::string ArgSort(const std::string& t, const std::vector<int64_t>& dims, int64_t dim, const std::string& body,
                    const std::string& layout = "") {
  const std::string shape = ShapeText(t, dims) + layout, indices = ShapeText("s32", dims) + layout;
  return absl::StrCat("HloModule m\ncmp {\n  x = ", t, "[] parameter(0)\n  y = ", t,
                      "[] parameter(1)\n  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n", body,
                      "}\nENTRY e {\n  a = ", shape, " parameter(0)\n  n = ", indices, " iota(), iota_dimension=", dim,
                      "\n  ROOT s = (", shape, ", ", indices, ") sort(a, n), dimensions={", dim,
                      "}, is_stable=true, to_apply=cmp\n}\n");
}

// Whether the cpu backend compiles `hlo` (renamed `name`) to a call of the keyed sort, from
// the IR it dumps (XLA_CPU_DUMP_IR).
bool CallsKeyedSort(std::string hlo, const std::string& name, absl::Span<const Literal> arguments) {
  char dir[] = "/tmp/xla_sort_ir_XXXXXX";
  EXPECT_NE(mkdtemp(dir), nullptr);
  setenv("XLA_CPU_DUMP_IR", dir, 1);
  hlo.replace(0, hlo.find('\n'), "HloModule " + name);
  testing::RegisterBackendsOnce();
  const absl::StatusOr<Literal> result = xla::testing::RunHlo(hlo, arguments, "cpu");
  unsetenv("XLA_CPU_DUMP_IR");
  EXPECT_TRUE(result.ok()) << result.status();
  const std::string path = absl::StrCat(dir, "/", name, ".ll");
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << path;
  std::stringstream ir;
  ir << file.rdbuf();
  std::remove(path.c_str());
  std::remove(dir);
  return ir.str().find("__xla_cpu_sort_by_keys") != std::string::npos;
}
bool CallsKeyedSort(const std::string& hlo, const std::string& name, const Literal& argument) {
  return CallsKeyedSort(hlo, name, absl::MakeConstSpan(&argument, 1));
}

TEST(CpuSortKeyed, FloatsWithTiesNaNsAndZerosAgreeWithTheInterpreter) {
  const std::vector<std::string> comparators = {
      "  ROOT c = pred[] compare(x, y), direction=LT\n",
      "  ROOT c = pred[] compare(x, y), direction=GT\n",
      "  ROOT c = pred[] compare(x, y), direction=LT, type=TOTALORDER\n",
      "  ROOT c = pred[] compare(x, y), direction=GT, type=TOTALORDER\n",
      ::xla::testing::kJaxFloatLessBody,
  };
  for (const std::string& body : comparators) {
    EXPECT_TRUE(CallsKeyedSort(ArgSort("f32", {2, 100}, 1, body), "keyed", Random(F32, {2, 100}, 1))) << body;
    // 9 rows of 300 (radix, threads), 40 rows of 20 (short lines), one row of 5000.
    for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{9, 300}, {40, 20}, {1, 5000}}) {
      const std::string hlo = ArgSort("f32", dims, 1, body);
      EXPECT_TRUE(SameOnBothBackends(hlo, {FewValues(F32, dims, dims[0], true)})) << hlo;
      EXPECT_TRUE(SameOnBothBackends(hlo, {Random(F32, dims, dims[1])})) << hlo;
    }
  }
}

TEST(CpuSortKeyed, EveryKeyTypeAscendingAndDescending) {
  for (const char* type : {"pred", "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64", "f16", "bf16", "f64"}) {
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(type);
    for (const char* direction : {"LT", "GT"}) {
      const std::string body = absl::StrCat("  ROOT c = pred[] compare(x, y), direction=", direction, "\n");
      const std::string hlo = ArgSort(type, {6, 400}, 1, body);
      EXPECT_TRUE(SameOnBothBackends(hlo, {Random(t, {6, 400}, 7)})) << hlo;
      if (t != PRED) {
        EXPECT_TRUE(SameOnBothBackends(hlo, {FewValues(t, {6, 400}, 8, true)})) << hlo;
      }
    }
  }
}

TEST(CpuSortKeyed, LinesAlongOtherDimensionsAndLayouts) {
  // Along dimension 0 of a row-major array (strided lines), and of a column-major one.
  for (const char* layout : {"{1,0}", "{0,1}"}) {
    const std::string hlo = ArgSort("s32", {500, 70}, 0, "  ROOT c = pred[] compare(x, y), direction=LT\n", layout);
    EXPECT_TRUE(SameOnBothBackends(hlo, {FewValues(S32, {500, 70}, 9, false)})) << hlo;
  }
  const std::string f = ArgSort("f32", {3, 200, 5}, 1, "  ROOT c = pred[] compare(x, y), direction=GT\n");
  EXPECT_TRUE(SameOnBothBackends(f, {FewValues(F32, {3, 200, 5}, 10, true)})) << f;
}

// One line longer than the scratch a thread keeps (2^16 elements): ties, one value
// everywhere (every pass skipped), keys of 8, 32 and 64 bits, descending, and a NaN (the
// line goes through the comparator).
TEST(CpuSortKeyed, OneLongLine) {
  constexpr int64_t kLong = 150000;
  const std::string lt = "  ROOT c = pred[] compare(x, y), direction=LT\n";
  const std::string gt = "  ROOT c = pred[] compare(x, y), direction=GT\n";
  std::mt19937_64 rng(12);
  const Literal plain = RandomLiteral(ShapeUtil::MakeShape(F32, {1, kLong}), &rng, /*specials=*/false);
  EXPECT_TRUE(SameOnBothBackends(ArgSort("f32", {1, kLong}, 1, lt), {plain.Clone()}));
  EXPECT_TRUE(SameOnBothBackends(ArgSort("f32", {1, kLong}, 1, gt), {plain.Clone()}));
  EXPECT_TRUE(SameOnBothBackends(ArgSort("f32", {1, kLong}, 1, ::xla::testing::kJaxFloatLessBody),
                                 {FewValues(F32, {1, kLong}, 13, /*specials=*/false)}));
  EXPECT_TRUE(SameOnBothBackends(ArgSort("f32", {kLong}, 0, lt), {FewValues(F32, {kLong}, 14, /*specials=*/true)}));
  auto same = Literal::Create(ShapeUtil::MakeShape(S32, {kLong, 1}));
  ASSERT_TRUE(same.ok());
  for (int64_t i = 0; i < kLong; ++i) same->SetFromInt64(i, 5);
  EXPECT_TRUE(SameOnBothBackends(ArgSort("s32", {kLong, 1}, 0, lt), {*std::move(same)}));
  for (const char* type : {"u8", "s64", "u64"}) {
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(type);
    EXPECT_TRUE(SameOnBothBackends(ArgSort(type, {1, kLong}, 1, gt), {Random(t, {1, kLong}, 15)})) << type;
  }
}

TEST(CpuSortKeyed, KeysInALaterOperandAndComparatorsTheKeyDoesNotCover) {
  // The key is operand 1 (parameters 2 and 3), descending through a negation.
  const std::string later = R"(HloModule m
cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  x = f32[] parameter(2)
  y = f32[] parameter(3)
  nx = f32[] negate(x)
  ny = f32[] negate(y)
  ROOT c = pred[] compare(nx, ny), direction=LT
}
ENTRY e {
  v = s32[4,300] iota(), iota_dimension=1
  k = f32[4,300] parameter(0)
  ROOT s = (s32[4,300], f32[4,300]) sort(v, k), dimensions={1}, to_apply=cmp
})";
  EXPECT_TRUE(CallsKeyedSort(later, "later", FewValues(F32, {4, 300}, 11, true)));
  EXPECT_TRUE(SameOnBothBackends(later, {FewValues(F32, {4, 300}, 11, true)})) << later;
  // Keys: parameters swapped (y < x, descending), and a second key of descending positions
  // (ties in reverse order).
  for (const std::string& body : {
           std::string("  ROOT c = pred[] compare(y, x), direction=LT\n"),
           std::string("  lt = pred[] compare(x, y), direction=LT\n  eq = pred[] compare(x, y), direction=EQ\n"
                       "  li = pred[] compare(j, i), direction=LT\n  tie = pred[] and(eq, li)\n"
                       "  ROOT c = pred[] or(lt, tie)\n"),
       }) {
    const std::string hlo = ArgSort("f32", {5, 200}, 1, body);
    EXPECT_TRUE(CallsKeyedSort(hlo, "keyed", Random(F32, {5, 200}, 1))) << hlo;
    EXPECT_TRUE(SameOnBothBackends(hlo, {FewValues(F32, {5, 200}, 12, true)})) << hlo;
  }
  // Not keys: LE, a side reading the other operand, a tie test that is not the first key's
  // equality (x <= y; an equality of float type under a total-order less-than, which calls -0
  // and +0 equal where the less-than orders them; the other operand's equality), two
  // less-thans without a tie test. The comparator still sorts them.
  const std::string lt = "  lt = pred[] compare(x, y), direction=LT, type=TOTALORDER\n";
  const std::string by_index = "  li = pred[] compare(i, j), direction=LT\n  tie = pred[] and(eq, li)\n"
                               "  ROOT c = pred[] or(lt, tie)\n";
  for (const std::string& body : {
           std::string("  ROOT c = pred[] compare(x, y), direction=LE\n"),
           std::string("  xi = f32[] convert(i)\n  xj = f32[] convert(j)\n  sx = f32[] add(x, xi)\n"
                       "  sy = f32[] add(y, xj)\n  ROOT c = pred[] compare(sx, sy), direction=LT\n"),
           lt + "  eq = pred[] compare(x, y), direction=LE, type=TOTALORDER\n" + by_index,
           lt + "  eq = pred[] compare(x, y), direction=EQ\n" + by_index,
           lt + "  eq = pred[] compare(i, j), direction=EQ\n" + by_index,
           lt + "  li = pred[] compare(i, j), direction=LT\n  ROOT c = pred[] or(lt, li)\n",
       }) {
    const std::string hlo = ArgSort("f32", {5, 200}, 1, body);
    EXPECT_FALSE(CallsKeyedSort(hlo, "not_keyed", Random(F32, {5, 200}, 1))) << hlo;
    EXPECT_TRUE(SameOnBothBackends(hlo, {FewValues(F32, {5, 200}, 12, true)})) << hlo;
  }
}

// A comparator whose sides double a value 40 times, each step adding the previous one to
// itself: comparing the sides path by path would take 2^40 steps, so the key match gives up
// within its budget and the comparator sorts.
TEST(CpuSortKeyed, ComparatorsSharingSubexpressionsCompileQuickly) {
  std::string body;
  for (int d = 1; d <= 40; ++d) {
    absl::StrAppend(&body, "  x", d, " = f32[] add(x", d - 1, ", x", d - 1, ")\n  y", d, " = f32[] add(y", d - 1, ", y",
                    d - 1, ")\n");
  }
  absl::StrAppend(&body, "  ROOT c = pred[] compare(x40, y40), direction=LT\n");
  const std::string hlo = absl::StrReplaceAll(
      ArgSort("f32", {3, 100}, 1, body),
      {{"x = f32[] parameter(0)", "x0 = f32[] parameter(0)"}, {"y = f32[] parameter(1)", "y0 = f32[] parameter(1)"}});
  EXPECT_FALSE(CallsKeyedSort(hlo, "doubling", FewValues(F32, {3, 100}, 16, true))) << hlo;
  EXPECT_TRUE(SameOnBothBackends(hlo, {FewValues(F32, {3, 100}, 17, true)})) << hlo;
}

// sort(p0, ..., iota) of `types` (each [rows, cols]) along dimension 1 with `body` as the
// comparator over (x0, y0, x1, y1, ..., i, j); the iota shows where every element went.
std::string LexSort(const std::vector<std::string>& types, const std::vector<int64_t>& dims, const std::string& body) {
  std::string params, operands, shapes, entry;
  for (size_t k = 0; k < types.size(); ++k) {
    absl::StrAppend(&params, "  x", k, " = ", types[k], "[] parameter(", 2 * k, ")\n  y", k, " = ", types[k],
                    "[] parameter(", 2 * k + 1, ")\n");
    absl::StrAppend(&entry, "  p", k, " = ", ShapeText(types[k], dims), " parameter(", k, ")\n");
    absl::StrAppend(&operands, "p", k, ", ");
    absl::StrAppend(&shapes, ShapeText(types[k], dims), ", ");
  }
  return absl::StrCat("HloModule m\ncmp {\n", params, "  i = s32[] parameter(", 2 * types.size(),
                      ")\n  j = s32[] parameter(", 2 * types.size() + 1, ")\n", body, "}\nENTRY e {\n", entry,
                      "  n = ", ShapeText("s32", dims), " iota(), iota_dimension=1\n  ROOT s = (", shapes,
                      ShapeText("s32", dims), ") sort(", operands,
                      "n), dimensions={1}, is_stable=true, to_apply=cmp\n}\n");
}

// lax.sort((f, s, iota), num_keys=2) as JAX writes it: f32 keys with ties, NaNs and zeros,
// then s32 keys with ties; long lines, short ones (the radix sort starts at 64), one line.
TEST(CpuSortLexicographic, TwoKeysAsJaxWritesThem) {
  const std::string body =
      ::xla::testing::JaxCanonicalFloat(0, "f32") +
      ::xla::testing::JaxLexicographic({{"x0_", "y0_"}, {"x1", "y1", false}});
  const std::string hlo = LexSort({"f32", "s32"}, {9, 300}, body);
  EXPECT_TRUE(CallsKeyedSort(hlo, "lex2", Args(FewValues(F32, {9, 300}, 1, true), FewValues(S32, {9, 300}, 1, false))))
      << hlo;
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{9, 300}, {40, 20}, {1, 5000}}) {
    const std::string h = LexSort({"f32", "s32"}, dims, body);
    EXPECT_TRUE(SameOnBothBackends(h, {FewValues(F32, dims, 2, true), FewValues(S32, dims, 3, false)})) << h;
  }
  // The same with | and & taking their operands the other way round.
  const std::string swapped =
      absl::StrReplaceAll(body, {{"and(eq0, lt1)", "and(lt1, eq0)"}, {"or(lt0, and0)", "or(and0, lt0)"}});
  ASSERT_NE(swapped, body);
  const std::string h = LexSort({"f32", "s32"}, {9, 300}, swapped);
  EXPECT_TRUE(
      CallsKeyedSort(h, "lex2_swapped", Args(FewValues(F32, {9, 300}, 1, true), FewValues(S32, {9, 300}, 1, false))))
      << h;
  EXPECT_TRUE(SameOnBothBackends(h, {FewValues(F32, {9, 300}, 4, true), FewValues(S32, {9, 300}, 5, false)})) << h;
}

// jnp.sort of complex numbers: by real part, then imaginary part (JAX's comparator, total
// order, so NaNs are ordered too), c64 and c128; and a float (not total order) comparator,
// whose lines holding a NaN go through the comparator.
TEST(CpuSortLexicographic, ComplexByRealThenImaginary) {
  for (const auto& [c, f] : std::vector<std::pair<std::string, std::string>>{{"c64", "f32"}, {"c128", "f64"}}) {
    for (const char* type : {", type=TOTALORDER", ""}) {
      const std::string cmp = absl::StrReplaceAll(R"(HloModule m
cmp {
  x = C[] parameter(0)
  y = C[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  rx = F[] real(x)
  ry = F[] real(y)
  ix = F[] imag(x)
  iy = F[] imag(y)
  lt_r = pred[] compare(rx, ry), direction=LTTYPE
  eq_r = pred[] compare(rx, ry), direction=EQTYPE
  lt_i = pred[] compare(ix, iy), direction=LTTYPE
  tie = pred[] and(eq_r, lt_i)
  ROOT c = pred[] or(lt_r, tie)
}
ENTRY e {
  re = F[DIMS] parameter(0)
  im = F[DIMS] parameter(1)
  z = C[DIMS] complex(re, im)
  n = s32[DIMS] iota(), iota_dimension=1
  ROOT s = (C[DIMS], s32[DIMS]) sort(z, n), dimensions={1}, is_stable=true, to_apply=cmp
})",
                                                  {{"C", c}, {"F", f}, {"TYPE", type}});
      for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{9, 300}, {40, 20}}) {
        const std::string hlo = absl::StrReplaceAll(cmp, {{"DIMS", absl::StrJoin(dims, ",")}});
        const PrimitiveType ft = *primitive_util::StringToPrimitiveType(f);
        const std::vector<Literal> args = Args(FewValues(ft, dims, 6, true), FewValues(ft, dims, 7, true));
        EXPECT_TRUE(CallsKeyedSort(hlo, "complex", args)) << hlo;
        EXPECT_TRUE(SameOnBothBackends(hlo, args)) << hlo;
      }
    }
  }
}

// XLA's comparator generator's form, select(eq, rest, lt), and select(ne, lt, rest); three
// keys of 8, 16 and 1 bits in one radix key, descending ones among them; an f64 and an s32
// key (two radix keys of 64 and 32 bits); three 64-bit keys (three radix keys).
TEST(CpuSortLexicographic, SelectFormsAndPackedKeys) {
  const std::string three = R"(  lt0 = pred[] compare(x0, y0), direction=GT
  eq0 = pred[] compare(y0, x0), direction=EQ
  lt1 = pred[] compare(x1, y1), direction=LT
  ne1 = pred[] compare(x1, y1), direction=NE
  lt2 = pred[] compare(y2, x2), direction=LT
  r1 = pred[] select(ne1, lt1, lt2)
  ROOT c = pred[] select(eq0, r1, lt0)
)";
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{9, 300}, {40, 20}, {1, 3000}}) {
    const std::string hlo = LexSort({"u8", "s16", "pred"}, dims, three);
    const std::vector<Literal> args = Args(FewValues(U8, dims, 8, false), FewValues(S16, dims, 9, false),
                                       Random(PRED, dims, 10));
    EXPECT_TRUE(CallsKeyedSort(hlo, "three", args)) << hlo;
    EXPECT_TRUE(SameOnBothBackends(hlo, args)) << hlo;
  }
  const std::string two = ::xla::testing::JaxLexicographic({{"x0", "y0"}, {"y1", "x1", false}});
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{9, 300}, {40, 20}}) {
    const std::string hlo = LexSort({"f64", "s32"}, dims, two);
    const std::vector<Literal> args = Args(FewValues(F64, dims, 11, true), Random(S32, dims, 12));
    EXPECT_TRUE(CallsKeyedSort(hlo, "f64_s32", args)) << hlo;
    EXPECT_TRUE(SameOnBothBackends(hlo, args)) << hlo;
  }
  const std::string wide =
      ::xla::testing::JaxLexicographic({{"x0", "y0", false}, {"x1", "y1", false}, {"y2", "x2", false}});
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{9, 300}, {40, 20}}) {
    const std::string hlo = LexSort({"s64", "u64", "s64"}, dims, wide);
    const std::vector<Literal> args = Args(FewValues(S64, dims, 13, false), FewValues(U64, dims, 14, false),
                                       Random(S64, dims, 15));
    EXPECT_TRUE(CallsKeyedSort(hlo, "wide", args)) << hlo;
    EXPECT_TRUE(SameOnBothBackends(hlo, args)) << hlo;
  }
}

// Lines of kSplitLineFrom elements or more, fewer of them than SetSplitLinesBelow says
// (raised here so that several lines take that path on a machine of any size): each line's
// keys, radix passes and permutation are split over the threads. Rows (one keyed, one holding
// a NaN, so sorted through the comparator), strided lines in both layouts, a one-pass key
// with ties, packed lexicographic keys, and a comparator that is not a key form. (One line
// takes that path by default: OneLongLine.)
TEST(CpuSortSplit, LongLinesSortedByAllThreads) {
  constexpr int64_t kLong = kSplitLineFrom;
  const std::string lt = "  ROOT c = pred[] compare(x, y), direction=LT\n";
  const std::string gt = "  ROOT c = pred[] compare(x, y), direction=GT\n";
  SetSplitLinesBelow(64);
  // FewValues leaves row 0 without NaNs: row 1 goes through the comparator.
  EXPECT_TRUE(SameOnBothBackends(ArgSort("f32", {2, kLong}, 1, lt), {FewValues(F32, {2, kLong}, 21, true)}));
  for (const char* layout : {"{1,0}", "{0,1}"}) {
    const std::string hlo = ArgSort("s64", {kLong, 2}, 0, gt, layout);
    EXPECT_TRUE(SameOnBothBackends(hlo, {Random(S64, {kLong, 2}, 24)})) << hlo;
  }
  EXPECT_TRUE(SameOnBothBackends(ArgSort("u8", {1, kLong}, 1, lt), {FewValues(U8, {1, kLong}, 25, false)}));
  const std::string two = ::xla::testing::JaxLexicographic({{"x0", "y0"}, {"y1", "x1", false}});
  const std::string lex = LexSort({"f64", "s32"}, {1, kLong}, two);
  EXPECT_TRUE(
      SameOnBothBackends(lex, Args(FewValues(F64, {1, kLong}, 26, false), FewValues(S32, {1, kLong}, 27, false))))
      << lex;
  const std::string by_sum =
      "  xi = s32[] add(x, i)\n  yj = s32[] add(y, j)\n  ROOT c = pred[] compare(xi, yj), direction=LT\n";
  EXPECT_TRUE(SameOnBothBackends(ArgSort("s32", {1, kLong}, 1, by_sum), {FewValues(S32, {1, kLong}, 28, false)}));
  SetSplitLinesBelow(0);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
