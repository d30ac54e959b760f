// Shape ops that select or place windows: slice, dynamic-slice, dynamic-update-slice,
// pad, concatenate.
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/interpreter/ops_shape_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace shape_ops {
namespace {

absl::Status CheckElementType(const Shape& operand, const Shape& result) {
  if (operand.element_type() != result.element_type()) {
    return absl::InvalidArgumentError(absl::StrCat("operand ", operand.ToString(), " and result ",
                                                   result.ToString(), " differ in element type"));
  }
  return absl::OkStatus();
}

uint8_t* MutableBytes(Literal& literal) { return static_cast<uint8_t*>(literal.untyped_data()); }

absl::StatusOr<Literal> Slice(EvalContext&, const HloInstruction& instruction, Operands operands) {
  ASSIGN_OR_RETURN(RowMajor operand, RowMajor::Of(*operands[0]));
  const Shape& in_shape = operand.shape();
  const Shape& out_shape = instruction.shape();
  RETURN_IF_ERROR(CheckElementType(in_shape, out_shape));
  const auto& slices = instruction.attrs().slice_dimensions();
  const int64_t rank = in_shape.rank();
  if (slices.size() != rank || out_shape.rank() != rank) {
    return absl::InvalidArgumentError("slice needs one start:limit:stride per operand dimension");
  }
  const std::vector<int64_t> strides = RowMajorStrides(in_shape.dimensions());
  CopyPlan plan;
  plan.dims = out_shape.dimensions();
  plan.dst_strides = RowMajorStrides(plan.dims);
  for (int64_t d = 0; d < rank; ++d) {
    const auto& s = slices[static_cast<int>(d)];
    const int64_t n = in_shape.dimensions(d);
    if (s.start() < 0 || s.limit() < s.start() || s.limit() > n || s.stride() <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("slice [", s.start(), ":", s.limit(), ":", s.stride(),
                                                     "] is invalid for dimension ", d, " of size ", n));
    }
    const int64_t count = s.limit() == s.start() ? 0 : (s.limit() - s.start() - 1) / s.stride() + 1;
    if (count != out_shape.dimensions(d)) {
      return absl::InvalidArgumentError(absl::StrCat("slice of dimension ", d, " has ", count,
                                                     " elements but the result has ",
                                                     out_shape.dimensions(d)));
    }
    if (count > 0) plan.src_base += s.start() * strides[d];
    plan.src_strides.push_back(s.stride() * strides[d]);
  }
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(out_shape));
  StridedCopy(ElementBytes(out_shape.element_type()), operand.bytes(), MutableBytes(result), plan);
  return result;
}

// Start indices of dynamic-slice/dynamic-update-slice: one integer scalar per dimension
// (or, in the old form, a single rank-1 vector), each clamped so that a window of
// `sizes` fits in `dims`.
absl::StatusOr<std::vector<int64_t>> ClampedStarts(Operands index_operands, absl::Span<const int64_t> dims,
                                                   absl::Span<const int64_t> sizes) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> starts;
  for (const Literal* index : index_operands) {
    if (!index->shape().IsArray() || !primitive_util::IsIntegralType(index->shape().element_type())) {
      return absl::InvalidArgumentError(
          absl::StrCat("start indices must be integers, got ", index->shape().ToString()));
    }
  }
  if (index_operands.size() == 1 && index_operands[0]->shape().rank() == 1 && rank != 0) {
    const Literal& vector = *index_operands[0];
    if (vector.element_count() != rank) {
      return absl::InvalidArgumentError("start index vector length differs from the operand rank");
    }
    for (int64_t i = 0; i < rank; ++i) starts.push_back(ReadIndex(vector, i));
  } else {
    if (static_cast<int64_t>(index_operands.size()) != rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected ", rank, " start indices, got ", index_operands.size()));
    }
    for (const Literal* index : index_operands) {
      if (index->shape().rank() != 0) {
        return absl::InvalidArgumentError("start indices must be scalars");
      }
      starts.push_back(ReadIndex(*index, 0));
    }
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] < 0 || sizes[d] > dims[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("window size ", sizes[d], " of dimension ", d, " exceeds its size ", dims[d]));
    }
    starts[d] = std::min(std::max<int64_t>(starts[d], 0), dims[d] - sizes[d]);
  }
  return starts;
}

