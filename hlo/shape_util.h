#ifndef XLA_HLO_SHAPE_UTIL_H_
#define XLA_HLO_SHAPE_UTIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/shape.h"

namespace xla {

inline constexpr int64_t kMaxRank = 64;
// Deepest nesting (tuples within tuples, layouts' physical shapes) that validation and
// proto conversion accept; deeper input is InvalidArgument instead of a stack overflow.
inline constexpr int kMaxShapeNestingDepth = 1000;

class ShapeUtil {
 public:
  // --- construction ---
  static Shape MakeShape(PrimitiveType type, absl::Span<const int64_t> dims);
  // With a dense layout given minor-to-major.
  static Shape MakeShapeWithDenseLayout(PrimitiveType type, absl::Span<const int64_t> dims,
                                        absl::Span<const int64_t> minor_to_major);
  // With the default descending layout {rank-1,...,0}.
  static Shape MakeShapeWithDescendingLayout(PrimitiveType type, absl::Span<const int64_t> dims);
  static Shape MakeScalarShape(PrimitiveType type) { return MakeShape(type, {}); }
  static Shape MakeTupleShape(std::vector<Shape> elements) { return Shape::MakeTuple(std::move(elements)); }
  static Shape MakeNil() { return Shape::MakeTuple({}); }
  static Shape ChangeElementType(const Shape& shape, PrimitiveType type);
  static Layout MakeDescendingLayout(int64_t rank);

  // --- validation ---
  // Rejects invalid element types, negative dimensions, rank > kMaxRank, element counts or
  // byte sizes that overflow int64, layouts whose minor_to_major is not a permutation of
  // the dimensions, and mismatched dynamic-dimension flags. Recurses into tuples.
  static absl::Status ValidateShape(const Shape& shape);
  // Checks a layout on its own for an array of `rank` dimensions: minor_to_major is a
  // permutation of [0, rank), tile sizes positive (or Tile::kCombineDimension), enums in
  // range, index/pointer types integral, non-negative sizes, split dims in range.
  static absl::Status ValidateLayout(const Layout& layout, int64_t rank);

  // --- queries (arrays unless noted) ---
  static int64_t ElementsIn(const Shape& shape);  // product of dims; 1 for scalars
  // The product of `values` (1 for none), for sizes already validated (no overflow check).
  static int64_t Product(absl::Span<const int64_t> values);
  // Elements over all leaves of a tuple.
  static int64_t ElementsInRecursive(const Shape& shape);
  // Dense bytes of an array (sub-byte types packed one per byte unless the layout has
  // element_size_in_bits); tuples count pointer_size per element.
  static int64_t ByteSizeOf(const Shape& shape, int64_t pointer_size = 8);
  static bool IsScalar(const Shape& shape) { return shape.IsArray() && shape.rank() == 0; }
  static bool IsEffectiveScalar(const Shape& shape);  // array with one element
  static bool IsZeroElementArray(const Shape& shape);
  static bool IsEmptyTuple(const Shape& shape) { return shape.IsTuple() && shape.tuple_shapes_size() == 0; }
  static bool IsNestedTuple(const Shape& shape);
  static int64_t TupleElementCount(const Shape& shape) { return shape.tuple_shapes_size(); }

  // --- comparison ---
  // Same type/dims/dynamism/tuple structure; layouts ignored.
  static bool Compatible(const Shape& a, const Shape& b);
  static bool CompatibleIgnoringElementType(const Shape& a, const Shape& b);
  // Floating types may differ (e.g. f32 vs bf16); otherwise as Compatible.
  static bool CompatibleIgnoringFpPrecision(const Shape& a, const Shape& b);
  static bool SameDimensions(const Shape& a, const Shape& b);
  static bool SameElementType(const Shape& a, const Shape& b) { return a.element_type() == b.element_type(); }
  static bool Equal(const Shape& a, const Shape& b) { return a == b; }
  // As Equal but ignores layouts; also treats dynamic dims as equal to static ones of same bound?
  // No: dynamism must match.
  static bool EqualIgnoringLayout(const Shape& a, const Shape& b) { return Compatible(a, b); }

  // --- tuples and indices ---
  static absl::StatusOr<const Shape*> TryGetSubshape(const Shape& shape, const ShapeIndex& index);
  static const Shape& GetSubshape(const Shape& shape, const ShapeIndex& index);  // index must be valid
  static Shape* GetMutableSubshape(Shape* shape, const ShapeIndex& index);
  static bool IndexIsValid(const Shape& shape, const ShapeIndex& index);
  // Pre-order walk over every subshape with its index.
  static void ForEachSubshape(const Shape& shape,
                              const std::function<void(const Shape&, const ShapeIndex&)>& fn);
  static void ForEachMutableSubshape(Shape* shape,
                                     const std::function<void(Shape*, const ShapeIndex&)>& fn);

  // --- layouts ---
  // Gives every array subshape without a layout the default descending layout.
  static void SetDefaultLayoutsIfMissing(Shape* shape);
  static void ClearLayouts(Shape* shape);
  static bool HasLayoutEverywhere(const Shape& shape);
  // True when an array's storage order is its logical row-major order: no layout, or
  // minor_to_major = {rank-1, ..., 0}. Tiling and element size are not considered.
  static bool HasDescendingLayout(const Shape& shape);

  // "f32[2,3]" without layout (alias of shape.ToString()).
  static std::string HumanString(const Shape& shape) { return shape.ToString(false); }
  static std::string HumanStringWithLayout(const Shape& shape) { return shape.ToString(true); }
};

}  // namespace xla

#endif  // XLA_HLO_SHAPE_UTIL_H_
