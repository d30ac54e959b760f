// The plan's serialized form (gpu_plan.h) as far as the runtime alone reads it: steps' scratch
// bytes (format version 5), later launches (version 6), block caps (7) and update regions (8)
// survive a round trip, older plans still load without them, and damaged fields or values are
// refused.
#include "backends/gpu/gpu_plan.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "backends/executable_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace gpu {
namespace {

using ::testing::HasSubstr;

// A plan of one kernel step (negate) asking for `scratch` bytes, built by hand: no compiler in
// the runtime's tests.
GpuPlan KernelPlan(int64_t scratch) {
  GpuPlan plan;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(
      "HloModule m\nENTRY main {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n");
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return plan;
  plan.module = *std::move(module);
  plan.ptx = "// kernels";
  GpuSequence& entry = plan.sequences.emplace_back();
  entry.computation = plan.module->entry_computation();
  GpuPlanStep& parameter = entry.steps.emplace_back();
  parameter.kind = GpuPlanStep::Kind::kParameter;
  parameter.hlo = entry.computation->parameter_instruction(0);
  GpuPlanStep& kernel = entry.steps.emplace_back();
  kernel.kind = GpuPlanStep::Kind::kKernel;
  kernel.hlo = entry.computation->root_instruction();
  kernel.operands = {0};
  kernel.kernel = "k0_n";
  kernel.elements = 4;
  kernel.scratch_bytes = scratch;
  entry.root = 1;
  return plan;
}

// `bytes` with the plan version and the steps' lines changed by `edit`.
std::string Edited(const std::string& bytes, const std::string& version,
                   const std::function<std::string(const std::string&)>& edit) {
  backend::ExecutableFields fields = backend::ReadExecutableContainer(bytes).value();
  fields.Set("plan_version", version);
  std::vector<std::string> lines = absl::StrSplit(std::string(fields.Get("steps").value()), '\n', absl::SkipEmpty());
  for (std::string& line : lines) line = edit(line);
  fields.Set("steps", absl::StrJoin(lines, "\n") + "\n");
  return backend::WriteExecutableContainer(fields);
}

std::string WithoutLastField(const std::string& line) { return line.substr(0, line.rfind(' ')); }
// A line as version 7 wrote it (no update-region flag), as version 6 (no block cap either),
// and as version 5 (no later launches either).
std::string AsWrittenBySeven(const std::string& line) { return WithoutLastField(line); }
std::string AsWrittenBySix(const std::string& line) { return WithoutLastField(AsWrittenBySeven(line)); }
std::string AsWrittenByFive(const std::string& line) { return WithoutLastField(AsWrittenBySix(line)); }

TEST(GpuPlanTest, ScratchBytesSurviveTheRoundTrip) {
  const GpuPlan plan = KernelPlan(int64_t{3} << 30);
  ASSERT_TRUE(ValidateGpuPlan(plan).ok()) << ValidateGpuPlan(plan);
  absl::StatusOr<std::string> bytes = SerializeGpuPlan(plan);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<GpuPlan> back = DeserializeGpuPlan(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->entry().steps.size(), 2u);
  EXPECT_EQ(back->entry().steps[0].scratch_bytes, 0);
  EXPECT_EQ(back->entry().steps[1].scratch_bytes, int64_t{3} << 30);
  EXPECT_EQ(*SerializeGpuPlan(*back), *bytes);
}

TEST(GpuPlanTest, VersionFourPlansLoadWithoutScratch) {
  absl::StatusOr<std::string> bytes = SerializeGpuPlan(KernelPlan(0));
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  for (const char* version : {"2", "3", "4"}) {
    absl::StatusOr<GpuPlan> old =
        DeserializeGpuPlan(Edited(*bytes, version, [](const std::string& l) { return WithoutLastField(AsWrittenByFive(l)); }));
    ASSERT_TRUE(old.ok()) << version << ": " << old.status();
    EXPECT_EQ(old->entry().steps[1].scratch_bytes, 0);
    EXPECT_EQ(old->entry().steps[1].kernel, "k0_n");
  }
}

// A line as version 5 wrote it (no phases, no cap), edited by `edit`.
std::function<std::string(const std::string&)> AsVersionFive(std::function<std::string(const std::string&)> edit) {
  return [edit](const std::string& line) { return edit(AsWrittenByFive(line)); };
}

TEST(GpuPlanTest, DamagedScratchIsRefused) {
  absl::StatusOr<std::string> bytes = SerializeGpuPlan(KernelPlan(4096));
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  const std::vector<std::pair<std::string, std::string>> damaged = {
      // A version-5 line without its scratch field.
      {"5", Edited(*bytes, "5", AsVersionFive(WithoutLastField))},
      // Scratch in a plan of a version that had none.
      {"4", Edited(*bytes, "4", AsVersionFive([](const std::string& line) { return line; }))},
      {"5", Edited(*bytes, "5", AsVersionFive([](const std::string& line) { return WithoutLastField(line) + " x"; }))},
      // Later launches in a plan of a version that had none.
      {"5", Edited(*bytes, "5", AsVersionFive([](const std::string& line) { return line + " 1"; }))},
  };
  for (const auto& [version, plan] : damaged) {
    absl::StatusOr<GpuPlan> read = DeserializeGpuPlan(plan);
    EXPECT_TRUE(absl::IsInvalidArgument(read.status())) << version << ": " << read.status();
    EXPECT_THAT(std::string(read.status().message()), HasSubstr("malformed step"));
  }
  absl::StatusOr<GpuPlan> negative = DeserializeGpuPlan(
      Edited(*bytes, "5", AsVersionFive([](const std::string& line) { return WithoutLastField(line) + " -8"; })));
  EXPECT_TRUE(absl::IsInvalidArgument(negative.status())) << negative.status();
  EXPECT_THAT(std::string(negative.status().message()), HasSubstr("asks for -8 bytes of scratch memory"));
}

TEST(GpuPlanTest, LaterLaunchesSurviveTheRoundTrip) {
  GpuPlan plan = KernelPlan(0);
  plan.entry().steps[1].phases = {7, 0, int64_t{5} << 32};
  ASSERT_TRUE(ValidateGpuPlan(plan).ok()) << ValidateGpuPlan(plan);
  absl::StatusOr<std::string> bytes = SerializeGpuPlan(plan);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<GpuPlan> back = DeserializeGpuPlan(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->entry().steps[0].phases.empty());
  EXPECT_EQ(back->entry().steps[1].phases, plan.entry().steps[1].phases);
  EXPECT_EQ(*SerializeGpuPlan(*back), *bytes);
  EXPECT_EQ(PhaseEntry("k3_scatter", 1), "k3_scatter_p1");
}

TEST(GpuPlanTest, VersionFivePlansLoadWithoutLaterLaunches) {
  absl::StatusOr<std::string> bytes = SerializeGpuPlan(KernelPlan(64));
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<GpuPlan> old = DeserializeGpuPlan(Edited(*bytes, "5", AsWrittenByFive));
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->entry().steps[1].scratch_bytes, 64);
  EXPECT_TRUE(old->entry().steps[1].phases.empty());
  // A version-6 line must have the field, and it must hold counts.
  for (const std::string& plan :
       {Edited(*bytes, "6", AsWrittenByFive),
        Edited(*bytes, "6", [](const std::string& l) { return WithoutLastField(AsWrittenBySix(l)) + " 3,x"; })}) {
    absl::StatusOr<GpuPlan> read = DeserializeGpuPlan(plan);
    EXPECT_TRUE(absl::IsInvalidArgument(read.status())) << read.status();
    EXPECT_THAT(std::string(read.status().message()), HasSubstr("malformed"));
  }
}

