// convolution, reduce-window, select-and-scatter, gather and scatter on cpu against the
// interpreter, on random inputs (specials included) over the attribute combinations that
// change the index arithmetic: padding (negative too), strides, dilations, reversal,
// groups, layouts, batching dims, out-of-range indices.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/testing/cumulative_windows.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::RandomLiteral;
using testing::SameOnBothBackends;

Literal Random(PrimitiveType t, std::vector<int64_t> dims, uint64_t seed, bool specials = true) {
  std::mt19937_64 rng(seed);
  return RandomLiteral(ShapeUtil::MakeShape(t, dims), &rng, specials);
}

// Same convolution on both backends for every listed element type.
void CheckConv(const std::string& lhs_dims, const std::string& rhs_dims, const std::string& out_dims,
               const std::string& attrs, std::vector<int64_t> l, std::vector<int64_t> r) {
  for (const char* type : {"f32", "f64", "f16", "bf16", "s32", "s8", "u8", "s64"}) {
    const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  a = ", type, lhs_dims, " parameter(0)\n  b = ", type,
                                         rhs_dims, " parameter(1)\n  ROOT c = ", type, out_dims, " convolution(a, b), ",
                                         attrs, "\n}\n");
    auto t = *primitive_util::StringToPrimitiveType(type);
    // Floats: exact, since both accumulate in f64 in the same order.
    EXPECT_TRUE(SameOnBothBackends(hlo, {Random(t, l, 1, false), Random(t, r, 2, false)})) << type;
  }
}

TEST(CpuConvolution, OneDimensionalWithPaddingStrideAndDilations) {
  CheckConv("[2,3,9]", "[4,3,3]", "[2,4,5]", "window={size=3 stride=2 pad=1_1}, dim_labels=bf0_oi0->bf0", {2, 3, 9},
            {4, 3, 3});
  CheckConv("[2,3,9]", "[4,3,3]", "[2,4,16]", "window={size=3 pad=2_-1 lhs_dilate=2 rhs_dilate=1}, dim_labels=bf0_oi0->bf0",
            {2, 3, 9}, {4, 3, 3});
  CheckConv("[2,3,9]", "[4,3,3]", "[2,4,5]", "window={size=3 rhs_dilate=2 rhs_reversal=1}, dim_labels=bf0_oi0->bf0",
            {2, 3, 9}, {4, 3, 3});
}

TEST(CpuConvolution, TwoDimensionalNhwcGroupsAndBatchGroups) {
  CheckConv("[2,5,6,4]", "[3,3,4,6]", "[2,5,6,6]", "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
            {2, 5, 6, 4}, {3, 3, 4, 6});
  CheckConv("[1,5,5,4]", "[3,2,2,8]", "[1,2,4,8]",
            "window={size=3x2 stride=2x1 pad=1_0x0_0}, dim_labels=b01f_01io->b01f, feature_group_count=2", {1, 5, 5, 4},
            {3, 2, 2, 8});
  CheckConv("[4,5,3]", "[3,3,6]", "[2,3,6]", "window={size=3}, dim_labels=b0f_0io->b0f, batch_group_count=2",
            {4, 5, 3}, {3, 3, 6});
}

TEST(CpuConvolution, NarrowIntegersSaturateAndMixedTypesConvertFirst) {
  const std::string hlo = R"(HloModule m
ENTRY e {
  a = s8[1,2,8] parameter(0)
  b = s8[3,2,3] parameter(1)
  ROOT c = s16[1,3,6] convolution(a, b), window={size=3}, dim_labels=bf0_oi0->bf0
})";
  EXPECT_TRUE(SameOnBothBackends(hlo, {Random(S8, {1, 2, 8}, 3), Random(S8, {3, 2, 3}, 4)}));
  EXPECT_TRUE(SameOnBothBackends(absl::StrReplaceAll(hlo, {{"s16[", "s8["}}),
                                 {Random(S8, {1, 2, 8}, 5), Random(S8, {3, 2, 3}, 6)}));
}

// One window dimension: size, stride, padding low/high, base and window dilation.
struct WinDim {
  int64_t size, stride, lo, hi, base, dil;
};

std::string WindowText(const std::vector<WinDim>& w) {
  std::string size, stride, pad, lhs, rhs;
  for (size_t d = 0; d < w.size(); ++d) {
    const char* x = d ? "x" : "";
    absl::StrAppend(&size, x, w[d].size);
    absl::StrAppend(&stride, x, w[d].stride);
    absl::StrAppend(&pad, x, w[d].lo, "_", w[d].hi);
    absl::StrAppend(&lhs, x, w[d].base);
    absl::StrAppend(&rhs, x, w[d].dil);
  }
  return absl::StrCat("size=", size, " stride=", stride, " pad=", pad, " lhs_dilate=", lhs, " rhs_dilate=", rhs);
}

