// Send/Recv (device and host channels), AllToAll with split_dimension != concat_dimension,
// its tuple form, CollectiveBroadcast and CrossReplicaSum, ReshapeWithInferredDimension and
// StochasticConvertType built with XlaBuilder: the instructions XLA's builder makes, accepted by the verifier, and
// clear errors for wrong channels, tokens and dimensions. The all-to-all's data movement is
// checked by simulating every participant over the instructions the builder emitted.

#include <gtest/gtest.h>

#include <functional>
#include <numeric>

#include "absl/strings/str_cat.h"

#include "hlo/builder/builder_test_util.h"
#include "hlo/builder/xla_builder.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_verifier.h"
#include "hlo/shape_util.h"

namespace xla {
namespace {

Shape Vf32(std::vector<int64_t> dims) { return ShapeUtil::MakeShape(F32, dims); }

ChannelHandle Channel(int64_t handle, ChannelHandle::ChannelType type) {
  ChannelHandle channel;
  channel.set_handle(handle);
  channel.set_type(type);
  return channel;
}

using builder_testing::BuildVerified;

std::vector<const HloInstruction*> Instructions(const HloModule& module, HloOpcode opcode) {
  std::vector<const HloInstruction*> found;
  for (const HloInstruction* i : module.entry_computation()->MakeInstructionPostOrder()) {
    if (i->opcode() == opcode) found.push_back(i);
  }
  return found;
}

TEST(XlaBuilderCommTest, SendAndRecvOnDeviceChannels) {
  XlaBuilder b("send_recv");
  XlaOp x = Parameter(&b, 0, Vf32({4}), "x");
  XlaOp token = CreateToken(&b);
  XlaOp sent = SendWithToken(x, token, Channel(1, ChannelHandle::DEVICE_TO_DEVICE));
  XlaOp received = RecvWithToken(sent, ShapeUtil::MakeShape(S32, {2, 3}), Channel(2, ChannelHandle::DEVICE_TO_DEVICE));
  Send(x, Channel(3, ChannelHandle::DEVICE_TO_DEVICE));
  XlaOp plain = Recv(&b, Vf32({5}), Channel(4, ChannelHandle::DEVICE_TO_DEVICE));
  EXPECT_EQ(b.GetShape(sent)->ToString(), "token[]");
  EXPECT_EQ(b.GetShape(received)->ToString(), "(s32[2,3], token[])");
  EXPECT_EQ(b.GetShape(plain)->ToString(), "f32[5]");
  Tuple(&b, {GetTupleElement(received, 0), plain});
  std::unique_ptr<HloModule> module = BuildVerified(b);
  ASSERT_NE(module, nullptr);
  const std::vector<const HloInstruction*> sends = Instructions(*module, HloOpcode::kSend);
  const std::vector<const HloInstruction*> recvs = Instructions(*module, HloOpcode::kRecv);
  ASSERT_EQ(sends.size(), 2u);
  ASSERT_EQ(recvs.size(), 2u);
  ASSERT_EQ(Instructions(*module, HloOpcode::kSendDone).size(), 2u);
  ASSERT_EQ(Instructions(*module, HloOpcode::kRecvDone).size(), 2u);
  // send: (data, u32 context, token), its done a token; recv: the same, its done (data, token).
  EXPECT_EQ(sends[0]->shape().ToString(true), "(f32[4]{0}, u32[], token[])");
  EXPECT_EQ(sends[0]->operand(1)->opcode(), HloOpcode::kAfterAll);
  EXPECT_EQ(recvs[0]->operand(0)->opcode(), HloOpcode::kSendDone);  // after the send, by its token
  EXPECT_EQ(recvs[0]->shape().ToString(true), "(s32[2,3]{1,0}, u32[], token[])");
  std::vector<int64_t> channels;
  for (const auto* list : {&sends, &recvs}) {
    for (const HloInstruction* i : *list) {
      channels.push_back(i->attrs().channel_id());
      EXPECT_FALSE(i->attrs().is_host_transfer()) << i->name();
      ASSERT_EQ(i->users().size(), 1u);
      EXPECT_EQ(i->users()[0]->attrs().channel_id(), i->attrs().channel_id()) << "its done";
    }
  }
  EXPECT_EQ(channels, (std::vector<int64_t>{1, 3, 2, 4}));
}

TEST(XlaBuilderCommTest, SendToHostAndRecvFromHost) {
  XlaBuilder b("host");
  XlaOp x = Parameter(&b, 0, Vf32({3, 2}), "x");
  Shape column_major = Vf32({3, 2});
  *column_major.mutable_layout() = ShapeUtil::MakeShapeWithDenseLayout(F32, {3, 2}, {0, 1}).layout();
  XlaOp sent = SendToHost(x, CreateToken(&b), column_major, Channel(7, ChannelHandle::DEVICE_TO_HOST));
  XlaOp got = RecvFromHost(sent, Vf32({3}), Channel(8, ChannelHandle::HOST_TO_DEVICE));
  GetTupleElement(got, 0);
  std::unique_ptr<HloModule> module = BuildVerified(b);
  ASSERT_NE(module, nullptr);
  const HloInstruction* send = Instructions(*module, HloOpcode::kSend).at(0);
  const HloInstruction* recv = Instructions(*module, HloOpcode::kRecv).at(0);
  EXPECT_TRUE(send->attrs().is_host_transfer());
  EXPECT_TRUE(recv->attrs().is_host_transfer());
  EXPECT_TRUE(send->users().at(0)->attrs().is_host_transfer());
  EXPECT_EQ(send->shape().ToString(true), "(f32[3,2]{0,1}, u32[], token[])");  // the host's layout
  EXPECT_EQ(recv->attrs().channel_id(), 8);
  EXPECT_EQ(recv->users().at(0)->shape().ToString(true), "(f32[3]{0}, token[])");
}

TEST(XlaBuilderCommTest, SendRecvErrorsNameTheProblem) {
  struct Case {
    const char* message;
    std::function<void(XlaBuilder&, XlaOp)> build;
  };
  const std::vector<Case> cases = {
      {"SendWithToken needs a positive channel handle, got 0",
       [](XlaBuilder& b, XlaOp x) { SendWithToken(x, CreateToken(&b), Channel(0, ChannelHandle::DEVICE_TO_DEVICE)); }},
      {"Send needs a DEVICE_TO_DEVICE channel, got DEVICE_TO_HOST",
       [](XlaBuilder&, XlaOp x) { Send(x, Channel(1, ChannelHandle::DEVICE_TO_HOST)); }},
      {"Recv needs a positive channel handle, got -2",
       [](XlaBuilder& b, XlaOp) { Recv(&b, Vf32({2}), Channel(-2, ChannelHandle::DEVICE_TO_DEVICE)); }},
      {"RecvWithToken needs a DEVICE_TO_DEVICE channel, got HOST_TO_DEVICE",
       [](XlaBuilder& b, XlaOp) { RecvWithToken(CreateToken(&b), Vf32({2}), Channel(1, ChannelHandle::HOST_TO_DEVICE)); }},
      {"SendToHost needs a DEVICE_TO_HOST channel, got DEVICE_TO_DEVICE",
       [](XlaBuilder& b, XlaOp x) {
         SendToHost(x, CreateToken(&b), Vf32({2}), Channel(1, ChannelHandle::DEVICE_TO_DEVICE));
       }},
      {"RecvFromHost needs a HOST_TO_DEVICE channel, got DEVICE_TO_HOST",
       [](XlaBuilder& b, XlaOp) { RecvFromHost(CreateToken(&b), Vf32({2}), Channel(1, ChannelHandle::DEVICE_TO_HOST)); }},
      {"SendWithToken: the token operand is f32[2]",
       [](XlaBuilder&, XlaOp x) { SendWithToken(x, x, Channel(1, ChannelHandle::DEVICE_TO_DEVICE)); }},
      {"SendToHost: shape_with_layout f32[3] does not match the operand f32[2]",
       [](XlaBuilder& b, XlaOp x) {
         SendToHost(x, CreateToken(&b), Vf32({3}), Channel(1, ChannelHandle::DEVICE_TO_HOST));
       }},
      {"RecvFromHost receives arrays only",
       [](XlaBuilder& b, XlaOp) {
         RecvFromHost(CreateToken(&b), ShapeUtil::MakeTupleShape({Vf32({2})}), Channel(1, ChannelHandle::HOST_TO_DEVICE));
       }},
  };
  for (const Case& c : cases) {
    XlaBuilder b("bad");
    c.build(b, Parameter(&b, 0, Vf32({2}), "x"));
    ASSERT_FALSE(b.first_error().ok()) << c.message;
    EXPECT_NE(b.first_error().message().find(c.message), std::string::npos) << b.first_error();
  }
}

// Row-major strides of `dims`.
std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
  return strides;
}

// Element `index` of an array of `dims` (row-major in `data`).
float At(const std::vector<float>& data, const std::vector<int64_t>& dims, const std::vector<int64_t>& index) {
  const std::vector<int64_t> strides = Strides(dims);
  int64_t at = 0;
  for (size_t d = 0; d < dims.size(); ++d) at += index[d] * strides[d];
  return data[at];
}

// Visits every index of `dims`, in row-major order.
void ForEachIndex(const std::vector<int64_t>& dims, const std::function<void(const std::vector<int64_t>&)>& f) {
  const int64_t n = std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<int64_t>());
  const std::vector<int64_t> strides = Strides(dims);
  std::vector<int64_t> index(dims.size());
  for (int64_t linear = 0; linear < n; ++linear) {
    for (size_t d = 0; d < dims.size(); ++d) index[d] = linear / strides[d] % dims[d];
    f(index);
  }
}

