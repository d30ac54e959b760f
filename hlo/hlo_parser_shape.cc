// Shapes, layouts and literal values in HLO text.

#include <cmath>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hlo/hlo_parser_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace hlo_parser_internal {

bool Parser::PeekIsShapeStart() {
  const Token& t = lex_.Peek();
  if (t.kind == TokKind::kLparen) return true;
  if (t.kind == TokKind::kIdent && t.text == "b") {
    size_t after = t.pos + t.text.size();
    // "b(" starts a buffer shape unless it is a nested instruction with opcode... there is
    // no opcode "b", so it is always a shape.
    return after < lex_.text().size() && lex_.text()[after] == '(';
  }
  if (t.kind != TokKind::kIdent || t.text.empty() || t.text[0] == '%') return false;
  if (t.text == "tuple") return false;  // the opcode, never a shape in text
  if (!primitive_util::StringToPrimitiveType(std::string(t.text)).has_value()) return false;
  size_t after = t.pos + t.text.size();
  return after < lex_.text().size() && lex_.text()[after] == '[';
}

absl::StatusOr<Shape> Parser::ParseShapeRec() {
  RETURN_IF_ERROR(EnterNesting());
  const int64_t start = lex_.Peek().pos;
  Shape shape;
  if (TryConsume(TokKind::kLparen)) {
    std::vector<Shape> elements;
    if (!TryConsume(TokKind::kRparen)) {
      do {
        ASSIGN_OR_RETURN(Shape e, ParseShapeRec());
        elements.push_back(std::move(e));
      } while (TryConsume(TokKind::kComma));
      RETURN_IF_ERROR(Expect(TokKind::kRparen, "tuple shape"));
    }
    shape = Shape::MakeTuple(std::move(elements));
  } else {
    const Token& t = lex_.Peek();
    if (t.kind == TokKind::kIdent && t.text == "b") {
      // Buffer shape b(f32[2,4]): element type BUFFER holding the array shape as its
      // only tuple element.
      lex_.Next();
      RETURN_IF_ERROR(Expect(TokKind::kLparen, "buffer shape"));
      ASSIGN_OR_RETURN(Shape array, ParseShapeRec());
      if (!array.IsArray()) return ErrorAt(start, "a buffer shape must hold an array shape");
      RETURN_IF_ERROR(Expect(TokKind::kRparen, "buffer shape"));
      Shape buffer;
      buffer.set_element_type(BUFFER);
      buffer.mutable_tuple_shapes()->push_back(std::move(array));
      ExitNesting();
      return buffer;
    }
    if (t.kind != TokKind::kIdent) return Expected("a shape", "shape");
    std::optional<PrimitiveType> type = primitive_util::StringToPrimitiveType(std::string(t.text));
    if (!type.has_value() || *type == TUPLE) {
      return ErrorAt(t.pos, absl::StrCat("unknown element type '", t.text, "'"));
    }
    lex_.Next();
    RETURN_IF_ERROR(Expect(TokKind::kLsquare, "shape"));
    if (*type == TOKEN) {
      shape = Shape::MakeToken();
    } else {
      shape = Shape(*type, {});
      shape.mutable_dimensions()->clear();
    }
    if (!TryConsume(TokKind::kRsquare)) {
      do {
        bool dynamic = false;
        int64_t size;
        if (TryConsume(TokKind::kQuestion)) {
          dynamic = true;
          size = INT64_MIN;  // unbounded dynamic size
        } else {
          if (TryConsume(TokKind::kLeq)) dynamic = true;
          ASSIGN_OR_RETURN(size, ExpectInt("shape"));
        }
        if (shape.rank() >= kMaxRank) return ErrorAtPeek("shape has too many dimensions");
        shape.add_dimensions(size, dynamic);
      } while (TryConsume(TokKind::kComma));
      if (lex_.PeekKind() != TokKind::kRsquare) return Expected("']'", "shape");
      lex_.Next();
    }
    // A '{' after a shape is its layout only when a layout can start there (an integer,
    // ':' or '}'); otherwise it opens a computation body or a literal.
    bool layout_follows = false;
    if (lex_.PeekKind() == TokKind::kLbrace) {
      HloLexer probe = lex_;
      probe.Next();
      TokKind k = probe.PeekKind();
      layout_follows = k == TokKind::kInt || k == TokKind::kColon || k == TokKind::kRbrace;
    }
    if (shape.IsArray() && layout_follows) {
      lex_.Next();
      ASSIGN_OR_RETURN(Layout layout, ParseLayoutBody());
      shape.set_layout(std::move(layout));
    } else if (!shape.IsArray() && layout_follows) {
      // token[]{} / opaque[]{} as some printers emit: accept an empty layout.
      HloLexer probe = lex_;
      probe.Next();
      if (probe.PeekKind() == TokKind::kRbrace) {
        lex_.Next();
        lex_.Next();
      }
    }
  }
  absl::Status valid = ShapeUtil::ValidateShape(shape);
  if (!valid.ok()) return ErrorAt(start, absl::StrCat("invalid shape: ", valid.message()));
  ExitNesting();
  return shape;
}

