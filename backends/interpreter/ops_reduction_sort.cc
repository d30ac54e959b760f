// sort (variadic, custom comparator) and topk.
//
// sort: every 1-D slice along dimensions={d} is permuted by the comparator, called as
// comparator(op0[a], op0[b], op1[a], op1[b], ...) -> pred ("a before b"). Sorting is
// always stable (std::stable_sort), whether or not is_stable is set: XLA's evaluator uses
// std::sort for unstable sorts, whose order among equivalent elements is unspecified, so
// the stable order is one of the valid results and is reproducible. std::stable_sort
// also stays in bounds with a comparator that is not a strict weak order (e.g. LT with
// NaNs), where std::sort may not.
//
// topk: along the last dimension, the k largest (largest=true) or smallest values and
// their s32 indices, as XLA's TopK decomposition (a stable sort with a total-order GT or
// LT comparator): floats in total order (-NaN < -inf < ... < -0 < +0 < ... < inf < NaN),
// equal values in increasing index order.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/interpreter/evaluator.h"
#include "backends/interpreter/ops_reduction_util.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace {

using Operands = absl::Span<const Literal* const>;

absl::StatusOr<Literal> Sort(EvalContext& ctx, const HloInstruction& instruction, Operands operands) {
  if (operands.empty()) return absl::InvalidArgumentError("sort takes at least one operand");
  const int64_t n = static_cast<int64_t>(operands.size());
  const Shape& first = operands[0]->shape();
  if (!first.IsArray()) return absl::InvalidArgumentError("sort operands must be arrays");
  for (int64_t i = 0; i < n; ++i) {
    const Shape& s = operands[i]->shape();
    if (!s.IsArray() || s.dimensions() != first.dimensions()) {
      return absl::InvalidArgumentError(absl::StrCat("sort operand ", i, " has shape ", s.ToString(),
                                                     ", expected the dimensions of ", first.ToString()));
    }
  }
  const int64_t rank = first.rank();
  if (instruction.dimensions().size() != 1) {
    return absl::InvalidArgumentError("sort needs exactly one sort dimension");
  }
  const int64_t dim = instruction.dimensions(0);
  if (dim < 0 || dim >= std::max<int64_t>(rank, 1) || (rank == 0 && dim != 0)) {
    return absl::InvalidArgumentError(absl::StrCat("sort dimension ", dim, " out of range for rank ", rank));
  }
  const Shape& shape = instruction.shape();
  const bool tuple_result = shape.IsTuple();
  if ((tuple_result && shape.tuple_shapes_size() != n) || (!tuple_result && n != 1)) {
    return absl::InvalidArgumentError(absl::StrCat("sort of ", n, " operands cannot produce ", shape.ToString()));
  }
  for (int64_t i = 0; i < n; ++i) {
    const Shape& out = tuple_result ? shape.tuple_shapes(i) : shape;
    if (!out.IsArray() || out.dimensions() != first.dimensions() ||
        out.element_type() != operands[i]->shape().element_type()) {
      return absl::InvalidArgumentError(absl::StrCat("sort output ", i, " has shape ", out.ToString(),
                                                     ", expected that of operand ", i));
    }
  }
  ASSIGN_OR_RETURN(ScalarCaller compare, ScalarCaller::Create(ctx, instruction.to_apply(), 2 * n, 1, "comparator"));
  if (compare.result_type(0) != PRED) return absl::InvalidArgumentError("the comparator must return pred");

  std::vector<Literal> outputs;
  for (int64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(Literal out, Literal::Create(ShapeUtil::MakeShape(operands[i]->shape().element_type(),
                                                                       first.dimensions())));
    outputs.push_back(std::move(out));
  }
  auto finish = [&]() -> Literal {
    if (!tuple_result) return std::move(outputs[0]);
    return Literal::MakeTuple(std::move(outputs));
  };
  if (outputs[0].element_count() == 0) return finish();
  if (rank == 0) {
    for (int64_t i = 0; i < n; ++i) outputs[i] = operands[i]->Clone();
    return finish();
  }

  std::vector<ArrayView> in_views, out_views;
  for (int64_t i = 0; i < n; ++i) {
    in_views.push_back(ArrayView::Of(*operands[i]));
    out_views.push_back(ArrayView::Of(outputs[i]));
  }
  const int64_t length = first.dimensions(dim);
  // Iterate over all slices: the index with the sort dimension held at 0.
  std::vector<int64_t> slice_dims = first.dimensions();
  slice_dims[dim] = 1;
  std::vector<int64_t> slice_index(rank, 0);
  std::vector<int64_t> permutation(length);
  std::vector<int64_t> in_base(n), out_base(n);
  absl::Status status;
  do {
    for (int64_t i = 0; i < n; ++i) {
      in_base[i] = in_views[i].Offset(slice_index);
      out_base[i] = out_views[i].Offset(slice_index);
    }
    std::iota(permutation.begin(), permutation.end(), 0);
    auto less = [&](int64_t a, int64_t b) -> bool {
      if (!status.ok()) return false;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t stride = in_views[i].strides[dim];
        compare.SetArg(2 * i, in_views[i].At(in_base[i] + a * stride), in_views[i].type);
        compare.SetArg(2 * i + 1, in_views[i].At(in_base[i] + b * stride), in_views[i].type);
      }
      status = compare.Call();
      return status.ok() && compare.ResultAsBool();
    };
    std::stable_sort(permutation.begin(), permutation.end(), less);
    RETURN_IF_ERROR(status);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t in_stride = in_views[i].strides[dim];
      const int64_t out_stride = out_views[i].strides[dim];
      for (int64_t j = 0; j < length; ++j) {
        std::memcpy(out_views[i].MutableAt(out_base[i] + j * out_stride),
                    in_views[i].At(in_base[i] + permutation[j] * in_stride), in_views[i].width);
      }
    }
  } while (NextIndex(slice_dims, absl::MakeSpan(slice_index)));
  return finish();
}

