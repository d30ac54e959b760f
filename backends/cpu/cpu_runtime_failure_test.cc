// A runtime routine that throws (std::bad_alloc when host memory runs out, above all) fails
// its execution with an error instead of unwinding into generated code and ending the
// process (runtime.h's RunRoutine): the error names the routine, the execution stops, and
// the device, the executable and its other executions go on as before.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/runtime/runtime.h"
#include "backends/testing/address_space_cap.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

constexpr int64_t kRanges = int64_t{1} << 20;  // enough work to be split over the pool

std::atomic<int64_t> ranges_run{0};

// A parallel loop's kernel that throws the exception slots[0] names (0: std::bad_alloc, 1: a
// std::runtime_error, 2: an int, which is no std::exception) when its range holds iteration
// 1000.
void ThrowingKernel(void** slots, int64_t begin, int64_t end) {
  ranges_run.fetch_add(1);
  if (begin > 1000 || end <= 1000) return;
  const int which = *static_cast<int*>(slots[0]);
  if (which == 0) throw std::bad_alloc();
  if (which == 2) throw 42;
  throw std::runtime_error("range 1000 is broken");
}

TEST(CpuRuntimeFailureTest, ParallelLoopExceptionsFailTheCurrentExecution) {
  for (int which : {0, 1, 2}) {
    RunContext context;
    void* slots[] = {&which};
    {
      ScopedExecution current(&context);
      __xla_cpu_parallel_for(&ThrowingKernel, slots, kRanges, 64);
    }
    ASSERT_TRUE(context.failed());
    EXPECT_EQ(__xla_cpu_cancelled(&context), 1) << "generated code must stop at its next check";
    if (which == 0) {
      EXPECT_EQ(context.error().code(), absl::StatusCode::kResourceExhausted);
      EXPECT_EQ(context.error().message(), "parallel loop: out of host memory");
    } else if (which == 1) {
      EXPECT_EQ(context.error().code(), absl::StatusCode::kInternal);
      EXPECT_EQ(context.error().message(), "parallel loop failed: range 1000 is broken");
    } else {
      EXPECT_EQ(context.error().code(), absl::StatusCode::kInternal);
      EXPECT_EQ(context.error().message(), "parallel loop failed");
    }
    EXPECT_EQ(CurrentExecution(), nullptr);
  }
  // Outside an execution the exception reaches the caller.
  int bad_alloc = 0;
  void* slots[] = {&bad_alloc};
  EXPECT_THROW(__xla_cpu_parallel_for(&ThrowingKernel, slots, kRanges, 64), std::bad_alloc);
  // The first failure is the one reported.
  RunContext context;
  context.Fail(absl::ResourceExhaustedError("first"));
  context.Fail(absl::InternalError("second"));
  EXPECT_EQ(context.error().message(), "first");
}

// Each range of this kernel sorts 64 floats through __xla_cpu_sort with ThrowingLess, which
// throws for one of them: the sort fails on whichever thread runs that range, and the failure
// reaches the execution that started the loop.
int32_t ThrowingLess(void** elements) {
  const float a = *static_cast<const float*>(elements[0]), b = *static_cast<const float*>(elements[1]);
  if (a == 7777.0f || b == 7777.0f) throw std::runtime_error("comparator gave up");
  return a < b ? 1 : 0;
}

void SortingKernel(void** slots, int64_t begin, int64_t end) {
  auto* values = static_cast<std::vector<float>*>(slots[0]);
  const int64_t width = 4;
  for (int64_t i = begin; i < end; ++i) {
    void* data[] = {values->data() + i * 64};
    __xla_cpu_sort(1, 64, 1, 1, data, &width, &ThrowingLess);
  }
}

