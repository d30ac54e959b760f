// Fusion kernels: the generators of every fused instruction, and the loops of a kernel.
// A fusion with row reductions inside (passes/fusion.h: reduce of x[R, ...] over all but the
// first dimension, used only along row-aligned paths to the root) computes each of them once
// per row of the kernel's outermost loop, before that row's elements: a softmax then reads each
// row from memory once and finds it in cache for its other passes, and rows split across
// threads like any loop.
//
// An expensive subexpression that a row reduction and the row's elements both need (softmax's
// exp(x - max), summed and then divided) is kept for the row in a stack buffer while the
// reduction computes it, and read back by the elements: computed once per element, not twice.
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

// A row kept in a stack buffer holds at most this many elements (64 KiB of f32).
constexpr int64_t kMaxRowCacheElements = 16384;

// The fused reduces that are not the root, in def-before-use order.
std::vector<const HloInstruction*> RowReductions(const HloInstruction& hlo) {
  std::vector<const HloInstruction*> reductions;
  if (hlo.opcode() != HloOpcode::kFusion || hlo.to_apply() == nullptr) return reductions;
  const HloComputation* fused = hlo.to_apply();
  for (const HloInstruction* inner : fused->MakeInstructionPostOrder()) {
    if (inner->opcode() == HloOpcode::kReduce && inner != fused->root_instruction()) reductions.push_back(inner);
  }
  return reductions;
}

