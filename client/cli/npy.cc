#include "client/cli/npy.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// NumPy itself refuses headers over 10000 bytes by default; allow more, but bounded.
constexpr uint64_t kMaxHeaderBytes = 1 << 20;
constexpr int64_t kMaxRank = 64;
constexpr int64_t kMaxFileBytes = Literal::kMaxBytes;

bool HostIsLittleEndian() {
  const uint16_t probe = 1;
  uint8_t first;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

// Types without a NumPy dtype, by their ml_dtypes names. Each is stored one element per
// byte (or two for bfloat16), exactly like Literal's storage.
struct NamedType {
  const char* name;
  PrimitiveType type;
};
constexpr NamedType kMlDtypesNames[] = {
    {"bfloat16", BF16},
    {"float8_e5m2", F8E5M2},
    {"float8_e4m3", F8E4M3},
    {"float8_e4m3fn", F8E4M3FN},
    {"float8_e4m3b11fnuz", F8E4M3B11FNUZ},
    {"float8_e3m4", F8E3M4},
    {"float8_e5m2fnuz", F8E5M2FNUZ},
    {"float8_e4m3fnuz", F8E4M3FNUZ},
    {"float8_e8m0fnu", F8E8M0FNU},
    {"float4_e2m1fn", F4E2M1FN},
    {"int2", S2},
    {"int4", S4},
    {"uint2", U2},
    {"uint4", U4},
};
constexpr NamedType kNumpyNames[] = {
    {"bool", PRED},       {"int8", S8},         {"int16", S16},     {"int32", S32},
    {"int64", S64},       {"uint8", U8},        {"uint16", U16},    {"uint32", U32},
    {"uint64", U64},      {"float16", F16},     {"float32", F32},   {"float64", F64},
    {"complex64", C64},   {"complex128", C128},
};

struct Dtype {
  PrimitiveType type = PRIMITIVE_TYPE_INVALID;
  bool big_endian = false;
};

absl::StatusOr<Dtype> ParseDescr(const std::string& descr) {
  for (const NamedType& n : kMlDtypesNames) {
    if (descr == n.name) return Dtype{n.type, false};
  }
  for (const NamedType& n : kNumpyNames) {
    if (descr == n.name) return Dtype{n.type, !HostIsLittleEndian()};
  }
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("unsupported dtype '", descr, "'", why));
  };
  if (descr.empty()) return bad("");
  size_t pos = 0;
  char order = '=';
  if (descr[0] == '<' || descr[0] == '>' || descr[0] == '|' || descr[0] == '=') order = descr[pos++];
  if (pos >= descr.size()) return bad("");
  char kind = descr[pos++];
  std::string size_text = descr.substr(pos);
  if (kind == '?' && size_text.empty()) size_text = "1";
  if (size_text.empty() || size_text.size() > 3 ||
      size_text.find_first_not_of("0123456789") != std::string::npos) {
    return bad("");
  }
  int size = std::stoi(size_text);
  if (kind == 'V') {
    return bad(
        " (void data is not bfloat16: bf16 arrays need ml_dtypes' descr 'bfloat16'; raw "
        "bit patterns have the type their descr says, e.g. '<u2')");
  }
  PrimitiveType type = PRIMITIVE_TYPE_INVALID;
  switch (kind) {
    case 'b':
    case '?':
      if (size == 1) type = PRED;
      break;
    case 'i':
      type = size == 1 ? S8 : size == 2 ? S16 : size == 4 ? S32 : size == 8 ? S64 : type;
      break;
    case 'u':
      type = size == 1 ? U8 : size == 2 ? U16 : size == 4 ? U32 : size == 8 ? U64 : type;
      break;
    case 'f':
      type = size == 2 ? F16 : size == 4 ? F32 : size == 8 ? F64 : type;
      break;
    case 'c':
      type = size == 8 ? C64 : size == 16 ? C128 : type;
      break;
    default:
      break;
  }
  if (type == PRIMITIVE_TYPE_INVALID) return bad("");
  if (order == '|' && size != 1) return bad(" ('|' byte order on a multi-byte type)");
  bool big = order == '>' || (order == '=' && !HostIsLittleEndian());
  return Dtype{type, size == 1 ? false : big};
}

