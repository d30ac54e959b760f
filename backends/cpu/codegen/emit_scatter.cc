// scatter and select-and-scatter: several update windows may write the same output
// element and their combiners need not commute, so both run as one sequential loop nest in
// the interpreter's order (update batch positions row-major, then window positions
// row-major), reading and writing the output buffer in place. The index arithmetic is
// shared (ScatterIndexing, EmitSelectInWindow) with the gpu backend, which orders the same
// work across threads where that cannot change the result.
#include <algorithm>
#include <optional>
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

IrIndex Multi(const std::vector<llvm::Value*>& v) {
  IrIndex index;
  index.multi = v;
  return index;
}

}  // namespace

absl::Status EmitLoopsOver(llvm::IRBuilder<>* b, const std::vector<int64_t>& dims, const char* name,
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

absl::Status EmitScatterFill(ElementalEmitter* e, const std::vector<SerialOutput>& outputs,
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

absl::StatusOr<ScatterIndexing> ScatterIndexing::Make(const HloInstruction* hlo) {
  ScatterIndexing s;
  s.hlo_ = hlo;
  s.n_ = (hlo->operand_count() - 1) / 2;
  if (hlo->opcode() != HloOpcode::kScatter || hlo->operand_count() != 2 * s.n_ + 1 || s.n_ < 1 ||
      hlo->to_apply() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("scatter ", hlo->name(), ": malformed"));
  }
  const auto& dnums = hlo->attrs().scatter_dimension_numbers();
  s.in_shape_ = hlo->operand(0)->shape();
  s.indices_shape_ = hlo->operand(s.n_)->shape();
  s.up_shape_ = hlo->operand(s.n_ + 1)->shape();
  s.rank_ = s.in_shape_.rank();
  s.window_update_dims_ = ToVector(dnums.update_window_dims());
  const std::vector<int64_t> inserted = ToVector(dnums.inserted_window_dims());
  s.batching_ = ToVector(dnums.input_batching_dims());
  const std::vector<int64_t> indices_batching = ToVector(dnums.scatter_indices_batching_dims());
  s.to_operand_ = ToVector(dnums.scatter_dims_to_operand_dims());
  s.vector_dim_ = dnums.index_vector_dim();
  for (int64_t d = 0; d < s.indices_shape_.rank(); ++d) {
    if (d == s.vector_dim_) continue;
    s.indices_batch_dims_.push_back(d);
    s.batch_sizes_.push_back(s.indices_shape_.dimensions(static_cast<int>(d)));
  }
  for (int64_t d = 0; d < s.rank_; ++d) {
    if (!Contains(inserted, d) && !Contains(s.batching_, d)) s.window_dims_.push_back(d);
  }
  for (int64_t d = 0; d < s.up_shape_.rank(); ++d) {
    if (!Contains(s.window_update_dims_, d)) s.scatter_update_dims_.push_back(d);
  }
  for (int64_t d : indices_batching) {
    auto it = std::find(s.indices_batch_dims_.begin(), s.indices_batch_dims_.end(), d);
    if (it == s.indices_batch_dims_.end()) return absl::InvalidArgumentError("scatter: bad indices batching dims");
    s.batching_position_.push_back(it - s.indices_batch_dims_.begin());
  }
  if (s.window_dims_.size() != s.window_update_dims_.size() ||
      s.scatter_update_dims_.size() != s.indices_batch_dims_.size() ||
      s.batching_position_.size() != s.batching_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("scatter ", hlo->name(), ": dimension numbers do not match the shapes"));
  }
  s.window_size_.assign(s.rank_, 1);
  for (size_t k = 0; k < s.window_dims_.size(); ++k) {
    s.window_extent_.push_back(s.up_shape_.dimensions(static_cast<int>(s.window_update_dims_[k])));
    s.window_size_[s.window_dims_[k]] = s.window_extent_.back();
  }
  return s;
}

