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

TEST(ReductionSplitterTest, MoreChunksWhenAskedFor) {
  ReductionSplitter splitter(1024);
  auto result = RunAndCompare(splitter, ReduceModule("s32", "2097152", "0", "add", "0"));
  ASSERT_NE(result.module, nullptr);
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(result.module->entry_computation()->root_instruction()->operand(0)->shape().dimensions(),
            (std::vector<int64_t>{1024}));
}

// One reduce of x (type[dims]) over `reduced` to `out` with add and init 0.
std::string SumModule(const std::string& type, const std::string& dims, const std::string& reduced,
                      const std::string& out) {
  return absl::StrReplaceAll(R"(
HloModule m
r {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT c = $T[] add(a, b)
}
ENTRY e {
  x = $T[$DIMS] parameter(0)
  i = $T[] constant(0)
  ROOT s = $T[$OUT] reduce(x, i), dimensions={$REDUCED}, to_apply=r
}
)",
                             {{"$T", type}, {"$DIMS", dims}, {"$REDUCED", reduced}, {"$OUT", out}});
}

TEST(FewOutputReductionSplitterTest, ColumnSumGetsPartialSumsOverChunksOfRows) {
  FewOutputReductionSplitter splitter(4096);
  auto result = RunAndCompare(splitter, SumModule("s32", "8192,8", "0", "8"));
  ASSERT_NE(result.module, nullptr);
  ASSERT_TRUE(result.changed);
  const HloInstruction* total = result.module->entry_computation()->root_instruction();
  ASSERT_EQ(total->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(total->dimensions(), (std::vector<int64_t>{0}));
  const HloInstruction* partial = total->operand(0);
  ASSERT_EQ(partial->opcode(), HloOpcode::kReduce);
  // 4096 / 8 outputs wanted: 512 chunks of 16 rows.
  EXPECT_EQ(partial->shape().dimensions(), (std::vector<int64_t>{512, 8}));
  EXPECT_EQ(partial->operand(0)->shape().dimensions(), (std::vector<int64_t>{512, 16, 8}));
  EXPECT_EQ(partial->dimensions(), (std::vector<int64_t>{1}));
  auto again = splitter.Run(result.module.get());
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST(FewOutputReductionSplitterTest, AdjacentReducedDimensionsMergeFirst) {
  FewOutputReductionSplitter splitter(1024);
  // Batch-norm statistics: x[N, H, W, C] over N, H, W is x[N*H*W, C] over its first.
  auto result = RunAndCompare(splitter, SumModule("f32", "16,8,8,4", "0,1,2", "4"));
  ASSERT_NE(result.module, nullptr);
  ASSERT_TRUE(result.changed);
  const HloInstruction* partial = result.module->entry_computation()->root_instruction()->operand(0);
  // 1024 / 4 outputs wanted, but each partial keeps 16 inputs: 64 chunks.
  EXPECT_EQ(partial->operand(0)->shape().dimensions(), (std::vector<int64_t>{64, 16, 4}));
  EXPECT_EQ(partial->shape().dimensions(), (std::vector<int64_t>{64, 4}));
  // Kept dimensions on both sides of the reduced ones, and a reduced one after a kept one.
  auto middle = RunAndCompare(splitter, SumModule("s32", "3,2048,5", "1", "3,5"));
  ASSERT_NE(middle.module, nullptr);
  ASSERT_TRUE(middle.changed);
  const HloInstruction* p = middle.module->entry_computation()->root_instruction()->operand(0);
  EXPECT_EQ(p->shape().dimensions(), (std::vector<int64_t>{3, 128, 5}));
  auto two_runs = RunAndCompare(splitter, SumModule("s32", "512,3,64,2", "0,2", "3,2"));  // 32768 per output
  ASSERT_NE(two_runs.module, nullptr);
  EXPECT_TRUE(two_runs.changed);
}

TEST(FewOutputReductionSplitterTest, InnermostReductionsSplitIntoRows) {
  FewOutputReductionSplitter splitter(32768, 1024);
  auto result = RunAndCompare(splitter, SumModule("s32", "8,65536", "1", "8"));
  ASSERT_NE(result.module, nullptr);
  ASSERT_TRUE(result.changed);
  const HloInstruction* total = result.module->entry_computation()->root_instruction();
  ASSERT_EQ(total->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(total->dimensions(), (std::vector<int64_t>{1}));
  const HloInstruction* partial = total->operand(0);
  ASSERT_EQ(partial->opcode(), HloOpcode::kReshape);
  EXPECT_EQ(partial->shape().dimensions(), (std::vector<int64_t>{8, 128}));
  const HloInstruction* rows = partial->operand(0);
  ASSERT_EQ(rows->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(rows->operand(0)->shape().dimensions(), (std::vector<int64_t>{1024, 512}));
  EXPECT_EQ(rows->dimensions(), (std::vector<int64_t>{1}));
  // Reduced dimensions that are not innermost keep the general form.
  auto column = RunAndCompare(splitter, SumModule("s32", "65536,8", "0", "8"));
  ASSERT_NE(column.module, nullptr);
  ASSERT_TRUE(column.changed);
  EXPECT_EQ(column.module->entry_computation()->root_instruction()->operand(0)->opcode(), HloOpcode::kReduce);
  // With min_rows rows already (a softmax's 2048 rows), a row reduction is left whole.
  auto many_rows = testing::ParseOrNull(SumModule("s32", "2048,1024", "1", "2048"));
  ASSERT_NE(many_rows, nullptr);
  auto changed = splitter.Run(many_rows.get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed) << testing::ToText(*many_rows);
}

TEST(FewOutputReductionSplitterTest, LeavesAloneWhatItMustNotSplit) {
  const std::string cases[] = {
      SumModule("s32", "4096", "0", ""),            // to a scalar: ReductionSplitter's
      SumModule("s32", "4096,4096", "0", "4096"),   // enough outputs already
      SumModule("s32", "512,8", "0", "8"),          // too few inputs per output to pay
      SumModule("s32", "17,8", "0", "8"),           // too few inputs per output to split
      SumModule("f16", "8192,8", "0", "8"),         // f16 sums round once
      ReduceModule("s32", "8192", "0", "add", "1"), // init is not the identity (scalar anyway)
  };
  for (const std::string& text : cases) {
    FewOutputReductionSplitter splitter(4096);
    auto module = testing::ParseOrNull(text);
    ASSERT_NE(module, nullptr);
    auto changed = splitter.Run(module.get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_FALSE(*changed) << testing::ToText(*module);
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
