// HloModuleProto -> IR. Encoding and serialized-input handling: hlo_proto_convert_encode.cc.

#include "hlo/hlo_proto_convert.h"

#include "hlo/hlo_attribute_defaults.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_opcode.h"
#include "hlo/literal.h"
#include "hlo/shape.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace {

std::string CompContext(const HloComputationProto& c) {
  return absl::StrCat("computation '", c.name(), "' (id ", c.id(), ")");
}

std::string InstrContext(const HloComputationProto& c, const HloInstructionProto& i) {
  return absl::StrCat(CompContext(c), ", instruction '", i.name(), "' (id ", i.id(), ")");
}

absl::Status Invalid(absl::string_view context, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("HloModuleProto: ", context, ": ", what));
}

// Any failure from a nested decoder (shape, literal) becomes InvalidArgument with context:
// everything reaching it came from the proto.
absl::Status Wrap(absl::string_view context, const absl::Status& s) {
  return Invalid(context, s.message());
}

// Returns a node on a directed cycle, or -1. Iterative so that hostile, very deep graphs
// cannot overflow the stack.
int64_t FindCycle(const std::vector<std::vector<int64_t>>& edges) {
  const int64_t n = static_cast<int64_t>(edges.size());
  std::vector<uint8_t> state(n, 0);  // 0 unvisited, 1 on the DFS stack, 2 finished
  std::vector<std::pair<int64_t, size_t>> stack;
  for (int64_t start = 0; start < n; ++start) {
    if (state[start] != 0) continue;
    state[start] = 1;
    stack.emplace_back(start, 0);
    while (!stack.empty()) {
      const int64_t v = stack.back().first;
      const size_t i = stack.back().second;
      if (i < edges[v].size()) {
        ++stack.back().second;
        const int64_t w = edges[v][i];
        if (state[w] == 1) return w;
        if (state[w] == 0) {
          state[w] = 1;
          stack.emplace_back(w, 0);
        }
      } else {
        state[v] = 2;
        stack.pop_back();
      }
    }
  }
  return -1;
}

// Where an instruction id lives: computation index and instruction index in the proto.
struct InstrLocation {
  int comp;
  int instr;
};

struct ModuleIndex {
  absl::flat_hash_map<int64_t, int> computation_by_id;
  absl::flat_hash_map<int64_t, InstrLocation> instruction_by_id;
};

absl::StatusOr<ModuleIndex> IndexModule(const HloModuleProto& proto) {
  ModuleIndex index;
  absl::flat_hash_set<std::string> computation_names;
  for (int c = 0; c < proto.computations_size(); ++c) {
    const HloComputationProto& comp = proto.computations(c);
    if (!index.computation_by_id.emplace(comp.id(), c).second) {
      return Invalid(CompContext(comp), "duplicate computation id");
    }
    if (!computation_names.insert(comp.name()).second) {
      return Invalid(CompContext(comp), "duplicate computation name");
    }
    if (comp.instructions_size() == 0) return Invalid(CompContext(comp), "has no instructions");
    absl::flat_hash_set<std::string> instruction_names;
    for (int i = 0; i < comp.instructions_size(); ++i) {
      const HloInstructionProto& instr = comp.instructions(i);
      auto [it, inserted] = index.instruction_by_id.emplace(instr.id(), InstrLocation{c, i});
      if (!inserted) {
        return Invalid(InstrContext(comp, instr),
                       absl::StrCat("duplicate instruction id (also used in ",
                                    CompContext(proto.computations(it->second.comp)), ")"));
      }
      if (!instruction_names.insert(instr.name()).second) {
        return Invalid(InstrContext(comp, instr), "duplicate instruction name");
      }
    }
  }
  return index;
}

// Called computations must exist and the call graph must be acyclic.
absl::Status CheckCallGraph(const HloModuleProto& proto, const ModuleIndex& index) {
  std::vector<std::vector<int64_t>> callees(proto.computations_size());
  for (int c = 0; c < proto.computations_size(); ++c) {
    const HloComputationProto& comp = proto.computations(c);
    for (const HloInstructionProto& instr : comp.instructions()) {
      for (int64_t callee_id : instr.called_computation_ids()) {
        auto it = index.computation_by_id.find(callee_id);
        if (it == index.computation_by_id.end()) {
          return Invalid(InstrContext(comp, instr),
                         absl::StrCat("called computation id ", callee_id, " does not exist"));
        }
        callees[c].push_back(it->second);
      }
    }
  }
  const int64_t on_cycle = FindCycle(callees);
  if (on_cycle >= 0) {
    return Invalid(CompContext(proto.computations(static_cast<int>(on_cycle))),
                   "calls itself (directly or indirectly)");
  }
  return absl::OkStatus();
}

