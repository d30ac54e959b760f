// Cumulative reduce-windows (JAX's lowering of cumsum, cumprod, cummax, cummin and
// logcumsumexp) run as scans along their dimension (AsCumulativeWindow, ir_emitter.h): which
// windows are taken, and agreement with the interpreter, bit for bit for forward scans with
// any reducer and init, within float rounding for reverse sums and products.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/codegen/cumulative_window.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/testing/cumulative_windows.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

using testing::RandomLiteral;
using testing::SameOnBothBackends;
using ::xla::testing::CumulativeWindowModule;
using ::xla::testing::CumMaxWithPositionModule;
using ::xla::testing::kLogCumSumExpModule;

std::optional<CumulativeWindow> Recognized(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(text);
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << text;
  if (!module.ok()) return std::nullopt;
  return AsCumulativeWindow(*(*module)->entry_computation()->root_instruction());
}

Literal Random(PrimitiveType t, std::vector<int64_t> dims, uint64_t seed, bool specials = true) {
  std::mt19937_64 rng(seed);
  return RandomLiteral(ShapeUtil::MakeShape(t, dims), &rng, specials);
}

TEST(CpuCumulativeWindow, TakesWholeDimensionWindowsPaddedBeforeOrAfter) {
  std::optional<CumulativeWindow> w = Recognized(CumulativeWindowModule("f32", {8}, 0, false, "add(a, b)"));
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->dimension, 0);
  EXPECT_FALSE(w->reverse);
  w = Recognized(CumulativeWindowModule("f32", {3, 8, 5}, 1, true, "maximum(b, a)"));
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->dimension, 1);
  EXPECT_TRUE(w->reverse);
  // Not cumulative: a shorter window, a stride, two windowed dimensions, no window at all.
  EXPECT_FALSE(Recognized(CumulativeWindowModule("f32", {8}, 0, false, "add(a, b)", "0", "window={size=4 pad=3_0}")).has_value());
  EXPECT_FALSE(Recognized(CumulativeWindowModule("f32", {8}, 0, false, "add(a, b)", "0", "window={size=8 stride=2 pad=7_0}")).has_value());
  EXPECT_FALSE(Recognized(CumulativeWindowModule("f32", {4, 4}, 0, false, "add(a, b)", "0", "window={size=4x4 pad=3_0x3_0}")).has_value());
  EXPECT_FALSE(Recognized(CumulativeWindowModule("f32", {4, 4}, 0, false, "add(a, b)", "0", "window={size=1x1}")).has_value());
  // A reverse scan reassociates: only add, multiply, max, min and bit ops of the parameters.
  EXPECT_FALSE(Recognized(CumulativeWindowModule("f32", {8}, 0, true, "subtract(a, b)")).has_value());
  EXPECT_TRUE(Recognized(CumulativeWindowModule("f32", {8}, 0, false, "subtract(a, b)")).has_value());
}

TEST(CpuCumulativeWindow, ForwardScansAreExactWithAnyReducerAndInit) {
  struct Case {
    std::string type, reducer, init;
  };
  const std::vector<Case> cases = {
      {"f32", "add(a, b)", "0"},       {"f32", "add(a, b)", "5"},          {"f64", "multiply(a, b)", "1"},
      {"f32", "maximum(a, b)", "-inf"}, {"bf16", "add(b, a)", "0"},         {"s32", "add(a, b)", "0"},
      {"u8", "multiply(a, b)", "1"},    {"f32", "subtract(b, a)", "0.25"},  {"f16", "minimum(a, b)", "inf"},
  };
  for (const Case& c : cases) {
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{1000}, std::vector<int64_t>{7, 33, 5}}) {
      for (int64_t axis = 0; axis < static_cast<int64_t>(dims.size()); ++axis) {
        if (dims[axis] < 2) continue;
        const std::string text = CumulativeWindowModule(c.type, dims, axis, false, c.reducer, c.init);
        ASSERT_TRUE(Recognized(text).has_value()) << text;
        const PrimitiveType t = *primitive_util::StringToPrimitiveType(c.type);
        // No infinities in f64 products: inf * 0 there gives NaNs whose sign bit differs from
        // the interpreter's in the per-element reduce-window kernel as well (a NaN either way).
        const bool specials = !(c.type == "f64" && c.reducer.rfind("multiply", 0) == 0);
        EXPECT_TRUE(SameOnBothBackends(text, {Random(t, dims, 7 + axis, specials)})) << text;
      }
    }
  }
}

