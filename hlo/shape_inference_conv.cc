// Shape inference for convolution, dot, ragged-dot and scaled-dot. As in XLA, the declared
// result element type acts as the "preferred element type" (see DotResultType).

#include <algorithm>
#include <numeric>

#include "hlo/shape_inference_internal.h"
#include "hlo/status_macros.h"

namespace xla {
namespace shape_inference_internal {
namespace {

bool Contains(absl::Span<const int64_t> values, int64_t v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// Dot output dims: batch dims (lhs order), lhs free dims, rhs free dims. `rhs_skip` lists
// rhs dims that vanish besides contracting/batch ones (ragged-dot's group dim).
absl::StatusOr<Shape> DotShape(const OpContext& ctx, const Shape& lhs, const Shape& rhs,
                               const DotDimensionNumbers& dn,
                               absl::Span<const int64_t> rhs_skip = {}) {
  RETURN_IF_ERROR(ExpectArray(ctx, lhs, "the lhs"));
  RETURN_IF_ERROR(ExpectArray(ctx, rhs, "the rhs"));
  std::vector<int64_t> lc = ToVector(dn.lhs_contracting_dimensions());
  std::vector<int64_t> rc = ToVector(dn.rhs_contracting_dimensions());
  std::vector<int64_t> lb = ToVector(dn.lhs_batch_dimensions());
  std::vector<int64_t> rb = ToVector(dn.rhs_batch_dimensions());
  auto fail = [&](const std::string& why) {
    return Error(ctx, "cannot infer the shape of ", ShapeStr(lhs), " <dot> ", ShapeStr(rhs), ": ",
                 why);
  };
  if (!AllInRange(lc, lhs.rank()) || !AllInRange(lb, lhs.rank()) ||
      !AllInRange(rc, rhs.rank()) || !AllInRange(rb, rhs.rank())) {
    return fail("a dimension number is out of range");
  }
  std::vector<int64_t> lhs_all = lc, rhs_all = rc;
  lhs_all.insert(lhs_all.end(), lb.begin(), lb.end());
  rhs_all.insert(rhs_all.end(), rb.begin(), rb.end());
  if (!AllUnique(lhs_all) || !AllUnique(rhs_all)) return fail("a dimension number repeats");
  if (lc.size() != rc.size()) {
    return fail("lhs and rhs must have the same number of contracting dimensions");
  }
  for (size_t i = 0; i < lc.size(); ++i) {
    if (!DimsAgree(lhs.dimensions(lc[i]), rhs.dimensions(rc[i]))) {
      return fail(absl::StrCat("contracting dimension sizes differ (lhs dim ", lc[i], ", rhs dim ",
                               rc[i], ")"));
    }
  }
  if (lb.size() != rb.size()) {
    return fail("lhs and rhs must have the same number of batch dimensions");
  }
  for (size_t i = 0; i < lb.size(); ++i) {
    if (!DimsAgree(lhs.dimensions(lb[i]), rhs.dimensions(rb[i]))) {
      return fail(absl::StrCat("batch dimension sizes differ (lhs dim ", lb[i], ", rhs dim ",
                               rb[i], ")"));
    }
  }
  std::vector<int64_t> dims;
  std::vector<bool> dyn;
  for (size_t i = 0; i < lb.size(); ++i) {
    dims.push_back(lhs.dimensions(lb[i]));
    dyn.push_back(lhs.is_dynamic_dimension(lb[i]) || rhs.is_dynamic_dimension(rb[i]));
  }
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (Contains(lc, d) || Contains(lb, d)) continue;
    dims.push_back(lhs.dimensions(d));
    dyn.push_back(lhs.is_dynamic_dimension(d));
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (Contains(rc, d) || Contains(rb, d) || Contains(rhs_skip, d)) continue;
    dims.push_back(rhs.dimensions(d));
    dyn.push_back(rhs.is_dynamic_dimension(d));
  }
  ASSIGN_OR_RETURN(PrimitiveType type, DotResultType(ctx, lhs.element_type(), rhs.element_type()));
  return MakeArray(type, dims, dyn);
}

absl::Status CheckOperandTypes(const OpContext& ctx, const Shape& lhs, const Shape& rhs) {
  PrimitiveType a = lhs.element_type(), b = rhs.element_type();
  if (a == b) return absl::OkStatus();
  // XLA allows mixed floating types (and mixed integer types) in dot/conv operands; the
  // result type resolves the precision.
  if ((IsFloating(a) && IsFloating(b)) || (IsIntegral(a) && IsIntegral(b))) {
    return absl::OkStatus();
  }
  return Error(ctx, "operands must have compatible element types, got ", ShapeStr(lhs), " and ",
               ShapeStr(rhs));
}

absl::StatusOr<Shape> InferDot(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 2));
  RETURN_IF_ERROR(CheckOperandTypes(ctx, ctx.operand(0), ctx.operand(1)));
  return DotShape(ctx, ctx.operand(0), ctx.operand(1), ctx.attrs.dot_dimension_numbers());
}

absl::StatusOr<Shape> InferRaggedDot(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 3));
  const Shape& lhs = ctx.operand(0);
  const Shape& rhs = ctx.operand(1);
  const Shape& group_sizes = ctx.operand(2);
  RETURN_IF_ERROR(CheckOperandTypes(ctx, lhs, rhs));
  const RaggedDotDimensionNumbers& rdn = ctx.attrs.ragged_dot_dimension_numbers();
  const DotDimensionNumbers& dn = rdn.dot_dimension_numbers();
  std::vector<int64_t> ragged = ToVector(rdn.lhs_ragged_dimensions());
  std::vector<int64_t> group = ToVector(rdn.rhs_group_dimensions());
  RETURN_IF_ERROR(ExpectArray(ctx, lhs, "the lhs"));
  RETURN_IF_ERROR(ExpectArray(ctx, rhs, "the rhs"));
  if (ragged.size() != 1 || ragged[0] < 0 || ragged[0] >= lhs.rank()) {
    return Error(ctx, "expects exactly one lhs ragged dimension in range, got ", JoinInts(ragged));
  }
  if (group.size() > 1 || !AllInRange(group, rhs.rank())) {
    return Error(ctx, "expects at most one rhs group dimension in range, got ", JoinInts(group));
  }
  if (!group.empty() && (Contains(ToVector(dn.rhs_contracting_dimensions()), group[0]) ||
                         Contains(ToVector(dn.rhs_batch_dimensions()), group[0]))) {
    return Error(ctx, "the rhs group dimension ", group[0],
                 " must not be a contracting or batch dimension");
  }
  if (!group_sizes.IsArray() || group_sizes.rank() < 1 ||
      !IsIntegral(group_sizes.element_type())) {
    return Error(ctx, "group_sizes must be an integral array of rank >= 1, got ",
                 ShapeStr(group_sizes));
  }
  const int64_t num_groups = group_sizes.dimensions(group_sizes.rank() - 1);
  const bool ragged_contracting = Contains(ToVector(dn.lhs_contracting_dimensions()), ragged[0]);
  const bool ragged_batch = Contains(ToVector(dn.lhs_batch_dimensions()), ragged[0]);
  if (ragged_contracting || ragged_batch) {
    if (!group.empty()) {
      return Error(ctx, "a ragged ", ragged_contracting ? "contracting" : "batch",
                   " dimension takes no rhs group dimension");
    }
  } else {
    if (group.size() != 1) {
      return Error(ctx, "a ragged non-contracting dimension needs one rhs group dimension");
    }
    if (!DimsAgree(rhs.dimensions(group[0]), num_groups)) {
      return Error(ctx, "rhs group dimension ", group[0], " has size ", rhs.dimensions(group[0]),
                   " but group_sizes ", ShapeStr(group_sizes), " has ", num_groups, " groups");
    }
  }
  ASSIGN_OR_RETURN(Shape result, DotShape(ctx, lhs, rhs, dn, group));
  if (!ragged_contracting) return result;
  // Ragged contracting dim: one output per group, stacked in a new major dimension.
  std::vector<int64_t> dims = {num_groups};
  std::vector<bool> dyn = {false};
  for (int64_t i = 0; i < result.rank(); ++i) {
    dims.push_back(result.dimensions(i));
    dyn.push_back(result.is_dynamic_dimension(i));
  }
  return MakeArray(result.element_type(), dims, dyn);
}

