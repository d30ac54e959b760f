#include "hlo/shape.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace {

// Effective per-dimension sparse flags: a missing entry means "true" (XLA's default).
bool FlagOrTrue(const std::vector<bool>& flags, size_t i) {
  return i >= flags.size() || flags[i];
}

std::string TypeName(PrimitiveType type) {
  return std::string(primitive_util::LowercasePrimitiveTypeName(type));
}

std::string_view DimLevelTypeAbbrev(DimLevelType type) {
  switch (type) {
    case DIM_DENSE: return "D";
    case DIM_COMPRESSED: return "C";
    case DIM_SINGLETON: return "S";
    case DIM_LOOSE_COMPRESSED: return "H";
    default: return "?";
  }
}

void AppendDims(std::string* out, const Shape& shape) {
  out->append("[");
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (i > 0) out->append(",");
    int64_t d = shape.dimensions(static_cast<int>(i));
    if (shape.is_dynamic_dimension(static_cast<int>(i))) {
      if (d == Shape::kUnboundedSize) {
        out->append("?");
      } else {
        absl::StrAppend(out, "<=", d);
      }
    } else {
      absl::StrAppend(out, d);
    }
  }
  out->append("]");
}

void AppendShape(std::string* out, const Shape& shape, bool print_layout) {
  if (shape.IsTuple()) {
    out->append("(");
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      // XLA marks every fifth element of a long tuple so readers can count.
      if (i > 0) {
        if (i % 5 == 0) {
          absl::StrAppend(out, ", /*index=", i, "*/");
        } else {
          out->append(", ");
        }
      }
      AppendShape(out, shape.tuple_shapes(static_cast<int>(i)), print_layout);
    }
    out->append(")");
    return;
  }
  if (shape.IsBuffer()) {
    out->append("b(");
    if (shape.tuple_shapes_size() == 1) AppendShape(out, shape.buffer_shape(), print_layout);
    out->append(")");
    return;
  }
  out->append(primitive_util::LowercasePrimitiveTypeName(shape.element_type()));
  AppendDims(out, shape);
  if (!print_layout || !shape.has_layout() || !shape.IsArray()) return;
  std::string layout = shape.layout().ToString();
  // A scalar's plain layout is "{}", which XLA leaves out.
  if (shape.rank() == 0 && layout == "{}") return;
  out->append(layout);
}

absl::StatusOr<Shape> ShapeFromProtoImpl(const ShapeProto& proto, int depth);

