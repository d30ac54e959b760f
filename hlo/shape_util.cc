#include "hlo/shape_util.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "hlo/primitive_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// Product of the array dimensions; false if it overflows int64. An unbounded dynamic
// dimension has no storage bound and counts as zero elements.
bool CheckedElementCount(const Shape& shape, int64_t* count) {
  int64_t n = 1;
  for (int64_t d : shape.dimensions()) {
    if (d == Shape::kUnboundedSize) d = 0;
    if (d < 0) return false;
    if (__builtin_mul_overflow(n, d, &n)) return false;
  }
  *count = n;
  return true;
}

// Dense bytes of an array's elements; false on overflow.
bool CheckedArrayBytes(const Shape& shape, int64_t* bytes) {
  int64_t elements;
  if (!CheckedElementCount(shape, &elements)) return false;
  int64_t bits_per_element = 0;
  if (shape.has_layout()) bits_per_element = shape.layout().element_size_in_bits;
  if (bits_per_element > 0) {
    // Packed: elements * bits, rounded up to whole bytes.
    int64_t bits;
    if (__builtin_mul_overflow(elements, bits_per_element, &bits)) return false;
    *bytes = bits / 8 + (bits % 8 != 0 ? 1 : 0);
    return true;
  }
  return !__builtin_mul_overflow(
      elements, static_cast<int64_t>(primitive_util::ByteWidth(shape.element_type())), bytes);
}

std::string TypeName(PrimitiveType type) {
  return std::string(primitive_util::LowercasePrimitiveTypeName(type));
}

absl::Status ValidateShapeImpl(const Shape& shape, int depth);

absl::Status ValidateLayoutImpl(const Layout& layout, int64_t rank, int depth) {
  const auto& m2m = layout.minor_to_major();
  if (static_cast<int64_t>(m2m.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat("Layout ", layout.ToString(), " has ",
                                                   m2m.size(), " minor_to_major entries for rank ",
                                                   rank));
  }
  std::vector<bool> seen(m2m.size(), false);
  for (int64_t d : m2m) {
    if (d < 0 || d >= rank || seen[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Layout minor_to_major ", layout.ToString(), " is not a permutation of [0, ", rank,
          ")"));
    }
    seen[d] = true;
  }
  if (!layout.dim_level_types.empty() &&
      static_cast<int64_t>(layout.dim_level_types.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat("Layout has ", layout.dim_level_types.size(),
                                                   " dim_level_types for rank ", rank));
  }
  for (DimLevelType t : layout.dim_level_types) {
    if (!DimLevelType_IsValid(t)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Layout has invalid dim_level_type ", static_cast<int>(t)));
    }
  }
  if (layout.dim_unique.size() > layout.dim_level_types.size() ||
      layout.dim_ordered.size() > layout.dim_level_types.size()) {
    return absl::InvalidArgumentError(
        "Layout has more dim_unique/dim_ordered flags than dim_level_types");
  }
  for (const Tile& tile : layout.tiles()) {
    if (tile.dimensions().empty()) {
      return absl::InvalidArgumentError("Layout has an empty tile");
    }
    for (int64_t d : tile.dimensions()) {
      if (d <= 0 && d != Tile::kCombineDimension) {
        return absl::InvalidArgumentError(
            absl::StrCat("Layout tile dimension ", d, " must be positive (or *)"));
      }
    }
  }
  if (layout.tail_padding_alignment_in_elements < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Layout tail_padding_alignment_in_elements ", layout.tail_padding_alignment_in_elements,
        " must be >= 1"));
  }
  if (layout.element_size_in_bits < 0 || layout.element_size_in_bits > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Layout element_size_in_bits ", layout.element_size_in_bits, " out of range [0, 1024]"));
  }
  if (layout.dynamic_shape_metadata_prefix_bytes < 0) {
    return absl::InvalidArgumentError("Layout dynamic_shape_metadata_prefix_bytes is negative");
  }
  for (PrimitiveType t : {layout.index_primitive_type, layout.pointer_primitive_type}) {
    if (t != PRIMITIVE_TYPE_INVALID && !primitive_util::IsIntegralType(t)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Layout index/pointer primitive type must be integral, got ", static_cast<int>(t)));
    }
  }
  for (const SplitConfig& sc : layout.split_configs) {
    if (sc.dimension < 0 || sc.dimension >= rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("Layout split config dimension ", sc.dimension, " out of range for rank ",
                       rank));
    }
    for (int64_t i : sc.split_indices) {
      if (i < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("Layout split index ", i, " is negative"));
      }
    }
  }
  if (layout.has_physical_shape()) {
    RETURN_IF_ERROR(ValidateShapeImpl(layout.physical_shape(), depth + 1));
  }
  return absl::OkStatus();
}

