#include "hlo/hlo_verifier.h"

#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/shape_inference_checks.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {

namespace {

std::string Where(const HloComputation& computation, const HloInstruction* instruction) {
  std::string prefix;
  if (instruction != nullptr && instruction->text_line() > 0) {
    prefix = absl::StrCat(instruction->text_line(), ":", instruction->text_column(), ": ");
  }
  absl::StrAppend(&prefix, "in computation '", computation.name(), "'");
  if (instruction != nullptr) absl::StrAppend(&prefix, ", instruction '", instruction->name(), "'");
  return absl::StrCat(prefix, ": ");
}

absl::Status Error(const HloComputation& computation, const HloInstruction* instruction,
                   absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(Where(computation, instruction), message));
}

// Re-wraps an error from a per-op check with the location prefix (unless it has one).
absl::Status Wrap(const HloComputation& computation, const HloInstruction& instruction,
                  const absl::Status& status) {
  return absl::InvalidArgumentError(
      absl::StrCat(Where(computation, &instruction), status.message()));
}

absl::Status VerifyShapeIsValid(const HloComputation& computation, const HloInstruction& instruction,
                                const HloVerifierOptions& options) {
  absl::Status status = ShapeUtil::ValidateShape(instruction.shape());
  if (!status.ok()) return Wrap(computation, instruction, status);
  if (options.require_layouts && !ShapeUtil::HasLayoutEverywhere(instruction.shape())) {
    return Error(computation, &instruction,
                 absl::StrCat("shape ", instruction.shape().ToString(), " has no layout"));
  }
  return absl::OkStatus();
}

// Operands, control edges and the root must stay inside the computation, and the
// operand + control graph must be acyclic.
absl::Status VerifyGraph(const HloComputation& computation) {
  if (computation.root_instruction() == nullptr) {
    return Error(computation, nullptr, "computation has no root instruction");
  }
  if (computation.root_instruction()->parent() != &computation) {
    return Error(computation, computation.root_instruction(), "root belongs to another computation");
  }
  for (const auto& instruction : computation.instructions()) {
    if (instruction->parent() != &computation) {
      return Error(computation, instruction.get(), "instruction's parent is another computation");
    }
    for (const HloInstruction* operand : instruction->operands()) {
      if (operand == nullptr || operand->parent() != &computation) {
        return Error(computation, instruction.get(),
                     absl::StrCat("operand '", operand ? operand->name() : "<null>",
                                  "' is not in this computation"));
      }
    }
    for (const HloInstruction* pred : instruction->control_predecessors()) {
      if (pred->parent() != &computation) {
        return Error(computation, instruction.get(),
                     absl::StrCat("control predecessor '", pred->name(), "' is not in this computation"));
      }
    }
  }
  // Iterative three-colour DFS for cycle detection.
  enum Colour : uint8_t { kWhite, kGrey, kBlack };
  absl::flat_hash_map<const HloInstruction*, Colour> colour;
  for (const auto& start : computation.instructions()) {
    if (colour[start.get()] != kWhite) continue;
    std::vector<std::pair<const HloInstruction*, size_t>> stack = {{start.get(), 0}};
    colour[start.get()] = kGrey;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const size_t num_operands = node->operands().size();
      if (next < num_operands + node->control_predecessors().size()) {
        const HloInstruction* dep = next < num_operands
                                        ? node->operands()[next]
                                        : node->control_predecessors()[next - num_operands];
        ++next;
        Colour& c = colour[dep];
        if (c == kGrey) {
          return Error(computation, dep, "instruction is part of a cycle");
        }
        if (c == kWhite) {
          c = kGrey;
          stack.push_back({dep, 0});
        }
        continue;
      }
      colour[node] = kBlack;
      stack.pop_back();
    }
  }
  return absl::OkStatus();
}

