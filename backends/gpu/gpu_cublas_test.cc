// The gpu backend's dots through cuBLAS (GpuExecutable's RunGemm): with the fake cuBLAS
// (testing/fake_libcublas.cc), which follows cublasGemmStridedBatchedEx's column-major
// conventions and computes on the host in stream order, every kind of dot the plan hands to
// cuBLAS (IsCublasGemm, operands stored transposed included) agrees with the interpreter, and
// does go through cuBLAS. The emulated
// op suites cover the kernels that run when cuBLAS is missing.

#include <string>
#include <vector>

#include "backends/gpu/testing/emulated_gpu.h"
#include "backends/gpu/testing/fake_cuda_hooks.h"
#include "backends/gpu/testing/gpu_test_modules.h"
#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace gpu {
namespace {

namespace modules = ::xla::gpu::testing;
using ::xla::testing::LiteralNear;
using ::xla::testing::RunHloOn;
using ::xla::testing::SharedInterpreter;

// Products the fake cuBLAS has been asked for so far.
int Gemms() {
  auto hook = FakeCudaHook<int (*)()>("xla_fake_cublas_gemms", XLA_FAKE_LIBCUBLAS);
  return hook == nullptr ? -1 : hook();
}

struct DotCase {
  std::string name;
  std::string hlo;
  std::vector<std::pair<PrimitiveType, std::vector<int64_t>>> args;
  double atol, rtol;
  int gemms;         // products cuBLAS computes
  int kernels = -1;  // kernels launched besides (-1: not counted)
};

std::string Dot(const std::string& lhs, const std::string& rhs, const std::string& out, const std::string& dims,
                const std::string& precision = "highest") {
  return "HloModule dot\nENTRY e {\n  a = " + lhs + " parameter(0)\n  b = " + rhs + " parameter(1)\n  ROOT d = " + out +
         " dot(a, b), " + dims + ", operand_precision={" + precision + "," + precision + "}\n}\n";
}

class GpuCublasTest : public ::testing::TestWithParam<DotCase> {};

TEST_P(GpuCublasTest, AgreesWithTheInterpreterThroughCublas) {
  const DotCase& c = GetParam();
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  std::vector<Literal> args;
  uint64_t seed = 7;
  for (const auto& [type, dims] : c.args) args.push_back(modules::RandomLiteral(type, dims, seed++));
  absl::StatusOr<Literal> expected = RunHloOn(*SharedInterpreter(), c.hlo, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  const int before = Gemms(), launched = EmulatedLaunches();
  EXPECT_TRUE(LiteralNear(*expected, RunHloOn(*gpu, c.hlo, args), c.rtol, c.atol));
  EXPECT_EQ(Gemms() - before, c.gemms);
  if (c.kernels >= 0) {
    EXPECT_EQ(EmulatedLaunches() - launched, c.kernels);
  }
}

const char kCanonical[] = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
const char kBatched[] = "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}";
// Operands stored transposed (x . w^T, x^T . g, both; batched): cuBLAS reads them through its
// transpose operations (FoldTransposesIntoGemms), no transposing kernel runs first.
const char kRhsT[] = "lhs_contracting_dims={1}, rhs_contracting_dims={1}";
const char kLhsT[] = "lhs_contracting_dims={0}, rhs_contracting_dims={0}";
const char kBothT[] = "lhs_contracting_dims={0}, rhs_contracting_dims={1}";
const char kBatchedRhsT[] = "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}";
const char kBatchedLhsT[] = "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}";

INSTANTIATE_TEST_SUITE_P(
    Dots, GpuCublasTest,
    ::testing::Values(
        DotCase{"f32", Dot("f32[64,48]", "f32[48,80]", "f32[64,80]", kCanonical), {{F32, {64, 48}}, {F32, {48, 80}}},
                1e-5, 1e-5, 1, 0},
        DotCase{"f32_rhs_transposed", Dot("f32[64,48]", "f32[80,48]", "f32[64,80]", kRhsT),
                {{F32, {64, 48}}, {F32, {80, 48}}}, 1e-5, 1e-5, 1, 0},
        DotCase{"f32_lhs_transposed", Dot("f32[48,64]", "f32[48,80]", "f32[64,80]", kLhsT),
                {{F32, {48, 64}}, {F32, {48, 80}}}, 1e-5, 1e-5, 1, 0},
        DotCase{"f64_both_transposed", Dot("f64[17,33]", "f64[29,17]", "f64[33,29]", kBothT),
                {{F64, {17, 33}}, {F64, {29, 17}}}, 1e-12, 1e-12, 1, 0},
        DotCase{"bf16_rhs_transposed", Dot("bf16[32,64]", "bf16[16,64]", "bf16[32,16]", kRhsT),
                {{BF16, {32, 64}}, {BF16, {16, 64}}}, 0.1, 1e-2, 1, 0},
        DotCase{"batched_rhs_transposed", Dot("f32[3,16,24]", "f32[3,40,24]", "f32[3,16,40]", kBatchedRhsT),
                {{F32, {3, 16, 24}}, {F32, {3, 40, 24}}}, 1e-5, 1e-5, 1, 0},
        DotCase{"batched_lhs_transposed", Dot("f32[3,24,16]", "f32[3,24,40]", "f32[3,16,40]", kBatchedLhsT),
                {{F32, {3, 24, 16}}, {F32, {3, 24, 40}}}, 1e-5, 1e-5, 1, 0},
        DotCase{"f64", Dot("f64[33,17]", "f64[17,29]", "f64[33,29]", kCanonical), {{F64, {33, 17}}, {F64, {17, 29}}},
                1e-12, 1e-12, 1},
        DotCase{"bf16", Dot("bf16[32,64]", "bf16[64,16]", "bf16[32,16]", kCanonical),
                {{BF16, {32, 64}}, {BF16, {64, 16}}}, 0.1, 1e-2, 1},
        DotCase{"f16_to_f32", Dot("f16[16,32]", "f16[32,8]", "f32[16,8]", kCanonical),
                {{F16, {16, 32}}, {F16, {32, 8}}}, 1e-3, 1e-3, 1},
        DotCase{"batched", Dot("f32[3,16,24]", "f32[3,24,40]", "f32[3,16,40]", kBatched),
                {{F32, {3, 16, 24}}, {F32, {3, 24, 40}}}, 1e-5, 1e-5, 1},
        // DEFAULT precision: TF32 inputs (10-bit mantissas), as the device check allows.
        DotCase{"f32_default_tf32", Dot("f32[64,48]", "f32[48,80]", "f32[64,80]", kCanonical, "default"),
                {{F32, {64, 48}}, {F32, {48, 80}}}, 1e-2, 0.5, 1},
        DotCase{"mlp_forward", modules::MlpModule(64, /*highest=*/true),
                {{F32, {64, 784}}, {F32, {784, 1024}}, {F32, {1024}}, {F32, {1024, 1024}}, {F32, {1024}},
                 {F32, {1024, 10}}, {F32, {10}}},
                1e-3, 1e-5, 3}),
    [](const ::testing::TestParamInfo<DotCase>& info) { return info.param.name; });

}  // namespace
}  // namespace gpu
}  // namespace xla