// --- header dictionary: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } ---
struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<int64_t>> shape;
};

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  absl::StatusOr<Header> Parse() {
    Header header;
    SkipSpace();
    if (!Consume('{')) return Error("expected '{'");
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      ASSIGN_OR_RETURN(std::string key, ParseString());
      SkipSpace();
      if (!Consume(':')) return Error("expected ':'");
      SkipSpace();
      if (key == "descr") {
        if (header.descr) return Error("duplicate key 'descr'");
        if (Peek() == '[') return Error("structured dtypes are not supported");
        ASSIGN_OR_RETURN(header.descr, ParseString());
      } else if (key == "fortran_order") {
        if (header.fortran_order) return Error("duplicate key 'fortran_order'");
        ASSIGN_OR_RETURN(header.fortran_order, ParseBool());
      } else if (key == "shape") {
        if (header.shape) return Error("duplicate key 'shape'");
        ASSIGN_OR_RETURN(header.shape, ParseShape());
      } else {
        return Error(absl::StrCat("unexpected key '", key, "'"));
      }
      SkipSpace();
      if (Consume(',')) continue;
      if (Consume('}')) break;
      return Error("expected ',' or '}'");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the dictionary");
    if (!header.descr || !header.fortran_order || !header.shape) {
      return absl::InvalidArgumentError(
          "npy header must have the keys 'descr', 'fortran_order' and 'shape'");
    }
    return header;
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Consume(char c) {
    if (Peek() != c || pos_ >= text_.size()) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat("bad npy header at byte ", pos_, ": ", what));
  }
  absl::StatusOr<std::string> ParseString() {
    char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a string");
    ++pos_;
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return Error("unterminated string");
    std::string s(text_.substr(pos_, end - pos_));
    if (s.find('\\') != std::string::npos) return Error("escapes in strings are not supported");
    pos_ = end + 1;
    return s;
  }
  absl::StatusOr<bool> ParseBool() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    return Error("expected True or False");
  }
  absl::StatusOr<std::vector<int64_t>> ParseShape() {
    if (!Consume('(')) return Error("expected '(' starting the shape");
    std::vector<int64_t> dims;
    while (true) {
      SkipSpace();
      if (Consume(')')) break;
      if (Peek() < '0' || Peek() > '9') return Error("expected a non-negative integer dimension");
      uint64_t value = 0;
      while (Peek() >= '0' && Peek() <= '9') {
        value = value * 10 + static_cast<uint64_t>(Peek() - '0');
        if (value > (uint64_t{1} << 62)) return Error("dimension too large");
        ++pos_;
      }
      Consume('L');  // Python 2 long suffix
      dims.push_back(static_cast<int64_t>(value));
      if (static_cast<int64_t>(dims.size()) > kMaxRank) return Error("rank above 64");
      SkipSpace();
      if (Consume(',')) continue;
      if (Consume(')')) break;
      return Error("expected ',' or ')' in the shape");
    }
    return dims;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

uint64_t LoadLittle(std::string_view bytes, size_t offset, int width) {
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(bytes[offset + i]);
  return v;
}

// Brings raw element bytes into Literal's storage conventions: host byte order, PRED 0/1,
// sub-byte values masked (and sign-extended for signed types).
void NormalizeStorage(PrimitiveType type, bool swap, uint8_t* data, int64_t count) {
  const int width = primitive_util::ByteWidth(type);
  if (swap && width > 1) {
    const int part = primitive_util::IsComplexType(type) ? width / 2 : width;
    const int64_t parts = count * (width / part);
    for (int64_t i = 0; i < parts; ++i) {
      uint8_t* p = data + i * part;
      for (int a = 0, b = part - 1; a < b; ++a, --b) std::swap(p[a], p[b]);
    }
  }
  if (type == PRED) {
    for (int64_t i = 0; i < count; ++i) data[i] = data[i] != 0 ? 1 : 0;
  } else if (primitive_util::IsSubByteType(type)) {
    const int bits = primitive_util::BitWidth(type);
    const uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
    const bool is_signed = primitive_util::IsSignedIntegralType(type);
    for (int64_t i = 0; i < count; ++i) {
      uint8_t v = data[i] & mask;
      if (is_signed && (v >> (bits - 1)) != 0) v |= static_cast<uint8_t>(~mask);
      data[i] = v;
    }
  }
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot open file");
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) return absl::InvalidArgumentError("cannot determine file size");
  if (size > kMaxFileBytes) return absl::InvalidArgumentError("file larger than 16 GiB");
  in.seekg(0, std::ios::beg);
  std::string data(static_cast<size_t>(size), '\0');
  in.read(data.data(), size);
  if (!in) return absl::DataLossError("short read");
  return data;
}

}  // namespace