absl::Status ValidateShapeImpl(const Shape& shape, int depth) {
  if (depth > kMaxShapeNestingDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape nesting deeper than ", kMaxShapeNestingDepth));
  }
  const PrimitiveType type = shape.element_type();
  if (type == PRIMITIVE_TYPE_INVALID || !PrimitiveType_IsValid(type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape has invalid element type ", static_cast<int>(type)));
  }
  if (!shape.IsArray()) {
    if (shape.rank() != 0 || !shape.dynamic_dimensions().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Non-array shape of type ", TypeName(type), " has dimensions"));
    }
    if (shape.has_layout()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Non-array shape of type ", TypeName(type), " has a layout"));
    }
    if (shape.IsTuple()) {
      for (const Shape& element : shape.tuple_shapes()) {
        RETURN_IF_ERROR(ValidateShapeImpl(element, depth + 1));
      }
      return absl::OkStatus();
    }
    if (shape.IsBuffer()) {
      if (shape.tuple_shapes_size() != 1 || !shape.buffer_shape().IsArray()) {
        return absl::InvalidArgumentError("Buffer shape must wrap exactly one array shape");
      }
      return ValidateShapeImpl(shape.buffer_shape(), depth + 1);
    }
    if (shape.tuple_shapes_size() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Shape of type ", TypeName(type), " has tuple elements"));
    }
    return absl::OkStatus();
  }

  if (shape.tuple_shapes_size() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Array shape of type ", TypeName(type), " has tuple elements"));
  }
  if (shape.rank() > kMaxRank) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape rank ", shape.rank(), " exceeds the maximum ", kMaxRank));
  }
  if (static_cast<int64_t>(shape.dynamic_dimensions().size()) > shape.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape has ", shape.dynamic_dimensions().size(),
                     " dynamic-dimension flags for rank ", shape.rank()));
  }
  for (int64_t i = 0; i < shape.rank(); ++i) {
    const int64_t d = shape.dimensions(static_cast<int>(i));
    if (d >= 0) continue;
    if (d == Shape::kUnboundedSize && shape.is_dynamic_dimension(static_cast<int>(i))) continue;
    return absl::InvalidArgumentError(
        absl::StrCat("Shape ", shape.ToString(), " has negative dimension ", d, " at index ", i));
  }
  int64_t bytes;
  if (!CheckedArrayBytes(shape, &bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Shape ", shape.ToString(), " has an element count or byte size that overflows int64"));
  }
  if (shape.has_layout()) {
    absl::Status s = ValidateLayoutImpl(shape.layout(), shape.rank(), depth);
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("In shape ", shape.ToString(), ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

enum class CompareMode { kExact, kIgnoreElementType, kIgnoreFpPrecision };

bool CompatibleImpl(const Shape& a, const Shape& b, CompareMode mode) {
  if (a.IsTuple() || b.IsTuple() || a.IsBuffer() || b.IsBuffer()) {
    if (a.element_type() != b.element_type() || a.tuple_shapes_size() != b.tuple_shapes_size()) {
      return false;
    }
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!CompatibleImpl(a.tuple_shapes(i), b.tuple_shapes(i), mode)) return false;
    }
    return true;
  }
  if (!a.IsArray() || !b.IsArray()) return a.element_type() == b.element_type();
  switch (mode) {
    case CompareMode::kExact:
      if (a.element_type() != b.element_type()) return false;
      break;
    case CompareMode::kIgnoreElementType:
      break;
    case CompareMode::kIgnoreFpPrecision:
      if (a.element_type() != b.element_type() &&
          !(primitive_util::IsFloatingPointType(a.element_type()) &&
            primitive_util::IsFloatingPointType(b.element_type()))) {
        return false;
      }
      break;
  }
  if (a.dimensions() != b.dimensions()) return false;
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (a.is_dynamic_dimension(i) != b.is_dynamic_dimension(i)) return false;
  }
  return true;
}

void ForEachSubshapeImpl(const Shape& shape, ShapeIndex* index,
                         const std::function<void(const Shape&, const ShapeIndex&)>& fn) {
  fn(shape, *index);
  if (!shape.IsTuple()) return;
  for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
    index->push_back(i);
    ForEachSubshapeImpl(shape.tuple_shapes(i), index, fn);
    index->pop_back();
  }
}

