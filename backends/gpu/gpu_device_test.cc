// The gpu backend on a real GPU against the interpreter (the reference): each module runs on
// both and must agree, exactly for integer and data movement, within the cpu backend's
// stated bounds for f32 math. Without a GPU (no driver, no device) every test is skipped
// with the reason; tests/gpu/device_check.sh runs this binary on a GPU machine.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/testing/gpu_test_modules.h"
#include "backends/testing/hlo_test_util.h"
#include "hlo/float_types.h"
#include "gtest/gtest.h"
#include "hlo/shape_util.h"

namespace xla {
namespace gpu {
namespace {

namespace modules = ::xla::gpu::testing;
using ::xla::testing::LiteralEqual;
using ::xla::testing::LiteralNear;
using ::xla::testing::RunHlo;

// Seeded values (gpu_test_modules.h): floats in [-range, range), integers in [-100, 100).
Literal Random(PrimitiveType type, std::vector<int64_t> dims, uint32_t seed, float range = 2.0f) {
  Literal literal = *Literal::Create(ShapeUtil::MakeShape(type, dims));
  uint64_t state = seed;
  modules::FillRandom(&literal, literal.shape(), &state, range);
  return literal;
}

// Literals are move-only, so argument lists are built by moving.
template <typename... Ls>
std::vector<Literal> Args(Ls&&... literals) {
  std::vector<Literal> v;
  (v.push_back(std::move(literals)), ...);
  return v;
}

class GpuDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterGpuBackend();
    absl::StatusOr<std::unique_ptr<backend::Backend>> b = backend::CreateBackend("gpu");
    if (!b.ok()) GTEST_SKIP() << "no GPU to run on: " << b.status();
  }

  // The module on gpu and on the interpreter, compared.
  static ::testing::AssertionResult Agree(const std::string& hlo, const std::vector<Literal>& args, double rtol,
                                          double atol) {
    absl::StatusOr<Literal> expected = RunHlo(hlo, args, "interpreter");
    if (!expected.ok()) return ::testing::AssertionFailure() << "interpreter: " << expected.status();
    absl::StatusOr<Literal> actual = RunHlo(hlo, args, "gpu");
    if (rtol == 0 && atol == 0) return LiteralEqual(*expected, actual);
    return LiteralNear(*expected, actual, rtol, atol);
  }
};

TEST_F(GpuDeviceTest, Axpy) {
  EXPECT_TRUE(Agree(R"(HloModule axpy
ENTRY main {
  a = f32[] parameter(0)
  x = f32[1000] parameter(1)
  y = f32[1000] parameter(2)
  ba = f32[1000] broadcast(a), dimensions={}
  ax = f32[1000] multiply(ba, x)
  ROOT r = f32[1000] add(ax, y)
})",
                    Args(Random(F32, {}, 1), Random(F32, {1000}, 2), Random(F32, {1000}, 3)), 0, 0));
}

TEST_F(GpuDeviceTest, GeluTanhOverManyBlocks) {
  // 4M elements: more than the grid, so each thread strides over several.
  EXPECT_TRUE(Agree(modules::GeluModule("2048,2048"),
                    Args(Random(F32, {2048, 2048}, 4, 4.0f)), 1e-6, 1e-6));
}

TEST_F(GpuDeviceTest, RowSoftmax) {
  EXPECT_TRUE(Agree(modules::SoftmaxModule(64, 128),
                    Args(Random(F32, {64, 128}, 5, 8.0f)), 1e-5, 1e-7));
}

TEST_F(GpuDeviceTest, RowKernelsWithManyRowsPerBlockAndColumnReductions) {
  // 300 rows of 35 (a row kernel whose blocks take several rows), and a column reduction (a
  // thread per output); the sums reassociate, so they are held to a sum tolerance.
  EXPECT_TRUE(Agree(modules::kReductionsModule,
                    Args(Random(F32, {300, 7, 5}, 10), Random(S32, {40, 33}, 11)), 1e-5, 1e-6));
}

TEST_F(GpuDeviceTest, DotConvolutionReduceWindowGather) {
  EXPECT_TRUE(Agree(modules::kContractionsModule,
                    Args(Random(F32, {32, 48}, 12), Random(F32, {48, 16}, 13), Random(BF16, {4, 8, 16}, 14),
                         Random(BF16, {4, 16, 8}, 15), Random(F32, {2, 9, 9, 3}, 16), Random(F32, {3, 3, 3, 5}, 17),
                         Random(S32, {6, 1}, 18)),
                    1e-5, 1e-4));  // f32 sums of up to 48 terms, accumulated in another order
}

