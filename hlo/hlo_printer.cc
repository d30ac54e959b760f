// Module, computation and instruction text in XLA's layout (HloModule::Print,
// HloComputation::Print, HloInstruction::PrintWithCanonicalNameMap). Attribute texts
// live in hlo_printer_attrs.cc and hlo_printer_values.cc.

#include "hlo/hlo_printer.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hlo/hlo_printer_internal.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/literal.h"
#include "hlo/shape_util.h"

namespace xla {

HloPrintOptions HloPrintOptions::ShortParsable() {
  HloPrintOptions o;
  o.print_large_constants = true;
  o.print_subcomputation_mode = PrintSubcomputationMode::kNameOnly;
  o.print_metadata = false;
  o.print_operand_shape = false;
  o.print_operand_index_annotation_interval = 0;
  o.print_program_shape = false;
  o.print_percent = false;
  o.print_control_dependencies = false;
  return o;
}

HloPrintOptions HloPrintOptions::Canonical() {
  HloPrintOptions o;
  o.print_metadata = false;
  o.print_backend_config = false;
  o.compact_operands = false;
  o.print_operand_names = false;
  o.print_operand_shape = true;
  o.print_operand_index_annotation_interval = 0;
  o.print_program_shape = false;
  o.print_percent = false;
  o.print_control_dependencies = false;
  o.canonicalize_instruction_names = true;
  return o;
}

HloPrintOptions HloPrintOptions::Long() {
  HloPrintOptions o;
  o.print_operand_shape = true;
  o.print_large_constants = true;
  return o;
}

namespace printer_internal {

std::string PrintedName(std::string_view name, const HloPrintOptions& options) {
  std::string_view shown = name;
  if (!options.print_ids) shown = name.substr(0, name.find('.'));
  return absl::StrCat(options.print_percent ? "%" : "", std::string(shown));
}

std::string ShapeText(const Shape& shape, const HloPrintOptions& options) {
  return shape.ToString(options.include_layout_in_shapes);
}

bool IsAsyncOpcode(HloOpcode opcode) {
  return opcode == HloOpcode::kAsyncStart || opcode == HloOpcode::kAsyncUpdate ||
         opcode == HloOpcode::kAsyncDone;
}

const HloInstruction* AsyncChainStart(const HloInstruction& instruction) {
  const HloInstruction* current = &instruction;
  // Bounded walk: a malformed chain (cycle) must not hang the printer.
  for (int steps = 0; steps < 1 << 20 && current->opcode() != HloOpcode::kAsyncStart; ++steps) {
    if (current->operand_count() == 0 || !IsAsyncOpcode(current->operand(0)->opcode())) {
      return current;
    }
    current = current->operand(0);
  }
  return current;
}

const HloComputation* AsyncWrappedComputation(const HloInstruction& instruction) {
  const HloInstruction* start = AsyncChainStart(instruction);
  if (!start->called_computations().empty()) return start->called_computations().front();
  if (!instruction.called_computations().empty()) return instruction.called_computations().front();
  return nullptr;
}

// Parameters and a root that reads them each once, in order: what `op-start(operands)`
// re-parses into. (A root that reads a parameter twice, or out of order, is printed as the
// async-start with its computation: the sugar would re-parse to another computation.)
bool CanExpandIntoSingleInstruction(const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr) return false;
  for (const auto& instruction : computation.instructions()) {
    if (instruction.get() != root && instruction->opcode() != HloOpcode::kParameter) return false;
  }
  if (root->opcode() == HloOpcode::kParameter) return false;
  if (root->operand_count() != computation.num_parameters()) return false;
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    if (root->operand(i) != computation.parameter_instruction(i)) return false;
  }
  return true;
}

bool UsesAsyncSugar(const HloInstruction& instruction, const HloPrintOptions& options) {
  if (!options.syntax_sugar_async_ops || !IsAsyncOpcode(instruction.opcode())) return false;
  const HloComputation* wrapped = AsyncWrappedComputation(instruction);
  return wrapped != nullptr && CanExpandIntoSingleInstruction(*wrapped);
}

}  // namespace printer_internal

