// gather and scatter with XLA's dimension numbers, batching dimensions included.
// gather clamps each start so that the slice fits in the operand; scatter skips a whole
// update window whose start would put any part of it out of bounds (as XLA's evaluator).
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/interpreter/ops_shape_internal.h"
#include "hlo/hlo_computation.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace shape_ops {
namespace {

// Calls fn(index) for every multi-index of `dims` in row-major order (once for rank 0,
// never when a dimension is empty).
template <typename Fn>
absl::Status ForEachIndex(absl::Span<const int64_t> dims, Fn&& fn) {
  for (int64_t d : dims) {
    if (d <= 0) return absl::OkStatus();
  }
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> index(rank, 0);
  while (true) {
    RETURN_IF_ERROR(fn(absl::Span<const int64_t>(index)));
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
    if (d < 0) return absl::OkStatus();
  }
}

absl::Status CheckDims(absl::Span<const int64_t> dims, int64_t rank, const char* what) {
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d]) {
      return absl::InvalidArgumentError(absl::StrCat(what, " has a repeated or out-of-range dimension ", d));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

bool Contains(absl::Span<const int64_t> dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

template <typename Repeated>
std::vector<int64_t> ToVector(const Repeated& field) {
  return std::vector<int64_t>(field.begin(), field.end());
}

// How start indices are read: the index vector of batch position g lies along
// index_vector_dim (implicitly of size 1 when it equals the indices' rank), and the
// remaining indices dimensions (in order) are the batch dimensions.
struct StartIndices {
  std::vector<int64_t> values;      // all indices, row-major, as int64
  std::vector<int64_t> strides;     // row-major strides of the indices
  std::vector<int64_t> batch_dims;  // indices dimensions other than index_vector_dim
  std::vector<int64_t> batch_sizes;
  int64_t vector_dim = 0;
  int64_t vector_size = 1;

  // Batch positions of the given indices dimensions (for the batching dims).
  absl::StatusOr<std::vector<int64_t>> PositionsOf(absl::Span<const int64_t> indices_dims) const {
    std::vector<int64_t> positions;
    for (int64_t d : indices_dims) {
      auto it = std::find(batch_dims.begin(), batch_dims.end(), d);
      if (it == batch_dims.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("indices batching dimension ", d, " is not a batch dimension of the indices"));
      }
      positions.push_back(it - batch_dims.begin());
    }
    return positions;
  }
  int64_t BaseOf(absl::Span<const int64_t> batch_index) const {
    int64_t base = 0;
    for (size_t j = 0; j < batch_index.size(); ++j) base += batch_index[j] * strides[batch_dims[j]];
    return base;
  }
  int64_t Component(int64_t base, int64_t k) const {
    return values[base + (vector_dim < static_cast<int64_t>(strides.size()) ? k * strides[vector_dim] : 0)];
  }
};

absl::StatusOr<StartIndices> ReadStartIndices(const Literal& indices, int64_t index_vector_dim) {
  RETURN_IF_ERROR(CheckArray(indices, "start indices"));
  if (!primitive_util::IsIntegralType(indices.shape().element_type())) {
    return absl::InvalidArgumentError(
        absl::StrCat("start indices must be integers, got ", indices.shape().ToString()));
  }
  const Shape& shape = indices.shape();
  if (index_vector_dim < 0 || index_vector_dim > shape.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("index_vector_dim ", index_vector_dim, " out of range for ", shape.ToString()));
  }
  StartIndices s;
  s.vector_dim = index_vector_dim;
  s.vector_size = index_vector_dim < shape.rank() ? shape.dimensions(index_vector_dim) : 1;
  s.strides = RowMajorStrides(shape.dimensions());
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (d == index_vector_dim) continue;
    s.batch_dims.push_back(d);
    s.batch_sizes.push_back(shape.dimensions(d));
  }
  s.values.resize(indices.element_count());
  for (int64_t i = 0; i < indices.element_count(); ++i) s.values[i] = ReadIndex(indices, i);
  return s;
}

