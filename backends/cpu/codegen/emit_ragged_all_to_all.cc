// ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets, recv_sizes) with
// its one peer (device 0 itself), as the interpreter: rows [input_offsets[0], +send_sizes[0])
// of the input land at row output_offsets[0] of the output; every other output row keeps its
// value. Rows are compared as row-major element sequences, so input and output need equal
// row sizes, not equal minor dims. The entry function checks the offsets and sizes at run
// time before this kernel (ir_emitter.cc), so every row read here exists.
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {

absl::StatusOr<Generator> ElementalEmitter::MakeRaggedAllToAllGenerator(const HloInstruction* hlo,
                                                                        const OperandGenerator& operand) {
  if (hlo->operand_count() != 6) return absl::InvalidArgumentError(absl::StrCat(hlo->name(), " expects 6 operands"));
  const Shape in_shape = hlo->operand(0)->shape(), out_shape = hlo->operand(1)->shape();
  for (int i = 2; i < 6; ++i) {
    const Shape& s = hlo->operand(i)->shape();
    if (!s.IsArray() || !primitive_util::IsIntegralType(s.element_type())) {
      return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": offsets and sizes must be integer arrays"));
    }
    const int64_t entries = ShapeUtil::ElementsIn(s);
    if (entries != 1) {
      return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": offsets and sizes have ", entries,
                                                     " entries (one per peer): the module needs ", entries,
                                                     " devices; the cpu backend has one"));
    }
  }
  if (!in_shape.IsArray() || !out_shape.IsArray() || in_shape.rank() < 1 || out_shape.rank() != in_shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": input and output must be arrays of the same rank >= 1"));
  }
  if (in_shape.element_type() != out_shape.element_type() || hlo->shape().element_type() != out_shape.element_type() ||
      !ShapeUtil::Compatible(hlo->shape(), out_shape)) {
    return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": input, output and result must have one element type and the output's shape"));
  }
  int64_t in_row = 1, out_row = 1;
  for (int64_t d = 1; d < in_shape.rank(); ++d) in_row *= in_shape.dimensions(d);
  for (int64_t d = 1; d < out_shape.rank(); ++d) out_row *= out_shape.dimensions(d);
  if (in_shape.dimensions(0) > 0 && out_shape.dimensions(0) > 0 && in_row != out_row) {
    return absl::InvalidArgumentError(absl::StrCat(hlo->name(), ": input and output rows must have the same size"));
  }
  ASSIGN_OR_RETURN(Generator input, operand(0));
  ASSIGN_OR_RETURN(Generator output, operand(1));
  ASSIGN_OR_RETURN(Generator input_offsets, operand(2));
  ASSIGN_OR_RETURN(Generator send_sizes, operand(3));
  ASSIGN_OR_RETURN(Generator output_offsets, operand(4));
  const PrimitiveType type = out_shape.element_type();
  auto scalar = [this, hlo](const Generator& g, int i) -> absl::StatusOr<llvm::Value*> {
    const Shape& s = hlo->operand(i)->shape();
    IrIndex first;
    first.multi.assign(s.rank(), I64(0));
    ASSIGN_OR_RETURN(llvm::Value* v, g(first));
    return IndexToI64(v, s.element_type());
  };
  return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    ASSIGN_OR_RETURN(llvm::Value* in_offset, scalar(input_offsets, 2));
    ASSIGN_OR_RETURN(llvm::Value* send, scalar(send_sizes, 3));
    ASSIGN_OR_RETURN(llvm::Value* out_offset, scalar(output_offsets, 4));
    llvm::Value* r = index.multi[0];
    llvm::Value* received = b_->CreateAnd(b_->CreateICmpSLE(out_offset, r),
                                          b_->CreateICmpSLT(r, b_->CreateAdd(out_offset, send)));
    llvm::Function* f = b_->GetInsertBlock()->getParent();
    llvm::LLVMContext& ctx = b_->getContext();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    llvm::AllocaInst* value = entry.CreateAlloca(RegisterType(type));
    llvm::BasicBlock* from_input = llvm::BasicBlock::Create(ctx, "ragged.input", f);
    llvm::BasicBlock* from_output = llvm::BasicBlock::Create(ctx, "ragged.output", f);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx, "ragged.done", f);
    b_->CreateCondBr(received, from_input, from_output);

    b_->SetInsertPoint(from_input);
    ClearCache();
    // Position within the row over the output's minor dims, then the same position over
    // the input's.
    llvm::Value* within = I64(0);
    for (int64_t d = 1; d < out_shape.rank(); ++d) {
      within = b_->CreateAdd(b_->CreateMul(within, I64(out_shape.dimensions(d))), index.multi[d]);
    }
    IrIndex in;
    in.multi.assign(in_shape.rank(), nullptr);
    in.multi[0] = b_->CreateAdd(b_->CreateSub(r, out_offset), in_offset);
    for (int64_t d = in_shape.rank() - 1; d >= 1; --d) {
      const int64_t size = in_shape.dimensions(d);
      in.multi[d] = d == 1 ? within : b_->CreateURem(within, I64(size));
      if (d > 1) within = b_->CreateUDiv(within, I64(size));
    }
    ASSIGN_OR_RETURN(llvm::Value* received_value, input(in));
    b_->CreateStore(received_value, value);
    b_->CreateBr(done);
    ClearCache();

    b_->SetInsertPoint(from_output);
    ASSIGN_OR_RETURN(llvm::Value* kept, output(index));
    b_->CreateStore(kept, value);
    b_->CreateBr(done);
    ClearCache();

    b_->SetInsertPoint(done);
    return static_cast<llvm::Value*>(b_->CreateLoad(RegisterType(type), value));
  });
}

}  // namespace cpu
}  // namespace xla
