#include "hlo/literal.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"

namespace xla {
namespace {

Literal MustParse(std::string_view text) {
  absl::StatusOr<Literal> lit = Literal::Parse(text);
  EXPECT_TRUE(lit.ok()) << text << ": " << lit.status();
  return lit.ok() ? std::move(lit).value() : Literal();
}

Literal Conv(const Literal& lit, PrimitiveType t) {
  absl::StatusOr<Literal> r = lit.Convert(t);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(r).value() : Literal();
}

const PrimitiveType kAllArrayTypes[] = {
    PRED, S1, S2, S4, S8, S16, S32, S64, U1, U2, U4, U8, U16, U32, U64, F16, BF16, F32, F64,
    C64, C128, F8E5M2, F8E4M3, F8E4M3FN, F8E4M3B11FNUZ, F8E3M4, F8E5M2FNUZ, F8E4M3FNUZ,
    F4E2M1FN, F8E8M0FNU};

TEST(LiteralTest, CreateSetGetEveryType) {
  for (PrimitiveType t : kAllArrayTypes) {
    SCOPED_TRACE(primitive_util::LowercasePrimitiveTypeName(t));
    absl::StatusOr<Literal> lit = Literal::Create(ShapeUtil::MakeShape(t, {2, 3}));
    ASSERT_TRUE(lit.ok()) << lit.status();
    EXPECT_EQ(lit->element_count(), 6);
    EXPECT_EQ(lit->size_bytes(), 6 * primitive_util::ByteWidth(t));
    // f8e8m0fnu has no zero: zero bytes are 2^-127, which prints as 5.9e-39 and (like
    // ml_dtypes) parses back as 2^-126; use 1 there.
    if (t == F8E8M0FNU) {
      for (int i = 0; i < 6; ++i) lit->SetFromDouble(i, 1.0);
    } else {
      for (int i = 0; i < 6; ++i) EXPECT_EQ(lit->GetAsDouble(i), 0.0);
    }
    lit->SetFromDouble(0, 0.5);
    EXPECT_EQ(lit->GetAsDouble(0), t == PRED ? 1.0 : primitive_util::IsIntegralType(t) ? 0.0 : 0.5);
    const double one = t == S1 ? -1.0 : 1.0;  // s1 holds only -1 and 0
    lit->SetFromDouble(4, one);
    EXPECT_EQ(lit->GetAsDouble(4), one);
    EXPECT_EQ(lit->GetAsDouble({1, 1}), one);
    EXPECT_EQ(lit->GetAsInt64(4), static_cast<int64_t>(one));
    // Text and proto round trips of a value every type can hold.
    absl::StatusOr<Literal> back = Literal::Parse(lit->ToString());
    ASSERT_TRUE(back.ok()) << lit->ToString() << " " << back.status();
    EXPECT_EQ(*back, *lit) << lit->ToString();
    absl::StatusOr<Literal> from_proto = Literal::FromProto(lit->ToProto());
    ASSERT_TRUE(from_proto.ok()) << from_proto.status();
    EXPECT_EQ(*from_proto, *lit);
  }
}

TEST(LiteralTest, NativeCreators) {
  Literal r0 = Literal::CreateR0<float>(1.5f);
  EXPECT_EQ(r0.shape().ToString(), "f32[]");
  EXPECT_EQ(r0.data<float>()[0], 1.5f);
  EXPECT_TRUE(r0.data<double>().empty());  // type mismatch gives an empty span
  Literal r1 = Literal::CreateR1<int32_t>({1, 2, 3});
  EXPECT_EQ(r1.ToString(), "s32[3] {1, 2, 3}");
  Literal r2 = Literal::CreateR2<double>({{1, 2}, {3, 4}});
  EXPECT_EQ(r2.ToString(), "f64[2,2] {\n  { 1, 2 },\n  { 3, 4 }\n}");
  EXPECT_EQ(Literal::CreateR0<bool>(true).ToString(), "pred[] true");
  EXPECT_EQ(Literal::CreateR0<std::complex<float>>({1, 2}).ToStringWithoutShape(), "(1, 2)");
  EXPECT_EQ(Literal::CreateR0<uint64_t>(18446744073709551615ull).ToStringWithoutShape(),
            "18446744073709551615");
}

TEST(LiteralTest, SubByteStorageAndWrap) {
  Literal s4 = Literal::Create(ShapeUtil::MakeShape(S4, {3})).value();
  s4.SetFromInt64(0, -3);
  s4.SetFromInt64(1, 9);  // wraps to -7
  s4.SetFromInt64(2, 7);
  EXPECT_EQ(s4.data<int8_t>()[0], -3);
  EXPECT_EQ(s4.GetAsInt64(1), -7);
  EXPECT_EQ(s4.ToStringWithoutShape(), "{-3, -7, 7}");
  Literal u2 = Literal::Create(ShapeUtil::MakeShape(U2, {1})).value();
  u2.SetFromInt64(0, 6);
  EXPECT_EQ(u2.GetAsInt64(0), 2);
  uint8_t raw[2] = {0xFD, 0x3};  // low bits matter: 0xD is -3
  Literal from_buf =
      Literal::CreateFromBuffer(ShapeUtil::MakeShape(S4, {2}), raw, 2).value();
  EXPECT_EQ(from_buf.GetAsInt64(0), -3);
  EXPECT_EQ(from_buf.GetAsInt64(1), 3);
}

TEST(LiteralTest, LayoutStorageOrder) {
  Shape col_major = ShapeUtil::MakeShapeWithDenseLayout(S32, {2, 3}, {0, 1});
  Literal lit = Literal::Create(col_major).value();
  for (int i = 0; i < 6; ++i) lit.SetFromInt64(i, i);  // logical row-major
  // Storage is column-major: 0 3 1 4 2 5.
  EXPECT_EQ(std::vector<int32_t>(lit.data<int32_t>().begin(), lit.data<int32_t>().end()),
            (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(lit.ToStringWithoutShape(), "{ { 0, 1, 2 }, { 3, 4, 5 } }");
  Literal row = lit.Relayout(Layout({1, 0})).value();
  EXPECT_EQ(row.data<int32_t>()[1], 1);
  EXPECT_EQ(row, lit);  // equality ignores layout
  Literal back = Literal::FromProto(lit.ToProto()).value();
  EXPECT_EQ(back.shape(), lit.shape());
  EXPECT_EQ(back.data<int32_t>()[1], 3);
  EXPECT_EQ(back, lit);
  Literal parsed = MustParse("s32[2,3]{0,1} { { 0, 1, 2 }, { 3, 4, 5 } }");
  EXPECT_EQ(parsed.data<int32_t>()[1], 3);
}

// A literal made for overwriting has the shape's storage (tuples too), is as writable as any,
// and is refused for an invalid shape like Create.
TEST(LiteralTest, CreateForOverwrite) {
  const Shape shape = ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(F32, {3, 5}), ShapeUtil::MakeShape(S8, {7})});
  absl::StatusOr<Literal> l = Literal::CreateForOverwrite(shape);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_TRUE(ShapeUtil::Equal(l->shape(), shape));
  EXPECT_EQ(l->tuple_element(0).size_bytes(), 60);
  EXPECT_EQ(l->tuple_element(1).size_bytes(), 7);
  const std::vector<float> values(15, 2.5f);
  std::memcpy(l->tuple_element(0).untyped_data(), values.data(), 60);
  EXPECT_EQ(l->tuple_element(0).GetAsDouble(14), 2.5);
  l->tuple_element(1).SetFromDouble(6, -4);
  EXPECT_EQ(l->tuple_element(1).GetAsDouble(6), -4.0);
  Shape bad = ShapeUtil::MakeShape(F32, {2});
  bad.set_dimensions(0, -3);
  EXPECT_FALSE(Literal::CreateForOverwrite(bad).ok());
}

TEST(LiteralTest, ZeroSizedAndRank0) {
  Literal empty = MustParse("f32[0] {}");
  EXPECT_EQ(empty.element_count(), 0);
  EXPECT_EQ(empty.ToStringWithoutShape(), "{}");
  Literal empty2 = MustParse("f32[2,0] { {  }, { } }");
  EXPECT_EQ(empty2.ToStringWithoutShape(), "{ {}, {} }");
  EXPECT_EQ(Literal::Parse(empty2.ToString()).value(), empty2);
  Literal empty4 = Literal::Create(ShapeUtil::MakeShape(F32, {2, 0, 1, 1})).value();
  EXPECT_EQ(empty4.ToStringWithoutShape(), "{ { /*i0=0*/ }, { /*i0=1*/ } }");
  EXPECT_EQ(Literal::Parse(empty4.ToString()).value(), empty4);
  EXPECT_EQ(MustParse("s32[] 42").ToStringWithoutShape(), "42");
  EXPECT_EQ(Literal::FromProto(empty.ToProto()).value(), empty);
}

// Forms copied from HLO conformance files (constant(...) contents).
TEST(LiteralTest, ConformancePrintForms) {
  struct Case {
    const char* shape_value;
    const char* expected;
  } cases[] = {
      {"s32[3] {1, 2, 3}", "{1, 2, 3}"},
      {"f32[2,3] {{1,2,3},{4,5,6}}", "{ { 1, 2, 3 }, { 4, 5, 6 } }"},
      {"pred[2,3] {{0,1,0},{1,0,1}}", "{ { 0, 1, 0 }, { 1, 0, 1 } }"},
      {"pred[] true", "true"},
      {"c64[2] {(1, 2), (-inf, nan)}", "{(1, 2), (-inf, nan)}"},
      {"f32[6] {nan, 7, nan, -1, inf, -inf}", "{nan, 7, nan, -1, inf, -inf}"},
      {"f8e4m3fn[3] {nan, 7, -nan}", "{nan, 7, -nan}"},
      {"f8e4m3b11fnuz[2] {-nan, 7}", "{-nan, 7}"},
      {"f16[4] {1, -4, -65504, 0.015625}", "{1, -4, -65504, 0.015625}"},
      {"f32[2] {-3.40282e+38, 3.40282e+38}", "{-3.40282e+38, 3.40282e+38}"},
      {"c128[2] {(-1.79769e+308, 1.79769e+308), (1.79769e+308, -1.79769e+308)}",
       "{(-1.79769e+308, 1.79769e+308), (1.79769e+308, -1.79769e+308)}"},
      {"f32[] 0.1", "0.1"},
      {"f32[] 3.14", "3.14"},
      {"s64[] 9223372036854775807", "9223372036854775807"},
      {"u32[2] {0, 4294967295}", "{0, 4294967295}"},
      {"f8e8m0fnu[4] {1, 2, 4, 8}", "{1, 2, 4, 8}"},
      {"f32[3,2,1,1] {{{{-1}}, {{4.1}}}, {{{2}}, {{4.1}}}, {{{5}}, {{4.4}}}}",
       "{ { /*i0=0*/ { /*i1=0*/ {-1} }, { /*i1=1*/ {4.1} } }, { /*i0=1*/ { /*i1=0*/ {2} }, { "
       "/*i1=1*/ {4.1} } }, { /*i0=2*/ { /*i1=0*/ {5} }, { /*i1=1*/ {4.4} } } }"},
      {"(s32[2,1], s32[2]) ({{1},{2}}, {2, 42})", "( { {1}, {2} }, {2, 42} )"},
  };
  for (const Case& c : cases) {
    Literal lit = MustParse(c.shape_value);
    EXPECT_EQ(lit.ToStringWithoutShape(), c.expected) << c.shape_value;
    // And the printed value parses back to the same literal.
    absl::StatusOr<Literal> again = Literal::ParseWithShape(lit.shape(), c.expected);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(*again, lit) << c.shape_value;
  }
}

TEST(LiteralTest, FloatFormatting) {
  EXPECT_EQ(Literal::CreateR0<float>(1e10f).ToStringWithoutShape(), "1e+10");
  EXPECT_EQ(Literal::CreateR0<float>(-0.0f).ToStringWithoutShape(), "-0");
  EXPECT_EQ(Literal::CreateR0<float>(0.3f).ToStringWithoutShape(), "0.3");
  EXPECT_EQ(Literal::CreateR0<float>(16777217.0f).ToStringWithoutShape(), "16777216");
  EXPECT_EQ(Literal::CreateR0<float>(1.0f / 3).ToStringWithoutShape(), "0.333333343");
  EXPECT_EQ(Literal::CreateR0<double>(0.1).ToStringWithoutShape(), "0.1");
  EXPECT_EQ(Literal::CreateR0<double>(1.0 / 3).ToStringWithoutShape(), "0.33333333333333331");
  EXPECT_EQ(Literal::CreateR0<double>(std::numeric_limits<double>::max()).ToStringWithoutShape(),
            "1.7976931348623157e+308");
  float payload_nan;
  uint32_t bits = 0x7FC00001;
  std::memcpy(&payload_nan, &bits, 4);
  Literal nan_lit = Literal::CreateR0<float>(payload_nan);
  EXPECT_EQ(nan_lit.ToStringWithoutShape(), "nan(0x400001)");
  Literal nan_back = MustParse("f32[] nan(0x400001)");
  EXPECT_EQ(nan_back.data<float>().size(), 1u);
  uint32_t back_bits;
  std::memcpy(&back_bits, nan_back.untyped_data(), 4);
  EXPECT_EQ(back_bits, 0x7FC00001u);
  EXPECT_EQ(MustParse("f32[] -nan").ToStringWithoutShape(), "-nan");
  EXPECT_EQ(MustParse("f16[] 0.1").ToStringWithoutShape(), "0.099976");
  EXPECT_EQ(MustParse("bf16[] 0.1").ToStringWithoutShape(), "0.1001");
  EXPECT_EQ(MustParse("f8e5m2[] 0.3").ToStringWithoutShape(), "0.31");
  EXPECT_EQ(MustParse("f8e4m3fn[] 448").ToStringWithoutShape(), "448");
  EXPECT_EQ(MustParse("f16[] 3e+2").ToStringWithoutShape(), "300");
  EXPECT_EQ(MustParse("f16[] -65505").ToStringWithoutShape(), "-65504");
  EXPECT_EQ(MustParse("f16[] nan(0x1)").ToStringWithoutShape(), "nan(0x1)");
  EXPECT_EQ(MustParse("bf16[] -65505").ToStringWithoutShape(), "-6.554e+04");
}

TEST(LiteralTest, ToStringMultiline) {
  EXPECT_EQ(MustParse("(f32[], s32[2]) (1.5, {1, 2})").ToString(),
            "(\nf32[] 1.5,\ns32[2] {1, 2}\n)");
  Literal nested = MustParse("((f32[]), pred[], ()) ((1), false, ())");
  EXPECT_EQ(nested.ToStringWithoutShape(), "( ( 1 ), false, (  ) )");
  EXPECT_EQ(Literal::Parse(nested.ToString()).value(), nested);
  EXPECT_EQ(Literal::Parse(nested.ToStringOneline()).value(), nested);
  EXPECT_EQ(MustParse("s32[2,1,1] {{{1}},{{2}}}").ToString(),
            "s32[2,1,1] {\n{\n  {1}\n},\n{\n  {2}\n}\n}");
  Literal token = Literal::Create(Shape::MakeToken()).value();
  EXPECT_EQ(token.ToString(), "token");
  EXPECT_EQ(Literal::Parse("token").value(), token);
}

TEST(LiteralTest, ParseErrors) {
  struct Case {
    const char* text;
    const char* fragment;
  } cases[] = {
      {"f32[2] {1, 2, 3}", "but sees more"},
      {"f32[3] {1, 2}", "but sees 2"},
      {"f32[2,2] {1, 2}", "expected '{'"},
      {"s8[] 128", "out of range"},
      {"s8[] -129", "out of range"},
      {"u8[] -1", "out of range"},
      {"u64[] 18446744073709551616", "out of range"},
      {"s32[] 1.5", "expected an integer"},
      {"pred[] 2", "out of range"},
      {"f16[] 65520", "out of range"},
      {"bf16[] 1e100", "out of range"},
      {"f64[] 1e999", "out of range for double"},
      {"f32[] abc", "expected a number"},
      {"c64[] 1", "expected '('"},
      {"s32[] 1 2", "after the literal"},
      {"f32[1000000000000,1000000000000] {}", "overflow"},
      {"f32[100000,1000000] {}", "exceeds"},
      {"f32[2", "expected ']'"},
      {"bogus[] 1", "expected a shape"},
      {"opaque[] 1", "cannot have element type"},
      {"f32[] nan(0x800000)", "out of range"},
      {"f8e4m3fn[] nan(0x1)", "not supported"},
      {"(s32[], s32[]) (1)", "expected ','"},
      {"", "expected a shape"},
      {"f32[1] {1", "expected ',' or '}'"},
      {"f32[] 1e", "malformed exponent"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Literal> lit = Literal::Parse(c.text);
    ASSERT_FALSE(lit.ok()) << c.text;
    EXPECT_EQ(lit.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(std::string(lit.status().message()).find(c.fragment), std::string::npos)
        << c.text << " -> " << lit.status();
  }
  // Positions are line:col.
  absl::StatusOr<Literal> bad = Literal::Parse("f32[2] {\n 1, x}");
  EXPECT_NE(std::string(bad.status().message()).find("2:5"), std::string::npos) << bad.status();
  // Hostile nesting does not overflow the stack.
  EXPECT_FALSE(Literal::Parse(std::string(100000, '(')).ok());
  EXPECT_FALSE(Literal::Parse(std::string("f32[1] ") + std::string(100000, '{')).ok());
}

TEST(LiteralTest, ParseAcceptedForms) {
  EXPECT_EQ(MustParse("u64[] -1").GetAsUint64(0), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(MustParse("pred[2] {1, 0}"), Literal::CreateR1<bool>({true, false}));
  EXPECT_EQ(MustParse("f32[2] {1, 2}"), MustParse("f32[2] {1.0, 2e0}"));
  EXPECT_EQ(MustParse("f32[2] { /*index=0*/ 1, .5 }").GetAsDouble(1), 0.5);
  EXPECT_EQ(MustParse("f32[<=3] {1, 2, 3}").element_count(), 3);
  EXPECT_EQ(MustParse("f32[4] {...}").GetAsDouble(3), 0.0);
  EXPECT_EQ(MustParse("s64[] -9223372036854775808").GetAsInt64(0),
            std::numeric_limits<int64_t>::min());
}

TEST(LiteralTest, ConvertFloatToInt) {
  Literal f = Literal::CreateR1<float>({NAN, 1e10f, -1e10f, 2.9f, -2.9f, -0.0f, INFINITY});
  Literal s32 = Conv(f, S32);
  EXPECT_EQ(s32.ToStringWithoutShape(), "{0, 2147483647, -2147483648, 2, -2, 0, 2147483647}");
  EXPECT_EQ(Conv(f, U8).ToStringWithoutShape(), "{0, 255, 0, 2, 0, 0, 255}");
  EXPECT_EQ(Conv(f, S4).ToStringWithoutShape(), "{0, 7, -8, 2, -2, 0, 7}");
  EXPECT_EQ(Conv(f, S64).GetAsInt64(1), 10000000000);
  EXPECT_EQ(Conv(Literal::CreateR0<double>(1e300), S64).GetAsInt64(0),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(Conv(Literal::CreateR0<double>(1e300), U64).GetAsUint64(0),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(Conv(f, PRED).ToStringWithoutShape(), "{1, 1, 1, 1, 1, 0, 1}");
}

TEST(LiteralTest, ConvertIntToIntAndFloat) {
  Literal i = Literal::CreateR1<int32_t>({300, -1, 16777217, 9});
  EXPECT_EQ(Conv(i, S8).ToStringWithoutShape(), "{44, -1, 1, 9}");
  EXPECT_EQ(Conv(i, U16).ToStringWithoutShape(), "{300, 65535, 1, 9}");
  EXPECT_EQ(Conv(i, S4).ToStringWithoutShape(), "{-4, -1, 1, -7}");
  // 16777217 ties between 16777216 and 16777218: nearest even is 16777216.
  EXPECT_EQ(Conv(i, F32).ToStringWithoutShape(), "{300, -1, 16777216, 9}");
  Literal big = Literal::CreateR0<int64_t>((int64_t{1} << 53) + 1);
  EXPECT_EQ(Conv(big, F64).GetAsDouble(0), 9007199254740992.0);
  EXPECT_EQ(Conv(Literal::CreateR0<int32_t>(2049), F16).GetAsDouble(0), 2048.0);
  EXPECT_EQ(Conv(Literal::CreateR0<int32_t>(2051), F16).GetAsDouble(0), 2052.0);
  EXPECT_EQ(Conv(Literal::CreateR0<uint64_t>(~uint64_t{0}), F32).GetAsDouble(0), 18446744073709551616.0);
  EXPECT_EQ(Conv(Literal::CreateR1<bool>({true, false}), F32).ToStringWithoutShape(), "{1, 0}");
  EXPECT_EQ(Conv(i, PRED).ToStringWithoutShape(), "{1, 1, 1, 1}");
}

TEST(LiteralTest, ConvertFloats) {
  // f64 -> f16/bf16 goes through f32 as in XLA (Eigen's half(double) casts to float first):
  // 1 + 2^-11 + 2^-40 becomes the f32 tie 1 + 2^-11, which rounds to even: 1.
  Literal d = Literal::CreateR0<double>(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40));
  EXPECT_EQ(Conv(d, F16).GetAsDouble(0), 1.0);
  Literal e = Literal::CreateR0<double>(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40));
  EXPECT_EQ(Conv(e, BF16).GetAsDouble(0), 1.0);
  // Integers likewise: 2^24 + 1 is 2^24 in f32, and bf16 keeps it.
  EXPECT_EQ(Conv(Literal::CreateR0<int32_t>((1 << 24) + 1), BF16).GetAsDouble(0), 16777216.0);
  EXPECT_EQ(Conv(Literal::CreateR0<float>(-0.0f), F16).ToStringWithoutShape(), "-0");
  EXPECT_EQ(Conv(Literal::CreateR0<float>(1e6f), F16).ToStringWithoutShape(), "inf");
  EXPECT_EQ(Conv(Literal::CreateR0<float>(1e6f), F8E4M3FN).ToStringWithoutShape(), "nan");
  EXPECT_EQ(Conv(Literal::CreateR0<float>(-NAN), F8E4M3FNUZ).ToStringWithoutShape(), "-nan");
  EXPECT_EQ(Conv(Literal::CreateR0<float>(100.f), F4E2M1FN).ToStringWithoutShape(), "6");
  EXPECT_EQ(Conv(Conv(Literal::CreateR0<float>(0.1f), BF16), F32).ToStringWithoutShape(),
            "0.100097656");
  EXPECT_EQ(Conv(Literal::CreateR0<float>(2.5f), C64).ToStringWithoutShape(), "(2.5, 0)");
  absl::StatusOr<Literal> bad = Literal::CreateR0<std::complex<float>>({1, 2}).Convert(F32);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Conv(Literal::CreateR0<std::complex<float>>({1, 2}), C128).ToStringWithoutShape(),
            "(1, 2)");
  EXPECT_FALSE(Literal::CreateR0<float>(1).Convert(TUPLE).ok());
}

TEST(LiteralTest, Equality) {
  EXPECT_EQ(Literal::CreateR0<float>(NAN), Literal::CreateR0<float>(NAN));
  EXPECT_NE(Literal::CreateR0<float>(0.0f), Literal::CreateR0<float>(-0.0f));
  EXPECT_NE(Literal::CreateR0<float>(1), Literal::CreateR0<double>(1));
  EXPECT_NE(Literal::CreateR1<int32_t>({1, 2}), Literal::CreateR1<int32_t>({1, 3}));
  std::vector<Literal> a;
  a.push_back(Literal::CreateR0<int32_t>(1));
  std::vector<Literal> b;
  b.push_back(Literal::CreateR0<int32_t>(1));
  Literal ta = Literal::MakeTuple(std::move(a));
  Literal tb = Literal::MakeTuple(std::move(b));
  EXPECT_EQ(ta, tb);
  EXPECT_EQ(ta.Clone(), ta);
  std::vector<Literal> parts = tb.DecomposeTuple();
  EXPECT_EQ(parts.size(), 1u);
  EXPECT_EQ(tb.tuple_element_count(), 0);
  EXPECT_NE(ta, tb);
}

TEST(LiteralTest, ProtoFieldsAndRoundTrip) {
  Literal s16 = Literal::CreateR1<int16_t>({1, -2});
  LiteralProto p = s16.ToProto();
  EXPECT_EQ(p.s16s(), std::string("\x01\x00\xfe\xff", 4));
  Literal c = Literal::CreateR1<std::complex<double>>({{1, 2}, {3, 4}});
  EXPECT_EQ(c.ToProto().c128s_size(), 4);
  Literal pred = Literal::CreateR1<bool>({true, false, true});
  EXPECT_EQ(pred.ToProto().preds_size(), 3);
  Literal tuple = MustParse("((s32[], f16[2]), token[], u4[3]) ((1, {0.5, -2}), token, {1, 2, 15})");
  LiteralProto tp = tuple.ToProto();
  EXPECT_EQ(tp.tuple_literals_size(), 3);
  EXPECT_EQ(tp.tuple_literals(2).u4s(), std::string("\x01\x02\x0f", 3));
  EXPECT_EQ(Literal::FromProto(tp).value(), tuple);
}

TEST(LiteralTest, HostileProtos) {
  LiteralProto p = Literal::CreateR1<float>({1, 2, 3}).ToProto();
  p.add_f32s(4);
  EXPECT_EQ(Literal::FromProto(p).status().code(), absl::StatusCode::kInvalidArgument);
  LiteralProto wrong_field = Literal::CreateR1<float>({1, 2}).ToProto();
  wrong_field.clear_f32s();
  wrong_field.add_f64s(1);
  wrong_field.add_f64s(2);
  EXPECT_FALSE(Literal::FromProto(wrong_field).ok());
  LiteralProto huge;
  huge.mutable_shape()->set_element_type(F32);
  huge.mutable_shape()->add_dimensions(int64_t{1} << 40);
  huge.mutable_shape()->add_is_dynamic_dimension(false);
  EXPECT_FALSE(Literal::FromProto(huge).ok());
  LiteralProto overflow = huge;
  overflow.mutable_shape()->add_dimensions(int64_t{1} << 40);
  overflow.mutable_shape()->add_is_dynamic_dimension(false);
  EXPECT_FALSE(Literal::FromProto(overflow).ok());
  LiteralProto negative;
  negative.mutable_shape()->set_element_type(S32);
  negative.mutable_shape()->add_dimensions(-1);
  negative.mutable_shape()->add_is_dynamic_dimension(false);
  EXPECT_FALSE(Literal::FromProto(negative).ok());
  EXPECT_FALSE(Literal::FromProto(LiteralProto()).ok());
  LiteralProto tuple = MustParse("(s32[], s32[]) (1, 2)").ToProto();
  tuple.mutable_tuple_literals()->RemoveLast();
  EXPECT_FALSE(Literal::FromProto(tuple).ok());
  LiteralProto bytes = Literal::CreateR1<uint8_t>({1, 2}).ToProto();
  bytes.set_u8s("\x01");
  EXPECT_FALSE(Literal::FromProto(bytes).ok());
  LiteralProto opaque;
  opaque.mutable_shape()->set_element_type(OPAQUE_TYPE);
  EXPECT_FALSE(Literal::FromProto(opaque).ok());
}

TEST(LiteralTest, CreateRejectsBadShapes) {
  EXPECT_FALSE(Literal::Create(ShapeUtil::MakeShape(F32, {int64_t{1} << 40})).ok());
  EXPECT_FALSE(Literal::Create(Shape(OPAQUE_TYPE, {})).ok());
  EXPECT_FALSE(Literal::CreateFromBuffer(ShapeUtil::MakeShape(F32, {2}), "abc", 3).ok());
  EXPECT_FALSE(Literal::CreateFromDoubles(ShapeUtil::MakeShape(F16, {2}), {1.0}).ok());
  Literal h = Literal::CreateFromDoubles(ShapeUtil::MakeShape(F16, {2}), {1.0, 0.5}).value();
  EXPECT_EQ(h.data<uint16_t>()[0], 0x3C00);
}

}  // namespace
}  // namespace xla