int64_t WindowOutput(const WinDim& w, int64_t n) {
  const int64_t padded = (n - 1) * w.base + 1 + w.lo + w.hi;
  const int64_t effective = (w.size - 1) * w.dil + 1;
  return padded < effective ? 0 : (padded - effective) / w.stride + 1;
}

TEST(CpuReduceWindow, SumsMaxesAndVariadicWithPaddingAndDilations) {
  const std::vector<std::vector<WinDim>> windows = {{{2, 2, 1, 1, 1, 1}, {3, 1, 0, 2, 1, 1}},
                                                    {{3, 1, 0, 0, 2, 1}, {2, 1, 1, 1, 1, 2}},
                                                    {{1, 1, 0, 0, 1, 1}, {1, 1, 0, 0, 1, 1}},
                                                    {{2, 3, -1, 0, 1, 1}, {2, 3, 0, 0, 1, 1}}};
  for (const char* type : {"f32", "s32", "f16", "u8"}) {
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(type);
    for (const auto& window : windows) {
      for (const char* op : {"add", "maximum"}) {
        const std::string out = absl::StrCat(WindowOutput(window[0], 5), ",", WindowOutput(window[1], 7));
        const std::string hlo = absl::StrReplaceAll(
            absl::StrCat("HloModule m\nr {\n  x = T[] parameter(0)\n  y = T[] parameter(1)\n  ROOT z = T[] ", op,
                         "(x, y)\n}\nENTRY e {\n  a = T[5,7] parameter(0)\n  i = T[] constant(1)\n  ROOT w = T[", out,
                         "] reduce-window(a, i), window={", WindowText(window), "}, to_apply=r\n}\n"),
            {{"T[", absl::StrCat(type, "[")}});
        EXPECT_TRUE(SameOnBothBackends(hlo, {Random(t, {5, 7}, 7, false)}));
      }
    }
  }
  const std::string argmax = absl::StrCat("HloModule m\n", xla::testing::kMaxWithPositionReducer, R"(ENTRY e {
  a = f32[6,5]{0,1} parameter(0)
  idx = s32[6,5] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  z = s32[] constant(-1)
  ROOT w = (f32[3,4], s32[3,4]) reduce-window(a, idx, lo, z), window={size=3x2 stride=2x1 pad=1_0x0_0}, to_apply=reduce
})");
  EXPECT_TRUE(SameOnBothBackends(argmax, {Random(F32, {6, 5}, 8)}));
}

// Windows of one element along the minor-most dimensions (NHWC pooling's channels) run with
// the loop over those elements innermost (ir_emitter.h InnerWindowSplit); each element still
// takes the reducer in row-major window order, so a reducer that neither commutes nor
// associates (subtract) and per-step rounding (f16, bf16) come out as the interpreter's.
TEST(CpuReduceWindow, WindowsOverMinorChannels) {
  struct Case {
    const char* type;
    const char* op;
    const char* in;
    const char* out;
    const char* window;
    std::vector<int64_t> dims;
  };
  const std::vector<Case> cases = {
      {"f32", "maximum", "[2,7,9,16]", "[2,4,5,16]", "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0", {2, 7, 9, 16}},
      {"f16", "add", "[2,5,6,12]", "[2,9,2,12]",
       "size=1x2x3x1 stride=1x1x2x1 pad=0_0x2_-1x0_1x0_0 lhs_dilate=1x2x1x1 rhs_dilate=1x1x2x1", {2, 5, 6, 12}},
      {"bf16", "add", "[3,6,6,8]", "[3,3,3,8]", "size=1x2x2x1 stride=1x2x2x1", {3, 6, 6, 8}},
      {"f32", "subtract", "[3,5,4,8]", "[2,5,4,8]", "size=2x2x1x1 pad=0_0x0_1x0_0x0_0", {3, 5, 4, 8}},
      {"s32", "add", "[2,6,6,16]{2,1,3,0}", "[2,3,6,16]", "size=1x3x3x1 stride=1x2x1x1 pad=0_0x0_1x1_1x0_0", {2, 6, 6, 16}},
      {"u8", "maximum", "[4,9,10]", "[4,4,10]{1,2,0}", "size=1x3x1 stride=1x2x1", {4, 9, 10}},
      {"f64", "minimum", "[2,8,3,3,9]", "[2,7,2,3,9]", "size=1x2x2x1x1 pad=0_0x0_0x0_0x0_0x0_0", {2, 8, 3, 3, 9}},
  };
  for (const Case& c : cases) {
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(c.type);
    const std::string hlo = absl::StrReplaceAll(
        absl::StrCat("HloModule m\nr {\n  x = $T[] parameter(0)\n  y = $T[] parameter(1)\n  ROOT z = $T[] ", c.op,
                     "(x, y)\n}\nENTRY e {\n  a = $T", c.in, " parameter(0)\n  i = $T[] constant(1)\n  ROOT w = $T", c.out,
                     " reduce-window(a, i), window={", c.window, "}, to_apply=r\n}\n"),
        {{"$T", c.type}});
    EXPECT_TRUE(SameOnBothBackends(hlo, {Random(t, c.dims, 11, true)}));
  }
  const std::string argmax = absl::StrCat("HloModule m\n", xla::testing::kMaxWithPositionReducer, R"(ENTRY e {
  a = f32[2,6,5,16] parameter(0)
  idx = s32[2,6,5,16] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  z = s32[] constant(-1)
  ROOT w = (f32[2,3,4,16], s32[2,3,4,16]{3,1,2,0}) reduce-window(a, idx, lo, z), window={size=1x3x2x1 stride=1x2x1x1 pad=0_0x1_0x0_0x0_0}, to_apply=reduce
})");
  EXPECT_TRUE(SameOnBothBackends(argmax, {Random(F32, {2, 6, 5, 16}, 12)}));
}

