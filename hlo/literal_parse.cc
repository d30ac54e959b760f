// Literal text parsing: Literal::Parse ("<shape> <value>", or ToString()'s tuple form)
// and Literal::ParseWithShape (value only, as inside HLO constant(...)).
//
// Accepted values follow XLA's HLO parser: integers for integral types (unsigned types
// take negative values that fit as two's complement in 64 bits, like XLA: u64 -1 is
// the max); PRED takes true/false or 0/1; floats take integers, decimals with optional
// exponent, inf, -inf, nan, -nan and nan(0x<fraction>) for types whose NaNs carry a
// fraction. A finite float value that rounds to a non-finite one (f16 65520) is out
// of range. Complex values are "(re, im)". /*...*/ comments are whitespace. "{...}"
// (an elided constant) gives a zero-filled array.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "hlo/literal.h"
#include "hlo/literal_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace {

constexpr int kMaxNesting = 128;

class LiteralTextParser {
 public:
  explicit LiteralTextParser(std::string_view text) : text_(text) {}

  absl::StatusOr<Literal> ParseFull() {
    ASSIGN_OR_RETURN(Literal lit, ParseShapedLiteral(0));
    RETURN_IF_ERROR(ExpectEnd());
    return lit;
  }

  absl::StatusOr<Literal> ParseValueFull(const Shape& shape) {
    // Validate (and bound the size) before any allocation.
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
    RETURN_IF_ERROR(literal_internal::CheckedTotalBytes(shape).status());
    ASSIGN_OR_RETURN(Literal lit, ParseValue(shape, 0));
    RETURN_IF_ERROR(ExpectEnd());
    return lit;
  }

