// sort with rows longer than a block's shared memory holds (ptx_sort.cc: the row's
// permutation in scratch memory): the plan asks for the scratch, and the kernels, run on the
// kernel emulator, agree bit for bit with the interpreter on long rows, several rows, rows
// along a dimension that is not the minor one, key-value sorts, equal keys (stability), NaNs
// and signed zeros, and descending order.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/gpu_expanders.h"
#include "backends/gpu/ptx_sort.h"
#include "backends/gpu/testing/emulated_gpu.h"
#include "backends/gpu/testing/kernel_emulator.h"
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace gpu {
namespace {

using ::testing::HasSubstr;
using ::xla::testing::RunHloOn;
using ::xla::testing::SharedInterpreter;

// Bit-equal arrays (one, or each element of a tuple); names the first difference.
::testing::AssertionResult SameBits(const Literal& expected, const Literal& actual) {
  if (expected.shape().IsTuple()) {
    if (!actual.shape().IsTuple() || actual.shape().tuple_shapes_size() != expected.shape().tuple_shapes_size()) {
      return ::testing::AssertionFailure() << "shape " << actual.shape().ToString();
    }
    for (int64_t i = 0; i < expected.shape().tuple_shapes_size(); ++i) {
      ::testing::AssertionResult element = SameBits(expected.tuple_element(i), actual.tuple_element(i));
      if (!element) return element << " (tuple element " << i << ")";
    }
    return ::testing::AssertionSuccess();
  }
  if (!ShapeUtil::Compatible(expected.shape(), actual.shape())) {
    return ::testing::AssertionFailure() << "shape " << actual.shape().ToString() << ", expected "
                                         << expected.shape().ToString();
  }
  const int64_t width = expected.element_count() == 0 ? 0 : expected.size_bytes() / expected.element_count();
  if (actual.size_bytes() != expected.size_bytes()) return ::testing::AssertionFailure() << "size";
  const char* e = static_cast<const char*>(expected.untyped_data());
  const char* a = static_cast<const char*>(actual.untyped_data());
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    if (std::memcmp(e + i * width, a + i * width, width) != 0) {
      return ::testing::AssertionFailure() << "element " << i << ": " << actual.ElementToString(i) << ", expected "
                                           << expected.ElementToString(i);
    }
  }
  return ::testing::AssertionSuccess();
}

// Compiled both ways a long sort can be: spread over the grid where its rows are few
// (SortScratch), and a block per row.
::testing::AssertionResult AgreesWithInterpreter(const std::string& hlo, const std::vector<Literal>& args) {
  backend::Backend* gpu = EmulatedGpu();
  if (gpu == nullptr) return ::testing::AssertionFailure() << "no emulated gpu";
  absl::StatusOr<Literal> expected = RunHloOn(*SharedInterpreter(), hlo, args);
  if (!expected.ok()) return ::testing::AssertionFailure() << "interpreter: " << expected.status();
  // Both ways unless a test has turned spreading off.
  const bool spreading = SetSpreadSortsForTesting(true);
  for (bool spread : {true, false}) {
    if (spread && !spreading) continue;
    SetSpreadSortsForTesting(spread);
    absl::StatusOr<Literal> actual = RunHloOn(*gpu, hlo, args);
    SetSpreadSortsForTesting(spreading);
    if (!actual.ok()) return ::testing::AssertionFailure() << "gpu (spread " << spread << "): " << actual.status();
    ::testing::AssertionResult same = SameBits(*expected, *actual);
    if (!same) return same << " (spread " << spread << ")";
  }
  return ::testing::AssertionSuccess();
}

uint64_t Next(uint64_t* state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return *state >> 33;
}

// Random values of `shape`: integers in [0, distinct) (many equal keys when distinct is
// small), floats in [-distinct, distinct) with a fraction of NaNs of both signs, zeros of both
// signs and infinities when `specials`.
Literal Random(const std::string& shape_text, uint64_t seed, int64_t distinct, bool specials = false) {
  Shape shape = ParseShape(shape_text).value();
  Literal x = Literal::Create(shape).value();
  uint64_t state = seed;
  const bool floating = primitive_util::IsFloatingPointType(shape.element_type());
  for (int64_t i = 0; i < x.element_count(); ++i) {
    const uint64_t r = Next(&state);
    if (!floating) {
      x.SetFromUint64(i, r % static_cast<uint64_t>(distinct));
      continue;
    }
    double v = static_cast<double>(r % (2 * static_cast<uint64_t>(distinct) * 8)) / 8 - static_cast<double>(distinct);
    if (specials) {
      const double kSpecial[] = {NAN, -NAN, 0.0, -0.0, INFINITY, -INFINITY};
      if (r % 7 == 0) v = kSpecial[(r / 7) % 6];
    }
    x.SetFromDouble(i, v);
  }
  return x;
}

// A module sorting parameters of `shape` (one per type in `types`) along `dim`, comparing the
// first with `compare` (a direction, and optionally ", type=TOTALORDER").
std::string SortModule(const std::vector<std::string>& types, const std::string& dims, int dim,
                       const std::string& compare, bool stable = true) {
  std::string cmp = "cmp {\n";
  std::string params, operands, result;
  for (size_t t = 0; t < types.size(); ++t) {
    absl::StrAppend(&cmp, "  a", t, " = ", types[t], "[] parameter(", 2 * t, ")\n  b", t, " = ", types[t],
                    "[] parameter(", 2 * t + 1, ")\n");
    absl::StrAppend(&params, "  p", t, " = ", types[t], dims, " parameter(", t, ")\n");
    absl::StrAppend(&operands, t == 0 ? "" : ", ", "p", t);
    absl::StrAppend(&result, t == 0 ? "" : ", ", types[t], dims);
  }
  absl::StrAppend(&cmp, "  ROOT c = pred[] compare(a0, b0), direction=", compare, "\n}\n");
  if (types.size() > 1) result = absl::StrCat("(", result, ")");
  return absl::StrCat("HloModule long_sort\n", cmp, "ENTRY main {\n", params, "  ROOT s = ", result, " sort(", operands,
                      "), dimensions={", dim, "}", stable ? ", is_stable=true" : "", ", to_apply=cmp\n}\n");
}

// s32 positions 0, 1, ... along `dim` of `dims` (the values of an argsort).
Literal Iota(const std::vector<int64_t>& dims, int dim) {
  Literal x = Literal::Create(ShapeUtil::MakeShape(S32, dims)).value();
  int64_t inner = 1;
  for (size_t d = dim + 1; d < dims.size(); ++d) inner *= dims[d];
  for (int64_t i = 0; i < x.element_count(); ++i) x.SetFromUint64(i, static_cast<uint64_t>(i / inner % dims[dim]));
  return x;
}

TEST(GpuLongSortTest, PlanAsksForScratchOnlyForLongRows) {
  auto scratch_of = [](const std::string& hlo) -> int64_t {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(hlo);
    EXPECT_TRUE(module.ok()) << module.status();
    if (!module.ok()) return -1;
    absl::StatusOr<GpuPlan> plan = CompileGpuPlan(*std::move(module), GpuTarget());
    EXPECT_TRUE(plan.ok()) << plan.status();
    if (!plan.ok()) return -1;
    int64_t bytes = 0;
    for (const GpuPlanStep& step : plan->entry().steps) bytes += step.scratch_bytes;
    return bytes;
  };
  EXPECT_EQ(scratch_of(SortModule({"f32"}, "[3,8192]", 1, "LT")), 0);
  // A slot of 16384 positions per row in flight.
  EXPECT_EQ(scratch_of(SortModule({"f32"}, "[3,8193]", 1, "LT")), 3 * 16384 * 4);
  EXPECT_EQ(scratch_of(SortModule({"f32", "s32"}, "[20000,2]", 0, "GT")), 2 * 32768 * 4);
  // At most kMostSortRowsInFlight slots, however many rows.
  EXPECT_EQ(scratch_of(SortModule({"s32"}, "[2000,10000]", 1, "LT")), kMostSortRowsInFlight * 16384 * 4);
  // At most kMostSortScratchBytes: one row of 2^28 positions (1 GiB) at a time.
  EXPECT_EQ(scratch_of(SortModule({"u8"}, "[3,268435456]", 1, "LT")), kMostSortScratchBytes);
}

TEST(GpuLongSortTest, RowsTooLongForTheScratchLimitAreRefused) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndReturnUnverifiedModule(SortModule({"u8"}, "[268435457]", 0, "LT"));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuPlan> plan = CompileGpuPlan(*std::move(module), GpuTarget());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(plan.status().message(), HasSubstr("rows of 268435457 elements"));
  EXPECT_THAT(plan.status().message(), HasSubstr("2147483648 bytes of scratch"));
}