absl::StatusOr<Layout> LayoutFromProtoImpl(const LayoutProto& proto, int depth) {
  Layout layout;
  *layout.mutable_minor_to_major() = {proto.minor_to_major().begin(),
                                      proto.minor_to_major().end()};
  for (int v : proto.dim_level_types()) {
    if (!DimLevelType_IsValid(v)) {
      return absl::InvalidArgumentError(absl::StrCat("Layout has invalid dim_level_type ", v));
    }
    layout.dim_level_types.push_back(static_cast<DimLevelType>(v));
  }
  layout.dim_unique.assign(proto.dim_unique().begin(), proto.dim_unique().end());
  layout.dim_ordered.assign(proto.dim_ordered().begin(), proto.dim_ordered().end());
  for (const TileProto& tile : proto.tiles()) {
    layout.mutable_tiles()->emplace_back(
        std::vector<int64_t>(tile.dimensions().begin(), tile.dimensions().end()));
  }
  // Unset (0) means the default alignment of one element, as in XLA.
  layout.tail_padding_alignment_in_elements =
      proto.tail_padding_alignment_in_elements() == 0 ? 1
                                                      : proto.tail_padding_alignment_in_elements();
  layout.element_size_in_bits = proto.element_size_in_bits();
  layout.memory_space = proto.memory_space();
  for (int v : {static_cast<int>(proto.index_primitive_type()),
                static_cast<int>(proto.pointer_primitive_type())}) {
    if (!PrimitiveType_IsValid(v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Layout has invalid index/pointer primitive type ", v));
    }
  }
  layout.index_primitive_type = proto.index_primitive_type();
  layout.pointer_primitive_type = proto.pointer_primitive_type();
  layout.dynamic_shape_metadata_prefix_bytes = proto.dynamic_shape_metadata_prefix_bytes();
  for (const SplitConfigProto& sc : proto.split_configs()) {
    SplitConfig config;
    config.dimension = sc.dimension();
    config.split_indices.assign(sc.split_indices().begin(), sc.split_indices().end());
    layout.split_configs.push_back(std::move(config));
  }
  if (proto.has_physical_shape()) {
    ASSIGN_OR_RETURN(*layout.mutable_physical_shape(),
                     ShapeFromProtoImpl(proto.physical_shape(), depth + 1));
  }
  return layout;
}

absl::StatusOr<Shape> ShapeFromProtoImpl(const ShapeProto& proto, int depth) {
  if (depth > kMaxShapeNestingDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape nesting deeper than ", kMaxShapeNestingDepth));
  }
  const int type_value = static_cast<int>(proto.element_type());
  if (!PrimitiveType_IsValid(type_value) || proto.element_type() == PRIMITIVE_TYPE_INVALID) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape has invalid element type ", type_value));
  }
  Shape shape;
  shape.set_element_type(proto.element_type());
  const bool takes_elements = shape.IsTuple() || shape.IsBuffer();
  if (!takes_elements && proto.tuple_shapes_size() > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Non-tuple shape of type ",
                     TypeName(proto.element_type()),
                     " has tuple_shapes"));
  }
  if (!shape.IsArray() && (proto.dimensions_size() > 0 || proto.is_dynamic_dimension_size() > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Non-array shape of type ",
                     TypeName(proto.element_type()),
                     " has dimensions"));
  }
  if (!shape.IsArray() && proto.has_layout()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Non-array shape of type ",
                     TypeName(proto.element_type()),
                     " has a layout"));
  }
  if (proto.dimensions_size() > kMaxRank) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape rank ", proto.dimensions_size(), " exceeds the maximum ", kMaxRank));
  }
  if (proto.is_dynamic_dimension_size() != 0 &&
      proto.is_dynamic_dimension_size() != proto.dimensions_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Malformed shape proto: ", proto.is_dynamic_dimension_size(),
        " is_dynamic_dimension flags for ", proto.dimensions_size(), " dimensions"));
  }
  for (int i = 0; i < proto.dimensions_size(); ++i) {
    shape.add_dimensions(proto.dimensions(i), proto.is_dynamic_dimension_size() > 0 &&
                                                  proto.is_dynamic_dimension(i));
  }
  for (const ShapeProto& element : proto.tuple_shapes()) {
    ASSIGN_OR_RETURN(Shape sub, ShapeFromProtoImpl(element, depth + 1));
    shape.mutable_tuple_shapes()->push_back(std::move(sub));
  }
  if (proto.has_layout()) {
    ASSIGN_OR_RETURN(Layout layout, LayoutFromProtoImpl(proto.layout(), depth + 1));
    shape.set_layout(std::move(layout));
  }
  return shape;
}

}  // namespace

// ---------------------------------------------------------------- Tile / Layout

std::string Tile::ToString() const {
  std::string out = "(";
  for (size_t i = 0; i < dimensions_.size(); ++i) {
    if (i > 0) out.append(",");
    if (dimensions_[i] == kCombineDimension) {
      out.append("*");
    } else {
      absl::StrAppend(&out, dimensions_[i]);
    }
  }
  out.append(")");
  return out;
}

Layout::Layout(const Layout& other) { *this = other; }

Layout& Layout::operator=(const Layout& other) {
  if (this == &other) return *this;
  minor_to_major_ = other.minor_to_major_;
  tiles_ = other.tiles_;
  dim_level_types = other.dim_level_types;
  dim_unique = other.dim_unique;
  dim_ordered = other.dim_ordered;
  element_size_in_bits = other.element_size_in_bits;
  memory_space = other.memory_space;
  index_primitive_type = other.index_primitive_type;
  pointer_primitive_type = other.pointer_primitive_type;
  dynamic_shape_metadata_prefix_bytes = other.dynamic_shape_metadata_prefix_bytes;
  tail_padding_alignment_in_elements = other.tail_padding_alignment_in_elements;
  split_configs = other.split_configs;
  physical_shape_ =
      other.physical_shape_ ? std::make_unique<Shape>(*other.physical_shape_) : nullptr;
  return *this;
}

Layout::~Layout() = default;

Shape* Layout::mutable_physical_shape() {
  if (!physical_shape_) physical_shape_ = std::make_unique<Shape>();
  return physical_shape_.get();
}

void Layout::clear_physical_shape() { physical_shape_.reset(); }

bool Layout::operator==(const Layout& other) const {
  if (minor_to_major_ != other.minor_to_major_ || tiles_ != other.tiles_ ||
      dim_level_types != other.dim_level_types ||
      element_size_in_bits != other.element_size_in_bits ||
      memory_space != other.memory_space ||
      index_primitive_type != other.index_primitive_type ||
      pointer_primitive_type != other.pointer_primitive_type ||
      dynamic_shape_metadata_prefix_bytes != other.dynamic_shape_metadata_prefix_bytes ||
      tail_padding_alignment_in_elements != other.tail_padding_alignment_in_elements ||
      !(split_configs == other.split_configs)) {
    return false;
  }
  for (size_t i = 0; i < dim_level_types.size(); ++i) {
    if (FlagOrTrue(dim_unique, i) != FlagOrTrue(other.dim_unique, i) ||
        FlagOrTrue(dim_ordered, i) != FlagOrTrue(other.dim_ordered, i)) {
      return false;
    }
  }
  if (has_physical_shape() != other.has_physical_shape()) return false;
  return !has_physical_shape() || physical_shape() == other.physical_shape();
}