// Window dimensions of more than 16 positions (ir_emitter.h ClippedWindowDimensions) visit
// only the positions that land on the operand, solved per output position: every mix of
// stride, padding, window dilation and base dilation (whose holes are stepped over, a
// congruence when the dilations share factors) against the interpreter's walk over every
// tap, with a reducer that neither commutes nor associates so that the order shows.
TEST(CpuReduceWindow, LargeWindowsVisitOnlyTheirElements) {
  for (int64_t dil : {1, 2, 3}) {
    for (int64_t base : {1, 2, 3, 4}) {
      std::string shapes, ops, names;
      int count = 0;
      for (int64_t size : {17, 40}) {
        for (int64_t stride : {1, 3}) {
          for (int64_t lo : {-3, 0, 25}) {
            for (int64_t hi : {0, 20}) {
              const WinDim w{size, stride, lo, hi, base, dil};
              const int64_t out = WindowOutput(w, 9);
              if (out <= 0) continue;
              const std::string name = absl::StrCat("w", count++);
              absl::StrAppend(&ops, "  ", name, " = f32[", out, "] reduce-window(a, i), window={", WindowText({w}),
                              "}, to_apply=r\n");
              absl::StrAppend(&shapes, shapes.empty() ? "" : ", ", "f32[", out, "]");
              absl::StrAppend(&names, names.empty() ? "" : ", ", name);
            }
          }
        }
      }
      const std::string hlo = absl::StrCat(
          "HloModule m\nr {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT z = f32[] subtract(x, y)\n}\n",
          "ENTRY e {\n  a = f32[9] parameter(0)\n  i = f32[] constant(1)\n", ops, "  ROOT t = (", shapes, ") tuple(",
          names, ")\n}\n");
      EXPECT_TRUE(SameOnBothBackends(hlo, {Random(F32, {9}, 21, false)})) << "dilations " << dil << ", " << base;
    }
  }
  // Windows of 2^11 to 2^31 positions, nearly all padding, cost the elements they cover (a
  // walk over every position would run for minutes to years): the generic loop, the NHWC
  // path over minor channels, and a window of many small dimensions (8^5 positions, of which
  // the largest dimensions are solved for until 4096 remain).
  const std::vector<std::pair<std::string, std::vector<int64_t>>> huge = {
      {"f32[4,4,4] parameter(0)\n  i = f32[] constant(1)\n  ROOT w = f32[4,4,4] reduce-window(a, i), "
       "window={size=2048x2048x2048 pad=1023_1024x1023_1024x1023_1024}, to_apply=r",
       {4, 4, 4}},
      {"f32[3] parameter(0)\n  i = f32[] constant(1)\n  ROOT w = f32[5] reduce-window(a, i), "
       "window={size=2147483648 pad=2147483647_0 lhs_dilate=2}, to_apply=r",
       {3}},
      {"f32[2,5,5,8] parameter(0)\n  i = f32[] constant(1)\n  ROOT w = f32[2,6,6,8] reduce-window(a, i), "
       "window={size=1x40x40x1 pad=0_0x20_20x20_20x0_0}, to_apply=r",
       {2, 5, 5, 8}},
      {"f32[2,2,2,2,2] parameter(0)\n  i = f32[] constant(1)\n  ROOT w = f32[2,2,2,2,2] reduce-window(a, i), "
       "window={size=8x8x8x8x8 pad=4_3x4_3x4_3x4_3x4_3}, to_apply=r",
       {2, 2, 2, 2, 2}},
  };
  for (const auto& [entry, dims] : huge) {
    const std::string hlo = absl::StrCat(
        "HloModule m\nr {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT z = f32[] subtract(x, y)\n}\n",
        "ENTRY e {\n  a = ", entry, "\n}\n");
    EXPECT_TRUE(SameOnBothBackends(hlo, {Random(F32, dims, 22, false)})) << entry;
  }
}

