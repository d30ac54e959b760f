#ifndef XLA_BACKENDS_INTERPRETER_OPS_SHAPE_INTERNAL_H_
#define XLA_BACKENDS_INTERPRETER_OPS_SHAPE_INTERNAL_H_

// Shared pieces of the shape op family (ops_shape*.cc). Shape ops only move elements, so
// they work on bytes: every operand is viewed in row-major (default layout) storage, the
// result is built row-major, and elements are copied as fixed-size byte blocks (the
// storage width of the element type, see hlo/literal.h). No per-element type dispatch.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/interpreter/evaluator.h"
#include "hlo/literal.h"
#include "hlo/shape.h"

namespace xla {
namespace interpreter {
namespace shape_ops {

using Operands = absl::Span<const Literal* const>;

// An array literal in row-major storage: the literal itself when it already is, else a
// relayouted copy.
class RowMajor {
 public:
  static absl::StatusOr<RowMajor> Of(const Literal& literal);
  const Literal& literal() const { return owned_ ? *owned_ : *source_; }
  const uint8_t* bytes() const { return static_cast<const uint8_t*>(literal().untyped_data()); }
  const Shape& shape() const { return literal().shape(); }

 private:
  const Literal* source_ = nullptr;
  std::optional<Literal> owned_;
};

bool IsRowMajor(const Shape& shape);

// A zero-filled row-major literal of `shape` (its layout is dropped; dynamic dimensions
// take their bound).
absl::StatusOr<Literal> CreateRowMajor(const Shape& shape);

// Storage bytes of one element of `type` (sub-byte types take one byte).
int ElementBytes(PrimitiveType type);

// Row-major strides in elements.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);

// Copies the elements of an index space `dims`: element i (multi-index) goes from
// src[src_base + sum i_k * src_strides[k]] to dst[dst_base + sum i_k * dst_strides[k]]
// (offsets and strides in elements; strides may be zero or negative).
struct CopyPlan {
  std::vector<int64_t> dims;
  std::vector<int64_t> src_strides;
  std::vector<int64_t> dst_strides;
  int64_t src_base = 0;
  int64_t dst_base = 0;
};
void StridedCopy(int element_bytes, const uint8_t* src, uint8_t* dst, const CopyPlan& plan);

// Fills `count` elements of dst with the element at `value`.
void FillElements(int element_bytes, const uint8_t* value, uint8_t* dst, int64_t count);

// Element `i` (row-major) of an integral index literal as int64: unsigned values above
// INT64_MAX saturate (they are clamped or out of bounds anyway).
int64_t ReadIndex(const Literal& indices, int64_t i);

// Checks that the operand is an array (not a tuple or token).
absl::Status CheckArray(const Literal& literal, const char* what);

// `handler` behind a check that at least `min_operands` operands were passed (variadic
// opcodes can arrive with too few from hand-built modules).
OpHandler WithMinOperands(size_t min_operands, OpHandler handler);

// The other files of the family.
void RegisterShapeIndexingHandlers(HandlerTable* table);  // slice, dynamic-*, pad, concatenate
void RegisterGatherScatterHandlers(HandlerTable* table);  // gather, scatter

}  // namespace shape_ops
}  // namespace interpreter
}  // namespace xla

#endif  // XLA_BACKENDS_INTERPRETER_OPS_SHAPE_INTERNAL_H_
