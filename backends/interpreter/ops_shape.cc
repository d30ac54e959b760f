// Interpreter handlers for the shape op family: broadcast, reshape, dynamic-reshape,
// transpose, bitcast, reverse, iota, get/set-dimension-size. Slicing, padding and
// concatenation live in ops_shape_indexing.cc, gather/scatter in ops_shape_gather.cc.
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/value_checks.h"
#include "absl/strings/str_join.h"
#include "backends/interpreter/evaluator.h"
#include "backends/interpreter/ops_shape_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace shape_ops {
namespace {

absl::Status CheckSameElementType(const Shape& operand, const Shape& result) {
  if (operand.element_type() != result.element_type()) {
    return absl::InvalidArgumentError(absl::StrCat("operand ", operand.ToString(), " and result ",
                                                   result.ToString(), " differ in element type"));
  }
  return absl::OkStatus();
}

std::string DimsString(absl::Span<const int64_t> dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

// broadcast: operand dimension i becomes result dimension dimensions[i].
absl::StatusOr<Literal> Broadcast(EvalContext&, const HloInstruction& instruction, Operands operands) {
  ASSIGN_OR_RETURN(RowMajor operand, RowMajor::Of(*operands[0]));
  const Shape& out_shape = instruction.shape();
  RETURN_IF_ERROR(CheckSameElementType(operand.shape(), out_shape));
  absl::Span<const int64_t> map = instruction.dimensions();
  const int64_t rank = operand.shape().rank();
  if (static_cast<int64_t>(map.size()) != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("broadcast dimensions ", DimsString(map), " do not match operand rank ", rank));
  }
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(out_shape));
  CopyPlan plan;
  plan.dims = out_shape.dimensions();
  plan.dst_strides = RowMajorStrides(plan.dims);
  plan.src_strides.assign(plan.dims.size(), 0);
  const std::vector<int64_t> src_strides = RowMajorStrides(operand.shape().dimensions());
  std::vector<bool> used(plan.dims.size(), false);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = map[i];
    if (d < 0 || d >= out_shape.rank() || used[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad broadcast dimensions ", DimsString(map), " for result rank ", out_shape.rank()));
    }
    used[d] = true;
    const int64_t n = operand.shape().dimensions(i);
    if (n != out_shape.dimensions(d) && n != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("operand dimension ", i, " (size ", n, ") does not match result dimension ", d));
    }
    plan.src_strides[d] = n == 1 ? 0 : src_strides[i];
  }
  StridedCopy(ElementBytes(out_shape.element_type()), operand.bytes(),
              static_cast<uint8_t*>(result.untyped_data()), plan);
  return result;
}

// Elements in row-major order poured into the result's dimensions.
absl::StatusOr<Literal> RowMajorReshape(const Literal& source, const Shape& out_shape) {
  ASSIGN_OR_RETURN(RowMajor operand, RowMajor::Of(source));
  RETURN_IF_ERROR(CheckSameElementType(operand.shape(), out_shape));
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(out_shape));
  if (result.element_count() != operand.literal().element_count()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot reshape ", operand.shape().ToString(), " to ", out_shape.ToString()));
  }
  if (result.size_bytes() > 0) std::memcpy(result.untyped_data(), operand.bytes(), result.size_bytes());
  return result;
}

absl::StatusOr<Literal> Reshape(EvalContext&, const HloInstruction& instruction, Operands operands) {
  return RowMajorReshape(*operands[0], instruction.shape());
}

// dynamic-reshape(operand, sizes...): the static interpreter holds every value at its
// bound, so only sizes that keep all elements can be represented.
absl::StatusOr<Literal> DynamicReshape(EvalContext&, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArray(*operands[0], "operand"));
  const Shape& out_shape = instruction.shape();
  if (static_cast<int64_t>(operands.size()) != out_shape.rank() + 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("dynamic-reshape needs one size per result dimension, got ", operands.size() - 1));
  }
  for (int64_t i = 0; i < out_shape.rank(); ++i) {
    const Literal& size = *operands[i + 1];
    if (!size.shape().IsArray() || size.element_count() != 1 ||
        !primitive_util::IsIntegralType(size.shape().element_type())) {
      return absl::InvalidArgumentError("dynamic-reshape sizes must be integer scalars");
    }
    const int64_t n = ReadIndex(size, 0);
    RETURN_IF_ERROR(backend::CheckDynamicReshapeSize(i, n, out_shape.dimensions(i), "interpreter"));
  }
  return RowMajorReshape(*operands[0], out_shape);
}

