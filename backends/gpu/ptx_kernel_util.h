#ifndef XLA_BACKENDS_GPU_PTX_KERNEL_UTIL_H_
#define XLA_BACKENDS_GPU_PTX_KERNEL_UTIL_H_

// Internal to the PTX emitter (ptx_emitter.cc, ptx_sort.cc, ptx_scatter.cc, ...; includes LLVM): the
// scaffolding of a kernel and the loops its bodies are built from.

#include <cstdint>
#include <functional>
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
// scratch when it needs some), its body from `body`.
using KernelBody = std::function<absl::Status(KernelContext&)>;
absl::Status EmitKernelFunction(llvm::Module* module, const HloInstruction* hlo, const std::string& name,
                                const KernelBody& body);

// The body of a sort kernel (ptx_sort.cc; *rows set > 0 when it is a row kernel).
absl::Status EmitSortBody(KernelContext& k, const HloInstruction* hlo, int64_t* rows);
// The launches of a scatter or select-and-scatter (ptx_scatter.cc, ScatterStrategy):
// each an entry's body and the items its threads stride over; the first covers the output.
struct KernelLaunch {
  KernelBody body;
  int64_t items = 0;
};
absl::StatusOr<std::vector<KernelLaunch>> ScatterLaunches(const HloInstruction* hlo, bool deterministic);
// ptx_sort.cc: a sort's launches when it is spread over the grid (LongSortScratch::spread),
// else none (EmitSortBody emits it as a row kernel).
absl::StatusOr<std::vector<KernelLaunch>> SpreadSortLaunches(const HloInstruction* hlo);

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
