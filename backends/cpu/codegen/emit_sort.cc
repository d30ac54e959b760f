// sort: the kernel copies the operands into the outputs, then calls __xla_cpu_sort
// (runtime/sort.cc) on the outputs with the HLO comparator compiled to its own function,
// `i32 comparator(ptr* elements)`. When the comparator compares f(a) with f(b) by LT or GT for
// one operand's elements a and b (a plain compare, or JAX's, which first maps -0 to +0 and
// every NaN to one), or is lexicographic over several such keys (JAX's for num_keys > 1 or
// complex operands, XLA's comparator generator), it calls __xla_cpu_sort_by_keys with a key
// function per key too, `i32 key(ptr element, ptr u64_key)`, so that lines are radix-sorted by
// unsigned keys.
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

// One key of a comparator: `compare(f(p[2k]), f(p[2k+1])), direction=LT or GT`, or with its
// operands swapped (f the same scalar function on both sides: elementwise ops and constants
// only).
struct SortKeyPlan {
  int64_t operand = 0;
  const HloInstruction* lhs = nullptr;  // f(p[2k])
  const HloInstruction* rhs = nullptr;  // f(p[2k+1])
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
    case HloOpcode::kReal: case HloOpcode::kImag:
      return true;
    default:
      return false;
  }
}

// Steps the key match may take: comparing expressions that share subexpressions visits each
// path, so a comparator built to double them at every level would otherwise take 2^depth
// steps. A match that runs out is no match (the comparator sorts).
struct MatchBudget {
  int64_t steps = int64_t{1} << 16;
};

// Whether `a` computes from its parameters what `b` computes from parameters `shift` further
// on: 2k + 1 for 2k when shift is 1 (*k is then set by the first pair of parameters met), the
// same parameters when shift is 0.
bool Mirrored(const HloInstruction* a, const HloInstruction* b, std::optional<int64_t>* k, MatchBudget& budget,
              int64_t shift = 1) {
  if (--budget.steps < 0) return false;
  if (shift == 0 && a == b) return true;
  if (a->opcode() == HloOpcode::kParameter || b->opcode() == HloOpcode::kParameter) {
    if (a->opcode() != b->opcode()) return false;
    const int64_t pa = a->parameter_number(), pb = b->parameter_number();
    if (pb != pa + shift) return false;
    if (shift == 1) {
      if (pa % 2 != 0 || (k->has_value() && **k != pa / 2)) return false;
      *k = pa / 2;
    }
    return a->shape() == b->shape();
  }
  if (!IsKeyOp(a->opcode()) || !ShapeUtil::IsScalar(a->shape())) return false;
  return a->Identical(
      *b, [&](const HloInstruction* x, const HloInstruction* y) { return Mirrored(x, y, k, budget, shift); },
      [](const HloComputation*, const HloComputation*) { return false; });
}

// A compare's direction and comparison type (its operands' default when not stated).
std::optional<std::pair<ComparisonDirection, ComparisonType>> CompareOf(const HloInstruction* h) {
  if (h->opcode() != HloOpcode::kCompare || h->operand_count() != 2) return std::nullopt;
  const std::optional<ComparisonDirection> dir = StringToComparisonDirection(h->attrs().comparison_direction());
  if (!dir.has_value()) return std::nullopt;
  ComparisonType type = DefaultComparisonType(h->operand(0)->shape().element_type());
  if (!h->attrs().comparison_type().empty()) {
    const std::optional<ComparisonType> parsed = StringToComparisonType(h->attrs().comparison_type());
    if (!parsed.has_value()) return std::nullopt;
    type = *parsed;
  }
  return std::make_pair(*dir, type);
}

