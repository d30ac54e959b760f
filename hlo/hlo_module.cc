#include "hlo/hlo_module.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"

namespace xla {
namespace {

bool ProtoEqual(const google::protobuf::Message& a, const google::protobuf::Message& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

// A short reason for two instructions not being Identical (for error messages).
std::string DescribeDifference(const HloInstruction& a, const HloInstruction& b) {
  if (a.opcode() != b.opcode()) return "opcodes differ";
  if (a.shape() != b.shape()) {
    return absl::StrCat("shapes differ: ", a.shape().ToString(true), " vs ", b.shape().ToString(true));
  }
  if (a.operand_count() != b.operand_count()) return "operand counts differ";
  if (a.called_computations().size() != b.called_computations().size()) {
    return "called computation counts differ";
  }
  if (a.has_literal() != b.has_literal()) return "one has a literal";
  std::string report;
  google::protobuf::util::MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&report);
  if (!differencer.Compare(a.attrs(), b.attrs())) return absl::StrCat("attributes: ", report);
  return "operands, called computations or literal values differ";
}

}  // namespace

HloModule::~HloModule() = default;

HloComputation* HloModule::AddEmbeddedComputation(std::unique_ptr<HloComputation> computation) {
  HloComputation* raw = computation.get();
  raw->set_parent(this);
  if (raw->unique_id() < 0) {
    raw->set_unique_id(NewUniqueId());
  } else {
    NoteUniqueId(raw->unique_id());
  }
  for (const auto& instruction : raw->instructions()) {
    if (instruction->unique_id() >= 0) NoteUniqueId(instruction->unique_id());
  }
  for (const auto& instruction : raw->instructions()) {
    if (instruction->unique_id() < 0) instruction->set_unique_id(NewUniqueId());
  }
  computations_.push_back(std::move(computation));
  return raw;
}

HloComputation* HloModule::AddEntryComputation(std::unique_ptr<HloComputation> computation) {
  HloComputation* raw = AddEmbeddedComputation(std::move(computation));
  entry_ = raw;
  return raw;
}

absl::Status HloModule::RemoveComputation(HloComputation* computation) {
  if (computation == entry_) {
    return absl::FailedPreconditionError(absl::StrCat("cannot remove the entry computation ", computation->name()));
  }
  auto it = std::find_if(computations_.begin(), computations_.end(),
                         [&](const auto& c) { return c.get() == computation; });
  if (it == computations_.end()) {
    return absl::NotFoundError(absl::StrCat("computation is not in module ", name_));
  }
  computations_.erase(it);
  return absl::OkStatus();
}

std::string HloModule::UniqueComputationName(const std::string& base) const {
  absl::flat_hash_set<std::string_view> taken;
  for (const auto& c : computations_) taken.insert(c->name());
  if (!taken.contains(base)) return base;
  for (int64_t n = 1;; ++n) {
    std::string candidate = absl::StrCat(base, ".", n);
    if (!taken.contains(candidate)) return candidate;
  }
}

HloComputation* HloModule::CloneComputation(const HloComputation& computation, const std::string& name) {
  auto clone = std::make_unique<HloComputation>(UniqueComputationName(name));
  clone->set_is_fusion_computation(computation.is_fusion_computation());
  clone->set_execution_thread(computation.execution_thread());
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> mapped;
  for (HloInstruction* instruction : computation.MakeInstructionPostOrder()) {
    std::vector<HloInstruction*> operands;
    operands.reserve(instruction->operand_count());
    for (const HloInstruction* operand : instruction->operands()) operands.push_back(mapped.at(operand));
    HloInstruction* copy =
        clone->AddInstruction(instruction->CloneWithNewOperands(instruction->shape(), operands));
    mapped[instruction] = copy;
  }
  for (HloInstruction* instruction : computation.MakeInstructionPostOrder()) {
    for (HloInstruction* succ : instruction->control_successors()) {
      mapped.at(instruction)->AddControlDependencyTo(mapped.at(succ));
    }
  }
  if (computation.root_instruction() != nullptr) {
    clone->set_root_instruction(mapped.at(computation.root_instruction()));
  }
  return AddEmbeddedComputation(std::move(clone));
}

HloComputation* HloModule::GetComputationWithName(const std::string& name) const {
  for (const auto& computation : computations_) {
    if (computation->name() == name) return computation.get();
  }
  return nullptr;
}

std::vector<HloComputation*> HloModule::MakeComputationPostOrder() const {
  std::vector<HloComputation*> order;
  absl::flat_hash_set<const HloComputation*> visited;
  // Iterative DFS over call edges; callees first.
  auto visit = [&](HloComputation* start) {
    if (visited.contains(start)) return;
    std::vector<std::pair<HloComputation*, std::vector<HloComputation*>>> stack;
    auto callees_of = [](HloComputation* c) {
      std::vector<HloComputation*> callees;
      for (const auto& instruction : c->instructions()) {
        for (HloComputation* callee : instruction->called_computations()) callees.push_back(callee);
      }
      std::reverse(callees.begin(), callees.end());  // pop from the back in call order
      return callees;
    };
    visited.insert(start);
    stack.push_back({start, callees_of(start)});
    while (!stack.empty()) {
      auto& top = stack.back();
      if (!top.second.empty()) {
        HloComputation* next = top.second.back();
        top.second.pop_back();
        if (next != nullptr && !visited.contains(next)) {
          visited.insert(next);
          stack.push_back({next, callees_of(next)});
        }
        continue;
      }
      order.push_back(top.first);
      stack.pop_back();
    }
  };
  for (const auto& computation : computations_) {
    if (computation.get() != entry_) visit(computation.get());
  }
  if (entry_ != nullptr) visit(entry_);
  return order;
}

bool HloModule::Equal(const HloModule& other, std::string* difference) const {
  auto fail = [&](std::string why) {
    if (difference != nullptr) *difference = std::move(why);
    return false;
  };
  if (name_ != other.name_) return fail(absl::StrCat("module names differ: ", name_, " vs ", other.name_));
  const HloModuleConfig& a = config_;
  const HloModuleConfig& b = other.config_;
  if (a.replica_count != b.replica_count || a.num_partitions != b.num_partitions ||
      a.alias_passthrough_params != b.alias_passthrough_params ||
      a.use_spmd_partitioning != b.use_spmd_partitioning ||
      a.use_auto_spmd_partitioning != b.use_auto_spmd_partitioning ||
      a.allow_spmd_sharding_propagation_to_output != b.allow_spmd_sharding_propagation_to_output ||
      a.allow_spmd_sharding_propagation_to_parameters !=
          b.allow_spmd_sharding_propagation_to_parameters) {
    return fail("module configs differ");
  }
  if (a.entry_computation_layout.has_value() != b.entry_computation_layout.has_value() ||
      (a.entry_computation_layout.has_value() &&
       !(*a.entry_computation_layout == *b.entry_computation_layout))) {
    return fail("entry_computation_layout differs");
  }
  if (!ProtoEqual(input_output_alias_, other.input_output_alias_)) return fail("input_output_alias differs");
  if (!ProtoEqual(buffer_donor_, other.buffer_donor_)) return fail("buffer_donor differs");
  if (!ProtoEqual(frontend_attributes_, other.frontend_attributes_)) return fail("frontend_attributes differ");
  if (is_scheduled_ != other.is_scheduled_) return fail("is_scheduled differs");
  if (spmd_output_sharding_.has_value() != other.spmd_output_sharding_.has_value() ||
      (spmd_output_sharding_.has_value() && !ProtoEqual(*spmd_output_sharding_, *other.spmd_output_sharding_))) {
    return fail("spmd_output_sharding differs");
  }
  if (spmd_parameters_shardings_.size() != other.spmd_parameters_shardings_.size()) {
    return fail("spmd_parameters_shardings differ");
  }
  for (size_t i = 0; i < spmd_parameters_shardings_.size(); ++i) {
    if (!ProtoEqual(spmd_parameters_shardings_[i], other.spmd_parameters_shardings_[i])) {
      return fail("spmd_parameters_shardings differ");
    }
  }
  if (!ProtoEqual(extra_, other.extra_)) return fail("other module-level proto fields differ");
  if (computations_.size() != other.computations_.size()) {
    return fail(absl::StrCat("computation counts differ: ", computations_.size(), " vs ",
                             other.computations_.size()));
  }
  // Computations and instructions are matched by name (names are unique), so listing order
  // does not matter: a printer may emit a different but equivalent order.
  absl::flat_hash_map<const HloComputation*, const HloComputation*> comp_map;
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> instr_map;
  absl::flat_hash_map<std::string, const HloComputation*> other_comps;
  for (const auto& c : other.computations_) other_comps[c->name()] = c.get();
  for (const auto& owned : computations_) {
    const HloComputation* ca = owned.get();
    auto it = other_comps.find(ca->name());
    if (it == other_comps.end()) {
      return fail(absl::StrCat("computation ", ca->name(), " is missing from the other module"));
    }
    const HloComputation* cb = it->second;
    comp_map[ca] = cb;
    if (ca->instructions().size() != cb->instructions().size()) {
      return fail(absl::StrCat("computation ", ca->name(), ": instruction counts differ (",
                               ca->instructions().size(), " vs ", cb->instructions().size(), ")"));
    }
    absl::flat_hash_map<std::string, const HloInstruction*> other_instrs;
    for (const auto& i : cb->instructions()) other_instrs[i->name()] = i.get();
    for (const auto& i : ca->instructions()) {
      auto jt = other_instrs.find(i->name());
      if (jt == other_instrs.end()) {
        return fail(absl::StrCat("computation ", ca->name(), ": instruction ", i->name(),
                                 " is missing from the other module"));
      }
      instr_map[i.get()] = jt->second;
    }
  }
  if ((entry_ == nullptr) != (other.entry_ == nullptr) ||
      (entry_ != nullptr && comp_map[entry_] != other.entry_)) {
    return fail("entry computations differ");
  }
  auto same_instr = [&](const HloInstruction* x, const HloInstruction* y) {
    auto it = instr_map.find(x);
    return it != instr_map.end() && it->second == y;
  };
  auto same_comp = [&](const HloComputation* x, const HloComputation* y) {
    auto it = comp_map.find(x);
    return it != comp_map.end() && it->second == y;
  };
  for (const auto& owned : computations_) {
    const HloComputation* ca = owned.get();
    const HloComputation* cb = comp_map[ca];
    if (ca->is_fusion_computation() != cb->is_fusion_computation() ||
        ca->execution_thread() != cb->execution_thread()) {
      return fail(absl::StrCat("computation ", ca->name(), ": properties differ"));
    }
    if (!same_instr(ca->root_instruction(), cb->root_instruction())) {
      return fail(absl::StrCat("computation ", ca->name(), ": roots differ"));
    }
    for (const auto& owned_instr : ca->instructions()) {
      const HloInstruction* ia = owned_instr.get();
      const HloInstruction* ib = instr_map[ia];
      if (!ia->Identical(*ib, same_instr, same_comp)) {
        return fail(absl::StrCat("computation ", ca->name(), ": instruction ", ia->name(),
                                 " differs: ", DescribeDifference(*ia, *ib)));
      }
      if (ia->control_predecessors().size() != ib->control_predecessors().size()) {
        return fail(absl::StrCat("instruction ", ia->name(), ": control predecessors differ"));
      }
      for (size_t p = 0; p < ia->control_predecessors().size(); ++p) {
        if (!same_instr(ia->control_predecessors()[p], ib->control_predecessors()[p])) {
          return fail(absl::StrCat("instruction ", ia->name(), ": control predecessors differ"));
        }
      }
    }
  }
  return true;
}

}  // namespace xla
