// Builder errors (first error kept and reported by Build), shape queries, IsConstant.

#include <gtest/gtest.h>

#include "hlo/builder/xla_builder.h"
#include "hlo/hlo_verifier.h"
#include "hlo/shape_util.h"

namespace xla {
namespace {

Shape Vf32(std::vector<int64_t> dims) { return ShapeUtil::MakeShape(F32, dims); }

std::string ShapeOf(XlaBuilder& b, XlaOp op) {
  absl::StatusOr<Shape> shape = b.GetShape(op);
  return shape.ok() ? shape->ToString() : std::string(shape.status().message());
}

TEST(XlaBuilderErrorsTest, FirstErrorIsKeptAndReportedByBuild) {
  XlaBuilder b("errors");
  XlaOp x = Parameter(&b, 0, Vf32({2}), "x");
  XlaOp y = Parameter(&b, 1, Vf32({3}), "y");
  XlaOp bad = Add(x, y);
  EXPECT_FALSE(bad.valid());
  EXPECT_FALSE(bad.IsUninitialized());
  // A later, different error does not replace the first.
  XlaOp later = Transpose(x, {5});
  EXPECT_FALSE(later.valid());
  absl::Status first = b.first_error();
  EXPECT_EQ(first.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(first.message().find("incompatible shapes: f32[2] and f32[3]"), std::string::npos)
      << first;
  absl::StatusOr<XlaComputation> built = b.Build();
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status(), first);
}

TEST(XlaBuilderErrorsTest, BadDotDimensionNumbers) {
  XlaBuilder b("dot");
  XlaOp x = Parameter(&b, 0, Vf32({2, 3}), "x");
  DotDimensionNumbers dnums;
  dnums.add_lhs_contracting_dimensions(5);
  dnums.add_rhs_contracting_dimensions(0);
  DotGeneral(x, x, dnums);
  EXPECT_FALSE(b.Build().ok());
}

TEST(XlaBuilderErrorsTest, RankMismatchNeedsBroadcastDimensions) {
  XlaBuilder b("rank");
  XlaOp x = Parameter(&b, 0, Vf32({2, 3}), "x");
  XlaOp y = Parameter(&b, 1, Vf32({3}), "y");
  Add(x, y);
  ASSERT_FALSE(b.first_error().ok());
  EXPECT_NE(b.first_error().message().find("shapes must be equal rank"), std::string::npos)
      << b.first_error();
}

TEST(XlaBuilderErrorsTest, BroadcastDimensionMismatch) {
  XlaBuilder b("mismatch");
  XlaOp x = Parameter(&b, 0, Vf32({2, 3}), "x");
  XlaOp y = Parameter(&b, 1, Vf32({2}), "y");
  Add(x, y, {1});
  EXPECT_FALSE(b.first_error().ok());
}

TEST(XlaBuilderErrorsTest, DuplicateParameterNumber) {
  XlaBuilder b("params");
  Parameter(&b, 0, Vf32({}), "a");
  Parameter(&b, 0, Vf32({}), "b");
  ASSERT_FALSE(b.first_error().ok());
  EXPECT_NE(b.first_error().message().find("already registered"), std::string::npos);
}

TEST(XlaBuilderErrorsTest, ParameterGapIsReportedAtBuild) {
  XlaBuilder b("gap");
  Parameter(&b, 1, Vf32({}), "a");
  EXPECT_FALSE(b.Build().ok());
}

TEST(XlaBuilderErrorsTest, OpFromAnotherBuilder) {
  XlaBuilder a("a"), b("b");
  XlaOp x = Parameter(&a, 0, Vf32({}), "x");
  XlaOp y = Parameter(&b, 0, Vf32({}), "y");
  Add(y, x);
  ASSERT_FALSE(b.first_error().ok());
  EXPECT_NE(b.first_error().message().find("is built by builder 'a'"), std::string::npos);
  EXPECT_TRUE(a.first_error().ok());
}

TEST(XlaBuilderErrorsTest, FailedSubBuilderReportsToParent) {
  XlaBuilder b("parent");
  std::unique_ptr<XlaBuilder> sub = b.CreateSubBuilder("reducer");
  Add(Parameter(sub.get(), 0, Vf32({2}), "p"), Parameter(sub.get(), 1, Vf32({3}), "q"));
  XlaComputation reducer = sub->BuildAndNoteError();
  EXPECT_TRUE(reducer.IsNull());
  ASSERT_FALSE(b.first_error().ok());
  EXPECT_NE(b.first_error().message().find("error from: reducer"), std::string::npos);
}

TEST(XlaBuilderErrorsTest, ReshapeElementCountMismatch) {
  XlaBuilder b("reshape");
  Reshape(Parameter(&b, 0, Vf32({2, 3}), "x"), {4});
  EXPECT_FALSE(b.Build().ok());
}

TEST(XlaBuilderErrorsTest, RngBitGeneratorNeedsIntegralBits) {
  XlaBuilder b("rng");
  RngBitGenerator(RNG_DEFAULT, ConstantR1<uint64_t>(&b, {1, 2}), Vf32({3}));
  EXPECT_FALSE(b.first_error().ok());
}

TEST(XlaBuilderErrorsTest, BuildWithoutInstructions) {
  XlaBuilder b("empty");
  EXPECT_FALSE(b.Build().ok());
}

TEST(XlaBuilderErrorsTest, InvalidAlias) {
  XlaBuilder b("alias");
  Parameter(&b, 0, Vf32({2}), "x");
  b.SetUpAlias({0}, 0, {});  // the result is not a tuple
  EXPECT_FALSE(b.Build().ok());
}

TEST(XlaBuilderShapeTest, ShapesOfOps) {
  XlaBuilder b("shapes");
  XlaOp x = Parameter(&b, 0, Vf32({2}), "x");
  EXPECT_EQ(ShapeOf(b, Broadcast(x, {3})), "f32[3,2]");
  EXPECT_EQ(ShapeOf(b, BroadcastInDim(Reshape(x, {1, 2}), {4, 2}, {0, 1})), "f32[4,2]");
  EXPECT_EQ(ShapeOf(b, Reshape(x, {2, 1})), "f32[2,1]");
  XlaOp m = Parameter(&b, 1, Vf32({2, 3}), "m");
  EXPECT_EQ(ShapeOf(b, Transpose(m, {1, 0})), "f32[3,2]");
  EXPECT_EQ(ShapeOf(b, Slice(m, {0, 1}, {2, 3}, {1, 1})), "f32[2,2]");
  EXPECT_EQ(ShapeOf(b, SliceInDim(m, 0, 2, 2, 1)), "f32[2,1]");
  EXPECT_EQ(ShapeOf(b, ConcatInDim(&b, {m, m}, 0)), "f32[4,3]");
  EXPECT_EQ(ShapeOf(b, Collapse(m, {0, 1})), "f32[6]");
  EXPECT_EQ(ShapeOf(b, ConvertElementType(m, S32)), "s32[2,3]");
  EXPECT_EQ(ShapeOf(b, BitcastConvertType(m, U8)), "u8[2,3,4]");
  EXPECT_EQ(ShapeOf(b, Lt(m, m)), "pred[2,3]");
  EXPECT_EQ(ShapeOf(b, Iota(&b, S32, 5)), "s32[5]");
  EXPECT_EQ(ShapeOf(b, Dot(m, Transpose(m, {1, 0}))), "f32[2,2]");
  EXPECT_EQ(ShapeOf(b, Dot(m, Transpose(m, {1, 0}), nullptr, F64)), "f64[2,2]");
  EXPECT_EQ(ShapeOf(b, Infeed(&b, Vf32({7}))), "f32[7]");
  EXPECT_EQ(ShapeOf(b, RngBitGenerator(RNG_DEFAULT, ConstantR1<uint64_t>(&b, {1, 2}),
                                       ShapeUtil::MakeShape(U32, {3}))),
            "(u64[2], u32[3])");
  EXPECT_TRUE(b.first_error().ok()) << b.first_error();
  absl::StatusOr<ProgramShape> program_shape = b.GetProgramShape(m);
  ASSERT_TRUE(program_shape.ok());
  EXPECT_EQ(program_shape->ToString(), "(x: f32[2], m: f32[2,3]) -> f32[2,3]");
  // Everything built above is a valid module.
  absl::StatusOr<XlaComputation> computation = b.Build();
  ASSERT_TRUE(computation.ok()) << computation.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module = computation->ToModule();
  ASSERT_TRUE(module.ok()) << module.status();
  absl::Status verified = VerifyHloModule(**module);
  EXPECT_TRUE(verified.ok()) << verified;
}

TEST(XlaBuilderShapeTest, AllEqualConstantBecomesBroadcast) {
  XlaBuilder b("const");
  XlaOp c = ConstantR1<float>(&b, {3.0f, 3.0f, 3.0f});
  EXPECT_EQ(ShapeOf(b, c), "f32[3]");
  absl::StatusOr<const HloInstructionProto*> instr = b.LookUpInstruction(c);
  ASSERT_TRUE(instr.ok());
  EXPECT_EQ((*instr)->opcode(), "broadcast");
}

TEST(XlaBuilderConstantTest, IsConstant) {
  XlaBuilder b("constness");
  XlaOp c = ConstantR0<float>(&b, 1.0f);
  XlaOp p = Parameter(&b, 0, Vf32({}), "p");
  EXPECT_TRUE(b.IsConstant(Add(c, c)).value());
  EXPECT_FALSE(b.IsConstant(Add(c, p)).value());
  EXPECT_FALSE(b.IsConstant(RngUniform(c, c, Vf32({2}))).value());
  XlaOp t = Tuple(&b, {c, p});
  EXPECT_TRUE(b.IsConstant(GetTupleElement(t, 0)).value());
  EXPECT_FALSE(b.IsConstant(GetTupleElement(t, 1)).value());
  EXPECT_FALSE(b.IsConstant(t).value());
  EXPECT_FALSE(b.IsConstant(XlaOp()).ok());
}

}  // namespace
}  // namespace xla
