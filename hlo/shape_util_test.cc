#include "hlo/shape_util.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace xla {
namespace {

TEST(ShapeUtilTest, Construction) {
  EXPECT_EQ(ShapeUtil::MakeShape(F32, {2, 3}).ToString(true), "f32[2,3]");
  EXPECT_EQ(ShapeUtil::MakeShapeWithDescendingLayout(F32, {2, 3, 4}).ToString(true),
            "f32[2,3,4]{2,1,0}");
  EXPECT_EQ(ShapeUtil::MakeShapeWithDenseLayout(F32, {2, 3}, {0, 1}).ToString(true),
            "f32[2,3]{0,1}");
  EXPECT_EQ(ShapeUtil::MakeScalarShape(S64).ToString(), "s64[]");
  EXPECT_EQ(ShapeUtil::MakeNil().ToString(), "()");
  EXPECT_EQ(ShapeUtil::MakeDescendingLayout(0).ToString(), "{}");
  EXPECT_EQ(ShapeUtil::MakeDescendingLayout(3).ToString(), "{2,1,0}");
  EXPECT_FALSE(ShapeUtil::MakeShape(F32, {2}).is_dynamic());
}

TEST(ShapeUtilTest, ChangeElementType) {
  Shape t = ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(F32, {2}), ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(S8, {})})});
  EXPECT_EQ(ShapeUtil::ChangeElementType(t, BF16).ToString(), "(bf16[2], (bf16[]))");
  Shape packed = ShapeUtil::MakeShapeWithDescendingLayout(S4, {8});
  packed.mutable_layout()->element_size_in_bits = 4;
  EXPECT_EQ(ShapeUtil::ChangeElementType(packed, U4).ToString(true), "u4[8]{0:E(4)}");
  EXPECT_EQ(ShapeUtil::ChangeElementType(packed, F32).ToString(true), "f32[8]{0}");
}

TEST(ShapeUtilTest, ElementCounts) {
  EXPECT_EQ(ShapeUtil::ElementsIn(ShapeUtil::MakeShape(F32, {})), 1);
  EXPECT_EQ(ShapeUtil::ElementsIn(ShapeUtil::MakeShape(F32, {2, 3, 4})), 24);
  EXPECT_EQ(ShapeUtil::ElementsIn(ShapeUtil::MakeShape(F32, {2, 0, 4})), 0);
  Shape t = ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(F32, {2, 3}),
       ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(S8, {5}), Shape::MakeToken()})});
  EXPECT_EQ(ShapeUtil::ElementsInRecursive(t), 11);
  EXPECT_TRUE(ShapeUtil::IsScalar(ShapeUtil::MakeShape(PRED, {})));
  EXPECT_FALSE(ShapeUtil::IsScalar(ShapeUtil::MakeShape(PRED, {1})));
  EXPECT_FALSE(ShapeUtil::IsScalar(Shape::MakeToken()));
  EXPECT_TRUE(ShapeUtil::IsEffectiveScalar(ShapeUtil::MakeShape(F32, {1, 1})));
  EXPECT_FALSE(ShapeUtil::IsEffectiveScalar(ShapeUtil::MakeShape(F32, {1, 2})));
  EXPECT_TRUE(ShapeUtil::IsZeroElementArray(ShapeUtil::MakeShape(F32, {3, 0})));
  EXPECT_FALSE(ShapeUtil::IsZeroElementArray(ShapeUtil::MakeShape(F32, {})));
  EXPECT_FALSE(ShapeUtil::IsZeroElementArray(ShapeUtil::MakeNil()));
  EXPECT_TRUE(ShapeUtil::IsEmptyTuple(ShapeUtil::MakeNil()));
  EXPECT_TRUE(ShapeUtil::IsNestedTuple(t));
  EXPECT_FALSE(ShapeUtil::IsNestedTuple(t.tuple_shapes(1)));
  EXPECT_EQ(ShapeUtil::TupleElementCount(t), 2);
  // Saturates rather than wrapping for a shape that skipped validation.
  EXPECT_EQ(ShapeUtil::ElementsIn(ShapeUtil::MakeShape(F32, {int64_t{1} << 40, int64_t{1} << 40})),
            INT64_MAX);
}

TEST(ShapeUtilTest, ByteSizes) {
  EXPECT_EQ(ShapeUtil::ByteSizeOf(ShapeUtil::MakeShape(F32, {2, 3})), 24);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(ShapeUtil::MakeShape(PRED, {5})), 5);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(ShapeUtil::MakeShape(C128, {2})), 32);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(ShapeUtil::MakeShape(S4, {3})), 3);  // unpacked
  Shape packed = ShapeUtil::MakeShapeWithDescendingLayout(S4, {3});
  packed.mutable_layout()->element_size_in_bits = 4;
  EXPECT_EQ(ShapeUtil::ByteSizeOf(packed), 2);  // 12 bits round up
  EXPECT_EQ(ShapeUtil::ByteSizeOf(ShapeUtil::MakeShape(F32, {0, 7})), 0);
  Shape t = ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(F32, {100}), ShapeUtil::MakeShape(F32, {}), Shape::MakeToken()});
  EXPECT_EQ(ShapeUtil::ByteSizeOf(t), 24);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(t, 4), 12);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(Shape::MakeToken()), 0);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(Shape::MakeBuffer(ShapeUtil::MakeShape(S16, {4}))), 8);
}

