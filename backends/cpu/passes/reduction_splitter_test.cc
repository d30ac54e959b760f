#include "backends/cpu/passes/reduction_splitter.h"

#include <string>

#include "absl/strings/str_replace.h"
#include "backends/cpu/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using testing::CountOpcode;
using testing::RunAndCompare;

// One reduce of `input` (type[dims]) to a scalar with `reducer` (an opcode) and `init`.
std::string ReduceModule(const std::string& type, const std::string& dims, const std::string& reduced,
                         const std::string& reducer, const std::string& init) {
  return absl::StrReplaceAll(R"(
HloModule m
r {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT c = $T[] $OP(a, b)
}
ENTRY e {
  x = $T[$DIMS] parameter(0)
  i = $T[] constant($INIT)
  ROOT s = $T[] reduce(x, i), dimensions={$REDUCED}, to_apply=r
}
)",
                             {{"$T", type}, {"$DIMS", dims}, {"$REDUCED", reduced}, {"$OP", reducer}, {"$INIT", init}});
}

TEST(ReductionSplitterTest, IntegerSumBecomesPartialSumsOfContiguousChunks) {
  ReductionSplitter splitter;
  // Integer sums are exact in any order: the results compare bit for bit.
  auto result = RunAndCompare(splitter, ReduceModule("s32", "2097152", "0", "add", "0"));
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  const HloComputation* entry = result.module->entry_computation();
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kReduce), 2) << testing::ToText(*result.module);
  const HloInstruction* total = entry->root_instruction();
  ASSERT_EQ(total->opcode(), HloOpcode::kReduce);
  const HloInstruction* partial = total->operand(0);
  ASSERT_EQ(partial->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(partial->shape().dimensions(), (std::vector<int64_t>{64}));
  EXPECT_EQ(partial->operand(0)->opcode(), HloOpcode::kReshape);
  EXPECT_EQ(partial->operand(0)->shape().dimensions(), (std::vector<int64_t>{64, 32768}));
  // Running it again changes nothing (the partials are not a scalar, the total is small).
  auto again = splitter.Run(result.module.get());
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST(ReductionSplitterTest, FloatMaximumOverEveryDimensionOfAMatrix) {
  ReductionSplitter splitter;
  auto result = RunAndCompare(splitter, ReduceModule("f32", "1024,1152", "0,1", "maximum", "-inf"));
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(CountOpcode(*result.module->entry_computation(), HloOpcode::kReduce), 2);
}

TEST(ReductionSplitterTest, LeavesAloneWhatItMustNotSplit) {
  struct Case {
    const char* why;
    std::string module;
  };
  const Case cases[] = {
      {"small", ReduceModule("f32", "4096", "0", "add", "0")},
      {"init is not the identity", ReduceModule("s32", "2097152", "0", "add", "1")},
      {"not associative", ReduceModule("s32", "2097152", "0", "subtract", "0")},
      {"integer maximum", ReduceModule("s32", "2097152", "0", "maximum", "0")},
      {"f16 sums round once, at the end", ReduceModule("f16", "2097152", "0", "add", "0")},
      {"prime length", ReduceModule("s32", "1048573", "0", "add", "0")},
      {"keeps a dimension", R"(
HloModule m
r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[2,1048576] parameter(0)
  i = f32[] constant(0)
  ROOT s = f32[2] reduce(x, i), dimensions={1}, to_apply=r
}
)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    ReductionSplitter splitter;
    auto module = testing::ParseOrNull(c.module);
    ASSERT_NE(module, nullptr);
    auto changed = splitter.Run(module.get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_FALSE(*changed) << testing::ToText(*module);
  }
}

TEST(ReductionSplitterTest, ColumnMajorInputIsLeftAlone) {
  ReductionSplitter splitter;
  auto module = testing::ParseOrNull(R"(
HloModule m
r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[1024,1024]{0,1} parameter(0)
  i = f32[] constant(0)
  ROOT s = f32[] reduce(x, i), dimensions={0,1}, to_apply=r
}
)");
  ASSERT_NE(module, nullptr);
  auto changed = splitter.Run(module.get());
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
