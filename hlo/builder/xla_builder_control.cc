// Control flow, calls, custom calls, tokens and feeds, collectives, random numbers.

#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/builder/xla_builder.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace {

XlaBuilder* BuilderOf(absl::Span<const XlaOp> ops) {
  for (XlaOp op : ops) {
    if (op.builder() != nullptr) return op.builder();
  }
  return nullptr;
}

void AddCollectiveAttrs(HloInstructionProto* instr, absl::Span<const ReplicaGroup> replica_groups,
                        const std::optional<ChannelHandle>& channel_id,
                        std::optional<bool> use_global_device_ids) {
  for (const ReplicaGroup& group : replica_groups) *instr->add_replica_groups() = group;
  if (channel_id.has_value()) instr->set_channel_id(channel_id->handle());
  if (use_global_device_ids.value_or(false)) instr->set_use_global_device_ids(true);
}

}  // namespace

XlaOp While(const XlaComputation& condition, const XlaComputation& body, XlaOp init) {
  XlaBuilder* b = init.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    // XLA's order: {body, condition}.
    RETURN_IF_ERROR(b->AddCalledComputation(body, &instr));
    RETURN_IF_ERROR(b->AddCalledComputation(condition, &instr));
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kWhile, {init});
  });
}

XlaOp Conditional(XlaOp predicate, XlaOp true_operand, const XlaComputation& true_computation,
                  XlaOp false_operand, const XlaComputation& false_computation) {
  const XlaComputation* branches[] = {&true_computation, &false_computation};
  return Conditional(predicate, branches, {true_operand, false_operand});
}

XlaOp Conditional(XlaOp branch_index, absl::Span<const XlaComputation* const> branch_computations,
                  absl::Span<const XlaOp> branch_operands) {
  XlaBuilder* b = branch_index.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (branch_computations.empty() || branch_computations.size() != branch_operands.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "conditional: needs one operand per branch (at least one branch); got ",
          branch_computations.size(), " branches and ", branch_operands.size(), " operands"));
    }
    HloInstructionProto instr;
    for (const XlaComputation* c : branch_computations) {
      RETURN_IF_ERROR(b->AddCalledComputation(*c, &instr));
    }
    std::vector<XlaOp> operands = {branch_index};
    operands.insert(operands.end(), branch_operands.begin(), branch_operands.end());
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kConditional, operands);
  });
}

XlaOp Call(XlaBuilder* builder, const XlaComputation& computation, absl::Span<const XlaOp> operands) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    RETURN_IF_ERROR(builder->AddCalledComputation(computation, &instr));
    return builder->AddInferredInstruction(std::move(instr), HloOpcode::kCall, operands);
  });
}

namespace {

absl::StatusOr<XlaOp> CustomCallImpl(
    XlaBuilder* b, const std::string& target, absl::Span<const XlaOp> operands,
    const XlaComputation* computation, const Shape& shape, const std::string& opaque,
    bool has_side_effect,
    absl::Span<const std::pair<ShapeIndex, std::pair<int64_t, ShapeIndex>>> aliasing,
    CustomCallSchedule schedule, CustomCallApiVersion api_version,
    const std::optional<std::vector<Shape>>& operand_shapes_with_layout,
    const Literal* literal = nullptr, const Window* window = nullptr,
    const ConvolutionDimensionNumbers* dnums = nullptr) {
  if (absl::StartsWith(target, "$")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid custom_call_target \"", target,
        "\": call targets that start with '$' are reserved for internal use"));
  }
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
  HloInstructionProto instr;
  *instr.mutable_shape() = shape.ToProto();
  instr.set_custom_call_target(target);
  if (!opaque.empty()) instr.set_backend_config(opaque);
  if (has_side_effect) instr.set_custom_call_has_side_effect(true);
  // Defaults stay unset (the text parser leaves them unset too).
  if (schedule != SCHEDULE_NONE) instr.set_custom_call_schedule(schedule);
  if (api_version != API_VERSION_ORIGINAL) instr.set_custom_call_api_version(api_version);
  for (const auto& [output_index, operand] : aliasing) {
    OutputOperandAliasing* a = instr.add_output_operand_aliasing();
    for (int64_t v : output_index) a->add_output_shape_index(v);
    a->set_operand_index(operand.first);
    for (int64_t v : operand.second) a->add_operand_shape_index(v);
  }
  if (operand_shapes_with_layout.has_value()) {
    if (operand_shapes_with_layout->size() != operands.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "custom-call: ", operand_shapes_with_layout->size(), " operand shapes given for ",
          operands.size(), " operands"));
    }
    instr.set_constrain_layout(true);
    for (Shape s : *operand_shapes_with_layout) {
      ShapeUtil::SetDefaultLayoutsIfMissing(&s);
      *instr.add_operand_shapes_with_layout() = s.ToProto();
    }
  }
  if (literal != nullptr) *instr.mutable_literal() = literal->ToProto();
  if (window != nullptr) *instr.mutable_window() = *window;
  if (dnums != nullptr) *instr.mutable_convolution_dimension_numbers() = *dnums;
  if (computation != nullptr) RETURN_IF_ERROR(b->AddCalledComputation(*computation, &instr));
  return b->AddInstruction(std::move(instr), HloOpcode::kCustomCall, operands);
}

}  // namespace

