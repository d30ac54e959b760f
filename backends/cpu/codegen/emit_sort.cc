// sort: the kernel copies the operands into the outputs, then calls __xla_cpu_sort
// (runtime/sort.cc) on the outputs with the HLO comparator compiled to its own function,
// `i32 comparator(ptr* elements)`. When the comparator compares f(a) with f(b) by LT or GT for
// one operand's elements a and b (a plain compare, or JAX's, which first maps -0 to +0 and
// every NaN to one), it calls __xla_cpu_sort_keyed with a key function too,
// `i32 key(ptr element, ptr u64_key)`, so that lines are radix-sorted by unsigned keys.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/comparison_util.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

// A new internal function `name` of `type` in `module` whose entry block `body` emits
// through b (the insertion point is restored after); erased again when body fails.
absl::StatusOr<llvm::Function*> EmitFunction(llvm::IRBuilder<>* b, llvm::Module* module, llvm::FunctionType* type,
                                             const std::string& name,
                                             const std::function<absl::Status(llvm::Function*)>& body) {
  llvm::Function* f = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name, module);
  llvm::IRBuilderBase::InsertPoint saved = b->saveIP();
  b->SetInsertPoint(llvm::BasicBlock::Create(module->getContext(), "entry", f));
  absl::Status status = body(f);
  b->restoreIP(saved);
  if (!status.ok()) {
    f->eraseFromParent();
    return status;
  }
  return f;
}

// Emits the comparator of `hlo` over `types` (one per operand) into `module`.
absl::StatusOr<llvm::Function*> EmitComparator(ElementalEmitter* e, llvm::Module* module, const HloInstruction* hlo,
                                               const std::vector<PrimitiveType>& types) {
  llvm::IRBuilder<>* b = e->b();
  llvm::PointerType* ptr = llvm::PointerType::get(module->getContext(), 0);
  auto* type = llvm::FunctionType::get(b->getInt32Ty(), {ptr}, false);
  return EmitFunction(b, module, type, absl::StrCat("comparator.", hlo->name()), [&](llvm::Function* f) -> absl::Status {
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
  });
}

// A comparator `compare(f(p[2k]), f(p[2k+1])), direction=LT or GT` (f the same scalar
// function on both sides: elementwise ops and constants only).
struct SortKeyPlan {
  int64_t operand = 0;
  const HloInstruction* lhs = nullptr;  // f(p[2k])
  PrimitiveType type = PRIMITIVE_TYPE_INVALID;  // f's result type, compared
  ComparisonType comparison = ComparisonType::kFloat;
  bool descending = false;
  int64_t key_bits = 0;
};

bool IsKeyOp(HloOpcode op) {
  switch (op) {
    case HloOpcode::kConstant: case HloOpcode::kSelect: case HloOpcode::kCompare: case HloOpcode::kConvert:
    case HloOpcode::kNegate: case HloOpcode::kAbs: case HloOpcode::kAdd: case HloOpcode::kSubtract:
    case HloOpcode::kMultiply: case HloOpcode::kMaximum: case HloOpcode::kMinimum: case HloOpcode::kAnd:
    case HloOpcode::kOr: case HloOpcode::kXor: case HloOpcode::kNot: case HloOpcode::kIsFinite:
      return true;
    default:
      return false;
  }
}

// Whether `a` computes from parameter 2k what `b` computes from parameter 2k + 1 (*k is set by
// the first pair of parameters met).
bool Mirrored(const HloInstruction* a, const HloInstruction* b, std::optional<int64_t>* k) {
  if (a->opcode() == HloOpcode::kParameter || b->opcode() == HloOpcode::kParameter) {
    if (a->opcode() != b->opcode()) return false;
    const int64_t pa = a->parameter_number(), pb = b->parameter_number();
    if (pa % 2 != 0 || pb != pa + 1 || (k->has_value() && **k != pa / 2)) return false;
    *k = pa / 2;
    return a->shape() == b->shape();
  }
  if (!IsKeyOp(a->opcode()) || !ShapeUtil::IsScalar(a->shape())) return false;
  return a->Identical(
      *b, [&](const HloInstruction* x, const HloInstruction* y) { return Mirrored(x, y, k); },
      [](const HloComputation*, const HloComputation*) { return false; });
}

std::optional<SortKeyPlan> MatchSortKey(const HloInstruction& sort) {
  const HloComputation* comparator = sort.to_apply();
  if (comparator == nullptr) return std::nullopt;
  const HloInstruction* root = comparator->root_instruction();
  if (root->opcode() != HloOpcode::kCompare || root->operand_count() != 2) return std::nullopt;
  const std::optional<ComparisonDirection> dir = StringToComparisonDirection(root->attrs().comparison_direction());
  if (!dir.has_value() || (*dir != ComparisonDirection::kLt && *dir != ComparisonDirection::kGt)) return std::nullopt;
  SortKeyPlan plan;
  plan.type = root->operand(0)->shape().element_type();
  plan.comparison = DefaultComparisonType(plan.type);
  if (!root->attrs().comparison_type().empty()) {
    const std::optional<ComparisonType> parsed = StringToComparisonType(root->attrs().comparison_type());
    if (!parsed.has_value()) return std::nullopt;
    plan.comparison = *parsed;
  }
  const PrimitiveType t = plan.type;
  const bool is_float = t == F16 || t == BF16 || t == F32 || t == F64;
  const bool is_int = t == PRED || ((primitive_util::IsSignedIntegralType(t) || primitive_util::IsUnsignedIntegralType(t)) &&
                                    primitive_util::BitWidth(t) >= 8);
  const bool float_comparison = plan.comparison == ComparisonType::kFloat || plan.comparison == ComparisonType::kFloatTotalOrder;
  if (!(is_float && float_comparison) && !(is_int && !float_comparison)) return std::nullopt;
  std::optional<int64_t> k;
  if (!Mirrored(root->operand(0), root->operand(1), &k) || !k.has_value() || *k >= sort.operand_count()) {
    return std::nullopt;
  }
  plan.operand = *k;
  plan.lhs = root->operand(0);
  plan.descending = *dir == ComparisonDirection::kGt;
  plan.key_bits = t == PRED ? 8 : primitive_util::BitWidth(t);
  return plan;
}

