#ifndef XLA_HLO_PRIMITIVE_UTIL_H_
#define XLA_HLO_PRIMITIVE_UTIL_H_

// Facts about PrimitiveType (the proto enum from proto/xla_data.proto).

#include <cstdint>
#include <optional>
#include <string_view>

#include "hlo/float_types.h"
#include "proto/xla_data.pb.h"

namespace xla {
namespace primitive_util {

// Bits of one element: 1 for PRED (logical), 4 for S4, 64 for C64's component? No:
// C64 is 64, C128 is 128. 0 for TUPLE, TOKEN, OPAQUE_TYPE and invalid types.
int BitWidth(PrimitiveType type);
// Bytes one element occupies in a dense unpacked buffer: sub-byte types take 1.
int ByteWidth(PrimitiveType type);

bool IsArrayType(PrimitiveType type);        // any element type an array can have
bool IsFloatingPointType(PrimitiveType type);  // F16..F64, BF16, all F8 and F4 types
bool IsComplexType(PrimitiveType type);
bool IsSignedIntegralType(PrimitiveType type);    // S1..S64
bool IsUnsignedIntegralType(PrimitiveType type);  // U1..U64
bool IsIntegralType(PrimitiveType type);          // signed or unsigned
bool IsSubByteType(PrimitiveType type);           // S1,S2,S4,U1,U2,U4,F4E2M1FN
bool IsNarrowFloatType(PrimitiveType type);       // F8*, F4*
// Underlying float format for F16, BF16, F8* and F4*; nullopt otherwise.
std::optional<FloatFormatKind> NarrowFloatFormat(PrimitiveType type);
// f32 for c64, f64 for c128.
PrimitiveType ComplexComponentType(PrimitiveType type);
// Exponent / mantissa (explicit fraction) bits of a floating type (for reduce-precision).
int ExponentWidth(PrimitiveType type);
int MantissaWidth(PrimitiveType type);

// Lower-case text name used in HLO text: "pred", "s32", "f8e4m3fn", "token", "tuple", "opaque".
std::string_view LowercasePrimitiveTypeName(PrimitiveType type);
std::optional<PrimitiveType> StringToPrimitiveType(std::string_view name);

}  // namespace primitive_util
}  // namespace xla

#endif  // XLA_HLO_PRIMITIVE_UTIL_H_
