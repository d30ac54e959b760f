// Parser::ParseAttribute: maps each instruction attribute name to its value form and
// the HloInstructionProto field (XLA's proto names) it is stored in.

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/types/span.h"
#include "absl/strings/str_cat.h"
#include "hlo/hlo_parser_internal.h"
#include "hlo/status_macros.h"

namespace xla {
namespace hlo_parser_internal {
namespace {

bool IsGatherLike(HloOpcode op) { return op == HloOpcode::kGather; }

}  // namespace

absl::Status Parser::ParseAttribute(const std::string& name, int64_t name_pos, HloOpcode opcode,
                                    PendingAttrs* a) {
  HloInstructionProto& p = a->proto;
  if (!a->seen.insert(name).second) {
    return ErrorAt(name_pos, absl::StrCat("attribute '", name, "' is given more than once"));
  }
  auto ints = [&]() { return ParseIntList(name); };
  auto assign_ints = [&](google::protobuf::RepeatedField<int64_t>* f) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<int64_t> v, ints());
    f->Clear();
    for (int64_t x : v) f->Add(x);
    return absl::OkStatus();
  };
  auto enum_word = [&](auto parse_fn, auto* out, std::string prefix, bool upper) -> absl::Status {
    const Token& t = lex_.Peek();
    if (t.kind != TokKind::kIdent) return Expected("a name", name);
    std::string text = upper ? absl::AsciiStrToUpper(t.str) : t.str;
    if (!parse_fn(prefix + text, out)) {
      return ErrorAt(t.pos, absl::StrCat("unknown value '", t.str, "' for attribute '", name, "'"));
    }
    lex_.Next();
    return absl::OkStatus();
  };
  auto dot_dnums = [&]() -> DotDimensionNumbers* {
    return opcode == HloOpcode::kRaggedDot
               ? p.mutable_ragged_dot_dimension_numbers()->mutable_dot_dimension_numbers()
               : p.mutable_dot_dimension_numbers();
  };
  auto boolean = [&](void (HloInstructionProto::*setter)(bool)) -> absl::Status {
    ASSIGN_OR_RETURN(bool v, ExpectBool(name));
    (p.*setter)(v);
    return absl::OkStatus();
  };
  auto integer = [&](auto setter) -> absl::Status {
    ASSIGN_OR_RETURN(int64_t v, ExpectInt(name));
    (p.*setter)(v);
    return absl::OkStatus();
  };

  auto comp_ref = [&](HloComputation** out) -> absl::Status {
    ASSIGN_OR_RETURN(*out, ParseComputationRef());
    return absl::OkStatus();
  };

  // --- called computations ---
  if (name == "to_apply") return comp_ref(&a->to_apply);
  if (name == "condition") return comp_ref(&a->condition);
  if (name == "body") return comp_ref(&a->body);
  if (name == "true_computation") return comp_ref(&a->true_computation);
  if (name == "false_computation") return comp_ref(&a->false_computation);
  if (name == "select") return comp_ref(&a->select);
  if (name == "scatter") return comp_ref(&a->scatter);
  if (name == "calls") {
    ASSIGN_OR_RETURN(a->calls, ParseComputationList());
    return absl::OkStatus();
  }
  if (name == "branch_computations") {
    ASSIGN_OR_RETURN(a->branches, ParseComputationList());
    if (a->branches.empty()) return ErrorAt(name_pos, "branch_computations is empty");
    return absl::OkStatus();
  }
  if (name == "called_computations") {
    ASSIGN_OR_RETURN(a->called_computations, ParseComputationList());
    return absl::OkStatus();
  }
  if (name == "control-predecessors") {
    RETURN_IF_ERROR(Expect(TokKind::kLbrace, name));
    if (TryConsume(TokKind::kRbrace)) return absl::OkStatus();
    do {
      const Token& t = lex_.Peek();
      if (t.kind != TokKind::kIdent) return Expected("an instruction name", name);
      HloInstruction* pred = FindInstruction(t.str);
      if (pred == nullptr) {
        return ErrorAt(t.pos, absl::StrCat("control predecessor '", t.str, "' is not defined"));
      }
      a->control_predecessors.push_back(pred);
      lex_.Next();
    } while (TryConsume(TokKind::kComma));
    return Expect(TokKind::kRbrace, name);
  }

