// Shape inference for ops that move data without computing on it: broadcast, reshape,
// transpose, slices, concatenate, pad, reverse, iota, tuples, bitcast and the dynamic
// dimension-size ops. (Gather and scatter live in shape_inference_gather.cc.)

#include <limits>

#include "hlo/primitive_util.h"
#include "hlo/shape_inference_internal.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace shape_inference_internal {
namespace {

// Dims of `shape`'s layout have tiles (then byte sizes cannot be compared densely).
bool HasTiles(const Shape& shape) {
  return shape.has_layout() && !shape.layout().tiles().empty();
}

absl::StatusOr<Shape> CheckBroadcast(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  const Shape& operand = ctx.operand(0);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  // HLO broadcast maps operand dim i to output dim dimensions[i]; the output sizes of the
  // other dims exist only in the declared shape.
  ASSIGN_OR_RETURN(const Shape* out, RequireDeclared(ctx));
  RETURN_IF_ERROR(ExpectArray(ctx, *out, "the result"));
  if (out->element_type() != operand.element_type()) {
    return Error(ctx, "the result ", ShapeStr(*out), " must have the operand's element type ",
                 TypeStr(operand.element_type()));
  }
  std::vector<int64_t> dims = ToVector(ctx.attrs.dimensions());
  if (static_cast<int64_t>(dims.size()) != operand.rank()) {
    return Error(ctx, "dimensions ", JoinInts(dims), " must have one entry per operand dimension (",
                 operand.rank(), ")");
  }
  if (!AllUnique(dims)) return Error(ctx, "dimensions ", JoinInts(dims), " repeat a dimension");
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (dims[i] < 0 || dims[i] >= out->rank()) {
      return Error(ctx, "dimension ", dims[i], " is out of range for the result ", ShapeStr(*out));
    }
    if (!DimsAgree(operand.dimensions(i), out->dimensions(dims[i]))) {
      return Error(ctx, "operand dimension ", i, " (size ", operand.dimensions(i),
                   ") must equal result dimension ", dims[i], " (size ",
                   out->dimensions(dims[i]), "); operand ", ShapeStr(operand), ", result ",
                   ShapeStr(*out));
    }
  }
  return *out;
}

absl::StatusOr<Shape> CheckReshape(const OpContext& ctx) {
  const Shape& operand = ctx.operand(0);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  ASSIGN_OR_RETURN(const Shape* out, RequireDeclared(ctx));
  RETURN_IF_ERROR(ExpectArray(ctx, *out, "the result"));
  if (out->element_type() != operand.element_type()) {
    return Error(ctx, "the result ", ShapeStr(*out), " must have the operand's element type ",
                 TypeStr(operand.element_type()));
  }
  bool unbounded = false;
  for (int64_t i = 0; i < operand.rank(); ++i) unbounded |= operand.is_unbounded_dynamic_dimension(i);
  for (int64_t i = 0; i < out->rank(); ++i) unbounded |= out->is_unbounded_dynamic_dimension(i);
  if (!unbounded && ShapeUtil::ElementsIn(operand) != ShapeUtil::ElementsIn(*out)) {
    return Error(ctx, "mismatched element counts: from ", ShapeUtil::ElementsIn(operand), " (",
                 ShapeStr(operand), ") to ", ShapeUtil::ElementsIn(*out), " (", ShapeStr(*out),
                 ")");
  }
  return *out;
}

absl::StatusOr<Shape> InferTranspose(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  const Shape& operand = ctx.operand(0);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  std::vector<int64_t> perm = ToVector(ctx.attrs.dimensions());
  if (!IsPermutation(perm, operand.rank())) {
    return Error(ctx, "dimensions ", JoinInts(perm), " are not a permutation of the operand "
                 "dimensions of ", ShapeStr(operand));
  }
  std::vector<int64_t> dims(perm.size());
  std::vector<bool> dyn(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    dims[i] = operand.dimensions(perm[i]);
    dyn[i] = operand.is_dynamic_dimension(perm[i]);
  }
  return MakeArray(operand.element_type(), dims, dyn);
}