// `i32 key(ptr element, ptr key)` for `plan`: f of the element, as an unsigned key in the
// sort's order, complemented for GT (XlaCpuSortKey, runtime.h). Float comparisons (not total order) first map
// -0 to +0, which they do not tell apart, and report NaNs, which they do not order.
absl::StatusOr<llvm::Function*> EmitSortKey(ElementalEmitter* e, llvm::Module* module, const HloInstruction* hlo,
                                            const SortKeyPlan& plan, PrimitiveType element_type) {
  llvm::IRBuilder<>* b = e->b();
  llvm::PointerType* ptr = llvm::PointerType::get(module->getContext(), 0);
  auto* type = llvm::FunctionType::get(b->getInt32Ty(), {ptr, ptr}, false);
  return EmitFunction(b, module, type, absl::StrCat("sort_key.", hlo->name()), [&](llvm::Function* f) -> absl::Status {
    Shape scalar = ShapeUtil::MakeShape(element_type, {});
    ShapeUtil::SetDefaultLayoutsIfMissing(&scalar);
    llvm::Value* x = e->LoadElement(f->getArg(0), scalar, IrIndex{{}, b->getInt64(0), &scalar});
    // The whole comparator with x for both of the keyed operand's parameters (the other
    // parameters are unused); f(x) is its root's first operand.
    const HloComputation& comparator = *hlo->to_apply();
    std::vector<llvm::Value*> args(comparator.num_parameters());
    for (const HloInstruction* p : comparator.parameter_instructions()) {
      args.at(p->parameter_number()) = p->parameter_number() / 2 == plan.operand
                                           ? x
                                           : llvm::PoisonValue::get(e->RegisterType(p->shape().element_type()));
    }
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> fx, e->EmitScalarComputation(comparator, args, plan.lhs));
    llvm::Value* v = fx.at(0);
    const int64_t bits = plan.key_bits;
    llvm::Type* int_type = b->getIntNTy(static_cast<unsigned>(bits));
    llvm::Value* unordered = b->getFalse();
    llvm::Value* key;
    if (primitive_util::IsFloatingPointType(plan.type)) {
      llvm::Value* raw = b->CreateBitCast(v, int_type);
      if (plan.comparison == ComparisonType::kFloat) {
        llvm::Value* wide = plan.type == F16 || plan.type == BF16 ? e->WidenToF32(v, plan.type) : v;
        unordered = b->CreateFCmpUNO(wide, wide);
        llvm::Value* zero = b->CreateFCmpOEQ(wide, llvm::ConstantFP::get(wide->getType(), 0.0));
        raw = b->CreateSelect(zero, llvm::ConstantInt::get(int_type, 0), raw);
      }
      // Negatives' magnitude bits flipped: signed integers then order as the floats do.
      key = b->CreateXor(raw, b->CreateLShr(b->CreateAShr(raw, bits - 1), 1));
      key = b->CreateXor(key, llvm::ConstantInt::get(int_type, llvm::APInt::getSignMask(static_cast<unsigned>(bits))));
    } else if (plan.type == PRED) {
      key = b->CreateZExt(v, int_type);
    } else {
      key = v;
      if (plan.comparison == ComparisonType::kSigned) {
        key = b->CreateXor(key, llvm::ConstantInt::get(int_type, llvm::APInt::getSignMask(static_cast<unsigned>(bits))));
      }
    }
    if (plan.descending) key = b->CreateNot(key);  // the complement orders the other way
    b->CreateStore(b->CreateZExt(key, b->getInt64Ty()), f->getArg(1));
    b->CreateRet(b->CreateZExt(unordered, b->getInt32Ty()));
    return absl::OkStatus();
  });
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
  std::vector<llvm::Value*> args = {b->getInt64(outer), b->getInt64(shape.dimensions(static_cast<int>(dim))),
                                    b->getInt64(inner), b->getInt64(n), data, widths, comparator};
  const std::optional<SortKeyPlan> plan = MatchSortKey(*hlo);
  if (plan.has_value()) {
    ASSIGN_OR_RETURN(llvm::Function* key, EmitSortKey(e, module, hlo, *plan, types[plan->operand]));
    args.insert(args.end(), {key, b->getInt64(plan->operand), b->getInt64(plan->key_bits)});
    llvm::FunctionCallee sort = module->getOrInsertFunction(
        "__xla_cpu_sort_keyed",
        llvm::FunctionType::get(b->getVoidTy(), {i64, i64, i64, i64, ptr, ptr, ptr, ptr, i64, i64}, false));
    b->CreateCall(sort, args);
    return absl::OkStatus();
  }
  llvm::FunctionCallee sort = module->getOrInsertFunction(
      "__xla_cpu_sort", llvm::FunctionType::get(b->getVoidTy(), {i64, i64, i64, i64, ptr, ptr, ptr}, false));
  b->CreateCall(sort, args);
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace xla
