// get-dimension-size and set-dimension-size on cpu against the interpreter: shapes are
// static, so sizes are the extents (bounds) and set-dimension-size keeps the values.
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::SameOnBothBackends;
using xla::testing::L;

TEST(CpuDimensionSize, GetEachDimensionUnderEachLayout) {
  for (const char* layout : {"{0,2,1}", "{2,1,0}"}) {
    for (int dim = 0; dim < 3; ++dim) {
      const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  p = f32[3,0,7]", layout,
                                           " parameter(0)\n  d = s32[] get-dimension-size(p), dimensions={", dim,
                                           "}\n  ROOT r = s32[4] broadcast(d), dimensions={}\n}\n");
      auto empty = Literal::Create(ShapeUtil::MakeShape(F32, {3, 0, 7}));
      ASSERT_TRUE(empty.ok());
      EXPECT_TRUE(SameOnBothBackends(hlo, {*std::move(empty)})) << hlo;
    }
  }
}

TEST(CpuDimensionSize, SetKeepsTheValues) {
  const std::string hlo = R"(HloModule m
ENTRY e {
  p = s32[2,3] parameter(0)
  n = s32[] constant(2)
  s = s32[2,<=3] set-dimension-size(p, n), dimensions={1}
  ROOT r = s32[2,<=3] negate(s)
})";
  EXPECT_TRUE(SameOnBothBackends(hlo, {L("s32[2,3] {{1, 2, 3}, {4, 5, -6}}")}));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