// transpose: result dimension i is operand dimension dimensions[i].
absl::StatusOr<Literal> Transpose(EvalContext&, const HloInstruction& instruction, Operands operands) {
  ASSIGN_OR_RETURN(RowMajor operand, RowMajor::Of(*operands[0]));
  const Shape& out_shape = instruction.shape();
  RETURN_IF_ERROR(CheckSameElementType(operand.shape(), out_shape));
  absl::Span<const int64_t> perm = instruction.dimensions();
  const int64_t rank = operand.shape().rank();
  if (static_cast<int64_t>(perm.size()) != rank || out_shape.rank() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("transpose dimensions ", DimsString(perm), " do not match operand rank ", rank));
  }
  const std::vector<int64_t> src_strides = RowMajorStrides(operand.shape().dimensions());
  CopyPlan plan;
  plan.dims = out_shape.dimensions();
  plan.dst_strides = RowMajorStrides(plan.dims);
  std::vector<bool> used(rank, false);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = perm[i];
    if (d < 0 || d >= rank || used[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("transpose dimensions ", DimsString(perm), " are not a permutation"));
    }
    used[d] = true;
    if (operand.shape().dimensions(d) != out_shape.dimensions(i)) {
      return absl::InvalidArgumentError(
          absl::StrCat("result dimension ", i, " does not match operand dimension ", d));
    }
    plan.src_strides.push_back(src_strides[d]);
  }
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(out_shape));
  StridedCopy(ElementBytes(out_shape.element_type()), operand.bytes(),
              static_cast<uint8_t*>(result.untyped_data()), plan);
  return result;
}

// Both types are stored at their natural width, so their bytes can be reinterpreted.
bool ReinterpretableType(PrimitiveType type) {
  return type != PRED && !primitive_util::IsSubByteType(type) &&
         primitive_util::BitWidth(type) == 8 * primitive_util::ByteWidth(type);
}

Shape WithDefaultLayout(const Shape& shape) {
  Shape out = shape;
  if (!out.has_layout()) out.set_layout(ShapeUtil::MakeDescendingLayout(out.rank()));
  return out;
}

// bitcast reinterprets the buffer: elements are taken in the operand's physical order
// (its declared layout) and placed in the result's physical order.
absl::StatusOr<Literal> Bitcast(EvalContext&, const HloInstruction& instruction, Operands operands) {
  const Literal& operand = *operands[0];
  RETURN_IF_ERROR(CheckArray(operand, "operand"));
  const Shape& out_shape = instruction.shape();
  if (!out_shape.IsArray()) return absl::InvalidArgumentError("bitcast result must be an array");
  const PrimitiveType from = operand.shape().element_type();
  const PrimitiveType to = out_shape.element_type();
  if (from != to && (!ReinterpretableType(from) || !ReinterpretableType(to))) {
    return absl::UnimplementedError(
        absl::StrCat("bitcast between ", std::string(primitive_util::LowercasePrimitiveTypeName(from)),
                     " and ", std::string(primitive_util::LowercasePrimitiveTypeName(to))));
  }
  const Shape source_shape = WithDefaultLayout(instruction.operand(0)->shape());
  if (source_shape.rank() != operand.shape().rank()) {
    return absl::InvalidArgumentError("operand value does not match its declared shape");
  }
  const Literal* physical = &operand;
  Literal relayouted;
  const bool same_layout = operand.shape().has_layout() ? operand.shape().layout().minor_to_major() ==
                                                              source_shape.layout().minor_to_major()
                                                        : IsRowMajor(source_shape);
  if (!same_layout) {
    ASSIGN_OR_RETURN(relayouted, operand.Relayout(source_shape.layout()));
    physical = &relayouted;
  }
  Shape target = WithDefaultLayout(out_shape);
  for (int64_t i = 0; i < target.rank(); ++i) {
    if (target.is_unbounded_dynamic_dimension(i)) {
      return absl::UnimplementedError("bitcast to an unbounded dynamic shape");
    }
  }
  const int64_t bytes = ShapeUtil::ElementsIn(target) * ElementBytes(to);
  if (bytes != physical->size_bytes()) {
    return absl::InvalidArgumentError(absl::StrCat("bitcast from ", operand.shape().ToString(), " to ",
                                                   out_shape.ToString(), " changes the byte size"));
  }
  return Literal::CreateFromBuffer(target, physical->untyped_data(), bytes);
}

absl::StatusOr<Literal> Reverse(EvalContext&, const HloInstruction& instruction, Operands operands) {
  ASSIGN_OR_RETURN(RowMajor operand, RowMajor::Of(*operands[0]));
  const Shape& shape = operand.shape();
  RETURN_IF_ERROR(CheckSameElementType(shape, instruction.shape()));
  CopyPlan plan;
  plan.dims = shape.dimensions();
  plan.dst_strides = RowMajorStrides(plan.dims);
  plan.src_strides = plan.dst_strides;
  for (int64_t d : instruction.dimensions()) {
    if (d < 0 || d >= shape.rank()) {
      return absl::InvalidArgumentError(absl::StrCat("reverse dimension ", d, " out of range"));
    }
    if (plan.src_strides[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("reverse dimension ", d, " repeated"));
    }
    if (shape.dimensions(d) > 0) plan.src_base += (shape.dimensions(d) - 1) * plan.src_strides[d];
    plan.src_strides[d] = -plan.src_strides[d];
  }
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(instruction.shape()));
  if (result.element_count() != operand.literal().element_count()) {
    return absl::InvalidArgumentError("reverse result shape differs from the operand's");
  }
  StridedCopy(ElementBytes(shape.element_type()), operand.bytes(),
              static_cast<uint8_t*>(result.untyped_data()), plan);
  return result;
}

