// Literal printing, byte-compatible with xla::Literal::ToString / ToStringOneline /
// ToStringWithoutShapeOneline (the text inside HLO constant(...)).
//
// Floats use XLA's RoundTripFpToString: "%.*g" with max_digits10 of the type (f16 5,
// bf16 4, f8e5m2/f8e5m2fnuz/f4e2m1fn/f8e8m0fnu 2, other f8 3); f32 and f64 first try
// digits10 (6 / 15) and fall back to max_digits10 (9 / 17) when that does not round-trip.
// NaNs print as "nan" / "-nan"; for f16, bf16, f32, f64, f8e5m2, f8e4m3 and f8e3m4 a
// NaN whose fraction is not exactly the quiet bit appends its fraction: "nan(0x1)".
// Arrays of rank >= 1 print PRED as 1/0; scalars print true/false.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hlo/literal.h"
#include "hlo/literal_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"

namespace xla {
namespace {

std::string FormatG(int precision, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
  return buf;
}

std::string NanText(bool negative, uint64_t fraction, uint64_t quiet_bit, bool print_payload) {
  std::string s = negative ? "-nan" : "nan";
  if (print_payload && fraction != quiet_bit) absl::StrAppendFormat(&s, "(0x%x)", fraction);
  return s;
}

// Digits for "%.*g" (ml_dtypes / Eigen max_digits10).
int MaxDigits10(PrimitiveType t) {
  switch (t) {
    case F16:
      return 5;
    case BF16:
      return 4;
    case F8E5M2:
    case F8E5M2FNUZ:
    case F4E2M1FN:
    case F8E8M0FNU:
      return 2;
    default:
      return 3;  // F8E4M3, F8E4M3FN, F8E4M3FNUZ, F8E4M3B11FNUZ, F8E3M4
  }
}

bool PrintsNanPayload(PrimitiveType t) {
  return t == F16 || t == BF16 || t == F8E5M2 || t == F8E4M3 || t == F8E3M4;
}

std::string FormatF32(float v) {
  if (std::isnan(v)) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return NanText(std::signbit(v), bits & 0x7FFFFF, 0x400000, true);
  }
  std::string s = FormatG(6, v);
  if (std::strtof(s.c_str(), nullptr) != v) s = FormatG(9, v);
  return s;
}

std::string FormatF64(double v) {
  if (std::isnan(v)) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return NanText(std::signbit(v), bits & ((uint64_t{1} << 52) - 1), uint64_t{1} << 51, true);
  }
  std::string s = FormatG(15, v);
  if (std::strtod(s.c_str(), nullptr) != v) s = FormatG(17, v);
  return s;
}

std::string FormatNarrow(PrimitiveType t, uint32_t bits) {
  const FloatFormatKind kind = *primitive_util::NarrowFloatFormat(t);
  const double v = DecodeFloat(kind, bits);
  if (std::isnan(v)) {
    const FloatFormat& f = GetFloatFormat(kind);
    const uint32_t mask = (1u << f.mantissa_bits) - 1;
    const uint32_t quiet = f.mantissa_bits > 0 ? 1u << (f.mantissa_bits - 1) : 0;
    return NanText(std::signbit(v), bits & mask, quiet, PrintsNanPayload(t));
  }
  return FormatG(MaxDigits10(t), v);
}

}  // namespace

namespace literal_internal {

// One element at storage pointer p, in XLA's GetAsString form.
std::string FormatElement(PrimitiveType t, const uint8_t* p, bool pred_as_digit) {
  switch (t) {
    case PRED:
      if (pred_as_digit) return *p ? "1" : "0";
      return *p ? "true" : "false";
    case F32: {
      float v;
      std::memcpy(&v, p, 4);
      return FormatF32(v);
    }
    case F64: {
      double v;
      std::memcpy(&v, p, 8);
      return FormatF64(v);
    }
    case F16:
    case BF16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return FormatNarrow(t, v);
    }
    case C64: {
      float re, im;
      std::memcpy(&re, p, 4);
      std::memcpy(&im, p + 4, 4);
      return absl::StrCat("(", FormatF32(re), ", ", FormatF32(im), ")");
    }
    case C128: {
      double re, im;
      std::memcpy(&re, p, 8);
      std::memcpy(&im, p + 8, 8);
      return absl::StrCat("(", FormatF64(re), ", ", FormatF64(im), ")");
    }
    default:
      if (primitive_util::IsNarrowFloatType(t)) return FormatNarrow(t, *p);
      if (primitive_util::IsUnsignedIntegralType(t)) return absl::StrCat(LoadUint(t, p));
      return absl::StrCat(LoadInt(t, p));
  }
}

}  // namespace literal_internal

