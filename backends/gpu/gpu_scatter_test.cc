// scatter and select-and-scatter on the gpu backend (ptx_scatter.cc): each strategy is chosen
// where it cannot change the result (ScatterStrategy), the plan launches what the strategy
// needs, and the kernels, run on the kernel emulator, agree with the interpreter: bit for bit
// wherever the order of updates is kept, within rounding where float updates combine
// atomically. The indices repeat and leave the operand, and the combiners include ones that
// do not commute.
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/ptx_emitter.h"
#include "backends/gpu/testing/emulated_gpu.h"
#include "backends/gpu/testing/kernel_emulator.h"
#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/primitive_util.h"

namespace xla {
namespace gpu {
namespace {

using ::xla::testing::LiteralEqual;
using ::xla::testing::LiteralNear;
using ::xla::testing::RunHloOn;
using ::xla::testing::SharedInterpreter;

// Values of `shape`: for floats in [-2, 2) (or small integers when `ties`, so windows hold
// equal elements), for integers in [lo, hi).
Literal Values(const Shape& shape, uint64_t seed, int64_t lo = -20, int64_t hi = 20, bool ties = false) {
  std::vector<double> values(ShapeUtil::ElementsIn(shape));
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  const bool floating = primitive_util::IsFloatingPointType(shape.element_type());
  for (double& v : values) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t r = x >> 33;
    if (floating && !ties) {
      v = static_cast<double>(r % 4096) / 1024.0 - 2.0;
    } else {
      v = static_cast<double>(lo + static_cast<int64_t>(r % static_cast<uint64_t>(hi - lo)));
    }
  }
  absl::StatusOr<Literal> literal = Literal::CreateFromDoubles(shape, values);
  EXPECT_TRUE(literal.ok()) << literal.status();
  return literal.ok() ? *std::move(literal) : Literal();
}

// Complex values of magnitude in [0.8, 1.25) at any angle: products of several stay near 1.
Literal UnitComplexValues(const Shape& shape, uint64_t seed) {
  Literal literal = Literal::CreateForOverwrite(shape).value();
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 7;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const double magnitude = 0.8 + 0.45 * static_cast<double>((x >> 40) % 1024) / 1024.0;
    const double angle = 6.283185307179586 * static_cast<double>((x >> 20) % 1024) / 1024.0;
    literal.SetFromComplex(i, std::polar(magnitude, angle));
  }
  return literal;
}

Shape ParseShape(const std::string& text) {
  absl::StatusOr<Shape> shape = xla::ParseShape(text);
  EXPECT_TRUE(shape.ok()) << text << ": " << shape.status();
  return shape.ok() ? *shape : Shape();
}

// The instruction named "s" of the parsed module and the plan's step for it after compiling.
struct Compiled {
  std::unique_ptr<HloModule> parsed;
  const HloInstruction* hlo = nullptr;
  absl::StatusOr<GpuPlan> plan = absl::UnknownError("not compiled");
  const GpuPlanStep* step = nullptr;
};

std::unique_ptr<Compiled> Compile(const std::string& text) {
  auto c = std::make_unique<Compiled>();
  absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseAndReturnUnverifiedModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return c;
  c->parsed = *std::move(parsed);
  c->hlo = c->parsed->entry_computation()->GetInstructionWithName("s");
  EXPECT_NE(c->hlo, nullptr);
  c->plan = CompileGpuPlan(ParseAndReturnUnverifiedModule(text).value(), GpuTarget{});
  EXPECT_TRUE(c->plan.ok()) << c->plan.status();
  if (!c->plan.ok()) return c;
  for (const GpuPlanStep& step : c->plan->entry().steps) {
    if (step.hlo->opcode() == c->hlo->opcode()) c->step = &step;
  }
  EXPECT_NE(c->step, nullptr);
  return c;
}

ScatterStrategy Strategy(const HloInstruction* hlo, bool deterministic) {
  absl::StatusOr<ScatterStrategy> s = ChooseScatterStrategy(*hlo, deterministic);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : ScatterStrategy::kSerial;
}

// Runs `text` on the emulated gpu and on the interpreter; `exact`: bit for bit, else within
// float rounding of the sums.
void Agree(const std::string& text, const std::vector<Literal>& args, bool exact) {
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  absl::StatusOr<Literal> expected = RunHloOn(*SharedInterpreter(), text, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<Literal> actual = RunHloOn(*gpu, text, args);
  if (exact) {
    EXPECT_TRUE(LiteralEqual(*expected, actual)) << text;
  } else {
    EXPECT_TRUE(LiteralNear(*expected, actual, 1e-5, 1e-5)) << text;
  }
}

// (operand, s32[n,1] indices, updates) for a scatter with one start index per update: the
// operand and updates Values of seeds `seed` and `seed` + 1.
std::vector<Literal> ScatterArgs(const std::string& operand, const std::vector<double>& indices,
                                 const std::string& updates, uint64_t seed) {
  std::vector<Literal> args;
  args.push_back(Values(ParseShape(operand), seed));
  args.push_back(
      Literal::CreateFromDoubles(ParseShape(absl::StrCat("s32[", indices.size(), ",1]")), indices).value());
  args.push_back(Values(ParseShape(updates), seed + 1));
  return args;
}

// Windows of 5 the indices move (overlapping slices of T[64]) at 30 starts, combined by
// `combiner` (the body of a computation of a and b).
std::string WindowScatterText(const std::string& t, const std::string& combiner) {
  return absl::StrCat("HloModule window_scatter\ncombine {\n  a = ", t, "[] parameter(0)\n  b = ", t,
                      "[] parameter(1)\n  ROOT r = ", t, "[] ", combiner, "\n}\nENTRY e {\n  operand = ", t,
                      "[64] parameter(0)\n  starts = s32[30,1] parameter(1)\n  updates = ", t,
                      "[30,5] parameter(2)\n  ROOT s = ", t,
                      "[64] scatter(operand, starts, updates), update_window_dims={1}, inserted_window_dims={}, "
                      "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine\n}\n");
}
std::vector<Literal> WindowScatterArgs(const std::string& t, uint64_t seed) {
  std::vector<double> starts(30);
  for (int i = 0; i < 30; ++i) starts[i] = (i * 13) % 64;  // some past 59: those windows are skipped
  return ScatterArgs(t + "[64]", starts, t + "[30,5]", seed);
}

// A scatter of rows: operand T[rows, width], `updates` rows of updates at s32 row indices
// (repeating, some past either end, so skipped), combined by `combiner` (the body of a
// computation of a and b).
struct RowScatter {
  std::string type = "f32";
  std::string combiner = "add(a, b)";
  int64_t rows = 50, width = 16, updates = 400;
  bool unique = false;
  // When set, the operand and the updates are integers in [first, second) (for floats too).
  std::optional<std::pair<int64_t, int64_t>> range;

  std::string Text() const {
    const std::string t = type;
    return absl::StrCat("HloModule scatter_rows\ncombine {\n  a = ", t, "[] parameter(0)\n  b = ", t,
                        "[] parameter(1)\n  ROOT r = ", t, "[] ", combiner, "\n}\nENTRY e {\n  operand = ", t, "[",
                        rows, ",", width, "] parameter(0)\n  indices = s32[", updates, ",1] parameter(1)\n  updates = ", t,
                        "[", updates, ",", width, "] parameter(2)\n  ROOT s = ", t, "[", rows, ",", width,
                        "] scatter(operand, indices, updates), update_window_dims={1}, inserted_window_dims={0}, "
                        "scatter_dims_to_operand_dims={0}, index_vector_dim=1",
                        unique ? ", unique_indices=true" : "", ", to_apply=combine\n}\n");
  }
  std::vector<Literal> Args() const {
    std::vector<double> indices(updates);
    for (int64_t i = 0; i < updates; ++i) {
      // A permutation of the rows when unique, else rows repeating, with -1 and rows, rows + 1.
      indices[i] = unique ? static_cast<double>((i * 7) % rows) : static_cast<double>((i * 37) % (rows + 3) - 1);
    }
    const Shape operand = ParseShape(absl::StrCat(type, "[", rows, ",", width, "]"));
    const Shape update_shape = ParseShape(absl::StrCat(type, "[", updates, ",", width, "]"));
    // Unit complex numbers, integers in `range`, or Values in [lo, hi).
    auto values = [this](const Shape& shape, uint64_t seed, int64_t lo, int64_t hi) {
      if (primitive_util::IsComplexType(shape.element_type())) return UnitComplexValues(shape, seed);
      if (range.has_value()) return Values(shape, seed, range->first, range->second, /*ties=*/true);
      return Values(shape, seed, lo, hi);
    };
    std::vector<Literal> args;
    args.push_back(values(operand, 1, type[0] == 'u' ? 0 : -20, 20));
    args.push_back(Literal::CreateFromDoubles(ParseShape(absl::StrCat("s32[", updates, ",1]")), indices).value());
    args.push_back(values(update_shape, 2, type[0] == 'u' ? 0 : -5, 6));
    return args;
  }
};

TEST(GpuScatterTest, CommutingCombinersOfWordTypesCombineAtomicallyAThreadPerUpdate) {
  struct Case {
    std::string type, combiner;
    bool exact;
  };
  const std::vector<Case> cases = {
      {"f32", "add(a, b)", false},       {"f32", "add(b, a)", false},     {"f64", "add(a, b)", false},
      {"s32", "add(a, b)", true},        {"u32", "minimum(a, b)", true},  {"s64", "maximum(b, a)", true},
      {"u64", "xor(a, b)", true},        {"s32", "or(a, b)", true},       {"s32", "multiply(a, b)", true},
      {"f32", "maximum(a, b)", true},    {"f64", "minimum(a, b)", true},  {"f32", "multiply(a, b)", false},
      // 16-bit floats: a compare-and-swap of the 32-bit word holding the element (odd and
      // even positions share words; a row of 15 puts rows at both halves). Their sums take
      // integer values below, exact in any order.
      {"bf16", "add(a, b)", true},       {"f16", "maximum(a, b)", true},  {"f16", "add(b, a)", true},
      {"s8", "add(a, b)", true},         {"u8", "maximum(a, b)", true},   {"s16", "minimum(a, b)", true},
      {"u16", "xor(a, b)", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type + " " + c.combiner);
    RowScatter scatter;
    scatter.type = c.type;
    scatter.combiner = c.combiner;
    if (c.combiner.rfind("multiply", 0) == 0) scatter.updates = 120;  // products stay in range
    if (c.type == "bf16" || c.type == "f16" || c.type == "s8" || c.type == "u8" || c.type == "s16" || c.type == "u16") {
      scatter.width = 15;
    }
    if (c.type == "bf16" || c.type == "f16") scatter.range = std::make_pair(-5, 6);
    std::unique_ptr<Compiled> compiled = Compile(scatter.Text());
    ASSERT_NE(compiled->step, nullptr);
    EXPECT_EQ(Strategy(compiled->hlo, false), ScatterStrategy::kAtomicUpdates);
    // The fill over the output, then a thread per update element.
    EXPECT_EQ(compiled->step->elements, scatter.rows * scatter.width);
    EXPECT_EQ(compiled->step->phases, std::vector<int64_t>{scatter.updates * scatter.width});
    Agree(scatter.Text(), scatter.Args(), c.exact);
  }
}

TEST(GpuScatterTest, PredSubByteNarrowFloatAndComplexCombinersCombineAtomically) {
  struct Case {
    std::string type, combiner;
    std::optional<std::pair<int64_t, int64_t>> range;
    bool exact;
  };
  const std::vector<Case> cases = {
      // A byte each, by a compare-and-swap of the word holding it.
      {"pred", "or(a, b)", std::make_pair(0, 2), true},
      {"pred", "and(b, a)", std::make_pair(0, 2), true},
      {"pred", "xor(a, b)", std::make_pair(0, 2), true},
      {"pred", "add(a, b)", std::make_pair(0, 2), true},
      {"pred", "maximum(a, b)", std::make_pair(0, 2), true},
      {"s4", "add(a, b)", std::make_pair(-8, 8), true},  // wraps, as the interpreter's does
      {"u4", "multiply(a, b)", std::make_pair(0, 16), true},
      {"s2", "minimum(a, b)", std::make_pair(-2, 2), true},
      {"u1", "xor(b, a)", std::make_pair(0, 2), true},
      // Small integers add exactly in f8e4m3fn (up to 16); max and min are exact anyway.
      {"f8e4m3fn", "add(a, b)", std::make_pair(0, 3), true},
      {"f8e5m2", "maximum(a, b)", std::make_pair(-6, 6), true},
      {"f4e2m1fn", "minimum(b, a)", std::make_pair(-4, 5), true},
      // c64 adds as two f32 atomic adds, multiplies by a 64-bit compare-and-swap; c128 adds
      // as two f64 atomic adds.
      {"c64", "add(a, b)", std::nullopt, false},
      {"c64", "multiply(b, a)", std::nullopt, false},
      {"c128", "add(a, b)", std::nullopt, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type + " " + c.combiner);
    RowScatter scatter;
    scatter.type = c.type;
    scatter.combiner = c.combiner;
    scatter.range = c.range;
    scatter.width = 15;  // rows start at every byte of a word
    std::unique_ptr<Compiled> compiled = Compile(scatter.Text());
    ASSERT_NE(compiled->step, nullptr);
    EXPECT_EQ(Strategy(compiled->hlo, false), ScatterStrategy::kAtomicUpdates);
    EXPECT_EQ(compiled->step->phases, std::vector<int64_t>{scatter.updates * scatter.width});
    Agree(scatter.Text(), scatter.Args(), c.exact);
  }
  // Complex numbers round like floats: a deterministic build keeps them in order.
  RowScatter complex;
  complex.type = "c64";
  EXPECT_EQ(Strategy(Compile(complex.Text())->hlo, true), ScatterStrategy::kSortedUpdates);
  // No 128-bit compare-and-swap: a c128 product keeps the interpreter's order.
  complex.type = "c128";
  complex.combiner = "multiply(a, b)";
  std::unique_ptr<Compiled> product = Compile(complex.Text());
  EXPECT_EQ(Strategy(product->hlo, false), ScatterStrategy::kSortedUpdates);
  complex.updates = 120;
  Agree(complex.Text(), complex.Args(), /*exact=*/false);
}

TEST(GpuScatterTest, DeterministicOpsKeepFloatUpdatesInOrder) {
  RowScatter scatter;  // f32 add
  std::unique_ptr<Compiled> compiled = Compile(scatter.Text());
  ASSERT_NE(compiled->hlo, nullptr);
  // Each element's updates are applied in order, by sorting them, so the sums round as the
  // interpreter's do.
  EXPECT_EQ(Strategy(compiled->hlo, true), ScatterStrategy::kSortedUpdates);
  RowScatter integers;
  integers.type = "s32";
  EXPECT_EQ(Strategy(Compile(integers.Text())->hlo, true), ScatterStrategy::kAtomicUpdates);

  ASSERT_EQ(setenv("XLA_GPU_DETERMINISTIC_OPS", "1", 1), 0);
  absl::Cleanup unset = [] { unsetenv("XLA_GPU_DETERMINISTIC_OPS"); };
  EXPECT_TRUE(DeterministicOps());
  std::unique_ptr<Compiled> deterministic = Compile(scatter.Text());
  ASSERT_NE(deterministic->step, nullptr);
  // 6400 update elements: 8192 keys written, sorted in two tiles of 4096, merged by a launch
  // over the grid and the tiles' launch, then applied.
  EXPECT_EQ(deterministic->step->phases, (std::vector<int64_t>{8192, 512, 4096, 512, 6400}));
  Agree(scatter.Text(), scatter.Args(), /*exact=*/true);
  ASSERT_EQ(setenv("XLA_GPU_DETERMINISTIC_OPS", "0", 1), 0);
  EXPECT_FALSE(DeterministicOps());
}

TEST(GpuScatterTest, CombinersThatDoNotCommuteKeepTheInterpretersOrder) {
  // Keeping the operand, doubling the update and subtracting, with repeated rows: sorted
  // updates when the rows are many, a thread per column taking the rows in order when they
  // are no more than the columns.
  for (const std::string& combiner : {std::string("add(b, b)"), std::string("subtract(a, b)"), std::string("copy(a)")}) {
    SCOPED_TRACE(combiner);
    RowScatter scatter;
    scatter.combiner = combiner;
    std::unique_ptr<Compiled> compiled = Compile(scatter.Text());
    ASSERT_NE(compiled->step, nullptr);
    EXPECT_EQ(Strategy(compiled->hlo, false), ScatterStrategy::kSortedUpdates);
    Agree(scatter.Text(), scatter.Args(), /*exact=*/true);

    RowScatter wide = scatter;
    wide.rows = 8;
    wide.width = 64;
    wide.updates = 40;
    std::unique_ptr<Compiled> columns = Compile(wide.Text());
    ASSERT_NE(columns->step, nullptr);
    EXPECT_EQ(Strategy(columns->hlo, false), ScatterStrategy::kWindowThreads);
    EXPECT_EQ(columns->step->phases, std::vector<int64_t>{wide.width});
    Agree(wide.Text(), wide.Args(), /*exact=*/true);
  }
}

TEST(GpuScatterTest, UniqueIndicesTakeAThreadPerUpdateWithAnyCombiner) {
  RowScatter scatter;
  scatter.combiner = "subtract(a, b)";
  scatter.unique = true;
  scatter.updates = scatter.rows;
  std::unique_ptr<Compiled> compiled = Compile(scatter.Text());
  ASSERT_NE(compiled->step, nullptr);
  EXPECT_EQ(Strategy(compiled->hlo, false), ScatterStrategy::kUpdateThreads);
  EXPECT_EQ(compiled->step->phases, std::vector<int64_t>{scatter.updates * scatter.width});
  Agree(scatter.Text(), scatter.Args(), /*exact=*/true);
}

// Windows the indices move (overlapping slices of a vector) and single elements: updates may
// meet at one element from different window positions, so they are sorted by element and
// position and each element's run is applied in order by one thread.
TEST(GpuScatterTest, OverlappingWindowsAndScalarUpdatesAreSortedByElement) {
  const std::string windows = WindowScatterText("f32", "subtract(b, a)");
  const std::vector<Literal> args = WindowScatterArgs("f32", 3);
  std::unique_ptr<Compiled> compiled = Compile(windows);
  ASSERT_NE(compiled->step, nullptr);
  EXPECT_EQ(Strategy(compiled->hlo, false), ScatterStrategy::kSortedUpdates);
  // 150 update elements: 256 keys, one tile (a block) sorts them all, then a thread per key.
  EXPECT_EQ(compiled->step->phases, (std::vector<int64_t>{256, 256, 150}));
  Agree(windows, args, /*exact=*/true);

  RowScatter scalars;
  scalars.combiner = "subtract(b, a)";
  scalars.width = 1;
  std::string text = scalars.Text();
  // f32[50,1] rows of one element: the window has one position.
  std::unique_ptr<Compiled> single = Compile(text);
  ASSERT_NE(single->step, nullptr);
  EXPECT_EQ(Strategy(single->hlo, false), ScatterStrategy::kSortedUpdates);
  Agree(text, scalars.Args(), /*exact=*/true);
}

// Updates in many tiles of keys (merged by launches over the whole grid), crowding onto few
// elements or spread over many, by combiners that do not commute: exact.
TEST(GpuScatterTest, SortedUpdatesAcrossTilesKeepTheInterpretersOrder) {
  for (const int64_t elements : {int64_t{3}, int64_t{2000}}) {
    SCOPED_TRACE(elements);
    RowScatter scalars;
    scalars.combiner = "subtract(b, a)";  // the update minus the element: order matters
    scalars.width = 1;
    scalars.rows = elements;
    scalars.updates = 20000;
    std::unique_ptr<Compiled> compiled = Compile(scalars.Text());
    ASSERT_NE(compiled->step, nullptr);
    EXPECT_EQ(Strategy(compiled->hlo, false), ScatterStrategy::kSortedUpdates);
    // 32768 keys in 8 tiles: merges of 8192, 16384 and 32768 take 1, 2 and 3 launches of a
    // thread per pair, each followed by the tiles' launch.
    const std::vector<int64_t> phases = {32768, 2048, 16384, 2048, 16384, 16384, 2048, 16384, 16384, 16384, 2048, 20000};
    EXPECT_EQ(compiled->step->phases, phases);
    Agree(scalars.Text(), scalars.Args(), /*exact=*/true);
  }
  // A float sum with XLA_GPU_DETERMINISTIC_OPS: each element's updates are added in the
  // interpreter's order, so even 20000 sums into 3 elements round as its do.
  ASSERT_EQ(setenv("XLA_GPU_DETERMINISTIC_OPS", "1", 1), 0);
  absl::Cleanup unset = [] { unsetenv("XLA_GPU_DETERMINISTIC_OPS"); };
  RowScatter sums;
  sums.width = 1;
  sums.rows = 3;
  sums.updates = 20000;
  EXPECT_EQ(Strategy(Compile(sums.Text())->hlo, true), ScatterStrategy::kSortedUpdates);
  Agree(sums.Text(), sums.Args(), /*exact=*/true);
}

// Keys hold the output element above the update's position in 63 bits: a scatter of 2^24
// updates into 2^40 elements does not fit them and runs on one thread, in order.
TEST(GpuScatterTest, UpdatesWhoseKeysDoNotFitRunInOrderOnOneThread) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(R"(HloModule huge
combine {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] subtract(b, a)
}
ENTRY e {
  operand = f32[1099511627776] parameter(0)
  indices = s32[16777216,1] parameter(1)
  updates = f32[16777216] parameter(2)
  ROOT s = f32[1099511627776] scatter(operand, indices, updates), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine
})");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(Strategy((*module)->entry_computation()->root_instruction(), false), ScatterStrategy::kSerial);
}

