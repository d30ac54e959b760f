// Literal core: storage, creation, element access, tuples, equality, convert, relayout.
// Text lives in literal_text*.cc, protos in literal_proto.cc, element conversion rules
// in literal_element.cc.
#include "hlo/literal.h"

#include <sys/mman.h>

#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"
#include "hlo/literal_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {

using literal_internal::ElementBytes;
static_assert(Literal::kMaxBytes == literal_internal::kMaxLiteralBytes, "one size cap");

namespace {

// Storage is 64-byte aligned so backends can use it directly with vector loads. Large
// buffers are mapped on their own, as transparent huge pages where the kernel offers them:
// first writes to fresh memory fault once per 2 MiB instead of once per 4 KiB (on the
// development machine about 7 GB/s instead of 1.4), and mapped memory is already zero.
constexpr int64_t kMappedBytes = int64_t{4} << 20;

struct StorageFree {
  size_t mapped = 0;  // length of the mapping; 0 for operator new storage
  void operator()(uint8_t* p) const {
    if (mapped > 0) {
      munmap(p, mapped);
    } else {
      ::operator delete[](p, std::align_val_t(64));
    }
  }
};
using Buffer = std::unique_ptr<uint8_t[], StorageFree>;

Buffer Allocate(int64_t bytes, bool zero) {
  if (bytes <= 0) return nullptr;
  if (bytes >= kMappedBytes) {
    void* p = mmap(nullptr, static_cast<size_t>(bytes), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
#ifdef MADV_HUGEPAGE
      madvise(p, static_cast<size_t>(bytes), MADV_HUGEPAGE);  // advisory: ignore failure
#endif
      return Buffer(static_cast<uint8_t*>(p), StorageFree{static_cast<size_t>(bytes)});
    }
  }
  auto* p = static_cast<uint8_t*>(::operator new[](static_cast<size_t>(bytes), std::align_val_t(64)));
  if (zero) std::memset(p, 0, static_cast<size_t>(bytes));
  return Buffer(p);
}

template <typename T>
constexpr PrimitiveType NativeToPrimitiveType() {
  if constexpr (std::is_same_v<T, bool>) return PRED;
  else if constexpr (std::is_same_v<T, int8_t>) return S8;
  else if constexpr (std::is_same_v<T, int16_t>) return S16;
  else if constexpr (std::is_same_v<T, int32_t>) return S32;
  else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, long long>) return S64;
  else if constexpr (std::is_same_v<T, uint8_t>) return U8;
  else if constexpr (std::is_same_v<T, uint16_t>) return U16;
  else if constexpr (std::is_same_v<T, uint32_t>) return U32;
  else if constexpr (std::is_same_v<T, uint64_t> || std::is_same_v<T, unsigned long long>) return U64;
  else if constexpr (std::is_same_v<T, float>) return F32;
  else if constexpr (std::is_same_v<T, double>) return F64;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return C64;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return C128;
  else return PRIMITIVE_TYPE_INVALID;
}

// Whether storage of `type` may be viewed as T (see the table in literal.h).
template <typename T>
bool StorageTypeMatches(PrimitiveType type) {
  if (ElementBytes(type) != static_cast<int>(sizeof(T))) return false;
  switch (type) {
    case F16:
    case BF16:
      return std::is_same_v<T, uint16_t>;
    case S1:
    case S2:
    case S4:
      return std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>;
    case U1:
    case U2:
    case U4:
    case F4E2M1FN:
      return std::is_same_v<T, uint8_t>;
    default:
      if (primitive_util::IsNarrowFloatType(type)) return std::is_same_v<T, uint8_t>;
      return NativeToPrimitiveType<T>() == type;
  }
}

}  // namespace

struct Literal::Rep {
  Shape shape = Shape::MakeTuple({});
  Buffer buffer;
  int64_t size_bytes = 0;
  int64_t element_count = 0;
  std::vector<int64_t> strides;  // storage stride per logical dimension
  bool row_major = true;
  std::vector<Literal> elements;  // tuple elements