absl::StatusOr<Literal> DynamicSlice(EvalContext&, const HloInstruction& instruction, Operands operands) {
  ASSIGN_OR_RETURN(RowMajor operand, RowMajor::Of(*operands[0]));
  const Shape& in_shape = operand.shape();
  const Shape& out_shape = instruction.shape();
  RETURN_IF_ERROR(CheckElementType(in_shape, out_shape));
  if (out_shape.rank() != in_shape.rank()) {
    return absl::InvalidArgumentError("dynamic-slice result rank differs from the operand's");
  }
  const auto& attr_sizes = instruction.attrs().dynamic_slice_sizes();
  if (!attr_sizes.empty()) {
    if (attr_sizes.size() != out_shape.rank()) {
      return absl::InvalidArgumentError("dynamic_slice_sizes does not match the rank");
    }
    for (int64_t d = 0; d < out_shape.rank(); ++d) {
      if (attr_sizes[static_cast<int>(d)] != out_shape.dimensions(d)) {
        return absl::InvalidArgumentError("dynamic_slice_sizes differs from the result shape");
      }
    }
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                   ClampedStarts(operands.subspan(1), in_shape.dimensions(), out_shape.dimensions()));
  CopyPlan plan;
  plan.dims = out_shape.dimensions();
  plan.dst_strides = RowMajorStrides(plan.dims);
  plan.src_strides = RowMajorStrides(in_shape.dimensions());
  for (size_t d = 0; d < starts.size(); ++d) plan.src_base += starts[d] * plan.src_strides[d];
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(out_shape));
  StridedCopy(ElementBytes(out_shape.element_type()), operand.bytes(), MutableBytes(result), plan);
  return result;
}

absl::StatusOr<Literal> DynamicUpdateSlice(EvalContext&, const HloInstruction& instruction,
                                           Operands operands) {
  if (operands.size() < 2) return absl::InvalidArgumentError("needs an operand and an update");
  ASSIGN_OR_RETURN(RowMajor operand, RowMajor::Of(*operands[0]));
  ASSIGN_OR_RETURN(RowMajor update, RowMajor::Of(*operands[1]));
  const Shape& shape = operand.shape();
  RETURN_IF_ERROR(CheckElementType(shape, instruction.shape()));
  RETURN_IF_ERROR(CheckElementType(update.shape(), instruction.shape()));
  if (update.shape().rank() != shape.rank() || !ShapeUtil::SameDimensions(shape, instruction.shape())) {
    return absl::InvalidArgumentError("update and result must have the operand's rank and shape");
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                   ClampedStarts(operands.subspan(2), shape.dimensions(), update.shape().dimensions()));
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(instruction.shape()));
  if (result.size_bytes() > 0) std::memcpy(result.untyped_data(), operand.bytes(), result.size_bytes());
  CopyPlan plan;
  plan.dims = update.shape().dimensions();
  plan.src_strides = RowMajorStrides(plan.dims);
  plan.dst_strides = RowMajorStrides(shape.dimensions());
  for (size_t d = 0; d < starts.size(); ++d) plan.dst_base += starts[d] * plan.dst_strides[d];
  StridedCopy(ElementBytes(shape.element_type()), update.bytes(), MutableBytes(result), plan);
  return result;
}

