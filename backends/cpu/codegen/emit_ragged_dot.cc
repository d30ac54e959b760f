// ragged-dot and scaled-dot generators: one output element per call, like the dot generator,
// with the interpreter's semantics (backends/interpreter/ops_linalg_ragged.cc).
//
// ragged-dot: group_sizes [p..., g] gives, per prefix (lhs dims 0..p-1), group j the ragged
// coordinates [end_{j-1}, end_j), end_j being the cumulative size sum wrapped in group_sizes'
// own integer type. A ragged non-contracting lhs dim multiplies a row with the rhs slice of
// every group covering it; a ragged contracting dim gives a leading output dim of groups,
// output j contracting only the coordinates group j covers; a ragged batch dim is a plain dot.
// Terms outside a group are skipped (not multiplied by zero), so an inf there stays out.
//
// scaled-dot(lhs, rhs, lhs_scale, rhs_scale): each operand element, converted to the result
// type, is multiplied by its block's scale (scale index = operand index / block size, a
// scalar scale covering all) and rounded once to the result type before the dot.
//
// Both convert operands to the result type, then sum in the dot generator's accumulator type.
#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

template <typename Repeated>
std::vector<int64_t> ToVector(const Repeated& field) {
  return std::vector<int64_t>(field.begin(), field.end());
}

bool Contains(const std::vector<int64_t>& dims, int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); }

// The dot generator's accumulator: f16/bf16 sum in f32, f8/f4 in f64, c64 in c128.
PrimitiveType AccumulatorType(PrimitiveType out) {
  if (out == F16 || out == BF16) return F32;
  if (primitive_util::IsNarrowFloatType(out)) return F64;
  if (out == C64) return C128;
  return out;
}

enum class RaggedMode { kNone, kNonContracting, kContracting, kBatch };

// Which operand dim each output dim indexes (-1: none), and the contracting dim pairs.
struct ContractionDims {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contracting, rhs_contracting, lhs_free, rhs_free;
};

absl::StatusOr<ContractionDims> PlanContraction(const std::string& op, const Shape& lhs, const Shape& rhs,
                                                const DotDimensionNumbers& dnums, int64_t rhs_group,
                                                int64_t leading_out_dims, const Shape& out) {
  ContractionDims c;
  c.lhs_batch = ToVector(dnums.lhs_batch_dimensions());
  c.rhs_batch = ToVector(dnums.rhs_batch_dimensions());
  c.lhs_contracting = ToVector(dnums.lhs_contracting_dimensions());
  c.rhs_contracting = ToVector(dnums.rhs_contracting_dimensions());
  if (c.lhs_batch.size() != c.rhs_batch.size() || c.lhs_contracting.size() != c.rhs_contracting.size()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": mismatched dimension numbers"));
  }
  auto in_range = [](const std::vector<int64_t>& dims, int64_t rank) {
    for (int64_t d : dims) {
      if (d < 0 || d >= rank) return false;
    }
    return true;
  };
  if (!in_range(c.lhs_batch, lhs.rank()) || !in_range(c.lhs_contracting, lhs.rank()) ||
      !in_range(c.rhs_batch, rhs.rank()) || !in_range(c.rhs_contracting, rhs.rank())) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": dimension number out of range"));
  }
  std::vector<int64_t> out_dims(leading_out_dims, 0);
  for (size_t i = 0; i < c.lhs_batch.size(); ++i) {
    if (lhs.dimensions(c.lhs_batch[i]) != rhs.dimensions(c.rhs_batch[i])) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": batch dimension sizes differ"));
    }
    out_dims.push_back(lhs.dimensions(c.lhs_batch[i]));
  }
  for (size_t i = 0; i < c.lhs_contracting.size(); ++i) {
    if (lhs.dimensions(c.lhs_contracting[i]) != rhs.dimensions(c.rhs_contracting[i])) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": contracting dimension sizes differ"));
    }
  }
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!Contains(c.lhs_batch, d) && !Contains(c.lhs_contracting, d)) {
      c.lhs_free.push_back(d);
      out_dims.push_back(lhs.dimensions(d));
    }
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!Contains(c.rhs_batch, d) && !Contains(c.rhs_contracting, d) && d != rhs_group) {
      c.rhs_free.push_back(d);
      out_dims.push_back(rhs.dimensions(d));
    }
  }
  if (leading_out_dims > 0 && out.rank() > 0) out_dims[0] = out.dimensions(0);
  if (!out.IsArray() || std::vector<int64_t>(out.dimensions().begin(), out.dimensions().end()) != out_dims) {
    return absl::InvalidArgumentError(absl::StrCat(op, " result shape ", out.ToString(),
                                                   " does not match the expected dimensions [",
                                                   absl::StrJoin(out_dims, ","), "]"));
  }
  return c;
}

}  // namespace

