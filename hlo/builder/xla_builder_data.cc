// Parameters, constants and data-movement ops: broadcast, reshape, transpose, slices,
// concatenate, pad, tuples, dynamic sizes, gather/scatter, sort, top-k.

#include <cstring>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

// Literals without a layout get the default one, matching the instruction's shape.
absl::StatusOr<Literal> WithDefaultLayout(const Literal& literal) {
  if (!literal.shape().IsArray() || literal.shape().has_layout()) return literal.Clone();
  return literal.Relayout(ShapeUtil::MakeDescendingLayout(literal.shape().rank()));
}

bool AllElementsEqual(const Literal& literal) {
  const int64_t n = literal.element_count();
  const int64_t byte_width = primitive_util::ByteWidth(literal.shape().element_type());
  const char* data = static_cast<const char*>(literal.untyped_data());
  for (int64_t i = 1; i < n; ++i) {
    if (std::memcmp(data, data + i * byte_width, byte_width) != 0) return false;
  }
  return true;
}

}  // namespace

XlaOp Parameter(XlaBuilder* builder, int64_t parameter_number, const Shape& shape,
                const std::string& name, const std::vector<bool>& replicated_at_leaf_buffers) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (parameter_number < 0) {
      return absl::InvalidArgumentError(absl::StrCat("parameter number ", parameter_number, " is negative"));
    }
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
    HloInstructionProto instr;
    instr.set_parameter_number(parameter_number);
    instr.set_name(name);
    *instr.mutable_shape() = shape.ToProto();
    if (!replicated_at_leaf_buffers.empty()) {
      for (bool r : replicated_at_leaf_buffers) {
        instr.mutable_parameter_replication()->add_replicated_at_leaf_buffers(r);
      }
    }
    return builder->AddParameterInstruction(std::move(instr), parameter_number);
  });
}

XlaOp ConstantLiteral(XlaBuilder* builder, const Literal& literal) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Literal value, WithDefaultLayout(literal));
    if (value.shape().IsArray() && value.element_count() > 1 && AllElementsEqual(value)) {
      // XLA emits a scalar constant broadcast to the shape (cheaper to carry around).
      ASSIGN_OR_RETURN(Literal scalar, Literal::Create(ShapeUtil::MakeScalarShape(value.shape().element_type())));
      std::memcpy(scalar.untyped_data(), value.untyped_data(),
                  primitive_util::ByteWidth(value.shape().element_type()));
      HloInstructionProto instr;
      *instr.mutable_shape() = scalar.shape().ToProto();
      *instr.mutable_literal() = scalar.ToProto();
      std::optional<OpSharding> sharding = builder->sharding();
      builder->ClearSharding();  // the sharding belongs to the broadcast only
      absl::StatusOr<XlaOp> scalar_op = builder->AddInstruction(std::move(instr), HloOpcode::kConstant);
      if (sharding.has_value()) builder->SetSharding(*sharding);
      RETURN_IF_ERROR(scalar_op.status());
      return Broadcast(*scalar_op, value.shape().dimensions());
    }
    HloInstructionProto instr;
    *instr.mutable_shape() = value.shape().ToProto();
    *instr.mutable_literal() = value.ToProto();
    return builder->AddInstruction(std::move(instr), HloOpcode::kConstant);
  });
}

XlaOp Zero(XlaBuilder* builder, PrimitiveType type) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Literal literal, Literal::Create(ShapeUtil::MakeScalarShape(type)));
    return ConstantLiteral(builder, literal);
  });
}

XlaOp One(XlaBuilder* builder, PrimitiveType type) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Literal literal, Literal::Create(ShapeUtil::MakeScalarShape(type)));
    if (primitive_util::IsComplexType(type)) {
      literal.SetFromComplex(0, {1.0, 0.0});
    } else if (primitive_util::IsFloatingPointType(type)) {
      literal.SetFromDouble(0, 1.0);
    } else {
      literal.SetFromInt64(0, 1);
    }
    return ConstantLiteral(builder, literal);
  });
}