  // --- integer lists ---
  if (name == "dimensions") return assign_ints(p.mutable_dimensions());
  if (name == "dynamic_slice_sizes") return assign_ints(p.mutable_dynamic_slice_sizes());
  if (name == "fft_length") return assign_ints(p.mutable_fft_length());
  if (name == "slice_sizes") {
    if (opcode == HloOpcode::kCollectivePermute || opcode == HloOpcode::kCollectivePermuteStart) {
      // In-place collective-permute: one size list per update, flattened as XLA's proto does.
      ASSIGN_OR_RETURN(auto lists, ParseListOfIntLists(name));
      for (const auto& l : lists) {
        for (int64_t v : l) p.add_dynamic_slice_sizes(v);
      }
      return absl::OkStatus();
    }
    return assign_ints(p.mutable_gather_slice_sizes());
  }
  if (name == "lhs_batch_dims") return assign_ints(dot_dnums()->mutable_lhs_batch_dimensions());
  if (name == "rhs_batch_dims") return assign_ints(dot_dnums()->mutable_rhs_batch_dimensions());
  if (name == "lhs_contracting_dims") {
    return assign_ints(dot_dnums()->mutable_lhs_contracting_dimensions());
  }
  if (name == "rhs_contracting_dims") {
    return assign_ints(dot_dnums()->mutable_rhs_contracting_dimensions());
  }
  if (name == "lhs_ragged_dims") {
    return assign_ints(p.mutable_ragged_dot_dimension_numbers()->mutable_lhs_ragged_dimensions());
  }
  if (name == "rhs_group_dims") {
    return assign_ints(p.mutable_ragged_dot_dimension_numbers()->mutable_rhs_group_dimensions());
  }
  if (name == "offset_dims") {
    return assign_ints(p.mutable_gather_dimension_numbers()->mutable_offset_dims());
  }
  if (name == "collapsed_slice_dims") {
    return assign_ints(p.mutable_gather_dimension_numbers()->mutable_collapsed_slice_dims());
  }
  if (name == "start_index_map") {
    return assign_ints(p.mutable_gather_dimension_numbers()->mutable_start_index_map());
  }
  if (name == "operand_batching_dims") {
    return assign_ints(p.mutable_gather_dimension_numbers()->mutable_operand_batching_dims());
  }
  if (name == "start_indices_batching_dims") {
    return assign_ints(
        p.mutable_gather_dimension_numbers()->mutable_start_indices_batching_dims());
  }
  if (name == "update_window_dims") {
    return assign_ints(p.mutable_scatter_dimension_numbers()->mutable_update_window_dims());
  }
  if (name == "inserted_window_dims") {
    return assign_ints(p.mutable_scatter_dimension_numbers()->mutable_inserted_window_dims());
  }
  if (name == "scatter_dims_to_operand_dims") {
    return assign_ints(
        p.mutable_scatter_dimension_numbers()->mutable_scatter_dims_to_operand_dims());
  }
  if (name == "input_batching_dims") {
    return assign_ints(p.mutable_scatter_dimension_numbers()->mutable_input_batching_dims());
  }
  if (name == "scatter_indices_batching_dims") {
    return assign_ints(
        p.mutable_scatter_dimension_numbers()->mutable_scatter_indices_batching_dims());
  }
  if (name == "index_vector_dim") {
    ASSIGN_OR_RETURN(int64_t v, ExpectInt(name));
    if (IsGatherLike(opcode)) {
      p.mutable_gather_dimension_numbers()->set_index_vector_dim(v);
    } else {
      p.mutable_scatter_dimension_numbers()->set_index_vector_dim(v);
    }
    return absl::OkStatus();
  }