TEST(GpuPlanTest, ValidationRefusesNegativeLaterLaunchesAndLaunchesOutsideKernels) {
  GpuPlan negative = KernelPlan(0);
  negative.entry().steps[1].phases = {4, -3};
  absl::Status s = ValidateGpuPlan(negative);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("has a later launch over -3 items"));
  GpuPlan parameter = KernelPlan(0);
  parameter.entry().steps[0].phases = {2};
  s = ValidateGpuPlan(parameter);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("has a later launch over 2 items"));
}

TEST(GpuPlanTest, ValidationRefusesNegativeScratchAndScratchOutsideKernels) {
  GpuPlan negative = KernelPlan(-1);
  absl::Status s = ValidateGpuPlan(negative);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("asks for -1 bytes of scratch memory"));
  GpuPlan parameter = KernelPlan(0);
  parameter.entry().steps[0].scratch_bytes = 16;
  s = ValidateGpuPlan(parameter);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("asks for 16 bytes of scratch memory"));
}

TEST(GpuPlanTest, BlockCapsSurviveTheRoundTripAndOlderPlansHaveNone) {
  GpuPlan plan = KernelPlan(0);
  plan.entry().steps[1].max_blocks = 384;
  ASSERT_TRUE(ValidateGpuPlan(plan).ok()) << ValidateGpuPlan(plan);
  absl::StatusOr<std::string> bytes = SerializeGpuPlan(plan);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<GpuPlan> back = DeserializeGpuPlan(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->entry().steps[0].max_blocks, 0);
  EXPECT_EQ(back->entry().steps[1].max_blocks, 384);
  EXPECT_EQ(*SerializeGpuPlan(*back), *bytes);
  absl::StatusOr<GpuPlan> six = DeserializeGpuPlan(Edited(*bytes, "6", AsWrittenBySix));
  ASSERT_TRUE(six.ok()) << six.status();
  EXPECT_EQ(six->entry().steps[1].max_blocks, 0);
  // A version-7 line must have the cap; a version-6 one cannot ask for one; none is negative.
  for (const auto& [version, edit] : std::vector<std::pair<std::string, std::function<std::string(const std::string&)>>>{
           {"7", AsWrittenBySix},
           {"6", AsWrittenBySeven},
           {"7", [](const std::string& l) { return WithoutLastField(AsWrittenBySeven(l)) + " -2"; }}}) {
    absl::StatusOr<GpuPlan> read = DeserializeGpuPlan(Edited(*bytes, version, edit));
    EXPECT_TRUE(absl::IsInvalidArgument(read.status())) << version << ": " << read.status();
  }
  GpuPlan parameter = KernelPlan(0);
  parameter.entry().steps[0].max_blocks = 2;
  absl::Status s = ValidateGpuPlan(parameter);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("caps its launch at 2 blocks"));
}

