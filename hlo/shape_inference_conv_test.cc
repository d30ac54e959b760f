// Convolution, dot, ragged-dot, scaled-dot, gather and scatter.

#include "hlo/shape_inference.h"

#include <array>
#include "hlo/shape_inference_test_util.h"

namespace xla {
namespace testing_si {
namespace {

HloInstructionProto DotAttrs(std::vector<int64_t> lc, std::vector<int64_t> rc,
                             std::vector<int64_t> lb = {}, std::vector<int64_t> rb = {}) {
  HloInstructionProto a;
  auto* d = a.mutable_dot_dimension_numbers();
  for (auto v : lc) d->add_lhs_contracting_dimensions(v);
  for (auto v : rc) d->add_rhs_contracting_dimensions(v);
  for (auto v : lb) d->add_lhs_batch_dimensions(v);
  for (auto v : rb) d->add_rhs_batch_dimensions(v);
  return a;
}

TEST(DotTest, Basic) {
  EXPECT_EQ(Infer(HloOpcode::kDot, {S(F32, {2, 3}), S(F32, {3, 4})}, DotAttrs({1}, {0})),
            "f32[2,4]");
  EXPECT_EQ(Infer(HloOpcode::kDot, {S(F32, {5, 2, 3}), S(F32, {5, 4, 3})},
                  DotAttrs({2}, {2}, {0}, {0})),
            "f32[5,2,4]");
  EXPECT_EQ(Infer(HloOpcode::kDot, {S(F32, {3}), S(F32, {3})}, DotAttrs({0}, {0})), "f32[]");
  // Outer product: no contracting dims.
  EXPECT_EQ(Infer(HloOpcode::kDot, {S(F32, {2}), S(F32, {3})}, DotAttrs({}, {})), "f32[2,3]");
  // Mixed float precision picks the wider type.
  EXPECT_EQ(Infer(HloOpcode::kDot, {S(BF16, {2, 3}), S(F32, {3, 4})}, DotAttrs({1}, {0})),
            "f32[2,4]");
  EXPECT_EQ(Infer(HloOpcode::kDot, {Dyn(F32, {2, 3}, {0}), S(F32, {3, 4})}, DotAttrs({1}, {0})),
            "f32[<=2,4]");
}

TEST(DotTest, Errors) {
  EXPECT_THAT(Infer(HloOpcode::kDot, {S(F32, {2, 3}), S(F32, {4, 4})}, DotAttrs({1}, {0})),
              IsError("contracting dimension sizes differ"));
  EXPECT_THAT(Infer(HloOpcode::kDot, {S(F32, {2, 3}), S(F32, {3, 4})}, DotAttrs({2}, {0})),
              IsError("out of range"));
  EXPECT_THAT(Infer(HloOpcode::kDot, {S(F32, {2, 3}), S(F32, {3, 4})}, DotAttrs({1, 1}, {0, 0})),
              IsError("repeats"));
  EXPECT_THAT(Infer(HloOpcode::kDot, {S(F32, {2, 3}), S(F32, {3, 4})}, DotAttrs({1}, {})),
              IsError("same number of contracting"));
  EXPECT_THAT(Infer(HloOpcode::kDot, {S(F32, {5, 2, 3}), S(F32, {6, 3, 4})},
                    DotAttrs({2}, {1}, {0}, {0})),
              IsError("batch dimension sizes differ"));
  EXPECT_THAT(Infer(HloOpcode::kDot, {S(F32, {2, 3}), S(S32, {3, 4})}, DotAttrs({1}, {0})),
              IsError("compatible element types"));
}

TEST(RaggedDotTest, Modes) {
  HloInstructionProto a;
  auto* r = a.mutable_ragged_dot_dimension_numbers();
  *r->mutable_dot_dimension_numbers() = DotAttrs({1}, {1}).dot_dimension_numbers();
  r->add_lhs_ragged_dimensions(0);
  r->add_rhs_group_dimensions(0);
  // Non-contracting: [m,k] x [g,k,n] -> [m,n].
  EXPECT_EQ(Infer(HloOpcode::kRaggedDot, {S(F32, {11, 5}), S(F32, {3, 5, 7}), S(S64, {3})}, a),
            "f32[11,7]");
  EXPECT_THAT(Infer(HloOpcode::kRaggedDot, {S(F32, {11, 5}), S(F32, {4, 5, 7}), S(S64, {3})}, a),
              IsError("groups"));
  // Contracting: [m,k] x [k,n] -> [g,m,n].
  HloInstructionProto c;
  auto* rc = c.mutable_ragged_dot_dimension_numbers();
  *rc->mutable_dot_dimension_numbers() = DotAttrs({1}, {0}).dot_dimension_numbers();
  rc->add_lhs_ragged_dimensions(1);
  EXPECT_EQ(Infer(HloOpcode::kRaggedDot, {S(F32, {11, 5}), S(F32, {5, 7}), S(S32, {3})}, c),
            "f32[3,11,7]");
  EXPECT_THAT(Infer(HloOpcode::kRaggedDot, {S(F32, {11, 5}), S(F32, {5, 7}), S(F32, {3})}, c),
              IsError("integral"));
}

TEST(ScaledDotTest, Basic) {
  HloInstructionProto a = DotAttrs({1}, {0});
  EXPECT_EQ(Infer(HloOpcode::kScaledDot,
                  {S(F8E4M3FN, {4, 64}), S(F8E4M3FN, {64, 8}), S(F8E8M0FNU, {4, 2}),
                   S(F8E8M0FNU, {2, 8})},
                  a),
            "f8e4m3fn[4,8]");
  EXPECT_THAT(Infer(HloOpcode::kScaledDot,
                    {S(F8E4M3FN, {4, 64}), S(F8E4M3FN, {64, 8}), S(F8E8M0FNU, {4, 3}),
                     S(F8E8M0FNU, {2, 8})},
                    a),
              IsError("divide"));
}

HloInstructionProto ConvAttrs2D(std::vector<std::array<int64_t, 4>> window /*size,stride,lo,hi*/) {
  HloInstructionProto a;
  // b01f_01io->b01f
  auto* d = a.mutable_convolution_dimension_numbers();
  d->set_input_batch_dimension(0);
  d->add_input_spatial_dimensions(1);
  d->add_input_spatial_dimensions(2);
  d->set_input_feature_dimension(3);
  d->add_kernel_spatial_dimensions(0);
  d->add_kernel_spatial_dimensions(1);
  d->set_kernel_input_feature_dimension(2);
  d->set_kernel_output_feature_dimension(3);
  d->set_output_batch_dimension(0);
  d->add_output_spatial_dimensions(1);
  d->add_output_spatial_dimensions(2);
  d->set_output_feature_dimension(3);
  for (auto& w : window) {
    auto* wd = a.mutable_window()->add_dimensions();
    wd->set_size(w[0]);
    wd->set_stride(w[1]);
    wd->set_padding_low(w[2]);
    wd->set_padding_high(w[3]);
    wd->set_window_dilation(1);
    wd->set_base_dilation(1);
  }
  return a;
}

TEST(ConvolutionTest, Basic) {
  HloInstructionProto a = ConvAttrs2D({{3, 1, 1, 1}, {3, 2, 0, 0}});
  EXPECT_EQ(Infer(HloOpcode::kConvolution, {S(F32, {8, 10, 11, 4}), S(F32, {3, 3, 4, 16})}, a),
            "f32[8,10,5,16]");
  a.set_feature_group_count(2);
  EXPECT_EQ(Infer(HloOpcode::kConvolution, {S(F32, {8, 10, 11, 4}), S(F32, {3, 3, 2, 16})}, a),
            "f32[8,10,5,16]");
  EXPECT_THAT(Infer(HloOpcode::kConvolution, {S(F32, {8, 10, 11, 4}), S(F32, {3, 3, 4, 16})}, a),
              IsError("feature_group_count"));
  a.set_feature_group_count(1);
  a.set_batch_group_count(2);
  EXPECT_EQ(Infer(HloOpcode::kConvolution, {S(F32, {8, 10, 11, 4}), S(F32, {3, 3, 4, 16})}, a),
            "f32[4,10,5,16]");
}

TEST(ConvolutionTest, Errors) {
  HloInstructionProto a = ConvAttrs2D({{3, 1, 0, 0}, {3, 1, 0, 0}});
  EXPECT_THAT(Infer(HloOpcode::kConvolution, {S(F32, {8, 10, 4}), S(F32, {3, 3, 4, 16})}, a),
              IsError("rank 4"));
  EXPECT_THAT(Infer(HloOpcode::kConvolution, {S(F32, {8, 10, 11, 4}), S(F32, {2, 3, 4, 16})}, a),
              IsError("does not match the kernel"));
  HloInstructionProto bad_stride = ConvAttrs2D({{3, 0, 0, 0}, {3, 1, 0, 0}});
  EXPECT_THAT(Infer(HloOpcode::kConvolution, {S(F32, {8, 10, 11, 4}), S(F32, {3, 3, 4, 16})},
                    bad_stride),
              IsError("stride"));
  HloInstructionProto bad_dnums = a;
  bad_dnums.mutable_convolution_dimension_numbers()->set_input_feature_dimension(0);
  EXPECT_THAT(Infer(HloOpcode::kConvolution, {S(F32, {8, 10, 11, 4}), S(F32, {3, 3, 4, 16})},
                    bad_dnums),
              IsError("exactly once"));
  HloInstructionProto short_window = ConvAttrs2D({{3, 1, 0, 0}});
  EXPECT_THAT(Infer(HloOpcode::kConvolution, {S(F32, {8, 10, 11, 4}), S(F32, {3, 3, 4, 16})},
                    short_window),
              IsError("window has 1 dimensions"));
}

HloInstructionProto GatherAttrs(std::vector<int64_t> offset, std::vector<int64_t> collapsed,
                                std::vector<int64_t> start_map, int64_t ivd,
                                std::vector<int64_t> slice_sizes) {
  HloInstructionProto a;
  auto* g = a.mutable_gather_dimension_numbers();
  for (auto v : offset) g->add_offset_dims(v);
  for (auto v : collapsed) g->add_collapsed_slice_dims(v);
  for (auto v : start_map) g->add_start_index_map(v);
  g->set_index_vector_dim(ivd);
  for (auto v : slice_sizes) a.add_gather_slice_sizes(v);
  return a;
}

TEST(GatherTest, Basic) {
  // Row gather: operand [5,7], indices [3,1] -> [3,7].
  EXPECT_EQ(Infer(HloOpcode::kGather, {S(F32, {5, 7}), S(S32, {3, 1})},
                  GatherAttrs({1}, {0}, {0}, 1, {1, 7})),
            "f32[3,7]");
  // Implicit index vector dim.
  EXPECT_EQ(Infer(HloOpcode::kGather, {S(F32, {5, 7}), S(S32, {3})},
                  GatherAttrs({1}, {0}, {0}, 1, {1, 7})),
            "f32[3,7]");
  // Batching dims: operand [2,5,7], indices [2,3,1].
  HloInstructionProto b = GatherAttrs({2}, {1}, {1}, 2, {1, 1, 7});
  b.mutable_gather_dimension_numbers()->add_operand_batching_dims(0);
  b.mutable_gather_dimension_numbers()->add_start_indices_batching_dims(0);
  EXPECT_EQ(Infer(HloOpcode::kGather, {S(F32, {2, 5, 7}), S(S32, {2, 3, 1})}, b), "f32[2,3,7]");
}

TEST(GatherTest, Errors) {
  EXPECT_THAT(Infer(HloOpcode::kGather, {S(F32, {5, 7}), S(F32, {3, 1})},
                    GatherAttrs({1}, {0}, {0}, 1, {1, 7})),
              IsError("integral"));
  EXPECT_THAT(Infer(HloOpcode::kGather, {S(F32, {5, 7}), S(S32, {3, 1})},
                    GatherAttrs({1}, {0}, {0}, 3, {1, 7})),
              IsError("index_vector_dim"));
  EXPECT_THAT(Infer(HloOpcode::kGather, {S(F32, {5, 7}), S(S32, {3, 1})},
                    GatherAttrs({1}, {0}, {0}, 1, {2, 7})),
              IsError("slice size <= 1"));
  EXPECT_THAT(Infer(HloOpcode::kGather, {S(F32, {5, 7}), S(S32, {3, 1})},
                    GatherAttrs({1}, {0}, {0}, 1, {1, 8})),
              IsError("out of range"));
  EXPECT_THAT(Infer(HloOpcode::kGather, {S(F32, {5, 7}), S(S32, {3, 2})},
                    GatherAttrs({1}, {0}, {0}, 1, {1, 7})),
              IsError("start_index_map"));
  EXPECT_THAT(Infer(HloOpcode::kGather, {S(F32, {5, 7}), S(S32, {3, 1})},
                    GatherAttrs({1}, {}, {0}, 1, {1, 7})),
              IsError("every operand dimension"));
}

HloInstructionProto ScatterAttrs(std::vector<int64_t> window, std::vector<int64_t> inserted,
                                 std::vector<int64_t> to_operand, int64_t ivd) {
  HloInstructionProto a;
  auto* s = a.mutable_scatter_dimension_numbers();
  for (auto v : window) s->add_update_window_dims(v);
  for (auto v : inserted) s->add_inserted_window_dims(v);
  for (auto v : to_operand) s->add_scatter_dims_to_operand_dims(v);
  s->set_index_vector_dim(ivd);
  return a;
}

TEST(ScatterTest, Basic) {
  ProgramShape add = Prog({S(F32, {}), S(F32, {})}, S(F32, {}));
  HloInstructionProto a = ScatterAttrs({1}, {0}, {0}, 1);
  EXPECT_EQ(Infer(HloOpcode::kScatter, {S(F32, {5, 7}), S(S32, {3, 1}), S(F32, {3, 7})}, a,
                  {add}),
            "f32[5,7]");
  EXPECT_THAT(Infer(HloOpcode::kScatter, {S(F32, {5, 7}), S(S32, {3, 1}), S(F32, {4, 7})}, a,
                    {add}),
              IsError("scatter dimension"));
  EXPECT_THAT(Infer(HloOpcode::kScatter, {S(F32, {5, 7}), S(S32, {3, 1}), S(F32, {3, 8})}, a,
                    {add}),
              IsError("exceeds"));
  EXPECT_THAT(Infer(HloOpcode::kScatter, {S(F32, {5, 7}), S(S32, {3, 1}), S(F32, {3, 7})}, a,
                    {Prog({S(F32, {}), S(F32, {})}, S(S32, {}))}),
              IsError("reduction computation"));
  // Two operands: tuple result and a tuple-returning combiner.
  ProgramShape add2 = Prog({S(F32, {}), S(S32, {}), S(F32, {}), S(S32, {})},
                           T({S(F32, {}), S(S32, {})}));
  EXPECT_EQ(Infer(HloOpcode::kScatter,
                  {S(F32, {5, 7}), S(S32, {5, 7}), S(S32, {3, 1}), S(F32, {3, 7}), S(S32, {3, 7})},
                  a, {add2}),
            "(f32[5,7], s32[5,7])");
  EXPECT_THAT(Infer(HloOpcode::kScatter, {S(F32, {5, 7}), S(S32, {3, 1})}, a, {add}),
              IsError("2N+1"));
}

}  // namespace
}  // namespace testing_si
}  // namespace xla