// A combiner that returns the update (a set): whichever the indices, each element takes the
// update the interpreter applies last, found by an atomic max of update positions, so every
// update gets a thread and the result is exact.
TEST(GpuScatterTest, SetsTakeTheLastUpdateAtEachElementAThreadPerUpdate) {
  // Scalar updates (x.at[i].set(v)): 6000 of them at 300 positions, some out of bounds.
  const std::string scalars = R"(HloModule set_scalars
set {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
ENTRY e {
  operand = f32[300] parameter(0)
  indices = s32[6000,1] parameter(1)
  updates = f32[6000] parameter(2)
  ROOT s = f32[300] scatter(operand, indices, updates), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=set
}
)";
  std::vector<double> positions(6000);
  for (int i = 0; i < 6000; ++i) positions[i] = (i * 7919) % 310 - 5;
  const std::vector<Literal> args = ScatterArgs("f32[300]", positions, "f32[6000]", 11);
  std::unique_ptr<Compiled> compiled = Compile(scalars);
  ASSERT_NE(compiled->step, nullptr);
  EXPECT_EQ(Strategy(compiled->hlo, false), ScatterStrategy::kLastUpdateWins);
  EXPECT_EQ(Strategy(compiled->hlo, true), ScatterStrategy::kLastUpdateWins) << "exact: no need to keep it serial";
  // The fill (clearing the positions), the positions, the stores.
  EXPECT_EQ(compiled->step->phases, (std::vector<int64_t>{6000, 6000}));
  EXPECT_EQ(compiled->step->scratch_bytes, 300 * 4);
  Agree(scalars, args, /*exact=*/true);

  // Overlapping windows the indices move, of an s8 vector (four elements a word).
  const std::string windows = WindowScatterText("s8", "copy(b)");
  const std::vector<Literal> window_args = WindowScatterArgs("s8", 13);
  std::unique_ptr<Compiled> windowed = Compile(windows);
  ASSERT_NE(windowed->step, nullptr);
  EXPECT_EQ(Strategy(windowed->hlo, false), ScatterStrategy::kLastUpdateWins);
  EXPECT_EQ(windowed->step->phases, (std::vector<int64_t>{150, 150}));
  Agree(windows, window_args, /*exact=*/true);

  // Rows, set through a copy of the update, of a column-major operand.
  RowScatter rows;
  rows.combiner = "copy(b)";
  std::string text = rows.Text();
  const std::string plain = absl::StrCat("f32[", rows.rows, ",", rows.width, "]");
  const std::string column_major = plain + "{0,1}";
  text.replace(text.find("operand = " + plain), ("operand = " + plain).size(), "operand = " + column_major);
  text.replace(text.find("ROOT s = " + plain), ("ROOT s = " + plain).size(), "ROOT s = " + column_major);
  std::unique_ptr<Compiled> set_rows = Compile(text);
  ASSERT_NE(set_rows->step, nullptr);
  EXPECT_EQ(Strategy(set_rows->hlo, false), ScatterStrategy::kLastUpdateWins);
  Agree(text, rows.Args(), /*exact=*/true);

  // With no updates there is nothing to find: the fill alone.
  RowScatter none;
  none.combiner = "copy(b)";
  none.updates = 0;
  EXPECT_NE(Strategy(Compile(none.Text())->hlo, false), ScatterStrategy::kLastUpdateWins) << "no updates: nothing to find";
}