TEST(CpuCumulativeWindow, LogCumSumExpAndVariadicCumMaxAreExact) {
  // logcumsumexp: the reducer is log(exp(a) + exp(b)) in its stable form.
  const std::string logaddexp = kLogCumSumExpModule;
  EXPECT_TRUE(Recognized(logaddexp).has_value());
  EXPECT_TRUE(SameOnBothBackends(logaddexp, {Random(F32, {4, 300}, 3, /*specials=*/false)}));
  // A running maximum with the position it was first reached (two operands).
  const std::string cummax = CumMaxWithPositionModule({500}, 0);
  EXPECT_TRUE(SameOnBothBackends(cummax, {Random(F32, {500}, 4)}));
}

TEST(CpuCumulativeWindow, ReverseScansAgreeExactlyForIntegersAndOrderOpsWithinRoundingForSums) {
  for (const std::string& reducer : {std::string("add(a, b)"), std::string("xor(a, b)"), std::string("multiply(b, a)")}) {
    const std::string text = CumulativeWindowModule("s32", {6, 400}, 1, true, reducer, reducer == "multiply(b, a)" ? "1" : "0");
    ASSERT_TRUE(Recognized(text).has_value());
    EXPECT_TRUE(SameOnBothBackends(text, {Random(S32, {6, 400}, 5)})) << text;
  }
  const std::string max = CumulativeWindowModule("f32", {300, 3}, 0, true, "maximum(a, b)", "-inf");
  EXPECT_TRUE(SameOnBothBackends(max, {Random(F32, {300, 3}, 6)}));
  // A reverse cumsum (the gradient of a cumsum) sums from the end.
  const std::string sum = CumulativeWindowModule("f32", {2000}, 0, true, "add(a, b)");
  ASSERT_TRUE(Recognized(sum).has_value());
  EXPECT_TRUE(SameOnBothBackends(sum, {Random(F32, {2000}, 8, /*specials=*/false)}, 1e-4, 0.5));
  // Init values that are not the op's identity join each output once, on the left.
  const std::string shifted = CumulativeWindowModule("s64", {100}, 0, true, "add(a, b)", "1000");
  EXPECT_TRUE(SameOnBothBackends(shifted, {Random(S64, {100}, 9)}));
}

// Scans along a dimension that is not the minor-most run as tiles of adjacent rows side by
// side (a partial tile last, several dimensions inside the scan's, reverse and variadic ones
// too); large ones are shared out over threads, rows or tiles each. Forward scans and integer
// ones stay exact.
TEST(CpuCumulativeWindow, TiledAndThreadedScansAreExact) {
  struct Case {
    std::string type;
    std::vector<int64_t> dims;
    int64_t axis;
    bool reverse;
    std::string reducer, init;
  };
  const std::vector<Case> cases = {
      {"f32", {40, 600}, 0, false, "add(a, b)", "0"},          // three tiles, the last of 88 rows
      {"f32", {64, 300}, 0, false, "add(a, b)", "0.5"},        // threaded tiles
      {"f32", {256, 128}, 1, false, "add(a, b)", "0"},         // threaded rows
      {"f64", {5, 30, 3, 100}, 1, false, "subtract(b, a)", "1"},  // two dimensions inside the scan's
      {"s32", {50, 700}, 0, true, "add(a, b)", "1000"},        // reverse tiles, init not the identity
      {"f32", {33, 9, 7}, 0, true, "maximum(a, b)", "-inf"},
      {"u16", {64, 2, 300}, 0, true, "multiply(b, a)", "3"},   // threaded reverse tiles
  };
  // Exact, though a NaN's sign may differ (x86 keeps the first operand's NaN and LLVM may
  // swap an add's operands): rtol 0 compares values, NaN matching NaN.
  for (const Case& c : cases) {
    const std::string text = CumulativeWindowModule(c.type, c.dims, c.axis, c.reverse, c.reducer, c.init);
    ASSERT_TRUE(Recognized(text).has_value()) << text;
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(c.type);
    EXPECT_TRUE(SameOnBothBackends(text, {Random(t, c.dims, 11 + c.axis)}, 0)) << text;
  }
  // A column-major array scanned along dimension 0 has rows contiguous in memory.
  std::string column_major = CumulativeWindowModule("f32", {100, 70}, 0, false, "add(a, b)");
  for (size_t at; (at = column_major.find("f32[100,70] ")) != std::string::npos;) {
    column_major.replace(at, 12, "f32[100,70]{0,1} ");
  }
  EXPECT_TRUE(SameOnBothBackends(column_major, {Random(F32, {100, 70}, 12)}, 0)) << column_major;
  // A running maximum with its position, down the columns of f32[64, 300] (two operands).
  const std::string cummax = CumMaxWithPositionModule({64, 300}, 0);
  ASSERT_TRUE(Recognized(cummax).has_value());
  EXPECT_TRUE(SameOnBothBackends(cummax, {Random(F32, {64, 300}, 13)}, 0));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
