// batch-norm-training / -inference / -grad through the Backend interface, hand-computed.
#include <cfloat>

#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;
using testing::SumEqualOnReferenceElseNear;

Literal Tuple3(Literal a, Literal b, Literal c) {
  std::vector<Literal> v;
  v.push_back(std::move(a));
  v.push_back(std::move(b));
  v.push_back(std::move(c));
  return Literal::MakeTuple(std::move(v));
}

TEST(InterpreterBatchNormTest, TrainingFeatureLast) {
  const char* hlo = R"(HloModule m
ENTRY main {
  x = f32[2,2] parameter(0)
  s = f32[2] parameter(1)
  o = f32[2] parameter(2)
  ROOT t = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=1
})";
  // feature 0: {1, 3}, mean 2, biased var 1; feature 1: {2, 6}, mean 4, var 4.
  EXPECT_TRUE(LiteralEqual(Tuple3(L("f32[2,2] {{-1, 8}, {1, 12}}"), L("f32[2] {2, 4}"), L("f32[2] {1, 4}")),
                           RunHlo(hlo, {L("f32[2,2] {{1, 2}, {3, 6}}"), L("f32[2] {1, 2}"), L("f32[2] {0, 10}")})));
}

TEST(InterpreterBatchNormTest, TrainingFeatureFirstRank3AndEpsilon) {
  const char* hlo = R"(HloModule m
ENTRY main {
  x = f32[2,1,2] parameter(0)
  s = f32[2] parameter(1)
  o = f32[2] parameter(2)
  ROOT t = (f32[2,1,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=3, feature_index=0
})";
  // feature 0: {1, 3}: mean 2, var 1, sqrt(1 + 3) = 2; feature 1: {10, 14}: mean 12, var 4, sqrt(7).
  auto r = RunHlo(hlo, {L("f32[2,1,2] {{{1, 3}}, {{10, 14}}}"), L("f32[2] {1, 1}"), L("f32[2] {0, 0}")});
  const float f1 = static_cast<float>(2.0 / std::sqrt(7.0));
  Literal y = L("f32[2,1,2] {{{-0.5, 0.5}}, {{0, 0}}}");
  y.SetFromDouble(2, -f1);
  y.SetFromDouble(3, f1);
  // Mean and variance are sums over 2 elements, normalized values a few more roundings
  // from them.
  EXPECT_TRUE(SumEqualOnReferenceElseNear(Tuple3(std::move(y), L("f32[2] {2, 12}"), L("f32[2] {1, 4}")), r,
                                          8 * FLT_EPSILON));
}

TEST(InterpreterBatchNormTest, TrainingHalfPrecisionAndNan) {
  const char* hlo = R"(HloModule m
ENTRY main {
  x = f16[2,2] parameter(0)
  s = f16[2] parameter(1)
  o = f16[2] parameter(2)
  ROOT t = (f16[2,2], f16[2], f16[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=1
})";
  auto r = RunHlo(hlo, {L("f16[2,2] {{1, nan}, {3, 6}}"), L("f16[2] {1, 2}"), L("f16[2] {0, 10}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(LiteralEqual(L("f16[2] {2, nan}"), r->tuple_element(1).Clone()));
  EXPECT_EQ(r->tuple_element(0).GetAsDouble(0), -1);
  EXPECT_TRUE(std::isnan(r->tuple_element(0).GetAsDouble(3)));
}

TEST(InterpreterBatchNormTest, Inference) {
  const char* hlo = R"(HloModule m
ENTRY main {
  x = f32[2,2] parameter(0)
  s = f32[2] parameter(1)
  o = f32[2] parameter(2)
  m = f32[2] parameter(3)
  v = f32[2] parameter(4)
  ROOT y = f32[2,2] batch-norm-inference(x, s, o, m, v), epsilon=0, feature_index=1
})";
  EXPECT_TRUE(LiteralEqual(L("f32[2,2] {{-1, 8}, {1, 12}}"),
                           RunHlo(hlo, {L("f32[2,2] {{1, 2}, {3, 6}}"), L("f32[2] {1, 2}"), L("f32[2] {0, 10}"),
                                        L("f32[2] {2, 4}"), L("f32[2] {1, 4}")})));
  // Zero variance and epsilon: (x - mean) / 0 gives +-inf and 0/0 NaN.
  auto r = RunHlo(hlo, {L("f32[2,2] {{1, 2}, {3, 4}}"), L("f32[2] {1, 1}"), L("f32[2] {0, 0}"), L("f32[2] {2, 4}"),
                        L("f32[2] {0, 0}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->GetAsDouble(0), -INFINITY);
  EXPECT_EQ(r->GetAsDouble(2), INFINITY);
  EXPECT_TRUE(std::isnan(r->GetAsDouble(3)));
}

TEST(InterpreterBatchNormTest, Grad) {
  const char* hlo = R"(HloModule m
ENTRY main {
  x = f32[2,1] parameter(0)
  s = f32[1] parameter(1)
  m = f32[1] parameter(2)
  v = f32[1] parameter(3)
  dy = f32[2,1] parameter(4)
  ROOT t = (f32[2,1], f32[1], f32[1]) batch-norm-grad(x, s, m, v, dy), epsilon=0, feature_index=1
})";
  // x - mean = {1, 3}; sum(dy) = 3; sum(dy * (x - mean)) = 7; 1/sqrt(var) = 1; n = 2.
  // dx = dy - 1.5 - (x - mean) * 3.5 = {-4, -10}
  EXPECT_TRUE(LiteralEqual(Tuple3(L("f32[2,1] {{-4}, {-10}}"), L("f32[1] {7}"), L("f32[1] {3}")),
                           RunHlo(hlo, {L("f32[2,1] {{1}, {3}}"), L("f32[1] {1}"), L("f32[1] {0}"), L("f32[1] {1}"),
                                        L("f32[2,1] {{1}, {2}}")})));
}

TEST(InterpreterBatchNormTest, BadFeatureIndexIsAnError) {
  const char* hlo = R"(HloModule m
ENTRY main {
  x = f32[2,2] parameter(0)
  s = f32[2] parameter(1)
  o = f32[2] parameter(2)
  ROOT t = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=5
})";
  EXPECT_FALSE(RunHlo(hlo, {L("f32[2,2] {{1, 2}, {3, 6}}"), L("f32[2] {1, 2}"), L("f32[2] {0, 10}")}).ok());
}

}  // namespace
}  // namespace xla