// Participant j's result: block j (along `split`) of every participant's input, concatenated
// along `along` in participant order.
std::vector<float> Gathered(const std::vector<std::vector<float>>& inputs, const std::vector<int64_t>& dims, int64_t split,
                            int64_t along, int64_t j, std::vector<int64_t>* out_dims) {
  const int64_t count = static_cast<int64_t>(inputs.size());
  const int64_t block = dims[split] / count;
  *out_dims = dims;
  (*out_dims)[split] = block;
  (*out_dims)[along] *= count;
  std::vector<float> out;
  ForEachIndex(*out_dims, [&](const std::vector<int64_t>& index) {
    std::vector<int64_t> from = index;
    const int64_t source = index[along] / (along == split ? block : dims[along]);
    from[along] = index[along] % (along == split ? block : dims[along]);
    from[split] += j * block;
    out.push_back(At(inputs[source], dims, from));
  });
  return out;
}

TEST(XlaBuilderCommTest, AllToAllMovesBlocksToTheConcatDimension) {
  struct Case {
    std::vector<int64_t> dims;
    int64_t split, concat, count;
  };
  for (const Case& c : std::vector<Case>{{{4, 3}, 0, 1, 2},
                                         {{3, 6}, 1, 0, 3},
                                         {{2, 4, 6}, 2, 0, 2},
                                         {{2, 4, 6}, 0, 2, 2},
                                         {{6, 2, 5}, 0, 1, 3},
                                         {{4, 6}, 1, 1, 2}}) {
    const std::string what = absl::StrCat(Vf32(c.dims).ToString(), " split ", c.split, " concat ", c.concat);
    XlaBuilder b("a2a");
    XlaOp out = AllToAll(Parameter(&b, 0, Vf32(c.dims), "x"), c.split, c.concat, c.count);
    std::vector<int64_t> want = c.dims;
    want[c.split] /= c.count;
    want[c.concat] *= c.count;
    EXPECT_EQ(b.GetShape(out)->ToString(), Vf32(want).ToString()) << what;
    std::unique_ptr<HloModule> module = BuildVerified(b);
    ASSERT_NE(module, nullptr) << what;
    const std::vector<const HloInstruction*> a2a = Instructions(*module, HloOpcode::kAllToAll);
    ASSERT_EQ(a2a.size(), 1u) << what;
    ASSERT_EQ(a2a[0]->attrs().replica_groups_size(), 1u);
    EXPECT_EQ(a2a[0]->attrs().replica_groups(0).replica_ids_size(), c.count) << what;
    // Every participant: the HLO all-to-all (split and concatenated along `split`), then the
    // reshapes and transposes the builder put after it.
    std::vector<std::vector<float>> inputs(c.count);
    for (int64_t p = 0; p < c.count; ++p) {
      for (int64_t i = 0; i < ShapeUtil::ElementsIn(Vf32(c.dims)); ++i) inputs[p].push_back(p * 1000.0f + i);
    }
    for (int64_t j = 0; j < c.count; ++j) {
      std::vector<int64_t> dims;
      std::vector<float> value = Gathered(inputs, c.dims, c.split, c.split, j, &dims);
      for (const HloInstruction* next = a2a[0]; !next->users().empty();) {
        next = next->users()[0];
        ASSERT_TRUE(next->opcode() == HloOpcode::kReshape || next->opcode() == HloOpcode::kTranspose) << next->name();
        const std::vector<int64_t> next_dims(next->shape().dimensions().begin(), next->shape().dimensions().end());
        if (next->opcode() == HloOpcode::kTranspose) {
          std::vector<float> moved;
          ForEachIndex(next_dims, [&](const std::vector<int64_t>& index) {
            std::vector<int64_t> from(index.size());
            for (size_t d = 0; d < index.size(); ++d) from[next->dimensions()[d]] = index[d];
            moved.push_back(At(value, dims, from));
          });
          value = std::move(moved);
        }
        dims = next_dims;
      }
      std::vector<int64_t> expected_dims;
      EXPECT_EQ(value, Gathered(inputs, c.dims, c.split, c.concat, j, &expected_dims)) << what << " participant " << j;
      EXPECT_EQ(dims, expected_dims) << what;
    }
  }
}

