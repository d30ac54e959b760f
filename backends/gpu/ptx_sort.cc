// sort kernels (ptx_emitter.h says what they do).
#include <algorithm>
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/ptx_bitonic.h"
#include "backends/gpu/ptx_kernel_util.h"
#include "backends/gpu/ptx_sort.h"
#include "hlo/shape_util.h"
#include "llvm/IR/Module.h"

namespace xla {
namespace gpu {
namespace {


// What the kernels of one sort share: its rows (rows of `length` elements, `inner` elements
// apart), each sorted through a permutation of its positions padded to a power of two in the
// order (comparator, then position) by a bitonic network, and the operands gathered through it
// into the outputs. The network runs in shared memory on tiles of up to
// kLongestSharedMemorySort entries; longer rows keep their permutation in scratch memory.
// Where the operands' values fit beside the positions (as many as the tile has), a tile keeps
// them too, so comparisons within a tile read shared memory only: long rows then take tiles of
// the size that fits, rather than compare through positions to global memory.
class SortEmitter {
 public:
  // A row's elements: their indices, the operands' values at a position, and the order.
  struct Row {
    std::function<cpu::IrIndex(llvm::Value* j)> at;
    std::function<absl::StatusOr<std::vector<llvm::Value*>>(llvm::Value* position)> values_at;
    Before before;
  };

  SortEmitter(KernelContext& k, const HloInstruction* hlo, std::vector<cpu::Generator> operands,
              std::vector<cpu::SerialOutput> outputs, int64_t length, int64_t inner, bool in_scratch)
      : k_(k), b_(*k.b), hlo_(hlo), operands_(std::move(operands)), outputs_(std::move(outputs)), length_(length),
        inner_(inner), padded_(PowerOfTwoAtLeast(length)), in_scratch_(in_scratch) {}

  absl::Status Init() {
    const size_t n = outputs_.size();
    rows_ = ShapeUtil::ElementsIn(outputs_[0].shape) / length_;
    // The operands' register types and the bytes an entry with them takes in shared memory.
    int64_t entry_bytes = 4;
    for (size_t t = 0; t < n; ++t) {
      llvm::Type* type = k_.elemental->RegisterType(hlo_->operand(static_cast<int64_t>(t))->shape().element_type());
      if (type == nullptr) {
        return absl::UnimplementedError(absl::StrCat("gpu backend: sort ", hlo_->name(), ": unsupported element type"));
      }
      value_types_.push_back(type);
      entry_bytes += static_cast<int64_t>(k_.module->getDataLayout().getTypeAllocSize(type));
    }
    tile_ = in_scratch_ ? kLongestSharedMemorySort : padded_;
    int64_t cached_tile = tile_;
    while (cached_tile > 1 && cached_tile * entry_bytes > kSortSharedMemoryBytes) cached_tile /= 2;
    // Keeping values is worth smaller tiles down to kSmallestSpreadSortTile entries (a row of
    // up to 8192 keeps them only when the whole row fits).
    cached_ = in_scratch_ ? cached_tile >= kSmallestSpreadSortTile : cached_tile == tile_;
    if (cached_) tile_ = cached_tile;
    return absl::OkStatus();
  }

  int64_t rows() const { return rows_; }
  int64_t length() const { return length_; }
  int64_t padded() const { return padded_; }
  int64_t tile() const { return tile_; }