// A key whose signed order is the total order of the element's values.
int64_t TotalOrderKey(const uint8_t* src, PrimitiveType type, int64_t width) {
  uint64_t bits = 0;
  std::memcpy(&bits, src, width);  // little-endian host: the low bytes
  if (type == PRED) return bits != 0;
  const int bit_width = primitive_util::BitWidth(type);
  if (primitive_util::IsSignedIntegralType(type)) {
    // Stored sign-extended in its storage width.
    if (width < 8 && (bits >> (width * 8 - 1)) & 1) bits |= ~uint64_t{0} << (width * 8);
    return static_cast<int64_t>(bits);
  }
  if (primitive_util::IsUnsignedIntegralType(type)) {
    return static_cast<int64_t>(bits ^ (uint64_t{1} << 63));  // order-preserving for u64 too
  }
  if (type == F8E8M0FNU) return static_cast<int64_t>(bits & 0xFF);  // no sign bit
  // Sign-magnitude float bits: negative values map below all positive ones, -0 to -1.
  if (bit_width < 64) bits &= (uint64_t{1} << bit_width) - 1;
  const uint64_t sign = uint64_t{1} << (bit_width - 1);
  const uint64_t magnitude = bits & (sign - 1);
  if (bits & sign) return -static_cast<int64_t>(magnitude) - 1;
  return static_cast<int64_t>(magnitude);
}

absl::StatusOr<Literal> TopK(EvalContext&, const HloInstruction& instruction, Operands operands) {
  if (operands.size() != 1 || !operands[0]->shape().IsArray()) {
    return absl::InvalidArgumentError("topk takes one array operand");
  }
  const Literal& operand = *operands[0];
  const Shape& in_shape = operand.shape();
  const PrimitiveType type = in_shape.element_type();
  if (in_shape.rank() < 1) return absl::InvalidArgumentError("topk needs an operand of rank >= 1");
  if (primitive_util::IsComplexType(type)) {
    return absl::InvalidArgumentError("topk of complex values is not defined");
  }
  const int64_t rank = in_shape.rank();
  const int64_t length = in_shape.dimensions(rank - 1);
  const int64_t k = instruction.attrs().k();
  if (k < 0 || k > length) {
    return absl::InvalidArgumentError(absl::StrCat("k=", k, " must be in [0, ", length, "]"));
  }
  std::vector<int64_t> out_dims = in_shape.dimensions();
  out_dims[rank - 1] = k;
  const Shape& shape = instruction.shape();
  if (!shape.IsTuple() || shape.tuple_shapes_size() != 2 || !shape.tuple_shapes(0).IsArray() ||
      !shape.tuple_shapes(1).IsArray() || shape.tuple_shapes(0).dimensions() != out_dims ||
      shape.tuple_shapes(1).dimensions() != out_dims || shape.tuple_shapes(0).element_type() != type ||
      !primitive_util::IsIntegralType(shape.tuple_shapes(1).element_type())) {
    return absl::InvalidArgumentError(absl::StrCat("topk result ", shape.ToString(), " does not fit operand ",
                                                   in_shape.ToString(), " and k=", k));
  }
  ASSIGN_OR_RETURN(Literal values, Literal::Create(ShapeUtil::MakeShape(type, out_dims)));
  ASSIGN_OR_RETURN(Literal indices,
                   Literal::Create(ShapeUtil::MakeShape(shape.tuple_shapes(1).element_type(), out_dims)));
  const bool largest = instruction.attrs().largest();
  if (values.element_count() > 0) {
    const ArrayView in_view = ArrayView::Of(operand);
    const ArrayView out_view = ArrayView::Of(values);
    std::vector<int64_t> row_dims = in_shape.dimensions();
    row_dims[rank - 1] = 1;
    std::vector<int64_t> row_index(rank, 0);
    std::vector<int64_t> keys(length), order(length);
    const int64_t in_stride = in_view.strides[rank - 1];
    const int64_t out_stride = out_view.strides[rank - 1];
    int64_t out_linear = 0;  // row-major: a row's k results are consecutive
    do {
      const int64_t in_base = in_view.Offset(row_index);
      const int64_t out_base = out_view.Offset(row_index);
      for (int64_t j = 0; j < length; ++j) keys[j] = TotalOrderKey(in_view.At(in_base + j * in_stride), type, in_view.width);
      std::iota(order.begin(), order.end(), 0);
      if (largest) {
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return keys[a] > keys[b]; });
      } else {
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
      }
      for (int64_t j = 0; j < k; ++j) {
        std::memcpy(out_view.MutableAt(out_base + j * out_stride), in_view.At(in_base + order[j] * in_stride),
                    in_view.width);
        indices.SetFromInt64(out_linear++, order[j]);
      }
    } while (NextIndex(row_dims, absl::MakeSpan(row_index)));
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(values));
  elements.push_back(std::move(indices));
  return Literal::MakeTuple(std::move(elements));
}

}  // namespace

void RegisterSortHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kSort, Sort);
  table->Register(HloOpcode::kTopk, TopK);
}

}  // namespace interpreter
}  // namespace xla