namespace {

using printer_internal::PrintedName;
using printer_internal::ShapeText;

// tmp_0, tmp_1, ... in order of first mention (XLA's CanonicalNameMap).
class CanonicalNames {
 public:
  std::string Lookup(const HloInstruction* instruction) {
    auto [it, inserted] = names_.emplace(instruction, "");
    if (inserted) it->second = absl::StrCat("tmp_", names_.size() - 1);
    return it->second;
  }

 private:
  std::unordered_map<const HloInstruction*, std::string> names_;
};

std::string ConstantValueText(const HloInstruction& instruction, const HloPrintOptions& options) {
  const Shape& shape = instruction.shape();
  // XLA elides arrays of more than 10 elements and every tuple unless asked.
  if (instruction.has_literal() &&
      ((shape.IsArray() && ShapeUtil::ElementsIn(shape) <= 10) || options.print_large_constants)) {
    return instruction.literal().ToStringWithoutShape();
  }
  return "{...}";
}

std::string OperandsText(const HloInstruction& instruction, const HloPrintOptions& options,
                         CanonicalNames* names) {
  if (instruction.opcode() == HloOpcode::kConstant) return ConstantValueText(instruction, options);
  if (instruction.opcode() == HloOpcode::kParameter) {
    return absl::StrCat(instruction.parameter_number());
  }
  const auto& operands = instruction.operands();
  size_t shown = operands.size();
  constexpr size_t kMaxOperandsIfCompact = 4;
  if (options.compact_operands && shown > kMaxOperandsIfCompact) shown = kMaxOperandsIfCompact;
  std::string out;
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) {
      const int64_t interval = options.print_operand_index_annotation_interval;
      if (interval != 0 && static_cast<int64_t>(i) % interval == 0) {
        absl::StrAppend(&out, ", /*index=", i, "*/");
      } else {
        out += ", ";
      }
    }
    const HloInstruction* operand = operands[i];
    if (operand == nullptr) {
      out += "null ";
      continue;
    }
    bool add_space = false;
    if (options.print_operand_shape) {
      out += ShapeText(operand->shape(), options);
      add_space = true;
    }
    if (options.canonicalize_instruction_names) {
      if (options.is_in_nested_computation) {
        if (add_space) out += " ";
        out += names->Lookup(operand);
      }
    } else if (options.print_operand_names) {
      if (add_space) out += " ";
      out += PrintedName(operand->name(), options);
    }
  }
  if (shown < operands.size()) absl::StrAppend(&out, ", ...(+", operands.size() - shown, ")");
  return out;
}

std::string OpcodeText(const HloInstruction& instruction, const HloPrintOptions& options) {
  if (printer_internal::UsesAsyncSugar(instruction, options)) {
    const HloComputation* wrapped = printer_internal::AsyncWrappedComputation(instruction);
    const char* suffix = instruction.opcode() == HloOpcode::kAsyncStart    ? "-start"
                         : instruction.opcode() == HloOpcode::kAsyncUpdate ? "-update"
                                                                           : "-done";
    return absl::StrCat(std::string(HloOpcodeString(wrapped->root_instruction()->opcode())), suffix);
  }
  return std::string(HloOpcodeString(instruction.opcode()));
}

std::string InstructionText(const HloInstruction& instruction, const HloPrintOptions& options,
                            CanonicalNames* names) {
  std::string out;
  if (options.canonicalize_instruction_names) {
    if (options.is_in_nested_computation) absl::StrAppend(&out, names->Lookup(&instruction), " = ");
  } else {
    absl::StrAppend(&out, PrintedName(instruction.name(), options), " = ");
  }
  if (options.print_result_shape) absl::StrAppend(&out, ShapeText(instruction.shape(), options), " ");
  absl::StrAppend(&out, OpcodeText(instruction, options), "(",
                  OperandsText(instruction, options, names), ")");

  std::vector<std::string> attrs;
  printer_internal::AppendExtraAttributes(instruction, options, &attrs);
  for (const std::string& attr : attrs) absl::StrAppend(&out, ", ", attr);

  const HloInstructionProto& a = instruction.attrs();
  if (options.print_original_value && a.has_original_value()) {
    absl::StrAppend(&out, ", origin={",
                    printer_internal::OriginalValueText(a.original_value(), instruction.shape()),
                    "}");
  }
  if (options.print_metadata && a.has_metadata()) {
    const OpMetadata& m = a.metadata();
    if (!m.op_type().empty() || !m.op_name().empty() || !m.source_file().empty() ||
        !m.scheduling_name().empty() || m.stack_frame_id() != 0) {
      absl::StrAppend(&out, ", metadata={",
                      OpMetadataToString(m, options.print_metadata_only_op_name), "}");
    }
  }
  if (options.print_backend_config && !a.backend_config().empty()) {
    const std::string& config = a.backend_config();
    // JSON-like configs need no quoting in the parser, so XLA prints them bare.
    if (LexesAsJsonDict(config)) {
      absl::StrAppend(&out, ", backend_config=", config);
    } else {
      absl::StrAppend(&out, ", backend_config=\"", printer_internal::CEscapeText(config), "\"");
    }
  }
  return out;
}