// Operand and control-predecessor ids must name instructions of the same computation, and
// together they must form an acyclic graph. Fills `local` (id -> index in `comp`).
absl::Status CheckInstructionGraph(const HloComputationProto& comp, const ModuleIndex& index,
                                   absl::flat_hash_map<int64_t, int>* local) {
  for (int i = 0; i < comp.instructions_size(); ++i) local->emplace(comp.instructions(i).id(), i);
  std::vector<std::vector<int64_t>> edges(comp.instructions_size());
  auto resolve = [&](const HloInstructionProto& instr, int64_t id,
                     absl::string_view role) -> absl::StatusOr<int> {
    auto it = local->find(id);
    if (it != local->end()) return it->second;
    if (index.instruction_by_id.contains(id)) {
      return Invalid(InstrContext(comp, instr),
                     absl::StrCat(role, " id ", id, " belongs to another computation"));
    }
    return Invalid(InstrContext(comp, instr), absl::StrCat(role, " id ", id, " does not exist"));
  };
  for (int i = 0; i < comp.instructions_size(); ++i) {
    const HloInstructionProto& instr = comp.instructions(i);
    for (int64_t id : instr.operand_ids()) {
      ASSIGN_OR_RETURN(int target, resolve(instr, id, "operand"));
      edges[i].push_back(target);
    }
    for (int64_t id : instr.control_predecessor_ids()) {
      ASSIGN_OR_RETURN(int target, resolve(instr, id, "control predecessor"));
      edges[i].push_back(target);
    }
  }
  const int64_t on_cycle = FindCycle(edges);
  if (on_cycle >= 0) {
    return Invalid(InstrContext(comp, comp.instructions(static_cast<int>(on_cycle))),
                   "is part of a cycle of operands / control dependencies");
  }
  return absl::OkStatus();
}

// Parameter numbers must be exactly a permutation of [0, #parameters).
absl::Status CheckParameters(const HloComputationProto& comp) {
  std::vector<const HloInstructionProto*> params;
  for (const HloInstructionProto& instr : comp.instructions()) {
    if (instr.opcode() == "parameter") params.push_back(&instr);
  }
  std::vector<bool> seen(params.size(), false);
  for (const HloInstructionProto* p : params) {
    const int64_t n = p->parameter_number();
    if (n < 0 || n >= static_cast<int64_t>(params.size())) {
      return Invalid(InstrContext(comp, *p),
                     absl::StrCat("parameter_number ", n, " out of range [0, ", params.size(), ")"));
    }
    if (seen[n]) {
      return Invalid(InstrContext(comp, *p), absl::StrCat("duplicate parameter_number ", n));
    }
    seen[n] = true;
  }
  return absl::OkStatus();
}

