// dynamic-update-slice on gpu writes only its update region (GpuPlanStep::in_place): into
// operand 0's own buffer when nothing else holds it and nothing reads it later, else into a
// device-to-device copy of it. Run on the kernel emulator: results agree with the interpreter,
// the fake driver's count of device-to-device bytes shows which updates copied, and values
// read later, the caller's arguments (unless donated and held by nothing else) and constants
// keep their bytes.

#include <algorithm>
#include <cstdint>
#include <random>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/testing/fake_cuda_hooks.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/testing/checked_run.h"
#include "backends/gpu/testing/emulated_gpu.h"
#include "backends/gpu/testing/gpu_test_modules.h"
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {
namespace {

using ::xla::testing::LiteralNear;
using ::xla::testing::RunHloOn;
using ::xla::testing::SharedInterpreter;
namespace modules = ::xla::gpu::testing;
using modules::CompileOnGpu;
using modules::DeviceToDeviceBytes;
using modules::Outcome;
using modules::RunChecked;

// Launches so far of kernels whose names end with `suffix` (a scatter's fill is its kernel's
// own entry, `k<n>_<name>`; its later launches end in `_p<k>`).
int LaunchesEnding(const std::string& suffix) {
  auto hook = FakeCudaHook<int (*)(const char*)>("xla_fake_cuda_launches_ending");
  return hook == nullptr ? -1 : hook(suffix.c_str());
}

// A decoding loop's KV cache: iteration i writes row i of a [64, 1024] cache, 64 iterations
// (a counted loop), with weights passed through the state unchanged (read after the update in
// post order: the plan reads every element of the state first, StepOrder). The cache starts as
// the caller's argument, which must not change: the first update copies it, the 63 after it
// write the loop's own buffer in place.
constexpr char kCacheLoop[] = R"(HloModule kv_cache

body {
  s = (s32[], f32[64,1024], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  cache = f32[64,1024] get-tuple-element(s), index=1
  x = f32[] convert(i)
  row = f32[1,1024] broadcast(x), dimensions={}
  io = f32[1,1024] iota(), iota_dimension=1
  v = f32[1,1024] add(row, io)
  zero = s32[] constant(0)
  updated = f32[64,1024] dynamic-update-slice(cache, v, i, zero)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  w = f32[8] get-tuple-element(s), index=2
  ROOT t = (s32[], f32[64,1024], f32[8]) tuple(next, updated, w)
}

cond {
  s = (s32[], f32[64,1024], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  k = s32[] constant(64)
  ROOT lt = pred[] compare(i, k), direction=LT
}

ENTRY e {
  c = f32[64,1024] parameter(0)
  w = f32[8] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[64,1024], f32[8]) tuple(z, c, w)
  l = (s32[], f32[64,1024], f32[8]) while(init), condition=cond, body=body
  ROOT r = f32[64,1024] get-tuple-element(l), index=1
}
)";

TEST(GpuInPlaceTest, ACacheLoopCopiesTheCallersCacheOnceThenUpdatesInPlace) {
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(F32, {64, 1024}, 3));
  args.push_back(modules::RandomLiteral(F32, {8}, 4));
  absl::StatusOr<Outcome> run = RunChecked(kCacheLoop, args);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->copied, 64 * 1024 * 4) << "one copy of the cache, not one per iteration";
  // Donated (jax.jit's donate_argnums), the caller's cache itself is updated: no copy at all;
  // donated but still held elsewhere, it is copied once and survives.
  run = RunChecked(kCacheLoop, args, {0});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->copied, 0);
  run = RunChecked(kCacheLoop, args, {0}, /*keep=*/true);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->copied, 64 * 1024 * 4);
}

// A scan's outputs: a loop whose trip count is data (the bound is in the state) writes row i
// of ys, which starts as a kernel's zeros, each iteration. Nothing but the loop holds ys:
// no update copies it.
constexpr char kScanLoop[] = R"(HloModule scan

