#include "hlo/primitive_util.h"

#include "absl/container/flat_hash_map.h"

namespace xla {
namespace primitive_util {
namespace {

struct TypeInfo {
  PrimitiveType type;
  std::string_view name;  // HLO text name
  int bit_width;          // 0 for non-array types
};

// One row per PrimitiveType value: the single source of names and widths.
constexpr TypeInfo kTypes[] = {
    {PRED, "pred", 1},
    {S1, "s1", 1},
    {S2, "s2", 2},
    {S4, "s4", 4},
    {S8, "s8", 8},
    {S16, "s16", 16},
    {S32, "s32", 32},
    {S64, "s64", 64},
    {U1, "u1", 1},
    {U2, "u2", 2},
    {U4, "u4", 4},
    {U8, "u8", 8},
    {U16, "u16", 16},
    {U32, "u32", 32},
    {U64, "u64", 64},
    {F16, "f16", 16},
    {BF16, "bf16", 16},
    {F32, "f32", 32},
    {F64, "f64", 64},
    {F8E5M2, "f8e5m2", 8},
    {F8E4M3, "f8e4m3", 8},
    {F8E4M3FN, "f8e4m3fn", 8},
    {F8E4M3B11FNUZ, "f8e4m3b11fnuz", 8},
    {F8E3M4, "f8e3m4", 8},
    {F8E5M2FNUZ, "f8e5m2fnuz", 8},
    {F8E4M3FNUZ, "f8e4m3fnuz", 8},
    {F4E2M1FN, "f4e2m1fn", 4},
    {F8E8M0FNU, "f8e8m0fnu", 8},
    {C64, "c64", 64},
    {C128, "c128", 128},
    {TUPLE, "tuple", 0},
    {OPAQUE_TYPE, "opaque", 0},
    {TOKEN, "token", 0},
    {BUFFER, "buffer", 0},
};

const TypeInfo* Find(PrimitiveType type) {
  for (const TypeInfo& info : kTypes) {
    if (info.type == type) return &info;
  }
  return nullptr;
}

}  // namespace

int BitWidth(PrimitiveType type) {
  const TypeInfo* info = Find(type);
  return info == nullptr ? 0 : info->bit_width;
}

int ByteWidth(PrimitiveType type) {
  int bits = BitWidth(type);
  return bits == 0 ? 0 : (bits + 7) / 8;
}

bool IsArrayType(PrimitiveType type) { return BitWidth(type) > 0; }

bool IsFloatingPointType(PrimitiveType type) {
  return type == F32 || type == F64 || NarrowFloatFormat(type).has_value();
}

bool IsComplexType(PrimitiveType type) { return type == C64 || type == C128; }

bool IsSignedIntegralType(PrimitiveType type) {
  switch (type) {
    case S1: case S2: case S4: case S8: case S16: case S32: case S64:
      return true;
    default:
      return false;
  }
}

bool IsUnsignedIntegralType(PrimitiveType type) {
  switch (type) {
    case U1: case U2: case U4: case U8: case U16: case U32: case U64:
      return true;
    default:
      return false;
  }
}

bool IsIntegralType(PrimitiveType type) {
  return IsSignedIntegralType(type) || IsUnsignedIntegralType(type);
}

bool IsSubByteType(PrimitiveType type) {
  // PRED is logically one bit but always stored as a byte, so it is not sub-byte.
  return type != PRED && IsArrayType(type) && BitWidth(type) < 8;
}

bool IsNarrowFloatType(PrimitiveType type) {
  return type != F16 && type != BF16 && NarrowFloatFormat(type).has_value();
}

std::optional<FloatFormatKind> NarrowFloatFormat(PrimitiveType type) {
  switch (type) {
    case F16: return FloatFormatKind::kF16;
    case BF16: return FloatFormatKind::kBF16;
    case F8E5M2: return FloatFormatKind::kF8E5M2;
    case F8E4M3: return FloatFormatKind::kF8E4M3;
    case F8E4M3FN: return FloatFormatKind::kF8E4M3FN;
    case F8E4M3B11FNUZ: return FloatFormatKind::kF8E4M3B11FNUZ;
    case F8E3M4: return FloatFormatKind::kF8E3M4;
    case F8E5M2FNUZ: return FloatFormatKind::kF8E5M2FNUZ;
    case F8E4M3FNUZ: return FloatFormatKind::kF8E4M3FNUZ;
    case F4E2M1FN: return FloatFormatKind::kF4E2M1FN;
    case F8E8M0FNU: return FloatFormatKind::kF8E8M0FNU;
    default: return std::nullopt;
  }
}

PrimitiveType ComplexComponentType(PrimitiveType type) {
  switch (type) {
    case C64: return F32;
    case C128: return F64;
    default: return PRIMITIVE_TYPE_INVALID;
  }
}

int ExponentWidth(PrimitiveType type) {
  if (type == F32) return 8;
  if (type == F64) return 11;
  if (auto kind = NarrowFloatFormat(type)) return GetFloatFormat(*kind).exponent_bits;
  return 0;
}

int MantissaWidth(PrimitiveType type) {
  if (type == F32) return 23;
  if (type == F64) return 52;
  if (auto kind = NarrowFloatFormat(type)) return GetFloatFormat(*kind).mantissa_bits;
  return 0;
}

std::string_view LowercasePrimitiveTypeName(PrimitiveType type) {
  const TypeInfo* info = Find(type);
  // XLA spells the invalid type this way (lower-cased enum name).
  return info == nullptr ? std::string_view("primitive_type_invalid") : info->name;
}

std::optional<PrimitiveType> StringToPrimitiveType(std::string_view name) {
  static const auto* const kByName = [] {
    auto* map = new absl::flat_hash_map<std::string_view, PrimitiveType>();
    for (const TypeInfo& info : kTypes) map->emplace(info.name, info.type);
    return map;
  }();
  auto it = kByName->find(name);
  if (it == kByName->end()) return std::nullopt;
  return it->second;
}

}  // namespace primitive_util
}  // namespace xla
