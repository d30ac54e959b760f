// Differential testing: random small graphs (backends/testing/random_graphs.h) of elementwise /
// broadcast / reduce / dot / slice / transpose / reverse ops over random shapes, run on cpu and
// on the interpreter and compared (bit-exact for s32 graphs; a tolerance for f32, whose sums
// and dots are reassociated).
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/testing/random_graphs.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

void RunRandomGraphs(const std::string& type, int count, double rtol) {
  for (int i = 0; i < count; ++i) {
    std::vector<Shape> shapes;
    xla::testing::RandomGraph builder(1000 + i, type);
    const std::string hlo = builder.Build(&shapes);
    std::mt19937_64 rng(i);
    std::vector<Literal> args;
    for (const Shape& s : shapes) args.push_back(testing::RandomLiteral(s, &rng, /*specials=*/false));
    EXPECT_TRUE(testing::SameOnBothBackends(hlo, args, rtol, rtol)) << "graph " << i;
  }
}

TEST(CpuDifferential, RandomF32Graphs) { RunRandomGraphs("f32", 40, 2e-4); }
TEST(CpuDifferential, RandomS32GraphsBitExact) { RunRandomGraphs("s32", 40, -1); }

}  // namespace
}  // namespace cpu
}  // namespace xla
