// Element-level load/store/convert for literals (see literal_internal.h).
//
// Convert semantics (XLA `convert`):
//   float -> int : NaN -> 0, truncation toward zero, saturation to [min, max] of the
//                  destination (sub-byte types included: f32 100 -> s4 7).
//   int -> int   : two's complement wrap to the destination width (s32 300 -> s8 44,
//                  s32 9 -> s4 -7), as static_cast between native types does in XLA.
//   int -> float : round to nearest even (F32/F64/C64 directly from the 64-bit integer;
//                  narrow floats from the integer's double value).
//   float -> float: the exact source value rounded once (from double) to the destination.
//   x -> pred    : x != 0 (NaN is true). pred -> x: 0 or 1.
//   real -> complex: imaginary part 0.
#include <cmath>
#include <cstring>
#include <limits>

#include "hlo/literal_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace literal_internal {
namespace {

template <typename T>
T LoadAs(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
void StoreAs(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

FloatFormatKind NarrowKind(PrimitiveType type) {
  return *primitive_util::NarrowFloatFormat(type);
}

// Bounds of an integral destination as doubles, for saturation.
void IntBounds(PrimitiveType type, int64_t* lo, uint64_t* hi) {
  const int bits = primitive_util::BitWidth(type);
  if (primitive_util::IsSignedIntegralType(type)) {
    *lo = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
    *hi = bits == 64 ? uint64_t{std::numeric_limits<int64_t>::max()}
                     : (uint64_t{1} << (bits - 1)) - 1;
  } else {
    *lo = 0;
    *hi = bits == 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << bits) - 1;
  }
}

// XLA's saturating float->int conversion.
uint64_t FloatToIntBits(PrimitiveType dst, double f) {
  if (std::isnan(f)) return 0;
  int64_t lo;
  uint64_t hi;
  IntBounds(dst, &lo, &hi);
  // static_cast<double>(hi) may round up (2^63, 2^64): `>=` then still saturates.
  if (f >= static_cast<double>(hi)) return hi;
  if (f <= static_cast<double>(lo)) return static_cast<uint64_t>(lo);
  const double t = std::trunc(f);
  if (t < 0) return static_cast<uint64_t>(static_cast<int64_t>(t));
  return static_cast<uint64_t>(t);
}

}  // namespace

int ElementBytes(PrimitiveType type) {
  if (!primitive_util::IsArrayType(type)) return 0;
  return primitive_util::ByteWidth(type);
}

int64_t LoadInt(PrimitiveType type, const uint8_t* p) {
  switch (type) {
    case PRED:
      return *p != 0;
    case S1:
    case S2:
    case S4:
    case S8:
      return LoadAs<int8_t>(p);
    case U1:
    case U2:
    case U4:
    case U8:
      return *p;
    case S16:
      return LoadAs<int16_t>(p);
    case U16:
      return LoadAs<uint16_t>(p);
    case S32:
      return LoadAs<int32_t>(p);
    case U32:
      return LoadAs<uint32_t>(p);
    case S64:
      return LoadAs<int64_t>(p);
    case U64:
      return static_cast<int64_t>(LoadAs<uint64_t>(p));
    default:
      if (primitive_util::IsFloatingPointType(type))
        return static_cast<int64_t>(FloatToIntBits(S64, LoadFloat(type, p)));
      if (primitive_util::IsComplexType(type))
        return static_cast<int64_t>(FloatToIntBits(S64, LoadComplex(type, p).real()));
      return 0;
  }
}

uint64_t LoadUint(PrimitiveType type, const uint8_t* p) {
  if (primitive_util::IsFloatingPointType(type)) return FloatToIntBits(U64, LoadFloat(type, p));
  if (primitive_util::IsComplexType(type))
    return FloatToIntBits(U64, LoadComplex(type, p).real());
  return static_cast<uint64_t>(LoadInt(type, p));
}

double LoadFloat(PrimitiveType type, const uint8_t* p) {
  switch (type) {
    case F32:
      return LoadAs<float>(p);
    case F64:
      return LoadAs<double>(p);
    case F16:
      return HalfToFloat(LoadAs<uint16_t>(p));
    case BF16:
      return Bfloat16ToFloat(LoadAs<uint16_t>(p));
    case C64:
    case C128:
      return LoadComplex(type, p).real();
    default:
      if (primitive_util::IsNarrowFloatType(type)) return DecodeFloat(NarrowKind(type), *p);
      if (primitive_util::IsUnsignedIntegralType(type)) return static_cast<double>(LoadUint(type, p));
      return static_cast<double>(LoadInt(type, p));
  }
}

std::complex<double> LoadComplex(PrimitiveType type, const uint8_t* p) {
  if (type == C64) {
    return {LoadAs<float>(p), LoadAs<float>(p + 4)};
  }
  if (type == C128) {
    return {LoadAs<double>(p), LoadAs<double>(p + 8)};
  }
  return {LoadFloat(type, p), 0.0};
}

void StoreIntBits(PrimitiveType type, uint8_t* p, uint64_t v) {
  const int bits = primitive_util::BitWidth(type);
  switch (type) {
    case PRED:
      *p = v != 0;
      return;
    case S1:
    case S2:
    case S4: {
      // Keep the low `bits` bits, sign-extended into the byte.
      const int shift = 8 - bits;
      *p = static_cast<uint8_t>(static_cast<int8_t>(static_cast<uint8_t>(v << shift)) >> shift);
      return;
    }
    case U1:
    case U2:
    case U4:
      *p = static_cast<uint8_t>(v & ((1u << bits) - 1));
      return;
    case S8:
    case U8:
      *p = static_cast<uint8_t>(v);
      return;
    case S16:
    case U16:
      StoreAs<uint16_t>(p, static_cast<uint16_t>(v));
      return;
    case S32:
    case U32:
      StoreAs<uint32_t>(p, static_cast<uint32_t>(v));
      return;
    case S64:
    case U64:
      StoreAs<uint64_t>(p, v);
      return;
    default:
      // Floating/complex destinations: treat v as signed.
      if (primitive_util::IsFloatingPointType(type) || primitive_util::IsComplexType(type))
        ConvertElement(S64, reinterpret_cast<const uint8_t*>(&v), type, p);
      return;
  }
}

void StoreFloat(PrimitiveType type, uint8_t* p, double v) {
  switch (type) {
    case F32:
      StoreAs<float>(p, static_cast<float>(v));
      return;
    case F64:
      StoreAs<double>(p, v);
      return;
    case F16:
      // XLA (Eigen's half/bfloat16 from double, used by its evaluator, literals and parser)
      // rounds to f32 first; do the same so values agree to the bit.
      StoreAs<uint16_t>(p, FloatToHalf(static_cast<float>(v)));
      return;
    case BF16:
      StoreAs<uint16_t>(p, FloatToBfloat16(static_cast<float>(v)));
      return;
    case C64:
    case C128:
      StoreComplex(type, p, {v, 0.0});
      return;
    default:
      if (primitive_util::IsNarrowFloatType(type)) {
        *p = static_cast<uint8_t>(EncodeFloat(NarrowKind(type), v));
      } else if (type == PRED) {
        *p = v != 0;
      } else if (primitive_util::IsIntegralType(type)) {
        StoreIntBits(type, p, FloatToIntBits(type, v));
      }
      return;
  }
}

void StoreComplex(PrimitiveType type, uint8_t* p, std::complex<double> v) {
  if (type == C64) {
    StoreAs<float>(p, static_cast<float>(v.real()));
    StoreAs<float>(p + 4, static_cast<float>(v.imag()));
  } else if (type == C128) {
    StoreAs<double>(p, v.real());
    StoreAs<double>(p + 8, v.imag());
  } else {
    StoreFloat(type, p, v.real());
  }
}

void ConvertElement(PrimitiveType src_type, const uint8_t* src, PrimitiveType dst_type,
                    uint8_t* dst) {
  const bool src_complex = primitive_util::IsComplexType(src_type);
  const bool src_float = primitive_util::IsFloatingPointType(src_type);
  if (dst_type == PRED) {
    if (src_complex) {
      *dst = LoadComplex(src_type, src) != std::complex<double>(0, 0);
    } else if (src_float) {
      *dst = LoadFloat(src_type, src) != 0;  // NaN -> true
    } else {
      *dst = LoadUint(src_type, src) != 0;
    }
    return;
  }
  if (src_complex) {
    StoreComplex(dst_type, dst, LoadComplex(src_type, src));
    return;
  }
  if (src_float) {
    // Fast, exact paths from f32 to the 16-bit types (single rounding from float).
    if (src_type == F32 && dst_type == F16) {
      StoreAs<uint16_t>(dst, FloatToHalf(LoadAs<float>(src)));
      return;
    }
    if (src_type == F32 && dst_type == BF16) {
      StoreAs<uint16_t>(dst, FloatToBfloat16(LoadAs<float>(src)));
      return;
    }
    const double f = LoadFloat(src_type, src);
    if (primitive_util::IsIntegralType(dst_type)) {
      StoreIntBits(dst_type, dst, FloatToIntBits(dst_type, f));
    } else {
      StoreFloat(dst_type, dst, f);
    }
    return;
  }
  // PRED or integral source.
  const bool is_unsigned = primitive_util::IsUnsignedIntegralType(src_type);
  const uint64_t bits = LoadUint(src_type, src);
  if (primitive_util::IsIntegralType(dst_type)) {
    StoreIntBits(dst_type, dst, bits);
    return;
  }
  const int64_t sv = static_cast<int64_t>(bits);
  switch (dst_type) {
    case F32:
      StoreAs<float>(dst, is_unsigned ? static_cast<float>(bits) : static_cast<float>(sv));
      return;
    case F16:  // integer -> f32 -> f16, as XLA's Eigen conversion does
      StoreAs<uint16_t>(dst, FloatToHalf(is_unsigned ? static_cast<float>(bits) : static_cast<float>(sv)));
      return;
    case BF16:
      StoreAs<uint16_t>(dst, FloatToBfloat16(is_unsigned ? static_cast<float>(bits) : static_cast<float>(sv)));
      return;
    case C64:
      StoreAs<float>(dst, is_unsigned ? static_cast<float>(bits) : static_cast<float>(sv));
      StoreAs<float>(dst + 4, 0.0f);
      return;
    default: {
      const double d = is_unsigned ? static_cast<double>(bits) : static_cast<double>(sv);
      if (dst_type == C128) {
        StoreComplex(dst_type, dst, {d, 0.0});
      } else {
        StoreFloat(dst_type, dst, d);
      }
      return;
    }
  }
}

void NormalizeElement(PrimitiveType type, uint8_t* p) {
  switch (type) {
    case PRED:
      *p = *p != 0;
      return;
    case S1:
    case S2:
    case S4:
    case U1:
    case U2:
    case U4:
      StoreIntBits(type, p, *p);
      return;
    case F4E2M1FN:
      *p &= 0x0F;
      return;
    default:
      return;
  }
}

std::vector<int64_t> StorageStrides(const Shape& shape) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> strides(rank, 0);
  if (rank == 0) return strides;
  std::vector<int64_t> minor_to_major;
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major().size()) == rank) {
    minor_to_major = shape.layout().minor_to_major();
  } else {
    for (int64_t i = rank - 1; i >= 0; --i) minor_to_major.push_back(i);
  }
  int64_t stride = 1;
  for (int64_t dim : minor_to_major) {
    if (dim < 0 || dim >= rank) continue;  // validated shapes never get here
    strides[dim] = stride;
    stride *= std::max<int64_t>(shape.dimensions(dim), 1);
  }
  return strides;
}