  Row RowAt(llvm::Value* row) {
    llvm::IRBuilder<>& b = b_;
    const Shape& shape = outputs_[0].shape;
    llvm::Value* first = b.CreateAdd(b.CreateMul(b.CreateUDiv(row, b.getInt64(inner_)), b.getInt64(length_ * inner_)),
                                     b.CreateURem(row, b.getInt64(inner_)));
    llvm::Value* limit = b.getInt64(length_);
    Row r;
    r.at = [this, &b, &shape, first](llvm::Value* j) {
      return IndexOf(&b, shape, b.CreateAdd(first, b.CreateMul(j, b.getInt64(inner_))));
    };
    // The operands' values at a position (the padding reads the last element's).
    r.values_at = [this, &b, limit, at = r.at](llvm::Value* position) -> absl::StatusOr<std::vector<llvm::Value*>> {
      const cpu::IrIndex index = at(b.CreateSelect(b.CreateICmpULT(position, limit), position, b.getInt64(length_ - 1)));
      std::vector<llvm::Value*> values;
      for (const cpu::Generator& operand : operands_) {
        ASSIGN_OR_RETURN(llvm::Value* v, operand(index));
        values.push_back(v);
      }
      return values;
    };
    // Entry x goes before entry y: real elements before the padding, then the comparator's
    // order, ties in position order (stable, and a permutation whatever the comparator).
    r.before = [this, &b, limit, values_at = r.values_at](const Entry& x, const Entry& y) -> absl::StatusOr<llvm::Value*> {
      std::vector<llvm::Value*> xv = x.values, yv = y.values;
      if (xv.empty()) {
        ASSIGN_OR_RETURN(xv, values_at(x.position));
        ASSIGN_OR_RETURN(yv, values_at(y.position));
      }
      std::vector<llvm::Value*> xy, yx;
      for (size_t t = 0; t < xv.size(); ++t) {
        xy.insert(xy.end(), {xv[t], yv[t]});
        yx.insert(yx.end(), {yv[t], xv[t]});
      }
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> x_less, k_.elemental->EmitScalarComputation(*hlo_->to_apply(), xy));
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> y_less, k_.elemental->EmitScalarComputation(*hlo_->to_apply(), yx));
      if (x_less.size() != 1 || y_less.size() != 1 || !x_less[0]->getType()->isIntegerTy(1)) {
        return absl::InvalidArgumentError(absl::StrCat("sort ", hlo_->name(), ": the comparator must return pred"));
      }
      llvm::Value* ordered =
          b.CreateOr(x_less[0], b.CreateAnd(b.CreateNot(y_less[0]), b.CreateICmpULT(x.position, y.position)));
      return b.CreateAnd(b.CreateICmpULT(x.position, limit), b.CreateOr(b.CreateICmpUGE(y.position, limit), ordered));
    };
    return r;
  }

  // The permutation of a row kept in shared memory (this kernel's arrays, made on first use).
  Order SharedOrder() {
    if (shared_positions_ == nullptr) {
      shared_positions_ = SharedArray(b_.getInt32Ty(), ".order");
      if (cached_) {
        for (size_t t = 0; t < value_types_.size(); ++t) {
          shared_values_.push_back(SharedArray(value_types_[t], absl::StrCat(".value", t)));
        }
      }
    }
    llvm::IRBuilder<>& b = b_;
    return Order{[this, &b](llvm::Value* i) {
                   Entry entry{b.CreateZExt(b.CreateLoad(b.getInt32Ty(), Element(shared_positions_, i)), b.getInt64Ty()),
                               {}};
                   for (size_t t = 0; t < shared_values_.size(); ++t) {
                     entry.values.push_back(b.CreateLoad(value_types_[t], Element(shared_values_[t], i)));
                   }
                   return entry;
                 },
                 [this, &b](llvm::Value* i, const Entry& entry) {
                   b.CreateStore(b.CreateTrunc(entry.position, b.getInt32Ty()), Element(shared_positions_, i));
                   for (size_t t = 0; t < shared_values_.size(); ++t) {
                     b.CreateStore(entry.values[t], Element(shared_values_[t], i));
                   }
                 }};
  }

  // A permutation of padded() positions in scratch memory from `base` (positions only).
  Order ScratchOrder(llvm::Value* base) {
    llvm::IRBuilder<>& b = b_;
    auto slot = [&b, base](llvm::Value* i) { return b.CreateInBoundsGEP(b.getInt32Ty(), base, i); };
    return Order{[&b, slot](llvm::Value* i) {
                   return Entry{b.CreateZExt(b.CreateLoad(b.getInt32Ty(), slot(i)), b.getInt64Ty()), {}};
                 },
                 [&b, slot](llvm::Value* i, const Entry& entry) {
                   b.CreateStore(b.CreateTrunc(entry.position, b.getInt32Ty()), slot(i));
                 }};
  }