absl::StatusOr<Literal> Gather(EvalContext&, const HloInstruction& instruction, Operands operands) {
  ASSIGN_OR_RETURN(RowMajor operand, RowMajor::Of(*operands[0]));
  const auto& dnums = instruction.attrs().gather_dimension_numbers();
  ASSIGN_OR_RETURN(StartIndices indices, ReadStartIndices(*operands[1], dnums.index_vector_dim()));
  const Shape& in_shape = operand.shape();
  const Shape& out_shape = instruction.shape();
  if (!out_shape.IsArray() || out_shape.element_type() != in_shape.element_type()) {
    return absl::InvalidArgumentError("gather result must be an array of the operand's type");
  }
  const int64_t rank = in_shape.rank();
  const std::vector<int64_t> start_map = ToVector(dnums.start_index_map());
  const std::vector<int64_t> collapsed = ToVector(dnums.collapsed_slice_dims());
  const std::vector<int64_t> batching = ToVector(dnums.operand_batching_dims());
  const std::vector<int64_t> indices_batching = ToVector(dnums.start_indices_batching_dims());
  const std::vector<int64_t> offset_dims = ToVector(dnums.offset_dims());
  const std::vector<int64_t> slice_sizes = ToVector(instruction.attrs().gather_slice_sizes());
  RETURN_IF_ERROR(CheckDims(start_map, rank, "start_index_map"));
  RETURN_IF_ERROR(CheckDims(collapsed, rank, "collapsed_slice_dims"));
  RETURN_IF_ERROR(CheckDims(batching, rank, "operand_batching_dims"));
  RETURN_IF_ERROR(CheckDims(offset_dims, out_shape.rank(), "offset_dims"));
  if (static_cast<int64_t>(start_map.size()) != indices.vector_size) {
    return absl::InvalidArgumentError(absl::StrCat("start_index_map has ", start_map.size(),
                                                   " entries but index vectors have ", indices.vector_size));
  }
  if (static_cast<int64_t>(slice_sizes.size()) != rank) {
    return absl::InvalidArgumentError("slice_sizes needs one size per operand dimension");
  }
  if (batching.size() != indices_batching.size()) {
    return absl::InvalidArgumentError("operand and start indices batching dims differ in number");
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> batch_positions, indices.PositionsOf(indices_batching));
  std::vector<int64_t> window_dims;  // operand dims that become offset dims, in order
  for (int64_t d = 0; d < rank; ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > in_shape.dimensions(d)) {
      return absl::InvalidArgumentError(
          absl::StrCat("slice size ", slice_sizes[d], " of dimension ", d, " does not fit the operand"));
    }
    const bool is_collapsed = Contains(collapsed, d);
    const bool is_batching = Contains(batching, d);
    if (is_collapsed && is_batching) {
      return absl::InvalidArgumentError(absl::StrCat("dimension ", d, " is both collapsed and batching"));
    }
    if ((is_collapsed || is_batching) && slice_sizes[d] > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("collapsed or batching dimension ", d, " needs slice size 1"));
    }
    if (!is_collapsed && !is_batching) window_dims.push_back(d);
  }
  if (window_dims.size() != offset_dims.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("offset_dims has ", offset_dims.size(), " entries, expected ", window_dims.size()));
  }
  std::vector<int64_t> out_batch_dims;
  for (int64_t d = 0; d < out_shape.rank(); ++d) {
    if (!Contains(offset_dims, d)) out_batch_dims.push_back(d);
  }
  if (out_batch_dims.size() != indices.batch_dims.size()) {
    return absl::InvalidArgumentError("result rank does not match the gather's batch and offset dims");
  }
  for (size_t j = 0; j < out_batch_dims.size(); ++j) {
    if (out_shape.dimensions(out_batch_dims[j]) != indices.batch_sizes[j]) {
      return absl::InvalidArgumentError("result batch dimensions differ from the start indices'");
    }
  }
  for (size_t k = 0; k < offset_dims.size(); ++k) {
    if (out_shape.dimensions(offset_dims[k]) != slice_sizes[window_dims[k]]) {
      return absl::InvalidArgumentError("result offset dimensions differ from the slice sizes");
    }
  }
  for (size_t i = 0; i < batching.size(); ++i) {
    if (in_shape.dimensions(batching[i]) != indices.batch_sizes[batch_positions[i]]) {
      return absl::InvalidArgumentError("operand and start indices batching dimensions differ in size");
    }
  }

  ASSIGN_OR_RETURN(Literal result, CreateRowMajor(out_shape));
  const std::vector<int64_t> in_strides = RowMajorStrides(in_shape.dimensions());
  const std::vector<int64_t> out_strides = RowMajorStrides(out_shape.dimensions());
  CopyPlan plan;
  for (size_t k = 0; k < window_dims.size(); ++k) {
    plan.dims.push_back(slice_sizes[window_dims[k]]);
    plan.src_strides.push_back(in_strides[window_dims[k]]);
    plan.dst_strides.push_back(out_strides[offset_dims[k]]);
  }
  if (result.element_count() == 0) return result;
  const int width = ElementBytes(out_shape.element_type());
  uint8_t* dst = static_cast<uint8_t*>(result.untyped_data());
  std::vector<int64_t> start(rank);
  RETURN_IF_ERROR(ForEachIndex(indices.batch_sizes, [&](absl::Span<const int64_t> g) -> absl::Status {
    std::fill(start.begin(), start.end(), 0);
    const int64_t base = indices.BaseOf(g);
    for (size_t k = 0; k < start_map.size(); ++k) start[start_map[k]] = indices.Component(base, k);
    for (size_t i = 0; i < batching.size(); ++i) start[batching[i]] = g[batch_positions[i]];
    plan.src_base = 0;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t clamped =
          std::min(std::max<int64_t>(start[d], 0), in_shape.dimensions(d) - slice_sizes[d]);
      plan.src_base += clamped * in_strides[d];
    }
    plan.dst_base = 0;
    for (size_t j = 0; j < g.size(); ++j) plan.dst_base += g[j] * out_strides[out_batch_dims[j]];
    StridedCopy(width, operand.bytes(), dst, plan);
    return absl::OkStatus();
  }));
  return result;
}

