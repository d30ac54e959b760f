// The reduce-window generator (variadic too): each output element starts from the init
// values and applies the reducer to the window's elements in row-major window order, as
// the interpreter does. A window position on padding or on a base-dilation hole is skipped
// (the reducer is not called: it may be any computation), by a branch around the call.
#include <algorithm>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "backends/window_congruence.h"
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
  for (const WindowDimension& w : window.dimensions()) empty = empty || w.size() == 0;
  return Generator([=](const IrIndex& out) -> absl::StatusOr<llvm::Value*> {
    llvm::Function* f = b_->GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    std::vector<llvm::AllocaInst*> accumulators;
    for (int64_t i = 0; i < n; ++i) {
      accumulators.push_back(entry.CreateAlloca(RegisterType(types[i])));
      ASSIGN_OR_RETURN(llvm::Value* init, inits[i](IrIndex{}));
      b_->CreateStore(init, accumulators.back());
    }
    const int64_t rank = input.rank();
    std::vector<int64_t> dims, sizes;
    for (int64_t d = 0; d < rank; ++d) {
      dims.push_back(d);
      sizes.push_back(input.dimensions(static_cast<int>(d)));
    }
    const auto apply = [&](const std::vector<llvm::Value*>&, const std::vector<llvm::Value*>& position,
                           llvm::Value* inside) -> absl::Status {
      llvm::LLVMContext& c = b_->getContext();
      llvm::Function* fn = b_->GetInsertBlock()->getParent();
      llvm::BasicBlock* apply_block = llvm::BasicBlock::Create(c, "rw.apply", fn);
      llvm::BasicBlock* cont = llvm::BasicBlock::Create(c, "rw.cont", fn);
      b_->CreateCondBr(inside, apply_block, cont);
      b_->SetInsertPoint(apply_block);
      IrIndex in;
      in.multi = position;
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
    };
    if (!empty) {
      ClearCache();
      RETURN_IF_ERROR(EmitWindowLoops(b_, window, dims, out.multi, sizes, "win", apply));
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

bool ReassociatingReducer(const HloComputation& reducer) {
  if (reducer.num_parameters() != 2) return false;
  const HloInstruction* root = reducer.root_instruction();
  if (root->operand_count() != 2 || root->operand(0)->opcode() != HloOpcode::kParameter ||
      root->operand(1)->opcode() != HloOpcode::kParameter || root->operand(0) == root->operand(1)) {
    return false;
  }
  switch (root->opcode()) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

std::optional<CumulativeWindow> AsCumulativeWindow(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kReduceWindow || hlo.to_apply() == nullptr) return std::nullopt;
  const int64_t n = hlo.operand_count() / 2;
  if (n == 0 || hlo.operand_count() != 2 * n) return std::nullopt;
  const Shape& input = hlo.operand(0)->shape();
  const Window& window = hlo.attrs().window();
  if (!input.IsArray() || window.dimensions_size() != input.rank()) return std::nullopt;
  for (int64_t i = 0; i < n; ++i) {
    if (!hlo.operand(i)->shape().IsArray() || hlo.operand(i)->shape().dimensions() != input.dimensions()) {
      return std::nullopt;
    }
  }
  std::optional<CumulativeWindow> found;
  for (int d = 0; d < input.rank(); ++d) {
    const WindowDimension& w = window.dimensions(d);
    const int64_t size = input.dimensions(d);
    if (std::max<int64_t>(w.stride(), 1) != 1 || std::max<int64_t>(w.window_dilation(), 1) != 1 ||
        std::max<int64_t>(w.base_dilation(), 1) != 1) {
      return std::nullopt;
    }
    if (w.size() == 1 && w.padding_low() == 0 && w.padding_high() == 0) continue;
    const bool forward = w.padding_low() == size - 1 && w.padding_high() == 0;
    const bool reverse = w.padding_low() == 0 && w.padding_high() == size - 1;
    if (found.has_value() || size < 2 || w.size() != size || !(forward || reverse)) return std::nullopt;
    found = CumulativeWindow{d, reverse};
  }
  if (found.has_value() && found->reverse && (n != 1 || !ReassociatingReducer(*hlo.to_apply()))) return std::nullopt;
  return found;
}

absl::Status EmitCumulativeRow(ElementalEmitter* e, const HloInstruction* hlo, const CumulativeWindow& w,
                               const std::vector<Generator>& operands, const std::vector<SerialOutput>& outputs,
                               std::vector<llvm::Value*> row) {
  llvm::IRBuilder<>* b = e->b();
  const int64_t n = hlo->operand_count() / 2;
  if (static_cast<int64_t>(operands.size()) != 2 * n || static_cast<int64_t>(outputs.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat("reduce-window ", hlo->name(), ": malformed"));
  }
  const int64_t length = hlo->operand(0)->shape().dimensions(static_cast<int>(w.dimension));
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  // The running values: init, then the reducer over elements 0..j (forward); x[j] reduced
  // with the running value of j + 1 (reverse), whose output takes the init on its left.
  std::vector<llvm::AllocaInst*> running;
  std::vector<llvm::Value*> inits;
  for (int64_t i = 0; i < n; ++i) {
    running.push_back(entry.CreateAlloca(e->RegisterType(hlo->operand(i)->shape().element_type())));
    ASSIGN_OR_RETURN(llvm::Value* init, operands[n + i](IrIndex{}));
    inits.push_back(init);
    if (!w.reverse) b->CreateStore(init, running[i]);
  }
  auto load = [&](int64_t i) { return b->CreateLoad(running[i]->getAllocatedType(), running[i]); };
  auto reduce = [&](const std::vector<llvm::Value*>& args) -> absl::StatusOr<std::vector<llvm::Value*>> {
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> r, e->EmitScalarComputation(*hlo->to_apply(), args));
    if (static_cast<int64_t>(r.size()) != n) {
      return absl::InvalidArgumentError(absl::StrCat("reduce-window ", hlo->name(), ": reducer arity mismatch"));
    }
    return r;
  };
  // Scan position k (element k forward, length - 1 - k reverse); the reverse scan's first
  // position starts the suffix, so it is emitted before the loop rather than branched on.
  auto step = [&](llvm::Value* k, bool first) -> absl::Status {
    row[w.dimension] = w.reverse ? b->CreateSub(b->getInt64(length - 1), k) : k;
    IrIndex at;
    at.multi = row;
    std::vector<llvm::Value*> x;
    for (int64_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(llvm::Value* v, operands[i](at));
      x.push_back(v);
    }
    std::vector<llvm::Value*> out;
    if (!w.reverse) {
      std::vector<llvm::Value*> args;
      for (int64_t i = 0; i < n; ++i) args.push_back(load(i));
      args.insert(args.end(), x.begin(), x.end());
      ASSIGN_OR_RETURN(out, reduce(args));
      for (int64_t i = 0; i < n; ++i) b->CreateStore(out[i], running[i]);
    } else {
      // Each earlier element goes on the suffix's left; the output takes the init on its left.
      llvm::Value* suffix = x[0];
      if (!first) {
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> r, reduce({x[0], load(0)}));
        suffix = r[0];
      }
      b->CreateStore(suffix, running[0]);
      ASSIGN_OR_RETURN(out, reduce({inits[0], suffix}));
    }
    for (int64_t i = 0; i < n; ++i) e->StoreElement(out[i], outputs[i].base, outputs[i].shape, at);
    return absl::OkStatus();
  };
  if (!w.reverse) return EmitForLoop(b, b->getInt64(0), b->getInt64(length), "scan", [&](llvm::Value* k) { return step(k, false); });
  RETURN_IF_ERROR(step(b->getInt64(0), true));
  return EmitForLoop(b, b->getInt64(1), b->getInt64(length), "scan", [&](llvm::Value* k) { return step(k, false); });
}

absl::StatusOr<CumulativeWindowSplit> SplitCumulativeWindow(const HloInstruction& hlo, const Shape& out) {
  const std::optional<CumulativeWindow> w = AsCumulativeWindow(hlo);
  if (!w.has_value()) return absl::InternalError(absl::StrCat(hlo.name(), " is not a cumulative reduce-window"));
  const Shape& input = hlo.operand(0)->shape();
  if (!out.IsArray() || out.dimensions() != input.dimensions() || !out.has_layout()) {
    return absl::InvalidArgumentError(absl::StrCat("reduce-window ", hlo.name(), ": output differs from its input"));
  }
  CumulativeWindowSplit split;
  split.window = *w;
  split.length = input.dimensions(static_cast<int>(w->dimension));
  bool inside = true;  // before the scan's dimension in minor-to-major order
  for (const int64_t d : out.layout().minor_to_major()) {
    if (d == w->dimension) {
      inside = false;
      continue;
    }
    (inside ? split.inner_dims : split.outer_dims).push_back(d);
    (inside ? split.inner : split.outer) *= out.dimensions(static_cast<int>(d));
  }
  split.tile = std::min(split.inner, kCumulativeWindowTile);
  split.tiles = split.tile == 0 ? 0 : (split.inner + split.tile - 1) / split.tile;
  return split;
}

namespace {

// Sets row[d] for the dimensions `dims` (minor-most first) of `shape` from `linear`, their
// position in that order.
void Delinearize(llvm::IRBuilder<>* b, const Shape& shape, const std::vector<int64_t>& dims, llvm::Value* linear,
                 std::vector<llvm::Value*>& row) {
  for (size_t j = 0; j < dims.size(); ++j) {
    const int64_t size = shape.dimensions(static_cast<int>(dims[j]));
    row[dims[j]] = j + 1 == dims.size() ? linear : b->CreateURem(linear, b->getInt64(size));
    if (j + 1 < dims.size()) linear = b->CreateUDiv(linear, b->getInt64(size));
  }
}

}  // namespace

absl::Status EmitCumulativeWindowRange(ElementalEmitter* e, const HloInstruction* hlo, const CumulativeWindowSplit& s,
                                       const std::vector<Generator>& operands, const std::vector<SerialOutput>& outputs,
                                       llvm::Value* begin, llvm::Value* end) {
  const CumulativeWindow& w = s.window;
  const int64_t n = hlo->operand_count() / 2;
  if (static_cast<int64_t>(operands.size()) != 2 * n || static_cast<int64_t>(outputs.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat("reduce-window ", hlo->name(), ": malformed"));
  }
  llvm::IRBuilder<>* b = e->b();
  const Shape& shape = outputs[0].shape;
  std::vector<llvm::Value*> row(static_cast<size_t>(shape.rank()), b->getInt64(0));
  e->ClearCache();
  absl::Status status = EmitForLoop(b, begin, end, "scan.item", [&](llvm::Value* item) -> absl::Status {
    if (s.inner == 1) {
      // A row contiguous in memory (or of stride 1 along the scan): its scan.
      Delinearize(b, shape, s.outer_dims, item, row);
      return EmitCumulativeRow(e, hlo, w, operands, outputs, row);
    }
    // A tile of `tile` rows side by side in memory, scanned together: position k of every row
    // of the tile, then position k + 1, each row reading its running value back from its
    // previous output (the loop over the tile vectorizes; each row reduces in its own order,
    // as EmitCumulativeRow's).
    Delinearize(b, shape, s.outer_dims, b->CreateUDiv(item, b->getInt64(s.tiles)), row);
    llvm::Value* first = b->CreateMul(b->CreateURem(item, b->getInt64(s.tiles)), b->getInt64(s.tile));
    llvm::Value* last = b->CreateAdd(first, b->getInt64(s.tile));
    last = b->CreateSelect(b->CreateICmpULT(last, b->getInt64(s.inner)), last, b->getInt64(s.inner));
    auto reduce = [&](const std::vector<llvm::Value*>& args) -> absl::StatusOr<std::vector<llvm::Value*>> {
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> r, e->EmitScalarComputation(*hlo->to_apply(), args));
      if (static_cast<int64_t>(r.size()) != n) {
        return absl::InvalidArgumentError(absl::StrCat("reduce-window ", hlo->name(), ": reducer arity mismatch"));
      }
      return r;
    };
    auto index_at = [&](llvm::Value* i, llvm::Value* position) {
      std::vector<llvm::Value*> at = row;
      Delinearize(b, shape, s.inner_dims, i, at);
      at[w.dimension] = position;
      IrIndex index;
      index.multi = std::move(at);
      return index;
    };
    auto load_output = [&](int64_t j, const IrIndex& at) { return e->LoadElement(outputs[j].base, outputs[j].shape, at); };
    auto store_output = [&](int64_t j, llvm::Value* v, const IrIndex& at) {
      e->StoreElement(v, outputs[j].base, outputs[j].shape, at);
    };
    // Scan step k over the tile; `first`: the step that starts every row.
    auto step = [&](llvm::Value* k, bool starts) -> absl::Status {
      return EmitForLoop(b, first, last, "scan.tile", [&](llvm::Value* i) -> absl::Status {
        llvm::Value* position = w.reverse ? b->CreateSub(b->getInt64(s.length - 1), k) : k;
        const IrIndex at = index_at(i, position);
        std::vector<llvm::Value*> x;
        for (int64_t j = 0; j < n; ++j) {
          ASSIGN_OR_RETURN(llvm::Value* v, operands[j](at));
          x.push_back(v);
        }
        if (!w.reverse) {
          std::vector<llvm::Value*> args;
          const IrIndex previous = starts ? IrIndex{} : index_at(i, b->CreateSub(position, b->getInt64(1)));
          for (int64_t j = 0; j < n; ++j) {
            if (starts) {
              ASSIGN_OR_RETURN(llvm::Value* init, operands[n + j](IrIndex{}));
              args.push_back(init);
            } else {
              args.push_back(load_output(j, previous));
            }
          }
          args.insert(args.end(), x.begin(), x.end());
          ASSIGN_OR_RETURN(std::vector<llvm::Value*> out, reduce(args));
          for (int64_t j = 0; j < n; ++j) store_output(j, out[j], at);
          return absl::OkStatus();
        }
        // Reverse (one operand): the output of position p holds the suffix from p until step
        // p - 1 reads it, which then stores init reduced with it there, as EmitCumulativeRow's.
        if (starts) {
          store_output(0, x[0], at);
          return absl::OkStatus();
        }
        const IrIndex next = index_at(i, b->CreateAdd(position, b->getInt64(1)));
        llvm::Value* suffix = load_output(0, next);
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> r, reduce({x[0], suffix}));
        ASSIGN_OR_RETURN(llvm::Value* init, operands[n](IrIndex{}));
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> done, reduce({init, suffix}));
        store_output(0, done[0], next);
        store_output(0, r[0], at);
        return absl::OkStatus();
      });
    };
    RETURN_IF_ERROR(step(b->getInt64(0), true));
    RETURN_IF_ERROR(EmitForLoop(b, b->getInt64(1), b->getInt64(s.length), "scan",
                                [&](llvm::Value* k) { return step(k, false); }));
    if (!w.reverse) return absl::OkStatus();
    // The reverse scan's last position (element 0) still holds its suffix.
    return EmitForLoop(b, first, last, "scan.tile", [&](llvm::Value* i) -> absl::Status {
      const IrIndex at = index_at(i, b->getInt64(0));
      ASSIGN_OR_RETURN(llvm::Value* init, operands[n](IrIndex{}));
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> done, reduce({init, load_output(0, at)}));
      store_output(0, done[0], at);
      return absl::OkStatus();
    });
  });
  e->ClearCache();
  return status;
}