  uint8_t* data() const { return buffer.get(); }
  int width() const { return ElementBytes(shape.element_type()); }
  bool ValidIndex(int64_t i) const { return shape.IsArray() && i >= 0 && i < element_count; }
  int64_t StorageIndex(int64_t linear) const {
    if (row_major) return linear;
    int64_t pos = 0;
    for (int64_t d = shape.rank() - 1; d >= 0; --d) {
      const int64_t n = shape.dimensions(d);
      pos += (linear % n) * strides[d];
      linear /= n;
    }
    return pos;
  }
  uint8_t* ElementPtr(int64_t linear) const { return data() + StorageIndex(linear) * width(); }
};

// Friend of Literal: builds Rep trees (shapes already checked by CheckedTotalBytes).
struct LiteralAccess {
  static Literal Wrap(std::unique_ptr<Literal::Rep> rep) { return Literal(std::move(rep)); }
  static std::unique_ptr<Literal::Rep> MakeRep(const Shape& shape, bool zero) {
    auto rep = std::make_unique<Literal::Rep>();
    rep->shape = shape;
    if (shape.IsTuple()) {
      rep->elements.reserve(shape.tuple_shapes_size());
      for (const Shape& s : shape.tuple_shapes()) rep->elements.push_back(Wrap(LiteralAccess::MakeRep(s, zero)));
      return rep;
    }
    if (!shape.IsArray()) return rep;  // token: no data
    rep->element_count = ShapeUtil::ElementsIn(shape);
    rep->size_bytes = rep->element_count * ElementBytes(shape.element_type());
    rep->buffer = Allocate(rep->size_bytes, zero);
    rep->strides = literal_internal::StorageStrides(shape);
    rep->row_major = literal_internal::IsRowMajorStorage(shape);
    return rep;
  }
};

Literal::Literal() : rep_(std::make_unique<Rep>()) {}
Literal::Literal(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
Literal::Literal(Literal&& other) noexcept : rep_(std::move(other.rep_)) {
  other.rep_ = std::make_unique<Rep>();
}
Literal& Literal::operator=(Literal&& other) noexcept {
  if (this != &other) {
    rep_ = std::move(other.rep_);
    other.rep_ = std::make_unique<Rep>();
  }
  return *this;
}
Literal::~Literal() = default;

namespace {
std::string TypeName(PrimitiveType t) {
  return std::string(primitive_util::LowercasePrimitiveTypeName(t));
}

absl::Status ValidateLiteralShape(const Shape& shape) {
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
  absl::Status st = absl::OkStatus();
  ShapeUtil::ForEachSubshape(shape, [&](const Shape& s, const ShapeIndex&) {
    if (st.ok() && !s.IsTuple() && !s.IsToken() && !s.IsArray()) {
      st = absl::InvalidArgumentError(absl::StrCat("literal cannot have shape ", s.ToString()));
    }
  });
  RETURN_IF_ERROR(st);
  return literal_internal::CheckedTotalBytes(shape).status();
}
}  // namespace

absl::StatusOr<Literal> Literal::Create(const Shape& shape) {
  RETURN_IF_ERROR(ValidateLiteralShape(shape));
  return Literal(LiteralAccess::MakeRep(shape, /*zero=*/true));
}

absl::StatusOr<Literal> Literal::CreateForOverwrite(const Shape& shape) {
  RETURN_IF_ERROR(ValidateLiteralShape(shape));
  return Literal(LiteralAccess::MakeRep(shape, /*zero=*/false));
}

absl::StatusOr<Literal> Literal::CreateFromBuffer(const Shape& shape, const void* data,
                                                  int64_t size) {
  RETURN_IF_ERROR(ValidateLiteralShape(shape));
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("CreateFromBuffer needs an array shape, got ", shape.ToString()));
  }
  auto rep = LiteralAccess::MakeRep(shape, /*zero=*/false);
  if (size != rep->size_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("buffer of ", size, " bytes for shape ",
                                                   shape.ToString(), " which needs ",
                                                   rep->size_bytes, " bytes"));
  }
  if (size > 0) {
    if (data == nullptr) return absl::InvalidArgumentError("null buffer");
    std::memcpy(rep->data(), data, static_cast<size_t>(size));
    const PrimitiveType t = shape.element_type();
    if (t == PRED || primitive_util::IsSubByteType(t)) {
      for (int64_t i = 0; i < rep->element_count; ++i) {
        literal_internal::NormalizeElement(t, rep->data() + i);
      }
    }
  }
  return Literal(std::move(rep));
}