XlaOp CustomCall(XlaBuilder* builder, const std::string& call_target_name,
                 absl::Span<const XlaOp> operands, const Shape& shape, const std::string& opaque,
                 bool has_side_effect,
                 absl::Span<const std::pair<ShapeIndex, std::pair<int64_t, ShapeIndex>>>
                     output_operand_aliasing,
                 CustomCallSchedule schedule, CustomCallApiVersion api_version) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    return CustomCallImpl(builder, call_target_name, operands, nullptr, shape, opaque,
                          has_side_effect, output_operand_aliasing, schedule, api_version,
                          std::nullopt);
  });
}

XlaOp CustomCallWithComputation(
    XlaBuilder* builder, const std::string& call_target_name, absl::Span<const XlaOp> operands,
    const XlaComputation& computation, const Shape& shape, const std::string& opaque,
    bool has_side_effect,
    absl::Span<const std::pair<ShapeIndex, std::pair<int64_t, ShapeIndex>>> output_operand_aliasing,
    CustomCallSchedule schedule, CustomCallApiVersion api_version) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    return CustomCallImpl(builder, call_target_name, operands, &computation, shape, opaque,
                          has_side_effect, output_operand_aliasing, schedule, api_version,
                          std::nullopt);
  });
}

XlaOp CustomCallWithLayout(XlaBuilder* builder, const std::string& call_target_name,
                           absl::Span<const XlaOp> operands, const Shape& shape_with_layout,
                           absl::Span<const Shape> operand_shapes_with_layout,
                           const std::string& opaque, bool has_side_effect) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    return CustomCallImpl(builder, call_target_name, operands, nullptr, shape_with_layout, opaque,
                          has_side_effect, {}, SCHEDULE_NONE, API_VERSION_ORIGINAL,
                          std::vector<Shape>(operand_shapes_with_layout.begin(),
                                             operand_shapes_with_layout.end()));
  });
}

XlaOp CustomCallWithConvDnums(
    XlaBuilder* builder, const std::string& call_target_name, absl::Span<const XlaOp> operands,
    const Shape& shape, absl::Span<const Shape> operand_shapes_with_layout, const std::string& opaque,
    bool has_side_effect,
    absl::Span<const std::pair<ShapeIndex, std::pair<int64_t, ShapeIndex>>> output_operand_aliasing,
    const Literal* literal, Window window, ConvolutionDimensionNumbers dnums, CustomCallSchedule schedule,
    CustomCallApiVersion api_version) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    // No operand shapes: the layouts are not constrained.
    std::optional<std::vector<Shape>> layouts;
    if (!operand_shapes_with_layout.empty()) {
      layouts.emplace(operand_shapes_with_layout.begin(), operand_shapes_with_layout.end());
    }
    return CustomCallImpl(builder, call_target_name, operands, nullptr, shape, opaque, has_side_effect,
                          output_operand_aliasing, schedule, api_version, layouts, literal, &window, &dnums);
  });
}