// A plan of one dynamic-update-slice kernel step whose kernel writes the update region only.
GpuPlan RegionPlan() {
  GpuPlan plan;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(R"(HloModule m
ENTRY main {
  a = f32[8,4]{1,0} parameter(0)
  u = f32[2,4]{1,0} parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT d = f32[8,4]{1,0} dynamic-update-slice(a, u, i, z)
}
)");
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return plan;
  plan.module = *std::move(module);
  plan.ptx = "// kernels";
  GpuSequence& entry = plan.sequences.emplace_back();
  entry.computation = plan.module->entry_computation();
  for (const HloInstruction* hlo : entry.computation->MakeInstructionPostOrder()) {
    GpuPlanStep& step = entry.steps.emplace_back();
    step.hlo = hlo;
    for (const HloInstruction* operand : hlo->operands()) {
      for (size_t k = 0; k < entry.steps.size(); ++k) {
        if (entry.steps[k].hlo == operand) step.operands.push_back(static_cast<int>(k));
      }
    }
    if (hlo->opcode() == HloOpcode::kParameter) {
      step.kind = GpuPlanStep::Kind::kParameter;
      step.index = hlo->parameter_number();
    } else if (hlo->opcode() == HloOpcode::kConstant) {
      step.kind = GpuPlanStep::Kind::kConstant;
    } else {
      step.kind = GpuPlanStep::Kind::kKernel;
      step.kernel = "k0_d";
      step.elements = 32;
      step.in_place = true;
      entry.root = static_cast<int>(entry.steps.size()) - 1;
    }
  }
  return plan;
}