body {
  s = (s32[], s32[], f32[16], f32[48,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  carry = f32[16] get-tuple-element(s), index=2
  ys = f32[48,16] get-tuple-element(s), index=3
  half = f32[16] constant({0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5})
  scaled = f32[16] multiply(carry, half)
  x = f32[] convert(i)
  xs = f32[16] broadcast(x), dimensions={}
  c2 = f32[16] add(scaled, xs)
  y = f32[1,16] reshape(c2)
  zero = s32[] constant(0)
  ys2 = f32[48,16] dynamic-update-slice(ys, y, i, zero)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], s32[], f32[16], f32[48,16]) tuple(next, n, c2, ys2)
}

cond {
  s = (s32[], s32[], f32[16], f32[48,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  c = f32[16] parameter(0)
  n = s32[] parameter(1)
  z = s32[] constant(0)
  f0 = f32[] constant(0)
  ys = f32[48,16] broadcast(f0), dimensions={}
  init = (s32[], s32[], f32[16], f32[48,16]) tuple(z, n, c, ys)
  w = (s32[], s32[], f32[16], f32[48,16]) while(init), condition=cond, body=body
  ROOT r = f32[48,16] get-tuple-element(w), index=3
}
)";

TEST(GpuInPlaceTest, AScanWritesItsOutputsInPlaceInADataDependentLoop) {
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(F32, {16}, 5));
  args.push_back(Literal::CreateR0<int32_t>(40));
  absl::StatusOr<Outcome> run = RunChecked(kScanLoop, args);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->copied, 0);
}

// Outside loops: an update whose operand is read again later (the tuple's first element) must
// copy it, and both values come out right; one whose operand nothing else reads (a chain of
// two updates of a fresh array, or an update of a view of one) copies nothing. Start indices
// out of range are clamped.
TEST(GpuInPlaceTest, AnOperandReadLaterIsCopiedAndAChainOfUpdatesIsNot) {
  constexpr char kReadLater[] = R"(HloModule read_later
ENTRY e {
  p = f32[32,8] parameter(0)
  u = f32[4,8] parameter(1)
  i = s32[] parameter(2)
  a = f32[32,8] add(p, p)
  zero = s32[] constant(0)
  d = f32[32,8] dynamic-update-slice(a, u, i, zero)
  ROOT t = (f32[32,8], f32[32,8]) tuple(a, d)
}
)";
  constexpr char kChain[] = R"(HloModule chain
ENTRY e {
  p = f32[32,8] parameter(0)
  u = f32[4,8] parameter(1)
  i = s32[] parameter(2)
  a = f32[32,8] add(p, p)
  zero = s32[] constant(0)
  d = f32[32,8] dynamic-update-slice(a, u, i, zero)
  m = s32[] constant(-7)
  ROOT e = f32[32,8] dynamic-update-slice(d, u, m, i)
}
)";
  // The update's operand a view (a reshape of a sort's output, which no kernel computes):
  // the view and the array it views are both held by nothing else, so no copy either.
  constexpr char kView[] = R"(HloModule view
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  p = f32[32,8] parameter(0)
  u = f32[4,8] parameter(1)
  i = s32[] parameter(2)
  flat = f32[256] reshape(p)
  sorted = f32[256] sort(flat), dimensions={0}, to_apply=less
  a = f32[32,8] reshape(sorted)
  zero = s32[] constant(0)
  ROOT d = f32[32,8] dynamic-update-slice(a, u, i, zero)
}
)";
  for (int32_t start : {3, -5, 30, 1000}) {
    std::vector<Literal> args;
    args.push_back(modules::RandomLiteral(F32, {32, 8}, 11));
    args.push_back(modules::RandomLiteral(F32, {4, 8}, 12));
    args.push_back(Literal::CreateR0<int32_t>(start));
    absl::StatusOr<Outcome> read_later = RunChecked(kReadLater, args);
    ASSERT_TRUE(read_later.ok()) << start << ": " << read_later.status();
    EXPECT_EQ(read_later->copied, 32 * 8 * 4) << start;
    absl::StatusOr<Outcome> chain = RunChecked(kChain, args);
    ASSERT_TRUE(chain.ok()) << start << ": " << chain.status();
    EXPECT_EQ(chain->copied, 0) << start;
    absl::StatusOr<Outcome> view = RunChecked(kView, args);
    ASSERT_TRUE(view.ok()) << start << ": " << view.status();
    EXPECT_EQ(view->copied, 0) << start;
  }
}