XlaOp Iota(XlaBuilder* builder, const Shape& shape, int64_t iota_dimension) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (!shape.IsArray() || iota_dimension < 0 || iota_dimension >= shape.rank()) {
      return absl::InvalidArgumentError(absl::StrCat("iota: dimension ", iota_dimension,
                                                     " out of range for shape ", shape.ToString()));
    }
    HloInstructionProto instr;
    *instr.mutable_shape() = shape.ToProto();
    instr.add_dimensions(iota_dimension);
    return builder->AddInstruction(std::move(instr), HloOpcode::kIota);
  });
}

XlaOp Iota(XlaBuilder* builder, PrimitiveType type, int64_t size) {
  return Iota(builder, ShapeUtil::MakeShape(type, {size}), 0);
}

XlaOp Broadcast(XlaOp operand, absl::Span<const int64_t> broadcast_sizes) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape shape, b->GetShape(operand));
    if (!shape.IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat("broadcast: operand ", shape.ToString(), " is not an array"));
    }
    std::vector<int64_t> dims(broadcast_sizes.begin(), broadcast_sizes.end());
    for (int64_t d : dims) {
      if (d < 0) return absl::InvalidArgumentError(absl::StrCat("broadcast: negative size ", d));
    }
    dims.insert(dims.end(), shape.dimensions().begin(), shape.dimensions().end());
    std::vector<int64_t> mapping(shape.rank());
    std::iota(mapping.begin(), mapping.end(), static_cast<int64_t>(broadcast_sizes.size()));
    return b->InDimBroadcast(ShapeUtil::MakeShape(shape.element_type(), dims), operand, mapping);
  });
}

XlaOp BroadcastInDim(XlaOp operand, absl::Span<const int64_t> out_dim_size,
                     absl::Span<const int64_t> broadcast_dimensions) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape shape, b->GetShape(operand));
    const Shape output = ShapeUtil::MakeShape(shape.element_type(), out_dim_size);
    auto error = [&](const std::string& why) {
      return absl::InvalidArgumentError(absl::StrCat(
          "broadcast_in_dim of ", shape.ToString(), " to ", output.ToString(), " with dimensions {",
          absl::StrJoin(broadcast_dimensions, ","), "}: ", why));
    };
    if (!shape.IsArray()) return error("operand is not an array");
    if (static_cast<int64_t>(broadcast_dimensions.size()) != shape.rank()) {
      return error("one broadcast dimension is needed per operand dimension");
    }
    std::vector<int64_t> in_dim_size(out_dim_size.begin(), out_dim_size.end());
    for (size_t i = 0; i < broadcast_dimensions.size(); ++i) {
      int64_t d = broadcast_dimensions[i];
      if (d < 0 || d >= output.rank()) return error("dimension out of range");
      if (i > 0 && broadcast_dimensions[i - 1] >= d) return error("dimensions must be strictly increasing");
      int64_t size = shape.dimensions(static_cast<int>(i));
      if (size != 1 && size != output.dimensions(d)) return error("operand dimension size mismatch");
      in_dim_size[d] = size;
    }
    const Shape in_dim_shape = ShapeUtil::MakeShape(shape.element_type(), in_dim_size);
    ASSIGN_OR_RETURN(XlaOp in_dim, b->InDimBroadcast(in_dim_shape, operand, broadcast_dimensions));
    if (in_dim_shape.dimensions() == output.dimensions()) return in_dim;
    // Size-1 operand dimensions broadcast to larger sizes (XLA's degenerate broadcast).
    return b->AddBroadcastSequence(output, in_dim);
  });
}

XlaOp ReshapeWithInferredDimension(XlaOp operand, absl::Span<const int64_t> new_sizes, int64_t inferred_dimension) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(operand));
    const int64_t rank = static_cast<int64_t>(new_sizes.size());
    if (!shape->IsArray() || inferred_dimension < 0 || inferred_dimension >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("reshape of ", shape->ToString(), ": inferred dimension ",
                                                     inferred_dimension, " out of range for ", rank, " dimensions"));
    }
    // The inferred size makes up the operand's elements; the one given for it is ignored.
    int64_t others = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != inferred_dimension) others *= new_sizes[d];
    }
    const int64_t elements = ShapeUtil::ElementsIn(*shape);
    if (others == 0 ? elements != 0 : elements % others != 0) {
      return absl::InvalidArgumentError(absl::StrCat("reshape of ", shape->ToString(), ": the other sizes (product ",
                                                     others, ") do not divide its ", elements, " elements"));
    }
    std::vector<int64_t> sizes(new_sizes.begin(), new_sizes.end());
    sizes[inferred_dimension] = others == 0 ? 0 : elements / others;
    return Reshape(operand, sizes);
  });
}