TEST(CpuSelectAndScatter, MaxPoolGradientWithOverlapAndPadding) {
  for (const char* type : {"f32", "s32"}) {
    const std::string hlo = absl::StrReplaceAll(R"(HloModule m
ge {
  x = T[] parameter(0)
  y = T[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=GE
}
add {
  x = T[] parameter(0)
  y = T[] parameter(1)
  ROOT s = T[] add(x, y)
}
ENTRY e {
  a = T[6,7] parameter(0)
  s = T[3,4] parameter(1)
  z = T[] constant(0)
  ROOT r = T[6,7] select-and-scatter(a, s, z), window={size=3x3 stride=2x2 pad=1_0x1_1}, select=ge, scatter=add
})",
                                                {{"T[", absl::StrCat(type, "[")}});
    auto t = *primitive_util::StringToPrimitiveType(type);
    EXPECT_TRUE(SameOnBothBackends(hlo, {Random(t, {6, 7}, 9, false), Random(t, {3, 4}, 10, false)})) << type;
  }
}

// Windows of one along the minor-most dimension (NHWC max pooling's channels) take the
// lanes path (ir_emitter.h InnerSelectSplit): selections over a chunk of channels at once,
// scatters in the interpreter's order per element. Overlapping windows, padding, dilations,
// a scatter that neither commutes nor associates (subtract), per-step rounding (bf16), NaNs
// under a float select, channels cut into several chunks (130: 44, 44 and 42), a fixed dimension between
// window dimensions, and layouts of the operands and result that differ.
TEST(CpuSelectAndScatter, LanesOfMinorChannels) {
  struct Case {
    const char* type;
    const char* select;
    const char* scatter;
    const char* operand;
    const char* source;
    const char* result;
    const char* window;
    std::vector<int64_t> operand_dims, source_dims;
    bool specials;
  };
  const std::vector<Case> cases = {
      {"f32", "GE", "add", "[2,7,9,16]", "[2,4,5,16]", "[2,7,9,16]", "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0",
       {2, 7, 9, 16}, {2, 4, 5, 16}, true},
      {"bf16", "GT", "add", "[2,6,6,130]", "[2,3,3,130]", "[2,6,6,130]", "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_0x1_0x0_0",
       {2, 6, 6, 130}, {2, 3, 3, 130}, false},
      {"f32", "LT", "subtract", "[3,8,2,12]", "[2,8,2,12]", "[3,8,2,12]", "size=2x1x2x1 pad=0_0x0_0x0_1x0_0",
       {3, 8, 2, 12}, {2, 8, 2, 12}, false},
      {"s32", "GE", "add", "[2,5,5,9]{2,1,3,0}", "[2,5,3,9]", "[2,5,5,9]", "size=1x2x3x1 stride=1x1x2x1 pad=0_0x0_1x1_1x0_0",
       {2, 5, 5, 9}, {2, 5, 3, 9}, false},
      {"f16", "GE", "add", "[2,5,6,8]", "[2,9,2,8]", "[2,5,6,8]{3,2,1,0}",
       "size=1x2x3x1 stride=1x1x2x1 pad=0_0x2_-1x0_1x0_0 lhs_dilate=1x2x1x1 rhs_dilate=1x1x2x1", {2, 5, 6, 8},
       {2, 9, 2, 8}, false},
      // Windows of 40 x 40 over 3 x 3 (solved for, ClippedWindowDimensions), and one whose
      // positions do not count in 63 bits (2^31 x 2^31 x 2: the path without lanes).
      {"f32", "GE", "subtract", "[2,3,3,16]", "[2,3,3,16]", "[2,3,3,16]", "size=1x40x40x1 pad=0_0x20_19x20_19x0_0",
       {2, 3, 3, 16}, {2, 3, 3, 16}, false},
      {"f32", "GE", "subtract", "[2,2,2,16]", "[1,2,2,16]", "[2,2,2,16]",
       "size=2x2147483648x2147483648x1 pad=0_0x2147483647_0x2147483647_0x0_0", {2, 2, 2, 16}, {1, 2, 2, 16}, false},
      {"f32", "GE", "subtract", "[3,3]", "[3,3]", "[3,3]", "size=40x40 pad=20_19x20_19", {3, 3}, {3, 3}, false},
  };
  for (const Case& c : cases) {
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(c.type);
    const std::string hlo = absl::StrReplaceAll(
        absl::StrCat("HloModule m\nsel {\n  x = $T[] parameter(0)\n  y = $T[] parameter(1)\n  ROOT c = pred[] ",
                     "compare(x, y), direction=", c.select, "\n}\nsc {\n  x = $T[] parameter(0)\n  y = $T[] parameter(1)\n",
                     "  ROOT s = $T[] ", c.scatter, "(x, y)\n}\nENTRY e {\n  a = $T", c.operand, " parameter(0)\n  s = $T",
                     c.source, " parameter(1)\n  z = $T[] constant(1)\n  ROOT r = $T", c.result,
                     " select-and-scatter(a, s, z), window={", c.window, "}, select=sel, scatter=sc\n}\n"),
        {{"$T", c.type}});
    EXPECT_TRUE(SameOnBothBackends(hlo, {Random(t, c.operand_dims, 13, c.specials), Random(t, c.source_dims, 14, false)}));
  }
}