// An array argument updated directly: copied unless donated (donating the other arguments
// does not help); a donation index out of range is refused.
TEST(GpuInPlaceTest, AnArgumentIsCopiedUnlessDonated) {
  constexpr char kArgument[] = R"(HloModule argument
ENTRY e {
  p = u8[64] parameter(0)
  u = u8[8] parameter(1)
  i = u32[] parameter(2)
  ROOT d = u8[64] dynamic-update-slice(p, u, i)
}
)";
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(U8, {64}, 21, 200));
  args.push_back(modules::RandomLiteral(U8, {8}, 22, 200));
  args.push_back(Literal::CreateR0<uint32_t>(4000000000u));
  for (const auto& [donated, copied] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
           {{}, 64}, {{1, 2}, 64}, {{0}, 0}, {{2, 0}, 0}}) {
    absl::StatusOr<Outcome> argument = RunChecked(kArgument, args, donated);
    ASSERT_TRUE(argument.ok()) << argument.status();
    EXPECT_EQ(argument->copied, copied) << donated.size();
  }
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> executable = CompileOnGpu(kArgument);
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::vector<std::shared_ptr<backend::Buffer>> buffers;
  for (const Literal& arg : args) buffers.push_back(*gpu->TransferToDevice(arg, 0));
  backend::ExecuteOptions options;
  options.donated_arguments = {3};
  absl::StatusOr<std::shared_ptr<backend::Buffer>> out = (*executable)->Execute(buffers, options);
  EXPECT_TRUE(absl::IsInvalidArgument(out.status())) << out.status();
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("donated argument 3 does not exist"));
}

// A donated tuple: its element is updated in place unless the caller also holds that element
// by itself, which must then survive.
TEST(GpuInPlaceTest, ADonatedTuplesElementIsUpdatedInPlaceUnlessHeldElsewhere) {
  constexpr char kTupleArgument[] = R"(HloModule tuple_argument
ENTRY e {
  p = (f32[16], s32[]) parameter(0)
  a = f32[16] get-tuple-element(p), index=0
  i = s32[] get-tuple-element(p), index=1
  u = f32[2] constant({7, 8})
  ROOT d = f32[16] dynamic-update-slice(a, u, i)
}
)";
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> executable = CompileOnGpu(kTupleArgument);
  ASSERT_TRUE(executable.ok()) << executable.status();
  Literal array = modules::RandomLiteral(F32, {16}, 41);
  std::vector<Literal> elements;
  elements.push_back(array.Clone());
  elements.push_back(Literal::CreateR0<int32_t>(3));
  const Literal tuple = Literal::MakeTuple(std::move(elements));
  for (bool keep : {false, true}) {
    std::vector<std::shared_ptr<backend::Buffer>> buffers = {*gpu->TransferToDevice(tuple, 0)};
    std::shared_ptr<backend::Buffer> element = keep ? buffers[0]->tuple_elements()[0] : nullptr;
    backend::ExecuteOptions options;
    options.donated_arguments = {0};
    const int64_t before = DeviceToDeviceBytes();
    absl::StatusOr<std::shared_ptr<backend::Buffer>> out = (*executable)->Execute(buffers, options);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(DeviceToDeviceBytes() - before, keep ? 16 * 4 : 0) << keep;
    absl::StatusOr<Literal> got = gpu->TransferFromDevice(**out);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->data<float>()[3], 7.0f);
    EXPECT_EQ(got->data<float>()[4], 8.0f);
    EXPECT_EQ(got->data<float>()[0], array.data<float>()[0]);
    if (keep) {
      EXPECT_EQ(*gpu->TransferFromDevice(*element), array) << "the element the caller kept was overwritten";
    }
  }
}