WindowPosition EmitWindowPosition(llvm::IRBuilder<>* b, llvm::Value* out, llvm::Value* k, const WindowDimension& w,
                                  int64_t operand_size) {
  const int64_t stride = std::max<int64_t>(w.stride(), 1), dilation = std::max<int64_t>(w.window_dilation(), 1);
  const int64_t base_dilation = std::max<int64_t>(w.base_dilation(), 1);
  llvm::Value* position = b->CreateAdd(b->CreateMul(out, b->getInt64(stride)),
                                       b->CreateSub(b->CreateMul(k, b->getInt64(dilation)), b->getInt64(w.padding_low())));
  llvm::Value* on_operand = b->getTrue();
  if (base_dilation != 1) {
    on_operand = b->CreateICmpEQ(b->CreateSRem(position, b->getInt64(base_dilation)), b->getInt64(0));
    position = b->CreateSDiv(position, b->getInt64(base_dilation));
  }
  on_operand = b->CreateAnd(on_operand, b->CreateAnd(b->CreateICmpSGE(position, b->getInt64(0)),
                                                     b->CreateICmpSLT(position, b->getInt64(operand_size))));
  return WindowPosition{position, on_operand};
}

std::vector<bool> ClippedWindowDimensions(const Window& window) {
  const int rank = window.dimensions_size();
  std::vector<bool> clipped(static_cast<size_t>(rank), false);
  double unclipped = 1;  // (a double: sizes up to 2^31 in many dimensions)
  for (int d = 0; d < rank; ++d) {
    const int64_t size = window.dimensions(d).size();
    clipped[static_cast<size_t>(d)] = size > kClipWindowSize;
    if (!clipped[static_cast<size_t>(d)]) unclipped *= static_cast<double>(std::max<int64_t>(size, 1));
  }
  while (unclipped > kUnclippedWindowPositions) {
    int largest = -1;
    for (int d = 0; d < rank; ++d) {
      if (!clipped[static_cast<size_t>(d)] &&
          (largest < 0 || window.dimensions(d).size() > window.dimensions(largest).size())) {
        largest = d;
      }
    }
    clipped[static_cast<size_t>(largest)] = true;
    unclipped /= static_cast<double>(std::max<int64_t>(window.dimensions(largest).size(), 1));
  }
  return clipped;
}