// Channel-linked collectives are emitted together, as XLA's ComputeChannelDependencies.
std::unordered_map<const HloInstruction*, std::vector<const HloInstruction*>> ChannelDependencies(
    const HloComputation& computation) {
  std::unordered_map<const HloInstruction*, std::vector<const HloInstruction*>> deps;
  std::unordered_map<int64_t, std::vector<const HloInstruction*>> groups;
  for (const auto& owned : computation.instructions()) {
    const HloInstruction* instruction = owned.get();
    switch (instruction->opcode()) {
      case HloOpcode::kAllReduce: case HloOpcode::kAllGather: case HloOpcode::kAllToAll:
      case HloOpcode::kCollectiveBroadcast: case HloOpcode::kCollectivePermute:
      case HloOpcode::kRaggedAllToAll: case HloOpcode::kReduceScatter: {
        const int64_t channel = instruction->attrs().channel_id();
        if (channel <= 0) break;
        std::vector<const HloInstruction*>& group = groups[channel];
        for (const HloInstruction* member : group) deps[member].push_back(instruction);
        deps[instruction] = group;
        group.push_back(instruction);
        break;
      }
      default:
        break;
    }
  }
  return deps;
}

// XLA's HloComputation::MakeInstructionPostOrder: a DFS from every instruction without
// users, in instruction order; operands first-to-last, control predecessors before them.
std::vector<const HloInstruction*> PrintOrder(const HloComputation& computation) {
  const auto deps = ChannelDependencies(computation);
  enum State { kNew = 0, kVisiting, kVisited };
  std::unordered_map<const HloInstruction*, State> state;
  std::vector<const HloInstruction*> order;
  std::vector<const HloInstruction*> stack;
  auto push = [&](const HloInstruction* instruction) {
    if (instruction != nullptr && state[instruction] != kVisited) stack.push_back(instruction);
  };
  for (const auto& owned : computation.instructions()) {
    const HloInstruction* root = owned.get();
    const bool has_user = std::any_of(root->users().begin(), root->users().end(),
                                      [](const HloInstruction* u) { return u->parent() != nullptr; });
    if (has_user) continue;
    push(root);
    while (!stack.empty()) {
      const HloInstruction* current = stack.back();
      State& s = state[current];
      if (s == kNew) {
        s = kVisiting;
      } else {
        stack.pop_back();
        if (s != kVisited) {
          s = kVisited;
          order.push_back(current);
        }
        continue;
      }
      if (current != root) {
        auto it = deps.find(current);
        if (it != deps.end()) {
          for (const HloInstruction* d : it->second) push(d);
        }
      }
      const auto& operands = current->operands();
      for (auto it = operands.rbegin(); it != operands.rend(); ++it) push(*it);
      for (const HloInstruction* p : current->control_predecessors()) push(p);
    }
  }
  // Instructions only reachable through cycles or foreign users still get printed.
  for (const auto& owned : computation.instructions()) {
    if (state[owned.get()] != kVisited) order.push_back(owned.get());
  }
  return order;
}

// The module's schedule for `computation`, or empty when it has none (or a stale one).
std::vector<const HloInstruction*> ScheduledOrder(const HloComputation& computation) {
  const HloModule* module = computation.parent();
  if (module == nullptr || !module->is_scheduled()) return {};
  const auto& sequences = module->schedule().sequences();
  auto it = sequences.find(computation.unique_id());
  if (it == sequences.end()) return {};
  std::unordered_map<int64_t, const HloInstruction*> by_id;
  for (const auto& owned : computation.instructions()) by_id[owned->unique_id()] = owned.get();
  std::vector<const HloInstruction*> order;
  for (int64_t id : it->second.instruction_ids()) {
    auto found = by_id.find(id);
    if (found == by_id.end()) return {};
    order.push_back(found->second);
  }
  if (order.size() != computation.instructions().size()) return {};
  return order;
}