TEST(GpuPlanTest, UpdateRegionsSurviveTheRoundTripAndOlderPlansHaveNone) {
  GpuPlan plan = RegionPlan();
  ASSERT_TRUE(ValidateGpuPlan(plan).ok()) << ValidateGpuPlan(plan);
  EXPECT_TRUE(UpdatesInPlace(*plan.module->entry_computation()->root_instruction()));
  absl::StatusOr<std::string> bytes = SerializeGpuPlan(plan);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<GpuPlan> back = DeserializeGpuPlan(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->entry().steps[plan.entry().root].in_place);
  EXPECT_FALSE(back->entry().steps[0].in_place);
  EXPECT_EQ(*SerializeGpuPlan(*back), *bytes);
  // A version-7 plan's dynamic-update-slice kernels write the whole output.
  absl::StatusOr<GpuPlan> seven = DeserializeGpuPlan(Edited(*bytes, "7", AsWrittenBySeven));
  ASSERT_TRUE(seven.ok()) << seven.status();
  EXPECT_FALSE(seven->entry().steps[seven->entry().root].in_place);
  // A version-8 line must have the flag; a version-7 one cannot set it; it is 0 or 1.
  for (const auto& [version, edit] : std::vector<std::pair<std::string, std::function<std::string(const std::string&)>>>{
           {"8", AsWrittenBySeven},
           {"7", [](const std::string& l) { return l; }},
           {"8", [](const std::string& l) { return AsWrittenBySeven(l) + " 2"; }}}) {
    absl::StatusOr<GpuPlan> read = DeserializeGpuPlan(Edited(*bytes, version, edit));
    EXPECT_TRUE(absl::IsInvalidArgument(read.status())) << version << ": " << read.status();
    EXPECT_THAT(std::string(read.status().message()), HasSubstr("malformed step"));
  }
}

TEST(GpuPlanTest, ValidationRefusesUpdateRegionsOfOtherSteps) {
  GpuPlan negate = KernelPlan(0);
  negate.entry().steps[1].in_place = true;
  absl::Status s = ValidateGpuPlan(negate);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("is no update in place"));
  GpuPlan parameter = RegionPlan();
  parameter.entry().steps[0].in_place = true;
  s = ValidateGpuPlan(parameter);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("updates in place but is no kernel"));
  GpuPlan with_scratch = RegionPlan();
  with_scratch.entry().steps[with_scratch.entry().root].scratch_bytes = 64;
  s = ValidateGpuPlan(with_scratch);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("is no update in place"));
}

TEST(GpuPlanTest, ScattersUpdateInPlaceWhenEachOperandIsLaidOutAsItsOutput) {
  const std::string add = "add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\n";
  for (const auto& [layout, in_place] : std::vector<std::pair<std::string, bool>>{{"{1,0}", true}, {"{0,1}", false}}) {
    const std::string text = "HloModule m\n" + add + "ENTRY e {\n a = f32[8,4]" + layout +
                             " parameter(0)\n i = s32[2,1]{1,0} parameter(1)\n u = f32[2,4]{1,0} parameter(2)\n"
                             " ROOT s = f32[8,4]{1,0} scatter(a, i, u), update_window_dims={1}, inserted_window_dims={0},"
                             " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n}\n";
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    EXPECT_EQ(UpdatesInPlace(*(*module)->entry_computation()->root_instruction()), in_place) << layout;
  }
}