bool ScatterIndexing::WindowsDisjoint() const {
  for (int64_t d : window_dims_) {
    if (Contains(to_operand_, d)) return false;
  }
  return true;
}

absl::StatusOr<ScatterIndexing::Start> ScatterIndexing::EmitStart(ElementalEmitter* e, const Generator& indices,
                                                                  const std::vector<llvm::Value*>& g) const {
  llvm::IRBuilder<>* b = e->b();
  Start s;
  s.start.assign(rank_, b->getInt64(0));
  IrIndex ii;
  ii.multi.assign(indices_shape_.rank(), nullptr);
  for (size_t j = 0; j < g.size(); ++j) ii.multi[indices_batch_dims_[j]] = g[j];
  for (size_t k = 0; k < to_operand_.size(); ++k) {
    if (vector_dim_ < indices_shape_.rank()) ii.multi[vector_dim_] = b->getInt64(static_cast<int64_t>(k));
    ASSIGN_OR_RETURN(llvm::Value* v, indices(ii));
    s.start[to_operand_[k]] = e->IndexToI64(v, indices_shape_.element_type());
  }
  for (size_t i = 0; i < batching_.size(); ++i) s.start[batching_[i]] = g[batching_position_[i]];
  s.fits = b->getTrue();
  for (int64_t d = 0; d < rank_; ++d) {
    const int64_t hi = in_shape_.dimensions(static_cast<int>(d)) - window_size_[d];
    s.fits = b->CreateAnd(s.fits, b->CreateAnd(b->CreateICmpSGE(s.start[d], b->getInt64(0)),
                                               b->CreateICmpSLE(s.start[d], b->getInt64(hi))));
  }
  return s;
}

IrIndex ScatterIndexing::OutputIndex(llvm::IRBuilder<>* b, const Start& start, const std::vector<llvm::Value*>& w) const {
  std::vector<llvm::Value*> in = start.start;
  for (size_t k = 0; k < w.size(); ++k) in[window_dims_[k]] = b->CreateAdd(start.start[window_dims_[k]], w[k]);
  return Multi(in);
}

IrIndex ScatterIndexing::UpdateIndex(const std::vector<llvm::Value*>& g, const std::vector<llvm::Value*>& w) const {
  std::vector<llvm::Value*> up(up_shape_.rank(), nullptr);
  for (size_t k = 0; k < w.size(); ++k) up[window_update_dims_[k]] = w[k];
  for (size_t j = 0; j < g.size(); ++j) up[scatter_update_dims_[j]] = g[j];
  return Multi(up);
}

absl::Status ScatterIndexing::EmitUpdate(ElementalEmitter* e, const std::vector<Generator>& operands,
                                         const std::vector<SerialOutput>& outputs, const Start& start,
                                         const std::vector<llvm::Value*>& g, const std::vector<llvm::Value*>& w) const {
  const IrIndex in = OutputIndex(e->b(), start, w);
  const IrIndex update = UpdateIndex(g, w);
  std::vector<llvm::Value*> args;
  for (int64_t i = 0; i < n_; ++i) args.push_back(e->LoadElement(outputs[i].base, outputs[i].shape, in));
  for (int64_t i = 0; i < n_; ++i) {
    ASSIGN_OR_RETURN(llvm::Value* u, operands[n_ + 1 + i](update));
    args.push_back(u);
  }
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> results, e->EmitScalarComputation(*hlo_->to_apply(), args));
  if (static_cast<int64_t>(results.size()) != n_ || static_cast<int64_t>(outputs.size()) != n_) {
    return absl::InvalidArgumentError(absl::StrCat("scatter ", hlo_->name(), ": combiner arity mismatch"));
  }
  for (int64_t i = 0; i < n_; ++i) e->StoreElement(results[i], outputs[i].base, outputs[i].shape, in);
  return absl::OkStatus();
}

