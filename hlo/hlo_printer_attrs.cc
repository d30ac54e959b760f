// The attributes printed after `opcode(operands)`, per opcode, in XLA's order
// (HloInstruction::PrintExtraAttributes and each subclass's PrintExtraAttributesImpl).

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_printer.h"
#include "hlo/comparison_util.h"
#include "hlo/hlo_printer_internal.h"
#include "hlo/literal.h"

namespace xla {
namespace printer_internal {
namespace {

using Attrs = std::vector<std::string>;

std::string Braced(const google::protobuf::RepeatedField<int64_t>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

void AppendPrecisionConfig(const PrecisionConfig& config, Attrs* attrs) {
  bool any_non_default = false;
  for (int p : config.operand_precision()) any_non_default |= p != PrecisionConfig::DEFAULT;
  if (any_non_default) {
    std::vector<std::string> names;
    for (int p : config.operand_precision()) names.push_back(PrecisionName(p));
    attrs->push_back(absl::StrCat("operand_precision={", absl::StrJoin(names, ","), "}"));
  }
  if (config.algorithm() != PrecisionConfig::ALG_UNSET) {
    attrs->push_back(absl::StrCat("algorithm=", AlgorithmName(config.algorithm())));
  }
}

void AppendChannelId(const HloInstructionProto& a, const HloPrintOptions& options, Attrs* attrs) {
  // XLA keeps "no channel" as an empty optional; the proto encodes it as 0.
  if (a.channel_id() <= 0) return;
  attrs->push_back(options.print_channel_id ? absl::StrCat("channel_id=", a.channel_id())
                                            : std::string("channel_id="));
}

void AppendCollective(const HloInstructionProto& a, const HloPrintOptions& options, Attrs* attrs) {
  AppendChannelId(a, options, attrs);
  attrs->push_back(absl::StrCat("replica_groups=", ReplicaGroupsText(a)));
  if (a.constrain_layout()) attrs->push_back("constrain_layout=true");
}

// Size of one slice in collective-permute's flattened dynamic_slice_sizes: the rank of
// the (first) array being permuted.
int64_t SliceRank(const HloInstruction& instruction) {
  if (instruction.operand_count() == 0) return 0;
  const Shape* shape = &instruction.operand(0)->shape();
  while (shape->IsTuple() && shape->tuple_shapes_size() > 0) shape = &shape->tuple_shapes(0);
  return shape->rank();
}

std::string CustomCallLiteralText(const Literal& literal) {
  // XLA's Literal::PrintWithLayoutOneline: "s32[2]{0} {1, 2}", tuples "( a, b )".
  if (literal.IsTuple()) {
    std::vector<std::string> parts;
    for (int64_t i = 0; i < literal.tuple_element_count(); ++i) {
      parts.push_back(CustomCallLiteralText(literal.tuple_element(i)));
    }
    return absl::StrCat("( ", absl::StrJoin(parts, ", "), " )");
  }
  Shape shape = literal.shape();
  return absl::StrCat(shape.ToString(/*print_layout=*/true), " ", literal.ToStringWithoutShape());
}

void AppendTriangularSolveOptions(const TriangularSolveOptions& o, Attrs* attrs) {
  // XLA lists the set (non-default) proto fields by reflection, in field-number order.
  if (o.left_side()) attrs->push_back("left_side=true");
  if (o.lower()) attrs->push_back("lower=true");
  if (o.unit_diagonal()) attrs->push_back("unit_diagonal=true");
  if (o.transpose_a() != 0) {
    attrs->push_back(absl::StrCat("transpose_a=", TriangularSolveOptions::Transpose_Name(o.transpose_a())));
  }
}

void AppendCustomCall(const HloInstruction& instruction, const HloPrintOptions& options,
                      Attrs* attrs) {
  const HloInstructionProto& a = instruction.attrs();
  if (a.has_window()) attrs->push_back(absl::StrCat("window={", WindowToString(a.window()), "}"));
  if (a.has_convolution_dimension_numbers()) {
    attrs->push_back(absl::StrCat(
        "dim_labels=", ConvolutionDimensionNumbersToString(a.convolution_dimension_numbers())));
  }
  if (a.feature_group_count() > 1) {
    attrs->push_back(absl::StrCat("feature_group_count=", a.feature_group_count()));
  }
  if (a.batch_group_count() > 1) {
    attrs->push_back(absl::StrCat("batch_group_count=", a.batch_group_count()));
  }
  AppendPrecisionConfig(a.precision_config(), attrs);
  if (a.padding_type() != PADDING_INVALID) {
    attrs->push_back(absl::StrCat("padding_type=", PaddingType_Name(a.padding_type())));
  }
  attrs->push_back(absl::StrCat("custom_call_target=\"", CEscapeText(a.custom_call_target()), "\""));
  if (a.constrain_layout()) {
    std::vector<std::string> shapes;
    for (const ShapeProto& proto : a.operand_shapes_with_layout()) {
      absl::StatusOr<Shape> shape = Shape::FromProto(proto);
      shapes.push_back(shape.ok() ? shape->ToString(/*print_layout=*/true) : "<invalid shape>");
    }
    attrs->push_back(absl::StrCat("operand_layout_constraints={", absl::StrJoin(shapes, ", "), "}"));
  }
  if (a.custom_call_has_side_effect()) attrs->push_back("custom_call_has_side_effect=true");
  if (instruction.has_literal()) {
    attrs->push_back(absl::StrCat("literal=", CustomCallLiteralText(instruction.literal())));
  }
  if (a.output_operand_aliasing_size() > 0) {
    attrs->push_back(absl::StrCat("output_to_operand_aliasing=",
                                  OutputOperandAliasingText(a.output_operand_aliasing())));
  }
  if (a.custom_call_schedule() != SCHEDULE_NONE) {
    attrs->push_back(absl::StrCat("schedule=", CustomCallSchedule_Name(a.custom_call_schedule())));
  }
  // Unspecified (a proto that never set it) means the original API, as in XLA.
  if (a.custom_call_api_version() != API_VERSION_ORIGINAL &&
      a.custom_call_api_version() != API_VERSION_UNSPECIFIED) {
    attrs->push_back(absl::StrCat("api_version=", CustomCallApiVersion_Name(a.custom_call_api_version())));
  }
}

}  // namespace

void AppendOpcodeAttributes(const HloInstruction& instruction, const HloPrintOptions& options,
                            Attrs* attrs) {
  const HloInstructionProto& a = instruction.attrs();
  switch (instruction.opcode()) {
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      attrs->push_back(absl::StrCat("epsilon=", a.epsilon()));
      attrs->push_back(absl::StrCat("feature_index=", a.feature_index()));
      break;
    case HloOpcode::kFft:
      attrs->push_back(absl::StrCat("fft_type=", FftType_Name(a.fft_type())));
      attrs->push_back(absl::StrCat("fft_length=", Braced(a.fft_length())));
      break;
    case HloOpcode::kAsyncStart: {
      if (!a.async_execution_thread().empty() && a.async_execution_thread() != "main") {
        attrs->push_back(absl::StrCat("async_execution_thread=\"", a.async_execution_thread(), "\""));
      }
      const HloComputation* wrapped = AsyncWrappedComputation(instruction);
      if (options.syntax_sugar_async_ops && wrapped != nullptr &&
          wrapped->root_instruction() != nullptr && CanExpandIntoSingleInstruction(*wrapped)) {
        AppendExtraAttributes(*wrapped->root_instruction(), options, attrs);
      }
      break;
    }
    case HloOpcode::kCopyStart:
      if (a.optional_cross_program_prefetch_index_case() ==
          HloInstructionProto::kCrossProgramPrefetchIndex) {
        attrs->push_back(absl::StrCat("cross_program_prefetch_index=", a.cross_program_prefetch_index()));
      }
      break;
    case HloOpcode::kCompare: {
      attrs->push_back(absl::StrCat("direction=", a.comparison_direction()));
      const PrimitiveType operand_type = instruction.operand_count() > 0
                                             ? instruction.operand(0)->shape().element_type()
                                             : PRIMITIVE_TYPE_INVALID;
      if (!a.comparison_type().empty() && a.comparison_type() != ComparisonTypeToString(DefaultComparisonType(operand_type))) {
        attrs->push_back(absl::StrCat("type=", a.comparison_type()));
      }
      break;
    }
    case HloOpcode::kTriangularSolve:
      AppendTriangularSolveOptions(a.triangular_solve_options(), attrs);
      break;
    case HloOpcode::kCholesky:
      if (a.cholesky_options().lower()) attrs->push_back("lower=true");
      break;
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
      AppendChannelId(a, options, attrs);
      if (a.is_host_transfer()) attrs->push_back("is_host_transfer=true");
      break;
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      AppendCollective(a, options, attrs);
      if (a.dimensions_size() > 0) attrs->push_back(absl::StrCat("dimensions={", a.dimensions(0), "}"));
      if (a.use_global_device_ids()) attrs->push_back("use_global_device_ids=true");
      break;
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      AppendCollective(a, options, attrs);
      if (a.use_global_device_ids()) attrs->push_back("use_global_device_ids=true");
      break;
    case HloOpcode::kReduceScatter:
      AppendCollective(a, options, attrs);
      if (a.use_global_device_ids()) attrs->push_back("use_global_device_ids=true");
      if (a.dimensions_size() > 0) attrs->push_back(absl::StrCat("dimensions={", a.dimensions(0), "}"));
      break;
    case HloOpcode::kAllToAll:
      AppendCollective(a, options, attrs);
      if (a.dimensions_size() > 0) attrs->push_back(absl::StrCat("dimensions={", a.dimensions(0), "}"));
      break;
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kRaggedAllToAll:
      AppendCollective(a, options, attrs);
      break;
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart: {
      AppendChannelId(a, options, attrs);
      std::vector<std::string> pairs;
      for (const SourceTarget& p : a.source_target_pairs()) {
        pairs.push_back(absl::StrCat("{", p.source(), ",", p.target(), "}"));
      }
      attrs->push_back(absl::StrCat("source_target_pairs={", absl::StrJoin(pairs, ","), "}"));
      if (a.dynamic_slice_sizes_size() > 0) {
        const int64_t rank = std::max<int64_t>(SliceRank(instruction), 1);
        std::vector<std::string> slices;
        for (int i = 0; i < a.dynamic_slice_sizes_size(); i += static_cast<int>(rank)) {
          std::vector<int64_t> one;
          for (int j = i; j < a.dynamic_slice_sizes_size() && j < i + rank; ++j) {
            one.push_back(a.dynamic_slice_sizes(j));
          }
          slices.push_back(absl::StrCat("{", absl::StrJoin(one, ","), "}"));
        }
        attrs->push_back(absl::StrCat("slice_sizes={", absl::StrJoin(slices, ","), "}"));
      }
      break;
    }
    case HloOpcode::kReverse:
    case HloOpcode::kConcatenate:
    case HloOpcode::kReduce:
    case HloOpcode::kTranspose:
    case HloOpcode::kBroadcast:
    case HloOpcode::kMap:
      attrs->push_back(absl::StrCat("dimensions=", Braced(a.dimensions())));
      break;
    case HloOpcode::kSort:
      attrs->push_back(absl::StrCat("dimensions=", Braced(a.dimensions())));
      if (a.is_stable()) attrs->push_back("is_stable=true");
      break;
    case HloOpcode::kReshape:
      if (a.dimensions_size() > 0 && a.dimensions(0) != -1) {
        attrs->push_back(absl::StrCat("inferred_dimension=", a.dimensions(0)));
      }
      break;
    case HloOpcode::kSlice: {
      bool unit_strides = true;
      for (const auto& d : a.slice_dimensions()) unit_strides &= d.stride() == 1;
      std::vector<std::string> parts;
      for (const auto& d : a.slice_dimensions()) {
        parts.push_back(unit_strides ? absl::StrCat("[", d.start(), ":", d.limit(), "]")
                                     : absl::StrCat("[", d.start(), ":", d.limit(), ":", d.stride(), "]"));
      }
      attrs->push_back(absl::StrCat("slice={", absl::StrJoin(parts, ", "), "}"));
      break;
    }
    case HloOpcode::kParameter:
      if (a.has_parameter_replication() && options.print_ids) {
        std::vector<std::string> flags;
        for (bool r : a.parameter_replication().replicated_at_leaf_buffers()) {
          flags.push_back(r ? "true" : "false");
        }
        attrs->push_back(absl::StrCat("parameter_replication={", absl::StrJoin(flags, ","), "}"));
      }
      break;
    case HloOpcode::kGetTupleElement:
      attrs->push_back(absl::StrCat("index=", a.tuple_index()));
      break;
    case HloOpcode::kReducePrecision:
      attrs->push_back(absl::StrCat("exponent_bits=", a.exponent_bits()));
      attrs->push_back(absl::StrCat("mantissa_bits=", a.mantissa_bits()));
      break;
    case HloOpcode::kInfeed:
      if (options.print_infeed_outfeed_config && !a.infeed_config().empty()) {
        attrs->push_back(absl::StrCat("infeed_config=\"", CEscapeText(a.infeed_config()), "\""));
      }
      break;
    case HloOpcode::kOutfeed: {
      absl::StatusOr<Shape> shape = Shape::FromProto(a.outfeed_shape());
      attrs->push_back(absl::StrCat("outfeed_shape=",
                                    shape.ok() ? shape->ToString(/*print_layout=*/true) : "()"));
      if (options.print_infeed_outfeed_config && !a.outfeed_config().empty()) {
        attrs->push_back(absl::StrCat("outfeed_config=\"", CEscapeText(a.outfeed_config()), "\""));
      }
      break;
    }
    case HloOpcode::kConvolution:
      if (a.window().dimensions_size() > 0) {
        attrs->push_back(absl::StrCat("window={", WindowToString(a.window()), "}"));
      }
      attrs->push_back(absl::StrCat(
          "dim_labels=", ConvolutionDimensionNumbersToString(a.convolution_dimension_numbers())));
      if (a.feature_group_count() > 1) {
        attrs->push_back(absl::StrCat("feature_group_count=", a.feature_group_count()));
      }
      if (a.batch_group_count() > 1) {
        attrs->push_back(absl::StrCat("batch_group_count=", a.batch_group_count()));
      }
      AppendPrecisionConfig(a.precision_config(), attrs);
      break;
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
      if (a.window().dimensions_size() > 0) {
        attrs->push_back(absl::StrCat("window={", WindowToString(a.window()), "}"));
      }
      break;
    case HloOpcode::kCustomCall:
      AppendCustomCall(instruction, options, attrs);
      break;
    case HloOpcode::kPad:
      attrs->push_back(absl::StrCat("padding=", PaddingConfigToString(a.padding_config())));
      break;
    case HloOpcode::kDynamicSlice:
      attrs->push_back(absl::StrCat("dynamic_slice_sizes=", Braced(a.dynamic_slice_sizes())));
      break;
    case HloOpcode::kGather: {
      const GatherDimensionNumbers& d = a.gather_dimension_numbers();
      attrs->push_back(absl::StrCat("offset_dims=", Braced(d.offset_dims())));
      attrs->push_back(absl::StrCat("collapsed_slice_dims=", Braced(d.collapsed_slice_dims())));
      attrs->push_back(absl::StrCat("start_index_map=", Braced(d.start_index_map())));
      if (d.operand_batching_dims_size() > 0) {
        attrs->push_back(absl::StrCat("operand_batching_dims=", Braced(d.operand_batching_dims())));
      }
      if (d.start_indices_batching_dims_size() > 0) {
        attrs->push_back(
            absl::StrCat("start_indices_batching_dims=", Braced(d.start_indices_batching_dims())));
      }
      attrs->push_back(absl::StrCat("index_vector_dim=", d.index_vector_dim()));
      attrs->push_back(absl::StrCat("slice_sizes=", Braced(a.gather_slice_sizes())));
      if (a.indices_are_sorted()) attrs->push_back("indices_are_sorted=true");
      break;
    }
    case HloOpcode::kScatter: {
      const ScatterDimensionNumbers& d = a.scatter_dimension_numbers();
      attrs->push_back(absl::StrCat("update_window_dims=", Braced(d.update_window_dims())));
      attrs->push_back(absl::StrCat("inserted_window_dims=", Braced(d.inserted_window_dims())));
      attrs->push_back(
          absl::StrCat("scatter_dims_to_operand_dims=", Braced(d.scatter_dims_to_operand_dims())));
      if (d.input_batching_dims_size() > 0) {
        attrs->push_back(absl::StrCat("input_batching_dims=", Braced(d.input_batching_dims())));
      }
      if (d.scatter_indices_batching_dims_size() > 0) {
        attrs->push_back(
            absl::StrCat("scatter_indices_batching_dims=", Braced(d.scatter_indices_batching_dims())));
      }
      attrs->push_back(absl::StrCat("index_vector_dim=", d.index_vector_dim()));
      if (a.indices_are_sorted()) attrs->push_back("indices_are_sorted=true");
      if (a.unique_indices()) attrs->push_back("unique_indices=true");
      break;
    }
    case HloOpcode::kIota:
      attrs->push_back(absl::StrCat("iota_dimension=", a.dimensions_size() > 0 ? a.dimensions(0) : 0));
      break;
    case HloOpcode::kDot:
    case HloOpcode::kScaledDot:
      attrs->push_back(DotDimensionNumbersToString(a.dot_dimension_numbers()));
      AppendPrecisionConfig(a.precision_config(), attrs);
      break;
    case HloOpcode::kRaggedDot: {
      const RaggedDotDimensionNumbers& r = a.ragged_dot_dimension_numbers();
      std::string text = DotDimensionNumbersToString(r.dot_dimension_numbers());
      absl::StrAppend(&text, ", lhs_ragged_dims=", Braced(r.lhs_ragged_dimensions()));
      if (r.rhs_group_dimensions_size() > 0) {
        absl::StrAppend(&text, ", rhs_group_dims=", Braced(r.rhs_group_dimensions()));
      }
      attrs->push_back(text);
      AppendPrecisionConfig(a.precision_config(), attrs);
      break;
    }
    case HloOpcode::kDomain:
      if (a.has_domain_entry_sharding() || a.has_domain_exit_sharding()) {
        auto side = [&](bool has, const OpSharding& s) {
          return has ? OpShardingToString(s, options.print_metadata) : std::string("{}");
        };
        attrs->push_back(absl::StrCat("domain={kind=\"sharding\", entry=",
                                      side(a.has_domain_entry_sharding(), a.domain_entry_sharding()),
                                      ", exit=",
                                      side(a.has_domain_exit_sharding(), a.domain_exit_sharding()),
                                      "}"));
      }
      break;
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
      attrs->push_back(absl::StrCat("dimensions={", a.dimensions_size() > 0 ? a.dimensions(0) : 0, "}"));
      break;
    case HloOpcode::kRngGetAndUpdateState:
      attrs->push_back(absl::StrCat("delta=", a.delta()));
      break;
    case HloOpcode::kRngBitGenerator:
      attrs->push_back(absl::StrCat("algorithm=", LowercaseEnumName(RandomAlgorithm_Name(a.rng_algorithm()))));
      break;
    case HloOpcode::kRng:
      attrs->push_back(
          absl::StrCat("distribution=", LowercaseEnumName(RandomDistribution_Name(a.distribution()))));
      break;
    case HloOpcode::kTopk:
      attrs->push_back(absl::StrCat("k=", a.k()));
      attrs->push_back(absl::StrCat("largest=", a.largest() ? "true" : "false"));
      break;
    case HloOpcode::kFusion:
      attrs->push_back(absl::StrCat("kind=", a.fusion_kind()));
      if (a.output_operand_aliasing_size() > 0) {
        attrs->push_back(absl::StrCat("output_to_operand_aliasing=",
                                      OutputOperandAliasingText(a.output_operand_aliasing())));
      }
      break;
    default:
      break;
  }
}

namespace {

std::string NameList(const std::vector<HloComputation*>& computations,
                     const HloPrintOptions& options) {
  std::vector<std::string> names;
  for (const HloComputation* c : computations) names.push_back(PrintedName(c->name(), options));
  return absl::StrJoin(names, ", ");
}

bool HasToApply(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kCall: case HloOpcode::kMap: case HloOpcode::kReduceWindow:
    case HloOpcode::kReduce: case HloOpcode::kAllReduce: case HloOpcode::kReduceScatter:
    case HloOpcode::kAllReduceStart: case HloOpcode::kScatter: case HloOpcode::kSort:
      return true;
    default:
      return false;
  }
}

void AppendCalledComputations(const HloInstruction& instruction, const HloPrintOptions& options,
                              Attrs* attrs) {
  const auto& called = instruction.called_computations();
  const HloOpcode opcode = instruction.opcode();
  if (opcode == HloOpcode::kWhile) {
    if (instruction.while_condition() != nullptr) {
      attrs->push_back(absl::StrCat("condition=", PrintedName(instruction.while_condition()->name(), options)));
    }
    if (instruction.while_body() != nullptr) {
      attrs->push_back(absl::StrCat("body=", PrintedName(instruction.while_body()->name(), options)));
    }
  } else if (opcode == HloOpcode::kSelectAndScatter) {
    if (instruction.select() != nullptr) {
      attrs->push_back(absl::StrCat("select=", PrintedName(instruction.select()->name(), options)));
    }
    if (instruction.scatter() != nullptr) {
      attrs->push_back(absl::StrCat("scatter=", PrintedName(instruction.scatter()->name(), options)));
    }
  } else if (opcode == HloOpcode::kConditional) {
    const bool pred = instruction.operand_count() > 0 &&
                      instruction.operand(0)->shape().element_type() == PRED && called.size() == 2;
    if (pred) {
      attrs->push_back(absl::StrCat("true_computation=", PrintedName(called[0]->name(), options)));
      attrs->push_back(absl::StrCat("false_computation=", PrintedName(called[1]->name(), options)));
    } else {
      attrs->push_back(absl::StrCat("branch_computations={", NameList(called, options), "}"));
    }
  } else if (HasToApply(opcode)) {
    if (!called.empty()) {
      attrs->push_back(absl::StrCat("to_apply=", PrintedName(called[0]->name(), options)));
    }
    if (opcode == HloOpcode::kCall && instruction.attrs().is_composite()) {
      attrs->push_back("is_composite=true");
    }
  } else if (opcode == HloOpcode::kCustomCall) {
    if (!called.empty()) {
      attrs->push_back(absl::StrCat("called_computations={", NameList(called, options), "}"));
    }
  } else if (IsAsyncOpcode(opcode)) {
    if (opcode == HloOpcode::kAsyncStart && !UsesAsyncSugar(instruction, options)) {
      const HloComputation* wrapped = AsyncWrappedComputation(instruction);
      if (wrapped != nullptr) {
        attrs->push_back(absl::StrCat("calls=", PrintedName(wrapped->name(), options)));
      }
    }
  } else if (!called.empty()) {
    attrs->push_back(absl::StrCat("calls=", NameList(called, options)));
  }
}

}  // namespace

void AppendExtraAttributes(const HloInstruction& instruction, const HloPrintOptions& options,
                           Attrs* attrs) {
  const HloInstructionProto& a = instruction.attrs();
  if (options.print_extra_attributes) AppendOpcodeAttributes(instruction, options, attrs);
  if (options.print_subcomputation_mode == HloPrintOptions::PrintSubcomputationMode::kNameOnly) {
    AppendCalledComputations(instruction, options, attrs);
  }
  if (a.has_sharding()) {
    attrs->push_back(absl::StrCat("sharding=", OpShardingToString(a.sharding(), options.print_metadata)));
  }
  if (options.print_frontend_attributes && !a.frontend_attributes().map().empty()) {
    attrs->push_back(
        absl::StrCat("frontend_attributes=", FrontendAttributesToString(a.frontend_attributes())));
  }
  if (options.print_control_dependencies && !instruction.control_predecessors().empty()) {
    std::vector<std::string> names;
    for (const HloInstruction* p : instruction.control_predecessors()) {
      names.push_back(PrintedName(p->name(), options));
    }
    attrs->push_back(absl::StrCat("control-predecessors={", absl::StrJoin(names, ", "), "}"));
  }
  if (a.statistics_viz().statistics_size() > 0) {
    attrs->push_back(absl::StrCat("statistics=", StatisticsVizText(a.statistics_viz())));
  }
  if (a.has_result_accuracy()) {
    std::string text = ResultAccuracyText(a.result_accuracy());
    if (!text.empty()) attrs->push_back(absl::StrCat("result_accuracy=", text));
  }
}

}  // namespace printer_internal
}  // namespace xla