TEST(CpuRuntimeFailureTest, RoutinesOnHelperThreadsFailTheExecutionThatCalledThem) {
  constexpr int64_t kLines = 4096;
  std::vector<float> values(kLines * 64);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>((i * 7919) % 1000);
  values[(kLines - 3) * 64 + 5] = 7777.0f;  // a late line, likely run by a helper
  void* slots[] = {&values};
  RunContext context;
  {
    ScopedExecution current(&context);
    __xla_cpu_parallel_for(&SortingKernel, slots, kLines, 64 * 64);
  }
  ASSERT_TRUE(context.failed());
  EXPECT_EQ(context.error().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(context.error().message(), "sort failed: comparator gave up");
  EXPECT_TRUE(std::is_sorted(values.begin(), values.begin() + 64)) << "lines before the failure were sorted";
}

// In a child process (a death test) whose address space is capped just above what the sort's
// result needs, sorting 64M bytes runs out of memory for the sort's scratch: the execution
// fails with RESOURCE_EXHAUSTED naming the sort, and once the cap is lifted the same
// executable sorts the same buffer correctly. Exit code 0 when all of that held.
void SortOutOfMemoryThenRecover() {
  // 64M bytes: the result needs 64 MiB, the sort's permutation alone 512 MiB.
  constexpr int64_t kN = int64_t{1} << 26;
  testing::RegisterBackendsOnce();
  auto backend = backend::CreateBackend("cpu");
  if (!backend.ok()) std::_Exit(10);
  auto compile = [&](const std::string& hlo) -> std::unique_ptr<backend::Executable> {
    auto module = ParseAndReturnUnverifiedModule(hlo);
    if (!module.ok()) std::_Exit(11);
    auto executable = (*backend)->Compile(*std::move(module), backend::CompileOptions());
    if (!executable.ok()) std::_Exit(12);
    return *std::move(executable);
  };
  const std::string compare = R"(
compare {
  a = u8[] parameter(0)
  b = u8[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
})";
  auto big = compile(absl::StrCat("HloModule big\n", compare, "\nENTRY e {\n  x = u8[", kN,
                                  "] parameter(0)\n  ROOT s = u8[", kN, "] sort(x), dimensions={0}, to_apply=compare\n}\n"));
  // A first parallel sort starts the runtime's threads before the cap.
  auto warm = compile(absl::StrCat("HloModule warm\n", compare,
                                   "\nENTRY e {\n  x = u8[64,4096] parameter(0)\n"
                                   "  ROOT s = u8[64,4096] sort(x), dimensions={1}, to_apply=compare\n}\n"));
  std::vector<uint8_t> values(kN);
  std::vector<int64_t> histogram(256, 0);
  for (int64_t i = 0; i < kN; ++i) {
    values[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
    ++histogram[values[i]];
  }
  auto literal = Literal::CreateFromBuffer(ShapeUtil::MakeShape(U8, {kN}), values.data(), kN);
  auto small = Literal::Create(ShapeUtil::MakeShape(U8, {64, 4096}));
  if (!literal.ok() || !small.ok()) std::_Exit(13);
  auto input = (*backend)->TransferToDevice(*literal, 0);
  auto small_input = (*backend)->TransferToDevice(*small, 0);
  if (!input.ok() || !small_input.ok()) std::_Exit(14);
  if (!warm->Execute({*small_input}, backend::ExecuteOptions()).ok()) std::_Exit(15);

  // Room for the result with 96 MiB to spare (a thread's malloc arena may take 64 MiB of
  // it), far from room for the permutation.
  xla::testing::AddressSpaceCap cap(int64_t{160} << 20);
  if (!cap.ok()) std::_Exit(17);
  auto failed = big->Execute({*input}, backend::ExecuteOptions());
  cap.Lift();
  if (failed.ok()) {
    std::fprintf(stderr, "the capped sort succeeded: the cap did not bind\n");
    std::_Exit(19);
  }
  if (failed.status().code() != absl::StatusCode::kResourceExhausted ||
      failed.status().message() != "sort: out of host memory") {
    std::fprintf(stderr, "unexpected error: %s\n", failed.status().ToString().c_str());
    std::_Exit(20);
  }
  auto sorted = big->Execute({*input}, backend::ExecuteOptions());
  if (!sorted.ok()) std::_Exit(21);
  auto result = (*backend)->TransferFromDevice(**sorted);
  if (!result.ok()) std::_Exit(22);
  const auto* out = static_cast<const uint8_t*>(result->untyped_data());
  for (int64_t v = 0, i = 0; v < 256; ++v) {  // histogram[v] copies of each v, in order
    for (int64_t c = 0; c < histogram[v]; ++c, ++i) {
      if (out[i] != v) std::_Exit(23);
    }
  }
  std::_Exit(0);
}

TEST(CpuRuntimeFailureTest, SortOutOfHostMemoryFailsTheExecutionNotTheProcess) {
  XLA_EXPECT_CAPPED_CHILD_PASSES(SortOutOfMemoryThenRecover());
}

// A split line's parts (ForEachPart) are skipped once their execution has failed, elsewhere
// too: the routine stops there rather than go on with incomplete results, and the execution
// keeps its first error. Without a failure every part runs once.
TEST(CpuRuntimeFailureTest, SplitLinePartsStopWithTheirFailedExecution) {
  const LineParts parts = SplitLine(kSplitLineFrom * 4);
  ASSERT_GT(parts.count, 1);
  RunContext failed;
  failed.Fail(absl::InternalError("an earlier routine failed"));
  bool went_on = false;
  {
    ScopedExecution current(&failed);
    RunRoutine("sort", [&] {
      ForEachPart(parts, [](int64_t) {});
      went_on = true;
    });
  }
  EXPECT_FALSE(went_on);
  EXPECT_EQ(failed.error().message(), "an earlier routine failed");

  RunContext fine;
  std::vector<std::atomic<int>> runs(static_cast<size_t>(parts.count));
  {
    ScopedExecution current(&fine);
    RunRoutine("sort", [&] { ForEachPart(parts, [&](int64_t part) { runs[static_cast<size_t>(part)].fetch_add(1); }); });
  }
  EXPECT_FALSE(fine.failed());
  for (const std::atomic<int>& r : runs) EXPECT_EQ(r.load(), 1);
}

std::atomic<int64_t> iterations_run{0};
std::thread::id owner_thread;
// Counts its iterations; on a helper thread it is slow, so that the owner thread (which asks
// should_cancel) surely takes several chunks, however the threads are scheduled.
void CountingKernel(void**, int64_t begin, int64_t end) {
  if (std::this_thread::get_id() != owner_thread) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  iterations_run.fetch_add(end - begin);
}

// A parallel loop of much work asks between chunks whether its execution is cancelled (on
// the thread that runs the execution, the only one that calls should_cancel), and skips
// the chunks left once it is: the execution fails with CANCELLED.
TEST(CpuRuntimeFailureTest, LongParallelLoopsStopWhenCancelled) {
  constexpr int64_t kIterations = int64_t{1} << 20, kCost = int64_t{1} << 12;  // 2^32: many chunks
  int polls = 0;  // plain: only the owner thread may call should_cancel
  const std::function<bool()> cancel_at_second = [&polls] { return ++polls >= 2; };
  owner_thread = std::this_thread::get_id();
  RunContext context;
  context.should_cancel = &cancel_at_second;
  context.owner = std::this_thread::get_id();
  iterations_run = 0;
  {
    ScopedExecution current(&context);
    __xla_cpu_parallel_for(&CountingKernel, nullptr, kIterations, kCost);
  }
  ASSERT_TRUE(context.failed());
  EXPECT_EQ(context.error().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(polls, 2);
  EXPECT_LT(iterations_run.load(), kIterations) << "the chunks after the cancellation must not run";

  // Never cancelled: every iteration runs once, whatever the chunks.
  RunContext fine;
  const std::function<bool()> never = [&polls] { return ++polls < 0; };
  fine.should_cancel = &never;
  fine.owner = std::this_thread::get_id();
  polls = 0;
  iterations_run = 0;
  {
    ScopedExecution current(&fine);
    __xla_cpu_parallel_for(&CountingKernel, nullptr, kIterations, kCost);
  }
  EXPECT_FALSE(fine.failed());
  EXPECT_EQ(iterations_run.load(), kIterations);
  EXPECT_GE(polls, 2) << "a check per chunk the owner thread runs";

  // A loop of a failed execution runs nothing, however small.
  iterations_run = 0;
  {
    ScopedExecution current(&context);
    __xla_cpu_parallel_for(&CountingKernel, nullptr, 8, 1);
    __xla_cpu_parallel_for(&CountingKernel, nullptr, kIterations, kCost);
  }
  EXPECT_EQ(iterations_run.load(), 0);
}

// should_cancel is called on the execution's own thread only: a helper thread's check sees
// only whether the execution already failed.
TEST(CpuRuntimeFailureTest, OnlyTheOwnerThreadCallsShouldCancel) {
  std::atomic<int> polls{0};
  const std::function<bool()> cancel = [&polls] { return ++polls > 0; };
  RunContext context;
  context.should_cancel = &cancel;
  bool stopping = true;
  std::thread other([&] {
    ScopedExecution current(&context);
    stopping = ExecutionStopping();
  });
  other.join();
  EXPECT_FALSE(stopping);
  EXPECT_EQ(polls.load(), 0);
  context.owner = std::this_thread::get_id();
  ScopedExecution current(&context);
  EXPECT_TRUE(ExecutionStopping());
  EXPECT_EQ(polls.load(), 1);
  EXPECT_TRUE(ExecutionStopping()) << "failed from then on, without asking again";
  EXPECT_EQ(polls.load(), 1);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