// iota: element = its index along iota_dimension, converted to the element type.
absl::StatusOr<Literal> Iota(EvalContext&, const HloInstruction& instruction, Operands) {
  const Shape& shape = instruction.shape();
  if (!shape.IsArray() || instruction.dimensions().size() != 1) {
    return absl::InvalidArgumentError("iota needs an array shape and one iota_dimension");
  }
  const int64_t dim = instruction.dimensions(0);
  if (dim < 0 || dim >= shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("iota_dimension ", dim, " out of range"));
  }
  const PrimitiveType type = shape.element_type();
  const int64_t n = shape.dimensions(dim);
  ASSIGN_OR_RETURN(Literal line, Literal::Create(ShapeUtil::MakeShape(type, {n})));
  for (int64_t i = 0; i < n; ++i) {
    if (type == PRED) {
      line.SetFromInt64(i, i != 0 ? 1 : 0);
    } else if (primitive_util::IsComplexType(type)) {
      line.SetFromComplex(i, {static_cast<double>(i), 0.0});
    } else if (primitive_util::IsFloatingPointType(type)) {
      line.SetFromDouble(i, static_cast<double>(i));
    } else {
      line.SetFromInt64(i, i);
    }
  }
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(shape));
  CopyPlan plan;
  plan.dims = shape.dimensions();
  plan.dst_strides = RowMajorStrides(plan.dims);
  plan.src_strides.assign(plan.dims.size(), 0);
  plan.src_strides[dim] = 1;
  StridedCopy(ElementBytes(type), static_cast<const uint8_t*>(line.untyped_data()),
              static_cast<uint8_t*>(result.untyped_data()), plan);
  return result;
}

absl::StatusOr<Literal> GetDimensionSize(EvalContext&, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArray(*operands[0], "operand"));
  if (instruction.dimensions().size() != 1) return absl::InvalidArgumentError("needs one dimension");
  const int64_t dim = instruction.dimensions(0);
  const Shape& shape = operands[0]->shape();
  if (dim < 0 || dim >= shape.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("dimension ", dim, " out of range for ", shape.ToString()));
  }
  const Shape& out_shape = instruction.shape();
  if (!out_shape.IsArray() || out_shape.rank() != 0 ||
      !primitive_util::IsIntegralType(out_shape.element_type())) {
    return absl::InvalidArgumentError("get-dimension-size result must be an integer scalar");
  }
  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(out_shape));
  result.SetFromInt64(0, shape.dimensions(dim));
  return result;
}

// set-dimension-size: the values are unchanged; the static interpreter keeps the bound.
absl::StatusOr<Literal> SetDimensionSize(EvalContext&, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArray(*operands[0], "operand"));
  const Literal& size = *operands[1];
  if (!size.shape().IsArray() || size.element_count() != 1 ||
      !primitive_util::IsIntegralType(size.shape().element_type())) {
    return absl::InvalidArgumentError("set-dimension-size size must be an integer scalar");
  }
  if (instruction.dimensions().size() != 1 || instruction.dimensions(0) < 0 ||
      instruction.dimensions(0) >= operands[0]->shape().rank()) {
    return absl::InvalidArgumentError("set-dimension-size needs one dimension of the operand");
  }
  return operands[0]->Clone();
}

}  // namespace
}  // namespace shape_ops

void RegisterShapeHandlers(HandlerTable* table) {
  using namespace shape_ops;  // NOLINT: the family's own handlers
  table->Register(HloOpcode::kBroadcast, WithMinOperands(1, Broadcast));
  table->Register(HloOpcode::kReshape, WithMinOperands(1, Reshape));
  table->Register(HloOpcode::kDynamicReshape, WithMinOperands(1, DynamicReshape));
  table->Register(HloOpcode::kTranspose, WithMinOperands(1, Transpose));
  table->Register(HloOpcode::kBitcast, WithMinOperands(1, Bitcast));
  table->Register(HloOpcode::kReverse, WithMinOperands(1, Reverse));
  table->Register(HloOpcode::kIota, Iota);
  table->Register(HloOpcode::kGetDimensionSize, WithMinOperands(1, GetDimensionSize));
  table->Register(HloOpcode::kSetDimensionSize, WithMinOperands(2, SetDimensionSize));
  RegisterShapeIndexingHandlers(table);
  RegisterGatherScatterHandlers(table);
}

}  // namespace interpreter
}  // namespace xla
