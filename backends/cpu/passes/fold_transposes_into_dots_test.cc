#include "backends/cpu/passes/fold_transposes_into_dots.h"

#include <functional>
#include <string>
#include <utility>

#include "backends/cpu/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::CountOpcode;
using testing::RunAndCompare;

// The pass with a GEMM predicate, as the backends run it.
class FoldPass : public HloPass {
 public:
  explicit FoldPass(std::function<bool(const HloInstruction&)> gemm) : gemm_(std::move(gemm)) {}
  std::string_view name() const override { return "fold-transposes-into-dots"; }
  absl::StatusOr<bool> Run(HloModule* module) override { return FoldTransposesIntoDots(module, gemm_); }

 private:
  std::function<bool(const HloInstruction&)> gemm_;
};

bool AnyGemm(const HloInstruction&) { return true; }

// x . w^T as the dot decomposer leaves it: w transposed, then a canonical dot.
constexpr char kXwT[] = R"(
HloModule m
ENTRY e {
  x = f32[3,5] parameter(0)
  w = f32[4,5] parameter(1)
  t = f32[5,4] transpose(w), dimensions={1,0}
  ROOT d = f32[3,4] dot(x, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

const HloInstruction* Root(const HloModule& module) { return module.entry_computation()->root_instruction(); }

TEST(FoldTransposesIntoDotsTest, ARightOperandStoredTransposedIsReadAsStored) {
  FoldPass pass(AnyGemm);
  auto result = RunAndCompare(pass, kXwT);
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  const HloInstruction* dot = Root(*result.module);
  EXPECT_EQ(dot->operand(1)->name(), "w");
  EXPECT_EQ(dot->attrs().dot_dimension_numbers().rhs_contracting_dimensions(0), 1);
  EXPECT_EQ(CountOpcode(*result.module->entry_computation(), HloOpcode::kTranspose), 0);
}

TEST(FoldTransposesIntoDotsTest, BatchedLeftOperandAndATransposeReadElsewhere) {
  FoldPass pass(AnyGemm);
  // x^T . g per batch element, the transposed x also returned: the dot reads x, the
  // transpose stays for the tuple.
  auto result = RunAndCompare(pass, R"(
HloModule m
ENTRY e {
  x = f32[2,6,3] parameter(0)
  g = f32[2,6,4] parameter(1)
  t = f32[2,3,6] transpose(x), dimensions={0,2,1}
  d = f32[2,3,4] dot(t, g), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  ROOT r = (f32[2,3,4], f32[2,3,6]) tuple(d, t)
}
)");
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  const HloInstruction* dot = Root(*result.module)->operand(0);
  EXPECT_EQ(dot->operand(0)->name(), "x");
  EXPECT_EQ(dot->attrs().dot_dimension_numbers().lhs_contracting_dimensions(0), 1);
  EXPECT_EQ(CountOpcode(*result.module->entry_computation(), HloOpcode::kTranspose), 1);
}

TEST(FoldTransposesIntoDotsTest, KeepsWhatNoGemmReadsOrWhatWouldReorderTheResult) {
  struct Case {
    const char* what;
    std::string body;
  };
  const std::vector<Case> cases = {
      // The batch dimension moves: not a swap of the two minor dimensions.
      {"a batch transpose", R"(
  x = f32[6,2,3] parameter(0)
  g = f32[2,6,4] parameter(1)
  t = f32[2,6,3] transpose(x), dimensions={1,0,2}
  ROOT d = f32[2,3,4] dot(t, g), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}
)"},
      // Neither swapped dimension is contracted (an outer product): the result's order would
      // change with them.
      {"two free dimensions", R"(
  x = f32[2,3] parameter(0)
  y = f32[4] parameter(1)
  t = f32[3,2] transpose(x), dimensions={1,0}
  ROOT d = f32[3,2,4] dot(t, y), lhs_contracting_dims={}, rhs_contracting_dims={}
)"},
      {"a three-dimensional rotation", R"(
  x = f32[5,3,2] parameter(0)
  y = f32[5,4] parameter(1)
  t = f32[3,2,5] transpose(x), dimensions={1,2,0}
  ROOT d = f32[3,2,4] dot(t, y), lhs_contracting_dims={2}, rhs_contracting_dims={0}
)"},
  };
  for (const Case& c : cases) {
    FoldPass pass(AnyGemm);
    auto result = RunAndCompare(pass, "HloModule m\nENTRY e {" + c.body + "}\n");
    ASSERT_NE(result.module, nullptr) << c.what;
    EXPECT_FALSE(result.changed) << c.what;
  }
  // A routine that would not take the folded dot: the module is left as it was.
  FoldPass refusing([](const HloInstruction& dot) {
    return dot.attrs().dot_dimension_numbers().rhs_contracting_dimensions(0) == 0;
  });
  auto result = RunAndCompare(refusing, kXwT);
  ASSERT_NE(result.module, nullptr);
  EXPECT_FALSE(result.changed);
  EXPECT_EQ(testing::ToText(*result.module), testing::ToText(*testing::ParseOrNull(kXwT)));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