TEST(ShapeUtilTest, Compatibility) {
  Shape a = ShapeUtil::MakeShapeWithDenseLayout(F32, {2, 3}, {0, 1});
  Shape b = ShapeUtil::MakeShape(F32, {2, 3});
  EXPECT_TRUE(ShapeUtil::Compatible(a, b));
  EXPECT_TRUE(ShapeUtil::EqualIgnoringLayout(a, b));
  EXPECT_FALSE(ShapeUtil::Equal(a, b));
  Shape dyn = b;
  dyn.set_dynamic_dimension(1, true);
  EXPECT_FALSE(ShapeUtil::Compatible(dyn, b));
  EXPECT_FALSE(ShapeUtil::Compatible(b, ShapeUtil::MakeShape(F32, {3, 2})));
  EXPECT_FALSE(ShapeUtil::Compatible(b, ShapeUtil::MakeShape(BF16, {2, 3})));
  EXPECT_TRUE(ShapeUtil::CompatibleIgnoringFpPrecision(b, ShapeUtil::MakeShape(BF16, {2, 3})));
  EXPECT_FALSE(ShapeUtil::CompatibleIgnoringFpPrecision(b, ShapeUtil::MakeShape(S32, {2, 3})));
  EXPECT_FALSE(ShapeUtil::CompatibleIgnoringFpPrecision(ShapeUtil::MakeShape(C64, {}),
                                                        ShapeUtil::MakeShape(F32, {})));
  EXPECT_TRUE(ShapeUtil::CompatibleIgnoringElementType(b, ShapeUtil::MakeShape(S32, {2, 3})));
  EXPECT_FALSE(ShapeUtil::CompatibleIgnoringElementType(b, ShapeUtil::MakeShape(S32, {2})));
  EXPECT_FALSE(ShapeUtil::Compatible(Shape::MakeToken(), ShapeUtil::MakeNil()));
  EXPECT_TRUE(ShapeUtil::Compatible(Shape::MakeToken(), Shape::MakeToken()));
  Shape t1 = ShapeUtil::MakeTupleShape({a, ShapeUtil::MakeTupleShape({Shape::MakeToken()})});
  Shape t2 = ShapeUtil::MakeTupleShape({b, ShapeUtil::MakeTupleShape({Shape::MakeToken()})});
  EXPECT_TRUE(ShapeUtil::Compatible(t1, t2));
  EXPECT_FALSE(ShapeUtil::Compatible(t1, ShapeUtil::MakeTupleShape({b})));
  EXPECT_FALSE(ShapeUtil::Compatible(t1, b));
  EXPECT_TRUE(ShapeUtil::SameDimensions(b, ShapeUtil::MakeShape(S8, {2, 3})));
  EXPECT_FALSE(ShapeUtil::SameDimensions(b, ShapeUtil::MakeShape(F32, {2, 4})));
  EXPECT_TRUE(ShapeUtil::SameElementType(a, b));
}

TEST(ShapeUtilTest, SubshapesAndIndices) {
  Shape t = ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(F32, {2}),
       ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(S8, {5}), Shape::MakeToken()})});
  EXPECT_EQ(ShapeUtil::GetSubshape(t, {}).ToString(), t.ToString());
  EXPECT_EQ(ShapeUtil::GetSubshape(t, {1, 0}).ToString(), "s8[5]");
  EXPECT_TRUE(ShapeUtil::IndexIsValid(t, {1, 1}));
  EXPECT_FALSE(ShapeUtil::IndexIsValid(t, {2}));
  EXPECT_FALSE(ShapeUtil::IndexIsValid(t, {-1}));
  EXPECT_FALSE(ShapeUtil::IndexIsValid(t, {0, 0}));  // f32[2] is not a tuple
  auto bad = ShapeUtil::TryGetSubshape(t, {1, 2});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(bad.status().message()).find("{1,2}"), std::string::npos);
  EXPECT_FALSE(ShapeUtil::GetSubshape(t, {7}).IsArray());  // no crash on a bad index
  EXPECT_EQ(ShapeUtil::GetMutableSubshape(&t, {9}), nullptr);
  ShapeUtil::GetMutableSubshape(&t, {1, 0})->set_dimensions(0, 6);
  EXPECT_EQ(t.ToString(), "(f32[2], (s8[6], token[]))");

  std::vector<std::string> visited;
  ShapeUtil::ForEachSubshape(t, [&](const Shape& s, const ShapeIndex& index) {
    visited.push_back(ShapeIndexToString(index) + "=" + s.ToString());
  });
  EXPECT_EQ(visited, (std::vector<std::string>{"{}=(f32[2], (s8[6], token[]))", "{0}=f32[2]",
                                               "{1}=(s8[6], token[])", "{1,0}=s8[6]",
                                               "{1,1}=token[]"}));
  ShapeUtil::ForEachMutableSubshape(&t, [](Shape* s, const ShapeIndex&) {
    if (s->IsArray()) s->set_element_type(S32);
  });
  EXPECT_EQ(t.ToString(), "(s32[2], (s32[6], token[]))");
}