TEST(XlaBuilderCommTest, AllToAllErrorsAndOptions) {
  struct Case {
    int64_t split, concat, count;
    std::vector<std::vector<int64_t>> groups;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {0, 1, 3, {}, "split dimension 0 (size 4) of f32[4,4] is not divisible by split_count 3"},
           {0, 1, 2, {{0, 1, 2}}, "a replica group of 3 members; split_count is 2"},
           {0, 2, 2, {}, "concat_dimension 2 out of range for f32[4,4]"},
           {-1, 0, 2, {}, "split_dimension -1 out of range"},
       }) {
    XlaBuilder b("bad");
    std::vector<ReplicaGroup> groups;
    for (const auto& ids : c.groups) {
      groups.emplace_back();
      for (int64_t id : ids) groups.back().add_replica_ids(id);
    }
    AllToAll(Parameter(&b, 0, Vf32({4, 4}), "x"), c.split, c.concat, c.count, groups);
    ASSERT_FALSE(b.first_error().ok()) << c.message;
    EXPECT_NE(b.first_error().message().find(c.message), std::string::npos) << b.first_error();
  }
  // A channel and a layout for the result.
  XlaBuilder b("options");
  Layout column_major = ShapeUtil::MakeShapeWithDenseLayout(F32, {2, 8}, {0, 1}).layout();
  ChannelHandle channel = Channel(5, ChannelHandle::DEVICE_TO_DEVICE);
  XlaOp out = AllToAll(Parameter(&b, 0, Vf32({4, 4}), "x"), 0, 1, 2, {}, column_major, channel);
  EXPECT_EQ(b.GetShape(out)->ToString(true), "f32[2,8]{0,1}");
  std::unique_ptr<HloModule> module = BuildVerified(b);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(Instructions(*module, HloOpcode::kAllToAll).at(0)->attrs().channel_id(), 5);
}