// A constant updated, twice: the second execution must see the constant unchanged.
TEST(GpuInPlaceTest, ConstantsAreNeverWritten) {
  constexpr char kConstant[] = R"(HloModule constant
ENTRY e {
  c = s32[6] constant({1, 2, 3, 4, 5, 6})
  u = s32[2] parameter(0)
  i = s32[] parameter(1)
  ROOT d = s32[6] dynamic-update-slice(c, u, i)
}
)";
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> executable = CompileOnGpu(kConstant);
  ASSERT_TRUE(executable.ok()) << executable.status();
  for (int32_t start : {0, 4}) {
    std::vector<std::shared_ptr<backend::Buffer>> buffers = {*gpu->TransferToDevice(Literal::CreateR1<int32_t>({-1, -2}), 0),
                                                             *gpu->TransferToDevice(Literal::CreateR0<int32_t>(start), 0)};
    absl::StatusOr<std::shared_ptr<backend::Buffer>> out = (*executable)->Execute(buffers, backend::ExecuteOptions());
    ASSERT_TRUE(out.ok()) << out.status();
    absl::StatusOr<Literal> got = gpu->TransferFromDevice(**out);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, start == 0 ? Literal::CreateR1<int32_t>({-1, -2, 3, 4, 5, 6})
                               : Literal::CreateR1<int32_t>({1, 2, 3, 4, -1, -2}));
  }
}

// A conditional's branch updates the value it is passed (moved to it: no copy), also when
// every branch is given the same value (lax.cond).
TEST(GpuInPlaceTest, ABranchUpdatesTheValueItIsGiven) {
  constexpr char kBranch[] = R"(HloModule branch
yes {
  a = f32[16,4] parameter(0)
  one = f32[] constant(1)
  u = f32[2,4] broadcast(one), dimensions={}
  k = s32[] constant(5)
  zero = s32[] constant(0)
  ROOT d = f32[16,4] dynamic-update-slice(a, u, k, zero)
}
no {
  ROOT a = f32[16,4] parameter(0)
}
ENTRY e {
  p = f32[16,4] parameter(0)
  b = pred[] parameter(1)
  a = f32[16,4] negate(p)
  ROOT c = f32[16,4] conditional(b, a, a), true_computation=yes, false_computation=no
}
)";
  for (bool take : {true, false}) {
    std::vector<Literal> branch_args;
    branch_args.push_back(modules::RandomLiteral(F32, {16, 4}, 31));
    branch_args.push_back(Literal::CreateR0<bool>(take));
    absl::StatusOr<Outcome> branch = RunChecked(kBranch, branch_args);
    ASSERT_TRUE(branch.ok()) << take << ": " << branch.status();
    EXPECT_EQ(branch->copied, 0) << take;
  }
}

// A histogram in a loop's state, x.at[(i * 37) % 100].add(1) each of 50 iterations: the
// scatter adds into the loop's own buffer, its fill launch skipped, except the first time,
// when the histogram is still the caller's argument (none when the caller donates it).
constexpr char kHistogramLoop[] = R"(HloModule histogram

add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