namespace {

// The window indices k of `w` at output position `out` that land on an operand dimension of
// `n` > 0 elements: first + i * step for i in [0, count). Window index k reads dilated
// position p = s + k * wd (s = out * stride - padding_low), an element when
// 0 <= p <= (n - 1) * bd and bd divides p: k in [k_lo, k_hi) by the bounds, and, under base
// dilation, k == r (mod m) with m = bd / gcd(wd, bd) (no k when gcd(wd, bd) does not divide s).
struct SolvedWindowRange {
  llvm::Value* first;
  llvm::Value* count;
  int64_t step;
};
SolvedWindowRange SolveWindowRange(llvm::IRBuilder<>* b, llvm::Value* out, const WindowDimension& w, int64_t n) {
  const int64_t stride = std::max<int64_t>(w.stride(), 1), wd = std::max<int64_t>(w.window_dilation(), 1);
  const int64_t bd = std::max<int64_t>(w.base_dilation(), 1);
  llvm::Value* zero = b->getInt64(0);
  llvm::Value* s = b->CreateSub(b->CreateMul(out, b->getInt64(stride)), b->getInt64(w.padding_low()));
  // k_lo = ceil(-s / wd) when s < 0, else 0.
  llvm::Value* neg = b->CreateICmpSLT(s, zero);
  llvm::Value* k_lo =
      b->CreateSelect(neg, b->CreateSDiv(b->CreateAdd(b->CreateNeg(s), b->getInt64(wd - 1)), b->getInt64(wd)), zero);
  // k_hi = floor(((n - 1) * bd - s) / wd) + 1 when that is positive, at most size.
  llvm::Value* room = b->CreateSub(b->getInt64((n - 1) * bd), s);
  llvm::Value* k_hi = b->CreateSelect(b->CreateICmpSLT(room, zero), zero,
                                      b->CreateAdd(b->CreateSDiv(room, b->getInt64(wd)), b->getInt64(1)));
  k_hi = b->CreateSelect(b->CreateICmpSLT(k_hi, b->getInt64(w.size())), k_hi, b->getInt64(w.size()));
  if (bd == 1) {
    llvm::Value* count = b->CreateSub(k_hi, k_lo);
    return {k_lo, b->CreateSelect(b->CreateICmpSLT(count, zero), zero, count), 1};
  }
  const int64_t g = std::gcd(wd, bd), m = bd / g, inverse = backend::InverseModulo((wd / g) % m, m);
  llvm::Value* t = b->CreateSRem(s, b->getInt64(bd));
  t = b->CreateSelect(b->CreateICmpSLT(t, zero), b->CreateAdd(t, b->getInt64(bd)), t);  // s mod bd, in [0, bd)
  llvm::Value* solvable = b->CreateICmpEQ(b->CreateURem(t, b->getInt64(g)), zero);
  // r = -(s / g) * inverse (mod m); m < 2^31, so the product fits.
  llvm::Value* minus = b->CreateURem(b->CreateSub(b->getInt64(m), b->CreateURem(b->CreateUDiv(t, b->getInt64(g)), b->getInt64(m))),
                                     b->getInt64(m));
  llvm::Value* r = b->CreateURem(b->CreateMul(minus, b->getInt64(inverse)), b->getInt64(m));
  // The first k >= k_lo with k == r (mod m).
  llvm::Value* lift = b->CreateURem(b->CreateSub(b->CreateAdd(r, b->getInt64(m)), b->CreateURem(k_lo, b->getInt64(m))),
                                    b->getInt64(m));
  llvm::Value* first = b->CreateAdd(k_lo, lift);
  llvm::Value* span = b->CreateSub(k_hi, first);
  llvm::Value* count = b->CreateSelect(b->CreateICmpSGT(span, zero),
                                       b->CreateSDiv(b->CreateAdd(span, b->getInt64(m - 1)), b->getInt64(m)), zero);
  return {first, b->CreateSelect(solvable, count, zero), m};
}

}  // namespace