Literal Literal::MakeTuple(std::vector<Literal> elements) {
  auto rep = std::make_unique<Rep>();
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const Literal& e : elements) shapes.push_back(e.shape());
  rep->shape = Shape::MakeTuple(std::move(shapes));
  rep->elements = std::move(elements);
  return Literal(std::move(rep));
}

template <typename T>
Literal Literal::CreateR0(T value) {
  Literal lit(LiteralAccess::MakeRep(ShapeUtil::MakeShape(NativeToPrimitiveType<T>(), {}), false));
  std::memcpy(lit.rep_->data(), &value, sizeof(T));
  if constexpr (std::is_same_v<T, bool>) lit.rep_->data()[0] = value ? 1 : 0;
  return lit;
}

template <typename T>
Literal Literal::CreateR1(absl::Span<const T> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  Literal lit(LiteralAccess::MakeRep(ShapeUtil::MakeShape(NativeToPrimitiveType<T>(), {n}), false));
  for (int64_t i = 0; i < n; ++i) {
    T v = values[i];
    std::memcpy(lit.rep_->data() + i * sizeof(T), &v, sizeof(T));
  }
  return lit;
}

template <typename T>
Literal Literal::CreateR2(std::initializer_list<std::initializer_list<T>> values) {
  const int64_t rows = static_cast<int64_t>(values.size());
  const int64_t cols = rows == 0 ? 0 : static_cast<int64_t>(values.begin()->size());
  Literal lit(LiteralAccess::MakeRep(ShapeUtil::MakeShape(NativeToPrimitiveType<T>(), {rows, cols}), true));
  int64_t r = 0;
  for (const auto& row : values) {
    int64_t c = 0;
    // Ragged rows: extra values are dropped, missing ones stay zero.
    for (const T& v : row) {
      if (c < cols) {
        T copy = v;
        std::memcpy(lit.rep_->data() + (r * cols + c) * sizeof(T), &copy, sizeof(T));
      }
      ++c;
    }
    ++r;
  }
  return lit;
}

#define XLA_LITERAL_INSTANTIATE(T)                                                      \
  template Literal Literal::CreateR0<T>(T);                                             \
  template Literal Literal::CreateR1<T>(absl::Span<const T>);                           \
  template Literal Literal::CreateR2<T>(std::initializer_list<std::initializer_list<T>>); \
  template absl::Span<const T> Literal::data<T>() const;                                \
  template absl::Span<T> Literal::data<T>();
XLA_LITERAL_INSTANTIATE(bool)
XLA_LITERAL_INSTANTIATE(int8_t)
XLA_LITERAL_INSTANTIATE(int16_t)
XLA_LITERAL_INSTANTIATE(int32_t)
XLA_LITERAL_INSTANTIATE(int64_t)
XLA_LITERAL_INSTANTIATE(uint8_t)
XLA_LITERAL_INSTANTIATE(uint16_t)
XLA_LITERAL_INSTANTIATE(uint32_t)
XLA_LITERAL_INSTANTIATE(uint64_t)
XLA_LITERAL_INSTANTIATE(float)
XLA_LITERAL_INSTANTIATE(double)
XLA_LITERAL_INSTANTIATE(std::complex<float>)
XLA_LITERAL_INSTANTIATE(std::complex<double>)
#undef XLA_LITERAL_INSTANTIATE

absl::StatusOr<Literal> Literal::CreateFromDoubles(const Shape& shape,
                                                   absl::Span<const double> values) {
  RETURN_IF_ERROR(ValidateLiteralShape(shape));
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("CreateFromDoubles needs an array shape, got ", shape.ToString()));
  }
  if (static_cast<int64_t>(values.size()) != ShapeUtil::ElementsIn(shape)) {
    return absl::InvalidArgumentError(absl::StrCat("shape ", shape.ToString(), " has ",
                                                   ShapeUtil::ElementsIn(shape), " elements, got ",
                                                   values.size(), " values"));
  }
  Literal lit(LiteralAccess::MakeRep(shape, true));
  for (int64_t i = 0; i < static_cast<int64_t>(values.size()); ++i) lit.SetFromDouble(i, values[i]);
  return lit;
}

