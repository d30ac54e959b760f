// sort kernels (ptx_emitter.h says what they do).
#include <algorithm>
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/ptx_kernel_util.h"
#include "backends/gpu/ptx_sort.h"
#include "hlo/shape_util.h"
#include "llvm/IR/Module.h"

namespace xla {
namespace gpu {
namespace {

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

int64_t PowerOfTwoAtLeast(int64_t n) {
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

// Static shared memory a block may have.
constexpr int64_t kSharedMemoryBytes = 48 * 1024;

// A block's rows of a sort: for each row (rows of `length` elements, `inner` elements apart)
// a permutation of its positions, padded to a power of two, is sorted in the order (comparator,
// then position) by a bitonic network, and the operands are gathered through it into the
// outputs. The network runs in shared memory on tiles: the whole row when it has up to
// kLongestSharedMemorySort elements (a block per row). Longer rows keep their permutation in
// `scratch` (LongSortScratch: a slot per block in flight, blocks past the slots idle): each
// tile first sorts itself in shared memory, then each merge of a longer size runs its strides
// of a tile or more over global memory and the shorter ones tile by tile in shared memory.
// Where the operands' values fit beside the positions (as many as the tile has), a tile keeps
// them too, so comparisons within a tile read shared memory only: long rows then take tiles of
// the size that fits, rather than compare through positions to global memory.
absl::Status EmitRowSorts(KernelContext& k, const HloInstruction* hlo, const std::vector<cpu::Generator>& operands,
                          const std::vector<cpu::SerialOutput>& outputs, int64_t length, int64_t inner,
                          const LongSortScratch& long_sort, llvm::Value* scratch) {
  llvm::IRBuilder<>& b = *k.b;
  cpu::ElementalEmitter& e = *k.elemental;
  const Shape& shape = outputs[0].shape;
  const size_t n = outputs.size();
  const int64_t rows = ShapeUtil::ElementsIn(shape) / length;
  const int64_t padded = PowerOfTwoAtLeast(length);
  const bool in_scratch = scratch != nullptr;
  // The operands' register types and the bytes an entry with them takes in shared memory.
  std::vector<llvm::Type*> value_types;
  int64_t entry_bytes = 4;
  for (size_t t = 0; t < n; ++t) {
    llvm::Type* type = e.RegisterType(hlo->operand(static_cast<int64_t>(t))->shape().element_type());
    if (type == nullptr) {
      return absl::UnimplementedError(absl::StrCat("gpu backend: sort ", hlo->name(), ": unsupported element type"));
    }
    value_types.push_back(type);
    entry_bytes += static_cast<int64_t>(k.module->getDataLayout().getTypeAllocSize(type));
  }
  int64_t tile = in_scratch ? kLongestSharedMemorySort : padded;
  int64_t cached_tile = tile;
  while (cached_tile > 1 && cached_tile * entry_bytes > kSharedMemoryBytes) cached_tile /= 2;
  // Keeping values is worth smaller tiles down to 2048 entries (a row of up to 8192 keeps them
  // only when the whole row fits).
  const bool cached = in_scratch ? cached_tile >= 2048 : cached_tile == tile;
  if (cached) tile = cached_tile;
  auto shared_array = [&](llvm::Type* type, const std::string& name) {
    auto* array_type = llvm::ArrayType::get(type, tile);
    return new llvm::GlobalVariable(*k.module, array_type, false, llvm::GlobalValue::InternalLinkage,
                                    llvm::UndefValue::get(array_type), k.kernel->getName() + name, nullptr,
                                    llvm::GlobalValue::NotThreadLocal, 3);
  };
  llvm::GlobalVariable* shared_positions = shared_array(b.getInt32Ty(), ".order");
  std::vector<llvm::GlobalVariable*> shared_values;
  if (cached) {
    for (size_t t = 0; t < n; ++t) shared_values.push_back(shared_array(value_types[t], absl::StrCat(".value", t)));
  }
  auto element = [&b](llvm::GlobalVariable* array, llvm::Value* i) {
    return b.CreateInBoundsGEP(array->getValueType(), array, {b.getInt64(0), i});
  };
  const Order shared_order{
      [&](llvm::Value* i) {
        Entry entry{b.CreateZExt(b.CreateLoad(b.getInt32Ty(), element(shared_positions, i)), b.getInt64Ty()), {}};
        for (size_t t = 0; t < shared_values.size(); ++t) {
          entry.values.push_back(b.CreateLoad(value_types[t], element(shared_values[t], i)));
        }
        return entry;
      },
      [&](llvm::Value* i, const Entry& entry) {
        b.CreateStore(b.CreateTrunc(entry.position, b.getInt32Ty()), element(shared_positions, i));
        for (size_t t = 0; t < shared_values.size(); ++t) b.CreateStore(entry.values[t], element(shared_values[t], i));
      }};
  llvm::Value* block = ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* blocks = ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
  llvm::Value* first_row = block;
  llvm::Value* row_step = blocks;
  std::function<llvm::Value*(llvm::Value*)> scratch_slot;
  Order scratch_order;
  if (in_scratch) {
    // Blocks past the slots take no row; the others stride over the rows by the slots in use.
    llvm::Value* slots = b.getInt64(long_sort.slots);
    first_row = b.CreateSelect(b.CreateICmpULT(block, slots), block, b.getInt64(rows));
    row_step = b.CreateSelect(b.CreateICmpULT(blocks, slots), blocks, slots);
    llvm::Value* base = b.CreateInBoundsGEP(b.getInt32Ty(), scratch, b.CreateMul(block, b.getInt64(long_sort.padded)));
    scratch_slot = [&b, base](llvm::Value* i) { return b.CreateInBoundsGEP(b.getInt32Ty(), base, i); };
    scratch_order.load = [&](llvm::Value* i) {
      return Entry{b.CreateZExt(b.CreateLoad(b.getInt32Ty(), scratch_slot(i)), b.getInt64Ty()), {}};
    };
    scratch_order.store = [&](llvm::Value* i, const Entry& entry) {
      b.CreateStore(b.CreateTrunc(entry.position, b.getInt32Ty()), scratch_slot(i));
    };
  }
  llvm::Value* limit = b.getInt64(length);
  return EmitStridedLoop(&b, first_row, b.getInt64(rows), row_step, "row", [&](llvm::Value* row) -> absl::Status {
    llvm::Value* first = b.CreateAdd(b.CreateMul(b.CreateUDiv(row, b.getInt64(inner)), b.getInt64(length * inner)),
                                     b.CreateURem(row, b.getInt64(inner)));
    auto at = [&](llvm::Value* j) { return IndexOf(&b, shape, b.CreateAdd(first, b.CreateMul(j, b.getInt64(inner)))); };
    // The operands' values at a position (the padding reads the last element's).
    auto values_at = [&](llvm::Value* position) -> absl::StatusOr<std::vector<llvm::Value*>> {
      const cpu::IrIndex index = at(b.CreateSelect(b.CreateICmpULT(position, limit), position, b.getInt64(length - 1)));
      std::vector<llvm::Value*> values;
      for (size_t t = 0; t < n; ++t) {
        ASSIGN_OR_RETURN(llvm::Value* v, operands[t](index));
        values.push_back(v);
      }
      return values;
    };
    // Entry x goes before entry y: real elements before the padding, then the comparator's
    // order, ties in position order (stable, and a permutation whatever the comparator).
    Before before = [&](const Entry& x, const Entry& y) -> absl::StatusOr<llvm::Value*> {
      std::vector<llvm::Value*> xv = x.values, yv = y.values;
      if (xv.empty()) {
        ASSIGN_OR_RETURN(xv, values_at(x.position));
        ASSIGN_OR_RETURN(yv, values_at(y.position));
      }
      std::vector<llvm::Value*> xy, yx;
      for (size_t t = 0; t < n; ++t) {
        xy.insert(xy.end(), {xv[t], yv[t]});
        yx.insert(yx.end(), {yv[t], xv[t]});
      }
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> x_less, e.EmitScalarComputation(*hlo->to_apply(), xy));
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> y_less, e.EmitScalarComputation(*hlo->to_apply(), yx));
      if (x_less.size() != 1 || y_less.size() != 1 || !x_less[0]->getType()->isIntegerTy(1)) {
        return absl::InvalidArgumentError(absl::StrCat("sort ", hlo->name(), ": the comparator must return pred"));
      }
      llvm::Value* ordered =
          b.CreateOr(x_less[0], b.CreateAnd(b.CreateNot(y_less[0]), b.CreateICmpULT(x.position, y.position)));
      return b.CreateAnd(b.CreateICmpULT(x.position, limit),
                         b.CreateOr(b.CreateICmpUGE(y.position, limit), ordered));
    };
    BitonicPasses passes(&b, k.module, before);
    llvm::Value* tid = passes.tid();
    // A tile into shared memory from scratch (identity positions when `fresh`), with the
    // operands' values when kept.
    auto tile_in = [&](llvm::Value* offset, bool fresh) {
      return EmitStridedLoop(&b, tid, b.getInt64(tile), passes.threads(), "tile.in", [&](llvm::Value* j) -> absl::Status {
        llvm::Value* at_row = b.CreateAdd(offset, j);
        Entry entry{fresh ? at_row : scratch_order.load(at_row).position, {}};
        if (cached) {
          ASSIGN_OR_RETURN(entry.values, values_at(entry.position));
          for (size_t t = 0; t < n; ++t) {
            if (entry.values[t]->getType() != value_types[t]) {
              return absl::InternalError(absl::StrCat("sort ", hlo->name(), ": operand ", t, " is not of its register type"));
            }
          }
        }
        shared_order.store(j, entry);
        return absl::OkStatus();
      });
    };
    auto tile_out = [&](llvm::Value* offset) {
      return EmitStridedLoop(&b, tid, b.getInt64(tile), passes.threads(), "tile.out", [&](llvm::Value* j) -> absl::Status {
        b.CreateStore(b.CreateLoad(b.getInt32Ty(), element(shared_positions, j)), scratch_slot(b.CreateAdd(offset, j)));
        return absl::OkStatus();
      });
    };
    // Runs `body(offset)` on each tile in shared memory: in, barrier, body, out, barrier.
    auto each_tile = [&](bool fresh, auto body) {
      return EmitStridedLoop(&b, b.getInt64(0), b.getInt64(padded), b.getInt64(tile), "tile", [&](llvm::Value* offset) -> absl::Status {
        RETURN_IF_ERROR(tile_in(offset, fresh));
        passes.Barrier();
        RETURN_IF_ERROR(body(offset));
        RETURN_IF_ERROR(tile_out(offset));
        passes.Barrier();
        return absl::OkStatus();
      });
    };
    if (in_scratch) {
      RETURN_IF_ERROR(each_tile(true, [&](llvm::Value* offset) { return passes.Network(shared_order, tile, offset); }));
      RETURN_IF_ERROR(EmitPowersOfTwoLoop(&b, b.getInt64(2 * tile), b.getInt64(padded), true, "merge.long", [&](llvm::Value* size) -> absl::Status {
        RETURN_IF_ERROR(EmitPowersOfTwoLoop(&b, b.CreateLShr(size, b.getInt64(1)), b.getInt64(tile), false, "stage.long",
                                            [&](llvm::Value* stride) {
                                              return passes.Pass(scratch_order, padded, b.getInt64(0), size, stride);
                                            }));
        return each_tile(false, [&](llvm::Value* offset) {
          return passes.Strides(shared_order, tile, offset, size, b.getInt64(tile / 2));
        });
      }));
    } else {
      RETURN_IF_ERROR(tile_in(b.getInt64(0), true));
      passes.Barrier();
      RETURN_IF_ERROR(passes.Network(shared_order, padded, b.getInt64(0)));
    }
    RETURN_IF_ERROR(EmitStridedLoop(&b, tid, limit, passes.threads(), "gather", [&](llvm::Value* i) -> absl::Status {
      // The values the row's shared memory keeps, else read through the position (always a
      // real one; values_at bounds it anyway, as scratch memory starts uninitialized).
      Entry entry = (in_scratch ? scratch_order : shared_order).load(i);
      if (entry.values.empty()) {
        ASSIGN_OR_RETURN(entry.values, values_at(entry.position));
      }
      const cpu::IrIndex to = at(i);
      for (size_t t = 0; t < n; ++t) e.StoreElement(entry.values[t], outputs[t].base, outputs[t].shape, to);
      return absl::OkStatus();
    }));
    passes.Barrier();  // every thread has read the order before the next row writes it
    return absl::OkStatus();
  });
}

std::atomic<int64_t> most_rows_in_flight_for_testing{0};

}  // namespace

void SetMostSortRowsInFlightForTesting(int64_t rows) { most_rows_in_flight_for_testing.store(rows); }

absl::StatusOr<LongSortScratch> SortScratch(const HloInstruction& sort) {
  LongSortScratch scratch;
  const std::vector<const Shape*> outputs = KernelOutputs(sort.shape());
  if (sort.opcode() != HloOpcode::kSort || outputs.empty() || sort.dimensions().size() != 1) return scratch;
  const Shape& shape = *outputs[0];
  const int64_t dim = sort.dimensions(0);
  if (shape.rank() == 0 || dim < 0 || dim >= shape.rank()) return scratch;
  const int64_t length = shape.dimensions(static_cast<int>(dim));
  const int64_t elements = ShapeUtil::ElementsIn(shape);
  if (elements == 0 || length <= kLongestSharedMemorySort) return scratch;
  scratch.padded = PowerOfTwoAtLeast(length);
  const int64_t slot_bytes = scratch.padded * 4;
  if (slot_bytes > kMostSortScratchBytes) {
    return absl::UnimplementedError(absl::StrCat("gpu backend: sort ", sort.name(), " has rows of ", length,
                                                 " elements, whose permutation needs ", slot_bytes,
                                                 " bytes of scratch memory; it sorts rows of up to ",
                                                 kMostSortScratchBytes / 4, " elements (", kMostSortScratchBytes,
                                                 " bytes)"));
  }
  const int64_t in_flight = most_rows_in_flight_for_testing.load();
  scratch.slots = std::min({elements / length, in_flight > 0 ? in_flight : kMostSortRowsInFlight,
                            kMostSortScratchBytes / slot_bytes});
  return scratch;
}

// sort, with the comparator (emitted inline) called on (lhs_0, rhs_0, lhs_1, rhs_1, ...) as
// XLA defines, every operand moving together. A row is the elements whose indices differ only
// in the sort dimension; a block sorts a row at a time (EmitRowSorts: a bitonic network over
// the row's positions in the order (comparator, then position), stable whatever is_stable
// says, as the interpreter; O(n log^2 n) comparisons), a row kernel (*rows set). Rows longer
// than kLongestSharedMemorySort keep their permutation in scratch memory (SortScratch). (The
// insertion sort by a thread per row that rows of up to 16384 had is gone: its O(n^2)
// comparisons in one thread, 67M for a row of 16384, lose to a block's network even when the
// rows are many.)
absl::Status EmitSortBody(KernelContext& k, const HloInstruction* hlo, int64_t* rows) {
  const std::vector<cpu::SerialOutput> outputs = OutputArrays(k, hlo);
  const size_t n = outputs.size();
  if (hlo->operand_count() != static_cast<int64_t>(n) || hlo->to_apply() == nullptr || hlo->dimensions().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("sort ", hlo->name(), ": malformed"));
  }
  const Shape& shape = outputs[0].shape;
  for (const cpu::SerialOutput& out : outputs) {
    if (!out.shape.has_layout() || out.shape.layout().minor_to_major() != shape.layout().minor_to_major()) {
      return absl::UnimplementedError(absl::StrCat("gpu backend: sort ", hlo->name(), " outputs differ in layout"));
    }
  }
  const int64_t dim = hlo->dimensions(0);
  const int64_t length = shape.rank() == 0 ? 1 : shape.dimensions(static_cast<int>(dim));
  const cpu::RowsAround rows_around = cpu::StorageRowsAround(shape, dim);
  const int64_t inner = rows_around.inner, outer = rows_around.outer;
  std::vector<cpu::Generator> operands;
  for (size_t t = 0; t < n; ++t) {
    ASSIGN_OR_RETURN(operands.emplace_back(), k.operand(static_cast<int64_t>(t)));
  }
  if (ShapeUtil::ElementsIn(shape) == 0) return absl::OkStatus();  // never launched
  ASSIGN_OR_RETURN(const LongSortScratch scratch, SortScratch(*hlo));
  *rows = inner * outer;
  if (scratch.slots > 0 && k.scratch == nullptr) {
    return absl::InternalError(absl::StrCat("sort ", hlo->name(), ": its kernel has no scratch parameter"));
  }
  return EmitRowSorts(k, hlo, operands, outputs, length, inner, scratch, scratch.slots > 0 ? k.scratch : nullptr);
}

}  // namespace gpu
}  // namespace xla
