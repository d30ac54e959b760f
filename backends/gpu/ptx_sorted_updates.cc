// The sorted strategies' launches (ptx_sorted_updates.h): 64-bit keys in scratch memory,
// sorted by a bitonic network (blocks on tiles in shared memory, then launches over the whole
// grid), and each output element's run of updates applied in order by one thread.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "backends/gpu/ptx_bitonic.h"
#include "backends/gpu/ptx_sort.h"
#include "backends/gpu/ptx_sorted_updates.h"
#include "llvm/IR/Module.h"

namespace xla {
namespace gpu {
namespace {

// The bits that hold every value up to `n` (0 for 0).
int BitsFor(int64_t n) {
  int bits = 0;
  while (bits < 63 && (n >> bits) != 0) ++bits;
  return bits;
}

llvm::Value* KeyAt(llvm::IRBuilder<>* b, llvm::Value* keys, llvm::Value* i) {
  return b->CreateInBoundsGEP(b->getInt64Ty(), keys, i);
}

// kSortedUpdates and kSortedSources, launch 1: a thread per key writes it.
KernelBody SortedKeysBody(SortedKeys keys, int64_t updates, MakeKeyOf make) {
  return [keys, updates, make](KernelContext& k) -> absl::Status {
    llvm::IRBuilder<>& b = *k.b;
    ASSIGN_OR_RETURN(const KeyOf key_of, make(k));
    return EmitStridedLoop(&b, GlobalThread(&b), b.getInt64(keys.padded), GridThreads(&b), "key",
                           [&](llvm::Value* i) -> absl::Status {
                             llvm::Value* slot = KeyAt(&b, k.scratch, i);
                             b.CreateStore(b.getInt64(~uint64_t{0}), slot);
                             return EmitIf(&b, b.CreateICmpULT(i, b.getInt64(updates)), "update", [&]() {
                               return key_of(i, [&](llvm::Value* element) {
                                 b.CreateStore(b.CreateOr(b.CreateShl(element, b.getInt64(keys.position_bits)), i), slot);
                               });
                             });
                           });
  };
}
// kSortedUpdates, the sort's launches within tiles: a block per tile of keys, in shared
// memory; `fresh`: the tile's whole network (merges up to the tile), else merge `size`'s
// strides shorter than the tile.
KernelBody SortedTilesBody(SortedKeys keys, bool fresh, int64_t size) {
  return [keys, fresh, size](KernelContext& k) -> absl::Status {
    llvm::IRBuilder<>& b = *k.b;
    auto* array_type = llvm::ArrayType::get(b.getInt64Ty(), static_cast<uint64_t>(keys.tile));
    auto* shared = new llvm::GlobalVariable(*k.module, array_type, false, llvm::GlobalValue::InternalLinkage,
                                            llvm::UndefValue::get(array_type), k.kernel->getName() + ".keys", nullptr,
                                            llvm::GlobalValue::NotThreadLocal, 3);
    auto at = [&](llvm::Value* i) { return b.CreateInBoundsGEP(array_type, shared, {b.getInt64(0), i}); };
    const Order order{[&](llvm::Value* i) { return Entry{b.CreateLoad(b.getInt64Ty(), at(i)), {}}; },
                      [&](llvm::Value* i, const Entry& entry) { b.CreateStore(entry.position, at(i)); }};
    BitonicPasses passes(&b, k.module, [&](const Entry& x, const Entry& y) -> absl::StatusOr<llvm::Value*> {
      return b.CreateICmpULT(x.position, y.position);
    });
    return EmitStridedLoop(
        &b, ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), b.getInt64(keys.padded / keys.tile),
        ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), "tile", [&](llvm::Value* t) -> absl::Status {
          llvm::Value* offset = b.CreateMul(t, b.getInt64(keys.tile));
          auto copy = [&](bool in) {
            return EmitStridedLoop(&b, passes.tid(), b.getInt64(keys.tile), passes.threads(), in ? "in" : "out",
                                   [&](llvm::Value* j) {
                                     llvm::Value* global = KeyAt(&b, k.scratch, b.CreateAdd(offset, j));
                                     if (in) {
                                       b.CreateStore(b.CreateLoad(b.getInt64Ty(), global), at(j));
                                     } else {
                                       b.CreateStore(b.CreateLoad(b.getInt64Ty(), at(j)), global);
                                     }
                                     return absl::OkStatus();
                                   });
          };
          RETURN_IF_ERROR(copy(true));
          passes.Barrier();
          RETURN_IF_ERROR(fresh ? passes.Network(order, keys.tile, offset)
                                : passes.Strides(order, keys.tile, offset, b.getInt64(size), b.getInt64(keys.tile / 2)));
          RETURN_IF_ERROR(copy(false));
          passes.Barrier();  // before the next tile's keys overwrite these
          return absl::OkStatus();
        });
  };
}

// kSortedUpdates, a launch per merge `size` and `stride` of a tile or more: a thread per
// pair of keys in global memory.
KernelBody SortedPairsBody(SortedKeys keys, int64_t size, int64_t stride) {
  return [keys, size, stride](KernelContext& k) -> absl::Status {
    llvm::IRBuilder<>& b = *k.b;
    return EmitStridedLoop(&b, GlobalThread(&b), b.getInt64(keys.padded / 2), GridThreads(&b), "pair",
                           [&](llvm::Value* q) {
                             llvm::Value* low = b.CreateAnd(q, b.getInt64(stride - 1));
                             llvm::Value* i = b.CreateOr(b.CreateShl(b.CreateSub(q, low), b.getInt64(1)), low);
                             llvm::Value* x_at = KeyAt(&b, k.scratch, i);
                             llvm::Value* y_at = KeyAt(&b, k.scratch, b.CreateOr(i, b.getInt64(stride)));
                             llvm::Value* x = b.CreateLoad(b.getInt64Ty(), x_at);
                             llvm::Value* y = b.CreateLoad(b.getInt64Ty(), y_at);
                             llvm::Value* lo = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, x, y);
                             llvm::Value* hi = b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, x, y);
                             llvm::Value* ascending = b.CreateICmpEQ(b.CreateAnd(i, b.getInt64(size)), b.getInt64(0));
                             b.CreateStore(b.CreateSelect(ascending, lo, hi), x_at);
                             b.CreateStore(b.CreateSelect(ascending, hi, lo), y_at);
                             return absl::OkStatus();
                           });
  };
}

