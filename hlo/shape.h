#ifndef XLA_HLO_SHAPE_H_
#define XLA_HLO_SHAPE_H_

// Shape, Layout, Tile, ShapeIndex and ProgramShape: the in-memory forms of XLA's
// ShapeProto / LayoutProto / ProgramShapeProto. Value types; cheap to copy for arrays.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "proto/xla_data.pb.h"

namespace xla {

class Shape;

// One tile of a tiled layout, e.g. T(8,128). A dimension equal to kCombineDimension
// prints as `*` (combine with the next-minor dimension).
class Tile {
 public:
  static constexpr int64_t kCombineDimension = INT64_MIN;
  Tile() = default;
  explicit Tile(std::vector<int64_t> dims) : dimensions_(std::move(dims)) {}
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  std::vector<int64_t>* mutable_dimensions() { return &dimensions_; }
  bool operator==(const Tile& o) const { return dimensions_ == o.dimensions_; }
  bool operator!=(const Tile& o) const { return !(*this == o); }
  std::string ToString() const;  // "(8,128)"
 private:
  std::vector<int64_t> dimensions_;
};

struct SplitConfig {
  int64_t dimension = 0;
  std::vector<int64_t> split_indices;
  bool operator==(const SplitConfig& o) const {
    return dimension == o.dimension && split_indices == o.split_indices;
  }
};

// Dense layout of an array shape. Every LayoutProto field is kept so that
// text -> IR -> proto -> IR -> text loses nothing.
class Layout {
 public:
  Layout() = default;
  explicit Layout(std::vector<int64_t> minor_to_major) : minor_to_major_(std::move(minor_to_major)) {}
  Layout(const Layout& other);
  Layout& operator=(const Layout& other);
  Layout(Layout&&) = default;
  Layout& operator=(Layout&&) = default;
  ~Layout();

  const std::vector<int64_t>& minor_to_major() const { return minor_to_major_; }
  std::vector<int64_t>* mutable_minor_to_major() { return &minor_to_major_; }
  int64_t minor_to_major(int i) const { return minor_to_major_[i]; }

  const std::vector<Tile>& tiles() const { return tiles_; }
  std::vector<Tile>* mutable_tiles() { return &tiles_; }

  std::vector<DimLevelType> dim_level_types;  // empty = all dense
  std::vector<bool> dim_unique;
  std::vector<bool> dim_ordered;
  int64_t element_size_in_bits = 0;          // E(n); 0 = natural size
  int64_t memory_space = 0;                  // S(n)
  PrimitiveType index_primitive_type = PRIMITIVE_TYPE_INVALID;    // #(...)
  PrimitiveType pointer_primitive_type = PRIMITIVE_TYPE_INVALID;  // *(...)
  int64_t dynamic_shape_metadata_prefix_bytes = 0;                // M(n)
  int64_t tail_padding_alignment_in_elements = 1;                 // L(n)
  std::vector<SplitConfig> split_configs;                         // SC(d:i,...)

  bool has_physical_shape() const { return physical_shape_ != nullptr; }
  const Shape& physical_shape() const { return *physical_shape_; }
  Shape* mutable_physical_shape();  // creates one if absent
  void clear_physical_shape();

  // Full equality, including tiles, memory space and element size.
  bool operator==(const Layout& other) const;
  bool operator!=(const Layout& other) const { return !(*this == other); }

  // XLA text: "{1,0:T(8,128)(2,1)E(4)S(1)}" (braces included).
  std::string ToString() const;

  LayoutProto ToProto() const;
  static absl::StatusOr<Layout> FromProto(const LayoutProto& proto);

 private:
  std::vector<int64_t> minor_to_major_;
  std::vector<Tile> tiles_;
  std::unique_ptr<Shape> physical_shape_;
};

// Index into a (nested) tuple shape; {} is the root.
using ShapeIndex = std::vector<int64_t>;
std::string ShapeIndexToString(const ShapeIndex& index);  // "{0,1}"

class Shape {
 public:
  // Size of an unbounded dynamic dimension (printed `?`); only valid with its dynamic flag.
  static constexpr int64_t kUnboundedSize = INT64_MIN;

  Shape() = default;  // element_type INVALID
  // Array shape; dynamic dims all false. Does not validate (see ShapeUtil::ValidateShape).
  Shape(PrimitiveType element_type, std::vector<int64_t> dimensions);
  static Shape MakeTuple(std::vector<Shape> elements);
  static Shape MakeToken();
  // BUFFER shape wrapping one array shape; prints as "b(f32[2])". The array is kept as
  // the single element of tuple_shapes() (as XLA's ShapeProto does).
  static Shape MakeBuffer(Shape array_shape);

