#include "backends/cpu/runtime/runtime.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "backends/cpu/runtime/gemm.h"

namespace xla {
namespace cpu {
namespace {

// Fixed pool of hardware_concurrency() - 1 workers; the calling thread runs one share too.
class ThreadPool {
 public:
  explicit ThreadPool(int workers) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { Work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  int workers() const { return static_cast<int>(threads_.size()); }
  void Schedule(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

 private:
  void Work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return done_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool done_ = false;
  std::vector<std::thread> threads_;
};

ThreadPool& Pool() {
  static ThreadPool* pool = new ThreadPool(std::max(1, RuntimeThreadCount() - 1));
  return *pool;
}

thread_local RunContext* current_execution = nullptr;

// Below this much work (elements x per-element cost), a split costs more than it saves.
constexpr int64_t kMinParallelWork = int64_t{1} << 16;

}  // namespace

int RuntimeThreadCount() {
  static const int count = std::max(1u, std::thread::hardware_concurrency());
  return count;
}

const std::vector<RuntimeSymbol>& RuntimeSymbols() {
  static const auto* symbols = new std::vector<RuntimeSymbol>{
      {"__xla_cpu_parallel_for", reinterpret_cast<void*>(&__xla_cpu_parallel_for)},
      {"__xla_cpu_cancelled", reinterpret_cast<void*>(&__xla_cpu_cancelled)},
      {"__xla_cpu_dot", reinterpret_cast<void*>(&__xla_cpu_dot)},
      {"__xla_cpu_conv", reinterpret_cast<void*>(&__xla_cpu_conv)},
      {"__xla_cpu_sort", reinterpret_cast<void*>(&__xla_cpu_sort)},
      {"__xla_cpu_sort_by_keys", reinterpret_cast<void*>(&__xla_cpu_sort_by_keys)},
      {"__xla_cpu_cholesky", reinterpret_cast<void*>(&__xla_cpu_cholesky)},
      {"__xla_cpu_triangular_solve", reinterpret_cast<void*>(&__xla_cpu_triangular_solve)},
      {"__xla_cpu_fft", reinterpret_cast<void*>(&__xla_cpu_fft)},
      {"__xla_cpu_copy", reinterpret_cast<void*>(&__xla_cpu_copy)},
      {"__xla_cpu_rng_bit_generator", reinterpret_cast<void*>(&__xla_cpu_rng_bit_generator)},
      {"__xla_cpu_topk", reinterpret_cast<void*>(&__xla_cpu_topk)},
      {"__xla_cpu_infeed", reinterpret_cast<void*>(&__xla_cpu_infeed)},
      {"__xla_cpu_outfeed", reinterpret_cast<void*>(&__xla_cpu_outfeed)},
      {"__xla_cpu_check_dynamic_size", reinterpret_cast<void*>(&__xla_cpu_check_dynamic_size)},
      {"__xla_cpu_check_ragged_all_to_all", reinterpret_cast<void*>(&__xla_cpu_check_ragged_all_to_all)},
      {"__xla_cpu_rng", reinterpret_cast<void*>(&__xla_cpu_rng)},
      {"__xla_cpu_rng_get_and_update_state", reinterpret_cast<void*>(&__xla_cpu_rng_get_and_update_state)},
      {"__xla_cpu_complex_c64", reinterpret_cast<void*>(&__xla_cpu_complex_c64)},
      {"__xla_cpu_complex_c128", reinterpret_cast<void*>(&__xla_cpu_complex_c128)},
      // libm, for the functions without an approximation emitted in IR.
#define XLA_LIBM(name, type) {#name, reinterpret_cast<void*>(static_cast<type>(&::name))}
      XLA_LIBM(sinf, float (*)(float)), XLA_LIBM(sin, double (*)(double)),
      XLA_LIBM(cosf, float (*)(float)), XLA_LIBM(cos, double (*)(double)),
      XLA_LIBM(tanf, float (*)(float)), XLA_LIBM(tan, double (*)(double)),
      XLA_LIBM(sinhf, float (*)(float)), XLA_LIBM(sinh, double (*)(double)),
      XLA_LIBM(coshf, float (*)(float)), XLA_LIBM(cosh, double (*)(double)),
      XLA_LIBM(asinf, float (*)(float)), XLA_LIBM(asin, double (*)(double)),
      XLA_LIBM(acosf, float (*)(float)), XLA_LIBM(acos, double (*)(double)),
      XLA_LIBM(asinhf, float (*)(float)), XLA_LIBM(asinh, double (*)(double)),
      XLA_LIBM(acoshf, float (*)(float)), XLA_LIBM(acosh, double (*)(double)),
      XLA_LIBM(atanhf, float (*)(float)), XLA_LIBM(atanh, double (*)(double)),
      XLA_LIBM(cbrtf, float (*)(float)), XLA_LIBM(cbrt, double (*)(double)),
      XLA_LIBM(erff, float (*)(float)), XLA_LIBM(erf, double (*)(double)),
      XLA_LIBM(expf, float (*)(float)), XLA_LIBM(exp, double (*)(double)),
      XLA_LIBM(expm1f, float (*)(float)), XLA_LIBM(expm1, double (*)(double)),
      XLA_LIBM(logf, float (*)(float)), XLA_LIBM(log, double (*)(double)),
      XLA_LIBM(log1pf, float (*)(float)), XLA_LIBM(log1p, double (*)(double)),
      XLA_LIBM(tanhf, float (*)(float)), XLA_LIBM(tanh, double (*)(double)),
      XLA_LIBM(powf, float (*)(float, float)), XLA_LIBM(pow, double (*)(double, double)),
      XLA_LIBM(atan2f, float (*)(float, float)), XLA_LIBM(atan2, double (*)(double, double)),
      XLA_LIBM(fmodf, float (*)(float, float)), XLA_LIBM(fmod, double (*)(double, double)),
#undef XLA_LIBM
  };
  return *symbols;
}

void ParallelFor(XlaCpuKernel kernel, void** slots, int64_t n, int64_t cost_per_iteration) {
  const int threads = RuntimeThreadCount();
  const int64_t work = n * std::max<int64_t>(cost_per_iteration, 1);
  if (n <= 0) return;
  RunContext* const caller = CurrentExecution();
  if (work < kMinParallelWork) {
    if (caller == nullptr || !caller->failed()) kernel(slots, 0, n);
    return;
  }
  // Chunks of about work / pieces: ranges start at multiples of kParallelForAlignment for long
  // loops (runtime.h), so that kernels over large 1-D arrays can use aligned vector stores.
  const auto chunk_for = [n](int64_t pieces) {
    const int64_t chunk = (n + pieces - 1) / pieces;
    if (n < kParallelForAlignedFrom) return chunk;
    return (chunk + kParallelForAlignment - 1) / kParallelForAlignment * kParallelForAlignment;
  };
  const int64_t stop_checks = work / kStopCheckWork;  // chunks wanted to stop in time
  if (n == 1 || threads <= 1) {  // on this thread, asking between chunks whether to stop
    const int64_t chunk = chunk_for(std::clamp<int64_t>(stop_checks, 1, n));
    for (int64_t begin = 0; begin < n; begin += chunk) {
      if (ExecutionStopping()) return;
      kernel(slots, begin, std::min(n, begin + chunk));
    }
    return;
  }
  // Chunks taken in turn by whoever is free (the caller and threads - 1 helpers), not one
  // fixed share per thread: on a shared machine a helper may not get a core for a while, and
  // then the caller does its chunks instead of waiting. The state outlives this call, since a
  // helper may start after all chunks are done.
  struct State {
    XlaCpuKernel kernel;
    void** slots;
    int64_t n, chunk, chunks;
    std::atomic<int64_t> next{0};
    std::mutex mu;
    std::condition_variable cv;
    int64_t done = 0;           // chunks finished, guarded by mu
    std::exception_ptr failure;  // the first range's exception, guarded by mu
    std::atomic<bool> stop{false};
    RunContext* execution = nullptr;  // the caller's, for the routines the kernel calls
  };
  auto state = std::make_shared<State>();
  state->kernel = kernel;
  state->slots = slots;
  state->n = n;
  state->execution = caller;
  const int64_t wanted = std::clamp<int64_t>(work / kMinParallelWork, threads,
                                             std::max<int64_t>(int64_t{threads} * 16, stop_checks));
  state->chunk = chunk_for(std::min(n, wanted));
  state->chunks = (n + state->chunk - 1) / state->chunk;
  // Once the execution is stopping (cancelled, or failed by an exception here or by a
  // routine) the chunks left are counted without being run.
  auto run_chunks = [](State& s) {
    ScopedExecution execution(s.execution);
    int64_t finished = 0;
    for (int64_t c; (c = s.next.fetch_add(1, std::memory_order_relaxed)) < s.chunks; ++finished) {
      if (s.stop.load(std::memory_order_relaxed) || (s.execution != nullptr && s.execution->Stopping())) continue;
      try {
        s.kernel(s.slots, c * s.chunk, std::min(s.n, (c + 1) * s.chunk));
      } catch (...) {
        std::lock_guard<std::mutex> lock(s.mu);
        if (!s.failure) s.failure = std::current_exception();
        s.stop.store(true, std::memory_order_relaxed);
      }
    }
    if (finished == 0) return;
    std::lock_guard<std::mutex> lock(s.mu);
    s.done += finished;
    if (s.done == s.chunks) s.cv.notify_all();
  };
  const int helpers = static_cast<int>(std::min<int64_t>(threads - 1, state->chunks - 1));
  for (int h = 0; h < helpers; ++h) Pool().Schedule([state, run_chunks] { run_chunks(*state); });
  run_chunks(*state);
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->done == state->chunks; });
  if (state->failure) std::rethrow_exception(state->failure);
}

namespace {
void RunRange(void** slots, int64_t begin, int64_t end) {
  (*reinterpret_cast<const std::function<void(int64_t, int64_t)>*>(slots))(begin, end);
}
}  // namespace

void ParallelRanges(int64_t n, int64_t cost_per_item, const std::function<void(int64_t, int64_t)>& body) {
  if (n <= 0) return;
  ParallelFor(&RunRange, reinterpret_cast<void**>(const_cast<std::function<void(int64_t, int64_t)>*>(&body)), n,
              cost_per_item);
}

namespace {
std::atomic<int64_t> split_lines_below{0};  // 0: RuntimeThreadCount()
}  // namespace

bool SplitLines(int64_t lines, int64_t length) {
  const int64_t below = split_lines_below.load(std::memory_order_relaxed);
  const int threads = RuntimeThreadCount();
  return length >= kSplitLineFrom && (below > 0 ? lines < below : threads > 1 && lines < threads);
}

void SetSplitLinesBelow(int64_t lines) { split_lines_below.store(lines, std::memory_order_relaxed); }

LineParts SplitLine(int64_t n) {
  const int64_t wanted = std::clamp<int64_t>(n / 8192, 1, 4 * int64_t{RuntimeThreadCount()});
  const int64_t size = (n + wanted - 1) / wanted;
  return LineParts{(n + size - 1) / size, size};
}

RunContext* CurrentExecution() { return current_execution; }

ScopedExecution::ScopedExecution(RunContext* context) : previous_(current_execution) { current_execution = context; }
ScopedExecution::~ScopedExecution() { current_execution = previous_; }

void RunContext::Fail(absl::Status status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_.load(std::memory_order_relaxed)) return;
  error_ = std::move(status);
  failed_.store(true, std::memory_order_release);
}

bool RunContext::Stopping() {
  if (failed()) return true;
  if (should_cancel == nullptr || !*should_cancel || std::this_thread::get_id() != owner) return false;
  if (!(*should_cancel)()) return false;
  Fail(absl::CancelledError("execution cancelled"));
  return true;
}

bool ExecutionStopping() {
  RunContext* execution = CurrentExecution();
  return execution != nullptr && execution->Stopping();
}

void FailCurrentExecution(const char* name, std::exception_ptr exception) {
  RunContext* execution = CurrentExecution();
  if (execution == nullptr) std::rethrow_exception(exception);
  try {
    std::rethrow_exception(exception);
  } catch (const std::bad_alloc&) {
    execution->Fail(absl::ResourceExhaustedError(absl::StrCat(name, ": out of host memory")));
  } catch (const std::exception& e) {
    execution->Fail(absl::InternalError(absl::StrCat(name, " failed: ", e.what())));
  } catch (...) {
    execution->Fail(absl::InternalError(absl::StrCat(name, " failed")));
  }
}

}  // namespace cpu
}  // namespace xla

extern "C" {

void __xla_cpu_parallel_for(XlaCpuKernel kernel, void** slots, int64_t n, int64_t cost_per_iteration) {
  xla::cpu::RunRoutine("parallel loop", [&] { xla::cpu::ParallelFor(kernel, slots, n, cost_per_iteration); });
}

int32_t __xla_cpu_cancelled(void* run_context) {
  if (run_context == nullptr) return 0;
  return static_cast<xla::cpu::RunContext*>(run_context)->Stopping() ? 1 : 0;
}

}  // extern "C"
