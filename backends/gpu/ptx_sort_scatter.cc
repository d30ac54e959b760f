// sort, scatter and select-and-scatter kernels (ptx_emitter.h says what each does).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/ptx_kernel_util.h"
#include "hlo/shape_util.h"
#include "llvm/IR/Module.h"

namespace xla {
namespace gpu {
namespace {

// Emits `body` for v = first, first * 2, ... while v <= last (doubling), or v = first,
// first / 2, ... while v >= 1 (halving); the bounds are the same for every thread of a block.
template <typename F>
absl::Status EmitPowersOfTwoLoop(llvm::IRBuilder<>* b, llvm::Value* first, llvm::Value* last, bool doubling,
                                 const char* name, F body) {
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::BasicBlock* before = b->GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(b->getContext(), name, f);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(b->getContext(), std::string(name) + ".done", f);
  auto more = [&](llvm::Value* v) {
    return doubling ? b->CreateICmpULE(v, last) : b->CreateICmpUGE(v, b->getInt64(1));
  };
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

// Rows of up to this many elements sort in shared memory, a block per row (a permutation of
// 32-bit positions: 32 KiB); longer ones by insertion, a thread per row, up to
// kLongestInsertionSort; longer rows are refused rather than left to a quadratic sort.
constexpr int64_t kLongestBlockSort = 8192;
constexpr int64_t kLongestInsertionSort = 16384;

// The block sort of EmitSortBody: rows of `length` elements, `inner` elements apart.
absl::Status EmitBlockSort(KernelContext& k, const HloInstruction* hlo, const std::vector<cpu::Generator>& operands,
                           const std::vector<cpu::SerialOutput>& outputs, int64_t length, int64_t inner) {
  llvm::IRBuilder<>& b = *k.b;
  cpu::ElementalEmitter& e = *k.elemental;
  const Shape& shape = outputs[0].shape;
  const size_t n = outputs.size();
  int64_t padded = 1;
  while (padded < length) padded *= 2;
  auto* order_type = llvm::ArrayType::get(b.getInt32Ty(), padded);
  auto* order = new llvm::GlobalVariable(*k.module, order_type, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::UndefValue::get(order_type), k.kernel->getName() + ".order", nullptr,
                                         llvm::GlobalValue::NotThreadLocal, 3);
  auto slot = [&](llvm::Value* i) { return b.CreateInBoundsGEP(order_type, order, {b.getInt64(0), i}); };
  llvm::Function* barrier = llvm::Intrinsic::getDeclaration(k.module, llvm::Intrinsic::nvvm_barrier0);
  llvm::Value* tid = ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* threads = b.getInt64(kGpuThreadsPerBlock);
  llvm::Value* limit = b.getInt64(length);
  return EmitStridedLoop(
      &b, ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), b.getInt64(ShapeUtil::ElementsIn(shape) / length),
      ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), "row", [&](llvm::Value* row) -> absl::Status {
        llvm::Value* first = b.CreateAdd(b.CreateMul(b.CreateUDiv(row, b.getInt64(inner)), b.getInt64(length * inner)),
                                         b.CreateURem(row, b.getInt64(inner)));
        auto at = [&](llvm::Value* j) { return IndexOf(&b, shape, b.CreateAdd(first, b.CreateMul(j, b.getInt64(inner)))); };
        RETURN_IF_ERROR(EmitStridedLoop(&b, tid, b.getInt64(padded), threads, "init", [&](llvm::Value* i) -> absl::Status {
          b.CreateStore(b.CreateTrunc(i, b.getInt32Ty()), slot(i));
          return absl::OkStatus();
        }));
        b.CreateCall(barrier);
        // Position x goes before position y: real elements before the padding, then the
        // comparator's order, ties in position order.
        auto before = [&](llvm::Value* x, llvm::Value* y) -> absl::StatusOr<llvm::Value*> {
          llvm::Value* last = b.getInt64(length - 1);
          const cpu::IrIndex xi = at(b.CreateSelect(b.CreateICmpULT(x, limit), x, last));
          const cpu::IrIndex yi = at(b.CreateSelect(b.CreateICmpULT(y, limit), y, last));
          std::vector<llvm::Value*> xy, yx;
          for (size_t t = 0; t < n; ++t) {
            ASSIGN_OR_RETURN(llvm::Value* xv, operands[t](xi));
            ASSIGN_OR_RETURN(llvm::Value* yv, operands[t](yi));
            xy.insert(xy.end(), {xv, yv});
            yx.insert(yx.end(), {yv, xv});
          }
          ASSIGN_OR_RETURN(std::vector<llvm::Value*> x_less, e.EmitScalarComputation(*hlo->to_apply(), xy));
          ASSIGN_OR_RETURN(std::vector<llvm::Value*> y_less, e.EmitScalarComputation(*hlo->to_apply(), yx));
          if (x_less.size() != 1 || y_less.size() != 1 || !x_less[0]->getType()->isIntegerTy(1)) {
            return absl::InvalidArgumentError(absl::StrCat("sort ", hlo->name(), ": the comparator must return pred"));
          }
          llvm::Value* ordered =
              b.CreateOr(x_less[0], b.CreateAnd(b.CreateNot(y_less[0]), b.CreateICmpULT(x, y)));
          return b.CreateAnd(b.CreateICmpULT(x, limit), b.CreateOr(b.CreateICmpUGE(y, limit), ordered));
        };
        RETURN_IF_ERROR(EmitPowersOfTwoLoop(&b, b.getInt64(2), b.getInt64(padded), true, "merge", [&](llvm::Value* size) {
          return EmitPowersOfTwoLoop(&b, b.CreateLShr(size, b.getInt64(1)), nullptr, false, "stage", [&](llvm::Value* stride) -> absl::Status {
            RETURN_IF_ERROR(EmitStridedLoop(&b, tid, b.getInt64(padded), threads, "pair", [&](llvm::Value* i) -> absl::Status {
              llvm::Value* partner = b.CreateXor(i, stride);
              return EmitIf(&b, b.CreateICmpUGT(partner, i), "exchange", [&]() -> absl::Status {
                llvm::Value* x = b.CreateZExt(b.CreateLoad(b.getInt32Ty(), slot(i)), b.getInt64Ty());
                llvm::Value* y = b.CreateZExt(b.CreateLoad(b.getInt32Ty(), slot(partner)), b.getInt64Ty());
                ASSIGN_OR_RETURN(llvm::Value* x_first, before(x, y));
                llvm::Value* ascending = b.CreateICmpEQ(b.CreateAnd(i, size), b.getInt64(0));
                return EmitIf(&b, b.CreateXor(ascending, x_first), "swap", [&]() -> absl::Status {
                  b.CreateStore(b.CreateTrunc(y, b.getInt32Ty()), slot(i));
                  b.CreateStore(b.CreateTrunc(x, b.getInt32Ty()), slot(partner));
                  return absl::OkStatus();
                });
              });
            }));
            b.CreateCall(barrier);
            return absl::OkStatus();
          });
        }));
        RETURN_IF_ERROR(EmitStridedLoop(&b, tid, limit, threads, "gather", [&](llvm::Value* i) -> absl::Status {
          const cpu::IrIndex from = at(b.CreateZExt(b.CreateLoad(b.getInt32Ty(), slot(i)), b.getInt64Ty()));
          const cpu::IrIndex to = at(i);
          for (size_t t = 0; t < n; ++t) {
            ASSIGN_OR_RETURN(llvm::Value* v, operands[t](from));
            e.StoreElement(v, outputs[t].base, outputs[t].shape, to);
          }
          return absl::OkStatus();
        }));
        b.CreateCall(barrier);  // every thread has read the order before the next row writes it
        return absl::OkStatus();
      });
}

}  // namespace

// sort, with the comparator (emitted inline) called on (lhs_0, rhs_0, lhs_1, rhs_1, ...) as
// XLA defines, every operand moving together. A row is the elements whose indices differ only
// in the sort dimension.
//  - Rows of up to kLongestBlockSort: a block per row (a row kernel, *rows set) sorts the
//    row's positions in shared memory with a bitonic network, padded to a power of two, in the
//    order (comparator, then position): stable whatever is_stable says, as the interpreter.
//    Then the threads gather the operands' elements into the outputs in that order.
//  - Longer rows: a thread per row copies it into the outputs and sorts it there by insertion
//    (stable; O(length^2)).
absl::Status EmitSortBody(KernelContext& k, const HloInstruction* hlo, int64_t* rows) {
  llvm::IRBuilder<>& b = *k.b;
  cpu::ElementalEmitter& e = *k.elemental;
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
  if (length > kLongestInsertionSort) {
    return absl::UnimplementedError(absl::StrCat("gpu backend: sort ", hlo->name(), " has rows of ", length,
                                                 " elements; it sorts rows of up to ", kLongestInsertionSort));
  }
  if (length <= kLongestBlockSort) {
    *rows = inner * outer;
    return EmitBlockSort(k, hlo, operands, outputs, length, inner);
  }
  llvm::AllocaInst* hole = nullptr;  // where the element being inserted goes
  {
    llvm::IRBuilder<> entry(&k.kernel->getEntryBlock(), k.kernel->getEntryBlock().begin());
    hole = entry.CreateAlloca(b.getInt64Ty());
  }
  llvm::Function* f = k.kernel;
  llvm::LLVMContext& c = b.getContext();
  return EmitStridedLoop(&b, GlobalThread(&b), b.getInt64(inner * outer), GridThreads(&b), "row", [&](llvm::Value* row) -> absl::Status {
    llvm::Value* first = b.CreateAdd(b.CreateMul(b.CreateUDiv(row, b.getInt64(inner)), b.getInt64(length * inner)),
                                     b.CreateURem(row, b.getInt64(inner)));
    auto at = [&](llvm::Value* j) { return IndexOf(&b, shape, b.CreateAdd(first, b.CreateMul(j, b.getInt64(inner)))); };
    RETURN_IF_ERROR(cpu::EmitForLoop(&b, b.getInt64(0), b.getInt64(length), "copy", [&](llvm::Value* j) -> absl::Status {
      const cpu::IrIndex index = at(j);
      for (size_t t = 0; t < n; ++t) {
        ASSIGN_OR_RETURN(llvm::Value* v, operands[t](index));
        e.StoreElement(v, outputs[t].base, outputs[t].shape, index);
      }
      return absl::OkStatus();
    }));
    return cpu::EmitForLoop(&b, b.getInt64(1), b.getInt64(length), "insert", [&](llvm::Value* next) -> absl::Status {
      std::vector<llvm::Value*> x;
      const cpu::IrIndex from = at(next);
      for (size_t t = 0; t < n; ++t) x.push_back(e.LoadElement(outputs[t].base, outputs[t].shape, from));
      b.CreateStore(next, hole);
      llvm::BasicBlock* check = llvm::BasicBlock::Create(c, "shift.check", f);
      llvm::BasicBlock* compare = llvm::BasicBlock::Create(c, "shift.compare", f);
      llvm::BasicBlock* move = llvm::BasicBlock::Create(c, "shift.move", f);
      llvm::BasicBlock* done = llvm::BasicBlock::Create(c, "shift.done", f);
      b.CreateBr(check);
      b.SetInsertPoint(check);
      llvm::Value* j = b.CreateLoad(b.getInt64Ty(), hole);
      b.CreateCondBr(b.CreateICmpSGT(j, b.getInt64(0)), compare, done);
      b.SetInsertPoint(compare);
      llvm::Value* before = b.CreateSub(j, b.getInt64(1));
      const cpu::IrIndex prev_index = at(before);
      std::vector<llvm::Value*> prev, args;
      for (size_t t = 0; t < n; ++t) {
        prev.push_back(e.LoadElement(outputs[t].base, outputs[t].shape, prev_index));
        args.push_back(x[t]);
        args.push_back(prev.back());
      }
      // x goes before its predecessor only when strictly less: equal elements keep their order.
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> less, e.EmitScalarComputation(*hlo->to_apply(), args));
      if (less.size() != 1 || !less[0]->getType()->isIntegerTy(1)) {
        return absl::InvalidArgumentError(absl::StrCat("sort ", hlo->name(), ": the comparator must return pred"));
      }
      b.CreateCondBr(less[0], move, done);
      b.SetInsertPoint(move);
      const cpu::IrIndex to = at(j);
      for (size_t t = 0; t < n; ++t) e.StoreElement(prev[t], outputs[t].base, outputs[t].shape, to);
      b.CreateStore(before, hole);
      b.CreateBr(check);
      b.SetInsertPoint(done);
      const cpu::IrIndex slot = at(b.CreateLoad(b.getInt64Ty(), hole));
      for (size_t t = 0; t < n; ++t) e.StoreElement(x[t], outputs[t].base, outputs[t].shape, slot);
      return absl::OkStatus();
    });
  });
}