// pad: operand element i of a dimension lands at low + i * (interior + 1); positions
// outside the result (negative padding) are dropped.
absl::StatusOr<Literal> Pad(EvalContext&, const HloInstruction& instruction, Operands operands) {
  ASSIGN_OR_RETURN(RowMajor operand, RowMajor::Of(*operands[0]));
  const Literal& pad_value = *operands[1];
  RETURN_IF_ERROR(CheckArray(pad_value, "padding value"));
  const Shape& in_shape = operand.shape();
  const Shape& out_shape = instruction.shape();
  RETURN_IF_ERROR(CheckElementType(in_shape, out_shape));
  RETURN_IF_ERROR(CheckElementType(pad_value.shape(), out_shape));
  if (pad_value.element_count() != 1) return absl::InvalidArgumentError("padding value must be a scalar");
  const auto& config = instruction.attrs().padding_config().dimensions();
  const int64_t rank = in_shape.rank();
  if (config.size() != rank || out_shape.rank() != rank) {
    return absl::InvalidArgumentError("padding config needs one entry per operand dimension");
  }
  const std::vector<int64_t> src_strides = RowMajorStrides(in_shape.dimensions());
  const std::vector<int64_t> dst_strides = RowMajorStrides(out_shape.dimensions());
  CopyPlan plan;
  for (int64_t d = 0; d < rank; ++d) {
    const auto& p = config[static_cast<int>(d)];
    const int64_t n = in_shape.dimensions(d);
    const int64_t interior = p.interior_padding();
    if (interior < 0) return absl::InvalidArgumentError("interior padding must not be negative");
    // Bounded first so that the padded size below cannot overflow.
    constexpr int64_t kLimit = int64_t{1} << 60;
    if (p.edge_padding_low() < -kLimit || p.edge_padding_low() > kLimit || p.edge_padding_high() < -kLimit ||
        p.edge_padding_high() > kLimit || interior > kLimit / std::max<int64_t>(n, 1)) {
      return absl::InvalidArgumentError("padding amounts are too large");
    }
    const int64_t expected =
        p.edge_padding_low() + p.edge_padding_high() + n + std::max<int64_t>(n - 1, 0) * interior;
    if (expected != out_shape.dimensions(d)) {
      return absl::InvalidArgumentError(absl::StrCat("padded dimension ", d, " has size ", expected,
                                                     " but the result has ", out_shape.dimensions(d)));
    }
    const int64_t step = interior + 1;
    const int64_t low = p.edge_padding_low();
    const int64_t out_n = out_shape.dimensions(d);
    // First operand index with low + i * step >= 0, last with low + i * step < out_n.
    const int64_t first = low >= 0 ? 0 : (-low + step - 1) / step;
    const int64_t last = out_n - 1 - low < 0 ? -1 : std::min(n - 1, (out_n - 1 - low) / step);
    const int64_t count = std::max<int64_t>(last - first + 1, 0);
    plan.dims.push_back(count);
    plan.src_strides.push_back(src_strides[d]);
    plan.dst_strides.push_back(step * dst_strides[d]);
    if (count > 0) {
      plan.src_base += first * src_strides[d];
      plan.dst_base += (low + first * step) * dst_strides[d];
    }
  }
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(out_shape));
  const int width = ElementBytes(out_shape.element_type());
  FillElements(width, static_cast<const uint8_t*>(pad_value.untyped_data()), MutableBytes(result),
               result.element_count());
  StridedCopy(width, operand.bytes(), MutableBytes(result), plan);
  return result;
}

absl::StatusOr<Literal> Concatenate(EvalContext&, const HloInstruction& instruction, Operands operands) {
  const Shape& out_shape = instruction.shape();
  if (instruction.dimensions().size() != 1) {
    return absl::InvalidArgumentError("concatenate needs one dimension");
  }
  const int64_t dim = instruction.dimensions(0);
  if (!out_shape.IsArray() || dim < 0 || dim >= out_shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("concatenate dimension ", dim, " out of range"));
  }
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(out_shape));
  const std::vector<int64_t> dst_strides = RowMajorStrides(out_shape.dimensions());
  const int width = ElementBytes(out_shape.element_type());
  int64_t offset = 0;
  for (const Literal* piece : operands) {
    ASSIGN_OR_RETURN(RowMajor operand, RowMajor::Of(*piece));
    const Shape& shape = operand.shape();
    RETURN_IF_ERROR(CheckElementType(shape, out_shape));
    if (shape.rank() != out_shape.rank()) {
      return absl::InvalidArgumentError("concatenate operands must have the result's rank");
    }
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (d != dim && shape.dimensions(d) != out_shape.dimensions(d)) {
        return absl::InvalidArgumentError(
            absl::StrCat("operand ", shape.ToString(), " does not match result ", out_shape.ToString()));
      }
    }
    if (offset + shape.dimensions(dim) > out_shape.dimensions(dim)) {
      return absl::InvalidArgumentError("concatenated operands exceed the result dimension");
    }
    CopyPlan plan;
    plan.dims = shape.dimensions();
    plan.src_strides = RowMajorStrides(plan.dims);
    plan.dst_strides = dst_strides;
    plan.dst_base = offset * dst_strides[dim];
    StridedCopy(width, operand.bytes(), MutableBytes(result), plan);
    offset += shape.dimensions(dim);
  }
  if (offset != out_shape.dimensions(dim)) {
    return absl::InvalidArgumentError("concatenated operands do not fill the result dimension");
  }
  return result;
}

}  // namespace

void RegisterShapeIndexingHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kSlice, WithMinOperands(1, Slice));
  table->Register(HloOpcode::kDynamicSlice, WithMinOperands(1, DynamicSlice));
  table->Register(HloOpcode::kDynamicUpdateSlice, WithMinOperands(2, DynamicUpdateSlice));
  table->Register(HloOpcode::kPad, WithMinOperands(2, Pad));
  table->Register(HloOpcode::kConcatenate, WithMinOperands(1, Concatenate));
}

}  // namespace shape_ops
}  // namespace interpreter
}  // namespace xla