XlaOp CompositeCall(XlaBuilder* builder, const XlaComputation& computation, absl::Span<const XlaOp> operands,
                    const std::string& name, std::optional<absl::string_view> attributes,
                    std::optional<int64_t> version) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (name.empty()) return absl::InvalidArgumentError("composite call: the composite needs a name");
    HloInstructionProto instr;
    RETURN_IF_ERROR(builder->AddCalledComputation(computation, &instr));
    // A call that says which composite op it decomposes (XLA's frontend attributes
    // composite.name, composite.attributes and composite.version; runs as the call).
    instr.set_is_composite(true);
    auto& map = *instr.mutable_frontend_attributes()->mutable_map();
    map["composite.name"] = name;
    map["composite.attributes"] = attributes.has_value() && !attributes->empty() ? std::string(*attributes) : "{}";
    map["composite.version"] = std::to_string(version.value_or(0));
    return builder->AddInferredInstruction(std::move(instr), HloOpcode::kCall, operands);
  });
}

XlaOp OptimizationBarrier(XlaOp operand) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    return b->AddInferredInstruction(HloInstructionProto(), HloOpcode::kOptBarrier, {operand});
  });
}

XlaOp CreateToken(XlaBuilder* builder) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    return builder->AddOpWithShape(HloOpcode::kAfterAll, Shape::MakeToken(), {});
  });
}

XlaOp AfterAll(XlaBuilder* builder, absl::Span<const XlaOp> tokens) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (tokens.empty()) return absl::InvalidArgumentError("after-all requires at least one operand");
    for (XlaOp t : tokens) {
      ASSIGN_OR_RETURN(const Shape* shape, builder->GetShapePtr(t));
      if (!shape->IsToken()) {
        return absl::InvalidArgumentError(absl::StrCat("after-all: all operands must be tokens, got ",
                                                       shape->ToString()));
      }
    }
    return builder->AddOpWithShape(HloOpcode::kAfterAll, Shape::MakeToken(), tokens);
  });
}

XlaOp InfeedWithToken(XlaOp token, const Shape& shape, const std::string& config) {
  XlaBuilder* b = token.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
    HloInstructionProto instr;
    *instr.mutable_shape() = Shape::MakeTuple({shape, Shape::MakeToken()}).ToProto();
    if (!config.empty()) instr.set_infeed_config(config);
    return b->AddInstruction(std::move(instr), HloOpcode::kInfeed, {token});
  });
}

XlaOp Infeed(XlaBuilder* builder, const Shape& shape, const std::string& config) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    XlaOp token = CreateToken(builder);
    return GetTupleElement(InfeedWithToken(token, shape, config), 0);
  });
}

XlaOp OutfeedWithToken(XlaOp operand, XlaOp token, const Shape& shape_with_layout,
                       const std::string& outfeed_config) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* operand_shape, b->GetShapePtr(operand));
    if (!ShapeUtil::Compatible(*operand_shape, shape_with_layout)) {
      return absl::InvalidArgumentError(absl::StrCat("outfeed shape ", shape_with_layout.ToString(),
                                                     " must be compatible with operand shape ",
                                                     operand_shape->ToString()));
    }
    Shape outfeed_shape = shape_with_layout;
    ShapeUtil::SetDefaultLayoutsIfMissing(&outfeed_shape);
    HloInstructionProto instr;
    *instr.mutable_shape() = Shape::MakeToken().ToProto();
    *instr.mutable_outfeed_shape() = outfeed_shape.ToProto();
    if (!outfeed_config.empty()) instr.set_outfeed_config(outfeed_config);
    return b->AddInstruction(std::move(instr), HloOpcode::kOutfeed, {operand, token});
  });
}

void Outfeed(XlaOp operand, const Shape& shape_with_layout, const std::string& outfeed_config) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return;
  b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    XlaOp token = CreateToken(b);
    XlaOp outfeed = OutfeedWithToken(operand, token, shape_with_layout, outfeed_config);
    RETURN_IF_ERROR(b->first_error());
    (void)outfeed;
    // As XLA: existing users expect a nil result when the outfeed ends a computation.
    std::optional<OpSharding> sharding = b->sharding();
    b->ClearSharding();
    absl::StatusOr<XlaOp> nil = b->AddOpWithShape(HloOpcode::kTuple, ShapeUtil::MakeNil(), {});
    if (sharding.has_value()) b->SetSharding(*sharding);
    return nil;
  });
}

