#ifndef XLA_BACKENDS_CPU_RUNTIME_RUNTIME_H_
#define XLA_BACKENDS_CPU_RUNTIME_RUNTIME_H_

// Routines that generated code calls (by these C names; the JIT binds them to the addresses
// from RuntimeSymbols(), never by searching the process). All are thread-safe, and none lets
// an exception out (RunRoutine below): a failure stops the execution with an error instead.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "backends/work_counter.h"
#include "hlo/hlo_opcode.h"

extern "C" {
// A kernel computes iterations [begin, end) of its outermost loop.
using XlaCpuKernel = void (*)(void** slots, int64_t begin, int64_t end);

// Runs kernel(slots, begin, end) over a partition of [0, n) on the runtime's thread pool
// (sized to the machine) when `n * cost_per_iteration` is large enough to pay for it. When
// n >= xla::cpu::kParallelForAlignedFrom, every `begin` is a multiple of
// xla::cpu::kParallelForAlignment (kernels may assume it).
void __xla_cpu_parallel_for(XlaCpuKernel kernel, void** slots, int64_t n, int64_t cost_per_iteration);

// Nonzero when the execution should stop: run_context is null or points at the execution's
// xla::cpu::RunContext, asked through RunContext::Stopping() (called from the entry function,
// on the execution's own thread).
int32_t __xla_cpu_cancelled(void* run_context);

// A compiled sort comparator: elements[2k] and elements[2k+1] point at operand k's two
// elements being compared; nonzero when the first goes before the second.
using XlaCpuComparator = int32_t (*)(void** elements);

// Sorts `count` arrays in place (runtime/sort.cc), all of `outer * length * inner`
// elements in storage order, along the dimension of size `length` whose storage stride is
// `inner` elements; widths[k] is array k's element size in bytes.
void __xla_cpu_sort(int64_t outer, int64_t length, int64_t inner, int64_t count, void** data,
                    const int64_t* widths, XlaCpuComparator comparator);
// A compiled sort key: writes to *key an unsigned key of the element at `element`, smaller
// keys first in the comparator's order, and returns nonzero when the element is unordered (a
// NaN compared as a float), which the key cannot order.
using XlaCpuSortKey = int32_t (*)(const void* element, uint64_t* key);
// __xla_cpu_sort when the comparator orders lexicographically by key_count keys, most
// significant first: keys[c] of operand key_operands[c]'s elements, of key_bits[c] (1 to 64)
// significant bits. Lines whose keys are all ordered are radix-sorted by them, others go
// through the comparator.
void __xla_cpu_sort_by_keys(int64_t outer, int64_t length, int64_t inner, int64_t count, void** data,
                            const int64_t* widths, XlaCpuComparator comparator, int64_t key_count,
                            const XlaCpuSortKey* keys, const int64_t* key_operands, const int64_t* key_bits);

// Linear algebra and FFT on arrays described by constant descriptors (strided_array.h:
// element type, rank, dims, element strides), computed in double / complex<double> and
// rounded once. Batches are the leading dimensions. transpose_a: 0 none, 1 transpose,
// 2 adjoint; fft_type: xla::FftType (FFT, IFFT, RFFT, IRFFT) over the last fft_rank axes.
void __xla_cpu_cholesky(void* a, const int64_t* a_descriptor, void* out, const int64_t* out_descriptor,
                        int64_t lower);  // runtime/linalg.cc
void __xla_cpu_triangular_solve(void* a, const int64_t* a_descriptor, void* b, const int64_t* b_descriptor,
                                void* out, const int64_t* out_descriptor, int64_t left_side, int64_t lower,
                                int64_t unit_diagonal, int64_t transpose_a);  // runtime/linalg.cc
void __xla_cpu_fft(void* in, const int64_t* in_descriptor, void* out, const int64_t* out_descriptor,
                   int64_t fft_type, int64_t fft_rank);  // runtime/fft.cc
// Copies the elements of `in` into `out` (same type and dims, any layouts), bit for bit
// (runtime/strided_array.cc): relayouts of types generated code has no registers for.
void __xla_cpu_copy(void* in, const int64_t* in_descriptor, void* out, const int64_t* out_descriptor);
// rng-bit-generator (runtime/rng_bits.cc): fills the integer array `bits` from the u64
// state (key, counter words; state_size 2 or 3) with algorithm 1 (three-fry) or 2 (philox),
// and writes the advanced state to new_state unless it is null.
void __xla_cpu_rng_bit_generator(const uint64_t* state, int64_t state_size, int64_t algorithm, void* bits,
                                 const int64_t* bits_descriptor, uint64_t* new_state);
// topk along the last dimension (runtime/topk.cc): the k largest (largest != 0) or smallest
// values in total order, ties in index order, and their indices.
// rng (runtime/rng.cc): fills `out` with the interpreter's values for the instruction whose
// name hashes to name_mix (SplitMix64(FNV-1a-64(name))), drawing the execution's next rng
// key from run_context; distribution: xla::RandomDistribution; a and b are the scalar
// operands. rng-get-and-update-state: out[0] = the device's state, advanced by delta; out[1] = 0.
void __xla_cpu_rng(void* run_context, uint64_t name_mix, int64_t distribution, const void* a, const void* b,
                   void* out, const int64_t* out_descriptor);
void __xla_cpu_rng_get_and_update_state(void* run_context, int64_t delta, uint64_t* out);
// infeed / outfeed (runtime/feeds.cc) through the device's queues: `shape` points at the
// instruction's data xla::Shape, `leaves` at its array leaves' buffers in order. Nonzero
// when the execution must stop with the error stored in the RunContext.
int32_t __xla_cpu_infeed(void* run_context, const void* shape, void* const* leaves);
int32_t __xla_cpu_outfeed(void* run_context, const void* shape, void* const* leaves);
// dynamic-reshape (runtime/checks.cc): 0 when `size` equals the static `bound` of
// result dimension `dimension`; otherwise nonzero with the error (INVALID_ARGUMENT outside
// [0, bound], UNIMPLEMENTED below it) stored in the RunContext.
int32_t __xla_cpu_check_dynamic_size(void* run_context, int64_t dimension, int64_t size, int64_t bound);
// ragged-all-to-all with one peer (runtime/checks.cc): 0 when send_size == recv_size and rows
// [input_offset, +send_size) of the input and [output_offset, +send_size) of the output
// exist; otherwise nonzero with INVALID_ARGUMENT stored in the RunContext.
int32_t __xla_cpu_check_ragged_all_to_all(void* run_context, int64_t input_offset, int64_t send_size,
                                          int64_t output_offset, int64_t recv_size, int64_t input_rows,
                                          int64_t output_rows);
void __xla_cpu_topk(void* in, const int64_t* in_descriptor, void* values, const int64_t* values_descriptor,
                    void* indices, const int64_t* indices_descriptor, int64_t k, int64_t largest);
// One complex op (opcode: an xla::HloOpcode value accepted by IsComplexRuntimeOpcode) on
// (ar + ai i) and, for binary ops, (br + bi i), computed with std::complex as the interpreter
// does; writes the real and imaginary parts to out[0], out[1] (abs: |x| and 0).
void __xla_cpu_complex_c64(int32_t opcode, float ar, float ai, float br, float bi, float* out);
void __xla_cpu_complex_c128(int32_t opcode, double ar, double ai, double br, double bi, double* out);
}