// A fusion updates in place through its root dynamic-update-slice's operand 0, a parameter
// that nothing else in it reads; which operand that is, InPlaceOperand says.
TEST(GpuPlanTest, FusionsWithAnUpdateAtTheirRootUpdateTheirTargetParameter) {
  const std::string fused = "HloModule m\nfused {\n x = f32[2,4]{1,0} parameter(0)\n a = f32[8,4]{1,0} parameter(1)\n"
                            " i = s32[] parameter(2)\n u = f32[2,4]{1,0} USE\n"
                            " ROOT d = f32[8,4]{1,0} dynamic-update-slice(a, u, i, i)\n}\n"
                            "ENTRY e {\n x = f32[2,4]{1,0} parameter(0)\n a = f32[8,4]{1,0} parameter(1)\n"
                            " i = s32[] parameter(2)\n"
                            " ROOT f = f32[8,4]{1,0} fusion(x, a, i), kind=kLoop, calls=fused\n}\n";
  for (const auto& [use, in_place] : std::vector<std::pair<std::string, bool>>{
           {"exponential(x)", true}, {"slice(a), slice={[0:2], [0:4]}", false}}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseAndReturnUnverifiedModule(absl::StrReplaceAll(fused, {{"USE", use}}));
    ASSERT_TRUE(module.ok()) << module.status();
    const HloInstruction& fusion = *(*module)->entry_computation()->root_instruction();
    EXPECT_EQ(UpdatesInPlace(fusion), in_place) << use;
    EXPECT_EQ(UpdatedSlice(fusion) != nullptr, in_place) << use;
    if (in_place) EXPECT_EQ(InPlaceOperand(fusion, 0), 1);
  }
}

TEST(GpuPlanTest, OnlyLaidOutUpdatesOfScalarStartsUpdateARegion) {
  for (const char* text : {
           // operand 0 in another layout than the result
           "ENTRY e {\n a = f32[8,4]{0,1} parameter(0)\n u = f32[2,4]{1,0} parameter(1)\n i = s32[] parameter(2)\n"
           " ROOT d = f32[8,4]{1,0} dynamic-update-slice(a, u, i, i)\n}\n",
           // one start-index vector (the old form)
           "ENTRY e {\n a = f32[8,4]{1,0} parameter(0)\n u = f32[2,4]{1,0} parameter(1)\n i = s32[2]{0} parameter(2)\n"
           " ROOT d = f32[8,4]{1,0} dynamic-update-slice(a, u, i)\n}\n",
       }) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseAndReturnUnverifiedModule(std::string("HloModule m\n") + text);
    ASSERT_TRUE(module.ok()) << module.status();
    EXPECT_FALSE(UpdatesInPlace(*(*module)->entry_computation()->root_instruction())) << text;
  }
}

