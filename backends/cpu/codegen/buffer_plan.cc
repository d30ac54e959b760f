#include "backends/cpu/codegen/buffer_plan.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

constexpr int64_t kAlignment = 64;

void CollectLeaves(const Shape& shape, std::vector<Shape>* out) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) CollectLeaves(element, out);
  } else if (shape.IsArray()) {
    Shape leaf = shape;
    ShapeUtil::SetDefaultLayoutsIfMissing(&leaf);
    // Shapes are static here: a bounded dynamic dimension is held at its bound and the
    // buffers (and results) are static, as the interpreter's.
    for (int d = 0; d < leaf.rank(); ++d) leaf.set_dynamic_dimension(d, false);
    out->push_back(std::move(leaf));
  }
}

// The flattened leaf number of `index` in `shape`; -1 unless it names an array leaf.
int64_t LeafNumber(const Shape& shape, const ShapeIndex& index) {
  const Shape* at = &shape;
  int64_t leaf = 0;
  for (int64_t i : index) {
    if (!at->IsTuple() || i < 0 || i >= at->tuple_shapes_size()) return -1;
    for (int64_t j = 0; j < i; ++j) leaf += ArrayLeafCount(at->tuple_shapes(static_cast<int>(j)));
    at = &at->tuple_shapes(static_cast<int>(i));
  }
  return at->IsArray() ? leaf : -1;
}

class Planner {
 public:
  // `in_place_on_parameter`: dynamic-update-slices allowed to write their (aliased, unread
  // afterwards) parameter operand's slot; found by InPlaceCandidates on an earlier plan.
  explicit Planner(BufferPlan* plan, absl::flat_hash_set<const HloInstruction*> in_place_on_parameter = {})
      : plan_(plan), in_place_on_parameter_(std::move(in_place_on_parameter)) {}

