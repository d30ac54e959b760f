// Module-header attributes: `HloModule name, attr=value, ...`.

#include "absl/strings/str_cat.h"
#include "hlo/hlo_parser_internal.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/status_macros.h"

namespace xla {
namespace hlo_parser_internal {

absl::Status Parser::ParseModuleAttribute(const std::string& name, HloModule* module) {
  HloModuleConfig& config = *module->mutable_config();
  const int64_t pos = lex_.Peek().pos;
  auto bool_list = [&](std::vector<bool>* out) -> absl::Status {
    out->clear();
    if (lex_.PeekKind() != TokKind::kLbrace) {
      ASSIGN_OR_RETURN(bool v, ExpectBool(name));
      out->push_back(v);
      return absl::OkStatus();
    }
    lex_.Next();
    if (TryConsume(TokKind::kRbrace)) return absl::OkStatus();
    do {
      ASSIGN_OR_RETURN(bool v, ExpectBool(name));
      out->push_back(v);
    } while (TryConsume(TokKind::kComma));
    return Expect(TokKind::kRbrace, name);
  };
  if (name == "entry_computation_layout") {
    RETURN_IF_ERROR(Expect(TokKind::kLbrace, name));
    RETURN_IF_ERROR(Expect(TokKind::kLparen, name));
    ProgramShape ps;
    if (!TryConsume(TokKind::kRparen)) {
      do {
        ASSIGN_OR_RETURN(Shape s, ParseShapeRec());
        ps.parameters().push_back(std::move(s));
      } while (TryConsume(TokKind::kComma));
      RETURN_IF_ERROR(Expect(TokKind::kRparen, name));
    }
    RETURN_IF_ERROR(Expect(TokKind::kArrow, name));
    ASSIGN_OR_RETURN(ps.result(), ParseShapeRec());
    RETURN_IF_ERROR(Expect(TokKind::kRbrace, name));
    config.entry_computation_layout = std::move(ps);
    return absl::OkStatus();
  }
  if (name == "replica_count" || name == "num_partitions") {
    ASSIGN_OR_RETURN(int64_t v, ExpectInt(name));
    if (v < 1) return ErrorAt(pos, absl::StrCat(name, " must be positive"));
    (name == "replica_count" ? config.replica_count : config.num_partitions) = v;
    return absl::OkStatus();
  }
  if (name == "alias_passthrough_params") {
    ASSIGN_OR_RETURN(config.alias_passthrough_params, ExpectBool(name));
    return absl::OkStatus();
  }
  if (name == "use_spmd_partitioning") {
    ASSIGN_OR_RETURN(config.use_spmd_partitioning, ExpectBool(name));
    return absl::OkStatus();
  }
  if (name == "use_auto_spmd_partitioning") {
    ASSIGN_OR_RETURN(config.use_auto_spmd_partitioning, ExpectBool(name));
    return absl::OkStatus();
  }
  if (name == "is_scheduled") {
    ASSIGN_OR_RETURN(bool v, ExpectBool(name));
    module->set_is_scheduled(v);
    return absl::OkStatus();
  }
  if (name == "allow_spmd_sharding_propagation_to_output") {
    return bool_list(&config.allow_spmd_sharding_propagation_to_output);
  }
  if (name == "allow_spmd_sharding_propagation_to_parameters") {
    return bool_list(&config.allow_spmd_sharding_propagation_to_parameters);
  }
  if (name == "frontend_attributes") {
    ASSIGN_OR_RETURN(module->frontend_attributes(), ParseFrontendAttributes());
    return absl::OkStatus();
  }
  if (name == "input_output_alias") {
    RETURN_IF_ERROR(Expect(TokKind::kLbrace, name));
    if (TryConsume(TokKind::kRbrace)) return absl::OkStatus();
    do {
      auto* e = module->input_output_alias().add_entries();
      ASSIGN_OR_RETURN(ShapeIndex out, ParseShapeIndex());
      RETURN_IF_ERROR(Expect(TokKind::kColon, name));
      RETURN_IF_ERROR(Expect(TokKind::kLparen, name));
      ASSIGN_OR_RETURN(int64_t param, ExpectInt(name));
      RETURN_IF_ERROR(Expect(TokKind::kComma, name));
      ASSIGN_OR_RETURN(ShapeIndex in, ParseShapeIndex());
      Kind kind = MAY_ALIAS;
      if (TryConsume(TokKind::kComma)) {
        const Token& t = lex_.Peek();
        if (t.kind == TokKind::kIdent && t.str == "may-alias") {
          kind = MAY_ALIAS;
        } else if (t.kind == TokKind::kIdent && t.str == "must-alias") {
          kind = MUST_ALIAS;
        } else {
          return Expected("may-alias or must-alias", name);
        }
        lex_.Next();
      }
      RETURN_IF_ERROR(Expect(TokKind::kRparen, name));
      for (int64_t i : out) e->add_output_shape_index(i);
      e->set_parameter_number(param);
      for (int64_t i : in) e->add_parameter_shape_index(i);
      e->set_kind(kind);
    } while (TryConsume(TokKind::kComma));
    return Expect(TokKind::kRbrace, name);
  }
  if (name == "buffer_donor") {
    RETURN_IF_ERROR(Expect(TokKind::kLbrace, name));
    if (TryConsume(TokKind::kRbrace)) return absl::OkStatus();
    do {
      auto* e = module->buffer_donor().add_entries();
      RETURN_IF_ERROR(Expect(TokKind::kLparen, name));
      ASSIGN_OR_RETURN(int64_t param, ExpectInt(name));
      RETURN_IF_ERROR(Expect(TokKind::kComma, name));
      ASSIGN_OR_RETURN(ShapeIndex in, ParseShapeIndex());
      RETURN_IF_ERROR(Expect(TokKind::kRparen, name));
      e->set_parameter_number(param);
      for (int64_t i : in) e->add_parameter_shape_index(i);
    } while (TryConsume(TokKind::kComma));
    return Expect(TokKind::kRbrace, name);
  }
  if (name == "origin_recovery_table") {
    // {"old" [index]} : {"new" [index]}, "recovery module text"  (module text optional).
    auto* table = module->extra_proto_fields().mutable_original_value_recovery_table();
    auto parse_array = [&](OriginalArrayProto* a) -> absl::Status {
      RETURN_IF_ERROR(Expect(TokKind::kLbrace, name));
      ASSIGN_OR_RETURN(*a->mutable_instruction_name(), ExpectString(name));
      if (lex_.PeekKind() == TokKind::kLbrace) {
        ASSIGN_OR_RETURN(ShapeIndex si, ParseShapeIndex());
        for (int64_t i : si) a->add_shape_index(i);
      }
      return Expect(TokKind::kRbrace, name);
    };
    RETURN_IF_ERROR(Expect(TokKind::kLbrace, name));
    while (lex_.PeekKind() == TokKind::kLbrace) {
      auto* e = table->add_entries();
      RETURN_IF_ERROR(parse_array(e->mutable_old_original_array()));
      RETURN_IF_ERROR(Expect(TokKind::kColon, name));
      RETURN_IF_ERROR(parse_array(e->mutable_new_original_array()));
      if (!TryConsume(TokKind::kComma)) break;
      if (lex_.PeekKind() == TokKind::kString) {
        const Token& t = lex_.Peek();
        int64_t text_pos = t.pos;
        std::string text = t.str;
        lex_.Next();
        // The recovery module must itself parse; it is kept in its proto form.
        absl::StatusOr<std::unique_ptr<HloModule>> rec =
            ParseAndReturnUnverifiedModule(std::string_view(text), HloModuleConfig(), options_);
        if (!rec.ok()) {
          return ErrorAt(text_pos, absl::StrCat("in origin_recovery_table module: ",
                                                rec.status().message()));
        }
        *e->mutable_recovery_module() = HloModuleToProto(**rec);
        if (!TryConsume(TokKind::kComma)) break;
      }
    }
    return Expect(TokKind::kRbrace, name);
  }
  return ErrorAt(pos, absl::StrCat("unknown module attribute '", name, "'"));
}

}  // namespace hlo_parser_internal
}  // namespace xla