std::string ProgramShapeText(const HloComputation& computation, const HloPrintOptions& options) {
  std::vector<std::string> params;
  for (const HloInstruction* p : computation.parameter_instructions()) {
    if (p == nullptr) continue;
    std::string_view name = p->name();
    if (!options.print_ids) name = name.substr(0, name.find('.'));
    params.push_back(absl::StrCat(std::string(name), ": ", p->shape().ToString(false)));
  }
  const HloInstruction* root = computation.root_instruction();
  return absl::StrCat("(", absl::StrJoin(params, ", "), ") -> ",
                      root != nullptr ? root->shape().ToString(false) : "()");
}

void PrintComputation(const HloComputation& computation, const HloPrintOptions& options,
                      bool with_entry_keyword, std::string* out) {
  const std::string tab(2 * std::max(options.indent_amount, 0), ' ');
  *out += tab;
  const HloModule* module = computation.parent();
  if (with_entry_keyword && module != nullptr && module->entry_computation() == &computation) {
    *out += "ENTRY ";
  }
  if (!options.is_in_nested_computation) {
    if (options.print_percent) *out += "%";
    if (options.print_ids) absl::StrAppend(out, computation.name(), " ");
  }
  if (options.print_program_shape) absl::StrAppend(out, ProgramShapeText(computation, options), " ");
  *out += "{\n";

  HloPrintOptions inner = options;
  inner.indent_amount = options.indent_amount + 1;
  inner.is_in_nested_computation = true;
  CanonicalNames names;
  std::vector<const HloInstruction*> order = ScheduledOrder(computation);
  if (order.empty()) order = PrintOrder(computation);
  for (const HloInstruction* instruction : order) {
    absl::StrAppend(out, tab, "  ", instruction == computation.root_instruction() ? "ROOT " : "",
                    InstructionText(*instruction, inner, &names), "\n");
  }
  absl::StrAppend(out, tab, "}");
  if (options.print_ids && computation.execution_thread() != "main") {
    absl::StrAppend(out, ", execution_thread=\"", computation.execution_thread(), "\"");
  }
  if (options.print_name_after_closing_brace && computation.instruction_count() > 5) {
    absl::StrAppend(out, " // ", computation.name());
  }
}

// XLA's HloModule::MakeComputationPostOrder(dfs_postorder=true): callees before callers,
// following each root computation's instructions in order.
std::vector<const HloComputation*> ComputationOrder(const HloModule& module) {
  auto callees = [](const HloInstruction* instruction) {
    return std::vector<const HloComputation*>(instruction->called_computations().begin(),
                                              instruction->called_computations().end());
  };
  std::unordered_set<const HloComputation*> non_roots;
  for (const auto& c : module.computations()) {
    for (const auto& instruction : c->instructions()) {
      for (const HloComputation* callee : callees(instruction.get())) non_roots.insert(callee);
    }
  }
  std::unordered_set<const HloComputation*> added;
  std::vector<const HloComputation*> order;
  for (const auto& owned : module.computations()) {
    const HloComputation* root = owned.get();
    if (non_roots.count(root) != 0) continue;
    // Embedded computations of `root` in DFS post-order (MakeEmbeddedComputationsList).
    std::unordered_set<const HloComputation*> visited;
    struct Frame {
      const HloComputation* computation;
      size_t next;
    };
    std::vector<Frame> stack;
    auto push_callees = [&](const HloInstruction* instruction) {
      std::vector<const HloComputation*> called = callees(instruction);
      for (auto it = called.rbegin(); it != called.rend(); ++it) {
        if (*it != nullptr && visited.insert(*it).second) stack.push_back({*it, 0});
      }
    };
    for (const auto& instruction : root->instructions()) {
      push_callees(instruction.get());
      while (!stack.empty()) {
        Frame& top = stack.back();
        if (top.next == top.computation->instructions().size()) {
          const HloComputation* done = top.computation;
          stack.pop_back();
          if (added.insert(done).second) order.push_back(done);
        } else {
          const HloInstruction* next = top.computation->instructions()[top.next++].get();
          push_callees(next);
        }
      }
    }
    if (added.insert(root).second) order.push_back(root);
  }
  // Computations only reachable from call cycles are still printed.
  for (const auto& owned : module.computations()) {
    if (added.insert(owned.get()).second) order.push_back(owned.get());
  }
  return order;
}