// scatter and select-and-scatter: the cpu backend's loops (emit_scatter.cc), run by one
// thread. They are serial on purpose: updates that hit the same element (non-unique indices,
// overlapping windows) combine in the interpreter's order, and the combiner need not commute
// or associate, so no two of them may run at once. indices_are_sorted and unique_indices
// change nothing here. Those loops also fill the outputs from the operands serially; run by a
// kernel of its own the copy would be parallel, which needs the cpu backend to emit the
// update loops apart from the fill (a thread per window would then serve unique_indices).
absl::Status EmitSerialBody(KernelContext& k, const HloInstruction* hlo) {
  llvm::IRBuilder<>& b = *k.b;
  std::vector<cpu::Generator> operands;
  for (int64_t i = 0; i < hlo->operand_count(); ++i) {
    ASSIGN_OR_RETURN(operands.emplace_back(), k.operand(i));
  }
  const std::vector<cpu::SerialOutput> outputs = OutputArrays(k, hlo);
  return EmitIf(&b, b.CreateICmpEQ(GlobalThread(&b), b.getInt64(0)), "serial", [&]() -> absl::Status {
    if (hlo->opcode() == HloOpcode::kScatter) return cpu::EmitScatterLoops(k.elemental, hlo, operands, outputs);
    return cpu::EmitSelectAndScatterLoops(k.elemental, hlo, operands, outputs);
  });
}

}  // namespace gpu
}  // namespace xla