absl::StatusOr<Shape> InferSlice(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  const Shape& operand = ctx.operand(0);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  const auto& sd = ctx.attrs.slice_dimensions();
  if (sd.size() != operand.rank()) {
    return Error(ctx, "has ", sd.size(), " slice ranges for the operand ", ShapeStr(operand),
                 " of rank ", operand.rank());
  }
  std::vector<int64_t> dims;
  std::vector<bool> dyn;
  for (int i = 0; i < sd.size(); ++i) {
    const auto& r = sd[i];
    if (r.start() < 0) return Error(ctx, "negative start index ", r.start(), " in dimension ", i);
    if (r.stride() <= 0) return Error(ctx, "non-positive stride ", r.stride(), " in dimension ", i);
    if (!operand.is_unbounded_dynamic_dimension(i) && r.limit() > operand.dimensions(i)) {
      return Error(ctx, "limit ", r.limit(), " exceeds the size ", operand.dimensions(i),
                   " of dimension ", i, " of ", ShapeStr(operand));
    }
    if (r.start() > r.limit()) {
      return Error(ctx, "start ", r.start(), " is greater than limit ", r.limit(),
                   " in dimension ", i);
    }
    // ceil((limit - start) / stride) without overflow for huge strides.
    const int64_t extent = r.limit() - r.start();
    int64_t size = extent / r.stride() + (extent % r.stride() != 0 ? 1 : 0);
    dims.push_back(size);
    // Slicing a single element out of a dynamic dimension makes it static.
    dyn.push_back(size != 1 && operand.is_dynamic_dimension(i));
  }
  return MakeArray(operand.element_type(), dims, dyn);
}

// Start indices of dynamic-(update-)slice: N integral scalars of one type, or (the legacy
// form) one rank-1 integral array of N elements.
absl::Status CheckStartIndices(const OpContext& ctx, int64_t first, int64_t rank) {
  int64_t count = ctx.operand_count() - first;
  if (count == 1 && ctx.operand(first).IsArray() && ctx.operand(first).rank() == 1) {
    const Shape& idx = ctx.operand(first);
    if (!IsIntegral(idx.element_type())) {
      return Error(ctx, "start indices must be integral, got ", ShapeStr(idx));
    }
    if (idx.dimensions(0) != rank) {
      return Error(ctx, "start indices ", ShapeStr(idx), " must have one element per operand "
                   "dimension (", rank, ")");
    }
    return absl::OkStatus();
  }
  if (count != rank) {
    return Error(ctx, "expects ", rank, " start indices (the operand rank), got ", count);
  }
  for (int64_t i = first; i < ctx.operand_count(); ++i) {
    const Shape& idx = ctx.operand(i);
    if (!idx.IsArray() || idx.rank() != 0 || !IsIntegral(idx.element_type())) {
      return Error(ctx, "start index ", i - first, " must be an integral scalar, got ",
                   ShapeStr(idx));
    }
    if (idx.element_type() != ctx.operand(first).element_type()) {
      return Error(ctx, "start indices must all have the same type, got ",
                   ShapeStr(ctx.operand(first)), " and ", ShapeStr(idx));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferDynamicSlice(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectMinOperandCount(ctx, 1));
  const Shape& operand = ctx.operand(0);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  RETURN_IF_ERROR(CheckStartIndices(ctx, 1, operand.rank()));
  std::vector<int64_t> sizes = ToVector(ctx.attrs.dynamic_slice_sizes());
  if (static_cast<int64_t>(sizes.size()) != operand.rank()) {
    return Error(ctx, "dynamic_slice_sizes ", JoinInts(sizes), " must have one entry per "
                 "dimension of ", ShapeStr(operand));
  }
  std::vector<bool> dyn(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) return Error(ctx, "negative slice size ", sizes[i]);
    if (!operand.is_unbounded_dynamic_dimension(i) && sizes[i] > operand.dimensions(i)) {
      return Error(ctx, "slice size ", sizes[i], " exceeds dimension ", i, " of ",
                   ShapeStr(operand));
    }
    dyn[i] = sizes[i] == operand.dimensions(i) && operand.is_dynamic_dimension(i);
  }
  return MakeArray(operand.element_type(), sizes, dyn);
}

absl::StatusOr<Shape> InferDynamicUpdateSlice(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectMinOperandCount(ctx, 2));
  const Shape& operand = ctx.operand(0);
  const Shape& update = ctx.operand(1);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  RETURN_IF_ERROR(ExpectArray(ctx, update, "the update"));
  RETURN_IF_ERROR(CheckStartIndices(ctx, 2, operand.rank()));
  if (update.rank() != operand.rank()) {
    return Error(ctx, "update ", ShapeStr(update), " must have the rank of the operand ",
                 ShapeStr(operand));
  }
  if (update.element_type() != operand.element_type()) {
    return Error(ctx, "update ", ShapeStr(update), " must have the element type of the operand ",
                 ShapeStr(operand));
  }
  Shape result = operand;
  result.clear_layout();
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (!operand.is_unbounded_dynamic_dimension(i) && !update.is_unbounded_dynamic_dimension(i) &&
        update.dimensions(i) > operand.dimensions(i)) {
      return Error(ctx, "update ", ShapeStr(update), " is larger than the operand ",
                   ShapeStr(operand), " in dimension ", i);
    }
    if (update.is_dynamic_dimension(i) && update.dimensions(i) == operand.dimensions(i)) {
      result.set_dynamic_dimension(i, true);
    }
  }
  return result;
}