// Computations wrapped by an async-start that the syntax sugar prints inline.
std::unordered_set<const HloComputation*> SugaredAsyncComputations(const HloModule& module,
                                                                   const HloPrintOptions& options) {
  std::unordered_set<const HloComputation*> out;
  if (!options.syntax_sugar_async_ops) return out;
  for (const auto& c : module.computations()) {
    for (const auto& instruction : c->instructions()) {
      if (!printer_internal::IsAsyncOpcode(instruction->opcode())) continue;
      for (const HloComputation* called : instruction->called_computations()) {
        if (called != nullptr && printer_internal::CanExpandIntoSingleInstruction(*called)) {
          out.insert(called);
        }
      }
    }
  }
  return out;
}

std::string ShapeIndexText(const std::vector<int64_t>& index) {
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

std::string InputOutputAliasText(const HloInputOutputAliasProto& proto) {
  std::vector<const HloInputOutputAliasProto::AliasEntryProto*> entries;
  for (const auto& e : proto.entries()) entries.push_back(&e);
  // XLA walks its alias ShapeTree in pre-order, i.e. by output index lexicographically.
  std::stable_sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) {
    return std::lexicographical_compare(a->output_shape_index().begin(), a->output_shape_index().end(),
                                        b->output_shape_index().begin(), b->output_shape_index().end());
  });
  std::vector<std::string> parts;
  for (const auto* e : entries) {
    parts.push_back(absl::StrCat(
        printer_internal::ShapeIndexText(e->output_shape_index()), ": (", e->parameter_number(), ", ",
        printer_internal::ShapeIndexText(e->parameter_shape_index()),
        e->kind() == MUST_ALIAS ? ", must-alias" : "", ")"));
  }
  return absl::StrJoin(parts, ", ");
}

std::string BufferDonorText(const HloBufferDonorProto& proto) {
  std::vector<std::pair<int64_t, std::vector<int64_t>>> donors;
  for (const auto& e : proto.entries()) {
    donors.emplace_back(e.parameter_number(), std::vector<int64_t>(e.parameter_shape_index().begin(),
                                                                   e.parameter_shape_index().end()));
  }
  std::sort(donors.begin(), donors.end());
  donors.erase(std::unique(donors.begin(), donors.end()), donors.end());
  std::vector<std::string> parts;
  for (const auto& [number, index] : donors) {
    parts.push_back(absl::StrCat("(", number, ", ", ShapeIndexText(index), ")"));
  }
  return absl::StrJoin(parts, ", ");
}

std::string EntryLayoutText(const ProgramShape& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.parameters().size(); ++i) {
    if (i > 0) out += (i % 5 == 0) ? absl::StrCat(", /*index=", i, "*/") : ", ";
    out += shape.parameters()[i].ToString(true);
  }
  absl::StrAppend(&out, ")->", shape.result().ToString(true));
  return out;
}

std::string BoolListText(const std::vector<bool>& values) {
  std::vector<std::string> parts;
  for (bool v : values) parts.push_back(v ? "true" : "false");
  return absl::StrJoin(parts, ",");
}

std::string OriginalArrayText(const OriginalArrayProto& array) {
  std::string text = absl::StrCat("{\"", array.instruction_name(), "\"");
  if (array.shape_index_size() > 0) {
    absl::StrAppend(&text, " {", absl::StrJoin(array.shape_index(), ","), "}");
  }
  return text + "}";
}