// An elementwise kernel may write over the operands of its output's dimensions, layout and
// bytes that it reads at each element's own position only (ElementwiseReuseOperands).
TEST(GpuPlanTest, ElementwiseKernelsReuseOperandsReadAtTheirOwnPositionsOnly) {
  const std::string fused = "HloModule m\nfused {\n x = f32[8,4]{1,0} parameter(0)\n y = f32[8,4]{1,0} parameter(1)\n"
                            " BODY\n}\n"
                            "ENTRY e {\n x = f32[8,4]{1,0} parameter(0)\n y = f32[8,4]{1,0} parameter(1)\n"
                            " ROOT f = OUT fusion(x, y), kind=kLoop, calls=fused\n}\n";
  struct Case {
    const char* out;
    const char* body;
    std::vector<int64_t> operands;
    std::vector<int64_t> row_kernel_operands;  // as a row kernel (rows > 0)
  };
  for (const Case& c : std::vector<Case>{
           {"f32[8,4]{1,0}", "n = f32[8,4]{1,0} negate(y)\n ROOT a = f32[8,4]{1,0} add(x, n)", {0, 1}, {0, 1}},
           {"s32[8,4]{1,0}", "a = f32[8,4]{1,0} add(x, y)\n ROOT c = s32[8,4]{1,0} convert(a)", {0, 1}, {0, 1}},
           // y read at other positions: reversed, a row of it broadcast (x, not read at all, may be
           // written over); neither is read at its own positions after a transpose
           {"f32[8,4]{1,0}", "r = f32[8,4]{1,0} reverse(y), dimensions={0}\n ROOT a = f32[8,4]{1,0} add(x, r)", {0}, {0}},
           {"f32[4,8]{1,0}", "t = f32[4,8]{1,0} transpose(x), dimensions={1,0}\n ROOT c = f32[4,8]{1,0} copy(t)", {}, {}},
           {"f32[8,4]{1,0}", "s = f32[8,1]{1,0} slice(y), slice={[0:8], [1:2]}\n r = f32[8]{0} reshape(s)\n"
                             " b = f32[8,4]{1,0} broadcast(r), dimensions={0}\n ROOT m = f32[8,4]{1,0} multiply(y, b)", {0}, {0}},
           // y read at its own positions and through a reduce as well: a row kernel finishes
           // its row's reductions before writing the row; not the reduce of another row's
           {"f32[8,4]{1,0}", "z = f32[] constant(0)\n r = f32[8]{0} reduce(y, z), dimensions={1}, to_apply=add\n"
                             " b = f32[8,4]{1,0} broadcast(r), dimensions={0}\n n = f32[8,4]{1,0} negate(y)\n"
                             " ROOT m = f32[8,4]{1,0} add(n, b)", {0}, {0, 1}},
           {"f32[8,4]{1,0}", "z = f32[] constant(0)\n v = f32[8,4]{1,0} reverse(y), dimensions={0}\n"
                             " r = f32[8]{0} reduce(v, z), dimensions={1}, to_apply=add\n"
                             " b = f32[8,4]{1,0} broadcast(r), dimensions={0}\n ROOT m = f32[8,4]{1,0} add(y, b)",
            {0}, {0}},
           // narrower results, another layout: an element's bytes are elsewhere
           {"f16[8,4]{1,0}", "a = f32[8,4]{1,0} add(x, y)\n ROOT c = f16[8,4]{1,0} convert(a)", {}, {}},
           {"pred[8,4]{1,0}", "ROOT c = pred[8,4]{1,0} compare(x, y), direction=LT", {}, {}},
           {"f32[8,4]{0,1}", "ROOT a = f32[8,4]{0,1} add(x, y)", {}, {}},
       }) {
    const std::string text = absl::StrReplaceAll(fused, {{"BODY", c.body}, {"OUT", c.out}});
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(
        absl::StrReplaceAll(text, {{"HloModule m\n", "HloModule m\nadd {\n a = f32[] parameter(0)\n b = f32[] "
                                                     "parameter(1)\n ROOT s = f32[] add(a, b)\n}\n"}}));
    ASSERT_TRUE(module.ok()) << c.body << ": " << module.status();
    const HloInstruction& root = *(*module)->entry_computation()->root_instruction();
    EXPECT_EQ(ElementwiseReuseOperands(root), c.operands) << c.body;
    EXPECT_EQ(ElementwiseReuseOperands(root, /*row_kernel=*/true), c.row_kernel_operands) << c.body;
  }
  // A lone elementwise op: the operands of its result's layout; no other op.
  absl::StatusOr<std::unique_ptr<HloModule>> lone = ParseAndReturnUnverifiedModule(
      "HloModule m\nENTRY e {\n x = f32[8,4]{0,1} parameter(0)\n y = f32[8,4]{1,0} parameter(1)\n"
      " a = f32[8,4]{1,0} add(x, y)\n ROOT r = f32[8,4]{1,0} reverse(a), dimensions={0}\n}\n");
  ASSERT_TRUE(lone.ok()) << lone.status();
  const HloInstruction* root = (*lone)->entry_computation()->root_instruction();
  EXPECT_EQ(ElementwiseReuseOperands(*root->operand(0)), std::vector<int64_t>{1});
  EXPECT_TRUE(ElementwiseReuseOperands(*root).empty());
}

}  // namespace
}  // namespace gpu
}  // namespace xla
