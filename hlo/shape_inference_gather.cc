// Shape inference for gather and scatter (XLA semantics, including batching dims).

#include <algorithm>

#include "hlo/shape_inference_internal.h"
#include "hlo/status_macros.h"

namespace xla {
namespace shape_inference_internal {
namespace {

bool Contains(absl::Span<const int64_t> values, int64_t v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

absl::Status SortedUniqueInRange(const OpContext& ctx, absl::string_view name,
                                 absl::Span<const int64_t> values, int64_t bound,
                                 bool require_sorted = true) {
  if (require_sorted && !std::is_sorted(values.begin(), values.end())) {
    return Error(ctx, name, " ", JoinInts(values), " must be sorted");
  }
  if (!AllUnique(values)) return Error(ctx, name, " ", JoinInts(values), " must not repeat");
  if (!AllInRange(values, bound)) {
    return Error(ctx, name, " ", JoinInts(values), " must be in [0, ", bound, ")");
  }
  return absl::OkStatus();
}

// Index shape with the implicit trailing index vector dim of size 1 made explicit.
absl::StatusOr<std::vector<int64_t>> ExpandedIndices(const OpContext& ctx, const Shape& indices,
                                                     int64_t index_vector_dim) {
  if (!indices.IsArray() || !IsIntegral(indices.element_type())) {
    return Error(ctx, "indices must be an integral array, got ", ShapeStr(indices));
  }
  if (index_vector_dim < 0 || index_vector_dim > indices.rank()) {
    return Error(ctx, "index_vector_dim ", index_vector_dim, " must be in [0, ",
                 indices.rank() + 1, ") for indices ", ShapeStr(indices));
  }
  std::vector<int64_t> dims(indices.dimensions().begin(), indices.dimensions().end());
  if (index_vector_dim == indices.rank()) dims.push_back(1);
  return dims;
}

absl::Status CheckBatchingDims(const OpContext& ctx, const Shape& operand,
                               absl::Span<const int64_t> expanded_indices,
                               int64_t index_vector_dim,
                               absl::Span<const int64_t> operand_batching,
                               absl::Span<const int64_t> indices_batching,
                               absl::Span<const int64_t> other_operand_dims,
                               absl::string_view other_name) {
  RETURN_IF_ERROR(SortedUniqueInRange(ctx, "operand batching dims", operand_batching,
                                      operand.rank()));
  for (int64_t d : operand_batching) {
    if (Contains(other_operand_dims, d)) {
      return Error(ctx, "operand batching dim ", d, " is also in ", other_name);
    }
  }
  RETURN_IF_ERROR(SortedUniqueInRange(ctx, "indices batching dims", indices_batching,
                                      static_cast<int64_t>(expanded_indices.size()),
                                      /*require_sorted=*/false));
  if (Contains(indices_batching, index_vector_dim)) {
    return Error(ctx, "indices batching dims ", JoinInts(indices_batching),
                 " must not contain index_vector_dim ", index_vector_dim);
  }
  if (operand_batching.size() != indices_batching.size()) {
    return Error(ctx, "operand batching dims ", JoinInts(operand_batching),
                 " and indices batching dims ", JoinInts(indices_batching),
                 " must have the same length");
  }
  for (size_t i = 0; i < operand_batching.size(); ++i) {
    if (!DimsAgree(operand.dimensions(operand_batching[i]),
                   expanded_indices[indices_batching[i]])) {
      return Error(ctx, "operand batching dim ", operand_batching[i], " and indices batching dim ",
                   indices_batching[i], " must have the same size");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferGather(const OpContext& ctx) {
  RETURN_IF_ERROR(ExpectOperandCount(ctx, 2));
  const Shape& operand = ctx.operand(0);
  const Shape& indices = ctx.operand(1);
  RETURN_IF_ERROR(ExpectArray(ctx, operand, "the operand"));
  const GatherDimensionNumbers& dn = ctx.attrs.gather_dimension_numbers();
  const int64_t ivd = dn.index_vector_dim();
  ASSIGN_OR_RETURN(std::vector<int64_t> expanded, ExpandedIndices(ctx, indices, ivd));
  std::vector<int64_t> offset_dims = ToVector(dn.offset_dims());
  std::vector<int64_t> collapsed = ToVector(dn.collapsed_slice_dims());
  std::vector<int64_t> start_map = ToVector(dn.start_index_map());
  std::vector<int64_t> op_batch = ToVector(dn.operand_batching_dims());
  std::vector<int64_t> idx_batch = ToVector(dn.start_indices_batching_dims());
  std::vector<int64_t> slice_sizes = ToVector(ctx.attrs.gather_slice_sizes());

  const int64_t result_rank = static_cast<int64_t>(offset_dims.size() + expanded.size()) - 1;
  RETURN_IF_ERROR(SortedUniqueInRange(ctx, "offset_dims", offset_dims, result_rank));
  if (static_cast<int64_t>(start_map.size()) != expanded[ivd]) {
    return Error(ctx, "start_index_map ", JoinInts(start_map), " has ", start_map.size(),
                 " entries but dimension index_vector_dim=", ivd, " of the indices has size ",
                 expanded[ivd]);
  }
  RETURN_IF_ERROR(SortedUniqueInRange(ctx, "start_index_map", start_map, operand.rank(),
                                      /*require_sorted=*/false));
  RETURN_IF_ERROR(SortedUniqueInRange(ctx, "collapsed_slice_dims", collapsed, operand.rank()));
  std::vector<int64_t> excluded = collapsed;
  excluded.insert(excluded.end(), start_map.begin(), start_map.end());
  RETURN_IF_ERROR(CheckBatchingDims(ctx, operand, expanded, ivd, op_batch, idx_batch, excluded,
                                    "collapsed_slice_dims or start_index_map"));
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank()) {
    return Error(ctx, "slice_sizes ", JoinInts(slice_sizes), " must have one entry per operand "
                 "dimension of ", ShapeStr(operand));
  }
  if (slice_sizes.size() != offset_dims.size() + collapsed.size() + op_batch.size()) {
    return Error(ctx, "every operand dimension must be an offset, collapsed or batching "
                 "dimension: ", slice_sizes.size(), " slice sizes vs offset_dims ",
                 JoinInts(offset_dims), ", collapsed_slice_dims ", JoinInts(collapsed),
                 ", operand_batching_dims ", JoinInts(op_batch));
  }
  for (size_t i = 0; i < slice_sizes.size(); ++i) {
    if (slice_sizes[i] < 0 ||
        (!operand.is_unbounded_dynamic_dimension(i) && slice_sizes[i] > operand.dimensions(i))) {
      return Error(ctx, "slice size ", slice_sizes[i], " at index ", i,
                   " is out of range for ", ShapeStr(operand));
    }
  }
  for (int64_t d : collapsed) {
    if (slice_sizes[d] > 1) {
      return Error(ctx, "collapsed slice dimension ", d, " must have slice size <= 1, got ",
                   slice_sizes[d]);
    }
  }
  for (int64_t d : op_batch) {
    if (slice_sizes[d] > 1) {
      return Error(ctx, "operand batching dimension ", d, " must have slice size <= 1, got ",
                   slice_sizes[d]);
    }
  }
  std::vector<int64_t> dims;
  std::vector<bool> dyn;
  int64_t operand_dim = 0, indices_dim = 0;
  for (int64_t i = 0; i < result_rank; ++i) {
    if (Contains(offset_dims, i)) {
      while (Contains(collapsed, operand_dim) || Contains(op_batch, operand_dim)) ++operand_dim;
      dims.push_back(slice_sizes[operand_dim]);
      dyn.push_back(slice_sizes[operand_dim] == operand.dimensions(operand_dim) &&
                    operand.is_dynamic_dimension(operand_dim));
      ++operand_dim;
    } else {
      if (indices_dim == ivd) ++indices_dim;
      dims.push_back(expanded[indices_dim]);
      dyn.push_back(indices_dim < indices.rank() && indices.is_dynamic_dimension(indices_dim));
      ++indices_dim;
    }
  }
  return MakeArray(operand.element_type(), dims, dyn);
}

absl::StatusOr<Shape> InferScatter(const OpContext& ctx) {
  const int64_t n = ctx.operand_count() / 2;
  if (ctx.operand_count() < 3 || 2 * n + 1 != ctx.operand_count()) {
    return Error(ctx, "expects 2N+1 operands (N operands, indices, N updates), got ",
                 ctx.operand_count());
  }
  RETURN_IF_ERROR(ExpectCalledCount(ctx, 1));
  const ScatterDimensionNumbers& dn = ctx.attrs.scatter_dimension_numbers();
  const int64_t ivd = dn.index_vector_dim();
  const Shape& indices = ctx.operand(n);
  ASSIGN_OR_RETURN(std::vector<int64_t> expanded, ExpandedIndices(ctx, indices, ivd));
  std::vector<int64_t> window_dims = ToVector(dn.update_window_dims());
  std::vector<int64_t> inserted = ToVector(dn.inserted_window_dims());
  std::vector<int64_t> to_operand = ToVector(dn.scatter_dims_to_operand_dims());
  std::vector<int64_t> op_batch = ToVector(dn.input_batching_dims());
  std::vector<int64_t> idx_batch = ToVector(dn.scatter_indices_batching_dims());

  for (int64_t k = 0; k < n; ++k) {
    const Shape& operand = ctx.operand(k);
    const Shape& updates = ctx.operand(n + 1 + k);
    RETURN_IF_ERROR(ExpectArray(ctx, operand, absl::StrCat("operand ", k)));
    RETURN_IF_ERROR(ExpectArray(ctx, updates, absl::StrCat("updates ", k)));
    if (!SameDims(operand, ctx.operand(0))) {
      return Error(ctx, "all operands must have the same dimensions, got ",
                   ShapeStr(ctx.operand(0)), " and ", ShapeStr(operand));
    }
    const int64_t expected_rank = static_cast<int64_t>(expanded.size()) - 1 +
                                  static_cast<int64_t>(window_dims.size());
    if (updates.rank() != expected_rank) {
      return Error(ctx, "updates ", ShapeStr(updates), " must have rank ", expected_rank);
    }
    RETURN_IF_ERROR(SortedUniqueInRange(ctx, "update_window_dims", window_dims, updates.rank()));
    RETURN_IF_ERROR(SortedUniqueInRange(ctx, "inserted_window_dims", inserted, operand.rank()));
    std::vector<int64_t> excluded = inserted;
    excluded.insert(excluded.end(), to_operand.begin(), to_operand.end());
    RETURN_IF_ERROR(CheckBatchingDims(ctx, operand, expanded, ivd, op_batch, idx_batch, excluded,
                                      "inserted_window_dims or scatter_dims_to_operand_dims"));
    if (static_cast<int64_t>(window_dims.size() + inserted.size() + op_batch.size()) !=
        operand.rank()) {
      return Error(ctx, "update_window_dims ", JoinInts(window_dims), ", inserted_window_dims ",
                   JoinInts(inserted), " and input_batching_dims ", JoinInts(op_batch),
                   " must together cover the operand rank ", operand.rank());
    }
    if (static_cast<int64_t>(to_operand.size()) != expanded[ivd]) {
      return Error(ctx, "scatter_dims_to_operand_dims ", JoinInts(to_operand), " has ",
                   to_operand.size(), " entries but dimension index_vector_dim=", ivd,
                   " of the indices has size ", expanded[ivd]);
    }
    RETURN_IF_ERROR(SortedUniqueInRange(ctx, "scatter_dims_to_operand_dims", to_operand,
                                        operand.rank(), /*require_sorted=*/false));
    // Window dims of updates may not exceed the operand's matching (non-inserted,
    // non-batching) dims.
    std::vector<int64_t> window_bounds;
    for (int64_t d = 0; d < operand.rank(); ++d) {
      if (!Contains(inserted, d) && !Contains(op_batch, d)) {
        window_bounds.push_back(operand.dimensions(d));
      }
    }
    for (size_t i = 0; i < window_dims.size(); ++i) {
      int64_t u = updates.dimensions(window_dims[i]);
      if (!DimsAgree(u, window_bounds[i]) && u > window_bounds[i]) {
        return Error(ctx, "updates window dimension ", window_dims[i], " (size ", u,
                     ") exceeds the operand bound ", window_bounds[i]);
      }
    }
    int64_t indices_dim = 0;
    for (int64_t d = 0; d < updates.rank(); ++d) {
      if (Contains(window_dims, d)) continue;
      if (indices_dim == ivd) ++indices_dim;
      if (!DimsAgree(updates.dimensions(d), expanded[indices_dim])) {
        return Error(ctx, "updates scatter dimension ", d, " (size ", updates.dimensions(d),
                     ") must equal indices dimension ", indices_dim, " (size ",
                     expanded[indices_dim], ")");
      }
      ++indices_dim;
    }
  }
  std::vector<Shape> inits;
  std::vector<PrimitiveType> update_types;
  for (int64_t k = 0; k < n; ++k) {
    inits.push_back(MakeArray(ctx.operand(k).element_type(), {}));
    update_types.push_back(ctx.operand(n + 1 + k).element_type());
  }
  std::vector<const Shape*> init_ptrs;
  for (const Shape& s : inits) init_ptrs.push_back(&s);
  RETURN_IF_ERROR(VerifyReducerShape(ctx, *ctx.called[0], init_ptrs, update_types));
  if (n == 1) {
    Shape result = ctx.operand(0);
    result.clear_layout();
    return result;
  }
  std::vector<Shape> results;
  for (int64_t k = 0; k < n; ++k) {
    results.push_back(ctx.operand(k));
    results.back().clear_layout();
  }
  return Shape::MakeTuple(std::move(results));
}

}  // namespace

absl::StatusOr<Shape> InferGatherScatter(const OpContext& ctx) {
  if (ctx.opcode == HloOpcode::kGather) return InferGather(ctx);
  return InferScatter(ctx);
}

}  // namespace shape_inference_internal
}  // namespace xla