namespace {
std::optional<DimLevelType> DimLevelFromLetter(char c) {
  switch (c) {
    case 'D': return DIM_DENSE;
    case 'C': return DIM_COMPRESSED;
    case 'S': return DIM_SINGLETON;
    case 'H': return DIM_LOOSE_COMPRESSED;
    default: return std::nullopt;
  }
}
}  // namespace

absl::StatusOr<Layout> Parser::ParseLayoutBody() {
  Layout layout;
  if (TryConsume(TokKind::kRbrace)) return layout;
  if (lex_.PeekKind() == TokKind::kInt) {
    do {
      ASSIGN_OR_RETURN(int64_t d, ExpectInt("layout"));
      layout.mutable_minor_to_major()->push_back(d);
    } while (TryConsume(TokKind::kComma));
  }
  if (TryConsume(TokKind::kColon)) {
    auto paren_int = [&](absl::string_view what) -> absl::StatusOr<int64_t> {
      RETURN_IF_ERROR(Expect(TokKind::kLparen, what));
      ASSIGN_OR_RETURN(int64_t v, ExpectInt(what));
      RETURN_IF_ERROR(Expect(TokKind::kRparen, what));
      return v;
    };
    auto paren_type = [&](absl::string_view what) -> absl::StatusOr<PrimitiveType> {
      RETURN_IF_ERROR(Expect(TokKind::kLparen, what));
      const Token& t = lex_.Peek();
      auto type = primitive_util::StringToPrimitiveType(std::string(t.text));
      if (t.kind != TokKind::kIdent || !type.has_value()) return Expected("a type", what);
      lex_.Next();
      RETURN_IF_ERROR(Expect(TokKind::kRparen, what));
      return *type;
    };
    while (lex_.PeekKind() != TokKind::kRbrace) {
      const Token& t = lex_.Peek();
      if (t.kind == TokKind::kHash) {
        lex_.Next();
        ASSIGN_OR_RETURN(layout.index_primitive_type, paren_type("layout index type"));
        continue;
      }
      if (t.kind == TokKind::kAsterisk) {
        lex_.Next();
        ASSIGN_OR_RETURN(layout.pointer_primitive_type, paren_type("layout pointer type"));
        continue;
      }
      if (t.kind != TokKind::kIdent) return Expected("a layout attribute", "layout");
      std::string key(t.text);
      int64_t key_pos = t.pos;
      lex_.Next();
      if (key == "T") {
        while (lex_.PeekKind() == TokKind::kLparen) {
          lex_.Next();
          Tile tile;
          if (!TryConsume(TokKind::kRparen)) {
            do {
              if (TryConsume(TokKind::kAsterisk)) {
                tile.mutable_dimensions()->push_back(Tile::kCombineDimension);
              } else {
                ASSIGN_OR_RETURN(int64_t d, ExpectInt("tile"));
                tile.mutable_dimensions()->push_back(d);
              }
            } while (TryConsume(TokKind::kComma));
            RETURN_IF_ERROR(Expect(TokKind::kRparen, "tile"));
          }
          layout.mutable_tiles()->push_back(std::move(tile));
        }
      } else if (key == "E") {
        ASSIGN_OR_RETURN(layout.element_size_in_bits, paren_int("element size"));
      } else if (key == "S") {
        ASSIGN_OR_RETURN(layout.memory_space, paren_int("memory space"));
      } else if (key == "L") {
        ASSIGN_OR_RETURN(layout.tail_padding_alignment_in_elements, paren_int("tail padding"));
      } else if (key == "M") {
        ASSIGN_OR_RETURN(layout.dynamic_shape_metadata_prefix_bytes, paren_int("metadata"));
      } else if (key == "SC") {
        RETURN_IF_ERROR(Expect(TokKind::kLparen, "split config"));
        SplitConfig sc;
        ASSIGN_OR_RETURN(sc.dimension, ExpectInt("split config"));
        RETURN_IF_ERROR(Expect(TokKind::kColon, "split config"));
        do {
          ASSIGN_OR_RETURN(int64_t i, ExpectInt("split config"));
          sc.split_indices.push_back(i);
        } while (TryConsume(TokKind::kComma));
        RETURN_IF_ERROR(Expect(TokKind::kRparen, "split config"));
        layout.split_configs.push_back(std::move(sc));
      } else if (key == "P") {
        RETURN_IF_ERROR(Expect(TokKind::kLparen, "physical shape"));
        ASSIGN_OR_RETURN(Shape physical, ParseShapeRec());
        *layout.mutable_physical_shape() = std::move(physical);
        RETURN_IF_ERROR(Expect(TokKind::kRparen, "physical shape"));
      } else if (key == "D") {
        RETURN_IF_ERROR(Expect(TokKind::kLparen, "dim level types"));
        do {
          const Token& d = lex_.Peek();
          std::optional<DimLevelType> level;
          if (d.kind == TokKind::kIdent && d.text.size() == 1) level = DimLevelFromLetter(d.text[0]);
          if (!level.has_value()) return Expected("D, C, S or H", "dim level types");
          lex_.Next();
          bool unique = true, ordered = true;
          while (true) {
            if (TryConsume(TokKind::kPlus)) unique = false;
            else if (TryConsume(TokKind::kTilde)) ordered = false;
            else break;
          }
          layout.dim_level_types.push_back(*level);
          layout.dim_unique.push_back(unique);
          layout.dim_ordered.push_back(ordered);
        } while (TryConsume(TokKind::kComma));
        RETURN_IF_ERROR(Expect(TokKind::kRparen, "dim level types"));
      } else {
        return ErrorAt(key_pos, absl::StrCat("unknown layout attribute '", key, "'"));
      }
    }
  }
  RETURN_IF_ERROR(Expect(TokKind::kRbrace, "layout"));
  return layout;
}

