#include "backends/cpu/passes/batch_norm_expander.h"

#include <string>

#include "backends/cpu/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::CountOpcode;

// Expands, verifies, and compares with the interpreter's batch-norm within float rounding
// (the interpreter computes in double and rounds once; the expansion rounds per op).
void ExpandAndCompare(const std::string& text, HloOpcode opcode) {
  auto before = testing::ParseOrNull(text);
  auto after = testing::ParseOrNull(text);
  ASSERT_NE(before, nullptr);
  BatchNormExpander expander;
  auto changed = testing::RunPassVerified(expander, after.get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(CountOpcode(*after->entry_computation(), opcode), 0);
  EXPECT_GE(CountOpcode(*after->entry_computation(), HloOpcode::kBroadcast), 1);
  for (uint64_t seed : {1, 2, 3}) {
    std::vector<Literal> args = testing::RandomArguments(*before, seed);
    auto expected = testing::RunOnInterpreter(*before, args);
    ASSERT_TRUE(expected.ok()) << expected.status();
    EXPECT_TRUE(xla::testing::LiteralNear(*expected, testing::RunOnInterpreter(*after, args), 2e-5, 2e-5));
  }
}

TEST(BatchNormExpanderTest, Training) {
  ExpandAndCompare(R"(
HloModule m
ENTRY e {
  x = f32[4,3,5] parameter(0)
  scale = f32[3] parameter(1)
  offset = f32[3] parameter(2)
  ROOT bn = (f32[4,3,5], f32[3], f32[3]) batch-norm-training(x, scale, offset), epsilon=0.001, feature_index=1
}
)", HloOpcode::kBatchNormTraining);
}

TEST(BatchNormExpanderTest, Inference) {
  ExpandAndCompare(R"(
HloModule m
ENTRY e {
  x = f32[2,6] parameter(0)
  scale = f32[6] parameter(1)
  offset = f32[6] parameter(2)
  mean = f32[6] parameter(3)
  v = f32[6] parameter(4)
  var = f32[6] multiply(v, v)
  ROOT bn = f32[2,6] batch-norm-inference(x, scale, offset, mean, var), epsilon=0.01, feature_index=1
}
)", HloOpcode::kBatchNormInference);
}

TEST(BatchNormExpanderTest, Grad) {
  ExpandAndCompare(R"(
HloModule m
ENTRY e {
  x = f32[3,4] parameter(0)
  scale = f32[3] parameter(1)
  mean = f32[3] parameter(2)
  v = f32[3] parameter(3)
  var = f32[3] multiply(v, v)
  dy = f32[3,4] parameter(4)
  ROOT bn = (f32[3,4], f32[3], f32[3]) batch-norm-grad(x, scale, mean, var, dy), epsilon=0.1, feature_index=0
}
)", HloOpcode::kBatchNormGrad);
}

TEST(BatchNormExpanderTest, LeavesOtherOpsAlone) {
  auto module = testing::ParseOrNull(R"(
HloModule m
ENTRY e {
  x = f32[3,4] parameter(0)
  ROOT n = f32[3,4] negate(x)
}
)");
  ASSERT_NE(module, nullptr);
  BatchNormExpander expander;
  auto changed = expander.Run(module.get());
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