XlaOp DynamicReshape(XlaOp operand, absl::Span<const XlaOp> dim_sizes, absl::Span<const int64_t> new_size_bounds,
                     const std::vector<bool>& dims_are_dynamic) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(operand));
    if (!shape->IsArray()) return absl::InvalidArgumentError("dynamic-reshape of " + shape->ToString());
    if (dim_sizes.size() != new_size_bounds.size() || dims_are_dynamic.size() != new_size_bounds.size()) {
      return absl::InvalidArgumentError(absl::StrCat("dynamic-reshape: ", dim_sizes.size(), " sizes, ",
                                                     new_size_bounds.size(), " bounds and ", dims_are_dynamic.size(),
                                                     " dynamic flags; one each per result dimension"));
    }
    // The result is bounded by new_size_bounds; its dimensions flagged dynamic take the size
    // operands' values at run time.
    Shape result;
    result.set_element_type(shape->element_type());
    for (size_t d = 0; d < new_size_bounds.size(); ++d) {
      if (new_size_bounds[d] < 0) {
        return absl::InvalidArgumentError(absl::StrCat("dynamic-reshape: negative bound ", new_size_bounds[d]));
      }
      result.add_dimensions(new_size_bounds[d], dims_are_dynamic[d]);
    }
    // Shape inference checks the sizes (s32 scalars) and the bounds against the operand.
    HloInstructionProto instr;
    *instr.mutable_shape() = result.ToProto();
    std::vector<XlaOp> operands = {operand};
    operands.insert(operands.end(), dim_sizes.begin(), dim_sizes.end());
    return b->AddCheckedInstruction(std::move(instr), HloOpcode::kDynamicReshape, operands);
  });
}

XlaOp Reshape(const Shape& shape, XlaOp operand) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* operand_shape, b->GetShapePtr(operand));
    if (!operand_shape->IsArray() || !shape.IsArray() ||
        operand_shape->element_type() != shape.element_type() ||
        ShapeUtil::ElementsIn(*operand_shape) != ShapeUtil::ElementsIn(shape)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "reshape operation has mismatched element counts or types: from ",
          operand_shape->ToString(), " to ", shape.ToString()));
    }
    return b->AddOpWithShape(HloOpcode::kReshape, shape, {operand});
  });
}

XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> new_sizes) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(operand));
    for (int64_t d : new_sizes) {
      if (d < 0) return absl::InvalidArgumentError(absl::StrCat("reshape: negative size ", d));
    }
    return Reshape(ShapeUtil::MakeShape(shape->element_type(), new_sizes), operand);
  });
}

XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> dimensions,
              absl::Span<const int64_t> new_sizes) {
  bool identity = true;
  for (size_t i = 0; i < dimensions.size(); ++i) identity &= dimensions[i] == static_cast<int64_t>(i);
  return Reshape(identity ? operand : Transpose(operand, dimensions), new_sizes);
}

XlaOp Collapse(XlaOp operand, absl::Span<const int64_t> dimensions) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (dimensions.size() <= 1) return operand;  // nothing to merge, as in XLA
    ASSIGN_OR_RETURN(const Shape shape, b->GetShape(operand));
    for (size_t i = 0; i < dimensions.size(); ++i) {
      if (dimensions[i] < 0 || dimensions[i] >= shape.rank() ||
          (i > 0 && dimensions[i] != dimensions[i - 1] + 1)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "collapse: dimensions {", absl::StrJoin(dimensions, ","),
            "} must be consecutive dimensions of ", shape.ToString()));
      }
    }
    std::vector<int64_t> sizes;
    for (int64_t i = 0; i < dimensions.front(); ++i) sizes.push_back(shape.dimensions(static_cast<int>(i)));
    int64_t merged = 1;
    for (int64_t d : dimensions) merged *= shape.dimensions(static_cast<int>(d));
    sizes.push_back(merged);
    for (int64_t i = dimensions.back() + 1; i < shape.rank(); ++i) sizes.push_back(shape.dimensions(static_cast<int>(i)));
    return Reshape(operand, sizes);
  });
}