Literal Literal::Clone() const {
  auto rep = std::make_unique<Rep>();
  rep->shape = rep_->shape;
  rep->size_bytes = rep_->size_bytes;
  rep->element_count = rep_->element_count;
  rep->strides = rep_->strides;
  rep->row_major = rep_->row_major;
  if (rep_->size_bytes > 0) {
    rep->buffer = Allocate(rep_->size_bytes, false);
    std::memcpy(rep->data(), rep_->data(), static_cast<size_t>(rep_->size_bytes));
  }
  rep->elements.reserve(rep_->elements.size());
  for (const Literal& e : rep_->elements) rep->elements.push_back(e.Clone());
  return Literal(std::move(rep));
}

const Shape& Literal::shape() const { return rep_->shape; }
int64_t Literal::element_count() const { return rep_->element_count; }
const void* Literal::untyped_data() const { return rep_->data(); }
void* Literal::untyped_data() { return rep_->data(); }
int64_t Literal::size_bytes() const { return rep_->size_bytes; }

template <typename T>
absl::Span<const T> Literal::data() const {
  if (!rep_->shape.IsArray() || !StorageTypeMatches<T>(rep_->shape.element_type())) return {};
  return absl::Span<const T>(reinterpret_cast<const T*>(rep_->data()), rep_->element_count);
}
template <typename T>
absl::Span<T> Literal::data() {
  if (!rep_->shape.IsArray() || !StorageTypeMatches<T>(rep_->shape.element_type())) return {};
  return absl::Span<T>(reinterpret_cast<T*>(rep_->data()), rep_->element_count);
}

int64_t Literal::StorageIndex(int64_t linear_index) const {
  if (!rep_->ValidIndex(linear_index)) return -1;
  return rep_->StorageIndex(linear_index);
}

double Literal::GetAsDouble(int64_t i) const {
  if (!rep_->ValidIndex(i)) return 0;
  return literal_internal::LoadFloat(rep_->shape.element_type(), rep_->ElementPtr(i));
}
std::complex<double> Literal::GetAsComplex(int64_t i) const {
  if (!rep_->ValidIndex(i)) return 0;
  return literal_internal::LoadComplex(rep_->shape.element_type(), rep_->ElementPtr(i));
}
int64_t Literal::GetAsInt64(int64_t i) const {
  if (!rep_->ValidIndex(i)) return 0;
  return literal_internal::LoadInt(rep_->shape.element_type(), rep_->ElementPtr(i));
}
uint64_t Literal::GetAsUint64(int64_t i) const {
  if (!rep_->ValidIndex(i)) return 0;
  return literal_internal::LoadUint(rep_->shape.element_type(), rep_->ElementPtr(i));
}
void Literal::SetFromDouble(int64_t i, double value) {
  if (!rep_->ValidIndex(i)) return;
  literal_internal::StoreFloat(rep_->shape.element_type(), rep_->ElementPtr(i), value);
}
void Literal::SetFromComplex(int64_t i, std::complex<double> value) {
  if (!rep_->ValidIndex(i)) return;
  literal_internal::StoreComplex(rep_->shape.element_type(), rep_->ElementPtr(i), value);
}
void Literal::SetFromInt64(int64_t i, int64_t value) {
  if (!rep_->ValidIndex(i)) return;
  literal_internal::StoreIntBits(rep_->shape.element_type(), rep_->ElementPtr(i),
                                 static_cast<uint64_t>(value));
}
void Literal::SetFromUint64(int64_t i, uint64_t value) {
  if (!rep_->ValidIndex(i)) return;
  const PrimitiveType t = rep_->shape.element_type();
  if (primitive_util::IsFloatingPointType(t) || primitive_util::IsComplexType(t)) {
    literal_internal::ConvertElement(U64, reinterpret_cast<const uint8_t*>(&value), t,
                                     rep_->ElementPtr(i));
  } else {
    literal_internal::StoreIntBits(t, rep_->ElementPtr(i), value);
  }
}

namespace {
// Logical row-major linear index of a multi-index, or -1 when out of bounds.
int64_t LinearIndex(const Shape& shape, absl::Span<const int64_t> index) {
  if (!shape.IsArray() || static_cast<int64_t>(index.size()) != shape.rank()) return -1;
  int64_t linear = 0;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (index[d] < 0 || index[d] >= shape.dimensions(d)) return -1;
    linear = linear * shape.dimensions(d) + index[d];
  }
  return linear;
}
}  // namespace