absl::StatusOr<Literal> ParseNpy(std::string_view bytes) {
  if (bytes.size() < kMagicSize + 2 || bytes.substr(0, kMagicSize) != std::string_view(kMagic, kMagicSize)) {
    return absl::InvalidArgumentError("not a .npy file (missing \\x93NUMPY magic)");
  }
  const int major = static_cast<uint8_t>(bytes[6]);
  const int minor = static_cast<uint8_t>(bytes[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return absl::InvalidArgumentError(absl::StrCat("unsupported .npy format version ", major, ".", minor));
  }
  const int length_width = major == 1 ? 2 : 4;
  const size_t prefix = kMagicSize + 2 + length_width;
  if (bytes.size() < prefix) return absl::InvalidArgumentError("truncated .npy header");
  const uint64_t header_len = LoadLittle(bytes, kMagicSize + 2, length_width);
  if (header_len > bytes.size() - prefix) {
    return absl::InvalidArgumentError(absl::StrCat("npy header length ", header_len, " exceeds the file size (",
                                                   bytes.size(), " bytes)"));
  }
  if (header_len > kMaxHeaderBytes) {
    return absl::InvalidArgumentError(absl::StrCat("npy header length ", header_len, " is too large"));
  }
  ASSIGN_OR_RETURN(Header header, HeaderParser(bytes.substr(prefix, header_len)).Parse());
  ASSIGN_OR_RETURN(Dtype dtype, ParseDescr(*header.descr));

  const std::vector<int64_t>& dims = *header.shape;
  int64_t count = 1;
  bool zero = false;
  for (int64_t d : dims) zero |= d == 0;
  if (!zero) {
    for (int64_t d : dims) {
      if (__builtin_mul_overflow(count, d, &count) || count > kMaxFileBytes) {
        return absl::InvalidArgumentError("npy shape has too many elements");
      }
    }
  } else {
    count = 0;
  }
  const int width = primitive_util::ByteWidth(dtype.type);
  const uint64_t data_bytes = static_cast<uint64_t>(count) * static_cast<uint64_t>(width);
  const uint64_t available = bytes.size() - prefix - header_len;
  if (data_bytes != available) {
    return absl::InvalidArgumentError(
        absl::StrCat("npy data is ", available, " bytes but shape (", absl::StrJoin(dims, ", "), ") of '",
                     *header.descr, "' needs ", data_bytes, available < data_bytes ? " (truncated file)" : ""));
  }

  Shape shape = ShapeUtil::MakeShapeWithDescendingLayout(dtype.type, dims);
  if (*header.fortran_order && dims.size() > 1) {
    std::vector<int64_t> minor_to_major(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) minor_to_major[i] = static_cast<int64_t>(i);
    shape = ShapeUtil::MakeShapeWithDenseLayout(dtype.type, dims, minor_to_major);
  }
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
  ASSIGN_OR_RETURN(Literal literal, Literal::CreateFromBuffer(shape, bytes.data() + prefix + header_len,
                                                              static_cast<int64_t>(data_bytes)));
  NormalizeStorage(dtype.type, dtype.big_endian != !HostIsLittleEndian(),
                   static_cast<uint8_t*>(literal.untyped_data()), count);
  if (*header.fortran_order && dims.size() > 1) {
    return literal.Relayout(ShapeUtil::MakeDescendingLayout(static_cast<int64_t>(dims.size())));
  }
  return literal;
}

absl::StatusOr<Literal> ReadNpyFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path));
  return ParseNpy(bytes);
}