XlaOp Transpose(XlaOp operand, absl::Span<const int64_t> permutation) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    for (int64_t d : permutation) instr.add_dimensions(d);
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kTranspose, {operand});
  });
}

XlaOp Rev(XlaOp operand, absl::Span<const int64_t> dimensions) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    for (int64_t d : dimensions) instr.add_dimensions(d);
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kReverse, {operand});
  });
}

XlaOp Slice(XlaOp operand, absl::Span<const int64_t> start_indices,
            absl::Span<const int64_t> limit_indices, absl::Span<const int64_t> strides) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (start_indices.size() != limit_indices.size() || start_indices.size() != strides.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "slice: start, limit and strides must have the same size, got ", start_indices.size(),
          ", ", limit_indices.size(), " and ", strides.size()));
    }
    HloInstructionProto instr;
    for (size_t i = 0; i < start_indices.size(); ++i) {
      auto* d = instr.add_slice_dimensions();
      d->set_start(start_indices[i]);
      d->set_limit(limit_indices[i]);
      d->set_stride(strides[i]);
    }
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kSlice, {operand});
  });
}

XlaOp SliceInDim(XlaOp operand, int64_t start_index, int64_t limit_index, int64_t stride,
                 int64_t dimno) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape shape, b->GetShape(operand));
    if (dimno < 0 || dimno >= shape.rank()) {
      return absl::InvalidArgumentError(absl::StrCat("slice_in_dim: dimension ", dimno,
                                                     " out of range for ", shape.ToString()));
    }
    std::vector<int64_t> starts(shape.rank(), 0), limits = shape.dimensions(), strides(shape.rank(), 1);
    starts[dimno] = start_index;
    limits[dimno] = limit_index;
    strides[dimno] = stride;
    return Slice(operand, starts, limits, strides);
  });
}

XlaOp DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices,
                   absl::Span<const int64_t> slice_sizes) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    for (int64_t s : slice_sizes) instr.add_dynamic_slice_sizes(s);
    std::vector<XlaOp> operands = {operand};
    operands.insert(operands.end(), start_indices.begin(), start_indices.end());
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kDynamicSlice, operands);
  });
}

XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update, absl::Span<const XlaOp> start_indices) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    std::vector<XlaOp> operands = {operand, update};
    operands.insert(operands.end(), start_indices.begin(), start_indices.end());
    return b->AddInferredInstruction(HloInstructionProto(), HloOpcode::kDynamicUpdateSlice, operands);
  });
}

XlaOp ConcatInDim(XlaBuilder* builder, absl::Span<const XlaOp> operands, int64_t dimension) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    instr.add_dimensions(dimension);
    return builder->AddInferredInstruction(std::move(instr), HloOpcode::kConcatenate, operands);
  });
}

XlaOp Pad(XlaOp operand, XlaOp padding_value, const PaddingConfig& padding_config) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    *instr.mutable_padding_config() = padding_config;
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kPad, {operand, padding_value});
  });
}

XlaOp PadInDim(XlaOp operand, XlaOp padding_value, int64_t dimno, int64_t pad_lo, int64_t pad_hi) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(operand));
    if (dimno < 0 || dimno >= shape->rank()) {
      return absl::InvalidArgumentError(absl::StrCat("pad_in_dim: dimension ", dimno,
                                                     " out of range for ", shape->ToString()));
    }
    PaddingConfig config;
    for (int64_t i = 0; i < shape->rank(); ++i) {
      auto* d = config.add_dimensions();
      if (i == dimno) {
        d->set_edge_padding_low(pad_lo);
        d->set_edge_padding_high(pad_hi);
      }
    }
    return Pad(operand, padding_value, config);
  });
}