body {
  s = (s32[], s32[100]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  hist = s32[100] get-tuple-element(s), index=1
  m = s32[] constant(37)
  n = s32[] constant(100)
  im = s32[] multiply(i, m)
  r = s32[] remainder(im, n)
  idx = s32[1,1] reshape(r)
  one = s32[] constant(1)
  upd = s32[1] broadcast(one), dimensions={}
  hist2 = s32[100] scatter(hist, idx, upd), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  next = s32[] add(i, one)
  ROOT t = (s32[], s32[100]) tuple(next, hist2)
}

cond {
  s = (s32[], s32[100]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  k = s32[] constant(50)
  ROOT lt = pred[] compare(i, k), direction=LT
}

ENTRY e {
  h = s32[100] parameter(0)
  z = s32[] constant(0)
  init = (s32[], s32[100]) tuple(z, h)
  l = (s32[], s32[100]) while(init), condition=cond, body=body
  ROOT r = s32[100] get-tuple-element(l), index=1
}
)";

TEST(GpuInPlaceTest, AScatterInALoopAddsIntoItsStateWithoutRefilling) {
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(S32, {100}, 51, 1000));
  for (const bool donate : {false, true}) {
    const int fills = LaunchesEnding("_hist2");
    absl::StatusOr<Outcome> run = RunChecked(kHistogramLoop, args, donate ? std::vector<int64_t>{0} : std::vector<int64_t>{});
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_EQ(LaunchesEnding("_hist2") - fills, donate ? 0 : 1) << "fills, donated: " << donate;
    EXPECT_EQ(LaunchesEnding("_hist2_p1") > 0, true);
    EXPECT_EQ(run->copied, 0);
  }
}

// Scatters that must still fill: one that overwrites (x.at[i].set(v)), whose fill clears
// the update positions in scratch even when the output is its operand, and a variadic one
// of which one operand is read again later (filled into a new buffer) and the other is not
// (updated in place, skipped by the fill).
TEST(GpuInPlaceTest, SetScattersAndPartlyTakenVariadicScattersKeepTheirOperandsValues) {
  constexpr char kSet[] = R"(HloModule set
assign {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
ENTRY e {
  p = f32[64] parameter(0)
  idx = s32[5,1] parameter(1)
  upd = f32[5] parameter(2)
  x = f32[64] negate(p)
  ROOT s = f32[64] scatter(x, idx, upd), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign
}
)";
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(F32, {64}, 61));
  args.push_back(Literal::CreateR2<int32_t>({{3}, {60}, {3}, {-1}, {63}}));
  args.push_back(modules::RandomLiteral(F32, {5}, 62));
  const int fills = LaunchesEnding("_s");
  absl::StatusOr<Outcome> set = RunChecked(kSet, args);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(LaunchesEnding("_s") - fills, 1) << "the fill clears the update positions";

  constexpr char kVariadic[] = R"(HloModule variadic
both {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = s32[] parameter(3)
  s = f32[] add(a, c)
  t = s32[] add(b, d)
  ROOT r = (f32[], s32[]) tuple(s, t)
}
ENTRY e {
  p = f32[32] parameter(0)
  q = s32[32] parameter(1)
  idx = s32[4,1] parameter(2)
  u = f32[4] parameter(3)
  v = s32[4] parameter(4)
  x = f32[32] negate(p)
  y = s32[32] negate(q)
  s = (f32[32], s32[32]) scatter(x, y, idx, u, v), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=both
  s0 = f32[32] get-tuple-element(s), index=0
  s1 = s32[32] get-tuple-element(s), index=1
  ROOT t = (f32[32], s32[32], f32[32]) tuple(s0, s1, x)
}
)";
  std::vector<Literal> variadic;
  variadic.push_back(modules::RandomLiteral(F32, {32}, 71));
  variadic.push_back(modules::RandomLiteral(S32, {32}, 72, 1000));
  variadic.push_back(Literal::CreateR2<int32_t>({{1}, {31}, {1}, {40}}));
  variadic.push_back(modules::RandomLiteral(F32, {4}, 73));
  variadic.push_back(modules::RandomLiteral(S32, {4}, 74, 1000));
  absl::StatusOr<Outcome> partly = RunChecked(kVariadic, variadic);
  ASSERT_TRUE(partly.ok()) << partly.status();
}