TEST(GpuScatterTest, ScattersOfSeveralOperandsKeepTheirOrder) {
  const std::string text = R"(HloModule pairs
larger {
  k0 = f32[] parameter(0)
  v0 = s32[] parameter(1)
  k1 = f32[] parameter(2)
  v1 = s32[] parameter(3)
  keep = pred[] compare(k0, k1), direction=GT
  k = f32[] select(keep, k0, k1)
  v = s32[] select(keep, v0, v1)
  ROOT t = (f32[], s32[]) tuple(k, v)
}
ENTRY e {
  keys = f32[20,3] parameter(0)
  ids = s32[20,3] parameter(1)
  indices = s32[90,1] parameter(2)
  new_keys = f32[90,3] parameter(3)
  new_ids = s32[90,3] parameter(4)
  ROOT s = (f32[20,3], s32[20,3]) scatter(keys, ids, indices, new_keys, new_ids), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=larger
}
)";
  std::vector<double> indices(90);
  for (int i = 0; i < 90; ++i) indices[i] = (i * 11) % 21;  // 20 is past the end
  std::vector<Literal> args;
  args.push_back(Values(ParseShape("f32[20,3]"), 5, 0, 4, /*ties=*/true));
  args.push_back(Values(ParseShape("s32[20,3]"), 6));
  args.push_back(Literal::CreateFromDoubles(ParseShape("s32[90,1]"), indices).value());
  args.push_back(Values(ParseShape("f32[90,3]"), 7, 0, 4, /*ties=*/true));
  args.push_back(Values(ParseShape("s32[90,3]"), 8));
  std::unique_ptr<Compiled> compiled = Compile(text);
  ASSERT_NE(compiled->step, nullptr);
  EXPECT_EQ(Strategy(compiled->hlo, false), ScatterStrategy::kSortedUpdates);
  Agree(text, args, /*exact=*/true);
}

