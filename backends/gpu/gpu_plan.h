#ifndef XLA_BACKENDS_GPU_GPU_PLAN_H_
#define XLA_BACKENDS_GPU_GPU_PLAN_H_

// What a compiled gpu executable is, apart from a device: the optimized module, one PTX
// module with a kernel per fusion or elementwise op, and the steps an execution takes in
// order: one sequence of steps for the entry computation and one for each computation a
// while, conditional or call runs. Compiling a plan needs LLVM (gpu_compiler.h); loading and
// running one needs only the driver, so a plan compiled here runs on a GPU machine that has
// no LLVM (the serialized form is the executable's, backends/executable_format.h, platform
// "gpu", with the plan format's own version).
//
// Control flow runs on the host: kernels compute a while's condition and body and a
// conditional's branch index on the device, and the runtime reads the predicate or index
// back (one device-to-host copy of a few bytes per iteration or branch) to pick the next
// sequence. That round trip is the one place where the host takes part in computing a value.
// The host also moves the data that only it has, a few bytes or one copy per step:
// rng-get-and-update-state's value (the device's rng state, a host integer), rng's key (from
// the execution's seed and draw count, written next to the kernel's output), and infeed and
// outfeed values between the device's host-side feed queues and device memory.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace gpu {

// Threads per block of every kernel (the row kernels' block reductions are written for it).
inline constexpr int kGpuThreadsPerBlock = 256;

struct GpuTarget {
  int sm = 90;   // compute capability (sm_90: H100/H200)
  int ptx = 78;  // PTX ISA version (7.8: the newest LLVM 16 writes)
  // Tuning, for the device check's side-by-side variants (tests/gpu/gpu_bundle.cc); the
  // defaults are what every executable gets.
  // Consecutive elements a thread of an elementwise or row kernel takes per loop iteration
  // (ptx_emitter.h); 0: the emitter's choice.
  int elements_per_thread = 0;
  // Bytes of L2 a row kernel's rows in flight may take (GpuPlanStep::max_blocks); 0: no cap.
  // 48 MiB: on an H200 (60 MB of L2) a 16384 x 16384 f32 softmax ran in 1.11 ms with it, 1.23
  // with 24 MiB, 1.84 with 12 and 1.19 uncapped (bench/RESULTS.md).
  int64_t row_l2_budget = int64_t{48} << 20;
  // Whether a row kernel whose rows are short enough keeps each thread's elements of a row in
  // registers between its passes (read once, each reduction's input computed once; no block
  // cap then) rather than looping over the row in every pass.
  bool resident_rows = true;
  // Blocks of a row kernel ptxas is told should fit on a multiprocessor at once (minctasm;
  // it then gives a thread fewer registers, spilling if it must); 0: ptxas's choice.
  int row_min_blocks_per_sm = 0;
  // Whether a kernel reading an operand transposed (its minor dimension going to another
  // output dimension than the output's minor one) reads it through shared-memory tiles
  // (ptx_transpose.cc) rather than a thread per output element.
  bool tiled_transposes = true;
};

// The version of the steps' serialized form; executables of another are refused to load,
// except those of kGpuPlanFormatOldestRead and newer (version 3 added the alias and token
// kinds and kernels with several outputs, version 4 the rng-state and feed kinds, version 5
// the steps' scratch bytes, a field more per line; an older plan reads as a newer one without
// the kinds it did not have and without scratch; version 6 the steps' later launches,
// version 7 their block caps, version 8 the update-region flag).
inline constexpr int kGpuPlanFormatVersion = 8;
inline constexpr int kGpuPlanFormatOldestRead = 2;