std::string Layout::ToString() const {
  // Field order and spelling follow XLA's Layout::Print exactly (text round trips).
  std::string out = "{";
  out.append(absl::StrJoin(minor_to_major_, ","));
  bool colon = false;
  auto section = [&](std::string_view tag) {
    if (!colon) out.append(":");
    colon = true;
    out.append(tag);
  };
  if (!dim_level_types.empty()) {
    section("D(");
    for (size_t i = 0; i < dim_level_types.size(); ++i) {
      if (i > 0) out.append(",");
      out.append(DimLevelTypeAbbrev(dim_level_types[i]));
      if (!FlagOrTrue(dim_unique, i)) out.append("+");
      if (!FlagOrTrue(dim_ordered, i)) out.append("~");
    }
    out.append(")");
  }
  if (!tiles_.empty()) {
    section("T");
    for (const Tile& tile : tiles_) out.append(tile.ToString());
  }
  if (tail_padding_alignment_in_elements != 1) {
    section(absl::StrCat("L(", tail_padding_alignment_in_elements, ")"));
  }
  auto type_name = [](PrimitiveType t) -> std::string {
    return primitive_util::IsIntegralType(t) ? TypeName(t) : "invalid";
  };
  if (index_primitive_type != PRIMITIVE_TYPE_INVALID) {
    section(absl::StrCat("#(", type_name(index_primitive_type), ")"));
  }
  if (pointer_primitive_type != PRIMITIVE_TYPE_INVALID) {
    section(absl::StrCat("*(", type_name(pointer_primitive_type), ")"));
  }
  if (element_size_in_bits != 0) section(absl::StrCat("E(", element_size_in_bits, ")"));
  if (memory_space != 0) section(absl::StrCat("S(", memory_space, ")"));
  if (!split_configs.empty()) {
    section("SC");
    for (const SplitConfig& sc : split_configs) {
      absl::StrAppend(&out, "(", sc.dimension, ":", absl::StrJoin(sc.split_indices, ","), ")");
    }
  }
  if (has_physical_shape()) {
    section("P(");
    AppendShape(&out, *physical_shape_, /*print_layout=*/true);
    out.append(")");
  }
  if (dynamic_shape_metadata_prefix_bytes > 0) {
    section(absl::StrCat("M(", dynamic_shape_metadata_prefix_bytes, ")"));
  }
  out.append("}");
  return out;
}

LayoutProto Layout::ToProto() const {
  LayoutProto proto;
  for (int64_t d : minor_to_major_) proto.add_minor_to_major(d);
  for (DimLevelType t : dim_level_types) proto.add_dim_level_types(t);
  for (bool b : dim_unique) proto.add_dim_unique(b);
  for (bool b : dim_ordered) proto.add_dim_ordered(b);
  for (const Tile& tile : tiles_) {
    TileProto* tp = proto.add_tiles();
    for (int64_t d : tile.dimensions()) tp->add_dimensions(d);
  }
  proto.set_tail_padding_alignment_in_elements(tail_padding_alignment_in_elements);
  proto.set_element_size_in_bits(element_size_in_bits);
  proto.set_memory_space(memory_space);
  proto.set_index_primitive_type(index_primitive_type);
  proto.set_pointer_primitive_type(pointer_primitive_type);
  if (has_physical_shape()) *proto.mutable_physical_shape() = physical_shape_->ToProto();
  proto.set_dynamic_shape_metadata_prefix_bytes(dynamic_shape_metadata_prefix_bytes);
  for (const SplitConfig& sc : split_configs) {
    SplitConfigProto* sp = proto.add_split_configs();
    sp->set_dimension(sc.dimension);
    for (int64_t i : sc.split_indices) sp->add_split_indices(i);
  }
  return proto;
}

absl::StatusOr<Layout> Layout::FromProto(const LayoutProto& proto) {
  ASSIGN_OR_RETURN(Layout layout, LayoutFromProtoImpl(proto, 0));
  RETURN_IF_ERROR(ShapeUtil::ValidateLayout(layout, layout.minor_to_major().size()));
  return layout;
}