// The source shape of a window over `dims` (as shape inference makes it).
std::vector<int64_t> WindowedDims(const std::vector<int64_t>& dims, const std::vector<int64_t>& size,
                                  const std::vector<int64_t>& stride, const std::vector<int64_t>& pad_lo,
                                  const std::vector<int64_t>& pad_hi, const std::vector<int64_t>& base_dilation,
                                  const std::vector<int64_t>& window_dilation) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t padded = (dims[d] - 1) * base_dilation[d] + 1 + pad_lo[d] + pad_hi[d];
    const int64_t window = (size[d] - 1) * window_dilation[d] + 1;
    out.push_back(padded < window ? 0 : (padded - window) / stride[d] + 1);
  }
  return out;
}

struct SelectAndScatter {
  std::string type = "f32";
  std::vector<int64_t> dims = {13, 11}, size = {3, 3}, stride = {2, 2}, pad_lo = {1, 1}, pad_hi = {1, 1};
  std::vector<int64_t> base_dilation = {1, 1}, window_dilation = {1, 1};
  std::string select = "GE";
  std::string scatter = "add(a, b)";

  std::vector<int64_t> Source() const {
    return WindowedDims(dims, size, stride, pad_lo, pad_hi, base_dilation, window_dilation);
  }
  std::string Text() const {
    std::vector<std::string> pads;
    for (size_t d = 0; d < dims.size(); ++d) pads.push_back(absl::StrCat(pad_lo[d], "_", pad_hi[d]));
    const std::string t = type;
    return absl::StrCat(
        "HloModule select_and_scatter\nselect {\n  a = ", t, "[] parameter(0)\n  b = ", t,
        "[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=", select, "\n}\nscatter {\n  a = ", t,
        "[] parameter(0)\n  b = ", t, "[] parameter(1)\n  ROOT r = ", t, "[] ", scatter, "\n}\nENTRY e {\n  input = ", t,
        "[", absl::StrJoin(dims, ","), "] parameter(0)\n  source = ", t, "[", absl::StrJoin(Source(), ","),
        "] parameter(1)\n  init = ", t, "[] constant(0)\n  ROOT s = ", t, "[", absl::StrJoin(dims, ","),
        "] select-and-scatter(input, source, init), window={size=", absl::StrJoin(size, "x"), " stride=",
        absl::StrJoin(stride, "x"), " pad=", absl::StrJoin(pads, "x"), " lhs_dilate=", absl::StrJoin(base_dilation, "x"),
        " rhs_dilate=", absl::StrJoin(window_dilation, "x"), "}, select=select, scatter=scatter\n}\n");
  }
  std::vector<Literal> Args() const {
    std::vector<Literal> args;
    args.push_back(Values(ParseShape(absl::StrCat(type, "[", absl::StrJoin(dims, ","), "]")), 9, 0, 4, /*ties=*/true));
    args.push_back(Values(ParseShape(absl::StrCat(type, "[", absl::StrJoin(Source(), ","), "]")), 10, -5, 6));
    return args;
  }
};

