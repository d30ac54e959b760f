// Instruction right-hand sides: shape, opcode (with async `<op>-start/-update/-done`
// sugar), operands (named, typed, or nested anonymous instructions), attributes, and
// building the HloInstruction.

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/hlo_attribute_defaults.h"
#include "hlo/hlo_parser_internal.h"
#include "hlo/shape_inference.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace hlo_parser_internal {
namespace {

// Called computations in XLA's order for `opcode` (see hlo_instruction.h).
std::vector<HloComputation*> OrderedCalls(const PendingAttrs& a) {
  std::vector<HloComputation*> out;
  if (a.to_apply) out.push_back(a.to_apply);
  for (HloComputation* c : a.calls) out.push_back(c);
  if (a.body) out.push_back(a.body);  // while: {body, condition}
  if (a.condition) out.push_back(a.condition);
  if (a.true_computation) out.push_back(a.true_computation);
  if (a.false_computation) out.push_back(a.false_computation);
  for (HloComputation* c : a.branches) out.push_back(c);
  if (a.select) out.push_back(a.select);
  if (a.scatter) out.push_back(a.scatter);
  for (HloComputation* c : a.called_computations) out.push_back(c);
  return out;
}

absl::Status CheckRequiredCalls(HloOpcode op, const PendingAttrs& a, std::string* missing) {
  switch (op) {
    case HloOpcode::kWhile:
      if (!a.condition) *missing = "condition";
      else if (!a.body) *missing = "body";
      break;
    case HloOpcode::kSelectAndScatter:
      if (!a.select) *missing = "select";
      else if (!a.scatter) *missing = "scatter";
      break;
    case HloOpcode::kConditional:
      if (a.branches.empty() && (!a.true_computation || !a.false_computation)) {
        *missing = "branch_computations";
      }
      break;
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kMap:
    case HloOpcode::kScatter:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kReduceScatter:
      if (!a.to_apply) *missing = "to_apply";
      break;
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
      if (!a.to_apply && a.calls.empty()) *missing = "calls";
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<HloInstruction*> Parser::ParseInstructionRhs(HloComputation* comp,
                                                           std::string name, int64_t name_pos) {
  RETURN_IF_ERROR(EnterNesting());
  std::optional<Shape> shape;
  if (PeekIsShapeStart()) {
    ASSIGN_OR_RETURN(shape, ParseShapeRec());
  }
  const Token& op_tok = lex_.Peek();
  if (op_tok.kind != TokKind::kIdent) return Expected("an opcode", "instruction");
  std::string op_text = op_tok.str;
  int64_t op_pos = op_tok.pos;
  lex_.Next();
  std::string display = name;
  if (name.empty()) name = UniqueName(absl::StrCat(op_text, ".anon"));

  // Opcode, or async sugar around a wrapped opcode.
  enum class Sugar { kNone, kStart, kUpdate, kDone } sugar = Sugar::kNone;
  std::optional<HloOpcode> opcode = StringToHloOpcode(op_text);
  HloOpcode wrapped = HloOpcode::kAsyncStart;
  if (!opcode.has_value()) {
    for (auto [suffix, kind, async_op] :
         {std::tuple{"-start", Sugar::kStart, HloOpcode::kAsyncStart},
          std::tuple{"-update", Sugar::kUpdate, HloOpcode::kAsyncUpdate},
          std::tuple{"-done", Sugar::kDone, HloOpcode::kAsyncDone}}) {
      if (!absl::EndsWith(op_text, suffix)) continue;
      absl::string_view base(op_text);
      base.remove_suffix(absl::string_view(suffix).size());
      if (auto w = StringToHloOpcode(std::string(base))) {
        sugar = kind;
        wrapped = *w;
        opcode = async_op;
      }
    }
  }
  if (!opcode.has_value()) {
    return ErrorAt(op_pos, absl::StrCat("unknown opcode '", op_text, "'"));
  }
  // The opcode whose attributes the text carries.
  const HloOpcode attr_opcode = sugar == Sugar::kStart ? wrapped : *opcode;

  // Operands.
  std::vector<HloInstruction*> operands;
  PendingAttrs attrs;
  if (*opcode == HloOpcode::kParameter) {
    RETURN_IF_ERROR(Expect(TokKind::kLparen, "parameter"));
    ASSIGN_OR_RETURN(int64_t n, ExpectInt("parameter number"));
    if (n < 0) return ErrorAt(op_pos, "parameter number must be non-negative");
    if (n >= text_bytes_) {
      return ErrorAt(op_pos, absl::StrCat("parameter number ", n, " is out of range: its computation would need ", n,
                                          " + 1 parameters, more than a text of ", text_bytes_, " bytes holds"));
    }
    attrs.proto.set_parameter_number(n);
    RETURN_IF_ERROR(Expect(TokKind::kRparen, "parameter"));
  } else if (*opcode == HloOpcode::kConstant) {
    if (!shape.has_value()) return ErrorAt(op_pos, "constant needs a result shape");
    RETURN_IF_ERROR(Expect(TokKind::kLparen, "constant"));
    ASSIGN_OR_RETURN(Literal lit, ParseConstantLiteral(*shape));
    attrs.literal = std::move(lit);
    RETURN_IF_ERROR(Expect(TokKind::kRparen, "constant"));
  } else {
    std::string saved_name = current_name_;
    int64_t saved_pos = current_pos_;
    if (!display.empty()) {
      current_name_ = display;
      current_pos_ = name_pos;
    }
    ASSIGN_OR_RETURN(operands, ParseOperands(comp));
    current_name_ = saved_name;
    current_pos_ = saved_pos;
  }
  int arity = HloOpcodeArity(*opcode);
  if (sugar == Sugar::kNone && arity != kVariadic && static_cast<int>(operands.size()) != arity &&
      *opcode != HloOpcode::kParameter && *opcode != HloOpcode::kConstant) {
    return ErrorAt(op_pos, absl::StrCat(op_text, " takes ", arity, " operands, got ",
                                        operands.size()));
  }

  // Attributes. A nested anonymous instruction has none: the comma after it separates
  // the enclosing instruction's operands.
  const bool nested = display.empty();
  while (!nested && TryConsume(TokKind::kComma)) {
    const Token& at = lex_.Peek();
    if (at.kind != TokKind::kIdent) return Expected("an attribute name", "instruction");
    std::string attr = at.str;
    int64_t attr_pos = at.pos;
    lex_.Next();
    RETURN_IF_ERROR(Expect(TokKind::kEqual, absl::StrCat("attribute '", attr, "'")));
    RETURN_IF_ERROR(ParseAttribute(attr, attr_pos, attr_opcode, &attrs));
  }

  // Build.
  std::unique_ptr<HloInstruction> instr;
  if (sugar == Sugar::kStart) {
    std::string thread = attrs.proto.async_execution_thread();
    attrs.proto.clear_async_execution_thread();
    ASSIGN_OR_RETURN(HloComputation * wrapped_comp,
                     MakeAsyncWrapped(comp, wrapped, name, shape, operands, &attrs, op_pos));
    if (!thread.empty()) wrapped_comp->set_execution_thread(thread);
    attrs = PendingAttrs();
    if (!thread.empty()) attrs.proto.set_async_execution_thread(thread);
    attrs.calls = {wrapped_comp};
  }
  if ((*opcode == HloOpcode::kAsyncUpdate || *opcode == HloOpcode::kAsyncDone) &&
      OrderedCalls(attrs).empty()) {
    if (operands.size() != 1 || operands[0]->called_computations().empty()) {
      return ErrorAt(op_pos, absl::StrCat(op_text,
                                          " needs an async-start or async-update operand"));
    }
    attrs.calls = {operands[0]->called_computations()[0]};
    if (attrs.proto.async_execution_thread().empty()) {
      attrs.proto.set_async_execution_thread(operands[0]->attrs().async_execution_thread());
    }
  }
  std::string missing;
  RETURN_IF_ERROR(CheckRequiredCalls(*opcode, attrs, &missing));
  if (!missing.empty()) {
    return ErrorAt(op_pos, absl::StrCat(op_text, " requires attribute '", missing, "'"));
  }
  instr = HloInstruction::Create(*opcode, shape.value_or(Shape()), operands);
  instr->set_name(name);
  {
    int line = 0, col = 0;
    lex_.LineCol(name_pos, &line, &col);
    instr->set_text_location(line, col);
  }
  *instr->mutable_attrs() = std::move(attrs.proto);
  ClearDefaultAttributes(instr.get());
  // As in XLA, an outfeed without outfeed_shape sends its data operand's shape.
  if (*opcode == HloOpcode::kOutfeed && !instr->attrs().has_outfeed_shape() && !operands.empty()) {
    *instr->mutable_attrs()->mutable_outfeed_shape() = operands[0]->shape().ToProto();
  }
  if (attrs.literal.has_value()) instr->set_literal(std::move(*attrs.literal));
  for (HloComputation* c : OrderedCalls(attrs)) {
    instr->AppendComputation(c);
    if (*opcode == HloOpcode::kFusion) c->set_is_fusion_computation(true);
  }
  if (!shape.has_value()) {
    absl::StatusOr<Shape> inferred = InferHloShape(*instr);
    if (!inferred.ok()) {
      return ErrorAt(op_pos, absl::StrCat("cannot infer the shape of '", name, "': ",
                                          inferred.status().message()));
    }
    shape = *std::move(inferred);
  }
  if (options_.fill_missing_layouts) ShapeUtil::SetDefaultLayoutsIfMissing(&*shape);
  instr->set_shape(*shape);
  for (HloInstruction* pred : attrs.control_predecessors) pred->AddControlDependencyTo(instr.get());
  HloInstruction* raw = comp->AddInstruction(std::move(instr));
  used_names_.insert(name);
  instructions_[name] = raw;
  ExitNesting();
  return raw;
}

absl::StatusOr<std::vector<HloInstruction*>> Parser::ParseOperands(HloComputation* comp) {
  std::vector<HloInstruction*> out;
  RETURN_IF_ERROR(Expect(TokKind::kLparen, "operand list"));
  if (TryConsume(TokKind::kRparen)) return out;
  do {
    RETURN_IF_ERROR(EnterNesting());
    std::optional<Shape> shape;
    int64_t start = lex_.Peek().pos;
    if (PeekIsShapeStart()) {
      ASSIGN_OR_RETURN(shape, ParseShapeRec());
    }
    const Token& t = lex_.Peek();
    if (t.kind != TokKind::kIdent) return Expected("an operand name", "operand list");
    std::string ident = t.str;
    int64_t ident_pos = t.pos;
    // A name followed by '(' is the opcode of a nested anonymous instruction: rewind to
    // `start` so that ParseInstructionRhs sees the shape and opcode again.
    HloLexer probe = lex_;
    probe.Next();
    if (probe.PeekKind() == TokKind::kLparen) {
      lex_.Reset(start);
      ASSIGN_OR_RETURN(HloInstruction * nested, ParseInstructionRhs(comp, "", ident_pos));
      out.push_back(nested);
    } else {
      lex_.Next();
      HloInstruction* operand = FindInstruction(ident);
      if (operand == nullptr) {
        return ErrorAt(current_pos_, absl::StrCat("instruction '", current_name_,
                                                  "' uses undefined operand '", ident, "'"));
      }
      out.push_back(operand);
    }
    ExitNesting();
  } while (TryConsume(TokKind::kComma));
  RETURN_IF_ERROR(Expect(TokKind::kRparen, "operand list"));
  return out;
}

absl::StatusOr<HloComputation*> Parser::MakeAsyncWrapped(
    HloComputation* comp, HloOpcode wrapped_op, const std::string& start_name,
    const std::optional<Shape>& start_shape, const std::vector<HloInstruction*>& operands,
    PendingAttrs* attrs, int64_t pos) {
  std::string comp_name = absl::StrCat("wrapped_", std::string(HloOpcodeString(wrapped_op)), "_computation");
  std::string unique = comp_name;
  for (int i = 1; used_computation_names_.contains(unique); ++i) {
    unique = absl::StrCat(comp_name, ".", i);
  }
  used_computation_names_.insert(unique);
  auto wrapped_comp = std::make_unique<HloComputation>(unique);
  std::vector<HloInstruction*> params;
  for (size_t i = 0; i < operands.size(); ++i) {
    auto p = HloInstruction::Create(HloOpcode::kParameter, operands[i]->shape());
    p->set_name(absl::StrCat("param_", i));
    p->mutable_attrs()->set_parameter_number(i);
    params.push_back(wrapped_comp->AddInstruction(std::move(p)));
  }
  std::optional<Shape> shape;
  if (start_shape.has_value()) {
    if (!start_shape->IsTuple() || start_shape->tuple_shapes_size() < 2) {
      return ErrorAt(pos, absl::StrCat("async-start shape must be a tuple of at least 2 "
                                       "elements, got ",
                                       start_shape->ToString()));
    }
    shape = start_shape->tuple_shapes(1);
  }
  std::string missing;
  RETURN_IF_ERROR(CheckRequiredCalls(wrapped_op, *attrs, &missing));
  if (!missing.empty()) {
    return ErrorAt(pos, absl::StrCat(std::string(HloOpcodeString(wrapped_op)), " requires attribute '",
                                     missing, "'"));
  }
  auto instr = HloInstruction::Create(wrapped_op, shape.value_or(Shape()), params);
  instr->set_name(std::string(std::string(HloOpcodeString(wrapped_op))));
  *instr->mutable_attrs() = attrs->proto;
  if (attrs->literal.has_value()) instr->set_literal(std::move(*attrs->literal));
  for (HloComputation* c : OrderedCalls(*attrs)) instr->AppendComputation(c);
  if (!shape.has_value()) {
    absl::StatusOr<Shape> inferred = InferHloShape(*instr);
    if (!inferred.ok()) {
      return ErrorAt(pos, absl::StrCat("cannot infer the shape of '", start_name, "': ",
                                       inferred.status().message()));
    }
    shape = *std::move(inferred);
    if (options_.fill_missing_layouts) ShapeUtil::SetDefaultLayoutsIfMissing(&*shape);
  }
  instr->set_shape(*shape);
  HloInstruction* root = wrapped_comp->AddInstruction(std::move(instr));
  wrapped_comp->set_root_instruction(root);
  return module_->AddEmbeddedComputation(std::move(wrapped_comp));
}

}  // namespace hlo_parser_internal
}  // namespace xla