absl::StatusOr<Shape> InferConcatenate(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectMinOperandCount(ctx, 1));
  if (ctx.attrs.dimensions_size() != 1) {
    return Error(ctx, "expects exactly one dimension, got ", ctx.attrs.dimensions_size());
  }
  const int64_t dim = ctx.attrs.dimensions(0);
  const Shape& first = ctx.operand(0);
  for (int64_t i = 0; i < ctx.operand_count(); ++i) {
    RETURN_IF_ERROR(ExpectArray(ctx, ctx.operand(i), absl::StrCat("operand ", i)));
  }
  if (dim < 0 || dim >= first.rank()) {
    return Error(ctx, "dimension ", dim, " is out of range for ", ShapeStr(first));
  }
  std::vector<int64_t> dims(first.dimensions().begin(), first.dimensions().end());
  std::vector<bool> dyn(first.rank());
  bool unbounded = false;
  for (int64_t i = 0; i < ctx.operand_count(); ++i) {
    const Shape& s = ctx.operand(i);
    if (s.rank() != first.rank()) {
      return Error(ctx, "cannot concatenate arrays of different ranks: ", ShapeStr(first), " vs ",
                   ShapeStr(s));
    }
    if (s.element_type() != first.element_type()) {
      return Error(ctx, "cannot concatenate arrays of different element types: ",
                   ShapeStr(first), " vs ", ShapeStr(s));
    }
    for (int64_t d = 0; d < s.rank(); ++d) {
      dyn[d] = dyn[d] || s.is_dynamic_dimension(d);
      if (d == dim) {
        if (s.is_unbounded_dynamic_dimension(d)) unbounded = true;
        if (i > 0) dims[d] += s.dimensions(d);
        continue;
      }
      if (!DimsAgree(s.dimensions(d), first.dimensions(d))) {
        return Error(ctx, "operands differ in dimension ", d, " which is not the concatenated "
                     "dimension: ", ShapeStr(first), " vs ", ShapeStr(s));
      }
    }
  }
  if (unbounded) dims[dim] = Shape::kUnboundedSize;
  return MakeArray(first.element_type(), dims, dyn);
}