struct GpuPlanStep {
  enum class Kind {
    kParameter = 0,
    kConstant = 1,
    kTuple = 2,
    kGetTupleElement = 3,
    kKernel = 4,
    kWhile = 5,        // runs callees {condition, body} until the condition is false
    kConditional = 6,  // runs callees[branch] on operand branch + 1
    kCall = 7,         // runs callees {computation} on the operands
    // The value of operand 0, no kernel: add-dependency, opt-barrier and domain pass it on;
    // a bitcast or a row-major reshape views its bytes with its own shape.
    kAlias = 8,
    kToken = 9,  // after-all: a token, which has no data
    // rng-get-and-update-state: the host reads and advances the device's rng state (a host
    // integer, as in the interpreter) and copies {state, 0} into the u64[2] result.
    kRngState = 10,
    // infeed: the host pops the device's next infeed value and copies it into new device
    // buffers of the data shape's layouts; the result is (data, token).
    kInfeed = 11,
    // outfeed: the host copies operand 0 from the device (after the kernels computing it) and
    // pushes it on the device's outfeed queue; the result is a token.
    kOutfeed = 12,
  };
  Kind kind = Kind::kKernel;
  const HloInstruction* hlo = nullptr;  // in its sequence's computation
  std::vector<int> operands;            // earlier steps of the same sequence, in operand order
  int64_t index = 0;                    // parameter number or tuple index
  // The PTX entry (kKernel). Its result is an array, or a tuple of arrays of one shape (sort,
  // scatter of several operands): the kernel takes a pointer per array, then the operands'.
  // An rng kernel's output buffer holds, after its array, the key the runtime writes before
  // the launch (RngKernelKeyOffset).
  std::string kernel;
  int64_t elements = 0;                 // the kernel's (first) output's elements (kKernel)
  // A row kernel (ptx_emitter.h) when > 0: blocks stride over this many rows (the output's
  // first dimension; a sort's rows along its dimension); else threads stride over the elements.
  int64_t rows = 0;
  // Bytes of device scratch memory the kernel needs (kKernel; 0: none): the runtime
  // allocates them for the launch, uninitialized, and passes their address as the kernel's
  // last parameter, after the operands'.
  int64_t scratch_bytes = 0;
  // Launches after `kernel`'s, in order on the same stream (kKernel; a scatter fills its
  // output first, then combines the updates into it): launch p (1-based) runs the entry
  // PhaseEntry(kernel, p) with the same parameters, threads striding over phases[p - 1]
  // items (none launched for 0).
  std::vector<int64_t> phases;
  // The most blocks `kernel`'s launch takes (0: the runtime's choice, a few per multiprocessor),
  // never fewer than one per multiprocessor: a row kernel reads its row once per reduction and
  // once more for the output, and with fewer rows in flight those reads find the row in L2.
  int64_t max_blocks = 0;
  // A dot cuBLAS can compute (IsCublasGemm): run through cublasGemmStridedBatchedEx when
  // cuBLAS loads on the GPU machine, through `kernel` otherwise.
  bool gemm = false;
  // A kernel whose output i may be its operand i's own buffer (UpdatesInPlace): the runtime
  // gives it that buffer when nothing else holds it and no later step reads it, so that an
  // update costs its own size, not the whole array's (a KV cache or a scan's outputs written
  // row by row, x.at[i].add(v) in a loop). A dynamic-update-slice's kernel (or that of a
  // fusion computing its update, UpdatedSlice) writes only the update region, its threads
  // striding over the update's elements; an output that is not the operand's buffer gets a
  // device-to-device copy of it first. A scatter's launch 0 (its
  // fill) copies operand i into output i only where they are apart; when every output is its
  // operand and the step has no scratch to clear, launch 0 is not run at all.
  bool in_place = false;
  // The sequences (indices into GpuPlan::sequences) a while, conditional or call runs, of the
  // computations StepCallees names; each comes after the step's own sequence, so calls cannot
  // cycle.
  std::vector<int> callees;
};

// The steps of one computation, in execution order; `root` computes its result.
struct GpuSequence {
  const HloComputation* computation = nullptr;
  std::vector<GpuPlanStep> steps;
  int root = -1;
};

struct GpuPlan {
  std::unique_ptr<HloModule> module;  // after the pass pipeline
  std::string ptx;                    // empty when no step is a kernel
  int sm = 90;                        // the PTX's target: loads on devices of this or a newer one
  // [0] is the entry computation's; a computation called from several places has a sequence
  // per call site.
  std::vector<GpuSequence> sequences;

  GpuSequence& entry() { return sequences.at(0); }
  const GpuSequence& entry() const { return sequences.at(0); }
};

// The plan as an executable container (FAILED_PRECONDITION or INVALID_ARGUMENT on reading
// bytes of another platform or version, or damaged ones; see executable_format.h).
absl::StatusOr<std::string> SerializeGpuPlan(const GpuPlan& plan);
absl::StatusOr<GpuPlan> DeserializeGpuPlan(std::string_view bytes);

// A dot cuBLAS computes: of the canonical forms the pipeline leaves ([m,k]x[k,n] or
// [b,m,k]x[b,k,n], all row-major) on f32, f64, or bf16/f16 inputs (with an output of their
// type or f32), except that either operand may be stored with its two minor dimensions
// swapped (an lhs [k,m] contracting dimension r-2, an rhs [n,k] contracting dimension r-1:
// FoldTransposesIntoGemms), which cuBLAS reads through its transpose operations.
struct CublasGemmForm {
  bool lhs_transposed = false;
  bool rhs_transposed = false;
};
std::optional<CublasGemmForm> CublasGemm(const HloInstruction& dot);
bool IsCublasGemm(const HloInstruction& dot);