XlaOp AllReduce(XlaOp operand, const XlaComputation& computation,
                absl::Span<const ReplicaGroup> replica_groups,
                const std::optional<ChannelHandle>& channel_id,
                std::optional<bool> use_global_device_ids) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    AddCollectiveAttrs(&instr, replica_groups, channel_id, use_global_device_ids);
    RETURN_IF_ERROR(b->AddCalledComputation(computation, &instr));
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(operand));
    *instr.mutable_shape() = shape->ToProto();
    return b->AddInstruction(std::move(instr), HloOpcode::kAllReduce, {operand});
  });
}

XlaOp AllGather(XlaOp operand, int64_t all_gather_dimension, int64_t shard_count,
                absl::Span<const ReplicaGroup> replica_groups,
                const std::optional<ChannelHandle>& channel_id,
                std::optional<bool> use_global_device_ids) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape shape, b->GetShape(operand));
    if (!shape.IsArray() || all_gather_dimension < 0 || all_gather_dimension >= shape.rank() ||
        shard_count < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "all-gather: dimension ", all_gather_dimension, " and shard count ", shard_count,
          " are invalid for ", shape.ToString()));
    }
    shape.set_dimensions(static_cast<int>(all_gather_dimension),
                         shape.dimensions(static_cast<int>(all_gather_dimension)) * shard_count);
    HloInstructionProto instr;
    *instr.mutable_shape() = shape.ToProto();
    instr.add_dimensions(all_gather_dimension);
    AddCollectiveAttrs(&instr, replica_groups, channel_id, use_global_device_ids);
    return b->AddInstruction(std::move(instr), HloOpcode::kAllGather, {operand});
  });
}

XlaOp ReduceScatter(XlaOp operand, const XlaComputation& computation, int64_t scatter_dimension,
                    int64_t shard_count, absl::Span<const ReplicaGroup> replica_groups,
                    const std::optional<ChannelHandle>& channel_id,
                    std::optional<bool> use_global_device_ids) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape shape, b->GetShape(operand));
    if (!shape.IsArray() || scatter_dimension < 0 || scatter_dimension >= shape.rank() ||
        shard_count < 1 || shape.dimensions(static_cast<int>(scatter_dimension)) % shard_count != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "reduce-scatter: dimension ", scatter_dimension, " of ", shape.ToString(),
          " must exist and be divisible by the shard count ", shard_count));
    }
    shape.set_dimensions(static_cast<int>(scatter_dimension),
                         shape.dimensions(static_cast<int>(scatter_dimension)) / shard_count);
    HloInstructionProto instr;
    *instr.mutable_shape() = shape.ToProto();
    instr.add_dimensions(scatter_dimension);
    AddCollectiveAttrs(&instr, replica_groups, channel_id, use_global_device_ids);
    RETURN_IF_ERROR(b->AddCalledComputation(computation, &instr));
    return b->AddInstruction(std::move(instr), HloOpcode::kReduceScatter, {operand});
  });
}

namespace {

// An array whose split_dimension divides into split_count blocks, and a concat_dimension.
absl::Status CheckAllToAllSplit(const Shape& shape, int64_t split_dimension, int64_t concat_dimension,
                                int64_t split_count) {
  if (!shape.IsArray()) return absl::InvalidArgumentError("all-to-all: the operand must be an array, got " + shape.ToString());
  for (const auto& [name, d] : {std::pair<const char*, int64_t>{"split_dimension", split_dimension},
                                {"concat_dimension", concat_dimension}}) {
    if (d < 0 || d >= shape.rank()) {
      return absl::InvalidArgumentError(absl::StrCat("all-to-all: ", name, " ", d, " out of range for ", shape.ToString()));
    }
  }
  const int64_t split_size = shape.dimensions(static_cast<int>(split_dimension));
  if (split_count < 1 || split_size % split_count != 0) {
    return absl::InvalidArgumentError(absl::StrCat("all-to-all: split dimension ", split_dimension, " (size ", split_size,
                                                   ") of ", shape.ToString(), " is not divisible by split_count ",
                                                   split_count));
  }
  return absl::OkStatus();
}

}  // namespace

