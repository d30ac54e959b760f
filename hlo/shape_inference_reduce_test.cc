// Reductions, sort/topk/map, control flow, collectives and linear algebra.

#include "hlo/shape_inference.h"

#include <array>

#include "hlo/shape_inference_test_util.h"

namespace xla {
namespace testing_si {
namespace {

ProgramShape Binary(PrimitiveType t) { return Prog({S(t, {}), S(t, {})}, S(t, {})); }

TEST(ReduceTest, Basic) {
  EXPECT_EQ(Infer(HloOpcode::kReduce, {S(F32, {2, 3, 4}), S(F32, {})}, Dims({1}), {Binary(F32)}),
            "f32[2,4]");
  EXPECT_EQ(Infer(HloOpcode::kReduce, {Dyn(F32, {2, 3}, {0}), S(F32, {})}, Dims({1}),
                  {Binary(F32)}),
            "f32[<=2]");
  // Variadic reduce returns a tuple.
  ProgramShape argmax = Prog({S(F32, {}), S(S32, {}), S(F32, {}), S(S32, {})},
                             T({S(F32, {}), S(S32, {})}));
  EXPECT_EQ(Infer(HloOpcode::kReduce, {S(F32, {5, 6}), S(S32, {5, 6}), S(F32, {}), S(S32, {})},
                  Dims({0}), {argmax}),
            "(f32[6], s32[6])");
}

TEST(ReduceTest, Errors) {
  EXPECT_THAT(Infer(HloOpcode::kReduce, {S(F32, {2, 3}), S(F32, {})}, Dims({2}), {Binary(F32)}),
              IsError("out of range"));
  EXPECT_THAT(Infer(HloOpcode::kReduce, {S(F32, {2, 3}), S(F32, {})}, Dims({1, 1}),
                    {Binary(F32)}),
              IsError("repeat"));
  EXPECT_THAT(Infer(HloOpcode::kReduce, {S(F32, {2, 3}), S(F32, {})}, Dims({1}), {Binary(S32)}),
              IsError("reduction computation"));
  EXPECT_THAT(Infer(HloOpcode::kReduce, {S(F32, {2, 3}), S(F32, {})}, Dims({1}),
                    {Prog({S(F32, {})}, S(F32, {}))}),
              IsError("must take 2 parameters"));
  EXPECT_THAT(Infer(HloOpcode::kReduce, {S(F32, {2, 3}), S(F32, {1})}, Dims({1}), {Binary(F32)}),
              IsError("scalar"));
  EXPECT_THAT(Infer(HloOpcode::kReduce, {S(F32, {2, 3}), S(F32, {}), S(F32, {})}, Dims({1}),
                    {Binary(F32)}),
              IsError("even number"));
  EXPECT_THAT(Infer(HloOpcode::kReduce, {S(F32, {2, 3}), S(F32, {})}, Dims({1})),
              IsError("called computation"));
}

HloInstructionProto WindowAttrs(std::vector<std::array<int64_t, 4>> dims /*size,stride,lo,hi*/) {
  HloInstructionProto a;
  for (auto& w : dims) {
    auto* d = a.mutable_window()->add_dimensions();
    d->set_size(w[0]);
    d->set_stride(w[1]);
    d->set_padding_low(w[2]);
    d->set_padding_high(w[3]);
    d->set_window_dilation(1);
    d->set_base_dilation(1);
  }
  return a;
}

TEST(ReduceWindowTest, Basic) {
  HloInstructionProto a = WindowAttrs({{2, 2, 0, 0}, {3, 1, 1, 1}});
  EXPECT_EQ(Infer(HloOpcode::kReduceWindow, {S(F32, {4, 5}), S(F32, {})}, a, {Binary(F32)}),
            "f32[2,5]");
  EXPECT_THAT(Infer(HloOpcode::kReduceWindow, {S(F32, {4, 5, 6}), S(F32, {})}, a, {Binary(F32)}),
              IsError("window has 2 dimensions"));
  HloInstructionProto bad = WindowAttrs({{0, 1, 0, 0}, {1, 1, 0, 0}});
  EXPECT_THAT(Infer(HloOpcode::kReduceWindow, {S(F32, {4, 5}), S(F32, {})}, bad, {Binary(F32)}),
              IsError("non-positive size"));
  // Window bigger than the base: zero outputs.
  HloInstructionProto big = WindowAttrs({{9, 1, 0, 0}, {1, 1, 0, 0}});
  EXPECT_EQ(Infer(HloOpcode::kReduceWindow, {S(F32, {4, 5}), S(F32, {})}, big, {Binary(F32)}),
            "f32[0,5]");
}

TEST(SelectAndScatterTest, Basic) {
  HloInstructionProto a = WindowAttrs({{2, 2, 0, 0}});
  ProgramShape select = Prog({S(F32, {}), S(F32, {})}, S(PRED, {}));
  EXPECT_EQ(Infer(HloOpcode::kSelectAndScatter, {S(F32, {4}), S(F32, {2}), S(F32, {})}, a,
                  {select, Binary(F32)}),
            "f32[4]");
  EXPECT_THAT(Infer(HloOpcode::kSelectAndScatter, {S(F32, {4}), S(F32, {3}), S(F32, {})}, a,
                    {select, Binary(F32)}),
              IsError("window-reduced"));
  EXPECT_THAT(Infer(HloOpcode::kSelectAndScatter, {S(F32, {4}), S(F32, {2}), S(F32, {})}, a,
                    {Binary(F32), Binary(F32)}),
              IsError("pred[]"));
}

TEST(MapSortTopKTest, Map) {
  EXPECT_EQ(Infer(HloOpcode::kMap, {S(F32, {2, 3}), S(F32, {2, 3})}, Dims({0, 1}), {Binary(F32)}),
            "f32[2,3]");
  EXPECT_EQ(Infer(HloOpcode::kMap, {S(S32, {4})}, Dims({0}),
                  {Prog({S(S32, {})}, S(PRED, {}))}),
            "pred[4]");
  EXPECT_THAT(Infer(HloOpcode::kMap, {S(F32, {2, 3}), S(F32, {3, 2})}, Dims({0, 1}),
                    {Binary(F32)}),
              IsError("same dimensions"));
  EXPECT_THAT(Infer(HloOpcode::kMap, {S(F32, {2, 3})}, Dims({0, 1}), {Binary(F32)}),
              IsError("parameters"));
  EXPECT_THAT(Infer(HloOpcode::kMap, {S(F32, {2, 3})}, Dims({1}),
                    {Prog({S(F32, {})}, S(F32, {}))}),
              IsError("all dimensions"));
}

TEST(MapSortTopKTest, Sort) {
  ProgramShape lt = Prog({S(F32, {}), S(F32, {})}, S(PRED, {}));
  EXPECT_EQ(Infer(HloOpcode::kSort, {S(F32, {3, 4})}, Dims({1}), {lt}), "f32[3,4]");
  ProgramShape lt2 = Prog({S(F32, {}), S(F32, {}), S(S32, {}), S(S32, {})}, S(PRED, {}));
  EXPECT_EQ(Infer(HloOpcode::kSort, {S(F32, {3, 4}), S(S32, {3, 4})}, Dims({0}), {lt2}),
            "(f32[3,4], s32[3,4])");
  EXPECT_THAT(Infer(HloOpcode::kSort, {S(F32, {3, 4}), S(S32, {3, 5})}, Dims({0}), {lt2}),
              IsError("same dimensions"));
  EXPECT_THAT(Infer(HloOpcode::kSort, {S(F32, {3, 4})}, Dims({2}), {lt}), IsError("out of range"));
  EXPECT_THAT(Infer(HloOpcode::kSort, {S(F32, {3, 4})}, Dims({0}), {Binary(F32)}),
              IsError("pred[]"));
  EXPECT_THAT(Infer(HloOpcode::kSort, {S(F32, {3, 4})}, Dims({0}), {lt2}),
              IsError("must take 2 parameters"));
}

TEST(MapSortTopKTest, TopK) {
  HloInstructionProto a;
  a.set_k(2);
  EXPECT_EQ(Infer(HloOpcode::kTopk, {S(F32, {4, 10})}, a), "(f32[4,2], s32[4,2])");
  a.set_k(11);
  EXPECT_THAT(Infer(HloOpcode::kTopk, {S(F32, {4, 10})}, a), IsError("k=11"));
  EXPECT_THAT(Infer(HloOpcode::kTopk, {S(F32, {})}, a), IsError("rank"));
}

TEST(ControlTest, CallWhileConditional) {
  ProgramShape f = Prog({S(F32, {2}), S(S32, {})}, T({S(F32, {2})}));
  EXPECT_EQ(Infer(HloOpcode::kCall, {S(F32, {2}), S(S32, {})}, {}, {f}), "(f32[2])");
  EXPECT_THAT(Infer(HloOpcode::kCall, {S(F32, {2})}, {}, {f}), IsError("takes 2 parameters"));
  EXPECT_THAT(Infer(HloOpcode::kCall, {S(F32, {3}), S(S32, {})}, {}, {f}), IsError("parameter 0"));
  EXPECT_EQ(Infer(HloOpcode::kFusion, {S(F32, {2}), S(S32, {})}, {}, {f}), "(f32[2])");

  Shape state = T({S(S32, {}), S(F32, {4})});
  ProgramShape cond = Prog({state}, S(PRED, {}));
  ProgramShape body = Prog({state}, state);
  // Called computations in XLA's order: {body, condition}.
  EXPECT_EQ(Infer(HloOpcode::kWhile, {state}, {}, {body, cond}), "(s32[], f32[4])");
  EXPECT_THAT(Infer(HloOpcode::kWhile, {state}, {}, {body, Prog({state}, S(S32, {}))}),
              IsError("pred[]"));
  EXPECT_THAT(Infer(HloOpcode::kWhile, {state}, {}, {Prog({state}, S(S32, {})), cond}),
              IsError("same shape"));

  ProgramShape b0 = Prog({S(F32, {})}, S(F32, {3}));
  ProgramShape b1 = Prog({S(S32, {})}, S(F32, {3}));
  EXPECT_EQ(Infer(HloOpcode::kConditional, {S(PRED, {}), S(F32, {}), S(S32, {})}, {}, {b0, b1}),
            "f32[3]");
  EXPECT_EQ(Infer(HloOpcode::kConditional, {S(S32, {}), S(F32, {}), S(S32, {})}, {}, {b0, b1}),
            "f32[3]");
  EXPECT_THAT(Infer(HloOpcode::kConditional, {S(F32, {}), S(F32, {}), S(S32, {})}, {}, {b0, b1}),
              IsError("branch index"));
  EXPECT_THAT(Infer(HloOpcode::kConditional, {S(PRED, {}), S(F32, {}), S(F32, {})}, {}, {b0, b1}),
              IsError("branch 1 takes"));
  EXPECT_THAT(Infer(HloOpcode::kConditional, {S(PRED, {}), S(F32, {}), S(S32, {})}, {},
                    {b0, Prog({S(S32, {})}, S(F32, {4}))}),
              IsError("branch 1 returns"));
}

TEST(ControlTest, Async) {
  ProgramShape f = Prog({S(F32, {10})}, S(F32, {20}));
  EXPECT_EQ(Infer(HloOpcode::kAsyncStart, {S(F32, {10})}, {}, {f}), "((f32[10]), f32[20], s32[])");
  Shape start = T({T({S(F32, {10})}), S(F32, {20}), S(S32, {})});
  EXPECT_EQ(Infer(HloOpcode::kAsyncUpdate, {start}), "((f32[10]), f32[20], s32[])");
  EXPECT_EQ(Infer(HloOpcode::kAsyncDone, {start}), "f32[20]");
  EXPECT_THAT(Infer(HloOpcode::kAsyncDone, {S(F32, {})}), IsError("async tuple"));
}

HloInstructionProto Groups(std::vector<std::vector<int64_t>> groups, std::vector<int64_t> dims) {
  HloInstructionProto a = Dims(std::move(dims));
  for (auto& g : groups) {
    auto* rg = a.mutable_collective_device_list()->add_replica_groups();
    for (auto id : g) rg->add_replica_ids(id);
  }
  return a;
}

TEST(CollectivesTest, AllReduceAllGatherReduceScatter) {
  EXPECT_EQ(Infer(HloOpcode::kAllReduce, {S(F32, {8})}, {}, {Binary(F32)}), "f32[8]");
  EXPECT_EQ(Infer(HloOpcode::kAllReduce, {S(F32, {8}), S(S32, {})}, {}, {Binary(F32)}),
            "(f32[8], s32[])");
  EXPECT_THAT(Infer(HloOpcode::kAllReduce, {T({S(F32, {8})})}, {}, {Binary(F32)}),
              IsError("array"));
  EXPECT_EQ(Infer(HloOpcode::kAllGather, {S(F32, {128, 32})}, Groups({{0, 2, 4, 6}, {1, 3, 5, 7}}, {1})),
            "f32[128,128]");
  EXPECT_THAT(Infer(HloOpcode::kAllGather, {S(F32, {128, 32})}, Dims({1})),
              IsError("must be given"));
  EXPECT_THAT(Infer(HloOpcode::kAllGather, {S(F32, {128, 32})}, Groups({{0, 1}}, {2})),
              IsError("out of range"));
  EXPECT_EQ(Infer(HloOpcode::kAllGatherStart, {S(F32, {128, 32})}, Groups({{0, 1, 2, 3}}, {1})),
            "(f32[128,32], f32[128,128])");
  EXPECT_EQ(Infer(HloOpcode::kAllGatherDone, {T({S(F32, {128, 32}), S(F32, {128, 128})})}),
            "f32[128,128]");
  EXPECT_EQ(Infer(HloOpcode::kReduceScatter, {S(F32, {8, 4})}, Groups({{0, 1}}, {0}),
                  {Binary(F32)}),
            "f32[4,4]");
  EXPECT_THAT(Infer(HloOpcode::kReduceScatter, {S(F32, {7, 4})}, Groups({{0, 1}}, {0}),
                    {Binary(F32)}),
              IsError("divisible"));
}

TEST(CollectivesTest, IotaReplicaGroups) {
  HloInstructionProto a = Dims({0});
  auto* iota = a.mutable_collective_device_list()->mutable_iota_replica_group_list();
  iota->set_num_replica_groups(2);
  iota->set_num_devices_per_group(4);
  iota->add_iota_reshape_dims(4);
  iota->add_iota_reshape_dims(2);
  iota->add_iota_transpose_perm(1);
  iota->add_iota_transpose_perm(0);
  EXPECT_EQ(Infer(HloOpcode::kAllGather, {S(F32, {3, 5})}, a), "f32[12,5]");
}

TEST(CollectivesTest, AllToAllAndPermute) {
  EXPECT_EQ(Infer(HloOpcode::kAllToAll, {S(F32, {128, 32})}, Groups({{0, 1}}, {0})),
            "f32[128,32]");
  EXPECT_THAT(Infer(HloOpcode::kAllToAll, {S(F32, {127, 32})}, Groups({{0, 1}}, {0})),
              IsError("divisible"));
  EXPECT_EQ(Infer(HloOpcode::kAllToAll, {S(F32, {128, 32}), S(F32, {128, 4})}),
            "(f32[128,32], f32[128,4])");
  EXPECT_EQ(Infer(HloOpcode::kCollectivePermute, {S(F32, {4})}), "f32[4]");
  EXPECT_EQ(Infer(HloOpcode::kCollectivePermuteStart, {S(F32, {4})}),
            "(f32[4], f32[4], u32[], u32[])");
  EXPECT_EQ(Infer(HloOpcode::kCollectivePermuteDone, {T({S(F32, {4}), S(F32, {4}), S(U32, {}),
                                                        S(U32, {})})}),
            "f32[4]");
  EXPECT_EQ(Infer(HloOpcode::kCollectiveBroadcast, {S(F32, {4})}), "f32[4]");
  EXPECT_EQ(Infer(HloOpcode::kRaggedAllToAll, {S(F32, {6}), S(F32, {8}), S(S32, {2}), S(S32, {2}),
                                               S(S32, {2}), S(S32, {2})}),
            "f32[8]");
  EXPECT_THAT(Infer(HloOpcode::kRaggedAllToAll, {S(F32, {6}), S(F32, {8}), S(S32, {2}),
                                                 S(S32, {3}), S(S32, {2}), S(S32, {2})}),
              IsError("same shape"));
}

TEST(CollectivesTest, SendRecvInfeedOutfeedTokens) {
  EXPECT_EQ(Infer(HloOpcode::kSend, {S(F32, {2}), Tok()}), "(f32[2], u32[], token[])");
  EXPECT_THAT(Infer(HloOpcode::kSend, {S(F32, {2}), S(F32, {})}), IsError("token"));
  EXPECT_EQ(Infer(HloOpcode::kSendDone, {T({S(F32, {2}), S(U32, {}), Tok()})}), "token[]");
  EXPECT_THAT(Infer(HloOpcode::kRecv, {Tok()}), IsError("must be given"));
  EXPECT_EQ(Infer(HloOpcode::kRecvDone, {T({S(F32, {2}), S(U32, {}), Tok()})}),
            "(f32[2], token[])");
  EXPECT_THAT(Infer(HloOpcode::kInfeed, {Tok()}), IsError("must be given"));
  EXPECT_EQ(Infer(HloOpcode::kOutfeed, {S(F32, {2}), Tok()}), "token[]");
  HloInstructionProto a;
  *a.mutable_outfeed_shape() = S(F32, {3}).ToProto();
  EXPECT_THAT(Infer(HloOpcode::kOutfeed, {S(F32, {2}), Tok()}, a), IsError("outfeed_shape"));
  EXPECT_EQ(Infer(HloOpcode::kAfterAll, {Tok(), Tok()}), "token[]");
  EXPECT_EQ(Infer(HloOpcode::kAfterAll, {}), "token[]");
  EXPECT_EQ(Infer(HloOpcode::kAfterAll, {S(F32, {})}), "token[]");  // HLO allows any operand
  EXPECT_EQ(Infer(HloOpcode::kAddDependency, {S(F32, {2}), Tok()}), "f32[2]");
}

TEST(LinalgTest, CholeskyTriangularSolve) {
  EXPECT_EQ(Infer(HloOpcode::kCholesky, {S(F32, {2, 4, 4})}), "f32[2,4,4]");
  EXPECT_THAT(Infer(HloOpcode::kCholesky, {S(F32, {4, 3})}), IsError("minor dimensions"));
  EXPECT_THAT(Infer(HloOpcode::kCholesky, {S(S32, {4, 4})}), IsError("floating-point"));
  HloInstructionProto a;
  a.mutable_triangular_solve_options()->set_left_side(true);
  a.mutable_triangular_solve_options()->set_transpose_a(TriangularSolveOptions::NO_TRANSPOSE);
  EXPECT_EQ(Infer(HloOpcode::kTriangularSolve, {S(F32, {4, 4}), S(F32, {4, 3})}, a), "f32[4,3]");
  EXPECT_THAT(Infer(HloOpcode::kTriangularSolve, {S(F32, {4, 4}), S(F32, {3, 4})}, a),
              IsError("shared dimension"));
  a.mutable_triangular_solve_options()->set_transpose_a(TriangularSolveOptions::TRANSPOSE_INVALID);
  EXPECT_THAT(Infer(HloOpcode::kTriangularSolve, {S(F32, {4, 4}), S(F32, {4, 3})}, a),
              IsError("transpose_a"));
}

TEST(LinalgTest, Fft) {
  HloInstructionProto a;
  a.set_fft_type(RFFT);
  a.add_fft_length(8);
  EXPECT_EQ(Infer(HloOpcode::kFft, {S(F32, {3, 8})}, a), "c64[3,5]");
  EXPECT_THAT(Infer(HloOpcode::kFft, {S(F32, {3, 7})}, a), IsError("fft_length"));
  a.set_fft_type(IRFFT);
  EXPECT_EQ(Infer(HloOpcode::kFft, {S(C64, {3, 5})}, a), "f32[3,8]");
  a.set_fft_type(FFT);
  EXPECT_EQ(Infer(HloOpcode::kFft, {S(C128, {3, 8})}, a), "c128[3,8]");
  EXPECT_THAT(Infer(HloOpcode::kFft, {S(F32, {3, 8})}, a), IsError("complex"));
  a.clear_fft_length();
  EXPECT_THAT(Infer(HloOpcode::kFft, {S(C64, {3, 8})}, a), IsError("1 to 3"));
}

TEST(LinalgTest, BatchNorm) {
  HloInstructionProto a;
  a.set_feature_index(1);
  EXPECT_EQ(Infer(HloOpcode::kBatchNormTraining, {S(F32, {2, 3, 4}), S(F32, {3}), S(F32, {3})}, a),
            "(f32[2,3,4], f32[3], f32[3])");
  EXPECT_EQ(Infer(HloOpcode::kBatchNormInference,
                  {S(F32, {2, 3}), S(F32, {3}), S(F32, {3}), S(F32, {3}), S(F32, {3})}, a),
            "f32[2,3]");
  EXPECT_EQ(Infer(HloOpcode::kBatchNormGrad,
                  {S(F32, {2, 3}), S(F32, {3}), S(F32, {3}), S(F32, {3}), S(F32, {2, 3})}, a),
            "(f32[2,3], f32[3], f32[3])");
  EXPECT_THAT(Infer(HloOpcode::kBatchNormTraining, {S(F32, {2, 3}), S(F32, {2}), S(F32, {3})}, a),
              IsError("feature count"));
  a.set_feature_index(2);
  EXPECT_THAT(Infer(HloOpcode::kBatchNormTraining, {S(F32, {2, 3}), S(F32, {3}), S(F32, {3})}, a),
              IsError("feature_index"));
}

}  // namespace
}  // namespace testing_si
}  // namespace xla