std::optional<SortKeyPlan> MatchKeyCompare(const HloInstruction* root, int64_t operand_count, MatchBudget& budget) {
  const auto compare = CompareOf(root);
  if (!compare.has_value()) return std::nullopt;
  if (compare->first != ComparisonDirection::kLt && compare->first != ComparisonDirection::kGt) return std::nullopt;
  SortKeyPlan plan;
  plan.type = root->operand(0)->shape().element_type();
  plan.comparison = compare->second;
  const PrimitiveType t = plan.type;
  const bool is_float = t == F16 || t == BF16 || t == F32 || t == F64;
  const bool is_int = t == PRED || ((primitive_util::IsSignedIntegralType(t) || primitive_util::IsUnsignedIntegralType(t)) &&
                                    primitive_util::BitWidth(t) >= 8);
  const bool float_comparison = plan.comparison == ComparisonType::kFloat || plan.comparison == ComparisonType::kFloatTotalOrder;
  if (!(is_float && float_comparison) && !(is_int && !float_comparison)) return std::nullopt;
  // compare(f(p[2k+1]), f(p[2k])) orders the other way.
  std::optional<int64_t> k;
  const bool swapped = !Mirrored(root->operand(0), root->operand(1), &k, budget);
  if (swapped && !Mirrored(root->operand(1), root->operand(0), &(k = std::nullopt), budget)) return std::nullopt;
  if (!k.has_value() || *k >= operand_count) return std::nullopt;
  plan.operand = *k;
  plan.lhs = root->operand(swapped ? 1 : 0);
  plan.rhs = root->operand(swapped ? 0 : 1);
  plan.descending = (compare->first == ComparisonDirection::kGt) != swapped;
  plan.key_bits = t == PRED ? 1 : primitive_util::BitWidth(t);
  return plan;
}

// Whether `h` is `compare(f(a), f(b)), direction=want` (or with f(a) and f(b) swapped) for
// key's f, a and b, of key's comparison type: the keys' equality (or inequality) then.
bool ComparesKey(const HloInstruction* h, ComparisonDirection want, const SortKeyPlan& key, MatchBudget& budget) {
  const auto compare = CompareOf(h);
  if (!compare.has_value() || compare->first != want || compare->second != key.comparison) return false;
  std::optional<int64_t> unused;
  const auto same = [&](const HloInstruction* x, const HloInstruction* y) {
    return Mirrored(x, y, &unused, budget, /*shift=*/0);
  };
  return (same(h->operand(0), key.lhs) && same(h->operand(1), key.rhs)) ||
         (same(h->operand(0), key.rhs) && same(h->operand(1), key.lhs));
}

// Appends to `keys` the keys of a lexicographic comparator rooted at `h`, most significant
// first: one key's compare, or `lt0 | (eq0 & rest)` (JAX's form, either operand order of | and
// &), `select(eq0, rest, lt0)` (XLA's comparator generator) or `select(ne0, lt0, rest)`, where
// lt0 orders by a key and eq0 (ne0) tells whether two elements' keys are equal (differ).
bool MatchKeys(const HloInstruction* h, int64_t operand_count, std::vector<SortKeyPlan>* keys, MatchBudget& budget) {
  // A level of recursion per key: comparators of more keys than kMostSortKeys keep the
  // comparator rather than recurse without bound.
  constexpr size_t kMostSortKeys = 64;
  if (keys->size() >= kMostSortKeys || !ShapeUtil::IsScalar(h->shape())) return false;
  if (std::optional<SortKeyPlan> key = MatchKeyCompare(h, operand_count, budget)) {
    keys->push_back(*key);
    return true;
  }
  // (first, tie, rest): `first` orders by a key; where `tie` holds (its keys equal), `rest` decides.
  const auto try_split = [&](const HloInstruction* first, const HloInstruction* tie, ComparisonDirection tie_direction,
                             const HloInstruction* rest) {
    std::optional<SortKeyPlan> key = MatchKeyCompare(first, operand_count, budget);
    if (!key.has_value() || !ComparesKey(tie, tie_direction, *key, budget)) return false;
    keys->push_back(*key);
    return MatchKeys(rest, operand_count, keys, budget);
  };
  const size_t before = keys->size();
  const auto attempt = [&](bool matched) {
    if (!matched) keys->resize(before);
    return matched;
  };
  if (h->opcode() == HloOpcode::kOr && h->operand_count() == 2) {
    for (int side = 0; side < 2; ++side) {
      const HloInstruction* first = h->operand(side);
      const HloInstruction* both = h->operand(1 - side);
      if (both->opcode() != HloOpcode::kAnd || both->operand_count() != 2) continue;
      for (int t = 0; t < 2; ++t) {
        if (attempt(try_split(first, both->operand(t), ComparisonDirection::kEq, both->operand(1 - t)))) return true;
      }
    }
    return false;
  }
  if (h->opcode() == HloOpcode::kSelect && h->operand_count() == 3) {
    return attempt(try_split(h->operand(2), h->operand(0), ComparisonDirection::kEq, h->operand(1))) ||
           attempt(try_split(h->operand(1), h->operand(0), ComparisonDirection::kNe, h->operand(2)));
  }
  return false;
}