 private:
  // --- lexing helpers ---
  void SkipSpace() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        const size_t end = text_.find("*/", pos_ + 2);
        pos_ = end == std::string_view::npos ? text_.size() : end + 2;
      } else {
        return;
      }
    }
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool Eat(char c) {
    if (Peek() == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  absl::Status ErrorAt(size_t at, const std::string& msg) const {
    int64_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(line, ":", col, ": ", msg));
  }
  absl::Status Error(const std::string& msg) {
    SkipSpace();
    return ErrorAt(pos_, msg);
  }
  std::string Describe() {
    if (AtEnd()) return "end of input";
    size_t end = pos_ + 1;
    while (end < text_.size() && end - pos_ < 16 &&
           (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '.' ||
            text_[end] == '_'))
      ++end;
    return absl::StrCat("'", std::string(text_.substr(pos_, end - pos_)), "'");
  }
  absl::Status Expect(char c, const std::string& what) {
    if (Eat(c)) return absl::OkStatus();
    return Error(absl::StrCat("expected '", std::string(1, c), "' ", what, ", found ", Describe()));
  }
  absl::Status ExpectEnd() {
    if (AtEnd()) return absl::OkStatus();
    return Error(absl::StrCat("unexpected ", Describe(), " after the literal"));
  }
  // Identifier-like word ([a-z0-9_]*) at the cursor, not consumed.
  std::string_view PeekWord() {
    SkipSpace();
    size_t end = pos_;
    while (end < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_'))
      ++end;
    return text_.substr(pos_, end - pos_);
  }
  absl::StatusOr<int64_t> ParseDimension() {
    SkipSpace();
    const size_t start = pos_;
    uint64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      v = v * 10 + (text_[pos_] - '0');
      if (v > (uint64_t{1} << 62)) return ErrorAt(start, "dimension too large");
      ++pos_;
    }
    if (pos_ == start) return Error(absl::StrCat("expected a dimension, found ", Describe()));
    return static_cast<int64_t>(v);
  }

  // --- shapes ---
  absl::StatusOr<Shape> ParseShape(int depth) {
    if (depth > kMaxNesting) return Error("tuple nesting too deep");
    if (Eat('(')) {
      std::vector<Shape> elements;
      if (!Eat(')')) {
        do {
          ASSIGN_OR_RETURN(Shape s, ParseShape(depth + 1));
          elements.push_back(std::move(s));
        } while (Eat(','));
        RETURN_IF_ERROR(Expect(')', "to end a tuple shape"));
      }
      return Shape::MakeTuple(std::move(elements));
    }
    const size_t start = pos_;
    std::string_view name = PeekWord();
    std::optional<PrimitiveType> type = primitive_util::StringToPrimitiveType(name);
    if (name.empty() || !type.has_value() || *type == TUPLE) {
      return Error(absl::StrCat("expected a shape, found ", Describe()));
    }
    pos_ += name.size();
    if (*type == TOKEN) {
      if (text_.substr(pos_, 2) == "[]") pos_ += 2;
      return Shape::MakeToken();
    }
    if (!primitive_util::IsArrayType(*type)) {
      return ErrorAt(start, absl::StrCat("a literal cannot have element type ", std::string(name)));
    }
    if (pos_ >= text_.size() || text_[pos_] != '[') {
      return Error(absl::StrCat("expected '[' after element type ", std::string(name)));
    }
    ++pos_;
    Shape shape(*type, {});
    if (!Eat(']')) {
      do {
        bool dynamic = false;
        if (Peek() == '<' && text_.substr(pos_, 2) == "<=") {
          pos_ += 2;
          dynamic = true;
        }
        if (shape.rank() >= kMaxRank) return Error("too many dimensions");
        ASSIGN_OR_RETURN(int64_t d, ParseDimension());
        shape.add_dimensions(d, dynamic);
      } while (Eat(','));
      RETURN_IF_ERROR(Expect(']', "to end the dimensions"));
    }
    // Optional layout: minor_to_major, and anything after ':' (tiles, memory space...)
    // is skipped: literal storage is always dense and untiled.
    if (pos_ < text_.size() && text_[pos_] == '{') {
      ++pos_;
      std::vector<int64_t> m2m;
      if (Peek() != '}' && Peek() != ':') {
        do {
          if (static_cast<int64_t>(m2m.size()) > kMaxRank) return Error("layout too long");
          ASSIGN_OR_RETURN(int64_t d, ParseDimension());
          m2m.push_back(d);
        } while (Eat(','));
      }
      if (Eat(':')) {
        while (pos_ < text_.size() && text_[pos_] != '}') ++pos_;
      }
      RETURN_IF_ERROR(Expect('}', "to end the layout"));
      shape.set_layout(Layout(std::move(m2m)));
    }
    return shape;
  }

  // "<shape> <value>", or a tuple printed by ToString(): "( <shape> <value>, ... )".
  absl::StatusOr<Literal> ParseShapedLiteral(int depth) {
    if (depth > kMaxNesting) return Error("tuple nesting too deep");
    const size_t start = (SkipSpace(), pos_);
    if (PeekWord() == "token" && text_.substr(pos_ + 5, 1) != "[") {
      pos_ += 5;  // ToString() prints a token literal as just "token"
      return Literal::Create(Shape::MakeToken());
    }
    absl::StatusOr<Shape> shape = ParseShape(depth);
    if (!shape.ok() && start < text_.size() && text_[start] == '(') {
      // Not "(shape, ...)": try the per-element form.
      pos_ = start + 1;
      std::vector<Literal> elements;
      if (!Eat(')')) {
        do {
          ASSIGN_OR_RETURN(Literal e, ParseShapedLiteral(depth + 1));
          elements.push_back(std::move(e));
        } while (Eat(','));
        RETURN_IF_ERROR(Expect(')', "to end the tuple"));
      }
      return Literal::MakeTuple(std::move(elements));
    }
    RETURN_IF_ERROR(shape.status());
    if (shape->IsTuple() && shape->tuple_shapes_size() == 0 && Peek() != '(') {
      return Literal::MakeTuple({});  // ToString() of an empty tuple: "(\n\n)"
    }
    if (absl::Status st = ShapeUtil::ValidateShape(*shape); !st.ok()) {
      return ErrorAt(start, std::string(st.message()));
    }
    if (absl::Status st = literal_internal::CheckedTotalBytes(*shape).status(); !st.ok()) {
      return ErrorAt(start, std::string(st.message()));
    }
    return ParseValue(*shape, depth);
  }

  // --- values ---
  absl::StatusOr<Literal> ParseValue(const Shape& shape, int depth) {
    if (depth > kMaxNesting) return Error("tuple nesting too deep");
    if (shape.IsTuple()) {
      RETURN_IF_ERROR(Expect('(', "to start a tuple value"));
      std::vector<Literal> elements;
      for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
        if (i > 0) {
          RETURN_IF_ERROR(Expect(',', absl::StrCat("between tuple elements (the tuple has ",
                                                   shape.tuple_shapes_size(), " elements)")));
        }
        ASSIGN_OR_RETURN(Literal e, ParseValue(shape.tuple_shapes(i), depth + 1));
        elements.push_back(std::move(e));
      }
      RETURN_IF_ERROR(Expect(')', absl::StrCat("to end a tuple of ", shape.tuple_shapes_size(),
                                               " elements")));
      Literal lit = Literal::MakeTuple(std::move(elements));
      return lit;
    }
    if (shape.IsToken()) {
      if (PeekWord() == "token") pos_ += 5;
      return Literal::Create(shape);
    }
    ASSIGN_OR_RETURN(Literal lit, Literal::Create(shape));
    if (shape.rank() == 0) {
      RETURN_IF_ERROR(ParseElement(&lit, 0));
      return lit;
    }
    // Elided constant "{...}".
    const size_t save = pos_;
    if (Eat('{') && text_.substr((SkipSpace(), pos_), 3) == "...") {
      pos_ += 3;
      RETURN_IF_ERROR(Expect('}', "after '...'"));
      return lit;
    }
    pos_ = save;
    int64_t linear = 0;
    std::vector<int64_t> seen;
    RETURN_IF_ERROR(ParseNested(&lit, 0, &linear, &seen));
    return lit;
  }

  absl::Status ParseNested(Literal* lit, int64_t level, int64_t* linear,
                           std::vector<int64_t>* seen) {
    const Shape& shape = lit->shape();
    const int64_t rank = shape.rank();
    const int64_t n = shape.dimensions(level);
    auto where = [&]() {
      std::string s = "[";
      for (size_t i = 0; i < seen->size(); ++i) absl::StrAppend(&s, i ? "," : "", (*seen)[i]);
      return s + "]";
    };
    if (Peek() != '{') {
      return Error(absl::StrCat("expected '{' for a nested array of rank ", rank - level,
                                " in shape ", shape.ToString(), ", found ", Describe()));
    }
    ++pos_;
    int64_t count = 0;
    if (Peek() != '}') {
      do {
        if (count == n) {
          return Error(absl::StrCat("expected ", n, " elements in the ", where(),
                                    "th element of shape ", shape.ToString(), ", but sees more"));
        }
        if (level + 1 < rank) {
          seen->push_back(count);
          RETURN_IF_ERROR(ParseNested(lit, level + 1, linear, seen));
          seen->pop_back();
        } else {
          if (Peek() == '{') {
            return Error(absl::StrCat("expected a value, found a nested array deeper than rank ",
                                      rank, " of shape ", shape.ToString()));
          }
          RETURN_IF_ERROR(ParseElement(lit, (*linear)++));
        }
        ++count;
      } while (Eat(','));
    }
    if (Peek() != '}') {
      return Error(absl::StrCat("expected ',' or '}' in array of shape ", shape.ToString(),
                                ", found ", Describe()));
    }
    if (count != n) {
      return Error(absl::StrCat("expected ", n, " elements in the ", where(), "th element of shape ",
                                shape.ToString(), ", but sees ", count));
    }
    ++pos_;
    return absl::OkStatus();
  }

  struct Number {
    bool is_int = false;
    bool negative = false;
    uint64_t magnitude = 0;  // for is_int; saturated flag below
    bool int_overflow = false;
    double value = 0;
    bool has_payload = false;
    uint64_t payload = 0;
  };

  // Lexes one real number: integer, decimal, inf, nan, nan(0x...).
  absl::StatusOr<Number> LexNumber() {
    SkipSpace();
    const size_t start = pos_;
    Number num;
    if (pos_ < text_.size() && text_[pos_] == '-') {
      num.negative = true;
      ++pos_;
    }
    std::string_view word = PeekWordNoSkip();
    if (word == "inf") {
      pos_ += 3;
      num.value = num.negative ? -INFINITY : INFINITY;
      return num;
    }
    if (word == "nan") {
      pos_ += 3;
      num.value = num.negative ? -std::numeric_limits<double>::quiet_NaN()
                               : std::numeric_limits<double>::quiet_NaN();
      if (text_.substr(pos_, 3) == "(0x") {
        size_t p = pos_ + 3;
        uint64_t payload = 0;
        const size_t digits_start = p;
        while (p < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[p]))) {
          if (payload >> 60) return ErrorAt(start, "NaN payload too large");
          const char c = text_[p];
          payload = payload * 16 + (std::isdigit(static_cast<unsigned char>(c))
                                        ? c - '0'
                                        : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
          ++p;
        }
        if (p == digits_start || p >= text_.size() || text_[p] != ')') {
          return ErrorAt(start, "malformed NaN payload, expected nan(0x<hex digits>)");
        }
        pos_ = p + 1;
        num.has_payload = true;
        num.payload = payload;
      }
      return num;
    }
    const size_t digits_start = pos_;
    bool is_int = true;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    const size_t int_end = pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_int = false;
      ++pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    if (pos_ == digits_start || (pos_ == digits_start + 1 && !is_int)) {
      pos_ = start;
      return Error(absl::StrCat("expected a number, found ", Describe()));
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t p = pos_ + 1;
      if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
      const size_t exp_start = p;
      while (p < text_.size() && std::isdigit(static_cast<unsigned char>(text_[p]))) ++p;
      if (p == exp_start) return ErrorAt(start, "malformed exponent in number");
      is_int = false;
      pos_ = p;
    }
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
         text_[pos_] == '.')) {
      return ErrorAt(start, absl::StrCat("malformed number '",
                                         std::string(text_.substr(start, pos_ - start + 1)), "'"));
    }
    num.is_int = is_int;
    if (is_int) {
      for (size_t i = digits_start; i < int_end; ++i) {
        const uint64_t d = text_[i] - '0';
        if (num.magnitude > (std::numeric_limits<uint64_t>::max() - d) / 10) {
          num.int_overflow = true;
          break;
        }
        num.magnitude = num.magnitude * 10 + d;
      }
    }
    const std::string token(text_.substr(start, pos_ - start));
    num.value = std::strtod(token.c_str(), nullptr);
    if (std::isinf(num.value)) {
      return ErrorAt(start, absl::StrCat("constant ", token,
                                         " is out of range for double and so is unparsable"));
    }
    return num;
  }
  std::string_view PeekWordNoSkip() {
    size_t end = pos_;
    while (end < text_.size() && std::isalpha(static_cast<unsigned char>(text_[end]))) ++end;
    return text_.substr(pos_, end - pos_);
  }

  absl::Status StoreReal(Literal* lit, PrimitiveType type, uint8_t* p, const Number& num,
                         size_t at) {
    const std::string type_name(primitive_util::LowercasePrimitiveTypeName(type));
    if (num.has_payload) {
      uint64_t bits;
      uint64_t mask;
      if (type == F32) {
        mask = (1u << 23) - 1;
        bits = 0x7F800000u | (num.negative ? 0x80000000u : 0);
      } else if (type == F64) {
        mask = (uint64_t{1} << 52) - 1;
        bits = (uint64_t{0x7FF} << 52) | (num.negative ? uint64_t{1} << 63 : 0);
      } else if (type == F16 || type == BF16 || type == F8E5M2 || type == F8E4M3 ||
                 type == F8E3M4) {
        const FloatFormat& f = GetFloatFormat(*primitive_util::NarrowFloatFormat(type));
        mask = (uint64_t{1} << f.mantissa_bits) - 1;
        bits = (uint64_t{(1u << f.exponent_bits) - 1} << f.mantissa_bits) |
               (num.negative ? uint64_t{1} << (f.total_bits - 1) : 0);
      } else {
        return ErrorAt(at, absl::StrCat("NaN payloads are not supported for ", type_name));
      }
      if (num.payload == 0 || num.payload > mask) {
        return ErrorAt(at, absl::StrCat("NaN payload 0x", absl::Hex(num.payload),
                                        " is out of range for ", type_name));
      }
      bits |= num.payload;
      std::memcpy(p, &bits, literal_internal::ElementBytes(type));  // little-endian host
      return absl::OkStatus();
    }
    literal_internal::StoreFloat(type, p, num.value);
    const double stored = literal_internal::LoadFloat(type, p);
    if (std::isfinite(num.value) && !std::isfinite(stored)) {
      return ErrorAt(at, absl::StrCat("value ", std::string(text_.substr(at, pos_ - at)),
                                      " is out of range for literal's primitive type ", type_name));
    }
    return absl::OkStatus();
  }

  absl::Status ParseElement(Literal* lit, int64_t linear) {
    const PrimitiveType type = lit->shape().element_type();
    const std::string type_name(primitive_util::LowercasePrimitiveTypeName(type));
    const int64_t storage = lit->StorageIndex(linear);
    if (storage < 0) return Error("internal: element index out of range");
    uint8_t* p = static_cast<uint8_t*>(lit->untyped_data()) +
                 storage * literal_internal::ElementBytes(type);
    SkipSpace();
    const size_t at = pos_;
    if (primitive_util::IsComplexType(type)) {
      if (!Eat('(')) {
        return Error(absl::StrCat("expected '(' to start a ", type_name, " value, found ",
                                  Describe()));
      }
      const PrimitiveType part = type == C64 ? F32 : F64;
      uint8_t buf[8];
      ASSIGN_OR_RETURN(Number re, LexNumber());
      RETURN_IF_ERROR(StoreReal(lit, part, buf, re, at));
      const double re_v = literal_internal::LoadFloat(part, buf);
      RETURN_IF_ERROR(Expect(',', "between the real and imaginary parts"));
      ASSIGN_OR_RETURN(Number im, LexNumber());
      RETURN_IF_ERROR(StoreReal(lit, part, buf, im, at));
      const double im_v = literal_internal::LoadFloat(part, buf);
      RETURN_IF_ERROR(Expect(')', "to end a complex value"));
      literal_internal::StoreComplex(type, p, {re_v, im_v});
      return absl::OkStatus();
    }
    if (type == PRED) {
      std::string_view word = PeekWord();
      if (word == "true" || word == "false") {
        pos_ += word.size();
        *p = word == "true";
        return absl::OkStatus();
      }
    }
    ASSIGN_OR_RETURN(Number num, LexNumber());
    const std::string token(text_.substr(at, pos_ - at));
    if (primitive_util::IsFloatingPointType(type)) return StoreReal(lit, type, p, num, at);
    // PRED and integral types.
    if (!num.is_int) {
      return ErrorAt(at, absl::StrCat("expected an integer for type ", type_name, ", found ",
                                      token));
    }
    const int bits = type == PRED ? 1 : primitive_util::BitWidth(type);
    const bool is_signed = primitive_util::IsSignedIntegralType(type);
    bool ok = !num.int_overflow;
    uint64_t value = 0;
    if (ok) {
      if (num.negative) {
        // -magnitude as int64 (XLA lexes integers as int64).
        ok = num.magnitude <= uint64_t{1} << 63;
        value = ~num.magnitude + 1;
        if (ok && is_signed) {
          ok = bits == 64 || num.magnitude <= uint64_t{1} << (bits - 1);
        } else if (ok) {
          // Unsigned: the two's complement bits must fit (only u64 takes them).
          ok = bits == 64 && num.magnitude > 0 ? true : num.magnitude == 0;
        }
      } else {
        value = num.magnitude;
        const uint64_t max = is_signed ? (uint64_t{1} << (bits - 1)) - 1
                             : bits == 64 ? std::numeric_limits<uint64_t>::max()
                                          : (uint64_t{1} << bits) - 1;
        ok = value <= max;
      }
    }
    if (!ok) {
      return ErrorAt(at, absl::StrCat("value ", token, " is out of range for literal's primitive type ",
                                      type_name));
    }
    literal_internal::StoreIntBits(type, p, value);
    return absl::OkStatus();
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<Literal> Literal::Parse(std::string_view text) {
  return LiteralTextParser(text).ParseFull();
}

absl::StatusOr<Literal> Literal::ParseWithShape(const Shape& shape, std::string_view value_text) {
  return LiteralTextParser(value_text).ParseValueFull(shape);
}

}  // namespace xla
