// Elementwise, data-movement and miscellaneous ops.

#include "hlo/shape_inference.h"

#include <array>

#include "hlo/shape_inference_test_util.h"

namespace xla {
namespace testing_si {
namespace {

TEST(ElementwiseTest, UnaryKeepsShapeAndChecksTypes) {
  EXPECT_EQ(Infer(HloOpcode::kNegate, {S(F32, {2, 3})}), "f32[2,3]");
  EXPECT_EQ(Infer(HloOpcode::kExponential, {S(C64, {4})}), "c64[4]");
  EXPECT_EQ(Infer(HloOpcode::kAbs, {S(C128, {4})}), "f64[4]");
  EXPECT_EQ(Infer(HloOpcode::kAbs, {S(S32, {4})}), "s32[4]");
  EXPECT_THAT(Infer(HloOpcode::kAbs, {S(U32, {4})}), IsError("element type"));
  EXPECT_EQ(Infer(HloOpcode::kReal, {S(C64, {})}), "f32[]");
  EXPECT_EQ(Infer(HloOpcode::kImag, {S(F32, {2})}), "f32[2]");
  EXPECT_EQ(Infer(HloOpcode::kIsFinite, {S(BF16, {2})}), "pred[2]");
  EXPECT_THAT(Infer(HloOpcode::kFloor, {S(S32, {2})}), IsError("floating-point"));
  EXPECT_THAT(Infer(HloOpcode::kSine, {S(S32, {2})}), IsError("floating-point or complex"));
  EXPECT_EQ(Infer(HloOpcode::kNot, {S(PRED, {2})}), "pred[2]");
  EXPECT_THAT(Infer(HloOpcode::kNot, {S(F32, {2})}), IsError("pred or integral"));
  EXPECT_EQ(Infer(HloOpcode::kPopcnt, {S(U8, {3})}), "u8[3]");
  EXPECT_THAT(Infer(HloOpcode::kCountLeadingZeros, {S(F32, {3})}), IsError("integral"));
  EXPECT_THAT(Infer(HloOpcode::kNegate, {T({S(F32, {})})}), IsError("expected an array"));
  // copy accepts tuples.
  EXPECT_EQ(Infer(HloOpcode::kCopy, {T({S(F32, {}), S(S32, {2})})}), "(f32[], s32[2])");
  EXPECT_THAT(Infer(HloOpcode::kNegate, {S(F32, {}), S(F32, {})}), IsError("expects 1 operand"));
}

TEST(ElementwiseTest, DynamicDimensionsPropagate) {
  EXPECT_EQ(Infer(HloOpcode::kTanh, {Dyn(F32, {4, 5}, {1})}), "f32[4,<=5]");
  EXPECT_EQ(Infer(HloOpcode::kAdd, {S(F32, {4, 5}), Dyn(F32, {4, 5}, {0})}), "f32[<=4,5]");
}

TEST(ElementwiseTest, ReducePrecision) {
  HloInstructionProto a;
  a.set_exponent_bits(5);
  a.set_mantissa_bits(10);
  EXPECT_EQ(Infer(HloOpcode::kReducePrecision, {S(F32, {2})}, a), "f32[2]");
  a.set_exponent_bits(0);
  EXPECT_THAT(Infer(HloOpcode::kReducePrecision, {S(F32, {2})}, a), IsError("exponent_bits"));
}

TEST(ElementwiseTest, Binary) {
  EXPECT_EQ(Infer(HloOpcode::kAdd, {S(F32, {2, 3}), S(F32, {2, 3})}), "f32[2,3]");
  EXPECT_THAT(Infer(HloOpcode::kAdd, {S(F32, {2, 3}), S(F16, {2, 3})}),
              IsError("same element type"));
  EXPECT_THAT(Infer(HloOpcode::kAdd, {S(F32, {2, 3}), S(F32, {3, 2})}),
              IsError("same dimensions"));
  // No implicit broadcast in HLO, not even of scalars or degenerate dims.
  EXPECT_THAT(Infer(HloOpcode::kMultiply, {S(F32, {2, 3}), S(F32, {})}), IsError("broadcast"));
  EXPECT_THAT(Infer(HloOpcode::kMultiply, {S(F32, {2, 3}), S(F32, {1, 3})}),
              IsError("broadcast"));
  EXPECT_THAT(Infer(HloOpcode::kSubtract, {S(PRED, {2}), S(PRED, {2})}), IsError("pred"));
  EXPECT_EQ(Infer(HloOpcode::kAnd, {S(PRED, {2}), S(PRED, {2})}), "pred[2]");
  EXPECT_THAT(Infer(HloOpcode::kXor, {S(F32, {2}), S(F32, {2})}), IsError("pred or integral"));
  EXPECT_EQ(Infer(HloOpcode::kComplex, {S(F64, {2}), S(F64, {2})}), "c128[2]");
  EXPECT_THAT(Infer(HloOpcode::kComplex, {S(F16, {2}), S(F16, {2})}), IsError("f32 or f64"));
  EXPECT_EQ(Infer(HloOpcode::kShiftLeft, {S(U32, {0}), S(U32, {0})}), "u32[0]");
}

TEST(ElementwiseTest, Compare) {
  HloInstructionProto a;
  a.set_comparison_direction("LT");
  EXPECT_EQ(Infer(HloOpcode::kCompare, {S(F32, {2}), S(F32, {2})}, a), "pred[2]");
  a.set_comparison_type("TOTALORDER");
  EXPECT_EQ(Infer(HloOpcode::kCompare, {S(F32, {2}), S(F32, {2})}, a), "pred[2]");
  a.set_comparison_direction("XX");
  EXPECT_THAT(Infer(HloOpcode::kCompare, {S(F32, {2}), S(F32, {2})}, a),
              IsError("comparison direction"));
  EXPECT_THAT(Infer(HloOpcode::kCompare, {S(F32, {2}), S(F32, {2})}),
              IsError("comparison direction"));
}

TEST(ElementwiseTest, SelectAndClamp) {
  EXPECT_EQ(Infer(HloOpcode::kSelect, {S(PRED, {3}), S(S32, {3}), S(S32, {3})}), "s32[3]");
  EXPECT_THAT(Infer(HloOpcode::kSelect, {S(S32, {3}), S(S32, {3}), S(S32, {3})}),
              IsError("pred"));
  EXPECT_THAT(Infer(HloOpcode::kSelect, {S(PRED, {}), S(S32, {3}), S(S32, {3})}),
              IsError("dimensions"));
  EXPECT_THAT(Infer(HloOpcode::kSelect, {S(PRED, {3}), S(S32, {3}), S(F32, {3})}),
              IsError("same shape"));
  EXPECT_EQ(Infer(HloOpcode::kClamp, {S(F32, {}), S(F32, {4}), S(F32, {})}), "f32[4]");
  EXPECT_EQ(Infer(HloOpcode::kClamp, {S(F32, {4}), S(F32, {4}), S(F32, {4})}), "f32[4]");
  EXPECT_THAT(Infer(HloOpcode::kClamp, {S(F32, {3}), S(F32, {4}), S(F32, {})}),
              IsError("scalars or have the operand's shape"));
  EXPECT_THAT(Infer(HloOpcode::kClamp, {S(S32, {}), S(F32, {4}), S(F32, {})}),
              IsError("element type"));
}

TEST(ElementwiseTest, ConvertNeedsDeclaredShape) {
  EXPECT_THAT(Infer(HloOpcode::kConvert, {S(F32, {2})}), IsError("must be given"));
  EXPECT_THAT(Infer(HloOpcode::kBitcastConvert, {S(F32, {2})}), IsError("must be given"));
  EXPECT_THAT(Infer(HloOpcode::kStochasticConvert, {S(F32, {2}), S(U32, {2})}),
              IsError("must be given"));
  EXPECT_THAT(Infer(HloOpcode::kStochasticConvert, {S(F32, {2}), S(U16, {2})}),
              IsError("bit width"));
}

TEST(DataMovementTest, Transpose) {
  EXPECT_EQ(Infer(HloOpcode::kTranspose, {S(F32, {2, 3, 4})}, Dims({2, 0, 1})), "f32[4,2,3]");
  EXPECT_EQ(Infer(HloOpcode::kTranspose, {Dyn(F32, {2, 3}, {0})}, Dims({1, 0})), "f32[3,<=2]");
  EXPECT_THAT(Infer(HloOpcode::kTranspose, {S(F32, {2, 3})}, Dims({0, 0})),
              IsError("not a permutation"));
  EXPECT_THAT(Infer(HloOpcode::kTranspose, {S(F32, {2, 3})}, Dims({0})),
              IsError("not a permutation"));
}

HloInstructionProto SliceAttrs(std::vector<std::array<int64_t, 3>> ranges) {
  HloInstructionProto a;
  for (auto& r : ranges) {
    auto* d = a.add_slice_dimensions();
    d->set_start(r[0]);
    d->set_limit(r[1]);
    d->set_stride(r[2]);
  }
  return a;
}

TEST(DataMovementTest, Slice) {
  EXPECT_EQ(Infer(HloOpcode::kSlice, {S(F32, {10, 8})}, SliceAttrs({{2, 9, 3}, {0, 8, 1}})),
            "f32[3,8]");
  EXPECT_EQ(Infer(HloOpcode::kSlice, {S(F32, {10})}, SliceAttrs({{4, 4, 1}})), "f32[0]");
  // A huge stride takes one element (no overflow in the size computation).
  EXPECT_EQ(Infer(HloOpcode::kSlice, {S(S32, {4, 5})},
                  SliceAttrs({{1, 4, INT64_MAX}, {0, 5, INT64_MAX}})),
            "s32[1,1]");
  EXPECT_THAT(Infer(HloOpcode::kSlice, {S(F32, {10})}, SliceAttrs({{0, 11, 1}})),
              IsError("exceeds"));
  EXPECT_THAT(Infer(HloOpcode::kSlice, {S(F32, {10})}, SliceAttrs({{5, 4, 1}})),
              IsError("greater than limit"));
  EXPECT_THAT(Infer(HloOpcode::kSlice, {S(F32, {10})}, SliceAttrs({{0, 4, 0}})),
              IsError("stride"));
  EXPECT_THAT(Infer(HloOpcode::kSlice, {S(F32, {10, 2})}, SliceAttrs({{0, 4, 1}})),
              IsError("rank"));
  // A size-1 slice of a dynamic dimension is static.
  EXPECT_EQ(Infer(HloOpcode::kSlice, {Dyn(F32, {10, 6}, {0, 1})},
                  SliceAttrs({{0, 1, 1}, {0, 6, 1}})),
            "f32[1,<=6]");
}

TEST(DataMovementTest, DynamicSliceAndUpdate) {
  HloInstructionProto a;
  a.add_dynamic_slice_sizes(2);
  a.add_dynamic_slice_sizes(3);
  EXPECT_EQ(Infer(HloOpcode::kDynamicSlice, {S(F32, {4, 5}), S(S32, {}), S(S32, {})}, a),
            "f32[2,3]");
  EXPECT_EQ(Infer(HloOpcode::kDynamicSlice, {S(F32, {4, 5}), S(S32, {2})}, a), "f32[2,3]");
  EXPECT_THAT(Infer(HloOpcode::kDynamicSlice, {S(F32, {4, 5}), S(S32, {})}, a),
              IsError("start indices"));
  EXPECT_THAT(Infer(HloOpcode::kDynamicSlice, {S(F32, {4, 5}), S(S32, {}), S(F32, {})}, a),
              IsError("integral scalar"));
  EXPECT_THAT(Infer(HloOpcode::kDynamicSlice, {S(F32, {4, 2}), S(S32, {}), S(S32, {})}, a),
              IsError("exceeds"));
  EXPECT_EQ(Infer(HloOpcode::kDynamicUpdateSlice,
                  {S(F32, {4, 5}), S(F32, {2, 5}), S(U32, {}), S(U32, {})}),
            "f32[4,5]");
  EXPECT_THAT(Infer(HloOpcode::kDynamicUpdateSlice,
                    {S(F32, {4, 5}), S(F32, {2, 6}), S(U32, {}), S(U32, {})}),
              IsError("larger"));
  EXPECT_THAT(Infer(HloOpcode::kDynamicUpdateSlice,
                    {S(F32, {4, 5}), S(S32, {2, 5}), S(U32, {}), S(U32, {})}),
              IsError("element type"));
}

TEST(DataMovementTest, Concatenate) {
  EXPECT_EQ(Infer(HloOpcode::kConcatenate, {S(F32, {2, 3}), S(F32, {2, 5})}, Dims({1})),
            "f32[2,8]");
  EXPECT_THAT(Infer(HloOpcode::kConcatenate, {S(F32, {2, 3}), S(F32, {3, 5})}, Dims({1})),
              IsError("differ in dimension 0"));
  EXPECT_THAT(Infer(HloOpcode::kConcatenate, {S(F32, {2, 3}), S(S32, {2, 5})}, Dims({1})),
              IsError("element types"));
  EXPECT_THAT(Infer(HloOpcode::kConcatenate, {S(F32, {2, 3})}, Dims({2})), IsError("out of range"));
  EXPECT_THAT(Infer(HloOpcode::kConcatenate, {S(F32, {2, 3}), S(F32, {2})}, Dims({0})),
              IsError("ranks"));
}

TEST(DataMovementTest, Pad) {
  HloInstructionProto a;
  auto* d0 = a.mutable_padding_config()->add_dimensions();
  d0->set_edge_padding_low(1);
  d0->set_edge_padding_high(2);
  d0->set_interior_padding(1);
  auto* d1 = a.mutable_padding_config()->add_dimensions();
  d1->set_edge_padding_low(-1);
  EXPECT_EQ(Infer(HloOpcode::kPad, {S(F32, {3, 4}), S(F32, {})}, a), "f32[8,3]");
  EXPECT_THAT(Infer(HloOpcode::kPad, {S(F32, {3, 4}), S(F32, {1})}, a), IsError("scalar"));
  EXPECT_THAT(Infer(HloOpcode::kPad, {S(F32, {3}), S(F32, {})}, a), IsError("rank"));
  d1->set_edge_padding_low(-5);
  EXPECT_THAT(Infer(HloOpcode::kPad, {S(F32, {3, 4}), S(F32, {})}, a), IsError("negative"));
}

TEST(DataMovementTest, ReverseTupleGte) {
  EXPECT_EQ(Infer(HloOpcode::kReverse, {S(F32, {3, 4})}, Dims({1})), "f32[3,4]");
  EXPECT_THAT(Infer(HloOpcode::kReverse, {S(F32, {3, 4})}, Dims({2})), IsError("out of range"));
  EXPECT_THAT(Infer(HloOpcode::kReverse, {S(F32, {3, 4})}, Dims({1, 1})), IsError("repeat"));
  EXPECT_EQ(Infer(HloOpcode::kTuple, {S(F32, {}), Tok()}), "(f32[], token[])");
  EXPECT_EQ(Infer(HloOpcode::kTuple, {}), "()");
  HloInstructionProto gte;
  gte.set_tuple_index(1);
  EXPECT_EQ(Infer(HloOpcode::kGetTupleElement, {T({S(F32, {}), S(S8, {2})})}, gte), "s8[2]");
  gte.set_tuple_index(2);
  EXPECT_THAT(Infer(HloOpcode::kGetTupleElement, {T({S(F32, {}), S(S8, {2})})}, gte),
              IsError("out of range"));
  EXPECT_THAT(Infer(HloOpcode::kGetTupleElement, {S(F32, {})}, gte), IsError("tuple"));
}

TEST(DataMovementTest, ShapeMustBeGiven) {
  EXPECT_THAT(Infer(HloOpcode::kBroadcast, {S(F32, {3})}, Dims({0})), IsError("must be given"));
  EXPECT_THAT(Infer(HloOpcode::kReshape, {S(F32, {3})}), IsError("must be given"));
  EXPECT_THAT(Infer(HloOpcode::kIota, {}, Dims({0})), IsError("must be given"));
  EXPECT_THAT(Infer(HloOpcode::kBitcast, {S(F32, {3})}), IsError("must be given"));
  EXPECT_THAT(Infer(HloOpcode::kParameter, {}), IsError("must be given"));
  EXPECT_THAT(Infer(HloOpcode::kConstant, {}), IsError("must be given"));
  EXPECT_THAT(Infer(HloOpcode::kCustomCall, {S(F32, {3})}), IsError("must be given"));
}

TEST(DataMovementTest, DimensionSize) {
  EXPECT_EQ(Infer(HloOpcode::kGetDimensionSize, {S(F32, {3, 4})}, Dims({1})), "s32[]");
  EXPECT_THAT(Infer(HloOpcode::kGetDimensionSize, {S(F32, {3, 4})}, Dims({2})),
              IsError("out of range"));
  EXPECT_EQ(Infer(HloOpcode::kSetDimensionSize, {S(F32, {3, 4}), S(S32, {})}, Dims({1})),
            "f32[3,<=4]");
  EXPECT_THAT(Infer(HloOpcode::kSetDimensionSize, {S(F32, {3, 4}), S(S64, {})}, Dims({1})),
              IsError("s32 scalar"));
}

TEST(MiscTest, SimpleOps) {
  EXPECT_EQ(Infer(HloOpcode::kReplicaId, {}), "u32[]");
  EXPECT_EQ(Infer(HloOpcode::kPartitionId, {}), "u32[]");
  EXPECT_EQ(Infer(HloOpcode::kRngGetAndUpdateState, {}), "u64[2]");
  EXPECT_EQ(Infer(HloOpcode::kCopyStart, {S(F32, {2})}), "(f32[2], f32[2], u32[])");
  EXPECT_EQ(Infer(HloOpcode::kCopyDone, {T({S(F32, {2}), S(F32, {2}), S(U32, {})})}), "f32[2]");
  EXPECT_EQ(Infer(HloOpcode::kOptBarrier, {T({S(F32, {2}), Tok()})}), "(f32[2], token[])");
  EXPECT_EQ(Infer(HloOpcode::kDomain, {S(F32, {2})}), "f32[2]");
  HloInstructionProto a;
  a.set_distribution(RNG_NORMAL);
  EXPECT_THAT(Infer(HloOpcode::kRng, {S(S32, {}), S(S32, {})}, a), IsError("floating-point"));
  EXPECT_THAT(Infer(HloOpcode::kRng, {S(F32, {}), S(F32, {})}, a), IsError("must be given"));
}

TEST(MiscTest, ConstantFromLiteralProto) {
  HloInstructionProto a;
  *a.mutable_literal()->mutable_shape() = S(F32, {2, 2}).ToProto();
  EXPECT_EQ(Infer(HloOpcode::kConstant, {}, a), "f32[2,2]");
}

}  // namespace
}  // namespace testing_si
}  // namespace xla