absl::Status EmitScatterUpdates(ElementalEmitter* e, const ScatterIndexing& s, const std::vector<Generator>& operands,
                                const std::vector<SerialOutput>& outputs) {
  llvm::IRBuilder<>* b = e->b();
  return EmitLoopsOver(b, s.batch_sizes(), "sb", [&](const std::vector<llvm::Value*>& g) -> absl::Status {
    ASSIGN_OR_RETURN(const ScatterIndexing::Start start, s.EmitStart(e, operands[s.outputs()], g));
    return EmitIf(b, start.fits, [&]() {
      return EmitLoopsOver(b, s.window_extent(), "sw", [&](const std::vector<llvm::Value*>& w) {
        return s.EmitUpdate(e, operands, outputs, start, g, w);
      });
    });
  });
}

absl::Status EmitScatterLoops(ElementalEmitter* e, const HloInstruction* hlo, const std::vector<Generator>& operands,
                              const std::vector<SerialOutput>& outputs) {
  ASSIGN_OR_RETURN(const ScatterIndexing s, ScatterIndexing::Make(hlo));
  if (static_cast<int64_t>(outputs.size()) != s.outputs()) {
    return absl::InvalidArgumentError(absl::StrCat("scatter ", hlo->name(), ": malformed"));
  }
  RETURN_IF_ERROR(EmitScatterFill(e, outputs, [&](size_t i, const IrIndex& index) { return operands[i](index); }));
  return EmitScatterUpdates(e, s, operands, outputs);
}

absl::Status CheckSelectAndScatter(const HloInstruction* hlo) {
  if (hlo->opcode() != HloOpcode::kSelectAndScatter || hlo->operand_count() != 3 || hlo->select() == nullptr ||
      hlo->scatter() == nullptr || !hlo->shape().IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat("select-and-scatter ", hlo->name(), ": malformed"));
  }
  const int64_t rank = hlo->operand(0)->shape().rank();
  if (hlo->attrs().window().dimensions_size() != rank || hlo->operand(1)->shape().rank() != rank) {
    return absl::InvalidArgumentError(absl::StrCat("select-and-scatter ", hlo->name(), ": window rank differs"));
  }
  return absl::OkStatus();
}