TEST(GpuScatterTest, SelectAndScatterTakesAThreadPerOutputElementInTheInterpretersOrder) {
  std::vector<SelectAndScatter> cases(5);
  // [0]: max pooling's gradient (overlapping 3x3 windows, stride 2, padded), ties in windows.
  cases[1].select = "LE";  // min pooling, with a combiner that does not commute
  cases[1].scatter = "subtract(a, b)";
  cases[2].type = "s32";  // integers, windows of stride 1
  cases[2].stride = {1, 1};
  cases[3].window_dilation = {2, 1};  // dilated windows and operand
  cases[3].base_dilation = {1, 2};
  cases[3].pad_lo = {0, 2};
  cases[4].dims = {7, 6, 5};  // rank 3, windows of one element in the last dimension
  cases[4].size = {2, 3, 1};
  cases[4].stride = {2, 1, 1};
  cases[4].pad_lo = {0, 1, 0};
  cases[4].pad_hi = {1, 1, 0};
  cases[4].base_dilation = cases[4].window_dilation = {1, 1, 1};
  for (const SelectAndScatter& c : cases) {
    SCOPED_TRACE(c.Text());
    std::unique_ptr<Compiled> compiled = Compile(c.Text());
    ASSERT_NE(compiled->step, nullptr);
    EXPECT_EQ(Strategy(compiled->hlo, false), ScatterStrategy::kOutputThreads);
    EXPECT_TRUE(compiled->step->phases.empty());  // one launch, no fill
    Agree(c.Text(), c.Args(), /*exact=*/true);
  }
}

