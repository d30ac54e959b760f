#include "backends/cpu/passes/fusion.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/passes/pass_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

bool IsFusibleElementwise(const HloInstruction& instruction) {
  if (!IsElementwise(instruction)) return false;
  return instruction.opcode() != HloOpcode::kCopy && instruction.opcode() != HloOpcode::kBitcastConvert;
}

bool HasStaticArrayShape(const HloInstruction& instruction) {
  return instruction.shape().IsArray() && instruction.shape().is_static();
}

// May be placed inside a fused computation (as a producer).
bool IsFusibleProducer(const HloInstruction& instruction) {
  if (!HasStaticArrayShape(instruction) || !instruction.control_predecessors().empty() ||
      !instruction.control_successors().empty()) {
    return false;
  }
  for (const HloInstruction* operand : instruction.operands()) {
    if (!HasStaticArrayShape(*operand)) return false;
  }
  switch (instruction.opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kIota:
      return true;
    case HloOpcode::kConstant:
      return ShapeUtil::IsEffectiveScalar(instruction.shape());
    default:
      return IsFusibleElementwise(instruction);
  }
}

bool IsDataMovement(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
      return true;
    default:
      return false;
  }
}

bool IsFusibleReduce(const HloInstruction& instruction) {
  if (instruction.opcode() != HloOpcode::kReduce || !instruction.control_predecessors().empty() ||
      !instruction.control_successors().empty() || !instruction.shape().is_static()) {
    return false;
  }
  for (const HloInstruction* operand : instruction.operands()) {
    if (!HasStaticArrayShape(*operand)) return false;
  }
  return !HasSideEffect(instruction);
}

// Transcendental and division-like ops: recomputing them costs more than a memory pass.
bool IsExpensive(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kExponential:
    case HloOpcode::kExponentialMinusOne:
    case HloOpcode::kLog:
    case HloOpcode::kLogPlusOne:
    case HloOpcode::kLogistic:
    case HloOpcode::kTanh:
    case HloOpcode::kSine:
    case HloOpcode::kCosine:
    case HloOpcode::kTan:
    case HloOpcode::kSinh:
    case HloOpcode::kCosh:
    case HloOpcode::kAtan2:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtanh:
    case HloOpcode::kPower:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kSqrt:
    case HloOpcode::kRsqrt:
    case HloOpcode::kCbrt:
    case HloOpcode::kErf:
      return true;
    default:
      return false;
  }
}

// reduce(x[R, ...]) over every dimension but the first: one value per row.
bool IsRowReduction(const HloInstruction& instruction) {
  if (!IsFusibleReduce(instruction) || instruction.operand_count() != 2 || !instruction.shape().IsArray() ||
      instruction.shape().rank() != 1) {
    return false;
  }
  const Shape& input = instruction.operand(0)->shape();
  if (input.rank() < 2 || input.dimensions(0) != instruction.shape().dimensions(0)) return false;
  std::vector<int64_t> dims(instruction.dimensions().begin(), instruction.dimensions().end());
  std::sort(dims.begin(), dims.end());
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != static_cast<int64_t>(i) + 1) return false;
  }
  return static_cast<int64_t>(dims.size()) == input.rank() - 1;
}

// Row-major (or without a layout yet): dimension 0 is the outermost loop of a kernel.
bool RowMajor(const Shape& shape) {
  return !shape.has_layout() || shape.rank() == 0 || ShapeUtil::HasDescendingLayout(shape);
}

// A consumer that could itself take `producer` into a fusion later.
bool IsFusibleConsumer(const HloInstruction& user) {
  return IsFusibleElementwise(user) || IsFusibleReduce(user) || IsDataMovement(user) ||
         user.opcode() == HloOpcode::kFusion;
}

class FusionGroup {
 public:
  explicit FusionGroup(HloInstruction* root) : root_(root) { Add(root); }

  bool Contains(const HloInstruction* instruction) const { return members_.contains(instruction); }
  const std::vector<HloInstruction*>& members() const { return order_; }
  HloInstruction* root() const { return root_; }
  int64_t size() const { return static_cast<int64_t>(order_.size()); }
  void Add(HloInstruction* instruction) {
    if (members_.insert(instruction).second) order_.push_back(instruction);
  }

  // Users of `instruction` outside the group (the computation's root role counts as one).
  int64_t OutsideUses(const HloInstruction* instruction) const {
    int64_t n = instruction == instruction->parent()->root_instruction() ? 1 : 0;
    for (const HloInstruction* user : instruction->users()) n += !Contains(user);
    return n;
  }

 private:
  HloInstruction* root_;
  absl::flat_hash_set<const HloInstruction*> members_;
  std::vector<HloInstruction*> order_;
};