namespace xla {
namespace interpreter {
class DeviceState;
}  // namespace interpreter
namespace cpu {

// What generated code's run_context points at for one execution (cpu_backend.cc).
struct RunContext {
  const std::function<bool()>* should_cancel = nullptr;  // null: never cancelled
  uint64_t rng_seed = 42;                                // ExecuteOptions::rng_seed, or the default
  uint64_t rng_draws = 0;                                // rng ops run so far (one thread runs them)
  interpreter::DeviceState* device = nullptr;            // rng state and feed queues of the device

  // The thread that runs the execution (cpu_backend.cc): the only one that calls
  // should_cancel from Stopping(), so that a should_cancel need not be thread-safe.
  std::thread::id owner;

  // Records why a routine stopped the execution (the first reason wins); from then on
  // __xla_cpu_cancelled answers 1, so generated code stops at its next check. Thread-safe.
  void Fail(absl::Status status);
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  // True once the execution should stop: it failed, or (asked on the owner thread)
  // should_cancel says so, which fails it with CANCELLED. Thread-safe.
  bool Stopping();
  // The first Fail's status; read once the entry function has returned.
  const absl::Status& error() const { return error_; }

 private:
  std::mutex mu_;
  absl::Status error_;
  std::atomic<bool> failed_{false};
};

// The execution whose routines run on this thread: while an object lives, CurrentExecution()
// is `context` (cpu_backend.cc sets it around the entry call; __xla_cpu_parallel_for carries
// it to the threads that help).
class ScopedExecution {
 public:
  explicit ScopedExecution(RunContext* context);
  ~ScopedExecution();
  ScopedExecution(const ScopedExecution&) = delete;
  ScopedExecution& operator=(const ScopedExecution&) = delete;