TEST(GpuScatterTest, SelectAndScatterOverManyOverlappingWindowsFillsThenUpdates) {
  SelectAndScatter wide;
  wide.dims = {300};
  wide.size = {100};
  wide.stride = {1};
  wide.pad_lo = wide.pad_hi = {0};
  wide.base_dilation = wide.window_dilation = {1};
  const int64_t sources = wide.Source()[0];
  std::unique_ptr<Compiled> compiled = Compile(wide.Text());
  ASSERT_NE(compiled->step, nullptr);
  // 100 windows hold each element: a thread per source element, adding atomically.
  EXPECT_EQ(Strategy(compiled->hlo, false), ScatterStrategy::kAtomicSources);
  EXPECT_EQ(compiled->step->phases, std::vector<int64_t>{sources});
  Agree(wide.Text(), wide.Args(), /*exact=*/false);
  // XLA_GPU_DETERMINISTIC_OPS: the sources are sorted by the element they select, and each
  // element's sum is taken in the interpreter's order: exact.
  EXPECT_EQ(Strategy(compiled->hlo, true), ScatterStrategy::kSortedSources);
  {
    ASSERT_EQ(setenv("XLA_GPU_DETERMINISTIC_OPS", "1", 1), 0);
    absl::Cleanup unset = [] { unsetenv("XLA_GPU_DETERMINISTIC_OPS"); };
    Agree(wide.Text(), wide.Args(), /*exact=*/true);
  }

  wide.scatter = "subtract(a, b)";  // does not commute: sorted, each element's run in order
  std::unique_ptr<Compiled> ordered = Compile(wide.Text());
  ASSERT_NE(ordered->step, nullptr);
  EXPECT_EQ(Strategy(ordered->hlo, false), ScatterStrategy::kSortedSources);
  // 201 sources: 256 keys in one tile, then a thread per key.
  EXPECT_EQ(sources, 201);
  EXPECT_EQ(ordered->step->phases, (std::vector<int64_t>{256, 256, 201}));
  Agree(wide.Text(), wide.Args(), /*exact=*/true);

  wide.type = "s32";  // integers add atomically and exactly
  wide.scatter = "add(a, b)";
  EXPECT_EQ(Strategy(Compile(wide.Text())->hlo, true), ScatterStrategy::kAtomicSources);
  Agree(wide.Text(), wide.Args(), /*exact=*/true);
}