absl::StatusOr<Generator> ElementalEmitter::MakeContractionGenerator(const HloInstruction* hlo,
                                                                     const OperandGenerator& operand) {
  const bool scaled = hlo->opcode() == HloOpcode::kScaledDot;
  const std::string op = absl::StrCat(std::string(HloOpcodeString(hlo->opcode())), " ", hlo->name());
  const Shape lhs = hlo->operand(0)->shape(), rhs = hlo->operand(1)->shape();
  const PrimitiveType out_type = hlo->shape().element_type();
  const PrimitiveType acc_type = AccumulatorType(out_type);
  const PrimitiveType lt = lhs.element_type(), rt = rhs.element_type();

  RaggedMode mode = RaggedMode::kNone;
  int64_t ragged = -1, rhs_group = -1, num_groups = 0;
  Shape gs_shape;
  const DotDimensionNumbers* dnums = &hlo->attrs().dot_dimension_numbers();
  if (!scaled) {
    if (hlo->operand_count() != 3) return absl::InvalidArgumentError(absl::StrCat(op, " needs 3 operands"));
    const RaggedDotDimensionNumbers& rdn = hlo->attrs().ragged_dot_dimension_numbers();
    dnums = &rdn.dot_dimension_numbers();
    const std::vector<int64_t> ragged_dims = ToVector(rdn.lhs_ragged_dimensions());
    const std::vector<int64_t> group_dims = ToVector(rdn.rhs_group_dimensions());
    if (ragged_dims.size() != 1 || ragged_dims[0] < 0 || ragged_dims[0] >= lhs.rank()) {
      return absl::InvalidArgumentError(absl::StrCat(op, " needs exactly one lhs ragged dimension in range"));
    }
    ragged = ragged_dims[0];
    gs_shape = hlo->operand(2)->shape();
    if (!primitive_util::IsIntegralType(gs_shape.element_type()) || gs_shape.rank() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": group_sizes must be an integral array of rank >= 1, got ", gs_shape.ToString()));
    }
    num_groups = gs_shape.dimensions(gs_shape.rank() - 1);
    if (Contains(ToVector(dnums->lhs_contracting_dimensions()), ragged)) {
      mode = RaggedMode::kContracting;
    } else if (Contains(ToVector(dnums->lhs_batch_dimensions()), ragged)) {
      mode = RaggedMode::kBatch;
    } else {
      mode = RaggedMode::kNonContracting;
    }
    if (mode == RaggedMode::kNonContracting) {
      if (group_dims.size() != 1 || group_dims[0] < 0 || group_dims[0] >= rhs.rank()) {
        return absl::InvalidArgumentError(
            absl::StrCat(op, ": a ragged non-contracting dimension needs one rhs group dimension in range"));
      }
      rhs_group = group_dims[0];
      if (rhs.dimensions(rhs_group) != num_groups) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": rhs group dimension has size ", rhs.dimensions(rhs_group),
                                                       " but group_sizes has ", num_groups, " groups"));
      }
    } else if (!group_dims.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": a ragged contracting or batch dimension takes no rhs group dimension"));
    }
    if (mode != RaggedMode::kBatch) {
      const int64_t prefix_rank = gs_shape.rank() - 1;
      if (prefix_rank > ragged) {
        return absl::UnimplementedError(absl::StrCat(op, ": group_sizes ", gs_shape.ToString(),
                                                     " has more leading dimensions than the lhs has before its ragged "
                                                     "dimension ", ragged));
      }
      for (int64_t i = 0; i < prefix_rank; ++i) {
        if (gs_shape.dimensions(i) != lhs.dimensions(i)) {
          return absl::InvalidArgumentError(absl::StrCat(op, ": group_sizes ", gs_shape.ToString(), " dimension ", i,
                                                         " does not match lhs ", lhs.ToString()));
        }
      }
    }
  } else {
    if (hlo->operand_count() != 4) return absl::InvalidArgumentError(absl::StrCat(op, " needs 4 operands"));
    // XLA's operand order: lhs, rhs, lhs_scale, rhs_scale.
    for (int i = 0; i < 2; ++i) {
      const Shape& x = hlo->operand(i)->shape();
      const Shape& s = hlo->operand(i + 2)->shape();
      if (s.rank() == 0) continue;
      if (s.rank() != x.rank()) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": scale ", s.ToString(), " must be a scalar or have the rank of ",
                                                       x.ToString()));
      }
      for (int64_t d = 0; d < s.rank(); ++d) {
        const int64_t od = x.dimensions(d), sd = s.dimensions(d);
        if (sd == 0 ? od != 0 : od % sd != 0) {
          return absl::InvalidArgumentError(absl::StrCat(op, ": scale ", s.ToString(), " dimension ", d,
                                                         " does not divide ", x.ToString()));
        }
      }
    }
  }
  const int64_t leading = mode == RaggedMode::kContracting ? 1 : 0;
  ASSIGN_OR_RETURN(ContractionDims dims, PlanContraction(op, lhs, rhs, *dnums, rhs_group, leading, hlo->shape()));
  if (mode == RaggedMode::kContracting && hlo->shape().dimensions(0) != num_groups) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": the leading result dimension must be the ", num_groups, " groups"));
  }

  ASSIGN_OR_RETURN(Generator lg, operand(0));
  ASSIGN_OR_RETURN(Generator rg, operand(1));
  Generator gsg, lsg, rsg;
  if (!scaled) {
    ASSIGN_OR_RETURN(gsg, operand(2));
  } else {
    ASSIGN_OR_RETURN(lsg, operand(2));
    ASSIGN_OR_RETURN(rsg, operand(3));
  }
  const Shape ls_shape = scaled ? hlo->operand(2)->shape() : Shape();
  const Shape rs_shape = scaled ? hlo->operand(3)->shape() : Shape();
  std::shared_ptr<HloInstruction> mul_acc(
      HloInstruction::Create(HloOpcode::kMultiply, ShapeUtil::MakeShape(acc_type, {})).release());
  std::shared_ptr<HloInstruction> add_acc(
      HloInstruction::Create(HloOpcode::kAdd, ShapeUtil::MakeShape(acc_type, {})).release());

  return Generator([=](const IrIndex& out) -> absl::StatusOr<llvm::Value*> {
    llvm::Function* f = b_->GetInsertBlock()->getParent();
    llvm::LLVMContext& ctx = b_->getContext();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    llvm::AllocaInst* acc = entry.CreateAlloca(RegisterType(acc_type));
    b_->CreateStore(llvm::Constant::getNullValue(RegisterType(acc_type)), acc);
    llvm::AllocaInst* gs_sum = nullptr;
    llvm::AllocaInst* gs_start = nullptr;
    llvm::Type* gs_type = nullptr;
    if (!scaled && mode != RaggedMode::kBatch) {
      gs_type = RegisterType(gs_shape.element_type());
      gs_sum = entry.CreateAlloca(gs_type);
      gs_start = entry.CreateAlloca(gs_type);
    }
    IrIndex li, ri;
    li.multi.assign(lhs.rank(), nullptr);
    ri.multi.assign(rhs.rank(), nullptr);
    size_t k = static_cast<size_t>(leading);
    for (size_t i = 0; i < dims.lhs_batch.size(); ++i, ++k) {
      li.multi[dims.lhs_batch[i]] = out.multi[k];
      ri.multi[dims.rhs_batch[i]] = out.multi[k];
    }
    for (int64_t d : dims.lhs_free) li.multi[d] = out.multi[k++];
    for (int64_t d : dims.rhs_free) ri.multi[d] = out.multi[k++];

    // An operand element in the accumulator type: converted to the result type first, and for
    // scaled-dot multiplied by its block's scale and rounded once to the result type.
    auto load = [&](const Generator& g, const IrIndex& index, PrimitiveType type, const Generator& scale_gen,
                    const Shape& operand_shape, const Shape& scale_shape) -> absl::StatusOr<llvm::Value*> {
      ASSIGN_OR_RETURN(llvm::Value* x, g(index));
      ASSIGN_OR_RETURN(x, EmitConvert(x, type, out_type));
      ASSIGN_OR_RETURN(x, EmitConvert(x, out_type, acc_type));
      if (!scaled) return x;
      IrIndex si;
      for (int64_t d = 0; d < scale_shape.rank(); ++d) {
        const int64_t block = std::max<int64_t>(1, operand_shape.dimensions(d) / std::max<int64_t>(1, scale_shape.dimensions(d)));
        si.multi.push_back(b_->CreateUDiv(index.multi[d], I64(block)));
      }
      ASSIGN_OR_RETURN(llvm::Value* s, scale_gen(si));
      ASSIGN_OR_RETURN(s, EmitConvert(s, scale_shape.element_type(), out_type));
      ASSIGN_OR_RETURN(s, EmitConvert(s, out_type, acc_type));
      ASSIGN_OR_RETURN(llvm::Value* p, EmitBinary(*mul_acc, x, s, acc_type));
      ASSIGN_OR_RETURN(p, EmitConvert(p, acc_type, out_type));
      return EmitConvert(p, out_type, acc_type);
    };
    auto term = [&]() -> absl::Status {
      ASSIGN_OR_RETURN(llvm::Value* a, load(lg, li, lt, lsg, lhs, ls_shape));
      ASSIGN_OR_RETURN(llvm::Value* c, load(rg, ri, rt, rsg, rhs, rs_shape));
      ASSIGN_OR_RETURN(llvm::Value* p, EmitBinary(*mul_acc, a, c, acc_type));
      llvm::Value* sum = b_->CreateLoad(RegisterType(acc_type), acc);
      ASSIGN_OR_RETURN(llvm::Value* s, EmitBinary(*add_acc, sum, p, acc_type));
      b_->CreateStore(s, acc);
      return absl::OkStatus();
    };
    const bool is_unsigned = !scaled && primitive_util::IsUnsignedIntegralType(gs_shape.element_type());
    auto widen = [&](llvm::Value* v) {
      return is_unsigned ? b_->CreateZExtOrTrunc(v, b_->getInt64Ty()) : b_->CreateSExtOrTrunc(v, b_->getInt64Ty());
    };
    // `body` when start <= li's ragged coordinate < end (bounds in group_sizes' type).
    auto if_covered = [&](llvm::Value* start, llvm::Value* end, const std::function<absl::Status()>& body) -> absl::Status {
      llvm::Value* lo = widen(start);
      llvm::Value* hi = widen(end);
      llvm::Value* x = li.multi[ragged];
      // Coordinates are non-negative, so unsigned compares are right for unsigned bounds.
      llvm::Value* covered = is_unsigned ? b_->CreateAnd(b_->CreateICmpULE(lo, x), b_->CreateICmpULT(x, hi))
                                         : b_->CreateAnd(b_->CreateICmpSLE(lo, x), b_->CreateICmpSLT(x, hi));
      llvm::BasicBlock* then_block = llvm::BasicBlock::Create(ctx, "covered", f);
      llvm::BasicBlock* after = llvm::BasicBlock::Create(ctx, "covered.after", f);
      b_->CreateCondBr(covered, then_block, after);
      b_->SetInsertPoint(then_block);
      ClearCache();
      RETURN_IF_ERROR(body());
      ClearCache();
      b_->CreateBr(after);
      b_->SetInsertPoint(after);
      return absl::OkStatus();
    };
    // The group_sizes index of li's prefix; its last component is set by the caller.
    auto prefix_index = [&]() {
      IrIndex gi;
      for (int64_t d = 0; d + 1 < gs_shape.rank(); ++d) gi.multi.push_back(li.multi[d]);
      gi.multi.push_back(nullptr);
      return gi;
    };
    // gs_start, gs_sum := the bounds of `group` for li's prefix (sizes 0..group summed).
    auto emit_bounds = [&](llvm::Value* group) -> absl::Status {
      b_->CreateStore(llvm::Constant::getNullValue(gs_type), gs_sum);
      b_->CreateStore(llvm::Constant::getNullValue(gs_type), gs_start);
      IrIndex gi = prefix_index();
      ClearCache();
      RETURN_IF_ERROR(EmitForLoop(b_, I64(0), b_->CreateAdd(group, I64(1)), "g", [&](llvm::Value* j) -> absl::Status {
        gi.multi.back() = j;
        ASSIGN_OR_RETURN(llvm::Value* size, gsg(gi));
        llvm::Value* before = b_->CreateLoad(gs_type, gs_sum);
        b_->CreateStore(before, gs_start);
        b_->CreateStore(b_->CreateAdd(before, size), gs_sum);  // wraps in group_sizes' type
        return absl::OkStatus();
      }));
      ClearCache();
      return absl::OkStatus();
    };
    // The term, when `group` covers li's ragged coordinate (bounds recomputed here: used when
    // a group_sizes prefix dim is contracted, so the bounds change with k).
    auto masked_term = [&](llvm::Value* group) -> absl::Status {
      RETURN_IF_ERROR(emit_bounds(group));
      return if_covered(b_->CreateLoad(gs_type, gs_start), b_->CreateLoad(gs_type, gs_sum), term);
    };
    std::function<absl::Status(size_t, const std::function<absl::Status()>&)> loops =
        [&](size_t j, const std::function<absl::Status()>& inner) -> absl::Status {
      if (j == dims.lhs_contracting.size()) return inner();
      const int64_t ld = dims.lhs_contracting[j], rd = dims.rhs_contracting[j];
      return EmitForLoop(b_, I64(0), I64(lhs.dimensions(static_cast<int>(ld))), "k", [&](llvm::Value* i) {
        li.multi[ld] = i;
        ri.multi[rd] = i;
        return loops(j + 1, inner);
      });
    };
    // Usually the group bounds depend on the output index alone: computed once per output
    // element, and a ragged non-contracting row runs the contraction only for its groups.
    bool per_output_bounds = true;
    for (int64_t d = 0; d + 1 < gs_shape.rank(); ++d) {
      if (Contains(dims.lhs_contracting, d)) per_output_bounds = false;
    }
    auto level = [&]() -> absl::Status {
      switch (mode) {
        case RaggedMode::kNone:
        case RaggedMode::kBatch:
          return loops(0, term);
        case RaggedMode::kContracting: {
          if (!per_output_bounds) return loops(0, [&] { return masked_term(out.multi[0]); });
          RETURN_IF_ERROR(emit_bounds(out.multi[0]));
          llvm::Value* start = b_->CreateLoad(gs_type, gs_start);
          llvm::Value* end = b_->CreateLoad(gs_type, gs_sum);
          return loops(0, [&] { return if_covered(start, end, term); });
        }
        case RaggedMode::kNonContracting: {
          if (!per_output_bounds) {
            return loops(0, [&] {
              return EmitForLoop(b_, I64(0), I64(num_groups), "group", [&](llvm::Value* g) {
                ri.multi[rhs_group] = g;
                return masked_term(g);
              });
            });
          }
          b_->CreateStore(llvm::Constant::getNullValue(gs_type), gs_sum);
          IrIndex gi = prefix_index();
          ClearCache();
          return EmitForLoop(b_, I64(0), I64(num_groups), "group", [&](llvm::Value* g) -> absl::Status {
            gi.multi.back() = g;
            ASSIGN_OR_RETURN(llvm::Value* size, gsg(gi));
            llvm::Value* start = b_->CreateLoad(gs_type, gs_sum);
            llvm::Value* end = b_->CreateAdd(start, size);  // wraps in group_sizes' type
            b_->CreateStore(end, gs_sum);
            ri.multi[rhs_group] = g;
            return if_covered(start, end, [&] { return loops(0, term); });
          });
        }
      }
      return absl::OkStatus();
    };
    ClearCache();
    llvm::FastMathFlags saved = b_->getFastMathFlags();
    llvm::FastMathFlags fmf;
    fmf.setAllowReassoc();
    b_->setFastMathFlags(fmf);
    absl::Status status = level();
    b_->setFastMathFlags(saved);
    RETURN_IF_ERROR(status);
    ClearCache();
    return EmitConvert(b_->CreateLoad(RegisterType(acc_type), acc), acc_type, out_type);
  });
}

}  // namespace cpu
}  // namespace xla
