// Differential testing of the gpu backend on the kernel emulator: random small graphs
// (backends/testing/random_graphs.h) over sizes that reach the gpu's own kernel shapes (rows
// of 4k elements read four at a time and of odd lengths, rows kept in registers, transposes
// of 16 or more in both dimensions through shared-memory tiles, reductions to rows and
// columns), compared with the interpreter: bit-exact for s32, within a tolerance for f32
// (sums and dots reassociated, transcendentals from libdevice).

#include <string>
#include <vector>

#include "backends/gpu/testing/emulated_gpu.h"
#include "backends/gpu/testing/gpu_test_modules.h"
#include "backends/testing/hlo_test_util.h"
#include "backends/testing/random_graphs.h"
#include "gtest/gtest.h"

namespace xla {
namespace gpu {
namespace {

void RunRandomGraphs(const std::string& type, int count, double rtol) {
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  for (int i = 0; i < count; ++i) {
    std::vector<Shape> shapes;
    xla::testing::RandomGraph graph(5000 + i, type, {1, 4, 17, 36, 132});
    const std::string hlo = graph.Build(&shapes);
    std::vector<Literal> args;
    for (size_t p = 0; p < shapes.size(); ++p) {
      const std::vector<int64_t> dims(shapes[p].dimensions().begin(), shapes[p].dimensions().end());
      args.push_back(testing::RandomLiteral(shapes[p].element_type(), dims, 100 * i + p));
    }
    absl::StatusOr<Literal> expected = xla::testing::RunHloOn(*xla::testing::SharedInterpreter(), hlo, args);
    ASSERT_TRUE(expected.ok()) << expected.status() << "\n" << hlo;
    absl::StatusOr<Literal> actual = xla::testing::RunHloOn(*gpu, hlo, args);
    EXPECT_TRUE(rtol < 0 ? xla::testing::LiteralEqual(*expected, actual)
                         : xla::testing::LiteralNear(*expected, actual, rtol, rtol))
        << "graph " << i << ":\n" << hlo;
  }
}

TEST(GpuDifferential, RandomF32Graphs) { RunRandomGraphs("f32", 120, 2e-4); }
TEST(GpuDifferential, RandomS32GraphsBitExact) { RunRandomGraphs("s32", 120, -1); }

}  // namespace
}  // namespace gpu
}  // namespace xla