// The long sort's kernel takes its scratch pointer after the outputs' and operands' (five
// parameters for two operands), synchronizes its block, and assembles when ptxas is installed.
TEST(GpuLongSortTest, KernelTakesScratchLastAndAssembles) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndReturnUnverifiedModule(SortModule({"f32", "s32"}, "[2,40000]", 1, "LT"));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuPlan> plan = CompileGpuPlan(*std::move(module), GpuTarget());
  ASSERT_TRUE(plan.ok()) << plan.status();
  const GpuPlanStep* sort = nullptr;
  for (const GpuPlanStep& step : plan->entry().steps) {
    if (step.kind == GpuPlanStep::Kind::kKernel && step.hlo->opcode() == HloOpcode::kSort) sort = &step;
  }
  ASSERT_NE(sort, nullptr);
  // Two rows: spread over the grid, a slot per row; launches: the tiles of 2048, then for each
  // merge of 4096 to 65536 its strides down to 2048 (1 + 2 + 3 + 4 + 5) and its tiles, then
  // the gather.
  EXPECT_EQ(sort->rows, 0);
  EXPECT_EQ(sort->phases.size(), 15u + 5u + 1u);
  EXPECT_EQ(sort->scratch_bytes, 2 * 65536 * 4);
  const std::string& ptx = plan->ptx;
  const size_t entry = ptx.find(absl::StrCat(".entry ", sort->kernel, "("));
  ASSERT_NE(entry, std::string::npos) << ptx;
  const std::string params = ptx.substr(entry, ptx.find(')', entry) - entry);
  int count = 0;
  for (size_t at = params.find(".param"); at != std::string::npos; at = params.find(".param", at + 1)) ++count;
  EXPECT_EQ(count, 5) << params;
  EXPECT_THAT(ptx, HasSubstr("bar.sync"));
  const char* ptxas = "/usr/local/cuda/bin/ptxas";
  if (access(ptxas, X_OK) != 0) GTEST_SKIP() << "no " << ptxas << ": the PTX is not assembled";
  char dir[] = "/tmp/xla_long_sort_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string src = absl::StrCat(dir, "/k.ptx");
  std::ofstream(src) << ptx;
  const std::string command = absl::StrCat(ptxas, " -arch=sm_90 ", src, " -o ", dir, "/k.cubin > ", dir, "/log 2>&1");
  const int rc = std::system(command.c_str());
  std::ifstream log(absl::StrCat(dir, "/log"));
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  std::system(absl::StrCat("rm -rf ", dir).c_str());
  EXPECT_EQ(rc, 0) << text;
}