// Row r of `instruction` depends only on row r of its operands along a path to the root,
// whose first dimension has `rows` elements: elementwise ops, broadcasts keeping dimension 0
// first, row reductions. A row reduction whose users are all row aligned can be computed once
// per row of the fusion's outermost loop (codegen/fusion_emitter.cc).
bool IsRowAlignedOp(const HloInstruction& instruction, int64_t rows) {
  const Shape& shape = instruction.shape();
  if (!shape.IsArray() || shape.rank() < 1 || shape.dimensions(0) != rows || !RowMajor(shape)) return false;
  const HloOpcode op = instruction.opcode();
  bool kind_ok = IsRowReduction(instruction);
  if (IsFusibleElementwise(instruction)) {
    kind_ok = true;
    for (const HloInstruction* operand : instruction.operands()) {
      if (operand->shape().rank() != 0 && operand->shape().dimensions() != shape.dimensions()) kind_ok = false;
    }
  }
  if (op == HloOpcode::kBroadcast) {
    kind_ok = !instruction.dimensions().empty() && instruction.dimensions()[0] == 0;
  }
  return kind_ok;
}

bool IsRowAligned(const HloInstruction& instruction, const FusionGroup& group, int64_t rows,
                  absl::flat_hash_map<const HloInstruction*, bool>* memo) {
  if (auto it = memo->find(&instruction); it != memo->end()) return it->second;
  bool aligned = true;
  for (const HloInstruction* user : instruction.users()) {
    if (group.Contains(user) && !IsRowAligned(*user, group, rows, memo)) aligned = false;
  }
  aligned = aligned && IsRowAlignedOp(instruction, rows);
  (*memo)[&instruction] = aligned;
  return aligned;
}

// A row reduction used only inside `group`, along row-aligned paths to its root.
bool IsFusibleRowReduction(const HloInstruction& producer, const FusionGroup& group) {
  const Shape& root = group.root()->shape();
  if (!IsRowReduction(producer) || !root.IsArray() || root.rank() < 1 || !RowMajor(root) ||
      !RowMajor(producer.operand(0)->shape()) || group.OutsideUses(&producer) > 0) {
    return false;
  }
  absl::flat_hash_map<const HloInstruction*, bool> memo;
  for (const HloInstruction* user : producer.users()) {
    if (!IsRowAligned(*user, group, root.dimensions(0), &memo)) return false;
  }
  return true;
}

bool MayDuplicate(const HloInstruction& producer, const FusionGroup& group) {
  if (producer.opcode() == HloOpcode::kReduce) return false;
  if (!IsExpensive(producer)) {
    // Elementwise work is recomputed per consumer; keep that to consumers that fuse it.
    if (producer.opcode() == HloOpcode::kBroadcast || producer.opcode() == HloOpcode::kIota ||
        producer.opcode() == HloOpcode::kConstant) {
      return true;
    }
    for (const HloInstruction* user : producer.users()) {
      if (!group.Contains(user) && !IsFusibleConsumer(*user)) return false;
    }
    return producer.users().size() <= 4;
  }
  if (producer.users().size() > 2 || producer.parent()->root_instruction() == &producer) return false;
  for (const HloInstruction* user : producer.users()) {
    if (!group.Contains(user) && !IsFusibleConsumer(*user)) return false;
  }
  return true;
}

// Grows a group from its root: first every producer used only inside the group (to a
// fixed point, so diamonds close), then one duplicated producer at a time.
void Grow(FusionGroup* group) {
  while (group->size() < CpuFusion::kMaxFusedInstructions) {
    bool added = false;
    for (bool allow_duplicates : {false, true}) {
      for (size_t m = 0; m < group->members().size() && !added; ++m) {
        HloInstruction* member = group->members()[m];
        for (HloInstruction* producer : member->operands()) {
          if (group->Contains(producer)) continue;
          if (!IsFusibleProducer(*producer) && !IsFusibleRowReduction(*producer, *group)) continue;
          if (group->OutsideUses(producer) > 0 && (!allow_duplicates || !MayDuplicate(*producer, *group))) {
            continue;
          }
          group->Add(producer);
          added = true;
          if (allow_duplicates) break;  // re-run the move-only round before duplicating more
        }
        if (added && allow_duplicates) break;
      }
      if (added) break;
    }
    if (!added) return;
  }
}