absl::StatusOr<Shape> InferScaledDot(const OpContext& ctx) {
  // scaled-dot(lhs, rhs, lhs_scale, rhs_scale) (XLA's operand order): a dot of the
  // operands, each scaled by a block-wise scale whose dims divide the operand's.
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 4));
  const Shape& lhs = ctx.operand(0);
  const Shape& rhs = ctx.operand(1);
  for (int i : {0, 1}) {
    const Shape& operand = ctx.operand(i);
    const Shape& scale = ctx.operand(i + 2);
    RETURN_IF_ERROR(ExpectArray(ctx, operand, absl::StrCat("operand ", i)));
    RETURN_IF_ERROR(ExpectArray(ctx, scale, absl::StrCat("operand ", i + 2)));
    if (scale.rank() == 0) continue;
    if (scale.rank() != operand.rank()) {
      return Error(ctx, "scale ", ShapeStr(scale), " must have the rank of its operand ",
                   ShapeStr(operand));
    }
    for (int64_t d = 0; d < scale.rank(); ++d) {
      if (scale.dimensions(d) <= 0 ? operand.dimensions(d) != 0
                                   : operand.dimensions(d) % scale.dimensions(d) != 0) {
        return Error(ctx, "scale ", ShapeStr(scale), " dimension ", d,
                     " must divide the operand ", ShapeStr(operand));
      }
    }
  }
  return DotShape(ctx, lhs, rhs, ctx.attrs.dot_dimension_numbers());
}