  // --- integers ---
  if (name == "index") return integer(&HloInstructionProto::set_tuple_index);
  if (name == "iota_dimension" || name == "inferred_dimension") {
    ASSIGN_OR_RETURN(int64_t v, ExpectInt(name));
    p.clear_dimensions();
    p.add_dimensions(v);
    return absl::OkStatus();
  }
  if (name == "channel_id") return integer(&HloInstructionProto::set_channel_id);
  if (name == "feature_group_count") {
    return integer(&HloInstructionProto::set_feature_group_count);
  }
  if (name == "batch_group_count") return integer(&HloInstructionProto::set_batch_group_count);
  if (name == "feature_index") return integer(&HloInstructionProto::set_feature_index);
  if (name == "exponent_bits") return integer(&HloInstructionProto::set_exponent_bits);
  if (name == "mantissa_bits") return integer(&HloInstructionProto::set_mantissa_bits);
  if (name == "k") return integer(&HloInstructionProto::set_k);
  if (name == "delta") return integer(&HloInstructionProto::set_delta);
  if (name == "cross_program_prefetch_index") {
    return integer(&HloInstructionProto::set_cross_program_prefetch_index);
  }
  if (name == "epsilon") {
    ASSIGN_OR_RETURN(double v, ExpectDouble(name));
    p.set_epsilon(static_cast<float>(v));
    return absl::OkStatus();
  }

  // --- booleans ---
  if (name == "indices_are_sorted") return boolean(&HloInstructionProto::set_indices_are_sorted);
  if (name == "unique_indices") return boolean(&HloInstructionProto::set_unique_indices);
  if (name == "is_stable") return boolean(&HloInstructionProto::set_is_stable);
  if (name == "largest") return boolean(&HloInstructionProto::set_largest);
  if (name == "constrain_layout") return boolean(&HloInstructionProto::set_constrain_layout);
  if (name == "use_global_device_ids") {
    return boolean(&HloInstructionProto::set_use_global_device_ids);
  }
  if (name == "is_host_transfer") return boolean(&HloInstructionProto::set_is_host_transfer);
  if (name == "custom_call_has_side_effect") {
    return boolean(&HloInstructionProto::set_custom_call_has_side_effect);
  }
  if (name == "is_composite") return boolean(&HloInstructionProto::set_is_composite);
  if (name == "left_side" || name == "unit_diagonal" ||
      (name == "lower" && opcode == HloOpcode::kTriangularSolve)) {
    ASSIGN_OR_RETURN(bool v, ExpectBool(name));
    auto* o = p.mutable_triangular_solve_options();
    if (name == "left_side") o->set_left_side(v);
    else if (name == "unit_diagonal") o->set_unit_diagonal(v);
    else o->set_lower(v);
    return absl::OkStatus();
  }
  if (name == "lower") {
    ASSIGN_OR_RETURN(bool v, ExpectBool(name));
    p.mutable_cholesky_options()->set_lower(v);
    return absl::OkStatus();
  }