bool IsRowMajorStorage(const Shape& shape) { return ShapeUtil::HasDescendingLayout(shape); }

absl::StatusOr<int64_t> CheckedTotalBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t total = 0;
    for (const Shape& s : shape.tuple_shapes()) {
      ASSIGN_OR_RETURN(int64_t b, CheckedTotalBytes(s));
      total += b;
      if (total > kMaxLiteralBytes) break;
    }
    if (total > kMaxLiteralBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "literal of shape ", shape.ToString(), " exceeds the limit of ", kMaxLiteralBytes, " bytes"));
    }
    return total;
  }
  if (shape.IsToken()) return 0;
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("literal cannot have shape ", shape.ToString()));
  }
  const int64_t width = ElementBytes(shape.element_type());
  if (width <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("literal has invalid element type in shape ",
                                                   shape.ToString()));
  }
  bool empty = false;
  for (int64_t d : shape.dimensions()) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("negative dimension in literal shape ", shape.ToString()));
    }
    empty |= d == 0;
  }
  // A zero dimension makes the array empty, even when the others are huge.
  if (empty) return 0;
  int64_t bytes = width;
  for (int64_t d : shape.dimensions()) {
    if (bytes > kMaxLiteralBytes / d) {
      return absl::InvalidArgumentError(absl::StrCat(
          "literal of shape ", shape.ToString(), " exceeds the limit of ", kMaxLiteralBytes, " bytes"));
    }
    bytes *= d;
  }
  return bytes;
}

}  // namespace literal_internal
}  // namespace xla
