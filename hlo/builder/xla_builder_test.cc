// Modules built with XlaBuilder must equal the same module written as HLO text (names,
// ids, attributes and all), and must pass the verifier.

#include "hlo/builder/xla_builder.h"

#include <gtest/gtest.h>

#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "hlo/shape_util.h"

namespace xla {
namespace {

Shape Vf32(std::vector<int64_t> dims) { return ShapeUtil::MakeShape(F32, dims); }
Shape Vs32(std::vector<int64_t> dims) { return ShapeUtil::MakeShape(S32, dims); }

// Builds, converts to IR, verifies and compares with `text`.
void ExpectBuildsText(XlaBuilder& builder, const std::string& text) {
  absl::StatusOr<XlaComputation> computation = builder.Build();
  ASSERT_TRUE(computation.ok()) << computation.status();
  absl::StatusOr<std::unique_ptr<HloModule>> built = computation->ToModule();
  ASSERT_TRUE(built.ok()) << built.status();
  absl::StatusOr<std::unique_ptr<HloModule>> expected = ParseAndReturnUnverifiedModule(text);
  ASSERT_TRUE(expected.ok()) << expected.status();
  // The parser currently leaves scalar shapes of entry_computation_layout without the
  // (empty) default layout that proto decoding gives them; normalize until it does.
  if ((*expected)->config().entry_computation_layout.has_value()) {
    ProgramShape& layout = *(*expected)->mutable_config()->entry_computation_layout;
    for (Shape& p : layout.parameters()) ShapeUtil::SetDefaultLayoutsIfMissing(&p);
    ShapeUtil::SetDefaultLayoutsIfMissing(&layout.result());
  }
  std::string diff;
  EXPECT_TRUE((*expected)->Equal(**built, &diff)) << diff;
  absl::Status verified = VerifyHloModule(**built);
  EXPECT_TRUE(verified.ok()) << verified;
}

XlaComputation ScalarAdder(const std::string& name, PrimitiveType type = F32) {
  // Separate statements: C++ leaves argument evaluation order (and so ids) unspecified.
  XlaBuilder b(name);
  XlaOp lhs = Parameter(&b, 0, ShapeUtil::MakeScalarShape(type), "a");
  XlaOp rhs = Parameter(&b, 1, ShapeUtil::MakeScalarShape(type), "b");
  Add(lhs, rhs);
  return b.Build().value();
}

TEST(XlaBuilderTest, ElementwiseWithBroadcastDimensionsAndScalar) {
  XlaBuilder b("test");
  XlaOp x = Parameter(&b, 0, Vf32({2, 3}), "x");
  XlaOp y = Parameter(&b, 1, Vf32({3}), "y");
  XlaOp sum = Add(x, y, /*broadcast_dimensions=*/{1});
  Mul(sum, ConstantR0<float>(&b, 2.0f));
  ExpectBuildsText(b, R"(
HloModule test.8, entry_computation_layout={(f32[2,3]{1,0}, f32[3]{0})->f32[2,3]{1,0}}

ENTRY test.8 {
  x.1 = f32[2,3]{1,0} parameter(0)
  y.2 = f32[3]{0} parameter(1)
  broadcast.3 = f32[2,3]{1,0} broadcast(y.2), dimensions={1}
  add.4 = f32[2,3]{1,0} add(x.1, broadcast.3)
  constant.5 = f32[] constant(2)
  broadcast.6 = f32[2,3]{1,0} broadcast(constant.5), dimensions={}
  ROOT multiply.7 = f32[2,3]{1,0} multiply(add.4, broadcast.6)
}
)");
}

TEST(XlaBuilderTest, DegenerateDimensionBroadcastReshapesFirst) {
  XlaBuilder b("degenerate");
  XlaOp x = Parameter(&b, 0, Vf32({2, 3}), "x");
  XlaOp y = Parameter(&b, 1, Vf32({1, 3}), "y");
  Sub(x, y);
  ExpectBuildsText(b, R"(
HloModule degenerate.6, entry_computation_layout={(f32[2,3]{1,0}, f32[1,3]{1,0})->f32[2,3]{1,0}}

ENTRY degenerate.6 {
  x.1 = f32[2,3]{1,0} parameter(0)
  y.2 = f32[1,3]{1,0} parameter(1)
  reshape.3 = f32[3]{0} reshape(y.2)
  broadcast.4 = f32[2,3]{1,0} broadcast(reshape.3), dimensions={1}
  ROOT subtract.5 = f32[2,3]{1,0} subtract(x.1, broadcast.4)
}
)");
}

TEST(XlaBuilderTest, CompareAndSelectWithScalarBroadcast) {
  XlaBuilder b("select");
  XlaOp x = Parameter(&b, 0, Vf32({4}), "x");
  XlaOp zero = ConstantR0<float>(&b, 0.0f);
  Select(Gt(x, Broadcast(zero, {4})), x, zero);
  ExpectBuildsText(b, R"(
HloModule select.7, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY select.7 {
  x.1 = f32[4]{0} parameter(0)
  constant.2 = f32[] constant(0)
  broadcast.3 = f32[4]{0} broadcast(constant.2), dimensions={}
  compare.4 = pred[4]{0} compare(x.1, broadcast.3), direction=GT
  broadcast.5 = f32[4]{0} broadcast(constant.2), dimensions={}
  ROOT select.6 = f32[4]{0} select(compare.4, x.1, broadcast.5)
}
)");
}

TEST(XlaBuilderTest, ReduceWithReducerComputation) {
  XlaComputation add = ScalarAdder("add");
  XlaBuilder b("reduce");
  XlaOp x = Parameter(&b, 0, Vf32({2, 3}), "x");
  Reduce(x, ConstantR0<float>(&b, 0.0f), add, {1});
  ExpectBuildsText(b, R"(
HloModule reduce.8, entry_computation_layout={(f32[2,3]{1,0})->f32[2]{0}}

add.3 {
  a.4 = f32[] parameter(0)
  b.5 = f32[] parameter(1)
  ROOT add.6 = f32[] add(a.4, b.5)
}

ENTRY reduce.8 {
  x.1 = f32[2,3]{1,0} parameter(0)
  constant.2 = f32[] constant(0)
  ROOT reduce.7 = f32[2]{0} reduce(x.1, constant.2), dimensions={1}, to_apply=add.3
}
)");
}

TEST(XlaBuilderTest, WhileLoop) {
  XlaBuilder cond_builder("cond");
  XlaOp i = Parameter(&cond_builder, 0, Vs32({}), "i");
  Lt(i, ConstantR0<int32_t>(&cond_builder, 10));
  XlaComputation cond = cond_builder.Build().value();
  XlaBuilder body_builder("body");
  XlaOp j = Parameter(&body_builder, 0, Vs32({}), "i");
  Add(j, ConstantR0<int32_t>(&body_builder, 1));
  XlaComputation body = body_builder.Build().value();

  XlaBuilder b("loop");
  While(cond, body, ConstantR0<int32_t>(&b, 0));
  ExpectBuildsText(b, R"(
HloModule loop.11, entry_computation_layout={()->s32[]}

body.2 {
  i.3 = s32[] parameter(0)
  constant.4 = s32[] constant(1)
  ROOT add.5 = s32[] add(i.3, constant.4)
}

cond.6 {
  i.7 = s32[] parameter(0)
  constant.8 = s32[] constant(10)
  ROOT compare.9 = pred[] compare(i.7, constant.8), direction=LT
}

ENTRY loop.11 {
  constant.1 = s32[] constant(0)
  ROOT while.10 = s32[] while(constant.1), condition=cond.6, body=body.2
}
)");
}

TEST(XlaBuilderTest, PredicatedConditional) {
  XlaBuilder t("on_true");
  Neg(Parameter(&t, 0, Vf32({}), "x"));
  XlaComputation on_true = t.Build().value();
  XlaBuilder f("on_false");
  Abs(Parameter(&f, 0, Vf32({}), "x"));
  XlaComputation on_false = f.Build().value();

  XlaBuilder b("cond");
  XlaOp p = Parameter(&b, 0, ShapeUtil::MakeShape(PRED, {}), "p");
  XlaOp v = Parameter(&b, 1, Vf32({}), "v");
  Conditional(p, v, on_true, v, on_false);
  ExpectBuildsText(b, R"(
HloModule cond.10, entry_computation_layout={(pred[], f32[])->f32[]}

on_true.3 {
  x.4 = f32[] parameter(0)
  ROOT negate.5 = f32[] negate(x.4)
}

on_false.6 {
  x.7 = f32[] parameter(0)
  ROOT abs.8 = f32[] abs(x.7)
}

ENTRY cond.10 {
  p.1 = pred[] parameter(0)
  v.2 = f32[] parameter(1)
  ROOT conditional.9 = f32[] conditional(p.1, v.2, v.2), true_computation=on_true.3, false_computation=on_false.6
}
)");
}

TEST(XlaBuilderTest, DotAndConvolution) {
  XlaBuilder b("linear");
  XlaOp a = Parameter(&b, 0, Vf32({2, 3}), "a");
  XlaOp w = Parameter(&b, 1, Vf32({3, 4}), "w");
  XlaOp image = Parameter(&b, 2, Vf32({1, 1, 4, 4}), "image");
  XlaOp kernel = Parameter(&b, 3, Vf32({1, 1, 3, 3}), "kernel");
  XlaOp dot = Dot(a, w);
  XlaOp conv = Conv(image, kernel, {1, 1}, Padding::kSame);
  Tuple(&b, {dot, conv});
  ExpectBuildsText(b, R"(
HloModule linear.8, entry_computation_layout={(f32[2,3]{1,0}, f32[3,4]{1,0}, f32[1,1,4,4]{3,2,1,0}, f32[1,1,3,3]{3,2,1,0})->(f32[2,4]{1,0}, f32[1,1,4,4]{3,2,1,0})}

ENTRY linear.8 {
  a.1 = f32[2,3]{1,0} parameter(0)
  w.2 = f32[3,4]{1,0} parameter(1)
  image.3 = f32[1,1,4,4]{3,2,1,0} parameter(2)
  kernel.4 = f32[1,1,3,3]{3,2,1,0} parameter(3)
  dot.5 = f32[2,4]{1,0} dot(a.1, w.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  convolution.6 = f32[1,1,4,4]{3,2,1,0} convolution(image.3, kernel.4), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  ROOT tuple.7 = (f32[2,4]{1,0}, f32[1,1,4,4]{3,2,1,0}) tuple(dot.5, convolution.6)
}
)");
}

TEST(XlaBuilderTest, GatherAndScatter) {
  XlaComputation add = ScalarAdder("add");
  XlaBuilder b("gs");
  XlaOp operand = Parameter(&b, 0, Vf32({3, 3}), "operand");
  XlaOp indices = Parameter(&b, 1, Vs32({2}), "indices");
  GatherDimensionNumbers g;
  g.add_offset_dims(1);
  g.add_collapsed_slice_dims(0);
  g.add_start_index_map(0);
  g.set_index_vector_dim(1);
  XlaOp gathered = Gather(operand, indices, g, {1, 3});
  ScatterDimensionNumbers s;
  s.add_update_window_dims(1);
  s.add_inserted_window_dims(0);
  s.add_scatter_dims_to_operand_dims(0);
  s.set_index_vector_dim(1);
  Scatter(operand, indices, gathered, add, s);
  ExpectBuildsText(b, R"(
HloModule gs.9, entry_computation_layout={(f32[3,3]{1,0}, s32[2]{0})->f32[3,3]{1,0}}

add.4 {
  a.5 = f32[] parameter(0)
  b.6 = f32[] parameter(1)
  ROOT add.7 = f32[] add(a.5, b.6)
}

ENTRY gs.9 {
  operand.1 = f32[3,3]{1,0} parameter(0)
  indices.2 = s32[2]{0} parameter(1)
  gather.3 = f32[2,3]{1,0} gather(operand.1, indices.2), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
  ROOT scatter.8 = f32[3,3]{1,0} scatter(operand.1, indices.2, gather.3), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add.4
}
)");
}

TEST(XlaBuilderTest, SortWithComparator) {
  XlaBuilder cmp("less");
  XlaOp lhs = Parameter(&cmp, 0, Vf32({}), "lhs");
  Lt(lhs, Parameter(&cmp, 1, Vf32({}), "rhs"));
  XlaComputation less = cmp.Build().value();
  XlaBuilder b("sort");
  Sort({Parameter(&b, 0, Vf32({4}), "x")}, less, -1, /*is_stable=*/true);
  ExpectBuildsText(b, R"(
HloModule sort.7, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

less.2 {
  lhs.3 = f32[] parameter(0)
  rhs.4 = f32[] parameter(1)
  ROOT compare.5 = pred[] compare(lhs.3, rhs.4), direction=LT
}

ENTRY sort.7 {
  x.1 = f32[4]{0} parameter(0)
  ROOT sort.6 = f32[4]{0} sort(x.1), dimensions={0}, is_stable=true, to_apply=less.2
}
)");
}

TEST(XlaBuilderTest, TupleGetTupleElementAndCustomCall) {
  XlaBuilder b("misc");
  XlaOp x = Parameter(&b, 0, Vf32({2}), "x");
  XlaOp y = Parameter(&b, 1, Vs32({}), "y");
  XlaOp t = Tuple(&b, {x, y});
  XlaOp second = GetTupleElement(t, 1);
  XlaOp call = CustomCall(&b, "my_target", {x}, Vf32({2}), "opaque", /*has_side_effect=*/true);
  Tuple(&b, {second, call});
  ExpectBuildsText(b, R"(
HloModule misc.7, entry_computation_layout={(f32[2]{0}, s32[])->(s32[], f32[2]{0})}

ENTRY misc.7 {
  x.1 = f32[2]{0} parameter(0)
  y.2 = s32[] parameter(1)
  tuple.3 = (f32[2]{0}, s32[]) tuple(x.1, y.2)
  get-tuple-element.4 = s32[] get-tuple-element(tuple.3), index=1
  custom-call.5 = f32[2]{0} custom-call(x.1), custom_call_target="my_target", custom_call_has_side_effect=true, backend_config="opaque"
  ROOT tuple.6 = (s32[], f32[2]{0}) tuple(get-tuple-element.4, custom-call.5)
}
)");
}

TEST(XlaBuilderTest, MetadataShardingFrontendAttributesAndAlias) {
  XlaBuilder b("attrs");
  OpMetadata metadata;
  metadata.set_op_name("my_op");
  b.SetOpMetadata(metadata);
  XlaOp x = Parameter(&b, 0, Vf32({2}), "x");
  b.ClearOpMetadata();
  OpSharding sharding;
  sharding.set_type(OpSharding::REPLICATED);
  b.SetSharding(sharding);
  XlaOp neg = Neg(x);
  b.ClearSharding();
  FrontendAttributes attributes;
  (*attributes.mutable_map())["k"] = "v";
  b.SetFrontendAttributes(attributes);
  Abs(neg);
  b.ClearFrontendAttributes();
  b.SetUpAlias({}, 0, {});
  ExpectBuildsText(b, R"(
HloModule attrs.4, input_output_alias={ {}: (0, {}, may-alias) }, entry_computation_layout={(f32[2]{0})->f32[2]{0}}

ENTRY attrs.4 {
  x.1 = f32[2]{0} parameter(0), metadata={op_name="my_op"}
  negate.2 = f32[2]{0} negate(x.1), sharding={replicated}
  ROOT abs.3 = f32[2]{0} abs(negate.2), frontend_attributes={k="v"}
}
)");
}

TEST(XlaBuilderTest, RaggedDotInfersItsShapeAndRefusesMismatchedGroups) {
  RaggedDotDimensionNumbers rdn;
  rdn.mutable_dot_dimension_numbers()->add_lhs_contracting_dimensions(1);
  rdn.mutable_dot_dimension_numbers()->add_rhs_contracting_dimensions(1);
  rdn.add_lhs_ragged_dimensions(0);
  rdn.add_rhs_group_dimensions(0);
  XlaBuilder b("ragged");
  XlaOp lhs = Parameter(&b, 0, Vf32({11, 5}), "lhs");
  XlaOp rhs = Parameter(&b, 1, Vf32({3, 5, 7}), "rhs");
  XlaOp groups = Parameter(&b, 2, Vs32({3}), "groups");
  XlaOp out = RaggedDot(lhs, rhs, groups, rdn);
  XlaOp wide = RaggedDot(lhs, rhs, groups, rdn, nullptr, F64);
  EXPECT_EQ(b.GetShape(out)->ToString(), "f32[11,7]");
  EXPECT_EQ(b.GetShape(wide)->ToString(), "f64[11,7]");
  Tuple(&b, {out, wide});
  absl::StatusOr<XlaComputation> computation = b.Build();
  ASSERT_TRUE(computation.ok()) << computation.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module = computation->ToModule();
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* root = (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kRaggedDot);
  EXPECT_EQ(root->operand(0)->attrs().ragged_dot_dimension_numbers().rhs_group_dimensions(0), 0);
  absl::Status verified = VerifyHloModule(**module);
  EXPECT_TRUE(verified.ok()) << verified;
  // Four group sizes for three groups of the rhs.
  XlaBuilder bad("bad");
  RaggedDot(Parameter(&bad, 0, Vf32({11, 5}), "lhs"), Parameter(&bad, 1, Vf32({3, 5, 7}), "rhs"),
            Parameter(&bad, 2, Vs32({4}), "groups"), rdn);
  ASSERT_FALSE(bad.first_error().ok());
  EXPECT_NE(bad.first_error().message().find("group_sizes s32[4] has 4 groups"), std::string::npos) << bad.first_error();
}

}  // namespace
}  // namespace xla