// The number of kernel steps of `hlo`'s entry sequence once compiled for the gpu.
int EntryKernels(const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return -1;
  absl::StatusOr<GpuPlan> plan = CompileGpuPlan(*std::move(module), GpuTarget{});
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return -1;
  int kernels = 0;
  for (const GpuPlanStep& step : plan->entry().steps) kernels += step.kind == GpuPlanStep::Kind::kKernel;
  return kernels;
}

// An update computed for the dynamic-update-slice alone joins it in one kernel
// (gpu_update_fusion.h), which writes it in place; one that reads the array being updated, or
// that something else reads too, keeps its own kernel. Each agrees with the interpreter.
TEST(GpuInPlaceTest, UpdatesComputedForTheSliceAloneJoinItsKernel) {
  const std::string head = R"(HloModule m
ENTRY e {
  p = f32[32,8] parameter(0)
  x = f32[4,8] parameter(1)
  i = s32[] parameter(2)
  a = f32[32,8] negate(p)
  zero = s32[] constant(0)
  two = f32[] constant(2)
  t = f32[4,8] broadcast(two), dimensions={}
)";
  struct Case {
    std::string body;
    int kernels;  // a's, and the update's and the slice's (one when fused)
  };
  const Case cases[] = {
      {"  e = f32[4,8] exponential(x)\n  u = f32[4,8] multiply(e, t)\n"
       "  ROOT d = f32[32,8] dynamic-update-slice(a, u, i, zero)\n",
       2},
      // The update reads the array it is written into.
      {"  s = f32[4,8] slice(a), slice={[0:4], [0:8]}\n  u = f32[4,8] add(s, x)\n"
       "  ROOT d = f32[32,8] dynamic-update-slice(a, u, i, zero)\n",
       3},
      // The update is read again.
      {"  u = f32[4,8] multiply(x, t)\n  d = f32[32,8] dynamic-update-slice(a, u, i, zero)\n"
       "  ROOT r = (f32[32,8], f32[4,8]) tuple(d, u)\n",
       3},
  };
  for (const Case& c : cases) {
    const std::string hlo = head + c.body + "}\n";
    EXPECT_EQ(EntryKernels(hlo), c.kernels) << c.body;
    for (int32_t start : {0, 29, -3}) {
      std::vector<Literal> args;
      args.push_back(modules::RandomLiteral(F32, {32, 8}, 91));
      args.push_back(modules::RandomLiteral(F32, {4, 8}, 92));
      args.push_back(Literal::CreateR0<int32_t>(start));
      absl::StatusOr<Outcome> run = RunChecked(hlo, args);
      ASSERT_TRUE(run.ok()) << c.body << start << ": " << run.status();
      EXPECT_EQ(run->copied, 0) << c.body;
    }
  }
}

