// Generators (index -> element value) for the data-movement ops, reduce, and fusions, plus
// the loop helpers (dot: emit_dot.cc). Generators emit straight-line code (selects, not
// branches) except reduce and dot, which emit an inner loop and continue after it.
#include <cstring>
#include <memory>
#include <string>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/literal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"

namespace xla {
namespace cpu {
namespace {

absl::Status UnimplementedOp(const HloInstruction& hlo, const std::string& detail = "") {
  return absl::UnimplementedError(absl::StrCat("cpu backend does not implement ",
                                               std::string(HloOpcodeString(hlo.opcode())), " (", hlo.name(), ")",
                                               detail.empty() ? "" : ": ", detail));
}

Shape WithDefaultLayout(const Shape& shape) {
  Shape s = shape;
  ShapeUtil::SetDefaultLayoutsIfMissing(&s);
  return s;
}

llvm::Value* Clamp64(llvm::IRBuilder<>* b, llvm::Value* v, int64_t lo, int64_t hi) {
  v = b->CreateSelect(b->CreateICmpSLT(v, b->getInt64(lo)), b->getInt64(lo), v);
  return b->CreateSelect(b->CreateICmpSGT(v, b->getInt64(hi)), b->getInt64(hi), v);
}

// A scalar index operand value widened to i64.
// (u64 values past INT64_MAX saturate, so that clamping still sends them to the far end.)
llvm::Value* ToI64(llvm::IRBuilder<>* b, llvm::Value* v, PrimitiveType type) {
  if (type == U64) {
    return b->CreateSelect(b->CreateICmpSLT(v, b->getInt64(0)), b->getInt64(INT64_MAX), v);
  }
  return primitive_util::IsUnsignedIntegralType(type) ? b->CreateZExtOrTrunc(v, b->getInt64Ty())
                                                      : b->CreateSExtOrTrunc(v, b->getInt64Ty());
}

}  // namespace

absl::Status EmitForLoop(llvm::IRBuilder<>* b, llvm::Value* start, llvm::Value* limit, const char* name,
                         const std::function<absl::Status(llvm::Value* i)>& body) {
  llvm::Function* f = b->GetInsertBlock()->getParent();
  llvm::LLVMContext& c = b->getContext();
  llvm::BasicBlock* preheader = b->GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(c, absl::StrCat(name, ".header"), f);
  llvm::BasicBlock* body_block = llvm::BasicBlock::Create(c, absl::StrCat(name, ".body"), f);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(c, absl::StrCat(name, ".exit"), f);
  b->CreateBr(header);
  b->SetInsertPoint(header);
  llvm::PHINode* i = b->CreatePHI(b->getInt64Ty(), 2, name);
  i->addIncoming(start, preheader);
  b->CreateCondBr(b->CreateICmpSLT(i, limit), body_block, exit);
  b->SetInsertPoint(body_block);
  RETURN_IF_ERROR(body(i));
  llvm::Value* next = b->CreateAdd(i, b->getInt64(1), "", true, true);
  i->addIncoming(next, b->GetInsertBlock());
  b->CreateBr(header);
  b->SetInsertPoint(exit);
  return absl::OkStatus();
}

absl::Status EmitLoopNest(llvm::IRBuilder<>* b, const Shape& shape, llvm::Value* begin, llvm::Value* end,
                          const std::function<absl::Status(const IrIndex&)>& body) {
  const int64_t rank = shape.rank();
  if (rank == 0) {
    return EmitForLoop(b, begin, end, "once", [&](llvm::Value*) {
      IrIndex index;
      index.linear = b->getInt64(0);
      index.linear_shape = &shape;
      return body(index);
    });
  }
  std::vector<int64_t> order(shape.layout().minor_to_major().rbegin(), shape.layout().minor_to_major().rend());
  IrIndex index;
  index.multi.assign(rank, nullptr);
  index.linear_shape = &shape;
  std::function<absl::Status(int64_t, llvm::Value*)> level = [&](int64_t k, llvm::Value* linear) -> absl::Status {
    if (k == rank) {
      index.linear = linear;
      return body(index);
    }
    const int64_t dim = order[k];
    llvm::Value* lo = k == 0 ? begin : b->getInt64(0);
    llvm::Value* hi = k == 0 ? end : b->getInt64(shape.dimensions(static_cast<int>(dim)));
    return EmitForLoop(b, lo, hi, "i", [&](llvm::Value* i) {
      index.multi[dim] = i;
      llvm::Value* l = b->CreateAdd(b->CreateMul(linear, b->getInt64(shape.dimensions(static_cast<int>(dim))), "", true, true),
                                    i, "", true, true);
      return level(k + 1, l);
    });
  };
  return level(0, b->getInt64(0));
}

namespace {

// Whether every instruction of `computation` is a scalar or a tuple of scalars.
bool IsScalarOnly(const HloComputation& computation) {
  for (const HloInstruction* hlo : computation.MakeInstructionPostOrder()) {
    const Shape& shape = hlo->shape();
    if (shape.IsTuple()) {
      for (const Shape& leaf : shape.tuple_shapes()) {
        if (!ShapeUtil::IsScalar(leaf)) return false;
      }
    } else if (!ShapeUtil::IsScalar(shape)) {
      return false;
    }
    // Ops that read arrays (a reduce of a broadcast) are not scalar arithmetic.
    if (hlo->opcode() != HloOpcode::kTuple && hlo->opcode() != HloOpcode::kGetTupleElement &&
        hlo->opcode() != HloOpcode::kParameter && hlo->opcode() != HloOpcode::kConstant &&
        HloOpcodeCategoryOf(hlo->opcode()) == HloOpcodeCategory::kOther) {
      return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<llvm::Value*>> ElementalEmitter::EmitGeneratedComputation(
    const HloComputation& computation, absl::Span<llvm::Value* const> args) {
  // Scalar parameters in, scalar (or tuple of scalars) root out; the instructions between
  // are generators, so array ops (broadcast, a nested reduce) run as loops in place.
  const int64_t caller_binding = binding_;
  binding_ = ++bindings_;  // `args` bind the parameters until the caller's binding returns
  const absl::Cleanup restore = [&] { binding_ = caller_binding; };
  std::map<const HloInstruction*, Generator> generators;
  auto evaluations = std::make_shared<int64_t>(0);
  for (const HloInstruction* hlo : computation.MakeInstructionPostOrder()) {
    if (hlo->opcode() == HloOpcode::kParameter) {
      if (hlo->parameter_number() >= static_cast<int64_t>(args.size()) || !ShapeUtil::IsScalar(hlo->shape())) {
        return UnimplementedOp(*hlo, absl::StrCat("parameter of ", computation.name()));
      }
      llvm::Value* arg = args[hlo->parameter_number()];
      generators[hlo] = [arg](const IrIndex&) -> absl::StatusOr<llvm::Value*> { return arg; };
      continue;
    }
    const HloInstruction* root = computation.root_instruction();
    ASSIGN_OR_RETURN(Generator g,
                     MakeGenerator(hlo, [this, map = &generators, hlo, evaluations, root](int64_t i)
                                            -> absl::StatusOr<Generator> {
                       return OperandLookup(map, hlo->operand(i), evaluations, root);
                     }));
    generators[hlo] = std::move(g);
  }
  const HloInstruction* root = computation.root_instruction();
  std::vector<const HloInstruction*> outputs;
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* operand : root->operands()) outputs.push_back(operand);
  } else if (ShapeUtil::IsScalar(root->shape())) {
    outputs.push_back(root);
  } else {
    return UnimplementedOp(*root, absl::StrCat("root of ", computation.name(), " (needs scalars)"));
  }
  std::vector<llvm::Value*> results;
  for (const HloInstruction* output : outputs) {
    if (!ShapeUtil::IsScalar(output->shape())) return UnimplementedOp(*output, "non-scalar result of a reducer");
    ASSIGN_OR_RETURN(llvm::Value* v, generators.at(output)(IrIndex{}));
    results.push_back(v);
  }
  return results;
}

absl::StatusOr<std::vector<llvm::Value*>> ElementalEmitter::EmitScalarComputation(
    const HloComputation& computation, absl::Span<llvm::Value* const> args, const HloInstruction* result) {
  if (!IsScalarOnly(computation)) {
    if (result != nullptr && result != computation.root_instruction()) {
      return absl::UnimplementedError(absl::StrCat(computation.name(), ": a value other than the root of a computation with arrays"));
    }
    return EmitGeneratedComputation(computation, args);
  }
  std::map<const HloInstruction*, std::vector<llvm::Value*>> values;
  for (const HloInstruction* hlo : computation.MakeInstructionPostOrder()) {
    std::vector<llvm::Value*> v;
    switch (hlo->opcode()) {
      case HloOpcode::kParameter:
        if (hlo->parameter_number() >= static_cast<int64_t>(args.size())) {
          return absl::InvalidArgumentError(absl::StrCat(computation.name(), " takes too many parameters"));
        }
        v.push_back(args[hlo->parameter_number()]);
        break;
      case HloOpcode::kConstant: {
        if (!ShapeUtil::IsScalar(hlo->shape())) return UnimplementedOp(*hlo, "non-scalar constant in a scalar computation");
        // Build the constant directly from its bits.
        const PrimitiveType t = hlo->shape().element_type();
        if (RegisterType(t) == nullptr) return UnimplementedOp(*hlo, "element type");
        v.push_back(ConstantElement(hlo->literal().untyped_data(), t));
        break;
      }
      case HloOpcode::kTuple:
        for (const HloInstruction* operand : hlo->operands()) {
          const auto& ov = values[operand];
          v.insert(v.end(), ov.begin(), ov.end());
        }
        break;
      case HloOpcode::kGetTupleElement: {
        // Scalar computations hold only tuples of scalars.
        v.push_back(values[hlo->operand(0)].at(hlo->tuple_index()));
        break;
      }
      default: {
        if (!ShapeUtil::IsScalar(hlo->shape())) return UnimplementedOp(*hlo, "in a scalar computation");
        if (!IsSupportedElementType(hlo->shape().element_type())) return UnimplementedOp(*hlo, "element type");
        for (const HloInstruction* operand : hlo->operands()) {
          if (!IsSupportedElementType(operand->shape().element_type())) return UnimplementedOp(*hlo, "operand type");
        }
        std::vector<llvm::Value*> operands;
        for (const HloInstruction* operand : hlo->operands()) operands.push_back(values[operand].at(0));
        ASSIGN_OR_RETURN(llvm::Value* r, EmitElementwise(*hlo, operands));
        v.push_back(r);
      }
    }
    values[hlo] = std::move(v);
  }
  return values[result != nullptr ? result : computation.root_instruction()];
}

absl::StatusOr<Generator> ElementalEmitter::MakeReduceGenerator(const HloInstruction* hlo,
                                                                const OperandGenerator& operand) {
  const int64_t n = hlo->operand_count() / 2;
  if (n == 0 || hlo->operand_count() != 2 * n || hlo->to_apply() == nullptr) return UnimplementedOp(*hlo, "malformed");
  const Shape input = WithDefaultLayout(hlo->operand(0)->shape());
  std::vector<bool> reduced(input.rank(), false);
  for (int64_t d : hlo->dimensions()) {
    if (d < 0 || d >= input.rank()) return absl::InvalidArgumentError(absl::StrCat("reduce ", hlo->name(), ": bad dimension"));
    reduced[d] = true;
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
  // Reduced dimensions from major to minor in the input's layout, so the inner loop is contiguous.
  std::vector<int64_t> loop_dims;
  for (auto it = input.layout().minor_to_major().rbegin(); it != input.layout().minor_to_major().rend(); ++it) {
    if (reduced[*it]) loop_dims.push_back(*it);
  }
  // Reassociation lets the vectorizer split sums and products into lanes (the result then
  // differs from a sequential sum by rounding only).
  const HloInstruction* root = hlo->to_apply()->root_instruction();
  const bool reassociate = n == 1 && (root->opcode() == HloOpcode::kAdd || root->opcode() == HloOpcode::kMultiply) &&
                           root->operand(0)->opcode() == HloOpcode::kParameter &&
                           root->operand(1)->opcode() == HloOpcode::kParameter;
  // Float maximum/minimum reducers run as integer max/min over order-preserving keys of the
  // float bits (the vectorizer turns those into vector reductions; it would not vectorize
  // NaN-propagating float selects) plus an "any NaN" flag, since XLA's maximum propagates NaN.
  // Only the sign of a zero result may differ from a sequential evaluation.
  const bool minmax = n == 1 && (types[0] == F32 || types[0] == F64) &&
                      (root->opcode() == HloOpcode::kMaximum || root->opcode() == HloOpcode::kMinimum) &&
                      root->operand(0)->opcode() == HloOpcode::kParameter &&
                      root->operand(1)->opcode() == HloOpcode::kParameter;
  const bool is_max = root->opcode() == HloOpcode::kMaximum;
  // f16/bf16 sums and products keep an f32 accumulator (rounded once at the end), as the
  // interpreter does.
  const bool widen = reassociate && (types[0] == F16 || types[0] == BF16);
  const HloComputation* reducer = hlo->to_apply();
  auto input_shape = std::make_shared<Shape>(input);
  return Generator([=](const IrIndex& out) -> absl::StatusOr<llvm::Value*> {
    llvm::Function* f = b_->GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    std::vector<llvm::AllocaInst*> accumulators;
    IrIndex scalar;
    for (int64_t i = 0; i < n; ++i) {
      accumulators.push_back(entry.CreateAlloca(RegisterType(types[i])));
      ASSIGN_OR_RETURN(llvm::Value* init, inits[i](scalar));
      b_->CreateStore(init, accumulators.back());
    }
    llvm::AllocaInst* nan_seen = nullptr;
    llvm::AllocaInst* key_acc = nullptr;
    llvm::Type* key_type = nullptr;
    const int key_bits = types[0] == F64 ? 64 : 32;
    // The key map is an involution: flips the magnitude bits of negative numbers.
    auto key = [&](llvm::Value* v) {
      llvm::Value* i = v->getType()->isIntegerTy() ? v : b_->CreateBitCast(v, key_type);
      return b_->CreateXor(i, b_->CreateLShr(b_->CreateAShr(i, key_bits - 1), 1));
    };
    llvm::AllocaInst* wide_acc = nullptr;
    if (widen) {
      wide_acc = entry.CreateAlloca(b_->getFloatTy());
      b_->CreateStore(WidenToF32(b_->CreateLoad(RegisterType(types[0]), accumulators[0]), types[0]), wide_acc);
    }
    if (minmax) {
      key_type = b_->getIntNTy(key_bits);
      nan_seen = entry.CreateAlloca(b_->getInt1Ty());
      key_acc = entry.CreateAlloca(key_type);
      llvm::Value* init = b_->CreateLoad(RegisterType(types[0]), accumulators[0]);
      b_->CreateStore(b_->CreateFCmpUNO(init, init), nan_seen);
      b_->CreateStore(key(init), key_acc);
    }
    IrIndex in;
    in.multi.assign(input_shape->rank(), nullptr);
    int64_t k = 0;
    for (int64_t d = 0; d < input_shape->rank(); ++d) {
      if (!reduced[d]) in.multi[d] = out.multi[k++];
    }
    std::function<absl::Status(size_t)> level = [&](size_t j) -> absl::Status {
      if (j == loop_dims.size() && minmax) {
        ASSIGN_OR_RETURN(llvm::Value* v, inputs[0](in));
        llvm::Value* acc = b_->CreateLoad(key_type, key_acc);
        b_->CreateStore(b_->CreateBinaryIntrinsic(is_max ? llvm::Intrinsic::smax : llvm::Intrinsic::smin, acc, key(v)),
                        key_acc);
        b_->CreateStore(b_->CreateOr(b_->CreateLoad(b_->getInt1Ty(), nan_seen), b_->CreateFCmpUNO(v, v)), nan_seen);
        return absl::OkStatus();
      }
      if (j == loop_dims.size() && widen) {
        ASSIGN_OR_RETURN(llvm::Value* v, inputs[0](in));
        llvm::Value* acc = b_->CreateLoad(b_->getFloatTy(), wide_acc);
        llvm::Value* w = WidenToF32(v, types[0]);
        llvm::FastMathFlags fmf;
        fmf.setAllowReassoc();
        llvm::Value* r = root->opcode() == HloOpcode::kAdd ? b_->CreateFAdd(acc, w) : b_->CreateFMul(acc, w);
        llvm::cast<llvm::Instruction>(r)->setFastMathFlags(fmf);
        b_->CreateStore(r, wide_acc);
        return absl::OkStatus();
      }
      if (j == loop_dims.size()) {
        std::vector<llvm::Value*> args;
        for (int64_t i = 0; i < n; ++i) args.push_back(b_->CreateLoad(RegisterType(types[i]), accumulators[i]));
        for (int64_t i = 0; i < n; ++i) {
          ASSIGN_OR_RETURN(llvm::Value* v, inputs[i](in));
          args.push_back(v);
        }
        llvm::FastMathFlags saved = b_->getFastMathFlags();
        if (reassociate) {
          llvm::FastMathFlags fmf;
          fmf.setAllowReassoc();
          b_->setFastMathFlags(fmf);
        }
        auto results = EmitScalarComputation(*reducer, args);
        b_->setFastMathFlags(saved);
        if (!results.ok()) return results.status();
        if (static_cast<int64_t>(results->size()) != n) return absl::InvalidArgumentError("reducer arity mismatch");
        for (int64_t i = 0; i < n; ++i) b_->CreateStore((*results)[i], accumulators[i]);
        return absl::OkStatus();
      }
      const int64_t d = loop_dims[j];
      return EmitForLoop(b_, I64(0), I64(input_shape->dimensions(static_cast<int>(d))), "r", [&](llvm::Value* i) {
        in.multi[d] = i;
        return level(j + 1);
      });
    };
    ClearCache();
    RETURN_IF_ERROR(level(0));
    ClearCache();
    if (widen) return NarrowFromF32(b_->CreateLoad(b_->getFloatTy(), wide_acc), types[0]);
    if (minmax) {
      llvm::Type* t = RegisterType(types[0]);
      llvm::Value* value = b_->CreateBitCast(key(b_->CreateLoad(key_type, key_acc)), t);
      return b_->CreateSelect(b_->CreateLoad(b_->getInt1Ty(), nan_seen), llvm::ConstantFP::getNaN(t), value);
    }
    if (n == 1) return static_cast<llvm::Value*>(b_->CreateLoad(RegisterType(types[0]), accumulators[0]));
    std::vector<llvm::Type*> member_types;
    for (int64_t i = 0; i < n; ++i) member_types.push_back(RegisterType(types[i]));
    llvm::Value* agg = llvm::UndefValue::get(llvm::StructType::get(b_->getContext(), member_types));
    for (int64_t i = 0; i < n; ++i) {
      agg = b_->CreateInsertValue(agg, b_->CreateLoad(RegisterType(types[i]), accumulators[i]), {static_cast<unsigned>(i)});
    }
    return agg;
  });
}

absl::StatusOr<Generator> ElementalEmitter::MakeFusionGenerator(const HloInstruction* hlo,
                                                                const OperandGenerator& operand) {
  if (hlo->to_apply() == nullptr) return UnimplementedOp(*hlo, "fusion without a computation");
  ASSIGN_OR_RETURN(FusionGenerators generators, MakeFusionGenerators(hlo, operand));
  return generators->at(hlo->to_apply()->root_instruction());
}

absl::StatusOr<Generator> ElementalEmitter::MakeGenerator(const HloInstruction* hlo, const OperandGenerator& operand) {
  const Shape shape = WithDefaultLayout(hlo->shape());
  if (shape.IsArray() && !IsSupportedElementType(shape.element_type())) {
    return UnimplementedOp(*hlo, absl::StrCat("element type ",
                                              std::string(primitive_util::LowercasePrimitiveTypeName(shape.element_type()))));
  }
  for (const HloInstruction* o : hlo->operands()) {
    if (o->shape().IsArray() && !IsSupportedElementType(o->shape().element_type())) {
      return UnimplementedOp(*hlo, absl::StrCat("operand type ",
                                                std::string(primitive_util::LowercasePrimitiveTypeName(o->shape().element_type()))));
    }
  }
  const HloOpcode op = hlo->opcode();
  if (op == HloOpcode::kBitcastConvert && shape.IsArray() && hlo->operand_count() == 1 &&
      hlo->operand(0)->shape().IsArray() &&
      hlo->operand(0)->shape().dimensions() != shape.dimensions()) {
    return MakeBitcastConvertGenerator(hlo, operand);
  }
  const bool elementwise = HloOpcodeCategoryOf(op) != HloOpcodeCategory::kOther;
  if (elementwise) {
    std::vector<Generator> gens;
    std::vector<bool> scalar;
    for (int64_t i = 0; i < hlo->operand_count(); ++i) {
      const Shape& os = hlo->operand(i)->shape();
      const bool is_scalar = os.IsArray() && os.rank() == 0 && shape.rank() != 0;
      if (!os.IsArray() || (!is_scalar && os.dimensions() != shape.dimensions())) {
        return UnimplementedOp(*hlo, absl::StrCat("operand shape ", os.ToString(), " differs from the result ",
                                                  shape.ToString()));
      }
      ASSIGN_OR_RETURN(Generator g, operand(i));
      gens.push_back(std::move(g));
      scalar.push_back(is_scalar);
    }
    return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      llvm::BasicBlock* block = b_->GetInsertBlock();
      if (shape.rank() > 0) {
        auto it = cache_.find(std::make_tuple(hlo, index.multi, block));
        if (it != cache_.end()) return it->second;
      } else {
        auto it = scalar_cache_.find(std::make_tuple(hlo, binding_, block));
        if (it != scalar_cache_.end()) return it->second;
      }
      std::vector<llvm::Value*> values;
      IrIndex scalar_index;
      for (size_t i = 0; i < gens.size(); ++i) {
        ASSIGN_OR_RETURN(llvm::Value* v, gens[i](scalar[i] ? scalar_index : index));
        values.push_back(v);
      }
      ASSIGN_OR_RETURN(llvm::Value* r, EmitElementwise(*hlo, values));
      // Kept for the block emission ended in (its operands may have emitted loops after
      // `block`), where later uses in that block find it.
      block = b_->GetInsertBlock();
      if (shape.rank() > 0) {
        cache_[std::make_tuple(hlo, index.multi, block)] = r;
      } else {
        scalar_cache_[std::make_tuple(hlo, binding_, block)] = r;
      }
      return r;
    });
  }
  switch (op) {
    case HloOpcode::kBroadcast: {
      ASSIGN_OR_RETURN(Generator g, operand(0));
      std::vector<int64_t> dims(hlo->dimensions().begin(), hlo->dimensions().end());
      // Malformed attributes are errors, not out-of-range indices in the emitter.
      const Shape& in = hlo->operand(0)->shape();
      bool ok = in.IsArray() && static_cast<int64_t>(dims.size()) == in.rank();
      for (size_t i = 0; ok && i < dims.size(); ++i) {
        ok = dims[i] >= 0 && dims[i] < shape.rank() &&
             shape.dimensions(static_cast<int>(dims[i])) == in.dimensions(static_cast<int>(i));
      }
      if (!ok) return absl::InvalidArgumentError(absl::StrCat("broadcast ", hlo->name(), ": bad dimensions"));
      return Generator([=](const IrIndex& index) {
        IrIndex in;
        for (int64_t d : dims) in.multi.push_back(index.multi[d]);
        return g(in);
      });
    }
    case HloOpcode::kReshape:
    case HloOpcode::kDynamicReshape:  // sizes checked in the entry function (ir_emitter.cc)
    case HloOpcode::kBitcast: {
      ASSIGN_OR_RETURN(Generator g, operand(0));
      auto in_shape = std::make_shared<Shape>(WithDefaultLayout(hlo->operand(0)->shape()));
      if (!in_shape->IsArray() || ShapeUtil::ElementsIn(*in_shape) != ShapeUtil::ElementsIn(shape)) {
        return UnimplementedOp(*hlo, "element counts differ");
      }
      auto row_major = std::make_shared<Shape>(ShapeUtil::MakeShapeWithDescendingLayout(shape.element_type(), shape.dimensions()));
      auto in_row_major = std::make_shared<Shape>(
          ShapeUtil::MakeShapeWithDescendingLayout(in_shape->element_type(), in_shape->dimensions()));
      return Generator([=](const IrIndex& index) {
        llvm::Value* linear = b_->getInt64(0);
        for (int64_t d = 0; d < shape.rank(); ++d) {
          linear = b_->CreateAdd(b_->CreateMul(linear, I64(shape.dimensions(static_cast<int>(d))), "", true, true),
                                 index.multi[d], "", true, true);
        }
        IrIndex in;
        in.linear = linear;
        in.linear_shape = in_row_major.get();
        in.multi.assign(in_shape->rank(), nullptr);
        llvm::Value* rest = linear;
        for (int64_t d = in_shape->rank() - 1; d >= 0; --d) {
          const int64_t size = in_shape->dimensions(static_cast<int>(d));
          in.multi[d] = d == 0 ? rest : b_->CreateURem(rest, I64(size));
          rest = b_->CreateUDiv(rest, I64(size));
        }
        return g(in);
      });
    }
    case HloOpcode::kTranspose: {
      ASSIGN_OR_RETURN(Generator g, operand(0));
      std::vector<int64_t> dims(hlo->dimensions().begin(), hlo->dimensions().end());
      std::vector<bool> seen(dims.size(), false);
      for (int64_t d : dims) {
        if (d < 0 || d >= static_cast<int64_t>(dims.size()) || seen[d] || dims.size() != static_cast<size_t>(shape.rank())) {
          return absl::InvalidArgumentError(absl::StrCat("transpose ", hlo->name(), ": dimensions are not a permutation"));
        }
        seen[d] = true;
      }
      return Generator([=](const IrIndex& index) {
        IrIndex in;
        in.multi.assign(dims.size(), nullptr);
        for (size_t i = 0; i < dims.size(); ++i) in.multi[dims[i]] = index.multi[i];
        return g(in);
      });
    }
    case HloOpcode::kReverse: {
      ASSIGN_OR_RETURN(Generator g, operand(0));
      std::vector<int64_t> dims(hlo->dimensions().begin(), hlo->dimensions().end());
      return Generator([=](const IrIndex& index) {
        IrIndex in;
        in.multi = index.multi;
        for (int64_t d : dims) in.multi[d] = b_->CreateSub(I64(shape.dimensions(static_cast<int>(d)) - 1), index.multi[d]);
        return g(in);
      });
    }
    case HloOpcode::kSlice: {
      ASSIGN_OR_RETURN(Generator g, operand(0));
      std::vector<int64_t> starts, strides;
      for (const auto& s : hlo->attrs().slice_dimensions()) {
        starts.push_back(s.start());
        strides.push_back(s.stride() == 0 ? 1 : s.stride());
      }
      if (static_cast<int64_t>(starts.size()) != shape.rank()) return UnimplementedOp(*hlo, "bad slice dimensions");
      return Generator([=](const IrIndex& index) {
        IrIndex in;
        for (size_t d = 0; d < starts.size(); ++d) {
          in.multi.push_back(b_->CreateAdd(b_->CreateMul(index.multi[d], I64(strides[d])), I64(starts[d])));
        }
        return g(in);
      });
    }
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice: {
      const bool update = op == HloOpcode::kDynamicUpdateSlice;
      const int64_t first_index = update ? 2 : 1;
      ASSIGN_OR_RETURN(Generator g, operand(0));
      Generator ug;
      if (update) {
        ASSIGN_OR_RETURN(ug, operand(1));
      }
      const Shape in_shape = hlo->operand(0)->shape();
      const Shape window = update ? hlo->operand(1)->shape() : shape;
      if (hlo->operand_count() != first_index + in_shape.rank()) return UnimplementedOp(*hlo, "needs scalar start indices");
      std::vector<Generator> starts;
      std::vector<PrimitiveType> start_types;
      for (int64_t i = first_index; i < hlo->operand_count(); ++i) {
        ASSIGN_OR_RETURN(Generator s, operand(i));
        starts.push_back(std::move(s));
        start_types.push_back(hlo->operand(i)->shape().element_type());
      }
      return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        std::vector<llvm::Value*> start;
        IrIndex scalar;
        for (size_t d = 0; d < starts.size(); ++d) {
          ASSIGN_OR_RETURN(llvm::Value* s, starts[d](scalar));
          const int64_t max_start = in_shape.dimensions(static_cast<int>(d)) - window.dimensions(static_cast<int>(d));
          start.push_back(Clamp64(b_, ToI64(b_, s, start_types[d]), 0, std::max<int64_t>(max_start, 0)));
        }
        if (!update) {
          IrIndex in;
          for (size_t d = 0; d < start.size(); ++d) in.multi.push_back(b_->CreateAdd(index.multi[d], start[d]));
          return g(in);
        }
        llvm::Value* inside = b_->getTrue();
        IrIndex ui;
        for (size_t d = 0; d < start.size(); ++d) {
          llvm::Value* rel = b_->CreateSub(index.multi[d], start[d]);
          const int64_t size = window.dimensions(static_cast<int>(d));
          inside = b_->CreateAnd(inside, b_->CreateAnd(b_->CreateICmpSGE(rel, I64(0)), b_->CreateICmpSLT(rel, I64(size))));
          ui.multi.push_back(Clamp64(b_, rel, 0, std::max<int64_t>(size - 1, 0)));
        }
        ASSIGN_OR_RETURN(llvm::Value* base, g(index));
        if (ShapeUtil::ElementsIn(window) == 0) return base;
        ASSIGN_OR_RETURN(llvm::Value* upd, ug(ui));
        return b_->CreateSelect(inside, upd, base);
      });
    }
    case HloOpcode::kConcatenate: {
      const int64_t dim = hlo->dimensions(0);
      std::vector<Generator> gens;
      std::vector<int64_t> offsets, sizes;
      int64_t offset = 0;
      for (int64_t i = 0; i < hlo->operand_count(); ++i) {
        ASSIGN_OR_RETURN(Generator g, operand(i));
        gens.push_back(std::move(g));
        offsets.push_back(offset);
        sizes.push_back(hlo->operand(i)->shape().dimensions(static_cast<int>(dim)));
        offset += sizes.back();
      }
      return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        llvm::Value* result = nullptr;
        for (size_t i = 0; i < gens.size(); ++i) {
          if (sizes[i] == 0) continue;
          IrIndex in;
          in.multi = index.multi;
          in.multi[dim] = Clamp64(b_, b_->CreateSub(index.multi[dim], I64(offsets[i])), 0, sizes[i] - 1);
          ASSIGN_OR_RETURN(llvm::Value* v, gens[i](in));
          result = result == nullptr ? v
                                     : b_->CreateSelect(b_->CreateICmpSGE(index.multi[dim], I64(offsets[i])), v, result);
        }
        if (result == nullptr) return absl::InternalError("concatenate of empty operands");
        return result;
      });
    }
    case HloOpcode::kPad: {
      ASSIGN_OR_RETURN(Generator g, operand(0));
      ASSIGN_OR_RETURN(Generator pad_value, operand(1));
      const Shape in_shape = hlo->operand(0)->shape();
      const PaddingConfig config = hlo->attrs().padding_config();
      if (config.dimensions_size() != in_shape.rank()) return UnimplementedOp(*hlo, "bad padding config");
      return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        IrIndex scalar;
        ASSIGN_OR_RETURN(llvm::Value* pv, pad_value(scalar));
        if (ShapeUtil::ElementsIn(in_shape) == 0) return pv;
        llvm::Value* valid = b_->getTrue();
        IrIndex in;
        for (int d = 0; d < in_shape.rank(); ++d) {
          const auto& c = config.dimensions(d);
          const int64_t step = c.interior_padding() + 1;
          llvm::Value* rel = b_->CreateSub(index.multi[d], I64(c.edge_padding_low()));
          llvm::Value* nonneg = b_->CreateICmpSGE(rel, I64(0));
          llvm::Value* safe_rel = b_->CreateSelect(nonneg, rel, I64(0));
          llvm::Value* q = step == 1 ? safe_rel : b_->CreateUDiv(safe_rel, I64(step));
          llvm::Value* on_grid = step == 1 ? b_->getTrue() : b_->CreateICmpEQ(b_->CreateURem(safe_rel, I64(step)), I64(0));
          llvm::Value* in_range = b_->CreateICmpSLT(q, I64(in_shape.dimensions(d)));
          valid = b_->CreateAnd(valid, b_->CreateAnd(nonneg, b_->CreateAnd(on_grid, in_range)));
          in.multi.push_back(Clamp64(b_, q, 0, in_shape.dimensions(d) - 1));
        }
        ASSIGN_OR_RETURN(llvm::Value* v, g(in));
        return b_->CreateSelect(valid, v, pv);
      });
    }
    case HloOpcode::kIota: {
      if (hlo->dimensions().size() != 1) return UnimplementedOp(*hlo, "iota needs one dimension");
      const int64_t dim = hlo->dimensions(0);
      if (dim < 0 || dim >= shape.rank()) return absl::InvalidArgumentError(absl::StrCat("iota ", hlo->name(), ": bad dimension"));
      const PrimitiveType t = shape.element_type();
      if (primitive_util::IsComplexType(t)) {
        // Storage bits of (index, 0): the real part in the low half, a zero imaginary part.
        const PrimitiveType real = t == C64 ? F32 : F64;
        const int half_bits = primitive_util::BitWidth(real);
        return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
          ASSIGN_OR_RETURN(llvm::Value* re, EmitConvert(index.multi[dim], S64, real));
          return b_->CreateZExt(b_->CreateBitCast(re, b_->getIntNTy(half_bits)), b_->getIntNTy(2 * half_bits));
        });
      }
      return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        return EmitConvert(index.multi[dim], S64, t);
      });
    }
    case HloOpcode::kConstant: {
      // Constants inside fusions: module globals.
      const Literal& literal = hlo->literal();
      auto* data = llvm::ConstantDataArray::getRaw(
          llvm::StringRef(static_cast<const char*>(literal.untyped_data()), literal.size_bytes()),
          literal.size_bytes(), b_->getInt8Ty());
      auto* global = new llvm::GlobalVariable(*module_, data->getType(), true, llvm::GlobalValue::PrivateLinkage, data,
                                              absl::StrCat("constant.", hlo->name()));
      global->setAlignment(llvm::Align(64));
      auto literal_shape = std::make_shared<Shape>(WithDefaultLayout(literal.shape()));
      return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        if (literal_shape->rank() == 0) return LoadElement(global, *literal_shape, IrIndex{{}, I64(0), literal_shape.get()});
        return LoadElement(global, *literal_shape, index);
      });
    }
    case HloOpcode::kReduce:
      return MakeReduceGenerator(hlo, operand);
    case HloOpcode::kDot:
      return MakeDotGenerator(hlo, operand);
    case HloOpcode::kRaggedAllToAll:
      return MakeRaggedAllToAllGenerator(hlo, operand);
    case HloOpcode::kRaggedDot:
    case HloOpcode::kScaledDot:
      return MakeContractionGenerator(hlo, operand);
    case HloOpcode::kConvolution:
      return MakeConvolutionGenerator(hlo, operand);
    case HloOpcode::kReduceWindow:
      return MakeReduceWindowGenerator(hlo, operand);
    case HloOpcode::kGetDimensionSize: {
      // Shapes are static here: the size is the dimension's extent (its bound).
      const Shape& in = hlo->operand(0)->shape();
      if (hlo->dimensions().size() != 1 || hlo->dimensions(0) < 0 || hlo->dimensions(0) >= in.rank() ||
          shape.rank() != 0 || !primitive_util::IsIntegralType(shape.element_type())) {
        return absl::InvalidArgumentError(absl::StrCat("get-dimension-size ", hlo->name(), ": bad dimension or result"));
      }
      llvm::Value* size = llvm::ConstantInt::get(RegisterType(shape.element_type()),
                                                 in.dimensions(static_cast<int>(hlo->dimensions(0))));
      return Generator([size](const IrIndex&) -> absl::StatusOr<llvm::Value*> { return size; });
    }
    case HloOpcode::kSetDimensionSize: {
      // The values are unchanged; static shapes keep the bound (as the interpreter).
      const Shape& in = hlo->operand(0)->shape();
      if (hlo->dimensions().size() != 1 || hlo->dimensions(0) < 0 || hlo->dimensions(0) >= in.rank() ||
          in.dimensions() != shape.dimensions()) {
        return absl::InvalidArgumentError(absl::StrCat("set-dimension-size ", hlo->name(), ": bad dimension"));
      }
      return operand(0);
    }
    case HloOpcode::kGather:
      return MakeGatherGenerator(hlo, operand);
    case HloOpcode::kStochasticConvert:
      return MakeStochasticConvertGenerator(hlo, operand);
    case HloOpcode::kMap:
      return MakeMapGenerator(hlo, operand);
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return MakeDeviceIdGenerator(hlo);
    case HloOpcode::kFusion:
      return MakeFusionGenerator(hlo, operand);
    case HloOpcode::kTuple: {
      std::vector<Generator> gens;
      for (int64_t i = 0; i < hlo->operand_count(); ++i) {
        if (!hlo->operand(i)->shape().IsArray()) return UnimplementedOp(*hlo, "nested tuple in a fusion");
        ASSIGN_OR_RETURN(Generator g, operand(i));
        gens.push_back(std::move(g));
      }
      return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        std::vector<llvm::Value*> values;
        std::vector<llvm::Type*> types;
        for (const auto& g : gens) {
          ASSIGN_OR_RETURN(llvm::Value* v, g(index));
          values.push_back(v);
          types.push_back(v->getType());
        }
        llvm::Value* agg = llvm::UndefValue::get(llvm::StructType::get(b_->getContext(), types));
        for (size_t i = 0; i < values.size(); ++i) agg = b_->CreateInsertValue(agg, values[i], {static_cast<unsigned>(i)});
        return agg;
      });
    }
    case HloOpcode::kGetTupleElement: {
      ASSIGN_OR_RETURN(Generator g, operand(0));
      const unsigned i = static_cast<unsigned>(hlo->tuple_index());
      return Generator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        ASSIGN_OR_RETURN(llvm::Value* agg, g(index));
        return b_->CreateExtractValue(agg, {i});
      });
    }
    default:
      return UnimplementedOp(*hlo);
  }
}

}  // namespace cpu
}  // namespace xla