// One row just past the shared-memory limit, and one of four tiles' worth, unpadded.
TEST(GpuLongSortTest, OneLongRowAgrees) {
  std::vector<Literal> args;
  args.push_back(Random("f32[20000]", 1, 1000));
  EXPECT_TRUE(AgreesWithInterpreter(SortModule({"f32"}, "[20000]", 0, "LT"), args));
  args.clear();
  args.push_back(Random("s32[65539]", 2, 1 << 30));
  EXPECT_TRUE(AgreesWithInterpreter(SortModule({"s32"}, "[65539]", 0, "GT"), args));
}

// Entries too wide to keep beside the positions in shared memory (three 8-byte operands):
// every comparison reads the operands through the positions.
TEST(GpuLongSortTest, WideOperandsAgree) {
  std::vector<Literal> args;
  args.push_back(Random("f64[9001]", 9, 100, true));
  args.push_back(Random("u64[9001]", 10, 1000));
  args.push_back(Random("s64[9001]", 11, 1 << 20));
  EXPECT_TRUE(AgreesWithInterpreter(SortModule({"f64", "u64", "s64"}, "[9001]", 0, "GT, type=TOTALORDER"), args));
}

// argsort of a million keys with many equal ones: the values (positions) of equal keys stay
// in order.
TEST(GpuLongSortTest, MillionElementArgsortIsStable) {
  const int64_t n = int64_t{1} << 20;
  std::vector<Literal> args;
  args.push_back(Random(absl::StrCat("s32[", n, "]"), 3, 5000));
  args.push_back(Iota({n}, 0));
  EXPECT_TRUE(AgreesWithInterpreter(SortModule({"s32", "s32"}, absl::StrCat("[", n, "]"), 0, "LT"), args));
}

// Several rows of 30000: NaNs of both signs, signed zeros and infinities in the total order,
// ascending and descending, with values along (argsort); is_stable unset sorts stably too.
TEST(GpuLongSortTest, SeveralRowsWithNaNsAndSignedZerosAgree) {
  std::vector<Literal> args;
  args.push_back(Random("f32[3,30000]", 4, 50, true));
  args.push_back(Iota({3, 30000}, 1));
  EXPECT_TRUE(AgreesWithInterpreter(SortModule({"f32", "s32"}, "[3,30000]", 1, "LT, type=TOTALORDER"), args));
  EXPECT_TRUE(
      AgreesWithInterpreter(SortModule({"f32", "s32"}, "[3,30000]", 1, "GT, type=TOTALORDER", false), args));
}