void ForEachMutableSubshapeImpl(Shape* shape, ShapeIndex* index,
                                const std::function<void(Shape*, const ShapeIndex&)>& fn) {
  fn(shape, *index);
  if (!shape->IsTuple()) return;
  for (int64_t i = 0; i < shape->tuple_shapes_size(); ++i) {
    index->push_back(i);
    ForEachMutableSubshapeImpl(&(*shape->mutable_tuple_shapes())[i], index, fn);
    index->pop_back();
  }
}

// Visits every array, including the array inside a BUFFER shape. S is Shape or const Shape.
template <typename S, typename F>
void ForEachArray(S* shape, const F& fn) {
  if (shape->IsArray()) {
    fn(shape);
    return;
  }
  if (!shape->IsTuple() && !shape->IsBuffer()) return;
  if constexpr (std::is_const_v<S>) {
    for (const Shape& element : shape->tuple_shapes()) ForEachArray(&element, fn);
  } else {
    for (Shape& element : *shape->mutable_tuple_shapes()) ForEachArray(&element, fn);
  }
}

}  // namespace

// ---------------------------------------------------------------- construction

Shape ShapeUtil::MakeShape(PrimitiveType type, absl::Span<const int64_t> dims) {
  return Shape(type, std::vector<int64_t>(dims.begin(), dims.end()));
}

Shape ShapeUtil::MakeShapeWithDenseLayout(PrimitiveType type, absl::Span<const int64_t> dims,
                                          absl::Span<const int64_t> minor_to_major) {
  Shape shape = MakeShape(type, dims);
  shape.set_layout(Layout(std::vector<int64_t>(minor_to_major.begin(), minor_to_major.end())));
  return shape;
}

Shape ShapeUtil::MakeShapeWithDescendingLayout(PrimitiveType type,
                                               absl::Span<const int64_t> dims) {
  Shape shape = MakeShape(type, dims);
  shape.set_layout(MakeDescendingLayout(static_cast<int64_t>(dims.size())));
  return shape;
}

Layout ShapeUtil::MakeDescendingLayout(int64_t rank) {
  std::vector<int64_t> m2m;
  m2m.reserve(rank > 0 ? rank : 0);
  for (int64_t i = rank - 1; i >= 0; --i) m2m.push_back(i);
  return Layout(std::move(m2m));
}

Shape ShapeUtil::ChangeElementType(const Shape& shape, PrimitiveType type) {
  if (shape.IsTuple()) {
    std::vector<Shape> elements;
    elements.reserve(shape.tuple_shapes_size());
    for (const Shape& e : shape.tuple_shapes()) elements.push_back(ChangeElementType(e, type));
    return Shape::MakeTuple(std::move(elements));
  }
  Shape result = shape;
  result.set_element_type(type);
  // A packed element size describes the old type; drop it when the width changes.
  if (result.has_layout() &&
      primitive_util::BitWidth(shape.element_type()) != primitive_util::BitWidth(type)) {
    result.mutable_layout()->element_size_in_bits = 0;
  }
  return result;
}

// ---------------------------------------------------------------- validation

absl::Status ShapeUtil::ValidateShape(const Shape& shape) { return ValidateShapeImpl(shape, 0); }

absl::Status ShapeUtil::ValidateLayout(const Layout& layout, int64_t rank) {
  return ValidateLayoutImpl(layout, rank, 0);
}

// ---------------------------------------------------------------- queries

int64_t ShapeUtil::ElementsIn(const Shape& shape) {
  int64_t n;
  // Saturate instead of wrapping for shapes that skipped validation.
  return CheckedElementCount(shape, &n) ? n : kInt64Max;
}

int64_t ShapeUtil::Product(absl::Span<const int64_t> values) {
  int64_t p = 1;
  for (int64_t v : values) p *= v;
  return p;
}

int64_t ShapeUtil::ElementsInRecursive(const Shape& shape) {
  if (shape.IsArray()) return ElementsIn(shape);
  if (!shape.IsTuple() && !shape.IsBuffer()) return 0;
  int64_t total = 0;
  for (const Shape& e : shape.tuple_shapes()) {
    if (__builtin_add_overflow(total, ElementsInRecursive(e), &total)) return kInt64Max;
  }
  return total;
}

int64_t ShapeUtil::ByteSizeOf(const Shape& shape, int64_t pointer_size) {
  if (shape.IsArray()) {
    int64_t bytes;
    return CheckedArrayBytes(shape, &bytes) ? bytes : kInt64Max;
  }
  if (shape.IsTuple()) {
    int64_t bytes;
    return __builtin_mul_overflow(shape.tuple_shapes_size(), pointer_size, &bytes) ? kInt64Max
                                                                                 : bytes;
  }
  if (shape.IsBuffer() && shape.tuple_shapes_size() == 1) {
    return ByteSizeOf(shape.buffer_shape(), pointer_size);
  }
  if (shape.IsOpaque()) return pointer_size;
  return 0;  // token, invalid
}

