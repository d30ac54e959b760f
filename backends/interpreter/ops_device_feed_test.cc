// infeed and outfeed through the Backend's queues: TransferToInfeed before Execute,
// TransferFromOutfeed after.
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;

struct Compiled {
  std::unique_ptr<backend::Backend> backend;
  std::unique_ptr<backend::Executable> executable;
};

Compiled Compile(const std::string& hlo) {
  Compiled c;
  auto module = ParseAndReturnUnverifiedModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status().message();
  auto backend = backend::CreateBackend(testing::TestPlatform());
  EXPECT_TRUE(backend.ok());
  if (!module.ok() || !backend.ok()) return c;
  c.backend = *std::move(backend);
  auto executable = c.backend->Compile(*std::move(module), backend::CompileOptions());
  EXPECT_TRUE(executable.ok()) << executable.status().message();
  if (executable.ok()) c.executable = *std::move(executable);
  return c;
}

absl::StatusOr<Literal> Execute(Compiled& c, absl::Span<const Literal> args) {
  std::vector<std::shared_ptr<backend::Buffer>> buffers;
  for (const Literal& arg : args) {
    auto buffer = c.backend->TransferToDevice(arg, 0);
    if (!buffer.ok()) return buffer.status();
    buffers.push_back(*std::move(buffer));
  }
  auto result = c.executable->Execute(buffers, backend::ExecuteOptions());
  if (!result.ok()) return result.status();
  return c.backend->TransferFromDevice(**result);
}

TEST(InterpreterFeedTest, InfeedPopsQueuedValuesInOrder) {
  Compiled c = Compile(R"(HloModule m
ENTRY main {
  t = token[] after-all()
  in = (s32[2,3]{0,1}, token[]) infeed(t), infeed_config="x"
  ROOT v = s32[2,3]{0,1} get-tuple-element(in), index=0
})");
  ASSERT_NE(c.executable, nullptr);
  ASSERT_TRUE(c.backend->TransferToInfeed(0, L("s32[2,3] { { 1, 2, 3 }, { 4, 5, 6 } }")).ok());
  ASSERT_TRUE(c.backend->TransferToInfeed(0, L("s32[2,3] { { -2147483648, 0, 0 }, { 0, 0, 7 } }")).ok());
  EXPECT_TRUE(LiteralEqual(L("s32[2,3] { { 1, 2, 3 }, { 4, 5, 6 } }"), Execute(c, {})));
  EXPECT_TRUE(LiteralEqual(L("s32[2,3] { { -2147483648, 0, 0 }, { 0, 0, 7 } }"), Execute(c, {})));
}

TEST(InterpreterFeedTest, InfeedOfATupleAndOfAWrongShape) {
  Compiled c = Compile(R"(HloModule m
ENTRY main {
  t = token[] after-all()
  ROOT in = ((f32[], pred[2]), token[]) infeed(t)
})");
  ASSERT_NE(c.executable, nullptr);
  ASSERT_TRUE(c.backend->TransferToInfeed(0, L("(f32[], pred[2]) (-0, {true, false})")).ok());
  auto result = Execute(c, {});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->tuple_element(0), L("(f32[], pred[2]) (-0, {true, false})"));
  EXPECT_TRUE(result->tuple_element(1).shape().IsToken());
  ASSERT_TRUE(c.backend->TransferToInfeed(0, L("f32[] 1")).ok());
  auto wrong = Execute(c, {});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong.status().message()), ::testing::HasSubstr("infeed value has shape"));
}

TEST(InterpreterFeedTest, OutfeedPushesOperandValues) {
  Compiled c = Compile(R"(HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  t = token[] after-all()
  o1 = token[] outfeed(p, t), outfeed_config="x"
  q = (f32[3], u8[]) tuple(p, u8[] constant(255))
  ROOT o2 = token[] outfeed(q, o1)
})");
  ASSERT_NE(c.executable, nullptr);
  auto result = Execute(c, {L("f32[3] {1, nan, -inf}")});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_TRUE(result->shape().IsToken());
  // Asking with the wrong shape is an error that keeps the value queued.
  auto wrong = c.backend->TransferFromOutfeed(0, ShapeUtil::MakeShape(S32, {3}), 1000);
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong.status().message()), ::testing::HasSubstr("stays queued"));
  auto first = c.backend->TransferFromOutfeed(0, ShapeUtil::MakeShape(F32, {3}), 1000);
  EXPECT_TRUE(LiteralEqual(L("f32[3] {1, nan, -inf}"), first));
  auto second = c.backend->TransferFromOutfeed(
      0, Shape::MakeTuple({ShapeUtil::MakeShape(F32, {3}), ShapeUtil::MakeShape(U8, {})}), 1000);
  EXPECT_TRUE(LiteralEqual(L("(f32[3], u8[]) ({1, nan, -inf}, 255)"), second));
  auto none = c.backend->TransferFromOutfeed(0, ShapeUtil::MakeShape(F32, {3}), 10);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace xla