namespace {

void PrintLiteral(const Literal& lit, bool print_shape, bool oneline, std::string* out);

void PrintTuple(const Literal& lit, bool print_shape, bool oneline, std::string* out) {
  out->append(oneline ? "( " : "(\n");
  for (int64_t i = 0; i < lit.tuple_element_count(); ++i) {
    if (i > 0) out->append(oneline ? ", " : ",\n");
    PrintLiteral(lit.tuple_element(i), print_shape, oneline, out);
  }
  out->append(oneline ? " )" : "\n)");
}

void PrintArray(const Literal& lit, bool print_shape, bool oneline, std::string* out) {
  const Shape& shape = lit.shape();
  const int64_t rank = shape.rank();
  const char* linebreak = oneline ? " " : "\n";
  const PrimitiveType type = shape.element_type();
  const int width = literal_internal::ElementBytes(type);
  const auto* base = static_cast<const uint8_t*>(lit.untyped_data());
  const std::vector<int64_t>& dims = shape.dimensions();
  std::vector<int64_t> strides = literal_internal::StorageStrides(shape);
  std::vector<int64_t> index;
  int64_t pos = 0;  // storage position of the current index prefix

  // Mirrors XLA's brace placement: 1-D arrays "{1, 2}"; innermost rows "{ 1, 2 }" (or
  // "{1}" for one element), indented by two spaces when multi-line; "/*i<k>=<v>*/"
  // markers on the non-innermost levels of arrays of rank > 3.
  std::function<void(int64_t)> rec = [&](int64_t level) {
    const int64_t remaining = rank - level;
    if (remaining == 0) {
      out->append(literal_internal::FormatElement(type, base + pos * width, rank > 0));
      return;
    }
    const int64_t n = dims[level];
    if (rank == 1) {
      out->append("{");
    } else if (remaining == 1) {
      if (!oneline) out->append("  ");
      out->append("{");
      if (n > 1) out->append(" ");
    } else if (rank > 3 && !index.empty()) {
      absl::StrAppend(out, "{ /*i", index.size() - 1, "=", index.back(), "*/",
                      n > 0 ? linebreak : "");
    } else {
      absl::StrAppend(out, "{", linebreak);
    }
    for (int64_t i = 0; i < n; ++i) {
      index.push_back(i);
      const int64_t saved = pos;
      pos += i * strides[level];
      rec(level + 1);
      pos = saved;
      index.pop_back();
      if (i < n - 1) {
        out->append(",");
        out->append(remaining > 1 ? linebreak : " ");
      }
    }
    if (rank == 1) {
      out->append("}");
    } else if (remaining == 1) {
      if (n > 1) out->append(" ");
      out->append("}");
    } else {
      absl::StrAppend(out, linebreak, "}");
    }
  };

  if (print_shape) {
    out->append(shape.ToString(false));
    out->append(" ");
  }
  rec(0);
}

void PrintLiteral(const Literal& lit, bool print_shape, bool oneline, std::string* out) {
  const Shape& shape = lit.shape();
  if (shape.IsTuple()) {
    PrintTuple(lit, print_shape, oneline, out);
  } else if (shape.IsToken()) {
    out->append("token");
  } else {
    PrintArray(lit, print_shape, oneline, out);
  }
}

}  // namespace

std::string Literal::ToString() const {
  std::string out;
  PrintLiteral(*this, /*print_shape=*/true, /*oneline=*/false, &out);
  return out;
}

std::string Literal::ToStringOneline() const {
  std::string out;
  PrintLiteral(*this, /*print_shape=*/true, /*oneline=*/true, &out);
  return out;
}

std::string Literal::ToStringWithoutShape() const {
  std::string out;
  PrintLiteral(*this, /*print_shape=*/false, /*oneline=*/true, &out);
  return out;
}

std::string Literal::ElementToString(int64_t linear_index) const {
  const int64_t pos = StorageIndex(linear_index);
  if (pos < 0) return "";
  const PrimitiveType t = shape().element_type();
  return literal_internal::FormatElement(
      t, static_cast<const uint8_t*>(untyped_data()) + pos * literal_internal::ElementBytes(t),
      /*pred_as_digit=*/false);
}

}  // namespace xla