TEST(XlaBuilderCommTest, AllToAllTupleCollectiveBroadcastAndCrossReplicaSum) {
  XlaBuilder b("collectives");
  XlaOp x = Parameter(&b, 0, Vf32({4, 6}), "x");
  XlaOp p = Parameter(&b, 1, ShapeUtil::MakeShape(PRED, {3}), "p");
  ReplicaGroup pair;
  pair.add_replica_ids(0);
  pair.add_replica_ids(1);
  // The tuple form of two operands; AllToAll over it: 2 blocks of dimension 1, concatenated
  // along 0.
  XlaOp tuple = AllToAllTuple({x, x}, {pair});
  XlaOp moved = AllToAllTuple(x, 1, 0, 2, {pair}, std::nullopt, Channel(3, ChannelHandle::DEVICE_TO_DEVICE));
  XlaOp broadcast = CollectiveBroadcast(x, {pair}, Channel(4, ChannelHandle::DEVICE_TO_DEVICE));
  XlaOp sum = CrossReplicaSum(x);
  XlaOp any = CrossReplicaSum(p, {pair});
  EXPECT_EQ(b.GetShape(tuple)->ToString(), "(f32[4,6], f32[4,6])");
  EXPECT_EQ(b.GetShape(moved)->ToString(), "f32[8,3]");
  EXPECT_EQ(b.GetShape(broadcast)->ToString(), "f32[4,6]");
  EXPECT_EQ(b.GetShape(any)->ToString(), "pred[3]");
  Tuple(&b, {tuple, moved, broadcast, sum, any});
  std::unique_ptr<HloModule> module = BuildVerified(b);
  ASSERT_NE(module, nullptr);
  const std::vector<const HloInstruction*> a2a = Instructions(*module, HloOpcode::kAllToAll);
  ASSERT_EQ(a2a.size(), 2u);
  for (const HloInstruction* i : a2a) EXPECT_EQ(i->attrs().dimensions_size(), 0) << "the tuple form";
  // The split form: two slices of dimension 1 go in, the two elements come out concatenated.
  EXPECT_EQ(a2a[1]->operand_count(), 2);
  EXPECT_EQ(a2a[1]->operand(0)->opcode(), HloOpcode::kSlice);
  EXPECT_EQ(a2a[1]->operand(1)->shape().ToString(), "f32[4,3]");
  EXPECT_EQ(a2a[1]->attrs().channel_id(), 3);
  const HloInstruction* concatenate = Instructions(*module, HloOpcode::kConcatenate).at(0);
  EXPECT_EQ(concatenate->dimensions(0), 0);
  EXPECT_EQ(concatenate->operand(0)->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(Instructions(*module, HloOpcode::kCollectiveBroadcast).at(0)->attrs().channel_id(), 4);
  // The sums: add of f32 scalars, or of preds.
  const std::vector<const HloInstruction*> reduces = Instructions(*module, HloOpcode::kAllReduce);
  ASSERT_EQ(reduces.size(), 2u);
  EXPECT_EQ(reduces[0]->to_apply()->root_instruction()->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(reduces[1]->to_apply()->root_instruction()->opcode(), HloOpcode::kOr);
  EXPECT_EQ(reduces[1]->attrs().replica_groups_size(), 1);
}

TEST(XlaBuilderCommTest, ReshapeWithInferredDimensionAndStochasticConvert) {
  XlaBuilder b("data");
  XlaOp x = Parameter(&b, 0, Vf32({2, 3, 4}), "x");
  XlaOp bits = Parameter(&b, 1, ShapeUtil::MakeShape(U32, {2, 3, 4}), "bits");
  EXPECT_EQ(b.GetShape(ReshapeWithInferredDimension(x, {6, -1}, 1))->ToString(), "f32[6,4]");
  EXPECT_EQ(b.GetShape(ReshapeWithInferredDimension(x, {99, 2, 2}, 0))->ToString(), "f32[6,2,2]");
  XlaOp rounded = StochasticConvertType(x, bits, BF16);
  EXPECT_EQ(b.GetShape(rounded)->ToString(), "bf16[2,3,4]");
  std::unique_ptr<HloModule> module = BuildVerified(b);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(Instructions(*module, HloOpcode::kStochasticConvert).size(), 1u);
  struct Case {
    const char* message;
    std::function<void(XlaBuilder&, XlaOp)> build;
  };
  for (const Case& c : std::vector<Case>{
           {"do not divide its 24 elements", [](XlaBuilder&, XlaOp x) { ReshapeWithInferredDimension(x, {5, 0}, 1); }},
           {"inferred dimension 2 out of range", [](XlaBuilder&, XlaOp x) { ReshapeWithInferredDimension(x, {4, 6}, 2); }},
           {"random bits must have the operand's bit width",
            [](XlaBuilder& b, XlaOp x) { StochasticConvertType(x, Parameter(&b, 1, ShapeUtil::MakeShape(U16, {2, 3, 4}), "r"), BF16); }},
           {"random bits must be unsigned", [](XlaBuilder& b, XlaOp x) {
              StochasticConvertType(x, Parameter(&b, 1, ShapeUtil::MakeShape(S32, {2, 3, 4}), "r"), BF16);
            }},
       }) {
    XlaBuilder bad("bad");
    c.build(bad, Parameter(&bad, 0, Vf32({2, 3, 4}), "x"));
    ASSERT_FALSE(bad.first_error().ok()) << c.message;
    EXPECT_NE(bad.first_error().message().find(c.message), std::string::npos) << bad.first_error();
  }
}

}  // namespace
}  // namespace xla