TEST(CpuGather, RowsBatchingAndClampedStarts) {
  const std::string rows = R"(HloModule m
ENTRY e {
  a = f32[5,4] parameter(0)
  i = s32[3,1] parameter(1)
  ROOT g = f32[3,2,4] gather(a, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,4}
})";
  // Out-of-range starts (-1, 4, 100) clamp so the slice fits.
  EXPECT_TRUE(SameOnBothBackends(rows, {Random(F32, {5, 4}, 11), xla::testing::L("s32[3,1] {{-1}, {4}, {100}}")}));
  const std::string points = R"(HloModule m
ENTRY e {
  a = s32[4,6] parameter(0)
  i = u64[2,5] parameter(1)
  ROOT g = s32[5] gather(a, i), offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={1,0}, index_vector_dim=0, slice_sizes={1,1}
})";
  EXPECT_TRUE(SameOnBothBackends(
      points, {Random(S32, {4, 6}, 12), xla::testing::L("u64[2,5] {{0, 5, 7, 18446744073709551615, 2}, {3, 1, 0, 2, 9}}")}));
  const std::string batched = R"(HloModule m
ENTRY e {
  a = f32[3,5,2] parameter(0)
  i = s64[3,2,1] parameter(1)
  ROOT g = f32[3,2,2] gather(a, i), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,2}
})";
  EXPECT_TRUE(SameOnBothBackends(batched, {Random(F32, {3, 5, 2}, 13), xla::testing::L("s64[3,2,1] {{{0},{4}},{{2},{-3}},{{9},{1}}}")}));
}

TEST(CpuScatter, AddOverwriteDuplicatesAndOutOfRangeWindows) {
  for (const char* root : {"add(x, y)", "subtract(x, y)", "maximum(x, y)"}) {
    const std::string hlo = absl::StrCat(R"(HloModule m
c {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] )",
                                         root, R"(
}
ENTRY e {
  a = f32[6,3] parameter(0)
  i = s32[5] parameter(1)
  u = f32[5,2,3] parameter(2)
  ROOT s = f32[6,3] scatter(a, i, u), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=c
})");
    // Starts 1 and 1 overlap (order matters for subtract); 5 and -1 leave the operand.
    EXPECT_TRUE(SameOnBothBackends(hlo, {Random(F32, {6, 3}, 14, false), xla::testing::L("s32[5] {1, 4, 1, 5, -1}"),
                                         Random(F32, {5, 2, 3}, 15, false)}))
        << root;
  }
  const std::string overwrite = R"(HloModule m
c {
  x = s32[] parameter(0)
  ROOT y = s32[] parameter(1)
}
ENTRY e {
  a = s32[4,5]{0,1} parameter(0)
  i = s32[2,3,2] parameter(1)
  u = s32[2,3] parameter(2)
  ROOT s = s32[4,5] scatter(a, i, u), update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=2, to_apply=c
})";
  EXPECT_TRUE(SameOnBothBackends(overwrite, {Random(S32, {4, 5}, 16),
                                             xla::testing::L("s32[2,3,2] {{{0,0},{3,4},{1,2}},{{0,0},{4,0},{2,2}}}"),
                                             Random(S32, {2, 3}, 17)}));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