  // The tile at `offset` of a row's permutation into shared memory (identity positions when
  // `fresh`, else from `scratch`), with the operands' values when kept.
  absl::Status TileIn(BitonicPasses& passes, const Row& row, const Order& scratch, llvm::Value* offset, bool fresh) {
    llvm::IRBuilder<>& b = b_;
    const Order shared = SharedOrder();
    return EmitStridedLoop(&b, passes.tid(), b.getInt64(tile_), passes.threads(), "tile.in",
                           [&](llvm::Value* j) -> absl::Status {
                             llvm::Value* at_row = b.CreateAdd(offset, j);
                             Entry entry{fresh ? at_row : scratch.load(at_row).position, {}};
                             if (cached_) {
                               ASSIGN_OR_RETURN(entry.values, row.values_at(entry.position));
                               RETURN_IF_ERROR(CheckTypes(entry.values));
                             }
                             shared.store(j, entry);
                             return absl::OkStatus();
                           });
  }

  // `body(shared, offset)` on the tile at `offset` of a row's permutation in scratch, in shared
  // memory: in, barrier, body, out, barrier.
  absl::Status OnTile(BitonicPasses& passes, const Row& row, const Order& scratch, llvm::Value* offset, bool fresh,
                      const std::function<absl::Status(const Order&, llvm::Value*)>& body) {
    llvm::IRBuilder<>& b = b_;
    const Order shared = SharedOrder();
    RETURN_IF_ERROR(TileIn(passes, row, scratch, offset, fresh));
    passes.Barrier();
    RETURN_IF_ERROR(body(shared, offset));
    RETURN_IF_ERROR(EmitStridedLoop(&b, passes.tid(), b.getInt64(tile_), passes.threads(), "tile.out",
                                    [&](llvm::Value* j) -> absl::Status {
                                      scratch.store(b.CreateAdd(offset, j), Entry{shared.load(j).position, {}});
                                      return absl::OkStatus();
                                    }));
    passes.Barrier();
    return absl::OkStatus();
  }

  // Output element i of a row from entry i of its sorted permutation `order`: the values it
  // keeps, else read through the position (always a real one; values_at bounds it anyway, as
  // scratch memory starts uninitialized).
  absl::Status Gather(const Row& row, const Order& order, llvm::Value* i) {
    Entry entry = order.load(i);
    if (entry.values.empty()) {
      ASSIGN_OR_RETURN(entry.values, row.values_at(entry.position));
    }
    const cpu::IrIndex to = row.at(i);
    for (size_t t = 0; t < outputs_.size(); ++t) {
      k_.elemental->StoreElement(entry.values[t], outputs_[t].base, outputs_[t].shape, to);
    }
    return absl::OkStatus();
  }

  // A thread's compare-exchange of pair p (of padded() / 2) of merge `size` at `stride` over a
  // whole row's permutation in scratch (no barrier: the pairs are disjoint).
  absl::Status GlobalPair(const Row& row, const Order& order, llvm::Value* p, int64_t size, int64_t stride) {
    llvm::IRBuilder<>& b = b_;
    llvm::Value* low = b.CreateAnd(p, b.getInt64(stride - 1));
    llvm::Value* i = b.CreateOr(b.CreateShl(b.CreateSub(p, low), b.getInt64(1)), low);
    llvm::Value* partner = b.CreateOr(i, b.getInt64(stride));
    const Entry x = order.load(i), y = order.load(partner);
    ASSIGN_OR_RETURN(llvm::Value* x_first, row.before(x, y));
    llvm::Value* swap = b.CreateXor(b.CreateICmpEQ(b.CreateAnd(i, b.getInt64(size)), b.getInt64(0)), x_first);
    order.store(i, Entry{b.CreateSelect(swap, y.position, x.position), {}});
    order.store(partner, Entry{b.CreateSelect(swap, x.position, y.position), {}});
    return absl::OkStatus();
  }

