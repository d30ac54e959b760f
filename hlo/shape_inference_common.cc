// Helpers shared by the shape_inference_*.cc files.

#include <algorithm>
#include <numeric>
#include <set>

#include "absl/strings/str_join.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_inference_internal.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace shape_inference_internal {

std::string OpLabel(const OpContext& ctx) {
  std::string label(HloOpcodeString(ctx.opcode));  // std::string_view -> std::string
  if (!ctx.name.empty()) absl::StrAppend(&label, " '", ctx.name, "'");
  return label;
}

absl::Status ShapeMustBeGiven(const OpContext& ctx) {
  return Error(ctx, "the result shape cannot be inferred from operands and attributes; "
                    "the result shape must be given");
}

absl::Status ExpectOperandCount(const OpContext& ctx, int64_t n) {
  if (ctx.operand_count() != n) {
    return Error(ctx, "expects ", n, " operand(s), got ", ctx.operand_count());
  }
  return absl::OkStatus();
}

absl::Status ExpectMinOperandCount(const OpContext& ctx, int64_t n) {
  if (ctx.operand_count() < n) {
    return Error(ctx, "expects at least ", n, " operand(s), got ", ctx.operand_count());
  }
  return absl::OkStatus();
}

absl::Status ExpectCalledCount(const OpContext& ctx, int64_t n) {
  if (static_cast<int64_t>(ctx.called.size()) != n) {
    return Error(ctx, "expects ", n, " called computation(s), got ", ctx.called.size());
  }
  return absl::OkStatus();
}

absl::Status ExpectArray(const OpContext& ctx, const Shape& shape, absl::string_view what) {
  if (!shape.IsArray()) {
    return Error(ctx, "expected an array for ", what, ", got ", ShapeStr(shape));
  }
  return absl::OkStatus();
}

absl::Status ExpectScalar(const OpContext& ctx, const Shape& shape, absl::string_view what) {
  if (!shape.IsArray() || shape.rank() != 0) {
    return Error(ctx, "expected a scalar for ", what, ", got ", ShapeStr(shape));
  }
  return absl::OkStatus();
}

absl::StatusOr<const Shape*> RequireDeclared(const OpContext& ctx) {
  if (ctx.declared == nullptr) return ShapeMustBeGiven(ctx);
  return ctx.declared;
}

std::string ShapeStr(const Shape& shape) { return shape.ToString(false); }

std::string TypeStr(PrimitiveType type) {
  return std::string(primitive_util::LowercasePrimitiveTypeName(type));
}

std::string JoinInts(absl::Span<const int64_t> values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

Shape MakeArray(PrimitiveType type, absl::Span<const int64_t> dims,
                const std::vector<bool>& dynamic) {
  Shape shape(type, std::vector<int64_t>(dims.begin(), dims.end()));
  for (size_t i = 0; i < dynamic.size() && i < dims.size(); ++i) {
    if (dynamic[i]) shape.set_dynamic_dimension(static_cast<int>(i), true);
  }
  return shape;
}

Shape ChangeType(const Shape& shape, PrimitiveType type) {
  Shape result = shape;
  result.clear_layout();
  result.set_element_type(type);
  return result;
}

Shape StripLayout(const Shape& shape) {
  Shape result = shape;
  result.clear_layout();
  for (Shape& e : *result.mutable_tuple_shapes()) e = StripLayout(e);
  return result;
}

bool DimsAgree(int64_t a, int64_t b) {
  return a == b || a == Shape::kUnboundedSize || b == Shape::kUnboundedSize;
}

bool SameDims(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (!DimsAgree(a.dimensions(i), b.dimensions(i))) return false;
  }
  return true;
}