absl::Status VerifyParameters(const HloComputation& computation) {
  absl::flat_hash_set<int64_t> seen;
  int64_t count = 0;
  for (const auto& instruction : computation.instructions()) {
    if (instruction->opcode() != HloOpcode::kParameter) continue;
    ++count;
    int64_t number = instruction->parameter_number();
    if (number < 0) return Error(computation, instruction.get(), "negative parameter number");
    if (!seen.insert(number).second) {
      return Error(computation, instruction.get(),
                   absl::StrCat("duplicate parameter number ", number));
    }
  }
  for (int64_t i = 0; i < count; ++i) {
    if (!seen.contains(i)) {
      return Error(computation, nullptr,
                   absl::StrCat("parameter numbers must be 0..", count - 1, "; ", i, " is missing"));
    }
  }
  return absl::OkStatus();
}

absl::Status VerifyArity(const HloComputation& computation, const HloInstruction& instruction) {
  int arity = HloOpcodeArity(instruction.opcode());
  if (arity != kVariadic && instruction.operand_count() != arity) {
    return Error(computation, &instruction,
                 absl::StrCat(std::string(HloOpcodeString(instruction.opcode())), " takes ", arity,
                              " operand(s) but has ", instruction.operand_count()));
  }
  return absl::OkStatus();
}

absl::Status VerifyCalledComputations(const HloModule& module, const HloComputation& computation,
                                      const HloInstruction& instruction,
                                      const absl::flat_hash_set<const HloComputation*>& owned) {
  for (const HloComputation* callee : instruction.called_computations()) {
    if (callee == nullptr || !owned.contains(callee)) {
      return Error(computation, &instruction, "calls a computation that is not in the module");
    }
    if (callee == &computation) {
      return Error(computation, &instruction, "computation calls itself");
    }
    if (callee == module.entry_computation()) {
      return Error(computation, &instruction, "the entry computation cannot be called");
    }
  }
  return absl::OkStatus();
}

// No computation may (transitively) call itself.
absl::Status VerifyNoRecursion(const HloModule& module) {
  enum Colour : uint8_t { kWhite, kGrey, kBlack };
  absl::flat_hash_map<const HloComputation*, Colour> colour;
  auto callees = [](const HloComputation* c) {
    std::vector<const HloComputation*> out;
    for (const auto& i : c->instructions()) {
      for (const HloComputation* callee : i->called_computations()) out.push_back(callee);
    }
    return out;
  };
  for (const auto& start : module.computations()) {
    if (colour[start.get()] != kWhite) continue;
    std::vector<std::pair<const HloComputation*, std::vector<const HloComputation*>>> stack;
    stack.push_back({start.get(), callees(start.get())});
    colour[start.get()] = kGrey;
    while (!stack.empty()) {
      auto& top = stack.back();
      if (!top.second.empty()) {
        const HloComputation* next = top.second.back();
        top.second.pop_back();
        Colour& c = colour[next];
        if (c == kGrey) {
          return absl::InvalidArgumentError(
              absl::StrCat("computation '", next->name(), "' is called recursively"));
        }
        if (c == kWhite) {
          c = kGrey;
          stack.push_back({next, callees(next)});
        }
        continue;
      }
      colour[top.first] = kBlack;
      stack.pop_back();
    }
  }
  return absl::OkStatus();
}

absl::Status VerifyEntryLayout(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  const auto& layout = module.config().entry_computation_layout;
  if (!layout.has_value()) return absl::OkStatus();
  if (static_cast<int64_t>(layout->parameters().size()) != entry->num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "entry_computation_layout has ", layout->parameters().size(), " parameters but entry '",
        entry->name(), "' has ", entry->num_parameters()));
  }
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const HloInstruction* param = entry->parameter_instruction(i);
    if (!ShapeUtil::Compatible(layout->parameters()[i], param->shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "entry_computation_layout parameter ", i, " is ", layout->parameters()[i].ToString(),
          " but parameter '", param->name(), "' is ", param->shape().ToString()));
    }
  }
  if (!ShapeUtil::Compatible(layout->result(), entry->root_instruction()->shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "entry_computation_layout result is ", layout->result().ToString(), " but entry root is ",
        entry->root_instruction()->shape().ToString()));
  }
  return absl::OkStatus();
}