absl::Status EmitWindowLoops(
    llvm::IRBuilder<>* b, const Window& window, const std::vector<int64_t>& dims, const std::vector<llvm::Value*>& outs,
    const std::vector<int64_t>& operand_sizes, const char* name,
    const std::function<absl::Status(const std::vector<llvm::Value*>& k, const std::vector<llvm::Value*>& position,
                                     llvm::Value* on_operand)>& body) {
  const std::vector<bool> clipped = ClippedWindowDimensions(window);
  std::vector<llvm::Value*> ks(dims.size(), nullptr), positions(dims.size(), nullptr);
  std::function<absl::Status(size_t, llvm::Value*)> level = [&](size_t j, llvm::Value* inside) -> absl::Status {
    if (j == dims.size()) return body(ks, positions, inside);
    if (operand_sizes[j] <= 0) return absl::OkStatus();  // no position lands on an empty dimension
    const WindowDimension& w = window.dimensions(static_cast<int>(dims[j]));
    const auto visit = [&](llvm::Value* k) -> absl::Status {
      const WindowPosition at = EmitWindowPosition(b, outs[j], k, w, operand_sizes[j]);
      ks[j] = k;
      positions[j] = at.position;
      return level(j + 1, b->CreateAnd(inside, at.on_operand));
    };
    if (!clipped[static_cast<size_t>(dims[j])]) {
      return EmitForLoop(b, b->getInt64(0), b->getInt64(w.size()), name, visit);
    }
    const SolvedWindowRange range = SolveWindowRange(b, outs[j], w, operand_sizes[j]);
    return EmitForLoop(b, b->getInt64(0), range.count, name, [&](llvm::Value* i) -> absl::Status {
      return visit(b->CreateAdd(range.first, b->CreateMul(i, b->getInt64(range.step))));
    });
  };
  return level(0, b->getTrue());
}