// Builds one detached instruction: everything but operands and control edges.
absl::StatusOr<std::unique_ptr<HloInstruction>> MakeInstruction(
    const HloComputationProto& comp, const HloInstructionProto& proto,
    const ModuleIndex& index, const std::vector<std::unique_ptr<HloComputation>>& computations) {
  const std::string ctx = InstrContext(comp, proto);
  std::optional<HloOpcode> opcode = StringToHloOpcode(proto.opcode());
  if (!opcode.has_value()) {
    return Invalid(ctx, absl::StrCat("unknown opcode \"", proto.opcode(), "\""));
  }
  const int arity = HloOpcodeArity(*opcode);
  if (arity != kVariadic && proto.operand_ids_size() != arity) {
    return Invalid(ctx, absl::StrCat(proto.opcode(), " takes ", arity, " operands, got ",
                                     proto.operand_ids_size()));
  }
  if (!proto.has_shape()) return Invalid(ctx, "missing shape");
  absl::StatusOr<Shape> shape = Shape::FromProto(proto.shape());
  if (!shape.ok()) return Wrap(ctx, shape.status());

  std::unique_ptr<HloInstruction> instr = HloInstruction::Create(*opcode, *shape);
  instr->set_name(proto.name());
  instr->set_unique_id(proto.id());

  if (*opcode == HloOpcode::kConstant) {
    // XLA tolerates a constant without a literal; nothing here could evaluate one.
    if (!proto.has_literal()) return Invalid(ctx, "constant has no literal");
    absl::StatusOr<Literal> literal = Literal::FromProto(proto.literal());
    if (!literal.ok()) return Wrap(ctx, literal.status());
    if (!ShapeUtil::Compatible(literal->shape(), *shape)) {
      return Invalid(ctx, absl::StrCat("literal shape ", literal->shape().ToString(),
                                       " does not match instruction shape ", shape->ToString()));
    }
    instr->set_literal(*std::move(literal));
  } else if (*opcode == HloOpcode::kCustomCall && proto.has_literal()) {
    // custom-call(..., literal=...) carries a value of its own shape.
    absl::StatusOr<Literal> literal = Literal::FromProto(proto.literal());
    if (!literal.ok()) return Wrap(ctx, literal.status());
    instr->set_literal(*std::move(literal));
  } else if (proto.has_literal()) {
    return Invalid(ctx, "literal on an instruction that is neither constant nor custom-call");
  }

  for (int64_t callee_id : proto.called_computation_ids()) {
    // Existence was checked by CheckCallGraph.
    instr->AppendComputation(computations[index.computation_by_id.at(callee_id)].get());
  }

  HloInstructionProto* attrs = instr->mutable_attrs();
  *attrs = proto;
  attrs->clear_name();
  attrs->clear_opcode();
  attrs->clear_shape();
  attrs->clear_id();
  attrs->clear_operand_ids();
  attrs->clear_control_predecessor_ids();
  attrs->clear_called_computation_ids();
  attrs->clear_literal();
  return instr;
}

absl::Status BuildComputation(const HloComputationProto& proto, const ModuleIndex& index,
                              const std::vector<std::unique_ptr<HloComputation>>& computations,
                              HloComputation* comp) {
  absl::flat_hash_map<int64_t, int> local;
  RETURN_IF_ERROR(CheckInstructionGraph(proto, index, &local));
  RETURN_IF_ERROR(CheckParameters(proto));
  auto root_it = local.find(proto.root_id());
  if (root_it == local.end()) {
    return Invalid(CompContext(proto),
                   absl::StrCat("root_id ", proto.root_id(), " is not an instruction of it"));
  }

  std::vector<HloInstruction*> built;
  built.reserve(proto.instructions_size());
  for (const HloInstructionProto& instr_proto : proto.instructions()) {
    ASSIGN_OR_RETURN(std::unique_ptr<HloInstruction> instr,
                     MakeInstruction(proto, instr_proto, index, computations));
    built.push_back(comp->AddInstruction(std::move(instr)));
  }
  // Operands and control edges only now: proto order need not be topological.
  for (int i = 0; i < proto.instructions_size(); ++i) {
    const HloInstructionProto& instr_proto = proto.instructions(i);
    for (int64_t id : instr_proto.operand_ids()) built[i]->AppendOperand(built[local.at(id)]);
    for (int64_t id : instr_proto.control_predecessor_ids()) {
      built[local.at(id)]->AddControlDependencyTo(built[i]);
    }
  }
  // XLA writes defaults (feature_group_count=1, ...) that the IR leaves unset.
  for (HloInstruction* instr : built) ClearDefaultAttributes(instr);
  comp->set_root_instruction(built[root_it->second]);
  return absl::OkStatus();
}

// The proto entry: by entry_computation_id, else by entry_computation_name (older protos
// carry only the name; proto3 cannot tell id 0 from unset).
absl::StatusOr<int> FindEntry(const HloModuleProto& proto, const ModuleIndex& index) {
  auto it = index.computation_by_id.find(proto.entry_computation_id());
  if (it != index.computation_by_id.end()) {
    const std::string& name = proto.computations(it->second).name();
    if (!proto.entry_computation_name().empty() && proto.entry_computation_name() != name) {
      return Invalid("module '" + proto.name() + "'",
                     absl::StrCat("entry_computation_name '", proto.entry_computation_name(),
                                  "' disagrees with entry_computation_id ",
                                  proto.entry_computation_id(), " ('", name, "')"));
    }
    return it->second;
  }
  if (!proto.entry_computation_name().empty()) {
    for (int c = 0; c < proto.computations_size(); ++c) {
      if (proto.computations(c).name() == proto.entry_computation_name()) return c;
    }
  }
  return Invalid("module '" + proto.name() + "'",
                 absl::StrCat("no entry computation (entry_computation_id ",
                              proto.entry_computation_id(), ", entry_computation_name '",
                              proto.entry_computation_name(), "')"));
}