// origin_recovery_table={ {"old"} : {"new"}, "<recovery module text>", ... }: the recovery
// module is printed in full, indented, inside a string.
std::string RecoveryTableText(const OriginalValueRecoveryTableProto& table) {
  std::vector<std::string> entries;
  for (const auto& entry : table.entries()) {
    std::string text = absl::StrCat("  ", OriginalArrayText(entry.old_original_array()), " : ",
                                    OriginalArrayText(entry.new_original_array()));
    if (entry.has_recovery_module()) {
      absl::StatusOr<std::unique_ptr<HloModule>> recovery = HloModuleFromProto(entry.recovery_module());
      if (recovery.ok()) {
        std::vector<std::string> lines = absl::StrSplit(HloModuleToString(**recovery), '\n');
        for (std::string& line : lines) {
          if (!line.empty()) line = "    " + line;
        }
        absl::StrAppend(&text, ",\n  \"\n", absl::StrJoin(lines, "\n"), "\n  \"");
      }
    }
    entries.push_back(std::move(text));
  }
  // XLA ends the table with a newline, so a blank line more follows the header.
  return absl::StrCat("{\n", absl::StrJoin(entries, ",\n"), "\n}\n");
}

void PrintModuleHeader(const HloModule& module, const HloPrintOptions& options, std::string* out) {
  *out += std::string(2 * std::max(options.indent_amount, 0), ' ');
  *out += "HloModule ";
  if (options.print_ids) *out += module.name();
  if (module.is_scheduled()) *out += ", is_scheduled=true";
  const std::string aliasing = InputOutputAliasText(module.input_output_alias());
  if (!aliasing.empty()) absl::StrAppend(out, ", input_output_alias={ ", aliasing, " }");
  const std::string donors = BufferDonorText(module.buffer_donor());
  if (!donors.empty()) absl::StrAppend(out, ", buffer_donor={ ", donors, " }");
  const HloModuleConfig& config = module.config();
  if (config.alias_passthrough_params) *out += ", alias_passthrough_params=true";
  if (config.entry_computation_layout.has_value()) {
    absl::StrAppend(out, ", entry_computation_layout={", EntryLayoutText(*config.entry_computation_layout), "}");
  } else if (module.entry_computation() != nullptr) {
    // XLA derives the layout from the entry computation when a module gets its entry.
    absl::StrAppend(out, ", entry_computation_layout={",
                    EntryLayoutText(module.entry_computation()->ComputeProgramShape()), "}");
  }
  const auto& to_params = config.allow_spmd_sharding_propagation_to_parameters;
  if (to_params.size() != 1 || to_params.back()) {
    absl::StrAppend(out, ", allow_spmd_sharding_propagation_to_parameters={", BoolListText(to_params), "}");
  }
  const auto& to_output = config.allow_spmd_sharding_propagation_to_output;
  if (to_output.size() != 1 || to_output.back()) {
    absl::StrAppend(out, ", allow_spmd_sharding_propagation_to_output={", BoolListText(to_output), "}");
  }
  if (config.replica_count != 1) absl::StrAppend(out, ", replica_count=", config.replica_count);
  if (config.num_partitions != 1) absl::StrAppend(out, ", num_partitions=", config.num_partitions);
  if (!module.frontend_attributes().map().empty()) {
    absl::StrAppend(out, ", frontend_attributes=", FrontendAttributesToString(module.frontend_attributes()));
  }
  const HloModuleProto& extra = module.extra_proto_fields();
  if (extra.has_original_value_recovery_table() &&
      extra.original_value_recovery_table().entries_size() > 0) {
    absl::StrAppend(out, ", origin_recovery_table=", RecoveryTableText(extra.original_value_recovery_table()));
  }
}

}  // namespace

std::string HloInstructionToString(const HloInstruction& instruction, const HloPrintOptions& options) {
  CanonicalNames names;
  return InstructionText(instruction, options, &names);
}

std::string HloComputationToString(const HloComputation& computation, const HloPrintOptions& options) {
  std::string out;
  PrintComputation(computation, options, /*with_entry_keyword=*/false, &out);
  return out;
}

std::string HloModuleToString(const HloModule& module, const HloPrintOptions& options) {
  std::string out;
  PrintModuleHeader(module, options, &out);
  out += "\n\n";
  const auto sugared = SugaredAsyncComputations(module, options);
  for (const HloComputation* computation : ComputationOrder(module)) {
    if (sugared.count(computation) != 0) continue;
    PrintComputation(*computation, options, /*with_entry_keyword=*/true, &out);
    out += "\n\n";
  }
  return out;
}

}  // namespace xla
