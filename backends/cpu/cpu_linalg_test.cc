// ragged-dot in every mode (integers: bit-exact), and
// cholesky, triangular-solve and fft on cpu (runtime routines) against the interpreter,
// bit-exact: both compute in double / complex<double> in the same order and round once
// (matrices of more than 128 rows go through LAPACK and BLAS, to a tolerance).
// Batches, both triangles, every transpose option, both sides, non-default layouts,
// matrices that are not positive definite, and FFT lengths that are and are not powers of two.
#include <complex>
#include <utility>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/runtime/runtime.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

using testing::SameOnBothBackends;

// `batch` matrices (hlo_test_util.h).
Literal PositiveDefinite(PrimitiveType t, int64_t batch, int64_t n, uint64_t seed, int64_t not_definite = -1) {
  return xla::testing::PositiveDefinite(t, {batch}, n, seed, not_definite);
}

Literal Random(PrimitiveType t, std::vector<int64_t> dims, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-4, 4);
  auto literal = Literal::Create(ShapeUtil::MakeShape(t, dims));
  EXPECT_TRUE(literal.ok());
  const bool complex = primitive_util::IsComplexType(t);
  for (int64_t i = 0; i < ShapeUtil::ElementsIn(literal->shape()); ++i) {
    literal->SetFromComplex(i, {u(rng), complex ? u(rng) : 0.0});
  }
  return *std::move(literal);
}

// Each ragged mode, with group bounds that depend on the output index alone and with a
// group_sizes prefix dim that is contracted (bounds that change with k); sizes include zero
// and negative values.
TEST(CpuLinalg, RaggedDotEveryModeAgainstTheInterpreter) {
  struct Case {
    std::string lhs, rhs, gs, out, dnums;
  };
  const Case cases[] = {
      {"s32[2,5,3]", "s32[3,2,3,4]", "s32[2,3]", "s32[2,5,4]",
       "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={2}, "
       "lhs_ragged_dims={1}, rhs_group_dims={0}"},
      {"s32[3,5,2]", "s32[2,3,2,4]", "s32[3,2]", "s32[5,4]",
       "lhs_contracting_dims={0,2}, rhs_contracting_dims={1,2}, lhs_ragged_dims={1}, rhs_group_dims={0}"},
      {"s32[2,3,6]", "s32[2,6,4]", "s32[2,3]", "s32[3,2,3,4]",
       "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, "
       "lhs_ragged_dims={2}"},
      {"s32[2,6]", "s32[2,6,4]", "s32[2,3]", "s32[3,4]",
       "lhs_contracting_dims={0,1}, rhs_contracting_dims={0,1}, lhs_ragged_dims={1}"},
  };
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int32_t> value(-50, 50), size(-1, 4);
  for (const Case& c : cases) {
    const std::string hlo = "HloModule m\nENTRY main {\n  a = " + c.lhs + " parameter(0)\n  b = " + c.rhs +
                            " parameter(1)\n  g = " + c.gs + " parameter(2)\n  ROOT d = " + c.out +
                            " ragged-dot(a, b, g), " + c.dnums + "\n}";
    std::vector<Literal> args;
    const std::string* shapes[] = {&c.lhs, &c.rhs, &c.gs};
    for (const std::string* shape_text : shapes) {
      const std::string& shape = *shape_text;
      auto parsed = ParseShape(shape);
      ASSERT_TRUE(parsed.ok()) << shape;
      auto literal = Literal::Create(*parsed);
      ASSERT_TRUE(literal.ok());
      const bool sizes = shape_text == &c.gs;
      for (int64_t i = 0; i < ShapeUtil::ElementsIn(*parsed); ++i) {
        literal->SetFromComplex(i, {static_cast<double>(sizes ? size(rng) : value(rng)), 0.0});
      }
      args.push_back(*std::move(literal));
    }
    EXPECT_TRUE(SameOnBothBackends(hlo, args)) << c.dnums;
  }
}

// The relative and absolute tolerance for matrices of `n` rows of type `t`: none up to 128
// rows (the runtime's loops, in the interpreter's order), a rounding or so of the narrow
// types past them (LAPACK and BLAS compute in double too, in another order); doubles keep
// the reordering's error, which a unit-diagonal solve whose solution grows to 1e34 amplifies
// to about 1e-12.
std::pair<double, double> Tolerance(PrimitiveType t, int64_t n) {
  if (n <= 128) return {0, 0};
  if (t == F16) return {2e-3, 1e-4};
  const bool single = t == F32 || t == C64;
  return {single ? 1e-6 : 1e-10, single ? 1e-7 : 1e-14};
}