 private:
  llvm::GlobalVariable* SharedArray(llvm::Type* type, const std::string& name) {
    auto* array_type = llvm::ArrayType::get(type, tile_);
    return new llvm::GlobalVariable(*k_.module, array_type, false, llvm::GlobalValue::InternalLinkage,
                                    llvm::UndefValue::get(array_type), k_.kernel->getName() + name, nullptr,
                                    llvm::GlobalValue::NotThreadLocal, 3);
  }
  llvm::Value* Element(llvm::GlobalVariable* array, llvm::Value* i) {
    return b_.CreateInBoundsGEP(array->getValueType(), array, {b_.getInt64(0), i});
  }
  absl::Status CheckTypes(const std::vector<llvm::Value*>& values) {
    for (size_t t = 0; t < values.size(); ++t) {
      if (values[t]->getType() != value_types_[t]) {
        return absl::InternalError(absl::StrCat("sort ", hlo_->name(), ": operand ", t, " is not of its register type"));
      }
    }
    return absl::OkStatus();
  }

  KernelContext& k_;
  llvm::IRBuilder<>& b_;
  const HloInstruction* hlo_;
  const std::vector<cpu::Generator> operands_;
  const std::vector<cpu::SerialOutput> outputs_;
  const int64_t length_, inner_, padded_;
  const bool in_scratch_;
  int64_t rows_ = 0, tile_ = 0;
  bool cached_ = false;
  std::vector<llvm::Type*> value_types_;
  llvm::GlobalVariable* shared_positions_ = nullptr;
  std::vector<llvm::GlobalVariable*> shared_values_;
};

// A block's rows of a sort (SortEmitter), a block per row: the whole row in shared memory when
// it has up to kLongestSharedMemorySort elements. Longer rows keep their permutation in
// `scratch` (LongSortScratch: a slot per block in flight, blocks past the slots idle): each
// tile first sorts itself in shared memory, then each merge of a longer size runs its strides
// of a tile or more over global memory and the shorter ones tile by tile in shared memory.
absl::Status EmitRowSorts(KernelContext& k, SortEmitter& sort, const LongSortScratch& long_sort, llvm::Value* scratch) {
  llvm::IRBuilder<>& b = *k.b;
  const bool in_scratch = scratch != nullptr;
  const int64_t rows = sort.rows(), padded = sort.padded(), tile = sort.tile();
  llvm::Value* block = ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* blocks = ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
  llvm::Value* first_row = block;
  llvm::Value* row_step = blocks;
  Order scratch_order;
  if (in_scratch) {
    // Blocks past the slots take no row; the others stride over the rows by the slots in use.
    llvm::Value* slots = b.getInt64(long_sort.slots);
    first_row = b.CreateSelect(b.CreateICmpULT(block, slots), block, b.getInt64(rows));
    row_step = b.CreateSelect(b.CreateICmpULT(blocks, slots), blocks, slots);
    scratch_order = sort.ScratchOrder(b.CreateInBoundsGEP(b.getInt32Ty(), scratch, b.CreateMul(block, b.getInt64(padded))));
  }
  const Order shared_order = sort.SharedOrder();
  return EmitStridedLoop(&b, first_row, b.getInt64(rows), row_step, "row", [&](llvm::Value* row_index) -> absl::Status {
    const SortEmitter::Row row = sort.RowAt(row_index);
    BitonicPasses passes(&b, k.module, row.before);
    // Runs `body` on each tile of the row in shared memory.
    auto each_tile = [&](bool fresh, const std::function<absl::Status(const Order&, llvm::Value*)>& body) {
      return EmitStridedLoop(&b, b.getInt64(0), b.getInt64(padded), b.getInt64(tile), "tile",
                             [&](llvm::Value* offset) { return sort.OnTile(passes, row, scratch_order, offset, fresh, body); });
    };
    if (in_scratch) {
      RETURN_IF_ERROR(each_tile(true, [&](const Order& shared, llvm::Value* offset) {
        return passes.Network(shared, tile, offset);
      }));
      RETURN_IF_ERROR(EmitPowersOfTwoLoop(&b, b.getInt64(2 * tile), b.getInt64(padded), true, "merge.long", [&](llvm::Value* size) -> absl::Status {
        RETURN_IF_ERROR(EmitPowersOfTwoLoop(&b, b.CreateLShr(size, b.getInt64(1)), b.getInt64(tile), false, "stage.long",
                                            [&](llvm::Value* stride) {
                                              return passes.Pass(scratch_order, padded, b.getInt64(0), size, stride);
                                            }));
        return each_tile(false, [&](const Order& shared, llvm::Value* offset) {
          return passes.Strides(shared, tile, offset, size, b.getInt64(tile / 2));
        });
      }));
    } else {
      // The whole row is one tile: identity positions in, sorted there, gathered from there.
      RETURN_IF_ERROR(sort.TileIn(passes, row, scratch_order, b.getInt64(0), /*fresh=*/true));
      passes.Barrier();
      RETURN_IF_ERROR(passes.Network(shared_order, padded, b.getInt64(0)));
    }
    const Order& sorted = in_scratch ? scratch_order : shared_order;
    RETURN_IF_ERROR(EmitStridedLoop(&b, passes.tid(), b.getInt64(sort.length()), passes.threads(), "gather",
                                    [&](llvm::Value* i) { return sort.Gather(row, sorted, i); }));
    passes.Barrier();  // every thread has read the order before the next row writes it
    return absl::OkStatus();
  });
}

std::atomic<int64_t> most_rows_in_flight_for_testing{0};
std::atomic<bool> spread_sorts{true};

}  // namespace