// Float sums that round differently in another order (sources with full mantissas) over
// windows of 100 that overlap 100 deep: with XLA_GPU_DETERMINISTIC_OPS, sorted by the element
// each window selects and summed in the interpreter's order, bit for bit.
TEST(GpuScatterTest, DeterministicSelectAndScatterSumsInTheInterpretersOrder) {
  SelectAndScatter wide;
  wide.dims = {3000};
  wide.size = {100};
  wide.stride = {1};
  wide.pad_lo = wide.pad_hi = {0};
  wide.base_dilation = wide.window_dilation = {1};
  std::vector<Literal> args = wide.Args();
  for (int64_t i = 0; i < args[1].element_count(); ++i) {
    args[1].SetFromDouble(i, std::sin(static_cast<double>(i)) * 1.7 + 1.0 / 3.0);
  }
  ASSERT_EQ(setenv("XLA_GPU_DETERMINISTIC_OPS", "1", 1), 0);
  absl::Cleanup unset = [] { unsetenv("XLA_GPU_DETERMINISTIC_OPS"); };
  std::unique_ptr<Compiled> compiled = Compile(wide.Text());
  ASSERT_NE(compiled->step, nullptr);
  EXPECT_EQ(Strategy(compiled->hlo, true), ScatterStrategy::kSortedSources);
  Agree(wide.Text(), args, /*exact=*/true);
}