 private:
  RunContext* previous_;
};
RunContext* CurrentExecution();
// CurrentExecution()->Stopping(), false with no current execution. Work that may run long (the
// chunks of a parallel loop, the panels of a large GEMM, the columns of a factorization) asks
// between its parts and skips the rest once true: the execution's outputs are then
// unspecified and never returned, and generated code stops at its next check.
bool ExecutionStopping();

// About this much work (elements x per-element cost, which underrates transcendental
// functions: one to ten milliseconds) goes between two ExecutionStopping() checks: parallel
// loops of more are cut into chunks of at most about this (a chunk costs its caller well under
// a microsecond).
inline constexpr int64_t kStopCheckWork = int64_t{1} << 22;

// For a routine's own loop over parts of its work: Done(work) counts a part done and answers
// ExecutionStopping() once about kStopCheckWork has been done since it last asked (false
// otherwise), so that small parts do not each pay for a check.
class StopCheck {
 public:
  bool Done(int64_t work) { return counter_.Add(work) && ExecutionStopping(); }

 private:
  WorkCounter counter_{kStopCheckWork};
};

// An exception from routine `name` (std::bad_alloc when memory runs out, say) must not
// unwind into generated code, which has no unwind tables: it fails the current execution
// (RESOURCE_EXHAUSTED for memory, INTERNAL otherwise), whose outputs are then unspecified
// and never returned. With no current execution (a direct call, as in tests) it is rethrown.
void FailCurrentExecution(const char* name, std::exception_ptr exception);

// Runs body() as routine `name`, its exceptions going to FailCurrentExecution. Every extern
// "C" routine that allocates runs its work through this.
template <typename F>
void RunRoutine(const char* name, F&& body) {
  try {
    body();
  } catch (...) {
    FailCurrentExecution(name, std::current_exception());
  }
}

// __xla_cpu_parallel_for for the runtime's own C++ loops: the same partition and threads,
// but an exception from a range (the first one) is rethrown here once every range stopped.
void ParallelFor(XlaCpuKernel kernel, void** slots, int64_t n, int64_t cost_per_iteration);

// Runs body(begin, end) over a partition of [0, n) on the runtime's thread pool
// (ParallelFor's rules); returns when all of it has run.
void ParallelRanges(int64_t n, int64_t cost_per_item, const std::function<void(int64_t, int64_t)>& body);

// Sorts and topks of fewer lines than the runtime has threads, lines of at least
// kSplitLineFrom elements, split each line over all the threads, one line after another
// (runtime/sort.cc, runtime/topk.cc); with more lines, each line is one thread's.
inline constexpr int64_t kSplitLineFrom = int64_t{1} << 15;
// True when `lines` lines of `length` elements are split so.
bool SplitLines(int64_t lines, int64_t length);
// Test seam: lines are split when fewer than `lines` (0 restores the thread count), so that
// several lines take that path on a machine with few cores.
void SetSplitLinesBelow(int64_t lines);

// The parts a split line is cut into: contiguous ranges of `size` elements (the last one
// shorter), about 8192 elements each and at most four per thread.
struct LineParts {
  int64_t count, size;
  int64_t Begin(int64_t part) const { return part * size; }
  int64_t End(int64_t part, int64_t n) const { return std::min(n, (part + 1) * size); }
};
LineParts SplitLine(int64_t n);

// Runs body(part) for every part on the runtime's threads. Once the execution has failed
// (elsewhere too), ParallelFor skips what is left, so results may be incomplete: this throws
// then, and the routine stops.
template <typename F>
void ForEachPart(const LineParts& parts, F&& body) {
  ParallelRanges(parts.count, parts.size, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) body(p);
  });
  const RunContext* execution = CurrentExecution();
  if (execution != nullptr && execution->failed()) throw std::runtime_error("the execution failed during the routine");
}

// The opcodes __xla_cpu_complex_c64/c128 compute (runtime/scalar_math.cc).
bool IsComplexRuntimeOpcode(HloOpcode opcode);

struct RuntimeSymbol {
  std::string name;
  void* address;
};
// Every routine above and the libm functions generated code may call.
const std::vector<RuntimeSymbol>& RuntimeSymbols();

// SplitMix64(FNV-1a-64(name)): the part of an rng instruction's key that its name gives
// (runtime/rng.cc), passed to __xla_cpu_rng as name_mix.
uint64_t RngNameMix(const std::string& name);

// Threads in the runtime's pool, counting the caller (std::thread::hardware_concurrency()).
int RuntimeThreadCount();


// __xla_cpu_parallel_for's ranges over at least kParallelForAlignedFrom iterations begin at
// multiples of kParallelForAlignment (16 f32 = one 64-byte line).
inline constexpr int64_t kParallelForAlignment = 16;
inline constexpr int64_t kParallelForAlignedFrom = 4096;

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_RUNTIME_RUNTIME_H_