  // Plans `computation` with its parameters bound to `parameter_slots` (entry: null).
  absl::StatusOr<std::unique_ptr<ComputationPlan>> Plan(const HloComputation& computation,
                                                        const std::vector<std::vector<int>>* parameter_slots,
                                                        int depth, bool while_body = false) {
    auto cp = std::make_unique<ComputationPlan>();
    cp->computation = &computation;
    cp->while_body = while_body;
    for (HloInstruction* hlo : computation.MakeInstructionPostOrder()) cp->schedule.push_back(hlo);
    for (const HloInstruction* hlo : cp->schedule) {
      // Every instruction, nested ones too, in the order the code runs it (a while's
      // condition and body follow the while; a conditional's branches follow it).
      const int64_t position = next_position_++;
      if (depth == 0) position_[hlo] = position;
      std::vector<int> slots;
      switch (hlo->opcode()) {
        case HloOpcode::kParameter: {
          const int64_t number = hlo->parameter_number();
          if (parameter_slots == nullptr) {
            slots = entry_parameter_slots_.at(number);
          } else {
            if (number >= static_cast<int64_t>(parameter_slots->size())) {
              return absl::InvalidArgumentError(
                  absl::StrCat("parameter ", number, " of ", computation.name(), " has no argument"));
            }
            slots = (*parameter_slots)[number];
          }
          break;
        }
        case HloOpcode::kConstant: {
          if (hlo->shape().IsArray()) {
            Slot slot;
            slot.kind = SlotKind::kConstant;
            slot.shape = hlo->literal().shape();
            ShapeUtil::SetDefaultLayoutsIfMissing(&slot.shape);
            slot.bytes = ShapeUtil::ByteSizeOf(slot.shape);
            slot.constant = &hlo->literal();
            slots.push_back(AddSlot(std::move(slot), position));
          } else if (!hlo->shape().IsToken()) {
            return absl::UnimplementedError(absl::StrCat("cpu backend: tuple constant ", hlo->name()));
          }
          break;
        }
        case HloOpcode::kTuple:
          for (const HloInstruction* operand : hlo->operands()) {
            const auto& s = cp->slots(operand);
            slots.insert(slots.end(), s.begin(), s.end());
          }
          break;
        case HloOpcode::kGetTupleElement: {
          const HloInstruction* operand = hlo->operand(0);
          if (!operand->shape().IsTuple() || hlo->tuple_index() < 0 ||
              hlo->tuple_index() >= operand->shape().tuple_shapes_size()) {
            return absl::InvalidArgumentError(absl::StrCat("bad get-tuple-element ", hlo->name()));
          }
          int64_t start = 0;
          for (int64_t i = 0; i < hlo->tuple_index(); ++i) {
            start += ArrayLeafCount(operand->shape().tuple_shapes(static_cast<int>(i)));
          }
          const auto& s = cp->slots(operand);
          const int64_t count = ArrayLeafCount(hlo->shape());
          slots.assign(s.begin() + start, s.begin() + start + count);
          break;
        }
        case HloOpcode::kCall: {
          std::vector<std::vector<int>> args;
          for (const HloInstruction* operand : hlo->operands()) args.push_back(cp->slots(operand));
          ASSIGN_OR_RETURN(auto callee, Plan(*hlo->to_apply(), &args, depth + 1));
          slots = callee->slots(hlo->to_apply()->root_instruction());
          cp->callees[hlo].push_back(std::move(callee));
          break;
        }
        case HloOpcode::kWhile: {
          slots = NewSlots(hlo->shape(), position);
          while_state_slots_.insert(slots.begin(), slots.end());
          std::vector<std::vector<int>> args = {slots};
          loops_.push_back(Loop{position, {}});
          ASSIGN_OR_RETURN(auto condition, Plan(*hlo->while_condition(), &args, depth + 1));
          ASSIGN_OR_RETURN(auto body, Plan(*hlo->while_body(), &args, depth + 1, /*while_body=*/true));
          // A body result leaf that is a different state leaf goes through a shadow slot.
          const auto& result = body->slots(hlo->while_body()->root_instruction());
          std::vector<int> shadow(result.size(), -1);
          for (size_t i = 0; i < result.size(); ++i) {
            for (size_t j = 0; j < slots.size(); ++j) {
              if (j != i && result[i] == slots[j]) {
                Slot s;
                s.shape = plan_->slots[slots[i]].shape;
                s.bytes = plan_->slots[slots[i]].bytes;
                shadow[i] = AddSlot(std::move(s), position);
              }
            }
          }
          // The loop's end: the body's result is copied into the state (through the shadows)
          // there, and what the loop read from before it lives until then.
          const int64_t end = next_position_++;
          EndLoop(end);
          for (int s : result) Use(s, end);
          for (int s : shadow) {
            if (s >= 0) Use(s, end);
          }
          for (int s : slots) Use(s, end);
          cp->while_shadow[hlo] = std::move(shadow);
          cp->callees[hlo].push_back(std::move(condition));
          cp->callees[hlo].push_back(std::move(body));
          break;
        }
        case HloOpcode::kConditional: {
          slots = NewSlots(hlo->shape(), position);
          for (size_t i = 0; i < hlo->called_computations().size(); ++i) {
            if (i + 1 >= static_cast<size_t>(hlo->operand_count())) {
              return absl::InvalidArgumentError(absl::StrCat("conditional ", hlo->name(), " lacks operands"));
            }
            std::vector<std::vector<int>> args = {cp->slots(hlo->operand(i + 1))};
            ASSIGN_OR_RETURN(auto branch, Plan(*hlo->called_computations()[i], &args, depth + 1));
            cp->callees[hlo].push_back(std::move(branch));
          }
          // Each branch's result is copied into the conditional's slots at the branch's end.
          const int64_t end = next_position_++;
          for (size_t i = 0; i < cp->callees[hlo].size(); ++i) {
            for (int s : cp->callees[hlo][i]->slots(hlo->called_computations()[i]->root_instruction())) Use(s, end);
          }
          for (int s : slots) Use(s, end);
          break;
        }
        default:
          if (IsAliasingInstruction(*hlo)) {
            slots = cp->slots(hlo->operand(0));
          } else if (CanUpdateInPlace(*cp, *hlo)) {
            slots = cp->slots(hlo->operand(0));
            // The slot now holds this value: a dynamic-update-slice of it may go in place too.
            owner_[slots[0]] = hlo;
            if (plan_->slots[slots[0]].kind == SlotKind::kParameter) written_parameters_.insert(slots[0]);
          } else {
            slots = NewSlots(hlo->shape(), position);
            for (int s : slots) owner_[s] = hlo;
          }
          break;
      }
      // Every operand's slots are used here (the entry's schedule positions).
      for (const HloInstruction* operand : hlo->operands()) {
        for (int s : cp->slots(operand)) Use(s, position);
      }
      cp->values[hlo] = std::move(slots);
    }
    return cp;
  }

