// scatter and select-and-scatter: several update windows may write the same output
// element and their combiners need not commute, so both run as one sequential loop nest in
// the interpreter's order (update batch positions row-major, then window positions
// row-major), reading and writing the output buffer in place.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

bool Contains(const std::vector<int64_t>& dims, int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); }

template <typename Repeated>
std::vector<int64_t> ToVector(const Repeated& field) {
  return std::vector<int64_t>(field.begin(), field.end());
}

// Nested counted loops over `dims` (row-major, outermost first); body gets the indices.
absl::Status EmitNest(llvm::IRBuilder<>* b, const std::vector<int64_t>& dims, const char* name,
                      const std::function<absl::Status(const std::vector<llvm::Value*>&)>& body) {
  std::vector<llvm::Value*> index(dims.size(), nullptr);
  std::function<absl::Status(size_t)> level = [&](size_t d) -> absl::Status {
    if (d == dims.size()) return body(index);
    return EmitForLoop(b, b->getInt64(0), b->getInt64(dims[d]), name, [&](llvm::Value* i) {
      index[d] = i;
      return level(d + 1);
    });
  };
  return level(0);
}

// Runs `then` when `condition` holds, then continues after it.
absl::Status EmitIf(llvm::IRBuilder<>* b, llvm::Value* condition, const std::function<absl::Status()>& then) {
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::BasicBlock* yes = llvm::BasicBlock::Create(b->getContext(), "if.then", f);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(b->getContext(), "if.cont", f);
  b->CreateCondBr(condition, yes, cont);
  b->SetInsertPoint(yes);
  RETURN_IF_ERROR(then());
  b->CreateBr(cont);
  b->SetInsertPoint(cont);
  return absl::OkStatus();
}

// output[i] = value_i(index) over the whole output.
absl::Status EmitFill(ElementalEmitter* e, const std::vector<SerialOutput>& outputs,
                      const std::function<absl::StatusOr<llvm::Value*>(size_t, const IrIndex&)>& value) {
  llvm::IRBuilder<>* b = e->b();
  const Shape& shape = outputs[0].shape;
  const int64_t outer = shape.rank() == 0 ? 1 : shape.dimensions(static_cast<int>(shape.layout().minor_to_major().back()));
  if (ShapeUtil::ElementsIn(shape) == 0) return absl::OkStatus();
  return EmitLoopNest(b, shape, b->getInt64(0), b->getInt64(outer), [&](const IrIndex& index) -> absl::Status {
    for (size_t i = 0; i < outputs.size(); ++i) {
      ASSIGN_OR_RETURN(llvm::Value* v, value(i, index));
      e->StoreElement(v, outputs[i].base, outputs[i].shape, index);
    }
    return absl::OkStatus();
  });
}

IrIndex Multi(const std::vector<llvm::Value*>& v) {
  IrIndex index;
  index.multi = v;
  return index;
}

}  // namespace

