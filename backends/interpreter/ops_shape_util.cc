// Byte-level helpers of the shape op family (see ops_shape_internal.h).
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "backends/interpreter/ops_shape_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace shape_ops {
namespace {

// Element copy with the width known at compile time, so memcpy becomes one move.
template <int kBytes>
void StridedCopyFixed(const uint8_t* src, uint8_t* dst, const CopyPlan& plan) {
  const int64_t rank = static_cast<int64_t>(plan.dims.size());
  for (int64_t d : plan.dims) {
    if (d <= 0) return;
  }
  if (rank == 0) {
    std::memcpy(dst + plan.dst_base * kBytes, src + plan.src_base * kBytes, kBytes);
    return;
  }
  const int64_t inner = plan.dims[rank - 1];
  const int64_t inner_src = plan.src_strides[rank - 1];
  const int64_t inner_dst = plan.dst_strides[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t src_pos = plan.src_base;
  int64_t dst_pos = plan.dst_base;
  while (true) {
    const uint8_t* s = src + src_pos * kBytes;
    uint8_t* t = dst + dst_pos * kBytes;
    for (int64_t i = 0; i < inner; ++i) {
      std::memcpy(t, s, kBytes);
      s += inner_src * kBytes;
      t += inner_dst * kBytes;
    }
    // Advance the odometer over the outer dimensions.
    int64_t d = rank - 2;
    for (; d >= 0; --d) {
      if (++index[d] < plan.dims[d]) {
        src_pos += plan.src_strides[d];
        dst_pos += plan.dst_strides[d];
        break;
      }
      src_pos -= (plan.dims[d] - 1) * plan.src_strides[d];
      dst_pos -= (plan.dims[d] - 1) * plan.dst_strides[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

template <int kBytes>
void FillFixed(const uint8_t* value, uint8_t* dst, int64_t count) {
  for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * kBytes, value, kBytes);
}

}  // namespace

bool IsRowMajor(const Shape& shape) { return ShapeUtil::HasDescendingLayout(shape); }

absl::StatusOr<RowMajor> RowMajor::Of(const Literal& literal) {
  RETURN_IF_ERROR(CheckArray(literal, "operand"));
  RowMajor view;
  view.source_ = &literal;
  if (!IsRowMajor(literal.shape())) {
    ASSIGN_OR_RETURN(Literal copy, literal.Relayout(ShapeUtil::MakeDescendingLayout(literal.shape().rank())));
    view.owned_ = std::move(copy);
  }
  return view;
}

absl::StatusOr<Literal> CreateRowMajor(const Shape& shape) {
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat("expected an array result shape, got ", shape.ToString()));
  }
  Shape row_major = shape;
  row_major.clear_layout();
  for (int64_t i = 0; i < row_major.rank(); ++i) {
    if (row_major.is_unbounded_dynamic_dimension(i)) {
      return absl::UnimplementedError(absl::StrCat("unbounded dynamic result shape ", shape.ToString()));
    }
  }
  return Literal::Create(row_major);
}

int ElementBytes(PrimitiveType type) { return primitive_util::ByteWidth(type); }

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

void StridedCopy(int element_bytes, const uint8_t* src, uint8_t* dst, const CopyPlan& plan) {
  switch (element_bytes) {
    case 1:
      return StridedCopyFixed<1>(src, dst, plan);
    case 2:
      return StridedCopyFixed<2>(src, dst, plan);
    case 4:
      return StridedCopyFixed<4>(src, dst, plan);
    case 8:
      return StridedCopyFixed<8>(src, dst, plan);
    case 16:
      return StridedCopyFixed<16>(src, dst, plan);
    default:
      return;  // no array type has another width
  }
}

void FillElements(int element_bytes, const uint8_t* value, uint8_t* dst, int64_t count) {
  switch (element_bytes) {
    case 1:
      return FillFixed<1>(value, dst, count);
    case 2:
      return FillFixed<2>(value, dst, count);
    case 4:
      return FillFixed<4>(value, dst, count);
    case 8:
      return FillFixed<8>(value, dst, count);
    case 16:
      return FillFixed<16>(value, dst, count);
    default:
      return;
  }
}

int64_t ReadIndex(const Literal& indices, int64_t i) {
  if (primitive_util::IsUnsignedIntegralType(indices.shape().element_type())) {
    const uint64_t value = indices.GetAsUint64(i);
    constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    return static_cast<int64_t>(value > kMax ? kMax : value);
  }
  return indices.GetAsInt64(i);
}

OpHandler WithMinOperands(size_t min_operands, OpHandler handler) {
  return [min_operands, handler = std::move(handler)](EvalContext& ctx, const HloInstruction& instruction,
                                                      Operands operands) -> absl::StatusOr<Literal> {
    if (operands.size() < min_operands) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected at least ", min_operands, " operands, got ", operands.size()));
    }
    return handler(ctx, instruction, operands);
  };
}

absl::Status CheckArray(const Literal& literal, const char* what) {
  if (!literal.shape().IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be an array, got ", literal.shape().ToString()));
  }
  return absl::OkStatus();
}

}  // namespace shape_ops
}  // namespace interpreter
}  // namespace xla