// Rows along the major dimension: elements of a row are 5 apart.
TEST(GpuLongSortTest, RowsAlongAMajorDimensionAgree) {
  std::vector<Literal> args;
  args.push_back(Random("f64[17000,5]", 5, 300, true));
  args.push_back(Iota({17000, 5}, 0));
  EXPECT_TRUE(AgreesWithInterpreter(SortModule({"f64", "s32"}, "[17000,5]", 0, "LT, type=TOTALORDER"), args));
}

// Three operands compared lexicographically (u8, then bf16 in total order, then the s32
// position descending), in a column-major layout (the sort dimension is the minor one).
TEST(GpuLongSortTest, LexicographicThreeOperandSortAgrees) {
  const std::string hlo = R"(HloModule lexicographic
cmp {
  a0 = u8[] parameter(0)
  b0 = u8[] parameter(1)
  a1 = bf16[] parameter(2)
  b1 = bf16[] parameter(3)
  a2 = s32[] parameter(4)
  b2 = s32[] parameter(5)
  lt0 = pred[] compare(a0, b0), direction=LT
  eq0 = pred[] compare(a0, b0), direction=EQ
  lt1 = pred[] compare(a1, b1), direction=LT, type=TOTALORDER
  eq1 = pred[] compare(a1, b1), direction=EQ, type=TOTALORDER
  gt2 = pred[] compare(a2, b2), direction=GT
  then1 = pred[] and(eq1, gt2)
  second = pred[] or(lt1, then1)
  then0 = pred[] and(eq0, second)
  ROOT c = pred[] or(lt0, then0)
}
ENTRY main {
  k = u8[12000,2]{0,1} parameter(0)
  h = bf16[12000,2]{0,1} parameter(1)
  i = s32[12000,2]{0,1} parameter(2)
  ROOT s = (u8[12000,2]{0,1}, bf16[12000,2]{0,1}, s32[12000,2]{0,1}) sort(k, h, i), dimensions={0}, to_apply=cmp
})";
  std::vector<Literal> args;
  args.push_back(Random("u8[12000,2]", 7, 4));
  args.push_back(Random("bf16[12000,2]", 8, 3, true));
  args.push_back(Iota({12000, 2}, 0));
  EXPECT_TRUE(AgreesWithInterpreter(hlo, args));
}

// More rows than scratch slots: blocks past the slots take no row, the others several, each
// reusing its slot (the bound is lowered to 2 here; rows past 1024 reach it on a GPU).
TEST(GpuLongSortTest, MoreRowsThanSlotsAgree) {
  SetMostSortRowsInFlightForTesting(2);
  SetSpreadSortsForTesting(false);
  // Restored however the test ends, so that a failure here cannot change the others.
  absl::Cleanup restore = [] {
    SetMostSortRowsInFlightForTesting(0);
    SetSpreadSortsForTesting(true);
  };
  std::vector<Literal> args;
  args.push_back(Random("s32[5,9000]", 6, 20));
  args.push_back(Iota({5, 9000}, 1));
  const std::string hlo = SortModule({"s32", "s32"}, "[5,9000]", 1, "GT");
  EXPECT_TRUE(AgreesWithInterpreter(hlo, args));
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuPlan> plan = CompileGpuPlan(*std::move(module), GpuTarget());
  ASSERT_TRUE(plan.ok()) << plan.status();
  int64_t scratch = 0;
  for (const GpuPlanStep& step : plan->entry().steps) scratch += step.scratch_bytes;
  EXPECT_EQ(scratch, 2 * 16384 * 4);
}

// topk over long rows and small k (gpu_expanders.h: PlanTopKChunks): chunks sorted and cut to
// k, then the candidates sorted; agrees with the interpreter bit for bit, ties (the lower
// index first) and NaNs included, for both orders, batch dimensions, rows that need padding
// and rows that do not, a row holding the padding's own value, and several types.
std::string TopKModule(const std::string& type, const std::string& dims, const std::string& out_dims, int64_t k,
                       bool largest) {
  return absl::StrCat("HloModule topk\nENTRY main {\n  x = ", type, dims, " parameter(0)\n  ROOT t = (", type, out_dims,
                      ", s32", out_dims, ") topk(x), k=", k, ", largest=", largest ? "true" : "false", "\n}\n");
}

std::vector<Literal> One(Literal x) {
  std::vector<Literal> args;
  args.push_back(std::move(x));
  return args;
}

