#ifndef XLA_BACKENDS_GPU_PTX_EMITTER_H_
#define XLA_BACKENDS_GPU_PTX_EMITTER_H_

// PTX kernels from HLO (issue 7): the cpu backend's pass pipeline and elemental emitter
// (backends/cpu/codegen) build each value's generator; this file wraps generators in NVPTX
// kernels and runs LLVM's NVPTX code generator. Only the emission differs from the cpu
// backend: the same HLO, the same per-element IR.
//
// Kernel ABI: `void <name>(ptr out, ptr operand0, ..., ptr operandN-1)`, arrays in their
// shapes' layouts, kGpuThreadsPerBlock threads per block, any number of blocks:
//  - elementwise kernels: a grid-stride loop over the output's elements, one per thread;
//  - row kernels, for fusions with row reductions (reduce of x[R, ...] over all but the first
//    dimension, as the cpu pipeline's fusion makes for softmax and for reductions to [R]): a
//    block per row at a time; each reduction is computed once per row by the block's threads
//    (strided partials, then a tree in shared memory), then the threads compute the row's
//    elements reading it. The reductions reassociate (as XLA's GPU backend does), which a
//    reducer with a non-identity init value would notice;
//  - sort: a row kernel over the rows along the sort dimension, a block sorting a row's
//    positions (bitonic, stable by position) in shared memory for rows of up to 8192
//    elements, in scratch memory (the kernel's last parameter, ptx_sort.h) for longer rows
//    up to 2^28;
//  - scatter: a first launch copies the operands into the outputs (those that are not the
//    operands' own buffers, GpuPlanStep::in_place), a thread per element; a second combines
//    the updates into them, as ScatterStrategy below says;
//  - select-and-scatter: a thread per output element when few windows overlap each element,
//    else a fill launch, then an update launch (ScatterStrategy);
//  - dynamic-update-slice (UpdatesInPlace), alone or at the root of a fusion computing its
//    update (gpu_update_fusion.h): a thread per update element, writing only the update
//    region of an output that already holds the operand (GpuPlanStep::in_place).
// A kernel whose result is a tuple (sort, scatter, reduce or reduce-window of several
// operands, or a fusion with such a reduce at its root) takes a pointer per output array
// first.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/gpu/gpu_plan.h"
#include "hlo/hlo_instruction.h"

