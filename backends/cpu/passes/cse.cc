#include "backends/cpu/passes/cse.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "backends/cpu/passes/pass_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

// Instruction equality for CSE: as HloInstruction::Identical, but metadata (op names,
// source lines) does not keep two computations of the same value apart (XLA's CSE ignores
// it too).
template <typename OperandEq, typename CompEq>
bool SameComputation(const HloInstruction& a, const HloInstruction& b, OperandEq operands_equal,
                     CompEq computations_equal) {
  if (a.Identical(b, operands_equal, computations_equal)) return true;
  if (!a.attrs().has_metadata() && !b.attrs().has_metadata()) return false;
  // Compare again with the metadata-free attributes.
  std::unique_ptr<HloInstruction> x = a.CloneWithNewOperands(a.shape(), {});
  std::unique_ptr<HloInstruction> y = b.CloneWithNewOperands(b.shape(), {});
  x->mutable_attrs()->clear_metadata();
  y->mutable_attrs()->clear_metadata();
  if (!x->AttributesEqual(*y) || a.opcode() != b.opcode() || a.shape() != b.shape() ||
      a.operand_count() != b.operand_count() || a.called_computations().size() != b.called_computations().size()) {
    return false;
  }
  for (int64_t i = 0; i < a.operand_count(); ++i) {
    if (!operands_equal(a.operand(i), b.operand(i))) return false;
  }
  for (size_t i = 0; i < a.called_computations().size(); ++i) {
    if (!computations_equal(a.called_computations()[i], b.called_computations()[i])) return false;
  }
  return true;
}

// Structural equality of computations, memoized: same parameters, and post orders that
// match instruction by instruction (operands by position in that order).
class ComputationEquality {
 public:
  bool Equal(const HloComputation* a, const HloComputation* b) {
    if (a == b) return true;
    if (a == nullptr || b == nullptr) return false;
    auto key = std::make_pair(a, b);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    memo_[key] = false;  // a computation never calls itself; guards against cycles anyway
    bool equal = Compare(a, b);
    memo_[key] = equal;
    return equal;
  }

 private:
  bool Compare(const HloComputation* a, const HloComputation* b) {
    if (a->num_parameters() != b->num_parameters() || a->instruction_count() != b->instruction_count()) {
      return false;
    }
    std::vector<HloInstruction*> order_a = a->MakeInstructionPostOrder();
    std::vector<HloInstruction*> order_b = b->MakeInstructionPostOrder();
    absl::flat_hash_map<const HloInstruction*, const HloInstruction*> mapped;
    for (size_t i = 0; i < order_a.size(); ++i) mapped[order_a[i]] = order_b[i];
    for (size_t i = 0; i < order_a.size(); ++i) {
      const HloInstruction* x = order_a[i];
      const HloInstruction* y = order_b[i];
      if (!x->control_predecessors().empty() || !y->control_predecessors().empty()) return false;
      bool same = SameComputation(
          *x, *y, [&](const HloInstruction* p, const HloInstruction* q) { return mapped[p] == q; },
          [&](const HloComputation* p, const HloComputation* q) { return Equal(p, q); });
      if (!same) return false;
    }
    return mapped[a->root_instruction()] == b->root_instruction();
  }

  absl::flat_hash_map<std::pair<const HloComputation*, const HloComputation*>, bool> memo_;
};

bool MayMerge(const HloInstruction& instruction) {
  return instruction.opcode() != HloOpcode::kParameter && instruction.control_predecessors().empty() &&
         instruction.control_successors().empty() && !HasSideEffect(instruction);
}

size_t HashOf(const HloInstruction& instruction) {
  size_t hash = absl::HashOf(static_cast<int>(instruction.opcode()), instruction.operand_count());
  for (const HloInstruction* operand : instruction.operands()) hash = absl::HashOf(hash, operand);
  for (int64_t d : instruction.shape().dimensions()) hash = absl::HashOf(hash, d);
  return hash;
}

absl::StatusOr<bool> CseComputation(HloComputation* computation, ComputationEquality* equality) {
  bool changed = false;
  // Buckets of earlier candidates by hash; an instruction merges into the first identical one.
  absl::flat_hash_map<size_t, std::vector<HloInstruction*>> seen;
  for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
    if (!MayMerge(*instruction)) continue;
    std::vector<HloInstruction*>& bucket = seen[HashOf(*instruction)];
    HloInstruction* match = nullptr;
    for (HloInstruction* candidate : bucket) {
      if (SameComputation(
              *candidate, *instruction, [](const HloInstruction* a, const HloInstruction* b) { return a == b; },
              [&](const HloComputation* a, const HloComputation* b) { return equality->Equal(a, b); })) {
        match = candidate;
        break;
      }
    }
    if (match == nullptr) {
      bucket.push_back(instruction);
      continue;
    }
    RETURN_IF_ERROR(computation->ReplaceInstruction(instruction, match));
    changed = true;
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> HloCse::Run(HloModule* module) {
  ComputationEquality equality;
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    ASSIGN_OR_RETURN(bool c, CseComputation(computation, &equality));
    changed |= c;
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