XlaOp AllToAll(XlaOp operand, int64_t split_dimension, int64_t concat_dimension, int64_t split_count,
               absl::Span<const ReplicaGroup> replica_groups, const std::optional<Layout>& layout,
               const std::optional<ChannelHandle>& channel_id) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape shape, b->GetShape(operand));
    RETURN_IF_ERROR(CheckAllToAllSplit(shape, split_dimension, concat_dimension, split_count));
    const int64_t rank = shape.rank();
    const int64_t split_size = shape.dimensions(static_cast<int>(split_dimension));
    // Without groups the participants are 0..split_count-1, as XLA's builder makes them.
    std::vector<ReplicaGroup> groups(replica_groups.begin(), replica_groups.end());
    if (groups.empty()) {
      ReplicaGroup all;
      for (int64_t i = 0; i < split_count; ++i) all.add_replica_ids(i);
      groups.push_back(all);
    }
    for (const ReplicaGroup& group : groups) {
      if (group.replica_ids_size() != split_count) {
        return absl::InvalidArgumentError(absl::StrCat("all-to-all: a replica group of ", group.replica_ids_size(),
                                                       " members; split_count is ", split_count));
      }
    }
    std::vector<int64_t> result(shape.dimensions().begin(), shape.dimensions().end());
    result[split_dimension] /= split_count;
    result[concat_dimension] *= split_count;
    Shape result_shape = ShapeUtil::MakeShape(shape.element_type(), result);
    if (layout.has_value()) {
      if (static_cast<int64_t>(layout->minor_to_major().size()) != rank) {
        return absl::InvalidArgumentError(absl::StrCat("all-to-all: layout ", layout->ToString(), " is not of rank ", rank));
      }
      *result_shape.mutable_layout() = *layout;
      RETURN_IF_ERROR(ShapeUtil::ValidateShape(result_shape));
    }
    // The HLO op splits and concatenates along one dimension.
    HloInstructionProto instr;
    *instr.mutable_shape() = (split_dimension == concat_dimension ? result_shape : shape).ToProto();
    instr.add_dimensions(split_dimension);
    AddCollectiveAttrs(&instr, groups, channel_id, std::nullopt);
    ASSIGN_OR_RETURN(XlaOp exchanged, b->AddInstruction(std::move(instr), HloOpcode::kAllToAll, {operand}));
    if (split_dimension == concat_dimension) return exchanged;
    // Block j of the split dimension came from participant j: make it a dimension of its own
    // (major to the rest of the split dimension), move that just before concat_dimension and
    // merge the two.
    std::vector<int64_t> blocks(shape.dimensions().begin(), shape.dimensions().end());
    blocks[split_dimension] = split_size / split_count;
    blocks.insert(blocks.begin() + split_dimension, split_count);
    std::vector<int64_t> permutation;
    for (int64_t i = 0; i < rank; ++i) {
      if (i == concat_dimension) permutation.push_back(split_dimension);
      permutation.push_back(i >= split_dimension ? i + 1 : i);
    }
    return Reshape(result_shape, Transpose(Reshape(exchanged, blocks), permutation));
  });
}

XlaOp AllToAllTuple(absl::Span<const XlaOp> operands, absl::Span<const ReplicaGroup> replica_groups,
                    const std::optional<Layout>& layout, const std::optional<ChannelHandle>& channel_id) {
  XlaBuilder* b = BuilderOf(operands);
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (operands.empty()) return absl::InvalidArgumentError("all-to-all: no operands");
    std::vector<Shape> shapes;
    for (XlaOp operand : operands) {
      ASSIGN_OR_RETURN(const Shape shape, b->GetShape(operand));
      if (!shape.IsArray()) return absl::InvalidArgumentError("all-to-all: an operand is " + shape.ToString());
      shapes.push_back(shape);
    }
    if (layout.has_value()) {  // every element's
      for (Shape& shape : shapes) {
        if (static_cast<int64_t>(layout->minor_to_major().size()) != shape.rank()) {
          return absl::InvalidArgumentError(
              absl::StrCat("all-to-all: layout ", layout->ToString(), " is not of rank ", shape.rank()));
        }
        *shape.mutable_layout() = *layout;
      }
    }
    // The tuple form: operand i goes to participant i, result i comes from participant i.
    HloInstructionProto instr;
    *instr.mutable_shape() = Shape::MakeTuple(shapes).ToProto();
    AddCollectiveAttrs(&instr, replica_groups, channel_id, std::nullopt);
    return b->AddInstruction(std::move(instr), HloOpcode::kAllToAll, operands);
  });
}

