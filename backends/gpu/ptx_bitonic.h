#ifndef XLA_BACKENDS_GPU_PTX_BITONIC_H_
#define XLA_BACKENDS_GPU_PTX_BITONIC_H_

// Bitonic sorting networks run by a block's threads (a barrier after each pass), over
// entries that an Order loads and stores: sort kernels (ptx_sort.cc) sort a row's
// permutation with them, and a scatter with sorted updates (ptx_scatter.cc) its update keys.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/gpu/ptx_kernel_util.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

namespace xla {
namespace gpu {

// Emits `body` for v = first, first * 2, ... while v <= last (doubling), or v = first,
// first / 2, ... while v >= last (halving; last >= 1); the bounds are the same for every
// thread of a block.
template <typename F>
absl::Status EmitPowersOfTwoLoop(llvm::IRBuilder<>* b, llvm::Value* first, llvm::Value* last, bool doubling,
                                 const char* name, F body) {
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::BasicBlock* before = b->GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(b->getContext(), name, f);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(b->getContext(), std::string(name) + ".done", f);
  auto more = [&](llvm::Value* v) { return doubling ? b->CreateICmpULE(v, last) : b->CreateICmpUGE(v, last); };
  b->CreateCondBr(more(first), loop, done);
  b->SetInsertPoint(loop);
  llvm::PHINode* v = b->CreatePHI(b->getInt64Ty(), 2, name);
  v->addIncoming(first, before);
  RETURN_IF_ERROR(body(v));
  llvm::Value* next = doubling ? b->CreateShl(v, b->getInt64(1)) : b->CreateLShr(v, b->getInt64(1));
  v->addIncoming(next, b->GetInsertBlock());
  b->CreateCondBr(more(next), loop, done);
  b->SetInsertPoint(done);
  return absl::OkStatus();
}

inline int64_t PowerOfTwoAtLeast(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

// An entry of a row's permutation: a row position (i64), and the operands' values there
// when the permutation keeps them (else they are read through the position).
struct Entry {
  llvm::Value* position = nullptr;
  std::vector<llvm::Value*> values;
};
// Where a permutation is kept: its i-th entry read and written.
struct Order {
  std::function<Entry(llvm::Value* i)> load;
  std::function<void(llvm::Value* i, const Entry& entry)> store;
};
// Whether entry x goes before entry y.
using Before = std::function<absl::StatusOr<llvm::Value*>(const Entry& x, const Entry& y)>;

// Bitonic sorting network passes over a row's permutation by all threads of a block, a
// barrier after each pass.
class BitonicPasses {
 public:
  BitonicPasses(llvm::IRBuilder<>* b, llvm::Module* module, Before before)
      : b_(*b),
        barrier_(llvm::Intrinsic::getDeclaration(module, llvm::Intrinsic::nvvm_barrier0)),
        tid_(ReadSpecialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x)),
        before_(std::move(before)) {}

  void Barrier() { b_.CreateCall(barrier_); }
  llvm::Value* tid() const { return tid_; }
  llvm::Value* threads() { return b_.getInt64(kGpuThreadsPerBlock); }

  // One pass of merge `size` at `stride` over `count` entries of `order` (entry i is index
  // offset + i of the network, which sets the direction): each pair (i, i + stride) is put in
  // order, ascending where i & size is 0, by a thread. A thread takes kUnroll pairs at once
  // where the pairs divide evenly, loading all of them before comparing and storing without
  // branches: the pairs are disjoint, and their loads (latency a block's few warps cannot
  // hide when they go to global memory) overlap.
  absl::Status Pass(const Order& order, int64_t count, llvm::Value* offset, llvm::Value* size, llvm::Value* stride) {
    llvm::IRBuilder<>& b = b_;
    constexpr int64_t kUnroll = 4;
    const int64_t pairs = count / 2;
    const int64_t unroll = pairs % (kUnroll * kGpuThreadsPerBlock) == 0 ? kUnroll : 1;
    const int64_t apart = pairs / unroll;
    RETURN_IF_ERROR(EmitStridedLoop(&b, tid_, b.getInt64(apart), threads(), "pair", [&](llvm::Value* q) -> absl::Status {
      std::vector<llvm::Value*> i(unroll), partner(unroll), swap(unroll);
      std::vector<Entry> x(unroll), y(unroll);
      for (int64_t u = 0; u < unroll; ++u) {
        llvm::Value* p = b.CreateAdd(q, b.getInt64(u * apart));
        llvm::Value* low = b.CreateAnd(p, b.CreateSub(stride, b.getInt64(1)));
        i[u] = b.CreateOr(b.CreateShl(b.CreateSub(p, low), b.getInt64(1)), low);
        partner[u] = b.CreateOr(i[u], stride);
        x[u] = order.load(i[u]);
        y[u] = order.load(partner[u]);
      }
      for (int64_t u = 0; u < unroll; ++u) {
        ASSIGN_OR_RETURN(llvm::Value* x_first, before_(x[u], y[u]));
        llvm::Value* ascending = b.CreateICmpEQ(b.CreateAnd(b.CreateAdd(offset, i[u]), size), b.getInt64(0));
        swap[u] = b.CreateXor(ascending, x_first);
      }
      for (int64_t u = 0; u < unroll; ++u) {
        auto pick = [&](const Entry& first, const Entry& second) {
          Entry e{b.CreateSelect(swap[u], first.position, second.position), {}};
          for (size_t t = 0; t < first.values.size(); ++t) {
            e.values.push_back(b.CreateSelect(swap[u], first.values[t], second.values[t]));
          }
          return e;
        };
        order.store(i[u], pick(y[u], x[u]));
        order.store(partner[u], pick(x[u], y[u]));
      }
      return absl::OkStatus();
    }));
    Barrier();
    return absl::OkStatus();
  }

  // The passes of merge `size` from `first_stride` down to stride 1.
  absl::Status Strides(const Order& order, int64_t count, llvm::Value* offset, llvm::Value* size,
                       llvm::Value* first_stride) {
    return EmitPowersOfTwoLoop(&b_, first_stride, b_.getInt64(1), false, "stage", [&](llvm::Value* stride) {
      return Pass(order, count, offset, size, stride);
    });
  }

  // The whole network over `count` (a power of two) entries: merges of size 2 to count.
  absl::Status Network(const Order& order, int64_t count, llvm::Value* offset) {
    return EmitPowersOfTwoLoop(&b_, b_.getInt64(2), b_.getInt64(count), true, "merge", [&](llvm::Value* size) {
      return Strides(order, count, offset, size, b_.CreateLShr(size, b_.getInt64(1)));
    });
  }

 private:
  llvm::IRBuilder<>& b_;
  llvm::Function* barrier_;
  llvm::Value* tid_;
  Before before_;
};

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_PTX_BITONIC_H_
