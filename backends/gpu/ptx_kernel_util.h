#ifndef XLA_BACKENDS_GPU_PTX_KERNEL_UTIL_H_
#define XLA_BACKENDS_GPU_PTX_KERNEL_UTIL_H_

// Internal to the PTX emitter (ptx_emitter.cc, ptx_sort.cc, ptx_scatter.cc, ...; includes LLVM): the
// scaffolding of a kernel and the loops its bodies are built from.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "backends/gpu/gpu_plan.h"
#include "hlo/status_macros.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace xla {
namespace gpu {

// Kernel scaffolding shared by both kinds: the function, its parameters' generators.
struct KernelContext {
  llvm::Module* module;
  llvm::IRBuilder<>* b;
  llvm::Function* kernel;
  cpu::ElementalEmitter* elemental;
  cpu::OperandGenerator operand;
  // The kernel's scratch memory (its last parameter; GpuPlanStep::scratch_bytes), or null
  // when it has none.
  llvm::Value* scratch = nullptr;
};

// Emits `then` under `condition` (no else), leaving the builder after it.
template <typename F>
absl::Status EmitIf(llvm::IRBuilder<>* b, llvm::Value* condition, const char* name, F then) {
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::BasicBlock* body = llvm::BasicBlock::Create(b->getContext(), std::string(name) + ".then", f);
  llvm::BasicBlock* after = llvm::BasicBlock::Create(b->getContext(), std::string(name) + ".end", f);
  b->CreateCondBr(condition, body, after);
  b->SetInsertPoint(body);
  RETURN_IF_ERROR(then());
  b->CreateBr(after);
  b->SetInsertPoint(after);
  return absl::OkStatus();
}

// for (v = start; v < limit; v += step) body(v), start < limit tested first.
template <typename F>
absl::Status EmitStridedLoop(llvm::IRBuilder<>* b, llvm::Value* start, llvm::Value* limit, llvm::Value* step,
                             const char* name, F body) {
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::BasicBlock* before = b->GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(b->getContext(), name, f);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(b->getContext(), std::string(name) + ".done", f);
  b->CreateCondBr(b->CreateICmpULT(start, limit), loop, done);
  b->SetInsertPoint(loop);
  llvm::PHINode* v = b->CreatePHI(b->getInt64Ty(), 2, name);
  v->addIncoming(start, before);
  RETURN_IF_ERROR(body(v));
  llvm::Value* next = b->CreateAdd(v, step);
  v->addIncoming(next, b->GetInsertBlock());
  b->CreateCondBr(b->CreateICmpULT(next, limit), loop, done);
  b->SetInsertPoint(done);
  return absl::OkStatus();
}

// Threads from `start` striding by `stride` over `n` elements in chunks of `per_thread`
// consecutive ones (chunk c is elements c*per_thread ...), `body` emitted once per element of
// a chunk with its index: LLVM's load-store vectorizer joins a chunk's adjacent accesses (every
// array is 16-byte aligned), and the thread's loads are all issued before their values are
// used. The last n % per_thread elements follow, one per thread.
template <typename F>
absl::Status EmitChunkedLoop(llvm::IRBuilder<>* b, llvm::Value* start, int64_t n, llvm::Value* stride, int per_thread,
                             const char* name, F body) {
  const int64_t chunks = n / per_thread;
  if (chunks > 0) {
    RETURN_IF_ERROR(EmitStridedLoop(b, start, b->getInt64(chunks), stride, name, [&](llvm::Value* c) -> absl::Status {
      llvm::Value* first = b->CreateMul(c, b->getInt64(per_thread), "", /*HasNUW=*/true, /*HasNSW=*/true);
      for (int i = 0; i < per_thread; ++i) {
        RETURN_IF_ERROR(body(i == 0 ? first : b->CreateAdd(first, b->getInt64(i), "", true, true)));
      }
      return absl::OkStatus();
    }));
  }
  if (n % per_thread == 0) return absl::OkStatus();
  return EmitStridedLoop(b, b->CreateAdd(start, b->getInt64(chunks * per_thread)), b->getInt64(n), stride,
                         (std::string(name) + ".tail").c_str(), body);
}

// The output's multi-dimensional index of storage position `linear` (its layout's order).
cpu::IrIndex IndexOf(llvm::IRBuilder<>* b, const Shape& shape, llvm::Value* linear);
// A special register (thread, block index, ...) as an i64.
llvm::Value* ReadSpecialRegister(llvm::IRBuilder<>* b, llvm::Intrinsic::ID id);
// This thread's index in the grid, and the grid's threads.
llvm::Value* GlobalThread(llvm::IRBuilder<>* b);
llvm::Value* GridThreads(llvm::IRBuilder<>* b);
// `linear` in row-major order over `dims` (all of them), as a multi-index.
std::vector<llvm::Value*> RowMajorIndex(llvm::IRBuilder<>* b, absl::Span<const int64_t> dims, llvm::Value* linear);
// The arrays the kernel writes (its first parameters) with their shapes.
std::vector<cpu::SerialOutput> OutputArrays(const KernelContext& k, const HloInstruction* hlo);

// A kernel entry `name` taking `hlo`'s parameters (a pointer per output, per operand, then
// one to scratch memory when `scratch`), its body from `body`.
using KernelBody = std::function<absl::Status(KernelContext&)>;
absl::Status EmitKernelFunction(llvm::Module* module, const HloInstruction* hlo, const std::string& name,
                                const KernelBody& body, bool scratch);

// The body of a sort kernel (ptx_sort.cc; *rows set > 0 when it is a row kernel).
absl::Status EmitSortBody(KernelContext& k, const HloInstruction* hlo, int64_t* rows);
// The launches of a scatter or select-and-scatter (ptx_scatter.cc, ScatterStrategy):
// each an entry's body and the items its threads stride over; the first covers the output.
struct KernelLaunch {
  KernelBody body;
  int64_t items = 0;
};
// *scratch_bytes: the scratch memory the launches use (PtxKernel::scratch_bytes).
absl::StatusOr<std::vector<KernelLaunch>> ScatterLaunches(const HloInstruction* hlo, bool deterministic,
                                                          int64_t* scratch_bytes);
// ptx_scan.cc: the launches of a cumulative reduce-window (cumulative_window.h) whose rows are
// fewer than kManyScanRows and long, with a reducer that may associate in any order: chunks
// scanned a thread each, their totals scanned a thread per row, each element then combined with
// its chunk's prefix (floats round in that order). None for the rest: a thread per row scans
// them in the interpreter's order (kManyScanRows: ptx_emitter.h).
absl::StatusOr<std::vector<KernelLaunch>> ScanLaunches(const HloInstruction* hlo, int64_t* scratch_bytes);
// The rest: a thread per row, in the interpreter's order for a forward scan (the blocks that
// cover the rows, and the body).
int64_t RowScanBlocks(const HloInstruction& hlo, const cpu::CumulativeWindow& w);
absl::Status EmitRowScansBody(KernelContext& k, const HloInstruction* hlo, const cpu::CumulativeWindow& w);
// ptx_sort.cc: a sort's launches when it is spread over the grid (LongSortScratch::spread),
// else none (EmitSortBody emits it as a row kernel).
absl::StatusOr<std::vector<KernelLaunch>> SpreadSortLaunches(const HloInstruction* hlo);

// ptx_rows.cc: row kernels, a block per row of a fusion with row reductions.
// The reductions a row kernel computes once per row (none: `hlo` is not one).
std::vector<const HloInstruction*> RowReductions(const HloInstruction& hlo);
// How a row kernel's threads hold a row: `slots` > 0 when each keeps its elements of the row
// in registers between the passes (chunks tid, tid + threads, ... of `per_thread` consecutive
// elements, one slot each), so the row is read from memory once and every reduction's input
// computed once; 0 when they loop over the row in each pass instead.
struct RowResidency {
  int64_t slots = 0;
  int per_thread = 1;
};
RowResidency ResidentRows(const HloInstruction& hlo, const std::vector<const HloInstruction*>& reductions,
                          int per_thread, const GpuTarget& target);
// Blocks for a row kernel over `rows` rows of `hlo` such that the rows in flight fit in
// `l2_budget` bytes of L2 (0: no cap, also when they all fit).
int64_t RowBlockCap(const HloInstruction& hlo, int64_t rows, int64_t l2_budget);
// The row kernel's body: blocks stride over the rows; per row, each reduction's pass and its
// block reduction (which ends in a barrier), then the row's outputs. The runtime relies on
// that order when it passes an operand's buffer as the output (ElementwiseReuseOperands with
// row_kernel, gpu_plan.h): every read of a row's elements other than a thread's own output
// positions must happen before the row's last reduction barrier, and a block writes only its
// own rows.
absl::Status EmitRowBody(KernelContext& k, const HloInstruction* hlo, const std::vector<const HloInstruction*>& reductions,
                         int per_thread, const RowResidency& resident);

// ptx_transpose.cc: tiled transposes. A kernel of one array output (a transpose, a copy
// changing the layout, a loop fusion reading operands through them) in which the minor
// dimension of some operands goes to output dimension a_dim, not to the output's minor
// dimension b_dim: blocks take kTile x kTile tiles of the (a_dim, b_dim) plane at each
// position of the other dimensions, read those operands along a_dim into shared memory, then
// write the output along b_dim.
struct TiledTranspose {
  int64_t a_dim = -1;
  int64_t b_dim = -1;
  // Per operand: which output dimension each of its dimensions follows, for the operands
  // read through a tile; empty for those read directly.
  std::vector<std::vector<int64_t>> out_dim;
  int64_t tiles = 0;  // the blocks' work items
};
// nullopt when `hlo` (an elementwise-kind kernel) has no such operand, or its transposed
// dimensions are short (under 16 elements).
std::optional<TiledTranspose> FindTiledTranspose(const HloInstruction& hlo);
absl::Status EmitTiledTransposeBody(KernelContext& k, const HloInstruction* hlo, const TiledTranspose& t);

// ptx_rng.cc: the random-number ops emitted as kernels (IsRngKernel), and their bodies.
bool IsRngKernel(const HloInstruction& hlo);
absl::Status EmitRngBody(KernelContext& k, const HloInstruction* hlo);

// ptx_linalg.cc: fft, cholesky and triangular-solve as kernels (IsLinalgKernel), and their
// bodies.
bool IsLinalgKernel(const HloInstruction& hlo);
absl::Status EmitLinalgBody(KernelContext& k, const HloInstruction* hlo);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_PTX_KERNEL_UTIL_H_