XlaOp AllToAllTuple(XlaOp operand, int64_t split_dimension, int64_t concat_dimension, int64_t split_count,
                    absl::Span<const ReplicaGroup> replica_groups, const std::optional<Layout>& layout,
                    const std::optional<ChannelHandle>& channel_id) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape shape, b->GetShape(operand));
    RETURN_IF_ERROR(CheckAllToAllSplit(shape, split_dimension, concat_dimension, split_count));
    // Block i of the split dimension to participant i; the blocks received, in participant
    // order, concatenated along concat_dimension.
    const int64_t block = shape.dimensions(static_cast<int>(split_dimension)) / split_count;
    std::vector<XlaOp> blocks;
    for (int64_t i = 0; i < split_count; ++i) {
      blocks.push_back(SliceInDim(operand, i * block, (i + 1) * block, 1, split_dimension));
    }
    XlaOp exchanged = AllToAllTuple(blocks, replica_groups, layout, channel_id);
    std::vector<XlaOp> received;
    for (int64_t i = 0; i < split_count; ++i) received.push_back(GetTupleElement(exchanged, i));
    return ConcatInDim(b, received, concat_dimension);
  });
}

XlaOp RaggedAllToAll(XlaOp input, XlaOp input_offsets, XlaOp send_sizes, XlaOp output, XlaOp output_offsets,
                     XlaOp recv_sizes, absl::Span<const ReplicaGroup> replica_groups,
                     const std::optional<ChannelHandle>& channel_id) {
  XlaBuilder* b = input.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    AddCollectiveAttrs(&instr, replica_groups, channel_id, std::nullopt);
    // The result is `output` with the received rows written into it (shape inference checks
    // the offsets and sizes).
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kRaggedAllToAll,
                                     {input, output, input_offsets, send_sizes, output_offsets, recv_sizes});
  });
}

XlaOp CollectiveBroadcast(XlaOp operand, absl::Span<const ReplicaGroup> replica_groups,
                          const std::optional<ChannelHandle>& channel_id) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape shape, b->GetShape(operand));
    if (!shape.IsArray()) return absl::InvalidArgumentError("collective-broadcast: the operand is " + shape.ToString());
    HloInstructionProto instr;
    *instr.mutable_shape() = shape.ToProto();
    AddCollectiveAttrs(&instr, replica_groups, channel_id, std::nullopt);
    return b->AddInstruction(std::move(instr), HloOpcode::kCollectiveBroadcast, {operand});
  });
}

XlaOp CrossReplicaSum(XlaOp operand, absl::Span<const ReplicaGroup> replica_groups) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape shape, b->GetShape(operand));
    if (!shape.IsArray()) return absl::InvalidArgumentError("cross-replica sum of " + shape.ToString());
    // A sum of two scalars of the element type (pred: or, as a sum of bits saturates).
    const Shape scalar = ShapeUtil::MakeScalarShape(shape.element_type());
    std::unique_ptr<XlaBuilder> sum = b->CreateSubBuilder("sum");
    XlaOp x = Parameter(sum.get(), 0, scalar, "x");
    XlaOp y = Parameter(sum.get(), 1, scalar, "y");
    if (shape.element_type() == PRED) {
      Or(x, y);
    } else {
      Add(x, y);
    }
    ASSIGN_OR_RETURN(XlaComputation computation, sum->Build());
    return AllReduce(operand, computation, replica_groups);
  });
}

// --- send/recv ---

namespace {

absl::Status CheckChannel(const ChannelHandle& handle, ChannelHandle::ChannelType want, const char* what) {
  if (handle.handle() <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, " needs a positive channel handle, got ", handle.handle()));
  }
  if (handle.type() != want) {
    return absl::InvalidArgumentError(absl::StrCat(what, " needs a ", ChannelHandle::ChannelType_Name(want),
                                                   " channel, got ", ChannelHandle::ChannelType_Name(handle.type())));
  }
  return absl::OkStatus();
}

absl::Status CheckToken(XlaBuilder* b, XlaOp token, const char* what) {
  ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(token));
  if (!shape->IsToken()) return absl::InvalidArgumentError(absl::StrCat(what, ": the token operand is ", shape->ToString()));
  return absl::OkStatus();
}

