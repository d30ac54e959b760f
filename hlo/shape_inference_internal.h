#ifndef XLA_HLO_SHAPE_INFERENCE_INTERNAL_H_
#define XLA_HLO_SHAPE_INFERENCE_INTERNAL_H_

// Shared helpers of the shape_inference_*.cc files (not a public interface).
//
// Every op family exposes one function `Infer<Family>(const OpContext&)`. It returns the
// inferred result shape. When `ctx.declared` is set (verification of an instruction that
// carries its shape), ops whose result cannot be derived from operands and attributes
// (broadcast, reshape, convert, iota, custom-call, ...) validate the declared shape and
// return it; without it they fail with ShapeMustBeGiven(). Ops where XLA lets the
// declared element type choose the result type (dot, convolution: the "preferred element
// type") read it from `ctx.declared` too.

#include <cstdint>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "hlo/hlo_opcode.h"
#include "hlo/shape.h"
#include "proto/hlo.pb.h"

namespace xla {
namespace shape_inference_internal {

struct OpContext {
  HloOpcode opcode;
  absl::Span<const Shape* const> operands;
  const HloInstructionProto& attrs;
  absl::Span<const ProgramShape* const> called;
  // The instruction's declared shape; null for pure inference.
  const Shape* declared = nullptr;
  // Instruction name for messages; may be empty.
  absl::string_view name;
  // Shape of a constant's literal, when known.
  const Shape* literal_shape = nullptr;

  const Shape& operand(int64_t i) const { return *operands[i]; }
  int64_t operand_count() const { return static_cast<int64_t>(operands.size()); }
};

// "add" or "add 'add.3'" for messages.
std::string OpLabel(const OpContext& ctx);

// InvalidArgument prefixed with the op label.
template <typename... Args>
absl::Status Error(const OpContext& ctx, const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(OpLabel(ctx), ": ", args...));
}

// "<op>: the result shape cannot be inferred and must be given".
absl::Status ShapeMustBeGiven(const OpContext& ctx);

// Operand count must equal n / be at least n.
absl::Status ExpectOperandCount(const OpContext& ctx, int64_t n);
absl::Status ExpectMinOperandCount(const OpContext& ctx, int64_t n);
// Number of called computations must equal n.
absl::Status ExpectCalledCount(const OpContext& ctx, int64_t n);
absl::Status ExpectArray(const OpContext& ctx, const Shape& shape, absl::string_view what);
absl::Status ExpectScalar(const OpContext& ctx, const Shape& shape, absl::string_view what);
// The declared shape, or ShapeMustBeGiven.
absl::StatusOr<const Shape*> RequireDeclared(const OpContext& ctx);

// Text helpers.
std::string ShapeStr(const Shape& shape);  // without layout
std::string TypeStr(PrimitiveType type);   // "f32"
std::string JoinInts(absl::Span<const int64_t> values);  // "{1,2}"
template <typename RepeatedInt>
std::vector<int64_t> ToVector(const RepeatedInt& field) {
  return std::vector<int64_t>(field.begin(), field.end());
}

// Array shape with explicit dynamic flags (dynamic may be empty = all static).
Shape MakeArray(PrimitiveType type, absl::Span<const int64_t> dims,
                const std::vector<bool>& dynamic = {});
Shape ChangeType(const Shape& shape, PrimitiveType type);
// Copy without layouts (recursively).
Shape StripLayout(const Shape& shape);

// Dimension sizes agree (an unbounded dynamic size `?` agrees with anything).
bool DimsAgree(int64_t a, int64_t b);
// Same rank and agreeing dimension sizes; types and dynamism ignored.
bool SameDims(const Shape& a, const Shape& b);
// Same structure, element types and dimension sizes; layout and dynamism ignored (what
// XLA's ShapeUtil::Compatible compares).
bool ShapesCompatible(const Shape& a, const Shape& b);
// As ShapesCompatible but floating-point element types may differ from each other.
bool ShapesCompatibleIgnoringFpPrecision(const Shape& a, const Shape& b);
bool ShapesCompatibleIgnoringElementType(const Shape& a, const Shape& b);

bool IsFloating(PrimitiveType t);
bool IsComplex(PrimitiveType t);
bool IsIntegral(PrimitiveType t);
bool IsSigned(PrimitiveType t);  // signed integral, floating or complex
// The type with more precision among two floating types (or `a` when equal/not float).
PrimitiveType HigherPrecisionType(PrimitiveType a, PrimitiveType b);

// All values distinct / each in [0, bound).
bool AllUnique(absl::Span<const int64_t> values);
bool AllInRange(absl::Span<const int64_t> values, int64_t bound);
bool IsPermutation(absl::Span<const int64_t> values, int64_t n);

// Output shape of sliding `window` over `base` (reduce-window, select-and-scatter, conv).
absl::StatusOr<Shape> InferWindowOutputShape(const OpContext& ctx, const Shape& base,
                                             const Window& window, PrimitiveType type);

// XLA's reducer check: `reducer` takes 2N scalars (accumulators then inputs) and returns N
// scalars (a tuple when N > 1) whose types match `init_shapes` and `input_types`.
absl::Status VerifyReducerShape(const OpContext& ctx, const ProgramShape& reducer,
                                absl::Span<const Shape* const> init_shapes,
                                absl::Span<const PrimitiveType> input_types);

// Result element type of dot-like ops: the operands' type (the more precise of two
// floating types) unless a preferred type is given, which may not be narrower for
// integers.
absl::StatusOr<PrimitiveType> DotResultType(const OpContext& ctx, PrimitiveType lhs,
                                            PrimitiveType rhs);

// Replica groups from collective_device_list (explicit or iota form) or the deprecated
// replica_groups field; empty when none are given.
std::vector<std::vector<int64_t>> ReplicaGroupsOf(const HloInstructionProto& attrs);

// Per-family entry points.
absl::StatusOr<Shape> InferElementwise(const OpContext& ctx);
absl::StatusOr<Shape> InferDataMovement(const OpContext& ctx);
absl::StatusOr<Shape> InferGatherScatter(const OpContext& ctx);
absl::StatusOr<Shape> InferConvDot(const OpContext& ctx);
absl::StatusOr<Shape> InferReduceFamily(const OpContext& ctx);
absl::StatusOr<Shape> InferCollective(const OpContext& ctx);
absl::StatusOr<Shape> InferControl(const OpContext& ctx);
absl::StatusOr<Shape> InferLinalg(const OpContext& ctx);
absl::StatusOr<Shape> InferMisc(const OpContext& ctx);

}  // namespace shape_inference_internal
}  // namespace xla

#endif  // XLA_HLO_SHAPE_INFERENCE_INTERNAL_H_