void SetMostSortRowsInFlightForTesting(int64_t rows) { most_rows_in_flight_for_testing.store(rows); }
bool SetSpreadSortsForTesting(bool spread) { return spread_sorts.exchange(spread); }

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
  const int64_t rows = elements / length;
  if (spread_sorts.load() && rows <= kMostSpreadSortRows && rows * slot_bytes <= kMostSortScratchBytes) {
    scratch.spread = true;
    scratch.slots = rows;
    return scratch;
  }
  const int64_t in_flight = most_rows_in_flight_for_testing.load();
  scratch.slots = std::min({rows, in_flight > 0 ? in_flight : kMostSortRowsInFlight, kMostSortScratchBytes / slot_bytes});
  return scratch;
}

namespace {

// The sort's outputs checked, its operands' generators, its row length and spacing.
struct SortParts {
  std::vector<cpu::SerialOutput> outputs;
  std::vector<cpu::Generator> operands;
  int64_t length = 0, inner = 1, outer = 1;
};

absl::StatusOr<SortParts> PartsOf(KernelContext& k, const HloInstruction* hlo) {
  SortParts parts;
  parts.outputs = OutputArrays(k, hlo);
  const size_t n = parts.outputs.size();
  if (hlo->operand_count() != static_cast<int64_t>(n) || hlo->to_apply() == nullptr || hlo->dimensions().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("sort ", hlo->name(), ": malformed"));
  }
  const Shape& shape = parts.outputs[0].shape;
  for (const cpu::SerialOutput& out : parts.outputs) {
    if (!out.shape.has_layout() || out.shape.layout().minor_to_major() != shape.layout().minor_to_major()) {
      return absl::UnimplementedError(absl::StrCat("gpu backend: sort ", hlo->name(), " outputs differ in layout"));
    }
  }
  const int64_t dim = hlo->dimensions(0);
  parts.length = shape.rank() == 0 ? 1 : shape.dimensions(static_cast<int>(dim));
  const cpu::RowsAround rows_around = cpu::StorageRowsAround(shape, dim);
  parts.inner = rows_around.inner;
  parts.outer = rows_around.outer;
  for (size_t t = 0; t < n; ++t) {
    ASSIGN_OR_RETURN(parts.operands.emplace_back(), k.operand(static_cast<int64_t>(t)));
  }
  return parts;
}

}  // namespace