// send then send-done of `data` (the operand's shape with a layout) after `token`.
absl::StatusOr<XlaOp> AddSend(XlaBuilder* b, XlaOp operand, XlaOp token, Shape data, const ChannelHandle& handle,
                              bool host) {
  ShapeUtil::SetDefaultLayoutsIfMissing(&data);
  HloInstructionProto send;
  *send.mutable_shape() = Shape::MakeTuple({data, ShapeUtil::MakeScalarShape(U32), Shape::MakeToken()}).ToProto();
  send.set_channel_id(handle.handle());
  send.set_is_host_transfer(host);
  ASSIGN_OR_RETURN(XlaOp started, b->AddInstruction(std::move(send), HloOpcode::kSend, {operand, token}));
  HloInstructionProto done;
  *done.mutable_shape() = Shape::MakeToken().ToProto();
  done.set_channel_id(handle.handle());
  done.set_is_host_transfer(host);
  return b->AddInstruction(std::move(done), HloOpcode::kSendDone, {started});
}

// recv then recv-done of `shape` after `token`: the (data, token) tuple.
absl::StatusOr<XlaOp> AddRecv(XlaBuilder* b, XlaOp token, Shape shape, const ChannelHandle& handle, bool host) {
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
  if (!shape.IsArray() && !shape.IsTuple()) return absl::InvalidArgumentError("cannot receive a " + shape.ToString());
  ShapeUtil::SetDefaultLayoutsIfMissing(&shape);
  HloInstructionProto recv;
  *recv.mutable_shape() = Shape::MakeTuple({shape, ShapeUtil::MakeScalarShape(U32), Shape::MakeToken()}).ToProto();
  recv.set_channel_id(handle.handle());
  recv.set_is_host_transfer(host);
  ASSIGN_OR_RETURN(XlaOp started, b->AddInstruction(std::move(recv), HloOpcode::kRecv, {token}));
  HloInstructionProto done;
  *done.mutable_shape() = Shape::MakeTuple({shape, Shape::MakeToken()}).ToProto();
  done.set_channel_id(handle.handle());
  done.set_is_host_transfer(host);
  return b->AddInstruction(std::move(done), HloOpcode::kRecvDone, {started});
}

}  // namespace

namespace {

// A send of `operand` after `token` on `handle` (a host transfer laid out as `host_layout`
// when given): checks, then send + send-done; `what` names the builder function in errors.
XlaOp SendAfter(XlaOp operand, XlaOp token, const ChannelHandle& handle, const std::optional<Shape>& host_layout,
                const char* what) {
  XlaBuilder* b = BuilderOf({operand, token});
  if (b == nullptr) return XlaOp();
  const bool host = host_layout.has_value();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    RETURN_IF_ERROR(CheckChannel(handle, host ? ChannelHandle::DEVICE_TO_HOST : ChannelHandle::DEVICE_TO_DEVICE, what));
    RETURN_IF_ERROR(CheckToken(b, token, what));
    ASSIGN_OR_RETURN(const Shape shape, b->GetShape(operand));
    if (!host) return AddSend(b, operand, token, shape, handle, /*host=*/false);
    if (!ShapeUtil::Compatible(shape, *host_layout)) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": shape_with_layout ", host_layout->ToString(),
                                                     " does not match the operand ", shape.ToString()));
    }
    if (!shape.IsArray()) return absl::InvalidArgumentError(absl::StrCat(what, " sends arrays only, got ", shape.ToString()));
    return AddSend(b, operand, token, *host_layout, handle, /*host=*/true);
  });
}

// A receive of `shape` after `token` on `handle` (from the host when `host`): the (data,
// token) tuple of its recv-done.
XlaOp RecvAfter(XlaOp token, const Shape& shape, const ChannelHandle& handle, bool host, const char* what) {
  XlaBuilder* b = token.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    RETURN_IF_ERROR(CheckChannel(handle, host ? ChannelHandle::HOST_TO_DEVICE : ChannelHandle::DEVICE_TO_DEVICE, what));
    RETURN_IF_ERROR(CheckToken(b, token, what));
    if (host && !shape.IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat(what, " receives arrays only, got ", shape.ToString()));
    }
    return AddRecv(b, token, shape, handle, host);
  });
}

}  // namespace

