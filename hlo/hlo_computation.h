#ifndef XLA_HLO_HLO_COMPUTATION_H_
#define XLA_HLO_HLO_COMPUTATION_H_

// A computation: an ordered list of owned instructions, its parameters and its root.
// Instruction order is insertion order (the parser keeps text order); use
// MakeInstructionPostOrder() for a def-before-use order.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "hlo/hlo_instruction.h"
#include "hlo/shape.h"

namespace xla {

class HloModule;

class HloComputation {
 public:
  explicit HloComputation(std::string name) : name_(std::move(name)) {}
  HloComputation(const HloComputation&) = delete;
  HloComputation& operator=(const HloComputation&) = delete;
  ~HloComputation();

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  int64_t unique_id() const { return unique_id_; }
  void set_unique_id(int64_t id) { unique_id_ = id; }

  // Takes ownership; parameters are also registered by parameter_number (from attrs()).
  // Returns the raw pointer, valid as long as the computation lives.
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> instruction);
  // Removes an instruction that has no users and no control edges.
  absl::Status RemoveInstruction(HloInstruction* instruction);

  // Adds `instruction` named `base_name` (or its own name when empty), made unique within
  // this computation by a ".N" suffix when taken.
  HloInstruction* AddInstructionWithUniqueName(std::unique_ptr<HloInstruction> instruction,
                                               const std::string& base_name = "");
  // A name not used by any instruction of this computation: `base` itself when free.
  // Amortized O(1): the set of names is built on first use and kept up to date by
  // AddInstruction; an instruction renamed with set_name after it was added is not seen
  // (rename before adding, as the parser and passes do).
  std::string UniqueInstructionName(const std::string& base) const;
  // Replaces every use of `old_instruction` (and the root role) with `new_instruction`,
  // moves its control edges over and removes it. Shapes must be compatible.
  absl::Status ReplaceInstruction(HloInstruction* old_instruction, HloInstruction* new_instruction);
  // Removes `instruction` (which must have no users) and then every operand that becomes
  // unused and is not a parameter, the root or side-effecting per `may_remove`.
  absl::Status RemoveInstructionAndUnusedOperands(HloInstruction* instruction,
                                                  bool (*may_remove)(const HloInstruction&) = nullptr);
  // Whether `instruction` belongs to this computation.
  bool ContainsInstruction(const HloInstruction* instruction) const;

  const std::vector<std::unique_ptr<HloInstruction>>& instructions() const { return instructions_; }
  int64_t instruction_count() const { return static_cast<int64_t>(instructions_.size()); }
  // Operands (and control predecessors) before users; root last among its ancestors;
  // instructions unreachable from root are included too, in insertion order.
  std::vector<HloInstruction*> MakeInstructionPostOrder() const;

  HloInstruction* root_instruction() const { return root_; }
  void set_root_instruction(HloInstruction* root) { root_ = root; }

  // Parameters indexed by parameter_number; entries may be null while building.
  const std::vector<HloInstruction*>& parameter_instructions() const { return parameters_; }
  HloInstruction* parameter_instruction(int64_t i) const { return parameters_[i]; }
  int64_t num_parameters() const { return static_cast<int64_t>(parameters_.size()); }

  // Parameter shapes (with names) and root shape.
  ProgramShape ComputeProgramShape() const;

  HloModule* parent() const { return parent_; }
  void set_parent(HloModule* module) { parent_ = module; }

  bool is_fusion_computation() const { return is_fusion_computation_; }
  void set_is_fusion_computation(bool v) { is_fusion_computation_ = v; }
  const std::string& execution_thread() const { return execution_thread_; }
  void set_execution_thread(std::string t) { execution_thread_ = std::move(t); }

  // The instruction with this name, or nullptr.
  HloInstruction* GetInstructionWithName(const std::string& name) const;

 private:
  std::string name_;
  int64_t unique_id_ = -1;
  std::vector<std::unique_ptr<HloInstruction>> instructions_;
  std::vector<HloInstruction*> parameters_;
  HloInstruction* root_ = nullptr;
  HloModule* parent_ = nullptr;
  bool is_fusion_computation_ = false;
  // Names in use (a superset after removals), built lazily by UniqueInstructionName.
  mutable std::unique_ptr<absl::flat_hash_set<std::string>> names_;
  // Per stem, the next ".N" suffix to try (so repeated stems do not rescan 1, 2, ...).
  mutable absl::flat_hash_map<std::string, int64_t> next_suffix_;
  std::string execution_thread_ = "main";
};

}  // namespace xla

#endif  // XLA_HLO_HLO_COMPUTATION_H_