namespace {
enum class TypeRule { kExact, kIgnoreFp, kIgnoreAll };

bool CompatibleImpl(const Shape& a, const Shape& b, TypeRule rule) {
  if (a.IsTuple() || b.IsTuple()) {
    if (!a.IsTuple() || !b.IsTuple() || a.tuple_shapes_size() != b.tuple_shapes_size()) {
      return false;
    }
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!CompatibleImpl(a.tuple_shapes(i), b.tuple_shapes(i), rule)) return false;
    }
    return true;
  }
  if (a.IsBuffer() || b.IsBuffer()) {
    if (!a.IsBuffer() || !b.IsBuffer() || a.tuple_shapes_size() != 1 ||
        b.tuple_shapes_size() != 1) {
      return a.element_type() == b.element_type() && a.tuple_shapes_size() == 0 &&
             b.tuple_shapes_size() == 0;
    }
    return CompatibleImpl(a.buffer_shape(), b.buffer_shape(), rule);
  }
  if (!a.IsArray() || !b.IsArray()) return a.element_type() == b.element_type();
  switch (rule) {
    case TypeRule::kExact:
      if (a.element_type() != b.element_type()) return false;
      break;
    case TypeRule::kIgnoreFp:
      if (a.element_type() != b.element_type() &&
          !(IsFloating(a.element_type()) && IsFloating(b.element_type()))) {
        return false;
      }
      break;
    case TypeRule::kIgnoreAll:
      break;
  }
  return SameDims(a, b);
}
}  // namespace

bool ShapesCompatible(const Shape& a, const Shape& b) {
  return CompatibleImpl(a, b, TypeRule::kExact);
}
bool ShapesCompatibleIgnoringFpPrecision(const Shape& a, const Shape& b) {
  return CompatibleImpl(a, b, TypeRule::kIgnoreFp);
}
bool ShapesCompatibleIgnoringElementType(const Shape& a, const Shape& b) {
  return CompatibleImpl(a, b, TypeRule::kIgnoreAll);
}

bool IsFloating(PrimitiveType t) { return primitive_util::IsFloatingPointType(t); }
bool IsComplex(PrimitiveType t) { return primitive_util::IsComplexType(t); }
bool IsIntegral(PrimitiveType t) { return primitive_util::IsIntegralType(t); }
bool IsSigned(PrimitiveType t) {
  return primitive_util::IsSignedIntegralType(t) || IsFloating(t) || IsComplex(t);
}

PrimitiveType HigherPrecisionType(PrimitiveType a, PrimitiveType b) {
  if (a == b || !IsFloating(a) || !IsFloating(b)) return a;
  int wa = primitive_util::BitWidth(a), wb = primitive_util::BitWidth(b);
  if (wa != wb) return wa > wb ? a : b;
  // Same width (f16 vs bf16, f8 variants): more exponent range first, then mantissa.
  int ea = primitive_util::ExponentWidth(a), eb = primitive_util::ExponentWidth(b);
  if (ea != eb) return ea > eb ? a : b;
  return primitive_util::MantissaWidth(a) >= primitive_util::MantissaWidth(b) ? a : b;
}

bool AllUnique(absl::Span<const int64_t> values) {
  return std::set<int64_t>(values.begin(), values.end()).size() == values.size();
}

bool AllInRange(absl::Span<const int64_t> values, int64_t bound) {
  return std::all_of(values.begin(), values.end(),
                     [bound](int64_t v) { return v >= 0 && v < bound; });
}

bool IsPermutation(absl::Span<const int64_t> values, int64_t n) {
  return static_cast<int64_t>(values.size()) == n && AllInRange(values, n) && AllUnique(values);
}

namespace {
// Size of `bound` elements after inserting (dilation - 1) holes between neighbours.
int64_t DilatedBound(int64_t bound, int64_t dilation) {
  if (bound == 0) return 0;
  return (bound - 1) * dilation + 1;
}
// Number of window positions of `window` size with `stride` that fit in `bound`.
int64_t StridedBound(int64_t bound, int64_t window, int64_t stride) {
  if (window > bound) return 0;
  return (bound - window) / stride + 1;
}
}  // namespace