XlaOp SendWithToken(XlaOp operand, XlaOp token, const ChannelHandle& handle) {
  return SendAfter(operand, token, handle, std::nullopt, "SendWithToken");
}

void Send(XlaOp operand, const ChannelHandle& handle) {
  XlaBuilder* b = operand.builder();
  if (b != nullptr) SendAfter(operand, CreateToken(b), handle, std::nullopt, "Send");
}

XlaOp RecvWithToken(XlaOp token, const Shape& shape, const ChannelHandle& handle) {
  return RecvAfter(token, shape, handle, /*host=*/false, "RecvWithToken");
}

XlaOp Recv(XlaBuilder* builder, const Shape& shape, const ChannelHandle& handle) {
  // A refused receive leaves the builder's first error naming Recv; the element is then invalid too.
  return GetTupleElement(RecvAfter(CreateToken(builder), shape, handle, /*host=*/false, "Recv"), 0);
}

XlaOp SendToHost(XlaOp operand, XlaOp token, const Shape& shape_with_layout, const ChannelHandle& handle) {
  return SendAfter(operand, token, handle, shape_with_layout, "SendToHost");
}

XlaOp RecvFromHost(XlaOp token, const Shape& shape, const ChannelHandle& handle) {
  return RecvAfter(token, shape, handle, /*host=*/true, "RecvFromHost");
}

XlaOp CollectivePermute(XlaOp operand,
                        const std::vector<std::pair<int64_t, int64_t>>& source_target_pairs,
                        const std::optional<ChannelHandle>& channel_id) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(operand));
    HloInstructionProto instr;
    *instr.mutable_shape() = shape->ToProto();
    for (const auto& [source, target] : source_target_pairs) {
      SourceTarget* st = instr.add_source_target_pairs();
      st->set_source(source);
      st->set_target(target);
    }
    if (channel_id.has_value()) instr.set_channel_id(channel_id->handle());
    return b->AddInstruction(std::move(instr), HloOpcode::kCollectivePermute, {operand});
  });
}

XlaOp ReplicaId(XlaBuilder* builder) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    return builder->AddOpWithShape(HloOpcode::kReplicaId, ShapeUtil::MakeScalarShape(U32), {});
  });
}

XlaOp PartitionId(XlaBuilder* builder) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    return builder->AddOpWithShape(HloOpcode::kPartitionId, ShapeUtil::MakeScalarShape(U32), {});
  });
}

namespace {
XlaOp RngOp(RandomDistribution distribution, XlaOp a, XlaOp b_op, const Shape& shape) {
  XlaBuilder* b = BuilderOf({a, b_op});
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
    for (XlaOp param : {a, b_op}) {
      ASSIGN_OR_RETURN(const Shape* p, b->GetShapePtr(param));
      if (!ShapeUtil::IsScalar(*p) || p->element_type() != shape.element_type()) {
        return absl::InvalidArgumentError(absl::StrCat("rng: parameters must be scalars of the result type ",
                                                       shape.ToString(), ", got ", p->ToString()));
      }
    }
    HloInstructionProto instr;
    *instr.mutable_shape() = shape.ToProto();
    instr.set_distribution(distribution);
    return b->AddInstruction(std::move(instr), HloOpcode::kRng, {a, b_op});
  });
}
}  // namespace

XlaOp RngUniform(XlaOp a, XlaOp b, const Shape& shape) { return RngOp(RNG_UNIFORM, a, b, shape); }
XlaOp RngNormal(XlaOp mu, XlaOp sigma, const Shape& shape) { return RngOp(RNG_NORMAL, mu, sigma, shape); }

XlaOp RngBitGenerator(RandomAlgorithm algorithm, XlaOp initial_state, const Shape& shape) {
  XlaBuilder* b = initial_state.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
    if (!shape.IsArray() || !primitive_util::IsIntegralType(shape.element_type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "rng-bit-generator: the generated bits must be an integral array, got ", shape.ToString()));
    }
    ASSIGN_OR_RETURN(const Shape* state, b->GetShapePtr(initial_state));
    HloInstructionProto instr;
    *instr.mutable_shape() = Shape::MakeTuple({*state, shape}).ToProto();
    instr.set_rng_algorithm(algorithm);
    return b->AddInstruction(std::move(instr), HloOpcode::kRngBitGenerator, {initial_state});
  });
}

}  // namespace xla