  // --- enums ---
  if (name == "transpose_a") {
    TriangularSolveOptions::Transpose t;
    RETURN_IF_ERROR(enum_word(TriangularSolveOptions::Transpose_Parse, &t, "", true));
    p.mutable_triangular_solve_options()->set_transpose_a(t);
    return absl::OkStatus();
  }
  if (name == "fft_type") {
    FftType t;
    RETURN_IF_ERROR(enum_word(FftType_Parse, &t, "", true));
    p.set_fft_type(t);
    return absl::OkStatus();
  }
  if (name == "distribution") {
    RandomDistribution d;
    RETURN_IF_ERROR(enum_word(RandomDistribution_Parse, &d, "", true));
    p.set_distribution(d);
    return absl::OkStatus();
  }
  if (name == "algorithm") {
    const Token& t = lex_.Peek();
    if (t.kind == TokKind::kIdent && absl::StartsWith(t.str, "rng_")) {
      RandomAlgorithm alg;
      RETURN_IF_ERROR(enum_word(RandomAlgorithm_Parse, &alg, "", true));
      p.set_rng_algorithm(alg);
    } else {
      PrecisionConfig::Algorithm alg;
      RETURN_IF_ERROR(enum_word(PrecisionConfig::Algorithm_Parse, &alg, "ALG_", true));
      p.mutable_precision_config()->set_algorithm(alg);
    }
    return absl::OkStatus();
  }
  if (name == "operand_precision") {
    RETURN_IF_ERROR(Expect(TokKind::kLbrace, name));
    p.mutable_precision_config()->clear_operand_precision();
    if (!TryConsume(TokKind::kRbrace)) {
      do {
        PrecisionConfig::Precision prec;
        RETURN_IF_ERROR(enum_word(PrecisionConfig::Precision_Parse, &prec, "", true));
        p.mutable_precision_config()->add_operand_precision(prec);
      } while (TryConsume(TokKind::kComma));
      RETURN_IF_ERROR(Expect(TokKind::kRbrace, name));
    }
    return absl::OkStatus();
  }
  if (name == "schedule") {
    CustomCallSchedule s;
    RETURN_IF_ERROR(enum_word(CustomCallSchedule_Parse, &s, "", false));
    p.set_custom_call_schedule(s);
    return absl::OkStatus();
  }
  if (name == "api_version") {
    CustomCallApiVersion v;
    RETURN_IF_ERROR(enum_word(CustomCallApiVersion_Parse, &v, "", false));
    p.set_custom_call_api_version(v);
    return absl::OkStatus();
  }
  if (name == "padding_type") {
    PaddingType t;
    RETURN_IF_ERROR(enum_word(PaddingType_Parse, &t, "", true));
    p.set_padding_type(t);
    return absl::OkStatus();
  }
  if (name == "direction" || name == "type") {
    const Token& t = lex_.Peek();
    if (t.kind != TokKind::kIdent) return Expected("a name", name);
    static const char* const kDirections[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
    static const char* const kTypes[] = {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
    bool ok = false;
    for (const char* d : name == "direction" ? absl::MakeConstSpan(kDirections)
                                             : absl::MakeConstSpan(kTypes)) {
      ok |= t.str == d;
    }
    if (!ok) {
      return ErrorAt(t.pos, absl::StrCat("unknown value '", t.str, "' for attribute '", name, "'"));
    }
    if (name == "direction") p.set_comparison_direction(t.str);
    else p.set_comparison_type(t.str);
    lex_.Next();
    return absl::OkStatus();
  }
  if (name == "kind") {
    ASSIGN_OR_RETURN(std::string kind, ExpectIdent(name));
    p.set_fusion_kind(kind);
    return absl::OkStatus();
  }

  // --- strings ---
  if (name == "custom_call_target") {
    ASSIGN_OR_RETURN(*p.mutable_custom_call_target(), ExpectString(name));
    return absl::OkStatus();
  }
  if (name == "infeed_config") {
    ASSIGN_OR_RETURN(*p.mutable_infeed_config(), ExpectString(name));
    return absl::OkStatus();
  }
  if (name == "outfeed_config") {
    ASSIGN_OR_RETURN(*p.mutable_outfeed_config(), ExpectString(name));
    return absl::OkStatus();
  }
  if (name == "async_execution_thread") {
    ASSIGN_OR_RETURN(*p.mutable_async_execution_thread(), ExpectString(name));
    return absl::OkStatus();
  }
  if (name == "backend_config") {
    if (lex_.PeekKind() == TokKind::kLbrace) {
      Token raw = lex_.ReadBalancedBraces();
      if (raw.kind == TokKind::kError) return ErrorAt(raw.pos, raw.str);
      p.set_backend_config(raw.str);
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(*p.mutable_backend_config(), ExpectString(name));
    return absl::OkStatus();
  }

  // --- structured values ---
  if (name == "window") {
    ASSIGN_OR_RETURN(*p.mutable_window(), ParseWindow());
    return absl::OkStatus();
  }
  if (name == "dim_labels") {
    ASSIGN_OR_RETURN(*p.mutable_convolution_dimension_numbers(), ParseDimLabels());
    return absl::OkStatus();
  }
  if (name == "slice") {
    ASSIGN_OR_RETURN(auto ranges, ParseSliceRanges());
    for (auto& r : ranges) *p.add_slice_dimensions() = r;
    return absl::OkStatus();
  }
  if (name == "padding") {
    ASSIGN_OR_RETURN(*p.mutable_padding_config(), ParsePaddingConfig());
    return absl::OkStatus();
  }
  if (name == "metadata") {
    ASSIGN_OR_RETURN(*p.mutable_metadata(), ParseMetadata());
    return absl::OkStatus();
  }
  if (name == "frontend_attributes") {
    ASSIGN_OR_RETURN(*p.mutable_frontend_attributes(), ParseFrontendAttributes());
    return absl::OkStatus();
  }
  if (name == "sharding") {
    ASSIGN_OR_RETURN(*p.mutable_sharding(), ParseSharding());
    return absl::OkStatus();
  }
  if (name == "domain") return ParseDomain(&p);
  if (name == "replica_groups") return ParseReplicaGroups(&p);
  if (name == "source_target_pairs") {
    ASSIGN_OR_RETURN(auto pairs, ParseListOfIntLists(name));
    for (const auto& pr : pairs) {
      if (pr.size() != 2) return ErrorAt(name_pos, "source_target_pairs needs {source,target} pairs");
      auto* st = p.add_source_target_pairs();
      st->set_source(pr[0]);
      st->set_target(pr[1]);
    }
    return absl::OkStatus();
  }
  if (name == "parameter_replication") {
    RETURN_IF_ERROR(Expect(TokKind::kLbrace, name));
    auto* pr = p.mutable_parameter_replication();
    if (!TryConsume(TokKind::kRbrace)) {
      do {
        ASSIGN_OR_RETURN(bool v, ExpectBool(name));
        pr->add_replicated_at_leaf_buffers(v);
      } while (TryConsume(TokKind::kComma));
      RETURN_IF_ERROR(Expect(TokKind::kRbrace, name));
    }
    return absl::OkStatus();
  }
  if (name == "outfeed_shape") {
    ASSIGN_OR_RETURN(Shape s, ParseShapeRec());
    *p.mutable_outfeed_shape() = s.ToProto();
    return absl::OkStatus();
  }
  if (name == "operand_layout_constraints") {
    RETURN_IF_ERROR(Expect(TokKind::kLbrace, name));
    p.set_constrain_layout(true);
    if (!TryConsume(TokKind::kRbrace)) {
      do {
        ASSIGN_OR_RETURN(Shape s, ParseShapeRec());
        *p.add_operand_shapes_with_layout() = s.ToProto();
      } while (TryConsume(TokKind::kComma));
      RETURN_IF_ERROR(Expect(TokKind::kRbrace, name));
    }
    return absl::OkStatus();
  }
  if (name == "output_to_operand_aliasing") {
    RETURN_IF_ERROR(Expect(TokKind::kLbrace, name));
    if (!TryConsume(TokKind::kRbrace)) {
      do {
        OutputOperandAliasing* alias = p.add_output_operand_aliasing();
        ASSIGN_OR_RETURN(ShapeIndex out, ParseShapeIndex());
        RETURN_IF_ERROR(Expect(TokKind::kColon, name));
        RETURN_IF_ERROR(Expect(TokKind::kLparen, name));
        ASSIGN_OR_RETURN(int64_t operand, ExpectInt(name));
        RETURN_IF_ERROR(Expect(TokKind::kComma, name));
        ASSIGN_OR_RETURN(ShapeIndex in, ParseShapeIndex());
        RETURN_IF_ERROR(Expect(TokKind::kRparen, name));
        for (int64_t i : out) alias->add_output_shape_index(i);
        alias->set_operand_index(operand);
        for (int64_t i : in) alias->add_operand_shape_index(i);
      } while (TryConsume(TokKind::kComma));
      RETURN_IF_ERROR(Expect(TokKind::kRbrace, name));
    }
    return absl::OkStatus();
  }
  if (name == "literal") {
    ASSIGN_OR_RETURN(Literal lit, ParseShapedLiteral());
    a->literal = std::move(lit);
    return absl::OkStatus();
  }
  if (name == "statistics") {
    ASSIGN_OR_RETURN(*p.mutable_statistics_viz(), ParseStatistics());
    return absl::OkStatus();
  }
  if (name == "origin") {
    ASSIGN_OR_RETURN(*p.mutable_original_value(), ParseOriginalValue());
    return absl::OkStatus();
  }
  if (name == "result_accuracy") {
    ASSIGN_OR_RETURN(ResultAccuracy accuracy, ParseResultAccuracy());
    // mode=DEFAULT is the same as no result_accuracy (XLA does not print it).
    if (accuracy.has_tolerance() || accuracy.mode() != ResultAccuracy::DEFAULT) {
      *p.mutable_result_accuracy() = std::move(accuracy);
    }
    return absl::OkStatus();
  }
  return ErrorAt(name_pos, absl::StrCat("unknown attribute '", name, "' for ",
                                        std::string(HloOpcodeString(opcode))));
}

}  // namespace hlo_parser_internal
}  // namespace xla