TEST(ShapeUtilTest, Layouts) {
  Shape t = ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(F32, {2, 3}), ShapeUtil::MakeShapeWithDenseLayout(F32, {2, 3}, {0, 1}),
       Shape::MakeToken(), ShapeUtil::MakeShape(F32, {}),
       Shape::MakeBuffer(ShapeUtil::MakeShape(S32, {4, 5}))});
  EXPECT_FALSE(ShapeUtil::HasLayoutEverywhere(t));
  ShapeUtil::SetDefaultLayoutsIfMissing(&t);
  EXPECT_TRUE(ShapeUtil::HasLayoutEverywhere(t));
  EXPECT_EQ(ShapeUtil::HumanStringWithLayout(t),
            "(f32[2,3]{1,0}, f32[2,3]{0,1}, token[], f32[], b(s32[4,5]{1,0}))");
  ShapeUtil::ClearLayouts(&t);
  EXPECT_EQ(ShapeUtil::HumanStringWithLayout(t), "(f32[2,3], f32[2,3], token[], f32[], b(s32[4,5]))");
  EXPECT_FALSE(ShapeUtil::HasLayoutEverywhere(t));
  EXPECT_TRUE(ShapeUtil::HasLayoutEverywhere(Shape::MakeToken()));
}

TEST(ShapeUtilTest, ValidateShape) {
  EXPECT_TRUE(ShapeUtil::ValidateShape(ShapeUtil::MakeShape(F32, {0, 3})).ok());
  EXPECT_TRUE(ShapeUtil::ValidateShape(ShapeUtil::MakeNil()).ok());
  EXPECT_FALSE(ShapeUtil::ValidateShape(Shape()).ok());
  EXPECT_FALSE(ShapeUtil::ValidateShape(ShapeUtil::MakeShape(F32, {-1})).ok());
  Shape bad_layout = ShapeUtil::MakeShapeWithDenseLayout(F32, {2, 3}, {1, 1});
  EXPECT_EQ(ShapeUtil::ValidateShape(bad_layout).code(), absl::StatusCode::kInvalidArgument);
  Shape bad_element = ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(F32, {-2})});
  EXPECT_FALSE(ShapeUtil::ValidateShape(bad_element).ok());
  Shape tuple_with_dims = ShapeUtil::MakeNil();
  tuple_with_dims.mutable_dimensions()->push_back(3);
  EXPECT_FALSE(ShapeUtil::ValidateShape(tuple_with_dims).ok());
  Shape token_with_layout = Shape::MakeToken();
  token_with_layout.set_layout(Layout());
  EXPECT_FALSE(ShapeUtil::ValidateShape(token_with_layout).ok());
  // Flags vector longer than the dimensions.
  Shape extra_flags = ShapeUtil::MakeShape(F32, {2});
  extra_flags.set_dynamic_dimension(3, true);
  EXPECT_FALSE(ShapeUtil::ValidateShape(extra_flags).ok());
  // Unbounded needs its dynamic flag.
  Shape unbounded = ShapeUtil::MakeShape(F32, {Shape::kUnboundedSize});
  EXPECT_FALSE(ShapeUtil::ValidateShape(unbounded).ok());
  unbounded.set_dynamic_dimension(0, true);
  EXPECT_TRUE(ShapeUtil::ValidateShape(unbounded).ok());
  EXPECT_EQ(ShapeUtil::ByteSizeOf(unbounded), 0);

  Shape deep = ShapeUtil::MakeShape(F32, {});
  for (int i = 0; i < kMaxShapeNestingDepth + 1; ++i) deep = ShapeUtil::MakeTupleShape({deep});
  EXPECT_FALSE(ShapeUtil::ValidateShape(deep).ok());
}

TEST(ShapeUtilTest, ValidateLayoutStandalone) {
  Layout ok({1, 0});
  EXPECT_TRUE(ShapeUtil::ValidateLayout(ok, 2).ok());
  EXPECT_FALSE(ShapeUtil::ValidateLayout(ok, 3).ok());
  Layout dlt({1, 0});
  dlt.dim_level_types = {DIM_DENSE};
  EXPECT_FALSE(ShapeUtil::ValidateLayout(dlt, 2).ok());
  Layout flags({0});
  flags.dim_level_types = {DIM_COMPRESSED};
  flags.dim_unique = {true, false};
  EXPECT_FALSE(ShapeUtil::ValidateLayout(flags, 1).ok());
  Layout empty_tile({0});
  empty_tile.mutable_tiles()->push_back(Tile());
  EXPECT_FALSE(ShapeUtil::ValidateLayout(empty_tile, 1).ok());
  Layout combine({1, 0});
  combine.mutable_tiles()->push_back(Tile({Tile::kCombineDimension, 128}));
  EXPECT_TRUE(ShapeUtil::ValidateLayout(combine, 2).ok());
}

}  // namespace
}  // namespace xla