// True when the combiner just returns its update arguments (overwrite).
bool IsOverwrite(const HloComputation& combiner, int64_t n) {
  const HloInstruction* root = combiner.root_instruction();
  if (root == nullptr) return false;
  auto is_update = [&](const HloInstruction* value, int64_t i) {
    return value->opcode() == HloOpcode::kParameter && value->parameter_number() == n + i;
  };
  if (n == 1 && is_update(root, 0)) return true;
  if (root->opcode() != HloOpcode::kTuple || root->operand_count() != n) return false;
  for (int64_t i = 0; i < n; ++i) {
    if (!is_update(root->operand(i), i)) return false;
  }
  return true;
}

absl::StatusOr<Literal> Scatter(EvalContext& ctx, const HloInstruction& instruction, Operands operands) {
  if (operands.size() < 3 || operands.size() % 2 == 0) {
    return absl::InvalidArgumentError("scatter takes N operands, indices and N updates");
  }
  const int64_t n = (static_cast<int64_t>(operands.size()) - 1) / 2;
  const HloComputation* combiner = instruction.to_apply();
  if (combiner == nullptr) return absl::InvalidArgumentError("scatter has no update computation");
  const auto& dnums = instruction.attrs().scatter_dimension_numbers();
  ASSIGN_OR_RETURN(StartIndices indices, ReadStartIndices(*operands[n], dnums.index_vector_dim()));
  std::vector<RowMajor> updates;
  std::vector<Literal> results;
  for (int64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(RowMajor operand, RowMajor::Of(*operands[i]));
    ASSIGN_OR_RETURN(RowMajor update, RowMajor::Of(*operands[n + 1 + i]));
    if (!ShapeUtil::SameDimensions(operand.shape(), operands[0]->shape()) ||
        !ShapeUtil::SameDimensions(update.shape(), operands[n + 1]->shape()) ||
        operand.shape().element_type() != update.shape().element_type()) {
      return absl::InvalidArgumentError("scatter operands (and updates) must agree in shape and type");
    }
    Shape row_major = operand.shape();
    row_major.clear_layout();
    ASSIGN_OR_RETURN(Literal result,
                     Literal::CreateFromBuffer(row_major, operand.bytes(), operand.literal().size_bytes()));
    results.push_back(std::move(result));
    updates.push_back(std::move(update));
  }
  const Shape& in_shape = results[0].shape();
  const Shape& up_shape = updates[0].shape();
  const int64_t rank = in_shape.rank();
  const std::vector<int64_t> window_update_dims = ToVector(dnums.update_window_dims());
  const std::vector<int64_t> inserted = ToVector(dnums.inserted_window_dims());
  const std::vector<int64_t> batching = ToVector(dnums.input_batching_dims());
  const std::vector<int64_t> indices_batching = ToVector(dnums.scatter_indices_batching_dims());
  const std::vector<int64_t> to_operand = ToVector(dnums.scatter_dims_to_operand_dims());
  RETURN_IF_ERROR(CheckDims(window_update_dims, up_shape.rank(), "update_window_dims"));
  RETURN_IF_ERROR(CheckDims(inserted, rank, "inserted_window_dims"));
  RETURN_IF_ERROR(CheckDims(batching, rank, "input_batching_dims"));
  RETURN_IF_ERROR(CheckDims(to_operand, rank, "scatter_dims_to_operand_dims"));
  if (static_cast<int64_t>(to_operand.size()) != indices.vector_size) {
    return absl::InvalidArgumentError(absl::StrCat("scatter_dims_to_operand_dims has ", to_operand.size(),
                                                   " entries but index vectors have ", indices.vector_size));
  }
  if (batching.size() != indices_batching.size()) {
    return absl::InvalidArgumentError("input and scatter indices batching dims differ in number");
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> batch_positions, indices.PositionsOf(indices_batching));
  std::vector<int64_t> window_dims;  // operand dims the update window spans, in order
  for (int64_t d = 0; d < rank; ++d) {
    const bool is_inserted = Contains(inserted, d);
    const bool is_batching = Contains(batching, d);
    if (is_inserted && is_batching) {
      return absl::InvalidArgumentError(absl::StrCat("dimension ", d, " is both inserted and batching"));
    }
    if (!is_inserted && !is_batching) window_dims.push_back(d);
  }
  if (window_dims.size() != window_update_dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat("update_window_dims has ", window_update_dims.size(),
                                                   " entries, expected ", window_dims.size()));
  }
  std::vector<int64_t> window_size(rank, 1);
  for (size_t k = 0; k < window_dims.size(); ++k) {
    window_size[window_dims[k]] = up_shape.dimensions(window_update_dims[k]);
    if (window_size[window_dims[k]] > in_shape.dimensions(window_dims[k])) {
      return absl::InvalidArgumentError("update window is larger than the operand");
    }
  }
  std::vector<int64_t> scatter_update_dims;
  for (int64_t d = 0; d < up_shape.rank(); ++d) {
    if (!Contains(window_update_dims, d)) scatter_update_dims.push_back(d);
  }
  if (scatter_update_dims.size() != indices.batch_dims.size()) {
    return absl::InvalidArgumentError("updates rank does not match the scatter's batch and window dims");
  }
  for (size_t j = 0; j < scatter_update_dims.size(); ++j) {
    if (up_shape.dimensions(scatter_update_dims[j]) != indices.batch_sizes[j]) {
      return absl::InvalidArgumentError("update scatter dimensions differ from the indices' batch dims");
    }
  }
  for (size_t i = 0; i < batching.size(); ++i) {
    if (in_shape.dimensions(batching[i]) != indices.batch_sizes[batch_positions[i]]) {
      return absl::InvalidArgumentError("input and scatter indices batching dimensions differ in size");
    }
  }

  const std::vector<int64_t> in_strides = RowMajorStrides(in_shape.dimensions());
  const std::vector<int64_t> up_strides = RowMajorStrides(up_shape.dimensions());
  std::vector<int64_t> window_extent;
  for (int64_t d : window_update_dims) window_extent.push_back(up_shape.dimensions(d));
  std::vector<int> widths;
  for (const Literal& r : results) widths.push_back(ElementBytes(r.shape().element_type()));

  const bool overwrite = IsOverwrite(*combiner, n);
  // Scalar arguments of the combiner, reused for every element: operands then updates.
  std::vector<Literal> args;
  std::vector<const Literal*> arg_ptrs;
  if (!overwrite) {
    for (int64_t i = 0; i < 2 * n; ++i) {
      ASSIGN_OR_RETURN(Literal arg,
                       Literal::Create(ShapeUtil::MakeShape(results[i % n].shape().element_type(), {})));
      args.push_back(std::move(arg));
    }
    for (const Literal& arg : args) arg_ptrs.push_back(&arg);
  }
  auto combine = [&](int64_t in_pos, int64_t up_pos) -> absl::Status {
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(args[i].untyped_data(),
                  static_cast<const uint8_t*>(results[i].untyped_data()) + in_pos * widths[i], widths[i]);
      std::memcpy(args[n + i].untyped_data(), updates[i].bytes() + up_pos * widths[i], widths[i]);
    }
    ASSIGN_OR_RETURN(Literal value, ctx.evaluator->Evaluate(*combiner, arg_ptrs));
    for (int64_t i = 0; i < n; ++i) {
      const Literal* part = &value;
      if (value.IsTuple()) {
        if (value.tuple_element_count() != n) {
          return absl::InvalidArgumentError("update computation returns the wrong number of values");
        }
        part = &value.tuple_element(i);
      } else if (n != 1) {
        return absl::InvalidArgumentError("variadic scatter's update computation must return a tuple");
      }
      if (!part->shape().IsArray() || part->element_count() != 1 ||
          part->shape().element_type() != results[i].shape().element_type()) {
        return absl::InvalidArgumentError("update computation must return scalars of the operand types");
      }
      std::memcpy(static_cast<uint8_t*>(results[i].untyped_data()) + in_pos * widths[i], part->untyped_data(),
                  widths[i]);
    }
    return absl::OkStatus();
  };

  std::vector<int64_t> start(rank);
  RETURN_IF_ERROR(ForEachIndex(indices.batch_sizes, [&](absl::Span<const int64_t> g) -> absl::Status {
    std::fill(start.begin(), start.end(), 0);
    const int64_t base = indices.BaseOf(g);
    for (size_t k = 0; k < to_operand.size(); ++k) start[to_operand[k]] = indices.Component(base, k);
    for (size_t i = 0; i < batching.size(); ++i) start[batching[i]] = g[batch_positions[i]];
    int64_t in_base = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (start[d] < 0 || start[d] > in_shape.dimensions(d) - window_size[d]) {
        return absl::OkStatus();  // the window would leave the operand: skipped entirely
      }
      in_base += start[d] * in_strides[d];
    }
    int64_t up_base = 0;
    for (size_t j = 0; j < g.size(); ++j) up_base += g[j] * up_strides[scatter_update_dims[j]];
    if (overwrite) {
      CopyPlan plan;
      plan.dims = window_extent;
      for (size_t k = 0; k < window_dims.size(); ++k) {
        plan.src_strides.push_back(up_strides[window_update_dims[k]]);
        plan.dst_strides.push_back(in_strides[window_dims[k]]);
      }
      plan.src_base = up_base;
      plan.dst_base = in_base;
      for (int64_t i = 0; i < n; ++i) {
        StridedCopy(widths[i], updates[i].bytes(), static_cast<uint8_t*>(results[i].untyped_data()), plan);
      }
      return absl::OkStatus();
    }
    return ForEachIndex(window_extent, [&](absl::Span<const int64_t> w) -> absl::Status {
      int64_t in_pos = in_base;
      int64_t up_pos = up_base;
      for (size_t k = 0; k < w.size(); ++k) {
        in_pos += w[k] * in_strides[window_dims[k]];
        up_pos += w[k] * up_strides[window_update_dims[k]];
      }
      return combine(in_pos, up_pos);
    });
  }));
  if (n == 1) return std::move(results[0]);
  return Literal::MakeTuple(std::move(results));
}

}  // namespace

void RegisterGatherScatterHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kGather, WithMinOperands(2, Gather));
  table->Register(HloOpcode::kScatter, WithMinOperands(3, Scatter));
}

}  // namespace shape_ops
}  // namespace interpreter
}  // namespace xla