absl::Status EmitScatterLoops(ElementalEmitter* e, const HloInstruction* hlo, const std::vector<Generator>& operands,
                              const std::vector<SerialOutput>& outputs) {
  llvm::IRBuilder<>* b = e->b();
  const int64_t n = static_cast<int64_t>(outputs.size());
  if (hlo->operand_count() != 2 * n + 1 || hlo->to_apply() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("scatter ", hlo->name(), ": malformed"));
  }
  const auto& dnums = hlo->attrs().scatter_dimension_numbers();
  const Shape& in_shape = hlo->operand(0)->shape();
  const Shape& indices_shape = hlo->operand(n)->shape();
  const Shape& up_shape = hlo->operand(n + 1)->shape();
  const int64_t rank = in_shape.rank();
  const std::vector<int64_t> window_update_dims = ToVector(dnums.update_window_dims());
  const std::vector<int64_t> inserted = ToVector(dnums.inserted_window_dims());
  const std::vector<int64_t> batching = ToVector(dnums.input_batching_dims());
  const std::vector<int64_t> indices_batching = ToVector(dnums.scatter_indices_batching_dims());
  const std::vector<int64_t> to_operand = ToVector(dnums.scatter_dims_to_operand_dims());
  const int64_t vector_dim = dnums.index_vector_dim();
  std::vector<int64_t> indices_batch_dims, batch_sizes, window_dims, scatter_update_dims;
  for (int64_t d = 0; d < indices_shape.rank(); ++d) {
    if (d == vector_dim) continue;
    indices_batch_dims.push_back(d);
    batch_sizes.push_back(indices_shape.dimensions(static_cast<int>(d)));
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(inserted, d) && !Contains(batching, d)) window_dims.push_back(d);
  }
  for (int64_t d = 0; d < up_shape.rank(); ++d) {
    if (!Contains(window_update_dims, d)) scatter_update_dims.push_back(d);
  }
  std::vector<int64_t> batching_position;
  for (int64_t d : indices_batching) {
    auto it = std::find(indices_batch_dims.begin(), indices_batch_dims.end(), d);
    if (it == indices_batch_dims.end()) return absl::InvalidArgumentError("scatter: bad indices batching dims");
    batching_position.push_back(it - indices_batch_dims.begin());
  }
  if (window_dims.size() != window_update_dims.size() || scatter_update_dims.size() != indices_batch_dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat("scatter ", hlo->name(), ": dimension numbers do not match the shapes"));
  }
  std::vector<int64_t> window_extent, window_size(rank, 1);
  for (size_t k = 0; k < window_dims.size(); ++k) {
    window_extent.push_back(up_shape.dimensions(static_cast<int>(window_update_dims[k])));
    window_size[window_dims[k]] = window_extent.back();
  }
  std::vector<PrimitiveType> types;
  for (int64_t i = 0; i < n; ++i) types.push_back(outputs[i].shape.element_type());
  const PrimitiveType index_type = indices_shape.element_type();
  RETURN_IF_ERROR(EmitFill(e, outputs, [&](size_t i, const IrIndex& index) { return operands[i](index); }));
  return EmitNest(b, batch_sizes, "sb", [&](const std::vector<llvm::Value*>& g) -> absl::Status {
    std::vector<llvm::Value*> start(rank, b->getInt64(0));
    IrIndex ii;
    ii.multi.assign(indices_shape.rank(), nullptr);
    for (size_t j = 0; j < g.size(); ++j) ii.multi[indices_batch_dims[j]] = g[j];
    for (size_t k = 0; k < to_operand.size(); ++k) {
      if (vector_dim < indices_shape.rank()) ii.multi[vector_dim] = b->getInt64(static_cast<int64_t>(k));
      ASSIGN_OR_RETURN(llvm::Value* v, operands[n](ii));
      start[to_operand[k]] = e->IndexToI64(v, index_type);
    }
    for (size_t i = 0; i < batching.size(); ++i) start[batching[i]] = g[batching_position[i]];
    // A window that would leave the operand is skipped entirely (as XLA's evaluator).
    llvm::Value* fits = b->getTrue();
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t hi = in_shape.dimensions(static_cast<int>(d)) - window_size[d];
      fits = b->CreateAnd(fits, b->CreateAnd(b->CreateICmpSGE(start[d], b->getInt64(0)),
                                             b->CreateICmpSLE(start[d], b->getInt64(hi))));
    }
    return EmitIf(b, fits, [&]() {
      return EmitNest(b, window_extent, "sw", [&](const std::vector<llvm::Value*>& w) -> absl::Status {
        std::vector<llvm::Value*> in = start, up(up_shape.rank(), nullptr);
        for (size_t k = 0; k < w.size(); ++k) {
          in[window_dims[k]] = b->CreateAdd(start[window_dims[k]], w[k]);
          up[window_update_dims[k]] = w[k];
        }
        for (size_t j = 0; j < g.size(); ++j) up[scatter_update_dims[j]] = g[j];
        std::vector<llvm::Value*> args;
        for (int64_t i = 0; i < n; ++i) args.push_back(e->LoadElement(outputs[i].base, outputs[i].shape, Multi(in)));
        for (int64_t i = 0; i < n; ++i) {
          ASSIGN_OR_RETURN(llvm::Value* u, operands[n + 1 + i](Multi(up)));
          args.push_back(u);
        }
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> results, e->EmitScalarComputation(*hlo->to_apply(), args));
        if (static_cast<int64_t>(results.size()) != n) {
          return absl::InvalidArgumentError(absl::StrCat("scatter ", hlo->name(), ": combiner arity mismatch"));
        }
        for (int64_t i = 0; i < n; ++i) e->StoreElement(results[i], outputs[i].base, outputs[i].shape, Multi(in));
        return absl::OkStatus();
      });
    });
  });
}