  int AddSlot(Slot slot, int64_t position) {
    plan_->slots.push_back(std::move(slot));
    def_.push_back(position);
    last_use_.push_back(position);
    return static_cast<int>(plan_->slots.size() - 1);
  }

  // A dynamic-update-slice may write into its operand's buffer when nothing else reads that
  // value: the operand's only user is this instruction, it is not the computation's result,
  // and it owns its temporary (not a constant, while state or alias; a parameter only when
  // InPlaceCandidates chose this instruction, or an earlier in-place update of it).
  bool CanUpdateInPlace(const ComputationPlan& cp, const HloInstruction& hlo) const {
    if (hlo.opcode() != HloOpcode::kDynamicUpdateSlice) return false;
    if (in_place_on_parameter_.contains(&hlo) || UpdatesWhileStateInPlace(cp, hlo)) return true;
    const HloInstruction* operand = hlo.operand(0);
    if (operand->users().size() != 1 || operand == operand->parent()->root_instruction()) return false;
    const std::vector<int>& slots = cp.slots(operand);
    if (slots.size() != 1) return false;
    auto it = owner_.find(slots[0]);
    if (it == owner_.end() || it->second != operand) return false;
    const Slot& slot = plan_->slots[slots[0]];
    Shape shape = hlo.shape();
    ShapeUtil::SetDefaultLayoutsIfMissing(&shape);
    return (slot.kind == SlotKind::kTemp || written_parameters_.contains(slots[0])) && slot.shape == shape;
  }

  // In a while body, a dynamic-update-slice of a state leaf may write the state itself when
  // the update is all the body does with that leaf: only this instruction reads it, and the
  // result goes (through single-user updates, in place too) to the same leaf of the body's
  // result, so the copy back into the state disappears as well. A decoding loop's cache
  // update then costs the slice, not two copies of the cache per iteration.
  bool UpdatesWhileStateInPlace(const ComputationPlan& cp, const HloInstruction& hlo) const {
    const HloComputation* body = hlo.parent();
    if (!cp.while_body || body != cp.computation || body->num_parameters() != 1) return false;
    const HloInstruction* param = body->parameter_instruction(0);
    const HloInstruction* operand = hlo.operand(0);
    int64_t index = -1;  // the leaf's tuple index; -1: the state is this array
    if (operand->opcode() == HloOpcode::kGetTupleElement && operand->operand(0) == param) {
      index = operand->tuple_index();
      for (const HloInstruction* user : param->users()) {
        if (user->opcode() != HloOpcode::kGetTupleElement || (user != operand && user->tuple_index() == index)) {
          return false;
        }
      }
    } else if (operand != param) {
      return false;
    }
    const std::vector<int>& slots = cp.slots(operand);
    Shape shape = hlo.shape();
    ShapeUtil::SetDefaultLayoutsIfMissing(&shape);
    if (operand->users().size() != 1 || slots.size() != 1 || !while_state_slots_.contains(slots[0]) ||
        plan_->slots[slots[0]].shape != shape) {
      return false;
    }
    const HloInstruction* root = body->root_instruction();
    for (const HloInstruction* at = &hlo;;) {
      if (at == root) return index < 0;
      if (at->users().size() != 1) return false;
      const HloInstruction* user = at->users()[0];
      if (user->opcode() == HloOpcode::kDynamicUpdateSlice && user->operand(0) == at) {
        at = user;
        continue;
      }
      return user == root && root->opcode() == HloOpcode::kTuple && index >= 0 && index < root->operand_count() &&
             root->operand(static_cast<int>(index)) == at &&
             std::count(root->operands().begin(), root->operands().end(), at) == 1;
    }
  }