namespace xla {
namespace gpu {

struct PtxKernel {
  std::string name;
  const HloInstruction* hlo = nullptr;
  int64_t elements = 0;  // of the output: the launch covers this many
  int64_t rows = 0;      // > 0: a row kernel over this many rows
  // Later launches (GpuPlanStep::phases): entry PhaseEntry(name, p) over phases[p - 1] items.
  std::vector<int64_t> phases;
  int64_t max_blocks = 0;  // GpuPlanStep::max_blocks
  // GpuPlanStep::scratch_bytes: a long sort's permutations (ptx_sort.h), a kLastUpdateWins
  // scatter's update positions.
  int64_t scratch_bytes = 0;
  // GpuPlanStep::in_place: output i may be operand i's buffer (a dynamic-update-slice's
  // launch then covers the update's elements, not the output's).
  bool in_place = false;
};

struct PtxModule {
  std::string ptx;
  std::vector<PtxKernel> kernels;
};

// True when `hlo` becomes one kernel here: a loop or input fusion, a single elementwise or
// data-movement op, or a dot, convolution, reduce-window, gather or map (a thread per output
// element looping over its window or contraction), or a sort, scatter or select-and-scatter,
// with array operands and an array result (a tuple of arrays of one shape for sort, scatter
// and variadic reductions) of supported element types.
bool IsKernelCandidate(const HloInstruction& hlo);

// How the updates of a scatter or select-and-scatter kernel run. The interpreter applies
// them one at a time in its order (update batch positions row-major, then window positions;
// select-and-scatter's source positions row-major); a strategy other than kSerial runs them
// at once only where that cannot change the result, except that kAtomicUpdates and
// kAtomicSources on floats and complex numbers round in the order the updates land, and the device's f32 atomic
// add flushes subnormal inputs and results to zero (both as XLA's GPU backend has them;
// XLA_GPU_DETERMINISTIC_OPS=1 leaves float atomics out).
enum class ScatterStrategy {
  kSerial,          // one thread, the interpreter's order: any combiner, any indices (what
                    // kSortedUpdates and kSortedSources cannot key)
  kWindowThreads,   // a thread per window position over the batch positions in order: the
                    // indices move no window dimension, so threads never share an element
  kUpdateThreads,   // a thread per update element: unique_indices=true says none collide
  kAtomicUpdates,   // a thread per update element, combining atomically: the combiner is
                    // add, multiply, max, min, and, or or xor of pred or an integer type,
                    // add, multiply, max or min of a float type (f8 and f4 too), or add or
                    // multiply of c64 and add of c128 (types narrower than 32 bits by a
                    // compare-and-swap of the 32-bit word holding the element)
  kLastUpdateWins,  // a thread per update element for a combiner that overwrites (returns
                    // the update): each element takes the update the interpreter applies
                    // last, found by an atomic max of update positions in scratch memory
                    // (a launch to find, one to store)
  kSortedUpdates,   // any combiner, any indices: a thread per update element writes its key
                    // (output element, then position) to scratch memory, the keys are sorted
                    // (bitonic: blocks on tiles in shared memory, then launches over the whole
                    // grid), and the first update of each element's run applies the run in
                    // order; exact, and as parallel as the updates are spread over elements
  kOutputThreads,   // select-and-scatter: a thread per output element, taking the windows
                    // that hold it in order (at most kMaxWindowsPerOutput of them)
  kAtomicSources,   // select-and-scatter: a thread per source element, combining atomically
  kSortedSources,   // select-and-scatter, any combiner: as kSortedUpdates, a key per source
                    // element (the element its window selects, then its position)
};
inline constexpr int64_t kMaxWindowsPerOutput = 64;
// A cumulative reduce-window (cpu/codegen/cumulative_window.h) of fewer rows than this, each of
// at least kLongScanRow elements, with a reducer that reassociates, scans its rows in chunks a
// thread each (ptx_scan.cc); the rest scan a thread per row.
inline constexpr int64_t kManyScanRows = 8192;
inline constexpr int64_t kLongScanRow = 2048;
// The strategy for scatter or select-and-scatter `hlo` (INVALID_ARGUMENT when malformed).
// `deterministic` leaves out the atomic strategies on floats.
absl::StatusOr<ScatterStrategy> ChooseScatterStrategy(const HloInstruction& hlo, bool deterministic);
// True when XLA_GPU_DETERMINISTIC_OPS is set to something other than 0 or empty.
bool DeterministicOps();

// One kernel per instruction of `kernels` (each IsKernelCandidate), in one PTX module.
// Transcendental functions come from libdevice (libdevice.h), read when a kernel needs one.
// UNIMPLEMENTED names the instruction when its code would need a host routine (the cpu
// backend's runtime calls: complex math, ...), which a GPU kernel cannot call, or libdevice
// and it cannot be read.
absl::StatusOr<PtxModule> EmitPtx(absl::Span<const HloInstruction* const> kernels, const std::string& module_name,
                                  const GpuTarget& target = {});

// Test seam (backends/gpu/testing/kernel_emulator.h runs kernels on the host through it):
// when set, EmitPtx hands every module it emits to `observer` as the PTX and the kernels' LLVM
// IR as bitcode, taken before libdevice is linked (libm calls and intrinsics as the elemental
// emitter wrote them). Set before compiling; null turns it off.
using KernelIrObserver = void (*)(const std::string& ptx, const std::string& bitcode);
void SetKernelIrObserver(KernelIrObserver observer);

// Where libdevice is read from: $XLA_GPU_LIBDEVICE, else
// /usr/local/cuda/nvvm/libdevice/libdevice.10.bc (libdevice.h).
std::string LibdevicePath();

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_PTX_EMITTER_H_