// sort, with the comparator (emitted inline) called on (lhs_0, rhs_0, lhs_1, rhs_1, ...) as
// XLA defines, every operand moving together. A row is the elements whose indices differ only
// in the sort dimension; a block sorts a row at a time (EmitRowSorts: a bitonic network over
// the row's positions in the order (comparator, then position), stable whatever is_stable
// says, as the interpreter; O(n log^2 n) comparisons), a row kernel (*rows set). Rows longer
// than kLongestSharedMemorySort keep their permutation in scratch memory (SortScratch); when
// they are few, the whole grid sorts them instead (SpreadSortLaunches). (The insertion sort
// by a thread per row that rows of up to 16384 had is gone: its O(n^2) comparisons in one
// thread, 67M for a row of 16384, lose to a block's network even when the rows are many.)
absl::Status EmitSortBody(KernelContext& k, const HloInstruction* hlo, int64_t* rows) {
  ASSIGN_OR_RETURN(SortParts parts, PartsOf(k, hlo));
  if (ShapeUtil::ElementsIn(parts.outputs[0].shape) == 0) return absl::OkStatus();  // never launched
  ASSIGN_OR_RETURN(const LongSortScratch scratch, SortScratch(*hlo));
  *rows = parts.inner * parts.outer;
  if (scratch.slots > 0 && k.scratch == nullptr) {
    return absl::InternalError(absl::StrCat("sort ", hlo->name(), ": its kernel has no scratch parameter"));
  }
  SortEmitter sort(k, hlo, std::move(parts.operands), std::move(parts.outputs), parts.length, parts.inner,
                   scratch.slots > 0);
  RETURN_IF_ERROR(sort.Init());
  return EmitRowSorts(k, sort, scratch, scratch.slots > 0 ? k.scratch : nullptr);
}