  // After a plan made without them: the dynamic-update-slices that may write an aliased
  // parameter leaf in place. Each heads a chain of updates (each the only user of the one
  // before) that ends as the aliased result leaf, starting from the parameter leaf's value,
  // which nothing reads at or after the chain's first update.
  absl::flat_hash_set<const HloInstruction*> InPlaceCandidates(const HloModule& module) const {
    absl::flat_hash_set<const HloInstruction*> chosen;
    const HloComputation& entry = *module.entry_computation();
    const HloInstruction* root = entry.root_instruction();
    for (const auto& [k, aliased] : AliasedLeaves(module)) {
      const int p = aliased.slot;
      const HloInstruction* value = root;
      for (int64_t i : module.input_output_alias().entries(aliased.entry).output_shape_index()) {
        if (value->opcode() != HloOpcode::kTuple || i >= value->operand_count()) {
          value = nullptr;
          break;
        }
        value = value->operand(static_cast<int>(i));
      }
      if (value == nullptr || value->opcode() != HloOpcode::kDynamicUpdateSlice) continue;
      std::vector<const HloInstruction*> chain = {value};
      while (chain.back()->operand(0)->opcode() == HloOpcode::kDynamicUpdateSlice) {
        chain.push_back(chain.back()->operand(0));
      }
      const HloInstruction* first = chain.back();
      const HloInstruction* base = first->operand(0);
      bool ok = ArrayLeaves(plan_->result_shape)[k] == plan_->slots[p].shape &&
                plan_->entry->slots(base) == std::vector<int>{p} && base->users().size() == 1 &&
                base != root && last_use_[p] == position_.at(first);
      for (size_t i = 1; ok && i < chain.size(); ++i) ok = chain[i]->users().size() == 1 && chain[i] != root;
      for (int64_t i = 1; ok && i < first->operand_count(); ++i) {
        for (int s : plan_->entry->slots(first->operand(i))) ok = ok && s != p;
      }
      if (ok) chosen.insert(first);
    }
    return chosen;
  }

  std::vector<int> NewSlots(const Shape& shape, int64_t position) {
    std::vector<int> slots;
    for (Shape& leaf : ArrayLeaves(shape)) {
      Slot slot;
      slot.bytes = ShapeUtil::ByteSizeOf(leaf);
      slot.shape = std::move(leaf);
      slots.push_back(AddSlot(std::move(slot), position));
    }
    return slots;
  }

  // A read inside a loop of a value defined before that loop repeats every iteration: the
  // value lives until the loop's end (the outermost such loop's, recorded when it ends).
  void Use(int slot, int64_t position) {
    for (Loop& loop : loops_) {
      if (def_[slot] <= loop.begin) {
        loop.outer_reads.push_back(slot);
        break;
      }
    }
    last_use_[slot] = std::max(last_use_[slot], position);
  }

  void EndLoop(int64_t end) {
    Loop loop = std::move(loops_.back());
    loops_.pop_back();
    for (int s : loop.outer_reads) Use(s, end);
  }

