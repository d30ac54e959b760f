// Blocked cholesky and triangular-solve (blocked_solvers.h): the rewritten module on the
// interpreter against the original for every variant (lower/upper, left/right, transposes,
// unit diagonal, batches, sizes that need padding, real and complex), values in the triangle
// the op does not read (NaN there changes nothing), factors that fail (all NaN, per matrix),
// and which ops are left alone. The backends run it in cpu_linalg_test and
// gpu_blocked_solvers_test.
#include "backends/cpu/passes/blocked_solvers.h"

#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/passes/pass_test_util.h"
#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "hlo/primitive_util.h"

namespace xla {
namespace cpu {
namespace {

using ::xla::testing::ExecuteOnDevice0;
using ::xla::testing::LiteralNear;
using ::xla::testing::SharedInterpreter;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
using C = std::complex<double>;

using testing::ParseOrNull;

std::string ArrayText(const std::string& type, std::vector<int64_t> dims) {
  return absl::StrCat(type, "[", absl::StrJoin(dims, ","), "]");
}

std::vector<int64_t> Dims(const std::vector<int64_t>& batch, int64_t rows, int64_t cols) {
  std::vector<int64_t> dims = batch;
  dims.push_back(rows);
  dims.push_back(cols);
  return dims;
}

// A literal of `dims` whose matrix (b, i, j) element is value(b, i, j).
template <typename F>
Literal Matrices(PrimitiveType type, const std::vector<int64_t>& dims, F value) {
  const int64_t rows = dims[dims.size() - 2], cols = dims.back();
  absl::StatusOr<Literal> literal = Literal::Create(ShapeUtil::MakeShape(type, dims));
  EXPECT_TRUE(literal.ok()) << literal.status();
  const int64_t count = ShapeUtil::ElementsIn(literal->shape());
  for (int64_t e = 0; e < count; ++e) {
    const C v = value(e / (rows * cols), (e / cols) % rows, e % cols);
    if (primitive_util::IsComplexType(type)) {
      literal->SetFromComplex(e, v);
    } else {
      literal->SetFromDouble(e, v.real());
    }
  }
  return *std::move(literal);
}

// Per matrix, a Hermitian positive definite one (hlo_test_util.h) in the triangle a cholesky
// reads and NaN in the other; matrix `not_definite` is not positive definite.
Literal PositiveDefinite(PrimitiveType type, const std::vector<int64_t>& batch, int64_t n, bool lower, uint64_t seed,
                         int64_t not_definite = -1) {
  Literal a = xla::testing::PositiveDefinite(type, batch, n, seed, not_definite);
  for (int64_t e = 0; e < ShapeUtil::ElementsIn(a.shape()); ++e) {
    const int64_t i = (e / n) % n, j = e % n;
    if (lower ? j > i : j < i) a.SetFromComplex(e, C(kNaN, kNaN));
  }
  return a;
}

std::string TypeName(PrimitiveType type) { return std::string(primitive_util::LowercasePrimitiveTypeName(type)); }

// The module rewritten with `block` (the rewrite must change it and verify) and the original,
// both on the interpreter.
void ExpectRewriteAgrees(const std::string& hlo, const std::vector<Literal>& args, int64_t block, double tol) {
  std::unique_ptr<HloModule> module = ParseOrNull(hlo);
  ASSERT_NE(module, nullptr);
  absl::StatusOr<bool> changed = BlockSolvers(module.get(), block);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  ASSERT_TRUE(VerifyHloModule(*module).ok()) << VerifyHloModule(*module);
  backend::Backend* interpreter = SharedInterpreter();
  ASSERT_NE(interpreter, nullptr);
  absl::StatusOr<Literal> expected = xla::testing::RunHloOn(*interpreter, hlo, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe =
      interpreter->Compile(std::move(module), backend::CompileOptions());
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_TRUE(LiteralNear(*expected, ExecuteOnDevice0(*interpreter, **exe, args), tol, tol)) << hlo;
}

std::string CholeskyModule(PrimitiveType type, const std::vector<int64_t>& batch, int64_t n, bool lower) {
  const std::string shape = ArrayText(TypeName(type), Dims(batch, n, n));
  return absl::StrCat("HloModule c\nENTRY main {\n  a = ", shape, " parameter(0)\n  ROOT l = ", shape,
                      " cholesky(a), lower=", lower ? "true" : "false", "\n}\n");
}

TEST(BlockedSolversTest, CholeskyAgreesWithTheInterpreter) {
  struct Size {
    std::vector<int64_t> batch;
    int64_t n;
  };
  for (PrimitiveType type : {F64, C128, F32, C64}) {
    for (bool lower : {true, false}) {
      for (const Size& s : {Size{{}, 13}, Size{{3}, 16}, Size{{2, 1}, 9}}) {
        SCOPED_TRACE(absl::StrCat(TypeName(type), " lower=", lower, " n=", s.n));
        std::vector<Literal> args;
        args.push_back(PositiveDefinite(type, s.batch, s.n, lower, s.n * 7 + lower));
        const bool single = type == F32 || type == C64;
        ExpectRewriteAgrees(CholeskyModule(type, s.batch, s.n, lower), args, 4, single ? 2e-6 : 1e-11);
      }
    }
  }
}

// A matrix whose pivot in a later block is not positive: all NaN, that matrix only.
TEST(BlockedSolversTest, AFailedFactorIsAllNaN) {
  for (PrimitiveType type : {F64, C128}) {
    for (bool lower : {true, false}) {
      // Matrix 1's element (6, 6), in the second of four blocks, is -1.
      std::vector<Literal> args;
      args.push_back(PositiveDefinite(type, {2}, 13, lower, 5, /*not_definite=*/1));
      ExpectRewriteAgrees(CholeskyModule(type, {2}, 13, lower), args, 4, 1e-11);
      // The rewritten module's result really is NaN for matrix 1 and finite for matrix 0.
      std::unique_ptr<HloModule> module = ParseOrNull(CholeskyModule(type, {2}, 13, lower));
      ASSERT_TRUE(BlockSolvers(module.get(), 4).ok());
      absl::StatusOr<std::unique_ptr<backend::Executable>> exe =
          SharedInterpreter()->Compile(std::move(module), backend::CompileOptions());
      ASSERT_TRUE(exe.ok()) << exe.status();
      absl::StatusOr<Literal> out = ExecuteOnDevice0(*SharedInterpreter(), **exe, args);
      ASSERT_TRUE(out.ok()) << out.status();
      for (int64_t e = 0; e < 2 * 169; ++e) {
        const C v = out->GetAsComplex(e);
        EXPECT_EQ(std::isnan(v.real()), e >= 169) << e;
      }
    }
  }
}

struct SolveVariant {
  bool left, lower, unit;
  std::string transpose;
};

std::string SolveModule(PrimitiveType type, const std::vector<int64_t>& batch, int64_t m, int64_t k,
                        const SolveVariant& v) {
  const std::string a = ArrayText(TypeName(type), Dims(batch, m, m));
  const std::string b = ArrayText(TypeName(type), v.left ? Dims(batch, m, k) : Dims(batch, k, m));
  return absl::StrCat("HloModule s\nENTRY main {\n  a = ", a, " parameter(0)\n  b = ", b, " parameter(1)\n  ROOT x = ", b,
                      " triangular-solve(a, b), left_side=", v.left ? "true" : "false",
                      ", lower=", v.lower ? "true" : "false", ", transpose_a=", v.transpose,
                      v.unit ? ", unit_diagonal=true" : "", "\n}\n");
}

// A well-conditioned triangle (diagonal 2 to 3 in magnitude, small off-diagonal values), NaN
// outside it (and on the diagonal when it is taken as ones); random right-hand sides.
std::vector<Literal> SolveArguments(PrimitiveType type, const std::vector<int64_t>& batch, int64_t m, int64_t k,
                                    const SolveVariant& v, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const bool complex = primitive_util::IsComplexType(type);
  auto random = [&] { return C(u(rng), complex ? u(rng) : 0.0); };
  std::vector<Literal> args;
  args.push_back(Matrices(type, Dims(batch, m, m), [&](int64_t, int64_t i, int64_t j) {
    if (v.lower ? j > i : j < i) return C(kNaN, kNaN);
    if (i == j) return v.unit ? C(kNaN, kNaN) : (2.5 + 0.5 * u(rng)) * (u(rng) < 0 ? C(-1, 0) : C(0.6, 0.8));
    return random() * (1.0 / static_cast<double>(m));
  }));
  args.push_back(Matrices(type, v.left ? Dims(batch, m, k) : Dims(batch, k, m),
                          [&](int64_t, int64_t, int64_t) { return random(); }));
  return args;
}

TEST(BlockedSolversTest, TriangularSolveAgreesWithTheInterpreter) {
  int variants = 0;
  for (PrimitiveType type : {F64, C128}) {
    for (bool left : {true, false}) {
      for (bool lower : {true, false}) {
        for (bool unit : {false, true}) {
          for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
            const SolveVariant v{left, lower, unit, transpose};
            const std::vector<int64_t> batch = unit ? std::vector<int64_t>{2} : std::vector<int64_t>{};
            const int64_t m = lower ? 11 : 12, k = left ? 3 : 5;
            const std::string hlo = SolveModule(type, batch, m, k, v);
            SCOPED_TRACE(hlo);
            ExpectRewriteAgrees(hlo, SolveArguments(type, batch, m, k, v, ++variants), 4, 1e-11);
          }
        }
      }
    }
  }
  EXPECT_EQ(variants, 48);
  // f32 through the same rewrite (computed in f64, converted on the way in and out).
  const SolveVariant v{true, true, false, "TRANSPOSE"};
  ExpectRewriteAgrees(SolveModule(F32, {2}, 17, 4, v), SolveArguments(F32, {2}, 17, 4, v, 99), 4, 1e-5);
}

int CountOpcode(const HloModule& module, HloOpcode opcode, int64_t* largest_order = nullptr) {
  int count = 0;
  for (const auto& computation : module.computations()) {
    for (const auto& hlo : computation->instructions()) {
      if (hlo->opcode() != opcode) continue;
      ++count;
      if (largest_order != nullptr) *largest_order = std::max(*largest_order, hlo->shape().dimensions().back());
    }
  }
  return count;
}

// Up to 2 * block rows the one-thread kernels stay; above, one loop of block-sized ones.
TEST(BlockedSolversTest, WhatIsBlocked) {
  std::unique_ptr<HloModule> small = ParseOrNull(CholeskyModule(F64, {5}, 8, true));
  ASSERT_NE(small, nullptr);
  absl::StatusOr<bool> changed = BlockSolvers(small.get(), 4);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(CountOpcode(*small, HloOpcode::kCholesky), 1);

  std::unique_ptr<HloModule> large = ParseOrNull(CholeskyModule(F64, {}, 9, true));
  ASSERT_NE(large, nullptr);
  ASSERT_TRUE(BlockSolvers(large.get(), 4).ok());
  int64_t order = 0;
  EXPECT_EQ(CountOpcode(*large, HloOpcode::kCholesky, &order), 1);
  EXPECT_EQ(order, 4);
  EXPECT_EQ(CountOpcode(*large, HloOpcode::kWhile), 1);
  EXPECT_EQ(CountOpcode(*large, HloOpcode::kTriangularSolve), 1);

  EXPECT_FALSE(BlockSolvers(large.get(), 0).ok());
  const HloInstruction* root = large->entry_computation()->root_instruction();
  EXPECT_FALSE(BlockedSolverText(*root, 4).ok());  // a call, not a solver
}

}  // namespace
}  // namespace cpu
}  // namespace xla