// A spread sort (LongSortScratch::spread): every row's permutation in scratch at once, sorted
// by launches over the whole grid. First the tiles of every row sort themselves in shared
// memory (a block per tile); then for each longer merge size, a launch per stride of a tile or
// more with a thread per pair of every row, and one launch of the shorter strides tile by
// tile; last a thread per output element gathers the operands through the permutation.
absl::StatusOr<std::vector<KernelLaunch>> SpreadSortLaunches(const HloInstruction* hlo) {
  ASSIGN_OR_RETURN(const LongSortScratch scratch, SortScratch(*hlo));
  std::vector<KernelLaunch> launches;
  if (!scratch.spread) return launches;
  const int64_t elements = ShapeUtil::ElementsIn(*KernelOutputs(hlo->shape())[0]);
  const int64_t rows = scratch.slots, padded = scratch.padded;
  // The tile size (and whether values are kept beside the positions) depends only on the
  // operands' types: an emitter made for any kernel of the sort says it.
  struct Setup {
    std::unique_ptr<SortEmitter> sort;
    llvm::Value* scratch = nullptr;
  };
  auto setup = [hlo](KernelContext& k) -> absl::StatusOr<Setup> {
    if (k.scratch == nullptr) {
      return absl::InternalError(absl::StrCat("sort ", hlo->name(), ": its kernel has no scratch parameter"));
    }
    ASSIGN_OR_RETURN(SortParts parts, PartsOf(k, hlo));
    Setup s;
    s.sort = std::make_unique<SortEmitter>(k, hlo, std::move(parts.operands), std::move(parts.outputs), parts.length,
                                           parts.inner, /*in_scratch=*/true);
    RETURN_IF_ERROR(s.sort->Init());
    s.scratch = k.scratch;
    return s;
  };
  auto row_order = [padded](KernelContext& k, SortEmitter& sort, llvm::Value* scratch, llvm::Value* row) {
    return sort.ScratchOrder(k.b->CreateInBoundsGEP(k.b->getInt32Ty(), scratch, k.b->CreateMul(row, k.b->getInt64(padded))));
  };
  // A block per tile of every row, striding over them.
  auto tiles = [=](bool fresh, int64_t size) {
    return [=](KernelContext& k) -> absl::Status {
      ASSIGN_OR_RETURN(Setup s, setup(k));
      llvm::IRBuilder<>& b = *k.b;
      const int64_t tile = s.sort->tile(), per_row = padded / tile;
      if (!fresh && size <= tile) return absl::OkStatus();  // the first launch's tiles did it
      return EmitStridedLoop(&b, ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                             b.getInt64(rows * per_row), ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x),
                             "unit", [&](llvm::Value* unit) -> absl::Status {
                               llvm::Value* row_index = b.CreateUDiv(unit, b.getInt64(per_row));
                               llvm::Value* offset = b.CreateMul(b.CreateURem(unit, b.getInt64(per_row)), b.getInt64(tile));
                               const SortEmitter::Row row = s.sort->RowAt(row_index);
                               const Order order = row_order(k, *s.sort, s.scratch, row_index);
                               BitonicPasses passes(&b, k.module, row.before);
                               return s.sort->OnTile(passes, row, order, offset, fresh,
                                                     [&](const Order& shared, llvm::Value* at) {
                                                       return fresh ? passes.Network(shared, tile, at)
                                                                    : passes.Strides(shared, tile, at, b.getInt64(size),
                                                                                     b.getInt64(tile / 2));
                                                     });
                             });
    };
  };
  // A thread per pair of every row: merge `size` at `stride`.
  auto pairs = [=](int64_t size, int64_t stride) {
    return [=](KernelContext& k) -> absl::Status {
      ASSIGN_OR_RETURN(Setup s, setup(k));
      llvm::IRBuilder<>& b = *k.b;
      const int64_t half = padded / 2;
      if (stride < s.sort->tile()) return absl::OkStatus();  // the tiles' launch does it
      return EmitStridedLoop(&b, GlobalThread(&b), b.getInt64(rows * half), GridThreads(&b), "pair",
                             [&](llvm::Value* q) -> absl::Status {
                               llvm::Value* row_index = b.CreateUDiv(q, b.getInt64(half));
                               const SortEmitter::Row row = s.sort->RowAt(row_index);
                               return s.sort->GlobalPair(row, row_order(k, *s.sort, s.scratch, row_index), b.CreateURem(q, b.getInt64(half)),
                                                         size, stride);
                             });
    };
  };
  // A thread per output element.
  auto gather = [=](KernelContext& k) -> absl::Status {
    ASSIGN_OR_RETURN(Setup s, setup(k));
    llvm::IRBuilder<>& b = *k.b;
    const int64_t length = s.sort->length();
    return EmitStridedLoop(&b, GlobalThread(&b), b.getInt64(rows * length), GridThreads(&b), "element",
                           [&](llvm::Value* e) -> absl::Status {
                             llvm::Value* row_index = b.CreateUDiv(e, b.getInt64(length));
                             const SortEmitter::Row row = s.sort->RowAt(row_index);
                             return s.sort->Gather(row, row_order(k, *s.sort, s.scratch, row_index),
                                                   b.CreateURem(e, b.getInt64(length)));
                           });
  };
  // The launches for the smallest tile a spread sort takes (kSmallestSpreadSortTile); the
  // tile depends on the operands' register types (SortEmitter::Init), and a kernel whose merge
  // or stride its tile already covers does nothing.
  const int64_t tile_items = rows * (padded / kSmallestSpreadSortTile) * kGpuThreadsPerBlock;
  launches.push_back({tiles(/*fresh=*/true, 0), elements});
  for (int64_t size = 2 * kSmallestSpreadSortTile; size <= padded; size *= 2) {
    for (int64_t stride = size / 2; stride >= kSmallestSpreadSortTile; stride /= 2) {
      launches.push_back({pairs(size, stride), rows * padded / 2});
    }
    launches.push_back({tiles(/*fresh=*/false, size), tile_items});
  }
  launches.push_back({gather, elements});
  return launches;
}

}  // namespace gpu
}  // namespace xla