  absl::Status PlanEntry(const HloModule& module) {
    const HloComputation& entry = *module.entry_computation();
    const auto& layout = module.config().entry_computation_layout;
    for (int64_t i = 0; i < entry.num_parameters(); ++i) {
      const HloInstruction* p = entry.parameter_instruction(i);
      if (p == nullptr) return absl::InvalidArgumentError(absl::StrCat("entry parameter ", i, " is missing"));
      Shape shape = p->shape();
      if (layout.has_value() && i < static_cast<int64_t>(layout->parameters().size()) &&
          ShapeUtil::Compatible(layout->parameters()[i], shape)) {
        shape = layout->parameters()[i];
      }
      ShapeUtil::SetDefaultLayoutsIfMissing(&shape);
      std::vector<int> slots;
      for (Shape& leaf : ArrayLeaves(shape)) {
        Slot slot;
        slot.kind = SlotKind::kParameter;
        slot.bytes = ShapeUtil::ByteSizeOf(leaf);
        slot.shape = std::move(leaf);
        slot.index = plan_->parameter_leaf_count++;
        slots.push_back(AddSlot(std::move(slot), 0));
      }
      entry_parameter_slots_.push_back(std::move(slots));
      plan_->parameter_shapes.push_back(std::move(shape));
    }
    ASSIGN_OR_RETURN(plan_->entry, Plan(entry, nullptr, 0));
    const HloInstruction* root = entry.root_instruction();
    Shape result = root->shape();
    if (layout.has_value() && ShapeUtil::Compatible(layout->result(), result)) result = layout->result();
    ShapeUtil::SetDefaultLayoutsIfMissing(&result);
    plan_->result_shape = result;
    const std::vector<Shape> result_leaves = ArrayLeaves(result);
    const std::vector<int>& root_slots = plan_->entry->slots(root);
    const std::vector<Shape> root_leaves = ArrayLeaves(root->shape());
    std::vector<bool> taken(plan_->slots.size(), false);
    const absl::flat_hash_map<int64_t, AliasedLeaf> aliased = AliasedLeaves(module);
    for (size_t k = 0; k < root_slots.size(); ++k) {
      const int s = root_slots[k];
      auto alias = aliased.find(static_cast<int64_t>(k));
      if (alias != aliased.end() && result_leaves[k] == plan_->slots[alias->second.slot].shape &&
          RealizeAlias(static_cast<int64_t>(k), alias->second.slot, root_slots)) {
        taken[plan_->output_slots.back()] = true;
        continue;
      }
      Slot& slot = plan_->slots[s];
      if (slot.kind == SlotKind::kTemp && !taken[s] && slot.shape == result_leaves[k]) {
        slot.kind = SlotKind::kOutput;
        slot.index = static_cast<int64_t>(k);
        taken[s] = true;
        plan_->output_slots.push_back(s);
        continue;
      }
      Slot out;
      out.kind = SlotKind::kOutput;
      out.shape = result_leaves[k];
      out.bytes = ShapeUtil::ByteSizeOf(out.shape);
      out.index = static_cast<int64_t>(k);
      const int o = AddSlot(std::move(out), next_position_);  // written after everything ran
      taken.push_back(true);
      plan_->output_slots.push_back(o);
      plan_->output_copies.emplace_back(s, o);
      plan_->output_copy_shapes.push_back(root_leaves[k]);
    }
    // Never write an argument the caller may still own.
    for (int p : written_parameters_) {
      bool realized = false;
      for (const OutputAlias& a : plan_->output_aliases) realized = realized || (a.in_place && a.parameter_slot == p);
      if (!realized) {
        return absl::InternalError(absl::StrCat("parameter slot ", p, " is updated in place but unaliased"));
      }
    }
    AssignArena();
    return absl::OkStatus();
  }

  struct AliasedLeaf {
    int slot;   // the parameter leaf's
    int entry;  // in input_output_alias
  };
  // Result leaf -> the parameter leaf it may alias (array leaves only).
  absl::flat_hash_map<int64_t, AliasedLeaf> AliasedLeaves(const HloModule& module) const {
    absl::flat_hash_map<int64_t, AliasedLeaf> out;
    const HloComputation& entry = *module.entry_computation();
    const auto& entries = module.input_output_alias().entries();
    for (int e = 0; e < entries.size(); ++e) {
      const auto& a = entries[e];
      const int64_t param = a.parameter_number();
      if (param < 0 || param >= static_cast<int64_t>(entry_parameter_slots_.size())) continue;
      const int64_t k = LeafNumber(entry.root_instruction()->shape(),
                                   ShapeIndex(a.output_shape_index().begin(), a.output_shape_index().end()));
      const int64_t leaf = LeafNumber(entry.parameter_instruction(param)->shape(),
                                      ShapeIndex(a.parameter_shape_index().begin(), a.parameter_shape_index().end()));
      if (k < 0 || leaf < 0 || out.contains(k)) continue;
      out[k] = AliasedLeaf{entry_parameter_slots_[param][leaf], e};
    }
    return out;
  }

  // Lets result leaf k live in parameter slot p where that saves work (buffer_plan.h).
  bool RealizeAlias(int64_t k, int p, const std::vector<int>& root_slots) {
    const int s = root_slots[k];
    const int64_t uses_of_p = std::count(root_slots.begin(), root_slots.end(), p);
    OutputAlias alias;
    alias.output_leaf = k;
    alias.parameter_slot = p;
    if (s == p && uses_of_p == 1) {
      alias.in_place = true;
      alias.result_slot = p;
    } else {
      Slot& slot = plan_->slots[s];
      auto owner = owner_.find(s);
      if (uses_of_p != 0 || std::count(root_slots.begin(), root_slots.end(), s) != 1 || slot.kind != SlotKind::kTemp ||
          owner == owner_.end() || last_use_[p] >= def_[s] || slot.shape != plan_->slots[p].shape) {
        return false;
      }
      slot.kind = SlotKind::kShared;
      slot.index = p;
      alias.result_slot = s;
    }
    plan_->output_slots.push_back(alias.result_slot);
    plan_->output_aliases.push_back(alias);
    return true;
  }

