// Cumulative reduce-windows (JAX's cumsum, cumprod, cummax, logcumsumexp) on the gpu backend:
// a thread per row scans along the window's dimension (cumulative_window.h), run on the kernel
// emulator against the interpreter: bit for bit for forward scans with any reducer, within
// float rounding for reverse sums.
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/codegen/cumulative_window.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/ptx_emitter.h"
#include "backends/gpu/testing/emulated_gpu.h"
#include "backends/testing/cumulative_windows.h"
#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace gpu {
namespace {

using ::xla::testing::CumulativeWindowModule;
using ::xla::testing::LiteralEqual;
using ::xla::testing::LiteralNear;
using ::xla::testing::RunHloOn;
using ::xla::testing::SharedInterpreter;

Literal Values(const Shape& shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(ShapeUtil::ElementsIn(shape));
  const bool floating = primitive_util::IsFloatingPointType(shape.element_type());
  for (double& x : v) {
    x = floating ? std::uniform_real_distribution<double>(-3, 3)(rng)
                 : static_cast<double>(std::uniform_int_distribution<int>(-1000, 1000)(rng));
  }
  return Literal::CreateFromDoubles(shape, v).value();
}

// Compiles `text` for the gpu, checks its reduce-window became a row-scan kernel (blocks for
// the rows only), and compares a run on the emulator with the interpreter.
void Agree(const std::string& text, absl::Span<const Literal> args, bool exact, double atol = 1e-3) {
  absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseAndReturnUnverifiedModule(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const HloInstruction* root = (*parsed)->entry_computation()->root_instruction();
  const std::optional<cpu::CumulativeWindow> w = cpu::AsCumulativeWindow(*root);
  ASSERT_TRUE(w.has_value()) << text;
  absl::StatusOr<GpuPlan> plan = CompileGpuPlan(std::move(*parsed), GpuTarget{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  const int64_t rows = ShapeUtil::ElementsIn(root->operand(0)->shape()) /
                       root->operand(0)->shape().dimensions(static_cast<int>(w->dimension));
  const int64_t length = root->operand(0)->shape().dimensions(static_cast<int>(w->dimension));
  // Few long rows with a reducer that reassociates: chunks, then their totals, then prefixes
  // (ScanLaunches); else a thread per row.
  const bool chunked = root->operand_count() == 2 && cpu::ReassociatingReducer(*root->to_apply()) &&
                       rows < kManyScanRows && length >= kLongScanRow;
  bool found = false;
  for (const GpuPlanStep& step : plan->entry().steps) {
    if (step.hlo->opcode() != HloOpcode::kReduceWindow) continue;
    found = true;
    if (chunked) {
      EXPECT_EQ(step.phases, (std::vector<int64_t>{rows, rows * length})) << text;
      EXPECT_EQ(step.scratch_bytes, rows * ((length + 511) / 512) *
                                        primitive_util::ByteWidth(root->shape().element_type())) << text;
    } else {
      EXPECT_EQ(step.max_blocks, (rows + 255) / 256) << text;
      EXPECT_TRUE(step.phases.empty()) << text;
    }
  }
  EXPECT_TRUE(found) << "no reduce-window kernel in the plan\n" << text;
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  absl::StatusOr<Literal> expected = RunHloOn(*SharedInterpreter(), text, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<Literal> actual = RunHloOn(*gpu, text, args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  if (exact) {
    EXPECT_TRUE(LiteralEqual(*expected, actual)) << text;
  } else {
    EXPECT_TRUE(LiteralNear(*expected, actual, 1e-4, atol)) << text;
  }
}

TEST(GpuCumulativeWindowTest, ForwardScansAreExact) {
  for (const std::string& type : {std::string("f32"), std::string("s32"), std::string("f64")}) {
    for (int64_t axis : {0, 1}) {
      const std::vector<int64_t> dims = {100, 257};
      const std::string text = CumulativeWindowModule(type, dims, axis, false, "add(a, b)", "1");
      const Shape shape = ShapeUtil::MakeShape(*primitive_util::StringToPrimitiveType(type), dims);
      Agree(text, {Values(shape, static_cast<uint64_t>(axis) + 1)}, /*exact=*/true);
    }
  }
  // A reducer that does not commute, from an init that is not its identity.
  const std::string text = CumulativeWindowModule("f32", {5000}, 0, false, "subtract(b, a)", "0.5");
  Agree(text, {Values(ShapeUtil::MakeShape(F32, {5000}), 3)}, /*exact=*/true);
  Agree(::xla::testing::kLogCumSumExpModule, {Values(ShapeUtil::MakeShape(F32, {4, 300}), 4)}, /*exact=*/false);
  Agree(::xla::testing::CumMaxWithPositionModule({500}, 0), {Values(ShapeUtil::MakeShape(F32, {500}), 5)}, /*exact=*/true);
}

// Few long rows: cut into chunks scanned at once (ScanLaunches), exact for integers and
// order ops, within rounding for float sums.
TEST(GpuCumulativeWindowTest, LongRowsScanInChunks) {
  const std::string ints = CumulativeWindowModule("s32", {3, 5000}, 1, false, "add(a, b)", "5");
  Agree(ints, {Values(ShapeUtil::MakeShape(S32, {3, 5000}), 8)}, /*exact=*/true);
  const std::string backwards = CumulativeWindowModule("s64", {2500, 2}, 0, true, "multiply(a, b)", "1");
  Agree(backwards, {Values(ShapeUtil::MakeShape(S64, {2500, 2}), 9)}, /*exact=*/true);
  const std::string maxima = CumulativeWindowModule("f32", {6000}, 0, false, "maximum(a, b)", "-inf");
  Agree(maxima, {Values(ShapeUtil::MakeShape(F32, {6000}), 10)}, /*exact=*/true);
  const std::string sums = CumulativeWindowModule("f32", {2, 5000}, 1, false, "add(a, b)");
  // Sums of up to a few hundred in f32, associated by chunks: within 1e-2 of the sequential sums.
  Agree(sums, {Values(ShapeUtil::MakeShape(F32, {2, 5000}), 11)}, /*exact=*/false, 1e-2);
}

TEST(GpuCumulativeWindowTest, ReverseScansSumFromTheEnd) {
  const std::string ints = CumulativeWindowModule("s32", {64, 100}, 1, true, "add(a, b)", "7");
  Agree(ints, {Values(ShapeUtil::MakeShape(S32, {64, 100}), 6)}, /*exact=*/true);
  const std::string floats = CumulativeWindowModule("f32", {3000}, 0, true, "add(a, b)");
  Agree(floats, {Values(ShapeUtil::MakeShape(F32, {3000}), 7)}, /*exact=*/false);
}

}  // namespace
}  // namespace gpu
}  // namespace xla