std::vector<SortKeyPlan> MatchSortKeys(const HloInstruction& sort) {
  std::vector<SortKeyPlan> keys;
  MatchBudget budget;
  if (sort.to_apply() == nullptr ||
      !MatchKeys(sort.to_apply()->root_instruction(), sort.operand_count(), &keys, budget)) {
    keys.clear();
  }
  return keys;
}

// `i32 key(ptr element, ptr key)` for `plan`: f of the element, as an unsigned key in the
// sort's order, complemented for GT (XlaCpuSortKey, runtime.h). Float comparisons (not total order) first map
// -0 to +0, which they do not tell apart, and report NaNs, which they do not order.
absl::StatusOr<llvm::Function*> EmitSortKey(ElementalEmitter* e, llvm::Module* module, const HloInstruction* hlo,
                                            const SortKeyPlan& plan, PrimitiveType element_type, int64_t index) {
  llvm::IRBuilder<>* b = e->b();
  llvm::PointerType* ptr = llvm::PointerType::get(module->getContext(), 0);
  auto* type = llvm::FunctionType::get(b->getInt32Ty(), {ptr, ptr}, false);
  const std::string name = absl::StrCat("sort_key", index, ".", hlo->name());
  return EmitFunction(b, module, type, name, [&](llvm::Function* f) -> absl::Status {
    Shape scalar = ShapeUtil::MakeShape(element_type, {});
    ShapeUtil::SetDefaultLayoutsIfMissing(&scalar);
    llvm::Value* x = e->LoadElement(f->getArg(0), scalar, IrIndex{{}, b->getInt64(0), &scalar});
    // The whole comparator with x for both of the keyed operand's parameters (the other
    // parameters are unused); f(x) is plan.lhs.
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
  const std::vector<SortKeyPlan> keys = MatchSortKeys(*hlo);
  if (!keys.empty()) {
    const int64_t m = static_cast<int64_t>(keys.size());
    llvm::AllocaInst* key_functions = entry.CreateAlloca(ptr, b->getInt64(m));
    llvm::AllocaInst* key_operands = entry.CreateAlloca(i64, b->getInt64(m));
    llvm::AllocaInst* key_bits = entry.CreateAlloca(i64, b->getInt64(m));
    for (int64_t j = 0; j < m; ++j) {
      const SortKeyPlan& plan = keys[j];
      ASSIGN_OR_RETURN(llvm::Function* key,
                       EmitSortKey(e, module, hlo, plan, types[plan.operand], j));
      b->CreateStore(key, b->CreateInBoundsGEP(ptr, key_functions, b->getInt64(j)));
      b->CreateStore(b->getInt64(plan.operand), b->CreateInBoundsGEP(i64, key_operands, b->getInt64(j)));
      b->CreateStore(b->getInt64(plan.key_bits), b->CreateInBoundsGEP(i64, key_bits, b->getInt64(j)));
    }
    args.insert(args.end(), {b->getInt64(m), key_functions, key_operands, key_bits});
    llvm::FunctionCallee sort = module->getOrInsertFunction(
        "__xla_cpu_sort_by_keys",
        llvm::FunctionType::get(b->getVoidTy(), {i64, i64, i64, i64, ptr, ptr, ptr, i64, ptr, ptr, ptr}, false));
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