absl::StatusOr<std::string> NpyDescrFor(PrimitiveType type) {
  for (const NamedType& n : kMlDtypesNames) {
    if (n.type == type) return std::string(n.name);
  }
  const char order = HostIsLittleEndian() ? '<' : '>';
  switch (type) {
    case PRED: return std::string("|b1");
    case S1:
    case S8: return std::string("|i1");
    case U1:
    case U8: return std::string("|u1");
    case S16: return absl::StrCat(std::string(1, order), "i2");
    case S32: return absl::StrCat(std::string(1, order), "i4");
    case S64: return absl::StrCat(std::string(1, order), "i8");
    case U16: return absl::StrCat(std::string(1, order), "u2");
    case U32: return absl::StrCat(std::string(1, order), "u4");
    case U64: return absl::StrCat(std::string(1, order), "u8");
    case F16: return absl::StrCat(std::string(1, order), "f2");
    case F32: return absl::StrCat(std::string(1, order), "f4");
    case F64: return absl::StrCat(std::string(1, order), "f8");
    case C64: return absl::StrCat(std::string(1, order), "c8");
    case C128: return absl::StrCat(std::string(1, order), "c16");
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "element type ", std::string(primitive_util::LowercasePrimitiveTypeName(type)),
          " has no .npy representation"));
  }
}

absl::StatusOr<std::string> SerializeNpy(const Literal& literal) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat("only arrays can be written as .npy, got ", shape.ToString()));
  }
  ASSIGN_OR_RETURN(std::string descr, NpyDescrFor(shape.element_type()));
  const Layout descending = ShapeUtil::MakeDescendingLayout(shape.rank());
  std::optional<Literal> relaid;
  const Literal* source = &literal;
  if (shape.has_layout() && shape.layout().minor_to_major() != descending.minor_to_major()) {
    ASSIGN_OR_RETURN(relaid, literal.Relayout(descending));
    source = &*relaid;
  }
  std::string dims = absl::StrJoin(shape.dimensions(), ", ");
  if (shape.rank() == 1) dims += ",";
  std::string header =
      absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (", dims, "), }");
  // Pad with spaces so that the data starts at a multiple of 64 bytes; end with '\n'.
  int version = 1;
  size_t prefix = kMagicSize + 4;
  size_t total = prefix + header.size() + 1;
  if ((total + 63) / 64 * 64 - prefix > 0xFFFF) {
    version = 2;
    prefix = kMagicSize + 6;
    total = prefix + header.size() + 1;
  }
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kMagic, kMagicSize);
  out.push_back(static_cast<char>(version));
  out.push_back('\0');
  const uint64_t len = header.size();
  for (int i = 0; i < (version == 1 ? 2 : 4); ++i) out.push_back(static_cast<char>((len >> (8 * i)) & 0xFF));
  out += header;
  // Literal storage is NumPy's (S1 -1 is stored as 0xFF, i.e. int8 -1).
  out.append(static_cast<const char*>(source->untyped_data()), static_cast<size_t>(source->size_bytes()));
  return out;
}

absl::Status WriteNpyFile(const std::string& path, const Literal& literal) {
  ASSIGN_OR_RETURN(std::string bytes, SerializeNpy(literal));
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  os.close();
  if (!os) return absl::DataLossError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace npy
}  // namespace xla