absl::StatusOr<Shape> InferConvolution(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 2));
  const Shape& lhs = ctx.operand(0);
  const Shape& rhs = ctx.operand(1);
  RETURN_IF_ERROR(ExpectArray(ctx, lhs, "the lhs"));
  RETURN_IF_ERROR(ExpectArray(ctx, rhs, "the rhs"));
  RETURN_IF_ERROR(CheckOperandTypes(ctx, lhs, rhs));
  const ConvolutionDimensionNumbers& dn = ctx.attrs.convolution_dimension_numbers();
  const Window& window = ctx.attrs.window();
  // An unset count means 1 (proto3 default 0).
  const int64_t fgc = ctx.attrs.feature_group_count() == 0 ? 1 : ctx.attrs.feature_group_count();
  const int64_t bgc = ctx.attrs.batch_group_count() == 0 ? 1 : ctx.attrs.batch_group_count();
  if (fgc <= 0) return Error(ctx, "feature_group_count must be positive, got ", fgc);
  if (bgc <= 0) return Error(ctx, "batch_group_count must be positive, got ", bgc);
  if (fgc > 1 && bgc > 1) {
    return Error(ctx, "feature_group_count ", fgc, " and batch_group_count ", bgc,
                 " cannot both be greater than 1");
  }
  const int num_spatial = dn.input_spatial_dimensions_size();
  if (dn.kernel_spatial_dimensions_size() != num_spatial ||
      dn.output_spatial_dimensions_size() != num_spatial) {
    return Error(ctx, "input, kernel and output must have the same number of spatial "
                 "dimensions in the dimension numbers");
  }
  if (window.dimensions_size() != num_spatial) {
    return Error(ctx, "window has ", window.dimensions_size(), " dimensions but there are ",
                 num_spatial, " spatial dimensions");
  }
  const int64_t rank = num_spatial + 2;
  if (lhs.rank() != rank) return Error(ctx, "the lhs ", ShapeStr(lhs), " must have rank ", rank);
  if (rhs.rank() != rank) return Error(ctx, "the rhs ", ShapeStr(rhs), " must have rank ", rank);
  std::vector<int64_t> in = {dn.input_batch_dimension(), dn.input_feature_dimension()};
  std::vector<int64_t> ker = {dn.kernel_input_feature_dimension(),
                              dn.kernel_output_feature_dimension()};
  std::vector<int64_t> out = {dn.output_batch_dimension(), dn.output_feature_dimension()};
  for (int i = 0; i < num_spatial; ++i) {
    in.push_back(dn.input_spatial_dimensions(i));
    ker.push_back(dn.kernel_spatial_dimensions(i));
    out.push_back(dn.output_spatial_dimensions(i));
  }
  if (!IsPermutation(in, rank)) {
    return Error(ctx, "input dimension numbers must contain each dimension exactly once");
  }
  if (!IsPermutation(ker, rank)) {
    return Error(ctx, "kernel dimension numbers must contain each dimension exactly once");
  }
  if (!IsPermutation(out, rank)) {
    return Error(ctx, "output dimension numbers must contain each dimension exactly once");
  }
  const int64_t input_batch = lhs.dimensions(dn.input_batch_dimension());
  const int64_t input_features = lhs.dimensions(dn.input_feature_dimension());
  const int64_t kernel_in = rhs.dimensions(dn.kernel_input_feature_dimension());
  const int64_t kernel_out = rhs.dimensions(dn.kernel_output_feature_dimension());
  if (kernel_out % bgc != 0) {
    return Error(ctx, "kernel output feature size ", kernel_out,
                 " must be a multiple of batch_group_count ", bgc);
  }
  if (input_features % fgc != 0 || input_features / fgc != kernel_in) {
    return Error(ctx, "input feature size ", input_features, " must equal feature_group_count ",
                 fgc, " times the kernel input feature size ", kernel_in, "; ", ShapeStr(lhs),
                 " <conv> ", ShapeStr(rhs));
  }
  if (kernel_out % fgc != 0) {
    return Error(ctx, "kernel output feature size ", kernel_out,
                 " must be divisible by feature_group_count ", fgc);
  }
  if (input_batch % bgc != 0) {
    return Error(ctx, "input batch size ", input_batch, " must be divisible by batch_group_count ",
                 bgc);
  }
  std::vector<int64_t> input_spatial(num_spatial);
  std::vector<bool> input_spatial_dyn(num_spatial);
  for (int i = 0; i < num_spatial; ++i) {
    if (rhs.dimensions(dn.kernel_spatial_dimensions(i)) != window.dimensions(i).size()) {
      return Error(ctx, "window size ", window.dimensions(i).size(), " in spatial dimension ", i,
                   " does not match the kernel ", ShapeStr(rhs));
    }
    input_spatial[i] = lhs.dimensions(dn.input_spatial_dimensions(i));
    input_spatial_dyn[i] = lhs.is_dynamic_dimension(dn.input_spatial_dimensions(i));
  }
  ASSIGN_OR_RETURN(Shape spatial_out,
                   InferWindowOutputShape(ctx, MakeArray(lhs.element_type(), input_spatial,
                                                         input_spatial_dyn),
                                          window, lhs.element_type()));
  std::vector<int64_t> dims(rank);
  std::vector<bool> dyn(rank);
  dims[dn.output_batch_dimension()] = input_batch / bgc;
  dyn[dn.output_batch_dimension()] = lhs.is_dynamic_dimension(dn.input_batch_dimension());
  dims[dn.output_feature_dimension()] = kernel_out;
  for (int i = 0; i < num_spatial; ++i) {
    dims[dn.output_spatial_dimensions(i)] = spatial_out.dimensions(i);
    dyn[dn.output_spatial_dimensions(i)] =
        spatial_out.is_dynamic_dimension(i) ||
        rhs.is_dynamic_dimension(dn.kernel_spatial_dimensions(i));
  }
  if (rhs.is_dynamic_dimension(dn.kernel_output_feature_dimension())) {
    return Error(ctx, "a dynamic kernel output feature dimension is not supported: ",
                 ShapeStr(rhs));
  }
  ASSIGN_OR_RETURN(PrimitiveType type, DotResultType(ctx, lhs.element_type(), rhs.element_type()));
  return MakeArray(type, dims, dyn);
}

}  // namespace

absl::StatusOr<Shape> InferConvDot(const OpContext& ctx) {
  switch (ctx.opcode) {
    case HloOpcode::kConvolution:
      return InferConvolution(ctx);
    case HloOpcode::kDot:
      return InferDot(ctx);
    case HloOpcode::kRaggedDot:
      return InferRaggedDot(ctx);
    case HloOpcode::kScaledDot:
      return InferScaledDot(ctx);
    default:
      return Error(ctx, "not a convolution or dot op");
  }
}

}  // namespace shape_inference_internal
}  // namespace xla