absl::StatusOr<Shape> InferWindowOutputShape(const OpContext& ctx, const Shape& base,
                                             const Window& window, PrimitiveType type) {
  if (window.dimensions_size() != base.rank()) {
    return Error(ctx, "window has ", window.dimensions_size(), " dimensions but the base shape ",
                 ShapeStr(base), " has rank ", base.rank());
  }
  std::vector<int64_t> dims(base.rank());
  std::vector<bool> dynamic(base.rank());
  for (int i = 0; i < window.dimensions_size(); ++i) {
    const WindowDimension& d = window.dimensions(i);
    if (d.size() <= 0) return Error(ctx, "window dimension ", i, " has non-positive size ", d.size());
    if (d.stride() <= 0) {
      return Error(ctx, "window dimension ", i, " has non-positive stride ", d.stride());
    }
    if (d.base_dilation() < 1) {
      return Error(ctx, "window dimension ", i, " has non-positive base dilation ",
                   d.base_dilation());
    }
    if (d.window_dilation() < 1) {
      return Error(ctx, "window dimension ", i, " has non-positive window dilation ",
                   d.window_dilation());
    }
    if (base.is_unbounded_dynamic_dimension(i)) {
      dims[i] = Shape::kUnboundedSize;
      dynamic[i] = true;
      continue;
    }
    int64_t padded = d.padding_low() + DilatedBound(base.dimensions(i), d.base_dilation()) +
                     d.padding_high();
    if (padded < 0) {
      return Error(ctx, "window dimension ", i, " pads the base to a negative size ", padded);
    }
    dims[i] = StridedBound(padded, DilatedBound(d.size(), d.window_dilation()), d.stride());
    dynamic[i] = base.is_dynamic_dimension(i);
  }
  return MakeArray(type, dims, dynamic);
}