// The PTX entry of launch `phase` (1-based) after `kernel`'s (GpuPlanStep::phases).
std::string PhaseEntry(const std::string& kernel, size_t phase);

// The newest kind of step a plan of format `version` has.
GpuPlanStep::Kind NewestStepKind(int version);

// An rng kernel (ptx_rng.cc) reads the u64 key of its execution at this byte offset of its
// output buffer: after the array of `out`, 8-byte aligned. The runtime allocates the buffer
// kRngKernelKeyBytes larger and writes RngKernelKey there before the launch: the key, which
// depends on the execution, is the one value such a kernel gets from the host.
inline constexpr int64_t kRngKernelKeyBytes = 8;
int64_t RngKernelKeyOffset(const Shape& out);
// The interpreter's rng key (backends/interpreter/ops_rng.cc) of instruction `name` for the
// execution's seed (ExecuteOptions::rng_seed, 42 when 0) and its `draw`-th rng op:
// SplitMix64(seed ^ SplitMix64(FNV-1a-64(name))) ^ (draw == 0 ? 0 : SplitMix64(draw)).
uint64_t RngKernelKey(uint64_t seed, const std::string& name, uint64_t draw);

// The arrays a kernel of result `shape` writes, in its parameters' order: the array, or the
// elements of a tuple of arrays of one shape; none for any other shape.
std::vector<const Shape*> KernelOutputs(const Shape& shape);

// True for a dynamic-update-slice with scalar start indices (alone, or at the root of a
// fusion that computes its update and reads its operand 0 nowhere else), or a scatter, whose
// operand InPlaceOperand(i) has output i's shape and layout, so that that operand's bytes
// are output i outside the elements the op writes (GpuPlanStep::in_place).
bool UpdatesInPlace(const HloInstruction& hlo);
// The operand whose buffer output `output` of such an op may take: the same index for a
// dynamic-update-slice or scatter, the fused operand 0's for a fusion (-1: none).
int64_t InPlaceOperand(const HloInstruction& hlo, int64_t output);
// The operands whose buffer elementwise kernel `hlo` may write its output into, in the order
// to try them: `hlo` is a lone elementwise op or a fusion of one array, and each is an
// operand of the output's dimensions, layout and bytes, whose elements the kernel reads
// through elementwise ops only, so at the output element's own position. A thread then reads
// each element it overwrites before writing it, and no thread reads it afterwards. The
// runtime takes one when nothing else holds it and no later step reads it, as it takes an
// in-place step's operand: a donated argument (`params - lr * grads`) or a value whose last
// reader this is then costs no new memory. With `row_kernel` (a fusion emitted as a row
// kernel, GpuPlanStep::rows > 0: a block per row, ptx_rows.cc), such an operand may also be
// the input of the fusion's row reductions (softmax over a dead or donated array): a block
// reads only its own row, and ends the row's reductions with a barrier before its threads
// write any of the row's outputs.
std::vector<int64_t> ElementwiseReuseOperands(const HloInstruction& hlo, bool row_kernel = false);
// The dynamic-update-slice of scalar start indices `hlo` is, or that is the root of fusion
// `hlo` writing into a fusion parameter nothing else reads; null otherwise.
const HloInstruction* UpdatedSlice(const HloInstruction& hlo);

// True for an array whose layout is row-major (minor_to_major descending).
bool RowMajor(const Shape& shape);

// True when `hlo` is computed by a kAlias step: add-dependency, opt-barrier or domain whose
// result is its operand 0's shape, a bitcast between laid-out arrays of one byte size, a
// reshape between row-major arrays. (copy-start/copy-done are a copy by then, made by
// SingleDeviceCollectives, which the pipeline folds away where nothing writes the value.)
bool IsAlias(const HloInstruction& hlo);

// The computations a control-flow step runs, in its callees' order: a while's {condition,
// body}, a conditional's branches, a call's computation.
std::vector<const HloComputation*> StepCallees(const HloInstruction& hlo);

// INVALID_ARGUMENT unless the first sequence is the entry's, every step names an instruction
// of its sequence's computation, its operands are the steps of that instruction's operands,
// kinds, indices and kernels are consistent, and control flow calls later sequences of the
// computations the instruction calls.
absl::Status ValidateGpuPlan(const GpuPlan& plan);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_GPU_PLAN_H_