XlaOp Tuple(XlaBuilder* builder, absl::Span<const XlaOp> elements) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    return builder->AddInferredInstruction(HloInstructionProto(), HloOpcode::kTuple, elements);
  });
}

XlaOp GetTupleElement(XlaOp tuple_data, int64_t index) {
  XlaBuilder* b = tuple_data.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    instr.set_tuple_index(index);
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kGetTupleElement, {tuple_data});
  });
}

XlaOp GetDimensionSize(XlaOp operand, int64_t dimension) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    instr.add_dimensions(dimension);
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kGetDimensionSize, {operand});
  });
}

XlaOp SetDimensionSize(XlaOp operand, XlaOp val, int64_t dimension) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    instr.add_dimensions(dimension);
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kSetDimensionSize, {operand, val});
  });
}

XlaOp RemoveDynamicDimension(XlaOp operand, int64_t dimension) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(operand));
    if (dimension < 0 || dimension >= shape->rank()) {
      return absl::InvalidArgumentError(absl::StrCat("remove_dynamic_dimension: dimension ", dimension,
                                                     " out of range for ", shape->ToString()));
    }
    // Setting the size to the static bound makes the dimension static again (as XLA).
    XlaOp size = ConstantR0<int32_t>(b, static_cast<int32_t>(shape->dimensions(static_cast<int>(dimension))));
    return SetDimensionSize(operand, size, dimension);
  });
}

XlaOp Gather(XlaOp input, XlaOp start_indices, const GatherDimensionNumbers& dimension_numbers,
             absl::Span<const int64_t> slice_sizes, bool indices_are_sorted) {
  XlaBuilder* b = input.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    *instr.mutable_gather_dimension_numbers() = dimension_numbers;
    for (int64_t s : slice_sizes) instr.add_gather_slice_sizes(s);
    if (indices_are_sorted) instr.set_indices_are_sorted(true);
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kGather, {input, start_indices});
  });
}

XlaOp Scatter(XlaOp input, XlaOp scatter_indices, XlaOp updates,
              const XlaComputation& update_computation,
              const ScatterDimensionNumbers& dimension_numbers, bool indices_are_sorted,
              bool unique_indices) {
  return Scatter(absl::Span<const XlaOp>(&input, 1), scatter_indices,
                 absl::Span<const XlaOp>(&updates, 1), update_computation, dimension_numbers,
                 indices_are_sorted, unique_indices);
}

XlaOp Scatter(absl::Span<const XlaOp> inputs, XlaOp scatter_indices,
              absl::Span<const XlaOp> updates, const XlaComputation& update_computation,
              const ScatterDimensionNumbers& dimension_numbers, bool indices_are_sorted,
              bool unique_indices) {
  XlaBuilder* b = scatter_indices.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (inputs.empty() || inputs.size() != updates.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "scatter: needs as many updates as inputs (at least one); got ", inputs.size(),
          " inputs and ", updates.size(), " updates"));
    }
    HloInstructionProto instr;
    *instr.mutable_scatter_dimension_numbers() = dimension_numbers;
    if (indices_are_sorted) instr.set_indices_are_sorted(true);
    if (unique_indices) instr.set_unique_indices(true);
    RETURN_IF_ERROR(b->AddCalledComputation(update_computation, &instr));
    std::vector<XlaOp> operands(inputs.begin(), inputs.end());
    operands.push_back(scatter_indices);
    operands.insert(operands.end(), updates.begin(), updates.end());
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kScatter, operands);
  });
}

XlaOp Sort(absl::Span<const XlaOp> operands, const XlaComputation& comparator, int64_t dimension,
           bool is_stable) {
  XlaBuilder* b = BuilderOf(operands);
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(operands[0]));
    int64_t dim = dimension == -1 ? shape->rank() - 1 : dimension;
    HloInstructionProto instr;
    instr.add_dimensions(dim);
    if (is_stable) instr.set_is_stable(true);
    RETURN_IF_ERROR(b->AddCalledComputation(comparator, &instr));
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kSort, operands);
  });
}

XlaOp TopK(XlaOp operand, int64_t k, bool largest) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    instr.set_k(k);
    if (largest) instr.set_largest(true);
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kTopk, {operand});
  });
}

}  // namespace xla