// A random loop over a state of three f32[8,16] arrays that each iteration rebuilds from one
// another by passing one through (maybe into two places at once, or into another's place),
// updating a row of one with a row of another (dynamic-update-slice), adding a row into one
// (scatter), or elementwise math; the state starts from the arguments (one of them in two
// places). Whatever buffers end up shared, taken or donated, the result must be the
// interpreter's and the arguments not donated must keep their values.
std::string RandomStateLoop(std::mt19937* rng, bool traced_bound) {
  const std::string a = "f32[8,16]", state = "(s32[], s32[], f32[8,16], f32[8,16], f32[8,16])";
  auto pick = [rng](int n) { return static_cast<int>((*rng)() % n); };
  std::string body = "body {\n  s = " + state + " parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
                     "  n = s32[] get-tuple-element(s), index=1\n"
                     "  x0 = " + a + " get-tuple-element(s), index=2\n  x1 = " + a + " get-tuple-element(s), index=3\n"
                     "  x2 = " + a + " get-tuple-element(s), index=4\n  one = s32[] constant(1)\n"
                     "  eight = s32[] constant(8)\n  r = s32[] remainder(i, eight)\n  zero = s32[] constant(0)\n"
                     "  half = f32[] constant(0.5)\n  h = " + a + " broadcast(half), dimensions={}\n"
                     "  ri = s32[1,1] reshape(r)\n";
  std::string next[3];
  for (int k = 0; k < 3; ++k) {
    const std::string src = "x" + std::to_string(pick(3)), other = "x" + std::to_string(pick(3));
    const std::string y = "y" + std::to_string(k);
    switch (pick(4)) {
      case 0:
        next[k] = src;
        continue;
      case 1:
        body += "  row" + std::to_string(k) + " = f32[1,16] slice(" + other + "), slice={[2:3], [0:16]}\n  " + y + " = " +
                a + " dynamic-update-slice(" + src + ", row" + std::to_string(k) + ", r, zero)\n";
        break;
      case 2:
        body += "  row" + std::to_string(k) + " = f32[1,16] slice(" + other + "), slice={[5:6], [0:16]}\n  " + y + " = " +
                a + " scatter(" + src + ", ri, row" + std::to_string(k) + "), update_window_dims={1}, " +
                "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n";
        break;
      default:
        body += "  m" + std::to_string(k) + " = " + a + " multiply(" + src + ", h)\n  " + y + " = " + a + " add(m" +
                std::to_string(k) + ", " + other + ")\n";
    }
    next[k] = y;
  }
  body += "  ni = s32[] add(i, one)\n  ROOT t = " + state + " tuple(ni, n, " + next[0] + ", " + next[1] + ", " + next[2] +
          ")\n}\n";
  const std::string bound = traced_bound ? "n" : "six";
  const std::string cond = "cond {\n  s = " + state + " parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
                           "  n = s32[] get-tuple-element(s), index=1\n  six = s32[] constant(6)\n"
                           "  ROOT lt = pred[] compare(i, " + bound + "), direction=LT\n}\n";
  const std::string add = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n";
  const std::string second = pick(2) == 0 ? "p0" : "p1";  // the first argument may start two elements
  const std::string entry = "ENTRY e {\n  p0 = " + a + " parameter(0)\n  p1 = " + a + " parameter(1)\n"
                            "  n = s32[] parameter(2)\n  z = s32[] constant(0)\n  init = " + state +
                            " tuple(z, n, p0, " + second + ", p1)\n  w = " + state +
                            " while(init), condition=cond, body=body\n  o0 = " + a + " get-tuple-element(w), index=2\n"
                            "  o1 = " + a + " get-tuple-element(w), index=3\n  o2 = " + a +
                            " get-tuple-element(w), index=4\n  ROOT r = (" + a + ", " + a + ", " + a + ", " + a +
                            ") tuple(o0, o1, o2, p1)\n}\n";
  return "HloModule random_state\n" + add + body + cond + entry;
}

TEST(GpuInPlaceTest, RandomStateLoopsAgreeWithTheInterpreterAndKeepTheArguments) {
  std::mt19937 rng(2026);
  for (int trial = 0; trial < 24; ++trial) {
    const bool traced = trial % 2 == 1;
    const std::string hlo = RandomStateLoop(&rng, traced);
    std::vector<Literal> args;
    args.push_back(modules::RandomLiteral(F32, {8, 16}, 100 + trial));
    args.push_back(modules::RandomLiteral(F32, {8, 16}, 200 + trial));
    args.push_back(Literal::CreateR0<int32_t>(5));
    const std::vector<int64_t> donated = trial % 3 == 0 ? std::vector<int64_t>{0} : std::vector<int64_t>{};
    absl::StatusOr<Outcome> run = RunChecked(hlo, args, donated);
    ASSERT_TRUE(run.ok()) << "trial " << trial << ": " << run.status() << "\n" << hlo;
  }
}

}  // namespace
}  // namespace gpu
}  // namespace xla