bool IsTrivialWindowDimension(const WindowDimension& w) {
  return w.size() == 1 && std::max<int64_t>(w.stride(), 1) == 1 && w.padding_low() == 0 && w.padding_high() == 0 &&
         std::max<int64_t>(w.window_dilation(), 1) == 1 && std::max<int64_t>(w.base_dilation(), 1) == 1;
}

std::optional<InnerWindowSplit> SplitInnerWindow(const HloInstruction& hlo, const Shape& out) {
  constexpr int64_t kLeastInner = 8;
  if (hlo.opcode() != HloOpcode::kReduceWindow || hlo.to_apply() == nullptr) return std::nullopt;
  const int64_t n = hlo.operand_count() / 2;
  if (n == 0 || hlo.operand_count() != 2 * n) return std::nullopt;
  const Shape& input = hlo.operand(0)->shape();
  const Window& window = hlo.attrs().window();
  if (!input.IsArray() || !out.IsArray() || !out.has_layout() || out.rank() != input.rank() ||
      window.dimensions_size() != input.rank() || ShapeUtil::ElementsIn(input) == 0 || ShapeUtil::ElementsIn(out) == 0) {
    return std::nullopt;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (!hlo.operand(i)->shape().IsArray() || hlo.operand(i)->shape().dimensions() != input.dimensions()) {
      return std::nullopt;
    }
  }
  InnerWindowSplit split;
  bool inside = true;  // still among the minor-most trivial dimensions
  for (const int64_t d : out.layout().minor_to_major()) {
    inside = inside && IsTrivialWindowDimension(window.dimensions(static_cast<int>(d)));
    (inside ? split.inner_dims : split.outer_dims).push_back(d);
    (inside ? split.inner : split.outer) *= out.dimensions(static_cast<int>(d));
    const int64_t size = window.dimensions(static_cast<int>(d)).size();
    if (size < 1) return std::nullopt;
    split.window *= size;
  }
  if (split.inner < kLeastInner || split.outer_dims.empty()) return std::nullopt;
  return split;
}