int CountSorts(const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return -1;
  EXPECT_TRUE(ExpandForGpu(module->get()).ok());
  int sorts = 0;
  for (const auto& c : (*module)->computations()) {
    for (const auto& h : c->instructions()) sorts += h->opcode() == HloOpcode::kSort;
  }
  return sorts;
}

TEST(GpuTopKTest, LongRowsAndSmallKRunAsChunks) {
  // A vocabulary of 32000, k = 40: 63 chunks of 512 (1.8M bitonic steps against 15.7M).
  const std::optional<TopKChunks> vocab = PlanTopKChunks(32000, 40, F32);
  ASSERT_TRUE(vocab.has_value());
  EXPECT_EQ(vocab->chunk, 512);
  EXPECT_EQ(vocab->count, 63);
  EXPECT_TRUE(PlanTopKChunks(8192, 8, S32).has_value());
  EXPECT_FALSE(PlanTopKChunks(100, 5, F32).has_value());     // short rows: one sort
  EXPECT_FALSE(PlanTopKChunks(5000, 3000, F32).has_value());  // k near the row
  EXPECT_FALSE(PlanTopKChunks(5000, 0, F32).has_value());
  EXPECT_FALSE(PlanTopKChunks(5000, 4, C64).has_value());
  EXPECT_FALSE(PlanTopKChunks(5000, 4, PRED).has_value());
  EXPECT_EQ(CountSorts(TopKModule("f32", "[4,32000]", "[4,40]", 40, true)), 2);
  EXPECT_EQ(CountSorts(TopKModule("f32", "[4,100]", "[4,5]", 5, true)), 1);
}

TEST(GpuTopKTest, ChunkedAgreesWithTheInterpreter) {
  for (bool largest : {true, false}) {
    // Ties, NaNs of both signs, zeros of both signs, infinities; padded (5000 = 10 x 512 - 120).
    EXPECT_TRUE(AgreesWithInterpreter(TopKModule("f32", "[3,5000]", "[3,7]", 7, largest),
                                      One(Random("f32[3,5000]", 1, 20, true))));
    // Batch dimensions, a row of 4096 (no padding), few distinct values.
    EXPECT_TRUE(AgreesWithInterpreter(TopKModule("s32", "[2,2,4096]", "[2,2,5]", 5, largest),
                                      One(Random("s32[2,2,4096]", 2, 9))));
    EXPECT_TRUE(AgreesWithInterpreter(TopKModule("u8", "[2,3000]", "[2,16]", 16, largest),
                                      One(Random("u8[2,3000]", 3, 4))));
    EXPECT_TRUE(AgreesWithInterpreter(TopKModule("bf16", "[1,6000]", "[1,3]", 3, largest),
                                      One(Random("bf16[1,6000]", 4, 50, true))));
    EXPECT_TRUE(AgreesWithInterpreter(TopKModule("f64", "[2,2500]", "[2,9]", 9, largest),
                                      One(Random("f64[2,2500]", 5, 30, true))));
  }
  // Results in a layout other than the default (a copy after the rewrite), chunked and not.
  EXPECT_TRUE(AgreesWithInterpreter(TopKModule("f32", "[3,5000]", "[3,7]{0,1}", 7, true),
                                    One(Random("f32[3,5000]", 8, 20, true))));
  EXPECT_TRUE(AgreesWithInterpreter(TopKModule("f32", "[3,100]", "[3,5]{0,1}", 5, false),
                                    One(Random("f32[3,100]", 9, 20, true))));
  // Rows of nothing but the padding's value (the NaN of the largest payload, negative for
  // largest; the smallest s16 for largest, the largest for smallest), row 0 for largest, row
  // 1 for smallest: every element ties with the padding, and the row's own come first.
  Literal nans = Random("f32[2,3000]", 6, 3);
  Literal ends = Random("s16[2,3000]", 7, 3);
  for (int64_t i = 0; i < 6000; ++i) {
    const uint32_t pattern = i < 3000 ? 0xFFFFFFFFu : 0x7FFFFFFFu;
    std::memcpy(static_cast<char*>(nans.untyped_data()) + 4 * i, &pattern, 4);
    ends.SetFromInt64(i, i < 3000 ? -32768 : 32767);
  }
  for (bool largest : {true, false}) {
    for (const int64_t k : {1, 40}) {
      const std::string out = absl::StrCat("[2,", k, "]");
      EXPECT_TRUE(AgreesWithInterpreter(TopKModule("f32", "[2,3000]", out, k, largest), One(nans.Clone()))) << k;
      EXPECT_TRUE(AgreesWithInterpreter(TopKModule("s16", "[2,3000]", out, k, largest), One(ends.Clone()))) << k;
    }
  }
}

}  // namespace
}  // namespace gpu
}  // namespace xla