absl::StatusOr<Shape> Parser::ParseShapeOnly() {
  ASSIGN_OR_RETURN(Shape shape, ParseShapeRec());
  if (lex_.PeekKind() != TokKind::kEof) return Expected("end of input", "shape");
  return shape;
}

absl::StatusOr<Layout> Parser::ParseLayoutOnly() {
  RETURN_IF_ERROR(Expect(TokKind::kLbrace, "layout"));
  ASSIGN_OR_RETURN(Layout layout, ParseLayoutBody());
  if (lex_.PeekKind() != TokKind::kEof) return Expected("end of input", "layout");
  return layout;
}

// ---------------------------------------------------------------------------
// Literals

absl::Status Parser::ParseScalarInto(PrimitiveType type, Literal* literal, int64_t index) {
  const Token& t = lex_.Peek();
  if (primitive_util::IsComplexType(type)) {
    RETURN_IF_ERROR(Expect(TokKind::kLparen, "complex constant"));
    ASSIGN_OR_RETURN(double re, ExpectDouble("complex constant"));
    RETURN_IF_ERROR(Expect(TokKind::kComma, "complex constant"));
    ASSIGN_OR_RETURN(double im, ExpectDouble("complex constant"));
    RETURN_IF_ERROR(Expect(TokKind::kRparen, "complex constant"));
    literal->SetFromComplex(index, {re, im});
    return absl::OkStatus();
  }
  if (type == PRED) {
    if (t.kind == TokKind::kIdent && (t.str == "true" || t.str == "false")) {
      literal->SetFromInt64(index, t.str == "true" ? 1 : 0);
      lex_.Next();
      return absl::OkStatus();
    }
    if (t.kind == TokKind::kInt && (t.text == "0" || t.text == "1")) {
      literal->SetFromInt64(index, t.text == "1" ? 1 : 0);
      lex_.Next();
      return absl::OkStatus();
    }
    return Expected("true or false", "pred constant");
  }
  if (primitive_util::IsIntegralType(type)) {
    if (t.kind != TokKind::kInt) return Expected("an integer", "integer constant");
    const int bits = primitive_util::BitWidth(type);
    std::string s(t.text);
    bool neg = s[0] == '-';
    std::string digits = neg ? s.substr(1) : s;
    uint64_t mag = 0;
    bool ok = absl::StartsWithIgnoreCase(digits, "0x") ? absl::SimpleHexAtoi(digits.substr(2), &mag)
                                                       : absl::SimpleAtoi(digits, &mag);
    if (primitive_util::IsUnsignedIntegralType(type)) {
      uint64_t max = bits >= 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
      if (!ok || (neg && mag != 0) || mag > max) {
        return ErrorAt(t.pos, absl::StrCat("value ", s, " is out of range for ",
                                           std::string(primitive_util::LowercasePrimitiveTypeName(type))));
      }
      literal->SetFromUint64(index, mag);
    } else {
      uint64_t limit = uint64_t{1} << (bits - 1);  // |min|
      if (!ok || (neg ? mag > limit : mag > limit - 1)) {
        return ErrorAt(t.pos, absl::StrCat("value ", s, " is out of range for ",
                                           std::string(primitive_util::LowercasePrimitiveTypeName(type))));
      }
      literal->SetFromInt64(index, neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag));
    }
    lex_.Next();
    return absl::OkStatus();
  }
  if (primitive_util::IsFloatingPointType(type)) {
    ASSIGN_OR_RETURN(double v, ExpectDouble("floating-point constant"));
    // NaN payloads as in "nan(0x1)": accepted; the payload is not kept.
    if (std::isnan(v) && lex_.PeekKind() == TokKind::kLparen) {
      lex_.Next();
      RETURN_IF_ERROR(ExpectInt("nan payload").status());
      RETURN_IF_ERROR(Expect(TokKind::kRparen, "nan payload"));
    }
    literal->SetFromDouble(index, v);
    return absl::OkStatus();
  }
  return ErrorAt(t.pos, absl::StrCat("constants of type ",
                                     std::string(primitive_util::LowercasePrimitiveTypeName(type)),
                                     " are not supported"));
}