absl::Status CheckShapeIndex(const Shape& shape, const google::protobuf::RepeatedField<int64_t>& index,
                             absl::string_view ctx, absl::string_view what) {
  ShapeIndex idx(index.begin(), index.end());
  if (!ShapeUtil::IndexIsValid(shape, idx)) {
    return Invalid(ctx, absl::StrCat(what, " ", ShapeIndexToString(idx), " is not valid in ",
                                     shape.ToString()));
  }
  return absl::OkStatus();
}

// Aliasing and donors refer to entry parameters and the entry result by number and index.
absl::Status CheckAliasing(const HloModuleProto& proto, const HloComputation& entry) {
  const Shape& result = entry.root_instruction()->shape();
  auto param_shape = [&](int64_t n, absl::string_view ctx) -> absl::StatusOr<const Shape*> {
    if (n < 0 || n >= entry.num_parameters() || entry.parameter_instruction(n) == nullptr) {
      return Invalid(ctx, absl::StrCat("parameter_number ", n, " is not an entry parameter"));
    }
    return &entry.parameter_instruction(n)->shape();
  };
  for (const auto& e : proto.input_output_alias().entries()) {
    const std::string ctx = "input_output_alias";
    ASSIGN_OR_RETURN(const Shape* p, param_shape(e.parameter_number(), ctx));
    RETURN_IF_ERROR(CheckShapeIndex(*p, e.parameter_shape_index(), ctx, "parameter_shape_index"));
    RETURN_IF_ERROR(CheckShapeIndex(result, e.output_shape_index(), ctx, "output_shape_index"));
    if (!Kind_IsValid(e.kind())) {
      return Invalid(ctx, absl::StrCat("unknown alias kind ", static_cast<int>(e.kind())));
    }
  }
  for (const auto& e : proto.buffer_donor().entries()) {
    const std::string ctx = "buffer_donor";
    ASSIGN_OR_RETURN(const Shape* p, param_shape(e.parameter_number(), ctx));
    RETURN_IF_ERROR(CheckShapeIndex(*p, e.parameter_shape_index(), ctx, "parameter_shape_index"));
  }
  return absl::OkStatus();
}

// Every sequence names a computation and, at most once each, instructions of it.
absl::Status CheckSchedule(const HloModuleProto& proto, const ModuleIndex& index) {
  for (const auto& [comp_id, sequence] : proto.schedule().sequences()) {
    auto it = index.computation_by_id.find(comp_id);
    if (it == index.computation_by_id.end()) {
      return Invalid("schedule", absl::StrCat("computation id ", comp_id, " does not exist"));
    }
    const HloComputationProto& comp = proto.computations(it->second);
    absl::flat_hash_set<int64_t> seen;
    for (int64_t id : sequence.instruction_ids()) {
      auto loc = index.instruction_by_id.find(id);
      if (loc == index.instruction_by_id.end() || loc->second.comp != it->second) {
        return Invalid("schedule of " + CompContext(comp),
                       absl::StrCat("instruction id ", id, " is not in that computation"));
      }
      if (!seen.insert(id).second) {
        return Invalid("schedule of " + CompContext(comp),
                       absl::StrCat("instruction id ", id, " appears twice"));
      }
    }
  }
  return absl::OkStatus();
}

// Only the parameter count: shape compatibility with the entry is the verifier's check
// (VerifyHloModule), as for parsed text, so that every parsable module survives a proto
// round trip unchanged.
absl::Status CheckMatchesEntry(const ProgramShape& shape, const HloComputation& entry,
                               absl::string_view ctx) {
  if (static_cast<int64_t>(shape.parameters().size()) != entry.num_parameters()) {
    return Invalid(ctx, absl::StrCat(shape.parameters().size(), " parameters, but the entry has ",
                                     entry.num_parameters()));
  }
  return absl::OkStatus();
}