absl::StatusOr<Shape> InferPad(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 2));
  const Shape& operand = ctx.operand(0);
  const Shape& value = ctx.operand(1);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  RETURN_IF_ERROR(ExpectScalar(ctx, value, "the padding value"));
  if (value.element_type() != operand.element_type()) {
    return Error(ctx, "padding value ", ShapeStr(value), " must have the operand's element type ",
                 TypeStr(operand.element_type()));
  }
  const PaddingConfig& config = ctx.attrs.padding_config();
  if (config.dimensions_size() != operand.rank()) {
    return Error(ctx, "padding config has ", config.dimensions_size(),
                 " dimensions but the operand ", ShapeStr(operand), " has rank ", operand.rank());
  }
  std::vector<int64_t> dims(operand.rank());
  std::vector<bool> dyn(operand.rank());
  for (int i = 0; i < operand.rank(); ++i) {
    const auto& p = config.dimensions(i);
    if (p.interior_padding() < 0) {
      return Error(ctx, "negative interior padding ", p.interior_padding(), " in dimension ", i);
    }
    dyn[i] = operand.is_dynamic_dimension(i);
    if (operand.is_unbounded_dynamic_dimension(i)) {
      dims[i] = Shape::kUnboundedSize;
      continue;
    }
    int64_t n = operand.dimensions(i);
    dims[i] = n + p.edge_padding_low() + p.edge_padding_high() +
              std::max<int64_t>(n - 1, 0) * p.interior_padding();
    if (dims[i] < 0) {
      return Error(ctx, "padding makes dimension ", i, " negative (", dims[i], ")");
    }
  }
  return MakeArray(operand.element_type(), dims, dyn);
}

absl::StatusOr<Shape> InferReverse(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  const Shape& operand = ctx.operand(0);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  std::vector<int64_t> dims = ToVector(ctx.attrs.dimensions());
  if (!AllUnique(dims)) return Error(ctx, "dimensions ", JoinInts(dims), " repeat a dimension");
  if (!AllInRange(dims, operand.rank())) {
    return Error(ctx, "dimensions ", JoinInts(dims), " are out of range for ", ShapeStr(operand));
  }
  Shape result = operand;
  result.clear_layout();
  return result;
}

absl::StatusOr<Shape> CheckIota(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 0));
  ASSIGN_OR_RETURN(const Shape* out, RequireDeclared(ctx));
  RETURN_IF_ERROR(ExpectArray(ctx, *out, "the result"));
  if (ctx.attrs.dimensions_size() != 1) {
    return Error(ctx, "expects one iota_dimension, got ", ctx.attrs.dimensions_size());
  }
  int64_t dim = ctx.attrs.dimensions(0);
  if (dim < 0 || dim >= out->rank()) {
    return Error(ctx, "iota_dimension ", dim, " is out of range for ", ShapeStr(*out));
  }
  if (out->element_type() == PRED) return Error(ctx, "iota cannot produce pred values");
  return *out;
}

absl::StatusOr<Shape> InferGetTupleElement(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  const Shape& operand = ctx.operand(0);
  if (!operand.IsTuple()) {
    return Error(ctx, "the operand must be a tuple, got ", ShapeStr(operand));
  }
  int64_t index = ctx.attrs.tuple_index();
  if (index < 0 || index >= operand.tuple_shapes_size()) {
    return Error(ctx, "tuple index ", index, " is out of range for ", ShapeStr(operand));
  }
  return operand.tuple_shapes(index);
}

absl::StatusOr<Shape> InferTuple(const OpContext& ctx) {
  std::vector<Shape> elements;
  for (const Shape* s : ctx.operands) elements.push_back(*s);
  return Shape::MakeTuple(std::move(elements));
}

absl::StatusOr<Shape> CheckBitcast(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  ASSIGN_OR_RETURN(const Shape* out, RequireDeclared(ctx));
  const Shape& operand = ctx.operand(0);
  if (operand.IsArray() && out->IsArray() && !operand.is_dynamic() && !out->is_dynamic() &&
      !HasTiles(operand) && !HasTiles(*out) &&
      !primitive_util::IsSubByteType(operand.element_type()) &&
      !primitive_util::IsSubByteType(out->element_type()) &&
      ShapeUtil::ByteSizeOf(operand) != ShapeUtil::ByteSizeOf(*out)) {
    return Error(ctx, "a bitcast must keep the byte size: ", ShapeStr(operand), " (",
                 ShapeUtil::ByteSizeOf(operand), " bytes) vs ", ShapeStr(*out), " (",
                 ShapeUtil::ByteSizeOf(*out), " bytes)");
  }
  if (operand.IsArray() != out->IsArray()) {
    return Error(ctx, "cannot bitcast ", ShapeStr(operand), " to ", ShapeStr(*out));
  }
  return *out;
}