TEST(GpuScatterTest, MalformedScattersAreRefusedByName) {
  // Two window dimensions in the updates for one in the operand.
  absl::StatusOr<std::unique_ptr<HloModule>> scatter = ParseAndReturnUnverifiedModule(R"(HloModule bad_scatter
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY e {
  operand = f32[8,4] parameter(0)
  indices = s32[3,1] parameter(1)
  updates = f32[3,4,2] parameter(2)
  ROOT s = f32[8,4] scatter(operand, indices, updates), update_window_dims={1,2}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})");
  ASSERT_TRUE(scatter.ok()) << scatter.status();
  absl::StatusOr<ScatterStrategy> s = ChooseScatterStrategy(*(*scatter)->entry_computation()->root_instruction(), false);
  EXPECT_TRUE(absl::IsInvalidArgument(s.status())) << s.status();
  EXPECT_NE(std::string(s.status().message()).find("scatter s: dimension numbers do not match"), std::string::npos)
      << s.status();
  // A window of rank 1 over a rank-2 operand.
  absl::StatusOr<std::unique_ptr<HloModule>> select = ParseAndReturnUnverifiedModule(R"(HloModule bad_select
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY e {
  input = f32[8,4] parameter(0)
  source = f32[4,4] parameter(1)
  zero = f32[] constant(0)
  ROOT s = f32[8,4] select-and-scatter(input, source, zero), window={size=2 stride=2}, select=ge, scatter=add
})");
  ASSERT_TRUE(select.ok()) << select.status();
  s = ChooseScatterStrategy(*(*select)->entry_computation()->root_instruction(), false);
  EXPECT_TRUE(absl::IsInvalidArgument(s.status())) << s.status();
  EXPECT_NE(std::string(s.status().message()).find("select-and-scatter s: window rank differs"), std::string::npos)
      << s.status();
}

TEST(GpuScatterTest, EmptyUpdatesLaunchOnlyTheFill) {
  RowScatter scatter;
  scatter.updates = 0;
  std::unique_ptr<Compiled> compiled = Compile(scatter.Text());
  ASSERT_NE(compiled->step, nullptr);
  EXPECT_EQ(compiled->step->phases, std::vector<int64_t>{0});
  std::vector<Literal> args = scatter.Args();
  Agree(scatter.Text(), args, /*exact=*/true);
}

}  // namespace
}  // namespace gpu
}  // namespace xla
