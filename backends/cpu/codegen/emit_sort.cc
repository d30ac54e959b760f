// sort: the kernel copies the operands into the outputs, then calls __xla_cpu_sort
// (runtime/sort.cc) on the outputs with the HLO comparator compiled to its own function,
// `i32 comparator(ptr* elements)`.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

// Emits the comparator of `hlo` over `types` (one per operand) into `module`.
absl::StatusOr<llvm::Function*> EmitComparator(ElementalEmitter* e, llvm::Module* module, const HloInstruction* hlo,
                                               const std::vector<PrimitiveType>& types) {
  llvm::IRBuilder<>* b = e->b();
  llvm::LLVMContext& c = module->getContext();
  llvm::PointerType* ptr = llvm::PointerType::get(c, 0);
  auto* type = llvm::FunctionType::get(b->getInt32Ty(), {ptr}, false);
  llvm::Function* f = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                             absl::StrCat("comparator.", hlo->name()), module);
  llvm::IRBuilderBase::InsertPoint saved = b->saveIP();
  b->SetInsertPoint(llvm::BasicBlock::Create(c, "entry", f));
  absl::Status status = [&]() -> absl::Status {
    std::vector<llvm::Value*> args;
    for (size_t k = 0; k < 2 * types.size(); ++k) {
      Shape scalar = ShapeUtil::MakeShape(types[k / 2], {});
      ShapeUtil::SetDefaultLayoutsIfMissing(&scalar);
      llvm::Value* p = b->CreateLoad(ptr, b->CreateInBoundsGEP(ptr, f->getArg(0), b->getInt64(static_cast<int64_t>(k))));
      args.push_back(e->LoadElement(p, scalar, IrIndex{{}, b->getInt64(0), &scalar}));
    }
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> result, e->EmitScalarComputation(*hlo->to_apply(), args));
    if (result.size() != 1 || !result[0]->getType()->isIntegerTy(1)) {
      return absl::InvalidArgumentError(absl::StrCat("sort ", hlo->name(), ": the comparator must return pred"));
    }
    b->CreateRet(b->CreateZExt(result[0], b->getInt32Ty()));
    return absl::OkStatus();
  }();
  b->restoreIP(saved);
  if (!status.ok()) {
    f->eraseFromParent();
    return status;
  }
  return f;
}

}  // namespace

RowsAround StorageRowsAround(const Shape& shape, int64_t dim) {
  RowsAround rows;
  bool minor = true;
  for (int64_t d : shape.layout().minor_to_major()) {
    if (d == dim) {
      minor = false;
      continue;
    }
    (minor ? rows.inner : rows.outer) *= shape.dimensions(static_cast<int>(d));
  }
  return rows;
}

absl::Status EmitSortLoops(ElementalEmitter* e, const HloInstruction* hlo, const std::vector<Generator>& operands,
                           const std::vector<SerialOutput>& outputs) {
  llvm::IRBuilder<>* b = e->b();
  const int64_t n = static_cast<int64_t>(outputs.size());
  if (hlo->operand_count() != n || hlo->to_apply() == nullptr || hlo->dimensions().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("sort ", hlo->name(), ": malformed"));
  }
  const Shape& shape = outputs[0].shape;
  for (const SerialOutput& out : outputs) {
    if (out.shape.dimensions() != shape.dimensions() ||
        out.shape.layout().minor_to_major() != shape.layout().minor_to_major()) {
      return absl::UnimplementedError(absl::StrCat("cpu backend: sort ", hlo->name(), " outputs differ in layout"));
    }
  }
  // Copy the operands into the outputs (sorted in place below).
  if (ShapeUtil::ElementsIn(shape) == 0) return absl::OkStatus();
  const int64_t outer_dim = shape.rank() == 0 ? 1 : shape.dimensions(static_cast<int>(shape.layout().minor_to_major().back()));
  RETURN_IF_ERROR(EmitLoopNest(b, shape, b->getInt64(0), b->getInt64(outer_dim), [&](const IrIndex& index) -> absl::Status {
    for (int64_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(llvm::Value* v, operands[i](index));
      e->StoreElement(v, outputs[i].base, outputs[i].shape, index);
    }
    return absl::OkStatus();
  }));
  if (shape.rank() == 0) return absl::OkStatus();
  const int64_t dim = hlo->dimensions(0);
  const RowsAround rows_around = StorageRowsAround(shape, dim);
  const int64_t inner = rows_around.inner, outer = rows_around.outer;
  std::vector<PrimitiveType> types;
  for (const SerialOutput& out : outputs) types.push_back(out.shape.element_type());
  llvm::Module* module = b->GetInsertBlock()->getModule();
  ASSIGN_OR_RETURN(llvm::Function* comparator, EmitComparator(e, module, hlo, types));
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  llvm::PointerType* ptr = llvm::PointerType::get(module->getContext(), 0);
  llvm::AllocaInst* data = entry.CreateAlloca(ptr, b->getInt64(n));
  llvm::AllocaInst* widths = entry.CreateAlloca(b->getInt64Ty(), b->getInt64(n));
  for (int64_t i = 0; i < n; ++i) {
    b->CreateStore(outputs[i].base, b->CreateInBoundsGEP(ptr, data, b->getInt64(i)));
    b->CreateStore(b->getInt64(primitive_util::ByteWidth(types[i])),
                   b->CreateInBoundsGEP(b->getInt64Ty(), widths, b->getInt64(i)));
  }
  llvm::Type* i64 = b->getInt64Ty();
  llvm::FunctionCallee sort = module->getOrInsertFunction(
      "__xla_cpu_sort", llvm::FunctionType::get(b->getVoidTy(), {i64, i64, i64, i64, ptr, ptr, ptr}, false));
  b->CreateCall(sort, {b->getInt64(outer), b->getInt64(shape.dimensions(static_cast<int>(dim))), b->getInt64(inner),
                       b->getInt64(n), data, widths, comparator});
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace xla