absl::StatusOr<Shape> InferGetDimensionSize(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
  const Shape& operand = ctx.operand(0);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  if (ctx.attrs.dimensions_size() != 1) {
    return Error(ctx, "expects one dimension, got ", ctx.attrs.dimensions_size());
  }
  int64_t dim = ctx.attrs.dimensions(0);
  if (dim < 0 || dim >= operand.rank()) {
    return Error(ctx, "dimension ", dim, " is out of range for ", ShapeStr(operand));
  }
  if (operand.dimensions(dim) > std::numeric_limits<int32_t>::max()) {
    return Error(ctx, "dimension ", dim, " of ", ShapeStr(operand), " exceeds INT32_MAX");
  }
  return MakeArray(S32, {});
}

absl::StatusOr<Shape> InferSetDimensionSize(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 2));
  const Shape& operand = ctx.operand(0);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  if (ctx.attrs.dimensions_size() != 1) {
    return Error(ctx, "expects one dimension, got ", ctx.attrs.dimensions_size());
  }
  int64_t dim = ctx.attrs.dimensions(0);
  if (dim < 0 || dim >= operand.rank()) {
    return Error(ctx, "dimension ", dim, " is out of range for ", ShapeStr(operand));
  }
  const Shape& size = ctx.operand(1);
  if (!size.IsArray() || size.rank() != 0 || size.element_type() != S32) {
    return Error(ctx, "the size must be an s32 scalar, got ", ShapeStr(size));
  }
  if (operand.dimensions(dim) > std::numeric_limits<int32_t>::max()) {
    return Error(ctx, "dimension ", dim, " of ", ShapeStr(operand), " exceeds INT32_MAX");
  }
  Shape result = operand;
  result.clear_layout();
  result.set_dynamic_dimension(static_cast<int>(dim), true);
  return result;
}

absl::StatusOr<Shape> CheckDynamicReshape(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectMinOperandCount(ctx, 1));
  ASSIGN_OR_RETURN(const Shape* out, RequireDeclared(ctx));
  RETURN_IF_ERROR(ExpectArray(ctx, *out, "the result"));
  if (ctx.operand_count() - 1 != out->rank()) {
    return Error(ctx, "expects one size operand per result dimension (", out->rank(), "), got ",
                 ctx.operand_count() - 1);
  }
  for (int64_t i = 1; i < ctx.operand_count(); ++i) {
    const Shape& s = ctx.operand(i);
    if (!s.IsArray() || s.rank() != 0 || s.element_type() != S32) {
      return Error(ctx, "size operand ", i, " must be an s32 scalar, got ", ShapeStr(s));
    }
  }
  return CheckReshape(ctx);
}

}  // namespace

absl::StatusOr<Shape> InferDataMovement(const OpContext& ctx) {
  switch (ctx.opcode) {
    case HloOpcode::kBroadcast:
      return CheckBroadcast(ctx);
    case HloOpcode::kReshape:
      RETURN_IF_ERROR(ExpectOperandCount(ctx, 1));
      return CheckReshape(ctx);
    case HloOpcode::kDynamicReshape:
      return CheckDynamicReshape(ctx);
    case HloOpcode::kTranspose:
      return InferTranspose(ctx);
    case HloOpcode::kSlice:
      return InferSlice(ctx);
    case HloOpcode::kDynamicSlice:
      return InferDynamicSlice(ctx);
    case HloOpcode::kDynamicUpdateSlice:
      return InferDynamicUpdateSlice(ctx);
    case HloOpcode::kConcatenate:
      return InferConcatenate(ctx);
    case HloOpcode::kPad:
      return InferPad(ctx);
    case HloOpcode::kReverse:
      return InferReverse(ctx);
    case HloOpcode::kIota:
      return CheckIota(ctx);
    case HloOpcode::kGetTupleElement:
      return InferGetTupleElement(ctx);
    case HloOpcode::kTuple:
      return InferTuple(ctx);
    case HloOpcode::kBitcast:
      return CheckBitcast(ctx);
    case HloOpcode::kGetDimensionSize:
      return InferGetDimensionSize(ctx);
    case HloOpcode::kSetDimensionSize:
      return InferSetDimensionSize(ctx);
    default:
      return Error(ctx, "not a data-movement op");
  }
}

}  // namespace shape_inference_internal
}  // namespace xla