// kSortedUpdates and kSortedSources, the last launch: a thread per sorted key; the first key
// of each output element's run applies the run's updates, in order.
KernelBody SortedApplyBody(SortedKeys keys, int64_t updates, MakeApplyOne make) {
  return [keys, updates, make](KernelContext& k) -> absl::Status {
    llvm::IRBuilder<>& b = *k.b;
    ASSIGN_OR_RETURN(const ApplyOne apply, make(k));
    llvm::Value* none = b.getInt64(~uint64_t{0});
    auto element_of = [&](llvm::Value* key) { return b.CreateLShr(key, b.getInt64(keys.position_bits)); };
    return EmitStridedLoop(
        &b, GlobalThread(&b), b.getInt64(updates), GridThreads(&b), "run", [&](llvm::Value* j) -> absl::Status {
          llvm::Value* key = b.CreateLoad(b.getInt64Ty(), KeyAt(&b, k.scratch, j));
          llvm::Value* previous = b.CreateLoad(
              b.getInt64Ty(), KeyAt(&b, k.scratch, b.CreateSelect(b.CreateICmpEQ(j, b.getInt64(0)), j,
                                                                    b.CreateSub(j, b.getInt64(1)))));
          llvm::Value* first = b.CreateOr(b.CreateICmpEQ(j, b.getInt64(0)),
                                          b.CreateICmpNE(element_of(previous), element_of(key)));
          return EmitIf(&b, b.CreateAnd(b.CreateICmpNE(key, none), first), "first", [&]() -> absl::Status {
            // for (r = j; r < updates && keys[r] is of key's element; ++r) apply keys[r]'s update
            llvm::Function* f = b.GetInsertBlock()->getParent();
            llvm::BasicBlock* before = b.GetInsertBlock();
            llvm::BasicBlock* loop = llvm::BasicBlock::Create(b.getContext(), "apply", f);
            llvm::BasicBlock* done = llvm::BasicBlock::Create(b.getContext(), "apply.done", f);
            b.CreateBr(loop);
            b.SetInsertPoint(loop);
            llvm::PHINode* r = b.CreatePHI(b.getInt64Ty(), 2, "r");
            r->addIncoming(j, before);
            llvm::Value* position =
                b.CreateAnd(b.CreateLoad(b.getInt64Ty(), KeyAt(&b, k.scratch, r)),
                            b.getInt64(static_cast<int64_t>((uint64_t{1} << keys.position_bits) - 1)));
            RETURN_IF_ERROR(apply(element_of(key), position));
            llvm::Value* next = b.CreateAdd(r, b.getInt64(1));
            r->addIncoming(next, b.GetInsertBlock());
            llvm::Value* in_range = b.CreateICmpULT(next, b.getInt64(updates));
            // Past the last update the load reads the padding (all ones: no element's key).
            llvm::Value* next_key = b.CreateLoad(
                b.getInt64Ty(), KeyAt(&b, k.scratch, b.CreateSelect(in_range, next, b.getInt64(keys.padded - 1))));
            b.CreateCondBr(b.CreateAnd(in_range, b.CreateICmpEQ(element_of(next_key), element_of(key))), loop, done);
            b.SetInsertPoint(done);
            return absl::OkStatus();
          });
        });
  };
}
}  // namespace

// The keys of `updates` update elements writing into `elements` output elements, when the
// element and the position fit 63 bits together and the keys a sort's scratch.
std::optional<SortedKeys> SortedKeysFor(int64_t updates, int64_t elements) {
  if (updates <= 0 || elements <= 0) return std::nullopt;
  SortedKeys keys;
  keys.position_bits = BitsFor(updates - 1);
  if (keys.position_bits + BitsFor(elements - 1) > 63) return std::nullopt;
  keys.padded = PowerOfTwoAtLeast(updates);
  if (keys.bytes() > kMostSortScratchBytes) return std::nullopt;
  keys.tile = std::min(keys.padded, kSortedKeysTile);
  return keys;
}

// The launches of a sorted strategy after the fill: keys, their sort, the runs applied.
void AppendSortedLaunches(SortedKeys keys, int64_t updates, MakeKeyOf make_key, MakeApplyOne make_apply,
                          std::vector<KernelLaunch>* launches) {
  const int64_t tile_items = keys.padded / keys.tile * kGpuThreadsPerBlock;
  launches->push_back({SortedKeysBody(keys, updates, std::move(make_key)), keys.padded});
  launches->push_back({SortedTilesBody(keys, /*fresh=*/true, 0), tile_items});
  for (int64_t size = 2 * keys.tile; size <= keys.padded; size *= 2) {
    for (int64_t stride = size / 2; stride >= keys.tile; stride /= 2) {
      launches->push_back({SortedPairsBody(keys, size, stride), keys.padded / 2});
    }
    launches->push_back({SortedTilesBody(keys, /*fresh=*/false, size), tile_items});
  }
  launches->push_back({SortedApplyBody(keys, updates, std::move(make_apply)), updates});
}

}  // namespace gpu
}  // namespace xla