absl::StatusOr<WindowSelection> EmitSelectInWindow(ElementalEmitter* e, const HloInstruction* hlo,
                                                   const Generator& operand, const std::vector<llvm::Value*>& s) {
  llvm::IRBuilder<>* b = e->b();
  const Shape& in_shape = hlo->operand(0)->shape();
  const Window& window = hlo->attrs().window();
  const int64_t rank = in_shape.rank();
  const PrimitiveType type = in_shape.element_type();
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  llvm::AllocaInst* have = entry.CreateAlloca(b->getInt1Ty());
  llvm::AllocaInst* selected_value = entry.CreateAlloca(e->RegisterType(type));
  std::vector<llvm::AllocaInst*> selected;
  for (int64_t d = 0; d < rank; ++d) selected.push_back(entry.CreateAlloca(b->getInt64Ty()));
  std::vector<int64_t> dims, sizes;
  for (int64_t d = 0; d < rank; ++d) {
    dims.push_back(d);
    sizes.push_back(in_shape.dimensions(static_cast<int>(d)));
  }
  b->CreateStore(b->getFalse(), have);
  RETURN_IF_ERROR(EmitWindowLoops(b, window, dims, s, sizes, "sw",
                                  [&](const std::vector<llvm::Value*>&, const std::vector<llvm::Value*>& pos,
                                      llvm::Value* valid) -> absl::Status {
    return EmitIf(b, valid, [&]() -> absl::Status {
      ASSIGN_OR_RETURN(llvm::Value* v, operand(Multi(pos)));
      llvm::Value* had = b->CreateLoad(b->getInt1Ty(), have);
      // (Before the first selection the slot holds nothing: compare v with itself.)
      llvm::Value* current = b->CreateSelect(had, b->CreateLoad(e->RegisterType(type), selected_value), v);
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
  WindowSelection result;
  result.have = b->CreateLoad(b->getInt1Ty(), have);
  for (int64_t d = 0; d < rank; ++d) result.position.push_back(b->CreateLoad(b->getInt64Ty(), selected[d]));
  return result;
}

absl::Status EmitSelectAndScatterUpdates(ElementalEmitter* e, const HloInstruction* hlo,
                                         const std::vector<Generator>& operands, const SerialOutput& out) {
  llvm::IRBuilder<>* b = e->b();
  if (ShapeUtil::ElementsIn(hlo->operand(0)->shape()) == 0) return absl::OkStatus();
  const Shape& source_shape = hlo->operand(1)->shape();
  std::vector<int64_t> source_dims(source_shape.dimensions().begin(), source_shape.dimensions().end());
  return EmitLoopsOver(b, source_dims, "ss", [&](const std::vector<llvm::Value*>& s) -> absl::Status {
    ASSIGN_OR_RETURN(const WindowSelection selection, EmitSelectInWindow(e, hlo, operands[0], s));
    return EmitIf(b, selection.have, [&]() -> absl::Status {
      ASSIGN_OR_RETURN(llvm::Value* src, operands[1](Multi(s)));
      const IrIndex target = Multi(selection.position);
      llvm::Value* old = e->LoadElement(out.base, out.shape, target);
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> r, e->EmitScalarComputation(*hlo->scatter(), {src, old}));
      if (r.size() != 1) return absl::InvalidArgumentError("scatter must return one value");
      e->StoreElement(r[0], out.base, out.shape, target);
      return absl::OkStatus();
    });
  });
}

absl::Status EmitSelectAndScatterLoops(ElementalEmitter* e, const HloInstruction* hlo,
                                       const std::vector<Generator>& operands, const std::vector<SerialOutput>& outputs) {
  RETURN_IF_ERROR(CheckSelectAndScatter(hlo));
  if (outputs.size() != 1) return absl::InvalidArgumentError(absl::StrCat("select-and-scatter ", hlo->name(), ": malformed"));
  RETURN_IF_ERROR(EmitScatterFill(e, outputs, [&](size_t, const IrIndex&) { return operands[2](IrIndex{}); }));
  return EmitSelectAndScatterUpdates(e, hlo, operands, outputs[0]);
}

std::optional<InnerSelectSplit> SplitInnerSelect(const HloInstruction& hlo, const Shape& out) {
  if (!CheckSelectAndScatter(&hlo).ok()) return std::nullopt;
  const Shape& operand = hlo.operand(0)->shape();
  const Shape& source = hlo.operand(1)->shape();
  const Window& window = hlo.attrs().window();
  if (!out.IsArray() || !out.has_layout() || out.rank() == 0 || out.dimensions() != operand.dimensions() ||
      ShapeUtil::ElementsIn(operand) == 0 || ShapeUtil::ElementsIn(source) == 0) {
    return std::nullopt;
  }
  const auto trivial = [&](int64_t d) { return IsTrivialWindowDimension(window.dimensions(static_cast<int>(d))); };
  InnerSelectSplit split;
  split.lane_dim = out.layout().minor_to_major(0);
  const int64_t lanes = out.dimensions(static_cast<int>(split.lane_dim));
  if (!trivial(split.lane_dim) || lanes < 8) return std::nullopt;
  for (int64_t d = 0; d < out.rank(); ++d) {
    if (d == split.lane_dim) continue;
    if (trivial(d)) {
      split.fixed_dims.push_back(d);
      split.fixed *= out.dimensions(static_cast<int>(d));
    } else {
      if (window.dimensions(static_cast<int>(d)).size() < 1) return std::nullopt;
      split.window_dims.push_back(d);
    }
  }
  if (split.window_dims.empty()) return std::nullopt;
  // A lane keeps its selection as one row-major window index: the window must count in 63 bits.
  double positions = 1;
  for (const int64_t d : split.window_dims) positions *= static_cast<double>(window.dimensions(static_cast<int>(d)).size());
  if (positions > 0x1p62) return std::nullopt;
  split.chunks = (lanes + kSelectLanes - 1) / kSelectLanes;
  split.lanes = (lanes + split.chunks - 1) / split.chunks;  // chunks of nearly equal size
  return split;
}

absl::Status EmitInnerSelectRange(ElementalEmitter* e, const HloInstruction* hlo, const InnerSelectSplit& split,
                                  const std::vector<Generator>& operands, const SerialOutput& out, llvm::Value* begin,
                                  llvm::Value* end) {
  llvm::IRBuilder<>* b = e->b();
  const Shape& operand = hlo->operand(0)->shape();
  const Shape& source = hlo->operand(1)->shape();
  const Window& window = hlo->attrs().window();
  const PrimitiveType type = operand.element_type();
  const int64_t rank = operand.rank(), total = operand.dimensions(static_cast<int>(split.lane_dim));
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  // Each lane's selection so far: its value and its window position (row-major over window_dims).
  llvm::AllocaInst* values = entry.CreateAlloca(llvm::ArrayType::get(e->RegisterType(type), kSelectLanes));
  llvm::AllocaInst* positions = entry.CreateAlloca(llvm::ArrayType::get(b->getInt64Ty(), kSelectLanes));
  llvm::AllocaInst* have = entry.CreateAlloca(b->getInt1Ty());
  const auto lane_slot = [&](llvm::AllocaInst* array, llvm::Value* lane) {
    return b->CreateInBoundsGEP(array->getAllocatedType(), array, {b->getInt64(0), lane});
  };
  std::vector<int64_t> operand_extent, source_extent, window_sizes;
  for (const int64_t d : split.window_dims) {
    operand_extent.push_back(operand.dimensions(static_cast<int>(d)));
    source_extent.push_back(source.dimensions(static_cast<int>(d)));
    window_sizes.push_back(window.dimensions(static_cast<int>(d)).size());
  }
  e->ClearCache();
  absl::Status status = EmitForLoop(b, begin, end, "ss.item", [&](llvm::Value* item) -> absl::Status {
    std::vector<llvm::Value*> base(static_cast<size_t>(rank), b->getInt64(0));
    llvm::Value* chunk = b->CreateURem(item, b->getInt64(split.chunks));
    llvm::Value* rest = b->CreateUDiv(item, b->getInt64(split.chunks));
    for (auto d = split.fixed_dims.rbegin(); d != split.fixed_dims.rend(); ++d) {
      const int64_t size = operand.dimensions(static_cast<int>(*d));
      base[static_cast<size_t>(*d)] = b->CreateURem(rest, b->getInt64(size));
      rest = b->CreateUDiv(rest, b->getInt64(size));
    }
    llvm::Value* first = b->CreateMul(chunk, b->getInt64(split.lanes));
    llvm::Value* last = b->CreateAdd(first, b->getInt64(split.lanes));
    last = b->CreateSelect(b->CreateICmpULT(last, b->getInt64(total)), last, b->getInt64(total));
    llvm::Value* count = b->CreateSub(last, first);
    // body(lane, index) for the item's lanes, `at` giving the window dimensions' indices.
    const auto for_lanes = [&](const std::vector<llvm::Value*>& at,
                               const std::function<absl::Status(llvm::Value*, const IrIndex&)>& body) -> absl::Status {
      return EmitForLoop(b, b->getInt64(0), count, "ss.lane", [&](llvm::Value* lane) -> absl::Status {
        std::vector<llvm::Value*> index = base;
        for (size_t j = 0; j < split.window_dims.size(); ++j) index[static_cast<size_t>(split.window_dims[j])] = at[j];
        index[static_cast<size_t>(split.lane_dim)] = b->CreateAdd(first, lane);
        return body(lane, Multi(index));
      });
    };
    ASSIGN_OR_RETURN(llvm::Value* init, operands[2](IrIndex{}));
    RETURN_IF_ERROR(EmitLoopsOver(b, operand_extent, "ss.fill", [&](const std::vector<llvm::Value*>& at) {
      return for_lanes(at, [&](llvm::Value*, const IrIndex& index) -> absl::Status {
        e->StoreElement(init, out.base, out.shape, index);
        return absl::OkStatus();
      });
    }));
    return EmitLoopsOver(b, source_extent, "ss.source", [&](const std::vector<llvm::Value*>& s) -> absl::Status {
      b->CreateStore(b->getFalse(), have);
      // The window positions in row-major order; `linear` counts them.
      RETURN_IF_ERROR(EmitWindowLoops(b, window, split.window_dims, s, operand_extent, "ss.win",
                                      [&](const std::vector<llvm::Value*>& k, const std::vector<llvm::Value*>& pos,
                                          llvm::Value* valid) -> absl::Status {
        llvm::Value* linear = b->getInt64(0);
        for (size_t j = 0; j < split.window_dims.size(); ++j) {
          linear = b->CreateAdd(b->CreateMul(linear, b->getInt64(window_sizes[j])), k[j]);
        }
        return EmitIf(b, valid, [&]() -> absl::Status {
          llvm::Value* had = b->CreateLoad(b->getInt1Ty(), have);
          RETURN_IF_ERROR(for_lanes(pos, [&](llvm::Value* lane, const IrIndex& index) -> absl::Status {
            ASSIGN_OR_RETURN(llvm::Value* v, operands[0](index));
            llvm::Value* value_slot = lane_slot(values, lane);
            llvm::Value* position_slot = lane_slot(positions, lane);
            // (Before the first selection the slot holds nothing: compare v with itself.)
            llvm::Value* current = b->CreateSelect(had, b->CreateLoad(e->RegisterType(type), value_slot), v);
            ASSIGN_OR_RETURN(std::vector<llvm::Value*> keep, e->EmitScalarComputation(*hlo->select(), {current, v}));
            if (keep.size() != 1) return absl::InvalidArgumentError("select must return one pred");
            llvm::Value* take = b->CreateOr(b->CreateNot(had), b->CreateNot(keep[0]));
            b->CreateStore(b->CreateSelect(take, v, current), value_slot);
            b->CreateStore(b->CreateSelect(take, linear, b->CreateLoad(b->getInt64Ty(), position_slot)), position_slot);
            return absl::OkStatus();
          }));
          b->CreateStore(b->getTrue(), have);
          return absl::OkStatus();
        });
      }));
      // Each lane's source scattered to the element its window selected.
      return EmitIf(b, b->CreateLoad(b->getInt1Ty(), have), [&]() -> absl::Status {
        return for_lanes(s, [&](llvm::Value* lane, const IrIndex& from) -> absl::Status {
          llvm::Value* linear = b->CreateLoad(b->getInt64Ty(), lane_slot(positions, lane));
          IrIndex target = from;
          for (size_t j = split.window_dims.size(); j-- > 0;) {  // the selected window position, on the operand
            llvm::Value* k = b->CreateURem(linear, b->getInt64(window_sizes[j]));
            linear = b->CreateUDiv(linear, b->getInt64(window_sizes[j]));
            target.multi[static_cast<size_t>(split.window_dims[j])] =
                EmitWindowPosition(b, s[j], k, window.dimensions(static_cast<int>(split.window_dims[j])), operand_extent[j])
                    .position;
          }
          ASSIGN_OR_RETURN(llvm::Value* src, operands[1](from));
          llvm::Value* old = e->LoadElement(out.base, out.shape, target);
          ASSIGN_OR_RETURN(std::vector<llvm::Value*> r, e->EmitScalarComputation(*hlo->scatter(), {src, old}));
          if (r.size() != 1) return absl::InvalidArgumentError("scatter must return one value");
          e->StoreElement(r[0], out.base, out.shape, target);
          return absl::OkStatus();
        });
      });
    });
  });
  e->ClearCache();
  return status;
}

}  // namespace cpu
}  // namespace xla