absl::Status EmitInnerWindowRange(ElementalEmitter* e, const HloInstruction* hlo, const InnerWindowSplit& split,
                                  const std::vector<Generator>& operands, const std::vector<SerialOutput>& outputs,
                                  llvm::Value* begin, llvm::Value* end) {
  const int64_t n = hlo->operand_count() / 2;
  if (static_cast<int64_t>(operands.size()) != 2 * n || static_cast<int64_t>(outputs.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat("reduce-window ", hlo->name(), ": malformed"));
  }
  llvm::IRBuilder<>* b = e->b();
  llvm::LLVMContext& c = b->getContext();
  const Shape& shape = outputs[0].shape;
  const Window& window = hlo->attrs().window();
  const int64_t rank = shape.rank();
  const Shape& input = hlo->operand(0)->shape();
  // The window's dimensions in row-major order (the interpreter's), outer ones only.
  std::vector<int64_t> window_dims = split.outer_dims;
  std::sort(window_dims.begin(), window_dims.end());
  e->ClearCache();
  absl::Status status = EmitForLoop(b, begin, end, "rw.item", [&](llvm::Value* item) -> absl::Status {
    std::vector<llvm::Value*> out(static_cast<size_t>(rank), b->getInt64(0));
    Delinearize(b, shape, split.outer_dims, item, out);
    std::vector<llvm::Value*> inits;
    for (int64_t j = 0; j < n; ++j) {
      ASSIGN_OR_RETURN(llvm::Value* init, operands[n + j](IrIndex{}));
      inits.push_back(init);
    }
    // body(index) for every inner element, `index` holding `fixed` for the outer dimensions;
    // the minor-most inner dimension innermost.
    const auto for_inner = [&](const std::vector<llvm::Value*>& fixed,
                               const std::function<absl::Status(const IrIndex&)>& body) -> absl::Status {
      std::vector<llvm::Value*> at = fixed;
      std::function<absl::Status(int64_t)> level = [&](int64_t k) -> absl::Status {
        if (k < 0) {
          IrIndex index;
          index.multi = at;
          return body(index);
        }
        const int64_t d = split.inner_dims[static_cast<size_t>(k)];
        return EmitForLoop(b, b->getInt64(0), b->getInt64(shape.dimensions(static_cast<int>(d))), "rw.inner",
                           [&](llvm::Value* i) {
                             at[static_cast<size_t>(d)] = i;
                             return level(k - 1);
                           });
      };
      return level(static_cast<int64_t>(split.inner_dims.size()) - 1);
    };
    RETURN_IF_ERROR(for_inner(out, [&](const IrIndex& at) -> absl::Status {
      for (int64_t j = 0; j < n; ++j) e->StoreElement(inits[static_cast<size_t>(j)], outputs[j].base, outputs[j].shape, at);
      return absl::OkStatus();
    }));
    // The window positions, each applied to every inner element when it is on the operand.
    std::vector<llvm::Value*> outs;
    std::vector<int64_t> sizes;
    for (const int64_t d : window_dims) {
      outs.push_back(out[static_cast<size_t>(d)]);
      sizes.push_back(input.dimensions(static_cast<int>(d)));
    }
    return EmitWindowLoops(
        b, window, window_dims, outs, sizes, "rw.win",
        [&](const std::vector<llvm::Value*>&, const std::vector<llvm::Value*>& in, llvm::Value* inside) -> absl::Status {
          llvm::Function* f = b->GetInsertBlock()->getParent();
          llvm::BasicBlock* apply = llvm::BasicBlock::Create(c, "rw.apply", f);
          llvm::BasicBlock* cont = llvm::BasicBlock::Create(c, "rw.cont", f);
          b->CreateCondBr(inside, apply, cont);
          b->SetInsertPoint(apply);
          RETURN_IF_ERROR(for_inner(out, [&](const IrIndex& at) -> absl::Status {
            IrIndex from = at;
            for (size_t j = 0; j < window_dims.size(); ++j) from.multi[static_cast<size_t>(window_dims[j])] = in[j];
            std::vector<llvm::Value*> args;
            for (int64_t j = 0; j < n; ++j) args.push_back(e->LoadElement(outputs[j].base, outputs[j].shape, at));
            for (int64_t j = 0; j < n; ++j) {
              ASSIGN_OR_RETURN(llvm::Value* v, operands[j](from));
              args.push_back(v);
            }
            ASSIGN_OR_RETURN(std::vector<llvm::Value*> results, e->EmitScalarComputation(*hlo->to_apply(), args));
            if (static_cast<int64_t>(results.size()) != n) {
              return absl::InvalidArgumentError(absl::StrCat("reduce-window ", hlo->name(), ": reducer arity mismatch"));
            }
            for (int64_t j = 0; j < n; ++j) e->StoreElement(results[j], outputs[j].base, outputs[j].shape, at);
            return absl::OkStatus();
          }));
          b->CreateBr(cont);
          b->SetInsertPoint(cont);
          return absl::OkStatus();
        });
  });
  e->ClearCache();
  return status;
}

}  // namespace cpu
}  // namespace xla