absl::Status Parser::ParseArrayLiteralInto(const Shape& shape, Literal* literal, bool) {
  const int64_t rank = shape.rank();
  const int64_t n = ShapeUtil::ElementsIn(shape);
  if (rank == 0) {
    // A scalar, optionally in braces.
    if (lex_.PeekKind() == TokKind::kLbrace && !primitive_util::IsComplexType(shape.element_type())) {
      lex_.Next();
      RETURN_IF_ERROR(ParseScalarInto(shape.element_type(), literal, 0));
      return Expect(TokKind::kRbrace, "scalar constant");
    }
    return ParseScalarInto(shape.element_type(), literal, 0);
  }
  if (lex_.PeekKind() != TokKind::kLbrace) return Expected("'{'", "array constant");
  {
    // Elided form "{...}": zero-filled.
    HloLexer probe = lex_;
    probe.Next();
    if (probe.PeekKind() == TokKind::kDots) {
      lex_.Next();
      lex_.Next();
      return Expect(TokKind::kRbrace, "elided constant");
    }
  }
  // Nested braces, one level per dimension; a flat list of all elements is also accepted.
  int64_t index = 0;
  std::vector<int64_t> counts;
  int64_t level = 0;
  const int64_t start = lex_.Peek().pos;
  bool flat = false;
  auto parse_elems = [&](auto&& self, int64_t dim) -> absl::Status {
    RETURN_IF_ERROR(Expect(TokKind::kLbrace, "array constant"));
    RETURN_IF_ERROR(EnterNesting());
    int64_t count = 0;
    if (lex_.PeekKind() != TokKind::kRbrace) {
      do {
        if (dim + 1 < rank && !flat) {
          if (lex_.PeekKind() != TokKind::kLbrace) {
            if (dim == 0) {
              flat = true;
            } else {
              return Expected("'{'", "array constant");
            }
          }
        }
        if (dim + 1 < rank && !flat) {
          RETURN_IF_ERROR(self(self, dim + 1));
        } else {
          if (index >= n) return ErrorAtPeek(absl::StrCat("too many elements in constant of shape ",
                                                          shape.ToString()));
          RETURN_IF_ERROR(ParseScalarInto(shape.element_type(), literal, index));
          ++index;
        }
        ++count;
      } while (TryConsume(TokKind::kComma));
    }
    if (!flat && count != shape.dimensions(dim)) {
      return ErrorAtPeek(absl::StrCat("expected ", shape.dimensions(dim),
                                      " elements in dimension ", dim, " of constant, got ", count));
    }
    RETURN_IF_ERROR(Expect(TokKind::kRbrace, "array constant"));
    ExitNesting();
    return absl::OkStatus();
  };
  (void)counts;
  (void)level;
  RETURN_IF_ERROR(parse_elems(parse_elems, 0));
  if (index != n) {
    return ErrorAt(start, absl::StrCat("constant of shape ", shape.ToString(), " needs ", n,
                                       " elements, got ", index));
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> Parser::ParseConstantLiteral(const Shape& shape) {
  RETURN_IF_ERROR(EnterNesting());
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    RETURN_IF_ERROR(Expect(TokKind::kLparen, "tuple constant"));
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i > 0) RETURN_IF_ERROR(Expect(TokKind::kComma, "tuple constant"));
      ASSIGN_OR_RETURN(Literal e, ParseConstantLiteral(shape.tuple_shapes(i)));
      elements.push_back(std::move(e));
    }
    RETURN_IF_ERROR(Expect(TokKind::kRparen, "tuple constant"));
    ExitNesting();
    return Literal::MakeTuple(std::move(elements));
  }
  if (!shape.IsArray()) {
    return ErrorAtPeek(absl::StrCat("constant of shape ", shape.ToString(), " is not supported"));
  }
  if (ShapeUtil::ElementsIn(shape) > kMaxConstantElements) {
    return ErrorAtPeek(absl::StrCat("constant of shape ", shape.ToString(), " is too large"));
  }
  Shape static_shape = shape;
  for (int i = 0; i < static_shape.rank(); ++i) static_shape.set_dynamic_dimension(i, false);
  absl::StatusOr<Literal> lit = Literal::Create(static_shape);
  if (!lit.ok()) return ErrorAtPeek(lit.status().message());
  RETURN_IF_ERROR(ParseArrayLiteralInto(static_shape, &*lit, false));
  ExitNesting();
  return std::move(lit);
}

absl::StatusOr<Literal> Parser::ParseShapedLiteral() {
  RETURN_IF_ERROR(EnterNesting());
  if (lex_.PeekKind() == TokKind::kLparen) {
    // A tuple: "( shape value, shape value )".
    lex_.Next();
    std::vector<Literal> elements;
    if (!TryConsume(TokKind::kRparen)) {
      do {
        ASSIGN_OR_RETURN(Literal e, ParseShapedLiteral());
        elements.push_back(std::move(e));
      } while (TryConsume(TokKind::kComma));
      RETURN_IF_ERROR(Expect(TokKind::kRparen, "tuple literal"));
    }
    ExitNesting();
    return Literal::MakeTuple(std::move(elements));
  }
  ASSIGN_OR_RETURN(Shape shape, ParseShapeRec());
  ASSIGN_OR_RETURN(Literal lit, ParseConstantLiteral(shape));
  ExitNesting();
  return lit;
}

}  // namespace hlo_parser_internal
}  // namespace xla
