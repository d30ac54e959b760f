// cholesky and triangular-solve through the Backend interface, on small known matrices.
#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

using testing::L;
using testing::LiteralEqual;
using testing::RunHlo;

std::string Unary(const std::string& in, const std::string& op) {
  return "HloModule m\nENTRY main {\n  a = " + in + " parameter(0)\n  ROOT r = " + in + " " + op + "\n}";
}

std::string Solve(const std::string& a, const std::string& b, const std::string& attrs) {
  return "HloModule m\nENTRY main {\n  a = " + a + " parameter(0)\n  b = " + b + " parameter(1)\n  ROOT r = " + b +
         " triangular-solve(a, b), " + attrs + "\n}";
}

TEST(InterpreterCholeskyTest, LowerReadsOnlyTheLowerTriangle) {
  auto hlo = Unary("f32[3,3]", "cholesky(a), lower=true");
  EXPECT_TRUE(LiteralEqual(L("f32[3,3] {{2, 0, 0}, {6, 1, 0}, {-8, 5, 3}}"),
                           RunHlo(hlo, {L("f32[3,3] {{4, 999, nan}, {12, 37, -1}, {-16, -43, 98}}")})));
}

TEST(InterpreterCholeskyTest, UpperReadsOnlyTheUpperTriangle) {
  auto hlo = Unary("f64[3,3]", "cholesky(a), lower=false");
  EXPECT_TRUE(LiteralEqual(L("f64[3,3] {{2, 6, -8}, {0, 1, 5}, {0, 0, 3}}"),
                           RunHlo(hlo, {L("f64[3,3] {{4, 12, -16}, {inf, 37, -43}, {7, 7, 98}}")})));
}

TEST(InterpreterCholeskyTest, NotPositiveDefiniteIsAllNan) {
  auto hlo = Unary("f32[2,2]", "cholesky(a), lower=true");
  auto r = RunHlo(hlo, {L("f32[2,2] {{1, 2}, {2, 1}}")});
  ASSERT_TRUE(r.ok()) << r.status();
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(r->GetAsDouble(i))) << i;
}