TEST(CpuLinalg, CholeskyBothTrianglesLayoutsAndNotDefinite) {
  for (const int64_t n : {6, 150}) {
    for (const char* type : {"f32", "f64", "c64", "c128", "f16"}) {
      const PrimitiveType t = *primitive_util::StringToPrimitiveType(type);
      for (const char* lower : {"true", "false"}) {
        for (const char* layout : {"{2,1,0}", "{1,2,0}"}) {
          const std::string shape = absl::StrCat(type, "[3,", n, ",", n, "]", layout);
          const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  ROOT c = ", shape,
                                               " cholesky(a), lower=", lower, "\n}\n");
          const auto [rtol, atol] = Tolerance(t, n);
          EXPECT_TRUE(SameOnBothBackends(hlo, {PositiveDefinite(t, 3, n, 7, /*not_definite=*/1)}, rtol, atol)) << hlo;
        }
      }
    }
  }
}

TEST(CpuLinalg, TriangularSolveEveryOption) {
  for (const int64_t m : {5, 150}) {
    for (const char* type : {"f32", "f64", "c64"}) {
      const PrimitiveType t = *primitive_util::StringToPrimitiveType(type);
      for (bool left : {true, false}) {
        for (const char* lower : {"true", "false"}) {
          for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
            for (const char* unit : {"true", "false"}) {
              const std::vector<int64_t> b_dims = left ? std::vector<int64_t>{2, m, 3} : std::vector<int64_t>{2, 3, m};
              const std::string b = absl::StrCat(type, "[", absl::StrJoin(b_dims, ","), "]");
              const std::string hlo = absl::StrCat(
                  "HloModule m\nENTRY e {\n  a = ", type, "[2,", m, ",", m, "]{1,2,0} parameter(0)\n  b = ", b,
                  " parameter(1)\n  ROOT x = ", b, " triangular-solve(a, b), left_side=", left ? "true" : "false",
                  ", lower=", lower, ", unit_diagonal=", unit, ", transpose_a=", transpose, "\n}\n");
              // Diagonally dominant a keeps x moderate; b at random.
              const auto [rtol, atol] = Tolerance(t, m);
              EXPECT_TRUE(SameOnBothBackends(hlo, {PositiveDefinite(t, 2, m, 11), Random(t, b_dims, 12)}, rtol, atol))
                  << hlo;
            }
          }
        }
      }
    }
  }
}

// Past 128 rows a factor and two solves stay single ops (no loops: nothing blocks them on
// cpu), computed by LAPACK and BLAS within a few ulps of the interpreter's double result; a
// matrix that is not positive definite still gives an all-NaN factor.
TEST(CpuLinalg, LargeSolversRunThroughLapack) {
  for (const char* type : {"f32", "c128"}) {
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(type);
    const std::string a = absl::StrCat(type, "[2,150,150]"), b = absl::StrCat(type, "[2,150,7]");
    const std::string hlo = absl::StrCat(
        "HloModule m\nENTRY e {\n  a = ", a, " parameter(0)\n  b = ", b, " parameter(1)\n  l = ", a,
        " cholesky(a), lower=false\n  x = ", b, " triangular-solve(l, b), left_side=true, lower=false, transpose_a=ADJOINT\n"
        "  y = ", b, " triangular-solve(l, x), left_side=true, lower=false, transpose_a=NO_TRANSPOSE\n  ROOT t = (", a,
        ", ", b, ") tuple(l, y)\n}\n");
    testing::RegisterBackendsOnce();
    absl::StatusOr<std::unique_ptr<backend::Backend>> cpu = backend::CreateBackend("cpu");
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<std::unique_ptr<backend::Executable>> exe =
        (*cpu)->Compile(*ParseAndReturnUnverifiedModule(hlo), backend::CompileOptions());
    ASSERT_TRUE(exe.ok()) << exe.status();
    int loops = 0, solvers = 0;
    for (const auto& computation : (*exe)->module().computations()) {
      for (const auto& instruction : computation->instructions()) {
        loops += instruction->opcode() == HloOpcode::kWhile;
        solvers += instruction->opcode() == HloOpcode::kCholesky || instruction->opcode() == HloOpcode::kTriangularSolve;
      }
    }
    EXPECT_EQ(loops, 0);
    EXPECT_EQ(solvers, 3);
    const auto [rtol, atol] = Tolerance(t, 150);
    EXPECT_TRUE(SameOnBothBackends(hlo, {PositiveDefinite(t, 2, 150, 21), Random(t, {2, 150, 7}, 22)}, rtol, atol))
        << hlo;
    EXPECT_TRUE(SameOnBothBackends(hlo, {PositiveDefinite(t, 2, 150, 23, /*not_definite=*/1), Random(t, {2, 150, 7}, 24)},
                                   rtol, atol))
        << hlo;
  }
}

struct FftCase {
  const char* type;
  const char* in;
  const char* out;
  const char* length;
};