double Literal::GetAsDouble(absl::Span<const int64_t> index) const {
  return GetAsDouble(LinearIndex(rep_->shape, index));
}
void Literal::SetFromDouble(absl::Span<const int64_t> index, double value) {
  SetFromDouble(LinearIndex(rep_->shape, index), value);
}

int64_t Literal::tuple_element_count() const {
  return rep_->shape.IsTuple() ? static_cast<int64_t>(rep_->elements.size()) : 0;
}
const Literal& Literal::tuple_element(int64_t i) const { return rep_->elements.at(i); }
Literal& Literal::tuple_element(int64_t i) { return rep_->elements.at(i); }

std::vector<Literal> Literal::DecomposeTuple() {
  if (!rep_->shape.IsTuple()) return {};
  std::vector<Literal> out = std::move(rep_->elements);
  rep_ = std::make_unique<Rep>();
  return out;
}

absl::StatusOr<Literal> Literal::Convert(PrimitiveType type) const {
  const Shape& s = rep_->shape;
  if (!s.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Convert needs an array literal, got ", s.ToString()));
  }
  const PrimitiveType from = s.element_type();
  if (!primitive_util::IsArrayType(type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot convert to ", TypeName(type)));
  }
  if (primitive_util::IsComplexType(from) && !primitive_util::IsComplexType(type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot convert from complex type ", TypeName(from),
        " to non-complex type ", TypeName(type),
        "; use real() or imag()"));
  }
  if (from == type) return Clone();
  Shape dst_shape = ShapeUtil::ChangeElementType(s, type);
  RETURN_IF_ERROR(literal_internal::CheckedTotalBytes(dst_shape).status());
  Literal out(LiteralAccess::MakeRep(dst_shape, false));
  // Same layout on both sides: convert in storage order.
  const int sw = rep_->width();
  const int dw = out.rep_->width();
  const uint8_t* src = rep_->data();
  uint8_t* dst = out.rep_->data();
  for (int64_t i = 0; i < rep_->element_count; ++i) {
    literal_internal::ConvertElement(from, src + i * sw, type, dst + i * dw);
  }
  return out;
}

absl::StatusOr<Literal> Literal::Relayout(const Layout& layout) const {
  const Shape& s = rep_->shape;
  if (!s.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Relayout needs an array literal, got ", s.ToString()));
  }
  Shape dst_shape = s;
  dst_shape.set_layout(layout);
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(dst_shape));
  if (static_cast<int64_t>(layout.minor_to_major().size()) != s.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("layout ", layout.ToString(),
                                                   " does not match rank of ", s.ToString()));
  }
  Literal out(LiteralAccess::MakeRep(dst_shape, false));
  const int w = rep_->width();
  uint8_t* dst = out.rep_->data();
  int64_t linear = 0;
  literal_internal::ForEachStorageIndex(
      s.dimensions(), out.rep_->strides, [&](int64_t dst_pos) {
        std::memcpy(dst + dst_pos * w, rep_->ElementPtr(linear), static_cast<size_t>(w));
        ++linear;
      });
  return out;
}

bool Literal::operator==(const Literal& other) const {
  const Shape& a = rep_->shape;
  const Shape& b = other.rep_->shape;
  if (a.IsTuple() || b.IsTuple()) {
    if (!a.IsTuple() || !b.IsTuple() || rep_->elements.size() != other.rep_->elements.size())
      return false;
    for (size_t i = 0; i < rep_->elements.size(); ++i) {
      if (rep_->elements[i] != other.rep_->elements[i]) return false;
    }
    return true;
  }
  if (!ShapeUtil::Compatible(a, b)) return false;
  if (!a.IsArray()) return true;  // tokens
  const int w = rep_->width();
  if (rep_->row_major == other.rep_->row_major && rep_->strides == other.rep_->strides) {
    return rep_->size_bytes == 0 ||
           std::memcmp(rep_->data(), other.rep_->data(), static_cast<size_t>(rep_->size_bytes)) == 0;
  }
  for (int64_t i = 0; i < rep_->element_count; ++i) {
    if (std::memcmp(rep_->ElementPtr(i), other.rep_->ElementPtr(i), static_cast<size_t>(w)) != 0)
      return false;
  }
  return true;
}

}  // namespace xla