  // Greedy first fit over live ranges, in order of definition.
  void AssignArena() {
    struct Placed {
      int64_t offset, end_offset, def, last;
    };
    std::vector<Placed> placed;
    int64_t arena = 0;
    for (size_t s = 0; s < plan_->slots.size(); ++s) {
      Slot& slot = plan_->slots[s];
      if (slot.kind != SlotKind::kTemp) continue;
      const int64_t size = std::max<int64_t>(kAlignment, (slot.bytes + kAlignment - 1) / kAlignment * kAlignment);
      const int64_t def = def_[s];
      const int64_t last = last_use_[s];
      std::vector<std::pair<int64_t, int64_t>> busy;
      for (const Placed& p : placed) {
        if (p.def <= last && def <= p.last) busy.emplace_back(p.offset, p.end_offset);
      }
      std::sort(busy.begin(), busy.end());
      int64_t offset = 0;
      for (const auto& [begin, end] : busy) {
        if (offset + size <= begin) break;
        offset = std::max(offset, end);
      }
      slot.offset = offset;
      placed.push_back({offset, offset + size, def, last});
      arena = std::max(arena, offset + size);
    }
    plan_->arena_bytes = arena;
  }

 private:
  BufferPlan* plan_;
  int64_t next_position_ = 1;
  std::vector<int64_t> def_;
  std::vector<int64_t> last_use_;
  std::vector<std::vector<int>> entry_parameter_slots_;
  absl::flat_hash_map<int, const HloInstruction*> owner_;  // temporaries and their defining op
  absl::flat_hash_map<const HloInstruction*, int64_t> position_;  // entry instructions
  const absl::flat_hash_set<const HloInstruction*> in_place_on_parameter_;
  absl::flat_hash_set<int> written_parameters_;  // parameter slots updated in place
  absl::flat_hash_set<int> while_state_slots_;
  struct Loop {
    int64_t begin;                 // the while's position
    std::vector<int> outer_reads;  // slots defined at or before it, read inside
  };
  std::vector<Loop> loops_;  // the whiles being planned, outermost first
};

}  // namespace

std::vector<Shape> ArrayLeaves(const Shape& shape) {
  std::vector<Shape> leaves;
  CollectLeaves(shape, &leaves);
  return leaves;
}

int64_t ArrayLeafCount(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t n = 0;
    for (const Shape& element : shape.tuple_shapes()) n += ArrayLeafCount(element);
    return n;
  }
  return shape.IsArray() ? 1 : 0;
}

bool IsAliasingInstruction(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kBitcast: {
      // The same bytes only when they are as many: the verifier leaves sub-byte types (one
      // byte per element here) and tiled layouts unchecked, so s32[2,3] -> s2[3,32] would
      // read 96 bytes of a 24-byte buffer. Others are computed (or refused) elementally.
      const Shape& out = hlo.shape();
      const Shape& in = hlo.operand(0)->shape();
      return out.IsArray() && in.IsArray() && ShapeUtil::ByteSizeOf(out) == ShapeUtil::ByteSizeOf(in);
    }
    case HloOpcode::kOptBarrier:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
      return true;
    case HloOpcode::kReshape: {
      // A reshape between row-major arrays is the same bytes.
      Shape out = hlo.shape(), in = hlo.operand(0)->shape();
      return out.IsArray() && ShapeUtil::HasDescendingLayout(out) && ShapeUtil::HasDescendingLayout(in);
    }
    default:
      return false;
  }
}

absl::StatusOr<std::unique_ptr<BufferPlan>> PlanBuffers(const HloModule& module) {
  if (module.entry_computation() == nullptr) return absl::InvalidArgumentError("module has no entry computation");
  auto plan = std::make_unique<BufferPlan>();
  Planner planner(plan.get());
  RETURN_IF_ERROR(planner.PlanEntry(module));
  if (module.input_output_alias().entries().empty()) return plan;
  // Updates of aliased parameters in place need the first plan's live ranges; plan again.
  absl::flat_hash_set<const HloInstruction*> in_place = planner.InPlaceCandidates(module);
  if (in_place.empty()) return plan;
  auto second = std::make_unique<BufferPlan>();
  Planner replanner(second.get(), std::move(in_place));
  RETURN_IF_ERROR(replanner.PlanEntry(module));
  return second;
}

}  // namespace cpu
}  // namespace xla