bool IsTranscendentalOrDivide(HloOpcode op) {
  switch (op) {
    case HloOpcode::kExponential:
    case HloOpcode::kExponentialMinusOne:
    case HloOpcode::kLog:
    case HloOpcode::kLogPlusOne:
    case HloOpcode::kLogistic:
    case HloOpcode::kTanh:
    case HloOpcode::kSine:
    case HloOpcode::kCosine:
    case HloOpcode::kPower:
    case HloOpcode::kDivide:
    case HloOpcode::kSqrt:
    case HloOpcode::kRsqrt:
    case HloOpcode::kErf:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseOp(const HloInstruction& instruction) {
  return HloOpcodeCategoryOf(instruction.opcode()) != HloOpcodeCategory::kOther;
}

// Every use of `instruction` reads it at the index it is computed at: its users are
// elementwise ops of the same dimensions (recursively) up to the root, or reduces taking it
// as their input. Sets *by_reduction / *by_root when some path ends there. `checked` holds
// the users already found to qualify: each is walked once, however many paths reach it.
bool SameIndexUses(const HloInstruction& instruction, const HloInstruction& root, bool* by_reduction, bool* by_root,
                   std::set<const HloInstruction*>* checked) {
  if (&instruction == &root) {
    *by_root = true;
    return true;
  }
  for (const HloInstruction* user : instruction.users()) {
    if (user->opcode() == HloOpcode::kReduce) {
      if (user->operand(0) != &instruction || user->operand_count() != 2) return false;
      *by_reduction = true;
      continue;
    }
    if (!IsElementwiseOp(*user) || user->shape().dimensions() != instruction.shape().dimensions()) return false;
    if (checked->count(user) != 0) continue;
    if (!SameIndexUses(*user, root, by_reduction, by_root, checked)) return false;
    checked->insert(user);
  }
  return true;
}

// The fused instruction worth keeping per row, or null: an expensive elementwise value with
// the root's dimensions that both a row reduction and the root read at its own index.
const HloInstruction* RowCacheCandidate(const HloComputation& fused) {
  const HloInstruction* root = fused.root_instruction();
  const Shape& shape = root->shape();
  if (!shape.IsArray() || shape.rank() < 2 || !IsElementwiseOp(*root)) return nullptr;
  const int64_t row_elements = ShapeUtil::ElementsIn(shape) / std::max<int64_t>(1, shape.dimensions(0));
  if (row_elements > kMaxRowCacheElements) return nullptr;
  const HloInstruction* best = nullptr;
  // Post order: later candidates contain earlier ones, so the last one saves the most work.
  for (const HloInstruction* inner : fused.MakeInstructionPostOrder()) {
    if (!IsElementwiseOp(*inner) || !IsTranscendentalOrDivide(inner->opcode()) || !inner->shape().IsArray() ||
        inner->shape().dimensions() != shape.dimensions() ||
        primitive_util::BitWidth(inner->shape().element_type()) % 8 != 0) {
      continue;
    }
    bool by_reduction = false, by_root = false;
    std::set<const HloInstruction*> checked;
    if (SameIndexUses(*inner, *root, &by_reduction, &by_root, &checked) && by_reduction && by_root) best = inner;
  }
  return best;
}

// Keeps one row of `inner` in a stack buffer: the first evaluations (inside a row reduction's
// loop, which covers the whole row) compute and store, later ones load.
class RowCache {
 public:
  RowCache(ElementalEmitter* e, const HloInstruction* inner) : e_(e), inner_(inner) {
    const Shape& shape = inner->shape();
    for (int64_t d = 1; d < shape.rank(); ++d) row_dims_.push_back(shape.dimensions(static_cast<int>(d)));
    int64_t elements = 1;
    for (int64_t d : row_dims_) elements *= d;
    llvm::IRBuilder<>* b = e->b();
    llvm::Function* f = b->GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    type_ = e->RegisterType(shape.element_type());
    buffer_ = entry.CreateAlloca(type_, entry.getInt64(std::max<int64_t>(1, elements)));
    buffer_->setAlignment(llvm::Align(64));
  }

  // Installs the override; `stored()` tells whether a row has been written since Reset.
  void Install() {
    e_->SetFusedOverride(inner_, [this](const IrIndex& index, const Generator& compute) -> absl::StatusOr<llvm::Value*> {
      llvm::IRBuilder<>* b = e_->b();
      llvm::Value* slot = b->CreateInBoundsGEP(type_, buffer_, Offset(index));
      if (loading_) return b->CreateLoad(type_, slot);
      ASSIGN_OR_RETURN(llvm::Value* v, compute(index));
      b->CreateStore(v, slot);
      stored_ = true;
      return v;
    });
  }
  void Reset() { stored_ = loading_ = false; }
  void LoadFromNowOn() { loading_ = stored_; }

 private:
  // Row-major position of the index's non-row dimensions.
  llvm::Value* Offset(const IrIndex& index) {
    llvm::IRBuilder<>* b = e_->b();
    llvm::Value* offset = b->getInt64(0);
    for (size_t d = 0; d < row_dims_.size(); ++d) {
      offset = b->CreateAdd(b->CreateMul(offset, b->getInt64(row_dims_[d])), index.multi[d + 1]);
    }
    return offset;
  }

  ElementalEmitter* e_;
  const HloInstruction* inner_;
  std::vector<int64_t> row_dims_;
  llvm::Type* type_ = nullptr;
  llvm::AllocaInst* buffer_ = nullptr;
  bool stored_ = false, loading_ = false;
};

}  // namespace

Generator ElementalEmitter::OperandLookup(const std::map<const HloInstruction*, Generator>* generators,
                                          const HloInstruction* operand, std::shared_ptr<int64_t> evaluations,
                                          const HloInstruction* owner) {
  return [this, generators, operand, evaluations, owner](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    if (++*evaluations > kMostFusedEvaluations) {
      return absl::ResourceExhaustedError(absl::StrCat(
          owner->name(), ": emitting it evaluates its instructions more than ", kMostFusedEvaluations,
          " times (values combined along many paths at differing indices, such as slices of one value added level "
          "after level); the module is too costly to compile"));
    }
    if (generator_depth_ >= kMostGeneratorDepth) {
      return absl::ResourceExhaustedError(absl::StrCat(operand->name(), ": its value depends on a chain of more than ",
                                                       kMostGeneratorDepth,
                                                       " values each computed from the next; too deep to emit"));
    }
    ++generator_depth_;
    absl::StatusOr<llvm::Value*> value = generators->at(operand)(index);
    --generator_depth_;
    return value;
  };
}

absl::StatusOr<ElementalEmitter::FusionGenerators> ElementalEmitter::MakeFusionGenerators(
    const HloInstruction* hlo, const OperandGenerator& operand) {
  const HloComputation* fused = hlo->to_apply();
  if (fused == nullptr) {
    return absl::UnimplementedError(absl::StrCat("cpu backend: fusion ", hlo->name(), " has no computation"));
  }
  // `core`'s generators reach one another through its address (OperandLookup), so that none
  // holds the map that holds it; the generators handed out hold `core`, so that a copy taken
  // out of the returned map keeps working after the map is gone.
  auto core = std::make_shared<std::map<const HloInstruction*, Generator>>();
  auto evaluations = std::make_shared<int64_t>(0);
  const std::vector<HloInstruction*> order = fused->MakeInstructionPostOrder();
  for (const HloInstruction* inner : order) {
    // Held by value: a generator may keep it and ask for operands when it is called.
    OperandGenerator inner_operand = [this, map = core.get(), inner, evaluations, hlo](int64_t i)
        -> absl::StatusOr<Generator> { return OperandLookup(map, inner->operand(i), evaluations, hlo); };
    Generator generator;
    if (inner->opcode() == HloOpcode::kParameter) {
      ASSIGN_OR_RETURN(generator, operand(inner->parameter_number()));
    } else {
      ASSIGN_OR_RETURN(generator, MakeGenerator(inner, inner_operand));
    }
    (*core)[inner] = [this, inner, generator](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
      auto it = fused_overrides_.find(inner);
      if (it != fused_overrides_.end()) return it->second(index, generator);
      return generator(index);
    };
  }
  auto generators = std::make_shared<std::map<const HloInstruction*, Generator>>();
  for (const HloInstruction* inner : order) {
    (*generators)[inner] = [core, inner](const IrIndex& index) { return core->at(inner)(index); };
  }
  return generators;
}

absl::Status EmitKernelLoops(ElementalEmitter* e, const HloInstruction* hlo, const OperandGenerator& operand,
                             const Shape& iteration, llvm::Value* begin, llvm::Value* end,
                             const std::function<absl::Status(const IrIndex&)>& body) {
  const std::vector<const HloInstruction*> reductions = RowReductions(*hlo);
  llvm::IRBuilder<>* b = e->b();
  if (reductions.empty()) return EmitLoopNest(b, iteration, begin, end, body);
  if (iteration.rank() < 1 || iteration.layout().minor_to_major().back() != 0) {
    return absl::InternalError(absl::StrCat("fusion ", hlo->name(), " has row reductions but its output ",
                                            iteration.ToString(true), " is not row-major"));
  }
  ASSIGN_OR_RETURN(ElementalEmitter::FusionGenerators generators, e->MakeFusionGenerators(hlo, operand));
  std::unique_ptr<RowCache> cache;
  if (const HloInstruction* kept = RowCacheCandidate(*hlo->to_apply())) {
    cache = std::make_unique<RowCache>(e, kept);
    cache->Install();
  }
  absl::Status status = EmitForLoop(b, begin, end, "row", [&](llvm::Value* row) -> absl::Status {
    if (cache != nullptr) cache->Reset();
    IrIndex at_row;
    at_row.multi = {row};
    for (const HloInstruction* reduction : reductions) {
      ASSIGN_OR_RETURN(llvm::Value* value, generators->at(reduction)(at_row));
      e->SetFusedOverride(reduction, [value](const IrIndex&, const Generator&) -> absl::StatusOr<llvm::Value*> {
        return value;
      });
      if (cache != nullptr) cache->LoadFromNowOn();
    }
    return EmitLoopNest(b, iteration, row, b->CreateAdd(row, b->getInt64(1)), body);
  });
  e->ClearFusedOverrides();
  return status;
}

}  // namespace cpu
}  // namespace xla