TEST_F(GpuDeviceTest, IntegersBf16AndDataMovementAreExact) {
  EXPECT_TRUE(Agree(modules::kMixedModule,
                    Args(Random(S32, {16, 8}, 6), Random(S32, {16, 8}, 7), Random(F32, {8, 16}, 8)), 0, 0));
}

TEST_F(GpuDeviceTest, ExpLogLogisticWithinTheirBounds) {
  EXPECT_TRUE(Agree(modules::kMathModule,
                    Args(Random(F32, {100000}, 9, 20.0f)), 2e-6, 1e-30));
}

TEST_F(GpuDeviceTest, IntegerArithmeticIsExact) {
  EXPECT_TRUE(Agree(modules::kIntegersModule, Args(Random(S32, {4096}, 19), Random(S32, {4096}, 20)), 0, 0));
}

TEST_F(GpuDeviceTest, EveryFloatOpThroughLibdevice) {
  // Transcendentals within a few ulps of libm (tests/gpu/gpu_bundle.cc has the same bounds).
  struct Type {
    PrimitiveType type;
    const char* name;
    double rtol, atol;
  };
  for (const Type& t : {Type{F32, "f32", 4e-6, 1e-7}, Type{F64, "f64", 1e-13, 1e-300}, Type{F16, "f16", 2e-3, 1e-4},
                        Type{BF16, "bf16", 1.6e-2, 1e-3}}) {
    EXPECT_TRUE(Agree(modules::FloatOpsModule(t.name, 4096), Args(Random(t.type, {4096}, 28), Random(t.type, {4096}, 29)),
                      t.rtol, t.atol))
        << t.name;
  }
}

TEST_F(GpuDeviceTest, WhileAndConditional) {
  // Bounds as in tests/gpu/gpu_bundle.cc (ulp-level differences that the chains amplify).
  EXPECT_TRUE(Agree(modules::kWhileModule, Args(Random(F32, {1000}, 30)), 1e-4, 1e-6));
  EXPECT_TRUE(Agree(modules::kDataDependentWhileModule, Args(Random(F32, {1000}, 31)), 0, 0));
  for (int k : {0, 1, 2, -1}) {
    for (bool flag : {true, false}) {
      EXPECT_TRUE(Agree(modules::kConditionalModule,
                        Args(Literal::CreateR0<int32_t>(k), Random(F32, {1000}, 32), Literal::CreateR0<bool>(flag)),
                        4e-6, 2e-6))
          << k << " " << flag;
    }
  }
}

TEST_F(GpuDeviceTest, SortScatterAndCollectivesAreExact) {
  EXPECT_TRUE(Agree(modules::kSortModule, Args(Random(F32, {16, 300}, 40), Random(S32, {16, 300}, 41)), 0, 0));
  EXPECT_TRUE(Agree(modules::kLongSortModule, Args(Random(F32, {3, 9000}, 52)), 0, 0));
  EXPECT_TRUE(Agree(modules::kScatterModule,
                    Args(Random(F32, {10, 4}, 42), Random(F32, {6, 4}, 43), Random(F32, {4, 3, 4}, 44)), 0, 0));
  EXPECT_TRUE(Agree(modules::kSelectAndScatterModule,
                    Args(Random(F32, {12, 10}, 45), Random(F32, {6, 5}, 46), Random(F32, {8}, 47), Random(S32, {8}, 48),
                         Random(F32, {5}, 49), Random(S32, {5}, 50)),
                    0, 0));
  EXPECT_TRUE(Agree(modules::kCollectivesModule, Args(Random(F32, {64, 8}, 51)), 0, 0));
  EXPECT_TRUE(Agree(modules::kVariadicReduceModule, Args(Random(F32, {64, 100}, 53)), 0, 0));
}

TEST_F(GpuDeviceTest, MlpForward) {
  EXPECT_TRUE(Agree(modules::MlpModule(64, /*highest=*/true),
                    Args(Random(F32, {64, 784}, 21), Random(F32, {784, 1024}, 22), Random(F32, {1024}, 23),
                         Random(F32, {1024, 1024}, 24), Random(F32, {1024}, 25), Random(F32, {1024, 10}, 26),
                         Random(F32, {10}, 27)),
                    1e-3, 1e-5));
}

}  // namespace
}  // namespace gpu
}  // namespace xla