  PrimitiveType element_type() const { return element_type_; }
  void set_element_type(PrimitiveType t) { element_type_ = t; }

  bool IsTuple() const { return element_type_ == TUPLE; }
  bool IsToken() const { return element_type_ == TOKEN; }
  bool IsOpaque() const { return element_type_ == OPAQUE_TYPE; }
  bool IsBuffer() const { return element_type_ == BUFFER; }
  // The wrapped array of a BUFFER shape (IsBuffer() and one tuple element required).
  const Shape& buffer_shape() const { return tuple_shapes_[0]; }
  // Not tuple, token, opaque, buffer or invalid.
  bool IsArray() const;

  int64_t rank() const { return static_cast<int64_t>(dimensions_.size()); }
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  int64_t dimensions(int i) const { return dimensions_[i]; }
  std::vector<int64_t>* mutable_dimensions() { return &dimensions_; }
  void set_dimensions(int i, int64_t v) { dimensions_[i] = v; }
  // Appends a static dimension (and its dynamic flag).
  void add_dimensions(int64_t v, bool is_dynamic = false);

  // Same size as dimensions(). A dynamic dimension's size is its upper bound.
  const std::vector<bool>& dynamic_dimensions() const { return dynamic_dimensions_; }
  // Tolerant of a flag vector shorter than dimensions() (callers may grow
  // mutable_dimensions() directly): a missing flag reads as static.
  bool is_dynamic_dimension(int i) const {
    return i >= 0 && static_cast<size_t>(i) < dynamic_dimensions_.size() && dynamic_dimensions_[i];
  }
  void set_dynamic_dimension(int i, bool v) {
    if (static_cast<size_t>(i) >= dynamic_dimensions_.size()) dynamic_dimensions_.resize(i + 1, false);
    dynamic_dimensions_[i] = v;
  }
  bool is_dynamic() const;  // any dimension (recursively for tuples) dynamic
  bool is_static() const { return !is_dynamic(); }
  bool is_unbounded_dynamic_dimension(int i) const {
    return is_dynamic_dimension(i) && dimensions_[i] == kUnboundedSize;
  }

  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  std::vector<Shape>* mutable_tuple_shapes() { return &tuple_shapes_; }
  const Shape& tuple_shapes(int i) const { return tuple_shapes_[i]; }
  int64_t tuple_shapes_size() const { return static_cast<int64_t>(tuple_shapes_.size()); }

  bool has_layout() const { return layout_.has_value(); }
  const Layout& layout() const { return *layout_; }
  Layout* mutable_layout();  // creates an empty layout if absent
  void set_layout(Layout layout) { layout_ = std::move(layout); }
  void clear_layout() { layout_.reset(); }

  // Exact equality: type, dims, dynamic flags, tuple elements and layouts
  // (a missing layout equals only a missing layout).
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }

  // XLA text: "f32[2,<=3]{1,0}", "(f32[], s32[2]{0})", "token[]".
  std::string ToString(bool print_layout = false) const;

  ShapeProto ToProto() const;
  // Validates (see ShapeUtil::ValidateShape) so that hostile protos are rejected.
  static absl::StatusOr<Shape> FromProto(const ShapeProto& proto);

 private:
  PrimitiveType element_type_ = PRIMITIVE_TYPE_INVALID;
  std::vector<int64_t> dimensions_;
  std::vector<bool> dynamic_dimensions_;
  std::vector<Shape> tuple_shapes_;
  std::optional<Layout> layout_;
};

class ProgramShape {
 public:
  std::vector<Shape>& parameters() { return parameters_; }
  const std::vector<Shape>& parameters() const { return parameters_; }
  std::vector<std::string>& parameter_names() { return parameter_names_; }
  const std::vector<std::string>& parameter_names() const { return parameter_names_; }
  Shape& result() { return result_; }
  const Shape& result() const { return result_; }

  bool operator==(const ProgramShape& o) const {
    return parameters_ == o.parameters_ && parameter_names_ == o.parameter_names_ &&
           result_ == o.result_;
  }
  // "(f32[2], s32[]) -> f32[2]"; names are printed as "name: shape" when present.
  std::string ToString(bool print_layout = false) const;
  ProgramShapeProto ToProto() const;
  static absl::StatusOr<ProgramShape> FromProto(const ProgramShapeProto& proto);

 private:
  std::vector<Shape> parameters_;
  std::vector<std::string> parameter_names_;
  Shape result_;
};

}  // namespace xla

#endif  // XLA_HLO_SHAPE_H_