absl::Status VerifyAliasing(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  const Shape& result = entry->root_instruction()->shape();
  std::set<std::string> outputs, parameters;
  for (const auto& alias : module.input_output_alias().entries()) {
    ShapeIndex output_index(alias.output_shape_index().begin(), alias.output_shape_index().end());
    if (!ShapeUtil::IndexIsValid(result, output_index)) {
      return absl::InvalidArgumentError(absl::StrCat("input_output_alias: output index ",
                                                     ShapeIndexToString(output_index),
                                                     " is not in the result shape ", result.ToString()));
    }
    int64_t param = alias.parameter_number();
    if (param < 0 || param >= entry->num_parameters()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input_output_alias: parameter ", param, " does not exist"));
    }
    ShapeIndex param_index(alias.parameter_shape_index().begin(), alias.parameter_shape_index().end());
    if (!ShapeUtil::IndexIsValid(entry->parameter_instruction(param)->shape(), param_index)) {
      return absl::InvalidArgumentError(absl::StrCat("input_output_alias: parameter ", param,
                                                     " has no index ", ShapeIndexToString(param_index)));
    }
    // One buffer per output and per parameter leaf: two results cannot both live in one
    // argument's memory, and an output cannot live in two arguments'.
    if (!outputs.insert(ShapeIndexToString(output_index)).second) {
      return absl::InvalidArgumentError(absl::StrCat("input_output_alias: output ", ShapeIndexToString(output_index),
                                                     " is aliased more than once"));
    }
    if (!parameters.insert(absl::StrCat(param, ShapeIndexToString(param_index))).second) {
      return absl::InvalidArgumentError(absl::StrCat("input_output_alias: parameter ", param, " index ",
                                                     ShapeIndexToString(param_index), " is aliased more than once"));
    }
    const Shape& out = ShapeUtil::GetSubshape(result, output_index);
    const Shape& in = ShapeUtil::GetSubshape(entry->parameter_instruction(param)->shape(), param_index);
    if (out.IsArray() && in.IsArray() && ShapeUtil::ByteSizeOf(out) != ShapeUtil::ByteSizeOf(in)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input_output_alias: output ", ShapeIndexToString(output_index), " (", out.ToString(), ") and parameter ",
          param, " index ", ShapeIndexToString(param_index), " (", in.ToString(), ") differ in size"));
    }
  }
  for (const auto& donor : module.buffer_donor().entries()) {
    int64_t param = donor.parameter_number();
    if (param < 0 || param >= entry->num_parameters()) {
      return absl::InvalidArgumentError(
          absl::StrCat("buffer_donor: parameter ", param, " does not exist"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyHloModule(const HloModule& module, const HloVerifierOptions& options) {
  if (module.entry_computation() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("module '", module.name(), "' has no entry computation"));
  }
  absl::flat_hash_set<const HloComputation*> owned;
  absl::flat_hash_set<std::string> computation_names;
  for (const auto& computation : module.computations()) {
    owned.insert(computation.get());
    if (!computation_names.insert(computation->name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("duplicate computation name '", computation->name(), "'"));
    }
  }
  if (!owned.contains(module.entry_computation())) {
    return absl::InvalidArgumentError("entry computation is not owned by the module");
  }
  RETURN_IF_ERROR(VerifyNoRecursion(module));
  for (const auto& computation : module.computations()) {
    // Names must be unique within a computation (XLA's text allows reuse across them).
    absl::flat_hash_set<std::string> instruction_names;
    RETURN_IF_ERROR(VerifyGraph(*computation));
    RETURN_IF_ERROR(VerifyParameters(*computation));
    for (const auto& instruction : computation->instructions()) {
      if (!instruction_names.insert(instruction->name()).second) {
        return Error(*computation, instruction.get(), "duplicate instruction name in this computation");
      }
      RETURN_IF_ERROR(VerifyArity(*computation, *instruction));
      RETURN_IF_ERROR(VerifyShapeIsValid(*computation, *instruction, options));
      RETURN_IF_ERROR(VerifyCalledComputations(module, *computation, *instruction, owned));
      if (options.check_shapes) {
        absl::Status status = CheckHloShape(*instruction);
        if (!status.ok()) return Wrap(*computation, *instruction, status);
      }
    }
  }
  RETURN_IF_ERROR(VerifyEntryLayout(module));
  RETURN_IF_ERROR(VerifyAliasing(module));
  return absl::OkStatus();
}

}  // namespace xla