TEST(InterpreterCholeskyTest, BatchedAndEmpty) {
  auto hlo = Unary("f32[2,2,2]", "cholesky(a), lower=true");
  EXPECT_TRUE(LiteralEqual(L("f32[2,2,2] {{{2, 0}, {0, 3}}, {{1, 0}, {0.5, 1}}}"),
                           RunHlo(hlo, {L("f32[2,2,2] {{{4, 0}, {0, 9}}, {{1, 0}, {0.5, 1.25}}}")})));
  auto empty = Unary("f32[0,3,3]", "cholesky(a), lower=true");
  auto r = RunHlo(empty, {L("f32[0,3,3] {}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->element_count(), 0);
}

TEST(InterpreterCholeskyTest, ComplexHermitian) {
  auto lower = Unary("c64[2,2]", "cholesky(a), lower=true");
  EXPECT_TRUE(LiteralEqual(L("c64[2,2] {{(2, 0), (0, 0)}, {(1, 1), (2, 0)}}"),
                           RunHlo(lower, {L("c64[2,2] {{(4, 0), (2, -2)}, {(2, 2), (6, 0)}}")})));
  auto upper = Unary("c64[2,2]", "cholesky(a), lower=false");
  EXPECT_TRUE(LiteralEqual(L("c64[2,2] {{(2, 0), (1, -1)}, {(0, 0), (2, 0)}}"),
                           RunHlo(upper, {L("c64[2,2] {{(4, 0), (2, -2)}, {(2, 2), (6, 0)}}")})));
}

TEST(InterpreterCholeskyTest, HalfPrecision) {
  auto hlo = Unary("bf16[2,2]", "cholesky(a), lower=true");
  EXPECT_TRUE(LiteralEqual(L("bf16[2,2] {{2, 0}, {1, 3}}"), RunHlo(hlo, {L("bf16[2,2] {{4, 0}, {2, 10}}")})));
}

TEST(InterpreterCholeskyTest, IntegerOperandIsAnError) {
  auto hlo = Unary("s32[2,2]", "cholesky(a), lower=true");
  EXPECT_FALSE(RunHlo(hlo, {L("s32[2,2] {{4, 0}, {0, 4}}")}).ok());
}

const char* kNoTranspose = "left_side=true, lower=true, unit_diagonal=false, transpose_a=NO_TRANSPOSE";

TEST(InterpreterTriangularSolveTest, LeftLower) {
  EXPECT_TRUE(LiteralEqual(L("f32[2,1] {{1}, {2}}"), RunHlo(Solve("f32[2,2]", "f32[2,1]", kNoTranspose),
                                                            {L("f32[2,2] {{2, 999}, {1, 4}}"), L("f32[2,1] {{2}, {9}}")})));
}

TEST(InterpreterTriangularSolveTest, LeftLowerTransposed) {
  auto hlo = Solve("f32[2,2]", "f32[2,1]", "left_side=true, lower=true, transpose_a=TRANSPOSE");
  EXPECT_TRUE(LiteralEqual(L("f32[2,1] {{-0.125}, {2.25}}"),
                           RunHlo(hlo, {L("f32[2,2] {{2, 999}, {1, 4}}"), L("f32[2,1] {{2}, {9}}")})));
}

TEST(InterpreterTriangularSolveTest, UnitDiagonalIgnoresTheDiagonal) {
  auto hlo = Solve("f32[2,2]", "f32[2,1]", "left_side=true, lower=true, unit_diagonal=true, transpose_a=NO_TRANSPOSE");
  EXPECT_TRUE(LiteralEqual(L("f32[2,1] {{2}, {7}}"), RunHlo(hlo, {L("f32[2,2] {{0, 999}, {1, nan}}"), L("f32[2,1] {{2}, {9}}")})));
}

TEST(InterpreterTriangularSolveTest, RightSide) {
  auto hlo = Solve("f32[2,2]", "f32[1,2]", "left_side=false, lower=true, transpose_a=NO_TRANSPOSE");
  EXPECT_TRUE(LiteralEqual(L("f32[1,2] {{1, 2}}"), RunHlo(hlo, {L("f32[2,2] {{2, 0}, {1, 4}}"), L("f32[1,2] {{4, 8}}")})));
  // x a^T = b with a upper: a^T = {{2, 0}, {1, 4}} again.
  auto upper_t = Solve("f32[2,2]", "f32[1,2]", "left_side=false, lower=false, transpose_a=TRANSPOSE");
  EXPECT_TRUE(LiteralEqual(L("f32[1,2] {{1, 2}}"), RunHlo(upper_t, {L("f32[2,2] {{2, 1}, {-5, 4}}"), L("f32[1,2] {{4, 8}}")})));
}

TEST(InterpreterTriangularSolveTest, UpperLeft) {
  auto hlo = Solve("f64[2,2]", "f64[2,2]", "left_side=true, lower=false, transpose_a=NO_TRANSPOSE");
  EXPECT_TRUE(LiteralEqual(L("f64[2,2] {{1, 0.5}, {2, 1}}"),
                           RunHlo(hlo, {L("f64[2,2] {{2, 1}, {999, 4}}"), L("f64[2,2] {{4, 2}, {8, 4}}")})));
}

TEST(InterpreterTriangularSolveTest, ComplexAdjoint) {
  auto hlo = Solve("c64[2,2]", "c64[2,1]", "left_side=true, lower=true, transpose_a=ADJOINT");
  // (1 - 2) / conj(i) = -i; the sign of its zero real part is not specified, so compare values.
  EXPECT_TRUE(testing::LiteralNear(L("c64[2,1] {{(0, -1)}, {(2, 0)}}"),
                           RunHlo(hlo, {L("c64[2,2] {{(0, 1), (9, 9)}, {(1, 0), (1, 0)}}"), L("c64[2,1] {{(1, 0)}, {(2, 0)}}")}), 0));
}

TEST(InterpreterTriangularSolveTest, BatchedAndZeroPivot) {
  EXPECT_TRUE(LiteralEqual(L("f32[2,1,1] {{{1}}, {{0.5}}}"),
                           RunHlo(Solve("f32[2,1,1]", "f32[2,1,1]", kNoTranspose),
                                  {L("f32[2,1,1] {{{2}}, {{4}}}"), L("f32[2,1,1] {{{2}}, {{2}}}")})));
  EXPECT_TRUE(LiteralEqual(L("f32[1,1] {{inf}}"),
                           RunHlo(Solve("f32[1,1]", "f32[1,1]", kNoTranspose), {L("f32[1,1] {{0}}"), L("f32[1,1] {{1}}")})));
}

TEST(InterpreterTriangularSolveTest, MismatchedShapesAreErrors) {
  EXPECT_FALSE(RunHlo(Solve("f32[2,2]", "f32[3,1]", kNoTranspose),
                      {L("f32[2,2] {{1, 0}, {0, 1}}"), L("f32[3,1] {{1}, {2}, {3}}")})
                   .ok());
}

// Factorizations and solves of large matrices poll cancellation between columns and steps
// (about every 2^20 multiply-adds): the polls before are the evaluator's, one per instruction.
TEST(InterpreterCholeskyTest, LongFactorizationsStopWhenCancelled) {
  constexpr int64_t n = 256;
  Literal spd = *Literal::Create(ShapeUtil::MakeShape(F32, {n, n}));  // diagonally dominant
  for (int64_t i = 0; i < n * n; ++i) spd.SetFromDouble(i, i % (n + 1) == 0 ? 2.0 * n : 1.0);
  std::vector<Literal> args;
  args.push_back(std::move(spd));
  testing::ExpectCancelledInsideTheOp("interpreter", R"(HloModule m
ENTRY e {
  a = f32[256,256] parameter(0)
  ROOT c = f32[256,256] cholesky(a), lower=true
})",
                                      3, std::move(args));
  testing::ExpectCancelledInsideTheOp("interpreter", R"(HloModule m
ENTRY e {
  a = f32[256,256] parameter(0)
  b = f32[256,256] parameter(1)
  ROOT x = f32[256,256] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
})",
                                      4);
}

}  // namespace
}  // namespace xla