absl::Status EmitSelectAndScatterLoops(ElementalEmitter* e, const HloInstruction* hlo,
                                       const std::vector<Generator>& operands, const std::vector<SerialOutput>& outputs) {
  llvm::IRBuilder<>* b = e->b();
  if (hlo->operand_count() != 3 || outputs.size() != 1 || hlo->select() == nullptr || hlo->scatter() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("select-and-scatter ", hlo->name(), ": malformed"));
  }
  const Shape& in_shape = hlo->operand(0)->shape();
  const Shape& source_shape = hlo->operand(1)->shape();
  const Window& window = hlo->attrs().window();
  const int64_t rank = in_shape.rank();
  if (window.dimensions_size() != rank || source_shape.rank() != rank) {
    return absl::InvalidArgumentError(absl::StrCat("select-and-scatter ", hlo->name(), ": window rank differs"));
  }
  const SerialOutput& out = outputs[0];
  const PrimitiveType type = in_shape.element_type();
  RETURN_IF_ERROR(EmitFill(e, outputs, [&](size_t, const IrIndex&) { return operands[2](IrIndex{}); }));
  if (ShapeUtil::ElementsIn(in_shape) == 0) return absl::OkStatus();
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  llvm::AllocaInst* have = entry.CreateAlloca(b->getInt1Ty());
  llvm::AllocaInst* selected_value = entry.CreateAlloca(e->RegisterType(type));
  std::vector<llvm::AllocaInst*> selected;
  for (int64_t d = 0; d < rank; ++d) selected.push_back(entry.CreateAlloca(b->getInt64Ty()));
  std::vector<int64_t> source_dims(source_shape.dimensions().begin(), source_shape.dimensions().end());
  std::vector<int64_t> window_sizes;
  for (int64_t d = 0; d < rank; ++d) window_sizes.push_back(window.dimensions(static_cast<int>(d)).size());
  return EmitNest(b, source_dims, "ss", [&](const std::vector<llvm::Value*>& s) -> absl::Status {
    b->CreateStore(b->getFalse(), have);
    RETURN_IF_ERROR(EmitNest(b, window_sizes, "sw", [&](const std::vector<llvm::Value*>& k) -> absl::Status {
      llvm::Value* valid = b->getTrue();
      std::vector<llvm::Value*> pos(rank, nullptr);
      for (int64_t d = 0; d < rank; ++d) {
        const WindowDimension& w = window.dimensions(static_cast<int>(d));
        const int64_t stride = w.stride() == 0 ? 1 : w.stride();
        const int64_t wd = w.window_dilation() == 0 ? 1 : w.window_dilation();
        const int64_t bd = w.base_dilation() == 0 ? 1 : w.base_dilation();
        llvm::Value* p = b->CreateAdd(b->CreateMul(s[d], b->getInt64(stride)),
                                      b->CreateSub(b->CreateMul(k[d], b->getInt64(wd)), b->getInt64(w.padding_low())));
        if (bd != 1) {
          valid = b->CreateAnd(valid, b->CreateICmpEQ(b->CreateSRem(p, b->getInt64(bd)), b->getInt64(0)));
          p = b->CreateSDiv(p, b->getInt64(bd));
        }
        valid = b->CreateAnd(valid, b->CreateAnd(b->CreateICmpSGE(p, b->getInt64(0)),
                                                 b->CreateICmpSLT(p, b->getInt64(in_shape.dimensions(static_cast<int>(d))))));
        pos[d] = p;
      }
      return EmitIf(b, valid, [&]() -> absl::Status {
        ASSIGN_OR_RETURN(llvm::Value* v, operands[0](Multi(pos)));
        llvm::Value* had = b->CreateLoad(b->getInt1Ty(), have);
        // (Before the first selection the slot holds nothing: compare v with itself.)
        llvm::Value* current = b->CreateSelect(had, b->CreateLoad(e->RegisterType(type), selected_value), v);
        // The first valid element is selected; a later one replaces the selection when
        // select(selection, element) is false.
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> keep, e->EmitScalarComputation(*hlo->select(), {current, v}));
        if (keep.size() != 1) return absl::InvalidArgumentError("select must return one pred");
        llvm::Value* take = b->CreateOr(b->CreateNot(had), b->CreateNot(keep[0]));
        b->CreateStore(b->CreateSelect(take, v, current), selected_value);
        for (int64_t d = 0; d < rank; ++d) {
          b->CreateStore(b->CreateSelect(take, pos[d], b->CreateLoad(b->getInt64Ty(), selected[d])), selected[d]);
        }
        b->CreateStore(b->getTrue(), have);
        return absl::OkStatus();
      });
    }));
    return EmitIf(b, b->CreateLoad(b->getInt1Ty(), have), [&]() -> absl::Status {
      std::vector<llvm::Value*> target;
      for (int64_t d = 0; d < rank; ++d) target.push_back(b->CreateLoad(b->getInt64Ty(), selected[d]));
      ASSIGN_OR_RETURN(llvm::Value* src, operands[1](Multi(s)));
      llvm::Value* old = e->LoadElement(out.base, out.shape, Multi(target));
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> r, e->EmitScalarComputation(*hlo->scatter(), {src, old}));
      if (r.size() != 1) return absl::InvalidArgumentError("scatter must return one value");
      e->StoreElement(r[0], out.base, out.shape, Multi(target));
      return absl::OkStatus();
    });
  });
}

}  // namespace cpu
}  // namespace xla