std::string ShapeIndexToString(const ShapeIndex& index) {
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

// ---------------------------------------------------------------- Shape

Shape::Shape(PrimitiveType element_type, std::vector<int64_t> dimensions)
    : element_type_(element_type),
      dimensions_(std::move(dimensions)),
      dynamic_dimensions_(dimensions_.size(), false) {}

Shape Shape::MakeTuple(std::vector<Shape> elements) {
  Shape shape;
  shape.element_type_ = TUPLE;
  shape.tuple_shapes_ = std::move(elements);
  return shape;
}

Shape Shape::MakeToken() {
  Shape shape;
  shape.element_type_ = TOKEN;
  return shape;
}

Shape Shape::MakeBuffer(Shape array_shape) {
  Shape shape;
  shape.element_type_ = BUFFER;
  shape.tuple_shapes_.push_back(std::move(array_shape));
  return shape;
}

bool Shape::IsArray() const { return primitive_util::IsArrayType(element_type_); }

void Shape::add_dimensions(int64_t v, bool is_dynamic) {
  // Keep the flags aligned with the dimensions even if a caller grew only one of them.
  dynamic_dimensions_.resize(dimensions_.size(), false);
  dimensions_.push_back(v);
  dynamic_dimensions_.push_back(is_dynamic);
}

bool Shape::is_dynamic() const {
  for (int64_t i = 0; i < rank(); ++i) {
    if (is_dynamic_dimension(static_cast<int>(i))) return true;
  }
  for (const Shape& s : tuple_shapes_) {
    if (s.is_dynamic()) return true;
  }
  return false;
}

Layout* Shape::mutable_layout() {
  if (!layout_) layout_.emplace();
  return &*layout_;
}

bool Shape::operator==(const Shape& other) const {
  if (element_type_ != other.element_type_ || dimensions_ != other.dimensions_ ||
      tuple_shapes_ != other.tuple_shapes_ || layout_.has_value() != other.layout_.has_value()) {
    return false;
  }
  for (int64_t i = 0; i < rank(); ++i) {
    if (is_dynamic_dimension(static_cast<int>(i)) !=
        other.is_dynamic_dimension(static_cast<int>(i))) {
      return false;
    }
  }
  return !layout_ || *layout_ == *other.layout_;
}

std::string Shape::ToString(bool print_layout) const {
  std::string out;
  AppendShape(&out, *this, print_layout);
  return out;
}

ShapeProto Shape::ToProto() const {
  ShapeProto proto;
  proto.set_element_type(element_type_);
  for (int64_t i = 0; i < rank(); ++i) {
    proto.add_dimensions(dimensions_[i]);
    proto.add_is_dynamic_dimension(is_dynamic_dimension(static_cast<int>(i)));
  }
  for (const Shape& s : tuple_shapes_) *proto.add_tuple_shapes() = s.ToProto();
  if (layout_ && IsArray()) *proto.mutable_layout() = layout_->ToProto();
  return proto;
}

absl::StatusOr<Shape> Shape::FromProto(const ShapeProto& proto) {
  ASSIGN_OR_RETURN(Shape shape, ShapeFromProtoImpl(proto, 0));
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
  return shape;
}

// ---------------------------------------------------------------- ProgramShape

std::string ProgramShape::ToString(bool print_layout) const {
  std::vector<std::string> params;
  params.reserve(parameters_.size());
  for (size_t i = 0; i < parameters_.size(); ++i) {
    std::string shape = parameters_[i].ToString(print_layout);
    if (i < parameter_names_.size() && !parameter_names_[i].empty()) {
      params.push_back(absl::StrCat(parameter_names_[i], ": ", shape));
    } else {
      params.push_back(std::move(shape));
    }
  }
  return absl::StrCat("(", absl::StrJoin(params, ", "), ") -> ", result_.ToString(print_layout));
}

ProgramShapeProto ProgramShape::ToProto() const {
  ProgramShapeProto proto;
  for (const Shape& p : parameters_) *proto.add_parameters() = p.ToProto();
  for (const std::string& name : parameter_names_) proto.add_parameter_names(name);
  if (result_.element_type() != PRIMITIVE_TYPE_INVALID) *proto.mutable_result() = result_.ToProto();
  return proto;
}

absl::StatusOr<ProgramShape> ProgramShape::FromProto(const ProgramShapeProto& proto) {
  ProgramShape program_shape;
  for (int i = 0; i < proto.parameters_size(); ++i) {
    auto shape = Shape::FromProto(proto.parameters(i));
    if (!shape.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Program shape parameter ", i, ": ", shape.status().message()));
    }
    program_shape.parameters_.push_back(*std::move(shape));
  }
  program_shape.parameter_names_.assign(proto.parameter_names().begin(),
                                        proto.parameter_names().end());
  // An absent result stays the default (invalid) shape rather than an error: partially
  // filled program shapes occur in protos (e.g. before a module's entry is known).
  if (proto.has_result()) {
    auto result = Shape::FromProto(proto.result());
    if (!result.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Program shape result: ", result.status().message()));
    }
    program_shape.result_ = *std::move(result);
  }
  return program_shape;
}

}  // namespace xla