// Each case's fft of random values on cpu, bit for bit the interpreter's.
void ExpectFftsAgree(absl::Span<const FftCase> cases, uint64_t seed) {
  for (const FftCase& c : cases) {
    const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  x = ", c.in, " parameter(0)\n  ROOT f = ", c.out,
                                         " fft(x), fft_type=", c.type, ", fft_length=", c.length, "\n}\n");
    const std::string in(c.in);
    const PrimitiveType t = *primitive_util::StringToPrimitiveType(in.substr(0, in.find('[')));
    std::vector<int64_t> dims;
    for (size_t p = in.find('[') + 1; p < in.find(']');) {
      const size_t end = std::min(in.find(',', p), in.find(']', p));
      dims.push_back(std::stoll(in.substr(p, end - p)));
      p = end + 1;
    }
    EXPECT_TRUE(SameOnBothBackends(hlo, {Random(t, dims, seed++)})) << hlo;
  }
}

TEST(CpuLinalg, FftEveryTypeLengthAndLayout) {
  ExpectFftsAgree(
      {
          {"FFT", "c64[3,8]", "c64[3,8]", "{8}"},          {"IFFT", "c128[3,6]", "c128[3,6]", "{6}"},
          {"FFT", "c64[4,5]{0,1}", "c64[4,5]", "{4,5}"},   {"RFFT", "f32[2,8]", "c64[2,5]", "{8}"},
          {"RFFT", "f64[2,3,7]", "c128[2,3,4]", "{3,7}"},  {"IRFFT", "c64[2,5]", "f32[2,8]", "{8}"},
          {"IRFFT", "c128[3,4]{0,1}", "f64[3,7]", "{7}"},  {"IFFT", "c64[2,2,4,4]", "c64[2,2,4,4]", "{2,4,4}"},
      },
      40);
}

// Many lines over the threads, and long lines fewer than SetSplitLinesBelow says (raised here
// so that several take that path on any machine), each split over the threads step by step
// (fft_core.h: radix-4/2 stages; mixed radices 45000 = 2^3 3^2 5^4; Bluestein's chirp and
// filter products and its power-of-two stages for the prime 32771; the half-size transform
// inside an even RFFT or IRFFT of 65536 points). Neither changes a bit.
TEST(CpuLinalg, FftLinesOverThreadsAndSplitLines) {
  ExpectFftsAgree({{"FFT", "c64[64,512]", "c64[64,512]", "{512}"},
                   {"IFFT", "c128[40,100]{0,1}", "c128[40,100]", "{100}"},
                   {"FFT", "c64[16,1009]", "c64[16,1009]", "{1009}"},
                   {"RFFT", "f32[4,6,64]{1,2,0}", "c64[4,6,33]", "{6,64}"},
                   {"IRFFT", "c64[3,32,65]", "f32[3,32,128]", "{32,128}"},
                   // Slabs of the untransformed dimensions over the threads (64 of them).
                   {"FFT", "c64[64,12,10]{0,2,1}", "c64[64,12,10]", "{12,10}"},
                   {"RFFT", "f64[8,8,5,16]", "c128[8,8,5,9]{3,1,2,0}", "{5,16}"},
                   {"IRFFT", "c128[64,7,9]{1,2,0}", "f64[64,7,16]", "{7,16}"},
                   {"IFFT", "c64[64,3,5,61]", "c64[64,3,5,61]", "{3,5,61}"}},
                  60);
  SetSplitLinesBelow(64);
  ExpectFftsAgree({{"FFT", "c64[2,32768]", "c64[2,32768]", "{32768}"},
                   {"IFFT", "c128[3,45000]", "c128[3,45000]", "{45000}"},
                   {"FFT", "c64[2,32771]{0,1}", "c64[2,32771]", "{32771}"},
                   {"RFFT", "f32[2,65536]", "c64[2,32769]", "{65536}"},
                   {"IRFFT", "c64[2,32769]", "f32[2,65536]", "{65536}"},
                   {"IRFFT", "c128[1,16386]", "f64[1,32771]", "{32771}"},
                   {"FFT", "c64[2,4,32768]", "c64[2,4,32768]", "{4,32768}"}},
                  70);
  SetSplitLinesBelow(0);
}

// Executions on several threads at once: the runtime's kept fft buffers are one shared set
// (for a transform over all the threads: one slab, or long lines split) that one execution
// holds at a time, the others getting buffers of their own, and each thread's own set (for
// slabs over the threads); every result is still the interpreter's for its own input.
TEST(CpuLinalg, FftConcurrentExecutionsKeepTheirBuffersApart) {
  const std::vector<FftCase> cases = {{"RFFT", "f32[1,96,128]", "c64[1,96,65]", "{96,128}"},
                                      {"FFT", "c64[1,40000]", "c64[1,40000]", "{40000}"},
                                      {"IFFT", "c64[8,24,20]", "c64[8,24,20]", "{24,20}"}};
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 4; ++t) {
    threads.emplace_back([&cases, t] {
      for (int round = 0; round < 2; ++round) ExpectFftsAgree(cases, 100 + 10 * t + round);
    });
  }
  for (std::thread& thread : threads) thread.join();
}

}  // namespace
}  // namespace cpu
}  // namespace xla