bool ShapeUtil::IsEffectiveScalar(const Shape& shape) {
  return shape.IsArray() && ElementsIn(shape) == 1;
}

bool ShapeUtil::IsZeroElementArray(const Shape& shape) {
  return shape.IsArray() &&
         std::find(shape.dimensions().begin(), shape.dimensions().end(), 0) !=
             shape.dimensions().end();
}

bool ShapeUtil::IsNestedTuple(const Shape& shape) {
  if (!shape.IsTuple()) return false;
  for (const Shape& e : shape.tuple_shapes()) {
    if (e.IsTuple()) return true;
  }
  return false;
}

// ---------------------------------------------------------------- comparison

bool ShapeUtil::Compatible(const Shape& a, const Shape& b) {
  return CompatibleImpl(a, b, CompareMode::kExact);
}

bool ShapeUtil::CompatibleIgnoringElementType(const Shape& a, const Shape& b) {
  return CompatibleImpl(a, b, CompareMode::kIgnoreElementType);
}

bool ShapeUtil::CompatibleIgnoringFpPrecision(const Shape& a, const Shape& b) {
  return CompatibleImpl(a, b, CompareMode::kIgnoreFpPrecision);
}

bool ShapeUtil::SameDimensions(const Shape& a, const Shape& b) {
  return a.dimensions() == b.dimensions();
}

// ---------------------------------------------------------------- tuples and indices

absl::StatusOr<const Shape*> ShapeUtil::TryGetSubshape(const Shape& shape,
                                                       const ShapeIndex& index) {
  const Shape* current = &shape;
  for (int64_t i : index) {
    if (!current->IsTuple() || i < 0 || i >= current->tuple_shapes_size()) {
      return absl::InvalidArgumentError(absl::StrCat("Shape index ", ShapeIndexToString(index),
                                                     " is not a valid subshape index for ",
                                                     shape.ToString()));
    }
    current = &current->tuple_shapes(static_cast<int>(i));
  }
  return current;
}

const Shape& ShapeUtil::GetSubshape(const Shape& shape, const ShapeIndex& index) {
  auto sub = TryGetSubshape(shape, index);
  if (sub.ok()) return **sub;
  // Contract violation; answer an invalid shape rather than touching bad memory.
  static const Shape* const kInvalid = new Shape();
  return *kInvalid;
}

Shape* ShapeUtil::GetMutableSubshape(Shape* shape, const ShapeIndex& index) {
  for (int64_t i : index) {
    if (!shape->IsTuple() || i < 0 || i >= shape->tuple_shapes_size()) return nullptr;
    shape = &(*shape->mutable_tuple_shapes())[i];
  }
  return shape;
}

bool ShapeUtil::IndexIsValid(const Shape& shape, const ShapeIndex& index) {
  return TryGetSubshape(shape, index).ok();
}

void ShapeUtil::ForEachSubshape(const Shape& shape,
                                const std::function<void(const Shape&, const ShapeIndex&)>& fn) {
  ShapeIndex index;
  ForEachSubshapeImpl(shape, &index, fn);
}

void ShapeUtil::ForEachMutableSubshape(Shape* shape,
                                       const std::function<void(Shape*, const ShapeIndex&)>& fn) {
  ShapeIndex index;
  ForEachMutableSubshapeImpl(shape, &index, fn);
}

// ---------------------------------------------------------------- layouts

void ShapeUtil::SetDefaultLayoutsIfMissing(Shape* shape) {
  ForEachArray(shape, [](Shape* s) {
    if (!s->has_layout()) s->set_layout(MakeDescendingLayout(s->rank()));
  });
}

void ShapeUtil::ClearLayouts(Shape* shape) {
  ForEachArray(shape, [](Shape* s) { s->clear_layout(); });
}

bool ShapeUtil::HasLayoutEverywhere(const Shape& shape) {
  bool all = true;
  ForEachArray(&shape, [&all](const Shape* s) { all = all && s->has_layout(); });
  return all;
}

bool ShapeUtil::HasDescendingLayout(const Shape& shape) {
  if (!shape.has_layout()) return true;
  const std::vector<int64_t>& m2m = shape.layout().minor_to_major();
  const int64_t rank = shape.rank();
  if (m2m.empty()) return true;
  if (static_cast<int64_t>(m2m.size()) != rank) return false;
  for (int64_t i = 0; i < rank; ++i) {
    if (m2m[i] != rank - 1 - i) return false;
  }
  return true;
}

}  // namespace xla
