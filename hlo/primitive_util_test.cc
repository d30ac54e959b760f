#include "hlo/primitive_util.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace xla {
namespace primitive_util {
namespace {

TEST(PrimitiveUtilTest, EveryEnumValueHasANameThatRoundTrips) {
  std::set<std::string> names;
  int count = 0;
  for (int v = PrimitiveType_MIN; v <= PrimitiveType_MAX; ++v) {
    if (!PrimitiveType_IsValid(v) || v == PRIMITIVE_TYPE_INVALID) continue;
    auto type = static_cast<PrimitiveType>(v);
    std::string name(LowercasePrimitiveTypeName(type));
    EXPECT_NE(name, "primitive_type_invalid") << v;
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
    EXPECT_EQ(StringToPrimitiveType(name), type) << name;
    ++count;
  }
  EXPECT_EQ(count, 34);  // every PrimitiveType in xla_data.proto except INVALID
}

TEST(PrimitiveUtilTest, XlaSpellings) {
  const std::pair<PrimitiveType, const char*> kExpected[] = {
      {PRED, "pred"}, {S1, "s1"}, {S2, "s2"}, {S4, "s4"}, {S8, "s8"}, {S16, "s16"},
      {S32, "s32"}, {S64, "s64"}, {U1, "u1"}, {U2, "u2"}, {U4, "u4"}, {U8, "u8"},
      {U16, "u16"}, {U32, "u32"}, {U64, "u64"}, {F16, "f16"}, {BF16, "bf16"}, {F32, "f32"},
      {F64, "f64"}, {C64, "c64"}, {C128, "c128"}, {F8E5M2, "f8e5m2"}, {F8E4M3, "f8e4m3"},
      {F8E4M3FN, "f8e4m3fn"}, {F8E4M3B11FNUZ, "f8e4m3b11fnuz"}, {F8E3M4, "f8e3m4"},
      {F8E5M2FNUZ, "f8e5m2fnuz"}, {F8E4M3FNUZ, "f8e4m3fnuz"}, {F4E2M1FN, "f4e2m1fn"},
      {F8E8M0FNU, "f8e8m0fnu"}, {TOKEN, "token"}, {TUPLE, "tuple"}, {OPAQUE_TYPE, "opaque"},
      {BUFFER, "buffer"}};
  for (const auto& [type, name] : kExpected) {
    EXPECT_EQ(LowercasePrimitiveTypeName(type), name);
  }
  EXPECT_EQ(LowercasePrimitiveTypeName(PRIMITIVE_TYPE_INVALID), "primitive_type_invalid");
}

TEST(PrimitiveUtilTest, UnknownNamesAreRejected) {
  EXPECT_EQ(StringToPrimitiveType("F32"), std::nullopt);  // case matters
  EXPECT_EQ(StringToPrimitiveType("f31"), std::nullopt);
  EXPECT_EQ(StringToPrimitiveType(""), std::nullopt);
  EXPECT_EQ(StringToPrimitiveType("opaque_type"), std::nullopt);
  EXPECT_EQ(StringToPrimitiveType("primitive_type_invalid"), std::nullopt);
}

TEST(PrimitiveUtilTest, Widths) {
  EXPECT_EQ(BitWidth(PRED), 1);
  EXPECT_EQ(ByteWidth(PRED), 1);
  EXPECT_EQ(BitWidth(S1), 1);
  EXPECT_EQ(BitWidth(U2), 2);
  EXPECT_EQ(BitWidth(S4), 4);
  EXPECT_EQ(ByteWidth(S4), 1);
  EXPECT_EQ(BitWidth(F4E2M1FN), 4);
  EXPECT_EQ(BitWidth(F8E8M0FNU), 8);
  EXPECT_EQ(BitWidth(BF16), 16);
  EXPECT_EQ(ByteWidth(S64), 8);
  EXPECT_EQ(BitWidth(C64), 64);
  EXPECT_EQ(ByteWidth(C128), 16);
  for (PrimitiveType t : {TUPLE, TOKEN, OPAQUE_TYPE, BUFFER, PRIMITIVE_TYPE_INVALID}) {
    EXPECT_EQ(BitWidth(t), 0) << t;
    EXPECT_EQ(ByteWidth(t), 0) << t;
    EXPECT_FALSE(IsArrayType(t)) << t;
  }
  EXPECT_EQ(BitWidth(static_cast<PrimitiveType>(999)), 0);
}

TEST(PrimitiveUtilTest, Categories) {
  EXPECT_TRUE(IsArrayType(PRED));
  EXPECT_TRUE(IsArrayType(C64));
  EXPECT_TRUE(IsFloatingPointType(F8E4M3FN));
  EXPECT_TRUE(IsFloatingPointType(F4E2M1FN));
  EXPECT_TRUE(IsFloatingPointType(BF16));
  EXPECT_FALSE(IsFloatingPointType(C64));
  EXPECT_FALSE(IsFloatingPointType(S32));
  EXPECT_TRUE(IsComplexType(C128));
  EXPECT_FALSE(IsComplexType(F64));
  EXPECT_TRUE(IsSignedIntegralType(S1));
  EXPECT_FALSE(IsSignedIntegralType(U8));
  EXPECT_TRUE(IsUnsignedIntegralType(U1));
  EXPECT_FALSE(IsIntegralType(PRED));
  EXPECT_TRUE(IsIntegralType(U64));
  for (PrimitiveType t : {S1, S2, S4, U1, U2, U4, F4E2M1FN}) EXPECT_TRUE(IsSubByteType(t)) << t;
  for (PrimitiveType t : {PRED, S8, F8E5M2, F32, TUPLE}) EXPECT_FALSE(IsSubByteType(t)) << t;
  EXPECT_TRUE(IsNarrowFloatType(F8E3M4));
  EXPECT_TRUE(IsNarrowFloatType(F8E8M0FNU));
  EXPECT_FALSE(IsNarrowFloatType(F16));
  EXPECT_FALSE(IsNarrowFloatType(F32));
  EXPECT_EQ(NarrowFloatFormat(BF16), FloatFormatKind::kBF16);
  EXPECT_EQ(NarrowFloatFormat(F8E4M3B11FNUZ), FloatFormatKind::kF8E4M3B11FNUZ);
  EXPECT_EQ(NarrowFloatFormat(F32), std::nullopt);
  EXPECT_EQ(ComplexComponentType(C64), F32);
  EXPECT_EQ(ComplexComponentType(C128), F64);
  EXPECT_EQ(ComplexComponentType(F32), PRIMITIVE_TYPE_INVALID);
}

TEST(PrimitiveUtilTest, ExponentAndMantissaWidths) {
  const struct { PrimitiveType type; int exponent, mantissa; } kCases[] = {
      {F32, 8, 23},      {F64, 11, 52},      {F16, 5, 10},       {BF16, 8, 7},
      {F8E5M2, 5, 2},    {F8E4M3FN, 4, 3},   {F8E4M3, 4, 3},     {F8E3M4, 3, 4},
      {F8E4M3B11FNUZ, 4, 3}, {F8E5M2FNUZ, 5, 2}, {F8E4M3FNUZ, 4, 3}, {F4E2M1FN, 2, 1},
      {F8E8M0FNU, 8, 0}};
  for (const auto& c : kCases) {
    EXPECT_EQ(ExponentWidth(c.type), c.exponent) << c.type;
    EXPECT_EQ(MantissaWidth(c.type), c.mantissa) << c.type;
  }
  EXPECT_EQ(ExponentWidth(S32), 0);
  EXPECT_EQ(MantissaWidth(PRED), 0);
}

}  // namespace
}  // namespace primitive_util
}  // namespace xla