// Builds the fusion instruction for `group` in `computation`, replaces the root with it and
// removes the members nobody outside uses any more. Returns the removed instructions.
absl::StatusOr<std::vector<HloInstruction*>> Materialize(const FusionGroup& group, HloComputation* computation) {
  HloModule* module = computation->parent();
  HloInstruction* root = group.root();
  const bool is_reduce = root->opcode() == HloOpcode::kReduce;
  auto fused = std::make_unique<HloComputation>(module->UniqueComputationName(
      is_reduce ? "fused_reduce" : "fused_computation"));
  fused->set_is_fusion_computation(true);

  // Members in a def-before-use order: the computation's post order restricted to them.
  std::vector<HloInstruction*> ordered;
  for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
    if (group.Contains(instruction)) ordered.push_back(instruction);
  }
  // Outside values become parameters, numbered in first-use order and listed first.
  std::vector<HloInstruction*> fusion_operands;
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> mapped;
  for (HloInstruction* member : ordered) {
    for (HloInstruction* operand : member->operands()) {
      if (group.Contains(operand) || mapped.contains(operand)) continue;
      const int64_t number = static_cast<int64_t>(fusion_operands.size());
      auto parameter = HloInstruction::Create(HloOpcode::kParameter, operand->shape());
      parameter->mutable_attrs()->set_parameter_number(number);
      parameter->set_name(absl::StrCat("param_", number));
      mapped[operand] = fused->AddInstruction(std::move(parameter));
      fusion_operands.push_back(operand);
    }
  }
  for (HloInstruction* member : ordered) {
    std::vector<HloInstruction*> operands;
    for (HloInstruction* operand : member->operands()) operands.push_back(mapped.at(operand));
    mapped[member] = fused->AddInstruction(member->CloneWithNewOperands(member->shape(), operands));
  }
  fused->set_root_instruction(mapped.at(root));
  HloComputation* fused_raw = module->AddEmbeddedComputation(std::move(fused));

  auto fusion = HloInstruction::Create(HloOpcode::kFusion, root->shape(), fusion_operands);
  fusion->mutable_attrs()->set_fusion_kind(is_reduce ? "kInput" : "kLoop");
  fusion->AppendComputation(fused_raw);
  HloInstruction* fusion_raw = computation->AddInstructionWithUniqueName(std::move(fusion), "fusion");
  RETURN_IF_ERROR(computation->ReplaceInstruction(root, fusion_raw));

  std::vector<HloInstruction*> removed = {root};
  // Remaining members: remove those left without users (users first).
  for (auto it = ordered.rbegin(); it != ordered.rend(); ++it) {
    HloInstruction* member = *it;
    if (member == root) continue;
    if (member->users().empty() && member != computation->root_instruction()) {
      RETURN_IF_ERROR(computation->RemoveInstruction(member));
      removed.push_back(member);
    }
  }
  return removed;
}

bool IsRootCandidate(const HloInstruction& instruction) {
  if (IsFusibleReduce(instruction)) return true;
  return IsFusibleProducer(instruction) && instruction.opcode() != HloOpcode::kConstant &&
         instruction.opcode() != HloOpcode::kIota;
}

// A group worth a fusion: some producer besides constants joined the root, and there is
// elementwise or reduce work (a lone chain of reshapes or broadcasts, or an op with only
// its constant operands, stays as it is).
bool WorthFusing(const FusionGroup& group) {
  bool has_work = false;
  bool has_producer = false;
  for (const HloInstruction* member : group.members()) {
    if (IsFusibleElementwise(*member) || member->opcode() == HloOpcode::kReduce) has_work = true;
    if (member != group.root() && member->opcode() != HloOpcode::kConstant) has_producer = true;
  }
  return has_work && has_producer;
}

absl::StatusOr<bool> FuseComputation(HloComputation* computation) {
  bool changed = false;
  std::vector<HloInstruction*> order = computation->MakeInstructionPostOrder();
  absl::flat_hash_set<const HloInstruction*> gone;
  // Consumers first, so that each group starts from the last op of its chain.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* instruction = *it;
    if (gone.contains(instruction) || !IsRootCandidate(*instruction)) continue;
    FusionGroup group(instruction);
    Grow(&group);
    if (!WorthFusing(group)) continue;
    ASSIGN_OR_RETURN(std::vector<HloInstruction*> removed, Materialize(group, computation));
    for (HloInstruction* r : removed) gone.insert(r);
    changed = true;
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> CpuFusion::Run(HloModule* module) {
  // Computations that run as control flow (entry, while/conditional/call bodies).
  absl::flat_hash_set<const HloComputation*> control;
  if (module->entry_computation() != nullptr) control.insert(module->entry_computation());
  std::vector<HloComputation*> post_order = module->MakeComputationPostOrder();
  // Callers come after callees in post order: walk it backwards to propagate.
  for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
    if (!control.contains(*it)) continue;
    for (const auto& instruction : (*it)->instructions()) {
      const HloOpcode op = instruction->opcode();
      if (op == HloOpcode::kWhile || op == HloOpcode::kConditional || op == HloOpcode::kCall) {
        for (const HloComputation* callee : instruction->called_computations()) control.insert(callee);
      }
    }
  }
  bool changed = false;
  for (HloComputation* computation : post_order) {
    if (!control.contains(computation) || computation->is_fusion_computation()) continue;
    ASSIGN_OR_RETURN(bool c, FuseComputation(computation));
    changed |= c;
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