absl::Status VerifyReducerShape(const OpContext& ctx, const ProgramShape& reducer,
                                absl::Span<const Shape* const> init_shapes,
                                absl::Span<const PrimitiveType> input_types) {
  const int64_t n = static_cast<int64_t>(init_shapes.size());
  if (static_cast<int64_t>(reducer.parameters().size()) != 2 * n) {
    return Error(ctx, "the reduction computation must take ", 2 * n, " parameters, but takes ",
                 reducer.parameters().size(), " (signature ", reducer.ToString(), ")");
  }
  const Shape& result = reducer.result();
  std::vector<const Shape*> accumulators;
  if (result.IsArray()) {
    if (n != 1) {
      return Error(ctx, "the reduction computation must return a tuple of ", n,
                   " scalars, but returns ", ShapeStr(result));
    }
    accumulators.push_back(&result);
  } else if (result.IsTuple()) {
    if (result.tuple_shapes_size() != n) {
      return Error(ctx, "the reduction computation must return a tuple of ", n,
                   " scalars, but returns ", ShapeStr(result));
    }
    for (const Shape& s : result.tuple_shapes()) accumulators.push_back(&s);
  } else {
    return Error(ctx, "the reduction computation must return scalars, but returns ",
                 ShapeStr(result));
  }
  for (const Shape* acc : accumulators) {
    if (!acc->IsArray() || acc->rank() != 0) {
      return Error(ctx, "the reduction computation must return scalars, but returns ",
                   ShapeStr(result));
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    const Shape& acc = *accumulators[i];
    if (!ShapesCompatible(acc, reducer.parameters()[i])) {
      return Error(ctx, "the reduction computation's parameter ", i, " has shape ",
                   ShapeStr(reducer.parameters()[i]), " but its result ", i, " has shape ",
                   ShapeStr(acc));
    }
    if (!ShapesCompatibleIgnoringFpPrecision(acc, *init_shapes[i])) {
      return Error(ctx, "the reduction computation's accumulator ", i, " has shape ",
                   ShapeStr(acc), " but the init value has shape ", ShapeStr(*init_shapes[i]));
    }
    Shape input_element = MakeArray(input_types[i], {});
    const Shape& param = reducer.parameters()[n + i];
    if (!ShapesCompatibleIgnoringFpPrecision(input_element, param)) {
      return Error(ctx, "the reduction computation's parameter ", n + i, " has shape ",
                   ShapeStr(param), " but the input element type is ", TypeStr(input_types[i]));
    }
    if (!ShapesCompatibleIgnoringFpPrecision(acc, param)) {
      return Error(ctx, "the reduction computation's parameter ", n + i, " has shape ",
                   ShapeStr(param), " which does not match its result ", ShapeStr(acc));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PrimitiveType> DotResultType(const OpContext& ctx, PrimitiveType lhs,
                                            PrimitiveType rhs) {
  PrimitiveType from = HigherPrecisionType(lhs, rhs);
  if (ctx.declared == nullptr || !ctx.declared->IsArray()) return from;
  PrimitiveType preferred = ctx.declared->element_type();
  if (preferred == from) return from;
  if (!IsFloating(from) && primitive_util::BitWidth(preferred) < primitive_util::BitWidth(from)) {
    return Error(ctx, "the result element type ", TypeStr(preferred),
                 " must not be narrower than the operand type ", TypeStr(from));
  }
  return preferred;
}

std::vector<std::vector<int64_t>> ReplicaGroupsOf(const HloInstructionProto& attrs) {
  std::vector<std::vector<int64_t>> groups;
  if (attrs.has_collective_device_list()) {
    const CollectiveDeviceListProto& list = attrs.collective_device_list();
    if (list.has_iota_replica_group_list()) {
      const IotaReplicaGroupListProto& iota = list.iota_replica_group_list();
      // Device ids iota(prod(reshape_dims)) reshaped, transposed, then split into groups.
      std::vector<int64_t> dims(iota.iota_reshape_dims().begin(), iota.iota_reshape_dims().end());
      int64_t total = iota.num_replica_groups() * iota.num_devices_per_group();
      if (total <= 0 || total > (int64_t{1} << 24)) return groups;
      std::vector<int64_t> ids(total);
      std::iota(ids.begin(), ids.end(), 0);
      std::vector<int64_t> perm(iota.iota_transpose_perm().begin(),
                                iota.iota_transpose_perm().end());
      int64_t dims_product = 1;
      for (int64_t d : dims) dims_product *= d;
      if (!dims.empty() && dims_product == total && IsPermutation(perm, dims.size())) {
        // Transpose the row-major array of `dims` by `perm`.
        std::vector<int64_t> strides(dims.size(), 1);
        for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
          strides[i] = strides[i + 1] * dims[i + 1];
        }
        std::vector<int64_t> out_dims(dims.size());
        for (size_t i = 0; i < perm.size(); ++i) out_dims[i] = dims[perm[i]];
        std::vector<int64_t> index(dims.size(), 0);
        for (int64_t k = 0; k < total; ++k) {
          int64_t src = 0;
          for (size_t i = 0; i < perm.size(); ++i) src += index[i] * strides[perm[i]];
          ids[k] = src;
          for (int64_t i = static_cast<int64_t>(index.size()) - 1; i >= 0; --i) {
            if (++index[i] < out_dims[i]) break;
            index[i] = 0;
          }
        }
      }
      for (int64_t g = 0; g < iota.num_replica_groups(); ++g) {
        groups.emplace_back(ids.begin() + g * iota.num_devices_per_group(),
                            ids.begin() + (g + 1) * iota.num_devices_per_group());
      }
      return groups;
    }
    for (const ReplicaGroup& g : list.replica_groups()) {
      groups.emplace_back(g.replica_ids().begin(), g.replica_ids().end());
    }
    if (!groups.empty()) return groups;
  }
  // The deprecated field is still what older modules carry.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  for (const ReplicaGroup& g : attrs.replica_groups()) {
    groups.emplace_back(g.replica_ids().begin(), g.replica_ids().end());
  }
#pragma GCC diagnostic pop
  return groups;
}

}  // namespace shape_inference_internal
}  // namespace xla
