// The reduce-window generator (variadic too): each output element starts from the init
// values and applies the reducer to the window's elements in row-major window order, as
// the interpreter does. A window position on padding or on a base-dilation hole is skipped
// (the reducer is not called: it may be any computation), by a branch around the call.
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Constants.h"

namespace xla {
namespace cpu {

absl::StatusOr<Generator> ElementalEmitter::MakeReduceWindowGenerator(const HloInstruction* hlo,
                                                                      const OperandGenerator& operand) {
  const int64_t n = hlo->operand_count() / 2;
  if (n == 0 || hlo->operand_count() != 2 * n || hlo->to_apply() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("reduce-window ", hlo->name(), ": malformed"));
  }
  const Shape input = hlo->operand(0)->shape();
  const Window& window = hlo->attrs().window();
  if (!input.IsArray() || window.dimensions_size() != input.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("reduce-window ", hlo->name(), ": window rank differs"));
  }
  struct Dim {
    int64_t size, stride, pad_low, window_dilation, base_dilation, input;
  };
  std::vector<Dim> dims;
  for (int d = 0; d < input.rank(); ++d) {
    const WindowDimension& w = window.dimensions(d);
    dims.push_back(Dim{w.size(), w.stride() == 0 ? 1 : w.stride(), w.padding_low(),
                       w.window_dilation() == 0 ? 1 : w.window_dilation(), w.base_dilation() == 0 ? 1 : w.base_dilation(),
                       input.dimensions(d)});
  }
  std::vector<Generator> inputs, inits;
  std::vector<PrimitiveType> types;
  for (int64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(Generator g, operand(i));
    ASSIGN_OR_RETURN(Generator init, operand(n + i));
    inputs.push_back(std::move(g));
    inits.push_back(std::move(init));
    types.push_back(hlo->operand(i)->shape().element_type());
  }
  const HloComputation* reducer = hlo->to_apply();
  bool empty = ShapeUtil::ElementsIn(input) == 0;
  for (const Dim& d : dims) empty = empty || d.size == 0;
  return Generator([=](const IrIndex& out) -> absl::StatusOr<llvm::Value*> {
    llvm::Function* f = b_->GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    std::vector<llvm::AllocaInst*> accumulators;
    for (int64_t i = 0; i < n; ++i) {
      accumulators.push_back(entry.CreateAlloca(RegisterType(types[i])));
      ASSIGN_OR_RETURN(llvm::Value* init, inits[i](IrIndex{}));
      b_->CreateStore(init, accumulators.back());
    }
    const int64_t rank = static_cast<int64_t>(dims.size());
    IrIndex in;
    in.multi.assign(rank, nullptr);
    std::vector<llvm::Value*> inside(rank + 1, nullptr);
    inside[0] = b_->getTrue();
    std::function<absl::Status(int64_t)> level = [&](int64_t d) -> absl::Status {
      if (d == rank) {
        llvm::LLVMContext& c = b_->getContext();
        llvm::Function* fn = b_->GetInsertBlock()->getParent();
        llvm::BasicBlock* apply = llvm::BasicBlock::Create(c, "rw.apply", fn);
        llvm::BasicBlock* cont = llvm::BasicBlock::Create(c, "rw.cont", fn);
        b_->CreateCondBr(inside[rank], apply, cont);
        b_->SetInsertPoint(apply);
        std::vector<llvm::Value*> args;
        for (int64_t i = 0; i < n; ++i) args.push_back(b_->CreateLoad(RegisterType(types[i]), accumulators[i]));
        for (int64_t i = 0; i < n; ++i) {
          ASSIGN_OR_RETURN(llvm::Value* v, inputs[i](in));
          args.push_back(v);
        }
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> results, EmitScalarComputation(*reducer, args));
        if (static_cast<int64_t>(results.size()) != n) {
          return absl::InvalidArgumentError(absl::StrCat("reduce-window ", hlo->name(), ": reducer arity mismatch"));
        }
        for (int64_t i = 0; i < n; ++i) b_->CreateStore(results[i], accumulators[i]);
        b_->CreateBr(cont);
        b_->SetInsertPoint(cont);
        return absl::OkStatus();
      }
      const Dim& w = dims[d];
      return EmitForLoop(b_, I64(0), I64(w.size), "win", [&](llvm::Value* k) -> absl::Status {
        llvm::Value* pos = b_->CreateAdd(b_->CreateMul(out.multi[d], I64(w.stride)),
                                         b_->CreateSub(b_->CreateMul(k, I64(w.window_dilation)), I64(w.pad_low)));
        llvm::Value* ok = inside[d];
        if (w.base_dilation != 1) {
          ok = b_->CreateAnd(ok, b_->CreateICmpEQ(b_->CreateSRem(pos, I64(w.base_dilation)), I64(0)));
          pos = b_->CreateSDiv(pos, I64(w.base_dilation));
        }
        inside[d + 1] = b_->CreateAnd(ok, b_->CreateAnd(b_->CreateICmpSGE(pos, I64(0)), b_->CreateICmpSLT(pos, I64(w.input))));
        in.multi[d] = pos;
        return level(d + 1);
      });
    };
    if (!empty) {
      ClearCache();
      RETURN_IF_ERROR(level(0));
      ClearCache();
    }
    if (n == 1) return static_cast<llvm::Value*>(b_->CreateLoad(RegisterType(types[0]), accumulators[0]));
    std::vector<llvm::Type*> member_types;
    for (int64_t i = 0; i < n; ++i) member_types.push_back(RegisterType(types[i]));
    llvm::Value* agg = llvm::UndefValue::get(llvm::StructType::get(b_->getContext(), member_types));
    for (int64_t i = 0; i < n; ++i) {
      agg = b_->CreateInsertValue(agg, b_->CreateLoad(RegisterType(types[i]), accumulators[i]),
                                  {static_cast<unsigned>(i)});
    }
    return agg;
  });
}

}  // namespace cpu
}  // namespace xla