// Mirrors XLA's CreateModuleConfigFromProto and the text parser: unless the caller chose an
// entry layout, it is host_program_shape as written (so that encode/decode is the identity),
// else the entry's program shape with default layouts filled in as the parser does; without
// parameter names either way. Either must fit the entry.
absl::Status SetEntryLayout(const HloModuleProto& proto, const HloComputation& entry,
                            HloModuleConfig* config) {
  if (config->entry_computation_layout.has_value()) {
    return CheckMatchesEntry(*config->entry_computation_layout, entry,
                             "config entry_computation_layout");
  }
  ProgramShape layout;
  if (proto.has_host_program_shape()) {
    absl::StatusOr<ProgramShape> host = ProgramShape::FromProto(proto.host_program_shape());
    if (!host.ok()) return Wrap("host_program_shape", host.status());
    RETURN_IF_ERROR(CheckMatchesEntry(*host, entry, "host_program_shape"));
    layout = *std::move(host);
  } else {
    layout = entry.ComputeProgramShape();
    for (Shape& p : layout.parameters()) ShapeUtil::SetDefaultLayoutsIfMissing(&p);
    ShapeUtil::SetDefaultLayoutsIfMissing(&layout.result());
  }
  layout.parameter_names().clear();
  config->entry_computation_layout = std::move(layout);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> HloModuleFromProto(const HloModuleProto& proto,
                                                              const HloModuleConfig& config) {
  if (proto.computations_size() == 0) {
    return Invalid("module '" + proto.name() + "'", "has no computations");
  }
  ASSIGN_OR_RETURN(ModuleIndex index, IndexModule(proto));
  RETURN_IF_ERROR(CheckCallGraph(proto, index));
  ASSIGN_OR_RETURN(int entry_index, FindEntry(proto, index));

  // Computations exist before any instruction so that calls can point at them.
  std::vector<std::unique_ptr<HloComputation>> computations;
  computations.reserve(proto.computations_size());
  for (const HloComputationProto& c : proto.computations()) {
    auto comp = std::make_unique<HloComputation>(c.name());
    comp->set_unique_id(c.id());
    comp->set_is_fusion_computation(c.is_fusion_computation());
    comp->set_execution_thread(c.execution_thread().empty() ? "main" : c.execution_thread());
    computations.push_back(std::move(comp));
  }
  for (int c = 0; c < proto.computations_size(); ++c) {
    RETURN_IF_ERROR(
        BuildComputation(proto.computations(c), index, computations, computations[c].get()));
  }

  HloModuleConfig module_config = config;
  RETURN_IF_ERROR(SetEntryLayout(proto, *computations[entry_index], &module_config));
  auto module = std::make_unique<HloModule>(proto.name(), std::move(module_config));
  module->set_unique_id(proto.id());
  // Ids already taken must never be handed out again.
  for (const auto& [id, loc] : index.instruction_by_id) module->NoteUniqueId(id);
  for (const auto& [id, c] : index.computation_by_id) module->NoteUniqueId(id);
  for (int c = 0; c < proto.computations_size(); ++c) {
    if (c == entry_index) {
      module->AddEntryComputation(std::move(computations[c]));
    } else {
      module->AddEmbeddedComputation(std::move(computations[c]));
    }
  }

  RETURN_IF_ERROR(CheckAliasing(proto, *module->entry_computation()));
  RETURN_IF_ERROR(CheckSchedule(proto, index));
  module->input_output_alias() = proto.input_output_alias();
  module->buffer_donor() = proto.buffer_donor();
  module->frontend_attributes() = proto.frontend_attributes();
  module->set_is_scheduled(proto.has_schedule());
  module->schedule() = proto.schedule();
  if (proto.has_spmd_output_sharding()) module->spmd_output_sharding() = proto.spmd_output_sharding();
  module->spmd_parameters_shardings().assign(proto.spmd_parameters_shardings().begin(),
                                             proto.spmd_parameters_shardings().end());

  HloModuleProto& extra = module->extra_proto_fields();
  extra = proto;
  extra.clear_name();
  extra.clear_id();
  extra.clear_entry_computation_name();
  extra.clear_entry_computation_id();
  extra.clear_computations();
  extra.clear_host_program_shape();
  extra.clear_input_output_alias();
  extra.clear_buffer_donor();
  extra.clear_frontend_attributes();
  extra.clear_schedule();
  extra.clear_spmd_output_sharding();
  extra.clear_spmd_parameters_shardings();
  return module;
}

absl::StatusOr<std::unique_ptr<HloModule>> HloModuleFromProtoWithConfig(
    const HloModuleProtoWithConfig& proto) {
  HloModuleConfig config;
  if (proto.has_config()) {
    ASSIGN_OR_RETURN(config, HloModuleConfigFromProto(proto.config()));
  }
  return HloModuleFromProto(proto.hlo_module(), config);
}

}  // namespace xla
