#include "backends/cpu/passes/operand_forms.h"

#include <string>

#include "backends/cpu/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::CountOpcode;
using testing::RunAndCompare;

// A module's header and its f32 adder, the reducer of the modules below.
constexpr char kModuleWithAdd[] = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

// f16 and bf16 inputs and inits to an f32 reducer are converted first; the interpreter's
// values are unchanged.
TEST(OperandFormNormalizerTest, ReducerInputsTakeTheReducersTypes) {
  OperandFormNormalizer pass;
  auto result = RunAndCompare(pass, std::string(kModuleWithAdd) + R"(ENTRY e {
  v = f16[3,4] parameter(0)
  w = bf16[3,4] parameter(1)
  i = f32[] constant(0.5)
  h = f16[] constant(0.5)
  r = f32[3] reduce(v, i), dimensions={1}, to_apply=add
  rw = f32[3,2] reduce-window(w, i), window={size=1x2 stride=1x2}, to_apply=add
  ri = f32[3] reduce(v, h), dimensions={1}, to_apply=add
  ROOT t = (f32[3], f32[3,2], f32[3]) tuple(r, rw, ri)
})");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  // v twice (one convert per use), w, and the f16 init h.
  EXPECT_EQ(CountOpcode(*result.module->entry_computation(), HloOpcode::kConvert), 4);
  // Matching types are left alone.
  auto same = RunAndCompare(pass, std::string(kModuleWithAdd) + R"(ENTRY e {
  v = f32[3,4] parameter(0)
  i = f32[] constant(0)
  ROOT r = f32[3] reduce(v, i), dimensions={1}, to_apply=add
})");
  EXPECT_FALSE(same.changed);
}

// An init of a narrower type than the reducer's makes the result that type, rounded at
// each step: refused, naming the instruction, rather than computed wrongly.
TEST(OperandFormNormalizerTest, NarrowInitsOfWideReducersAreRefused) {
  OperandFormNormalizer pass;
  std::unique_ptr<HloModule> module = testing::ParseOrNull(std::string(kModuleWithAdd) + R"(ENTRY e {
  w = f16[4] parameter(0)
  h = f16[] constant(0.25)
  ROOT rw = f16[2] reduce-window(w, h), window={size=2 stride=2}, to_apply=add
})");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<bool> changed = pass.Run(module.get());
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(changed.status().message(),
            "rw: an init value and result of F16 for a reducer of F32 is not supported on this backend");
}

// One rank-1 array of start indices becomes a scalar index per dimension.
TEST(OperandFormNormalizerTest, VectorStartIndicesBecomeScalars) {
  OperandFormNormalizer pass;
  auto result = RunAndCompare(pass, R"(
HloModule m
ENTRY e {
  p = s32[4,6] parameter(0)
  u = s32[2,2] parameter(1)
  i = s32[2] constant({1, 3})
  ds = s32[2,3] dynamic-slice(p, i), dynamic_slice_sizes={2,3}
  dus = s32[4,6] dynamic-update-slice(p, u, i)
  ROOT t = (s32[2,3], s32[4,6]) tuple(ds, dus)
})");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  for (const auto& hlo : result.module->entry_computation()->instructions()) {
    if (hlo->opcode() == HloOpcode::kDynamicSlice) EXPECT_EQ(hlo->operand_count(), 3);
    if (hlo->opcode() == HloOpcode::kDynamicUpdateSlice) EXPECT_EQ(hlo->operand_count(), 4);
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
