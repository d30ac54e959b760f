#include "backends/gpu/ptx_emitter.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/passes/pass_test_util.h"
#include "backends/testing/hlo_test_util.h"
#include "backends/cpu/passes/pipeline.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/ptx_sort.h"
#include "backends/gpu/testing/gpu_test_modules.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace gpu {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace modules = ::xla::gpu::testing;

// The module after the cpu pipeline, and the entry instructions that become kernels.
struct Lowered {
  std::unique_ptr<HloModule> module;
  std::vector<const HloInstruction*> kernels;
};

Lowered Lower(const std::string& text) {
  Lowered out;
  out.module = cpu::testing::ParseOrNull(text);
  if (out.module == nullptr) return out;
  absl::Status s = cpu::RunCpuPipeline(out.module.get());
  EXPECT_TRUE(s.ok()) << s;
  for (const HloInstruction* hlo : out.module->entry_computation()->MakeInstructionPostOrder()) {
    if (hlo->opcode() == HloOpcode::kParameter || hlo->opcode() == HloOpcode::kConstant ||
        hlo->opcode() == HloOpcode::kTuple) {
      continue;
    }
    EXPECT_TRUE(IsKernelCandidate(*hlo)) << hlo->name();
    out.kernels.push_back(hlo);
  }
  return out;
}

// ptxas's verdict on `ptx` for sm_90 ("" when it accepts it); skipped without the toolkit.
std::string Assemble(const std::string& ptx) {
#ifdef XLA_PTXAS
  char dir[] = "/tmp/xla_ptx_XXXXXX";
  if (mkdtemp(dir) == nullptr) return "mkdtemp failed";
  const std::string src = std::string(dir) + "/k.ptx", log = std::string(dir) + "/log";
  std::ofstream(src) << ptx;
  const std::string command = std::string(XLA_PTXAS) + " -arch=sm_90 " + src + " -o " + dir + "/k.cubin > " + log +
                              " 2>&1";
  const int rc = std::system(command.c_str());
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::system((std::string("rm -rf ") + dir).c_str());
  return rc == 0 ? "" : "ptxas failed: " + text;
#else
  (void)ptx;
  return "";
#endif
}

void ExpectAssembles(const PtxModule& m) {
#ifndef XLA_PTXAS
  GTEST_LOG_(INFO) << "no ptxas in /usr/local/cuda/bin: the PTX is not assembled";
#endif
  EXPECT_EQ(Assemble(m.ptx), "") << m.ptx;
}


// Through the gpu compiler (sort and scatter results are tuples the pipeline keeps apart).
absl::StatusOr<GpuPlan> CompilePlan(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(text);
  if (!module.ok()) return module.status();
  return CompileGpuPlan(*std::move(module), GpuTarget{});
}

// The entry's kernel steps of `opcode`.
std::vector<const GpuPlanStep*> KernelSteps(const GpuPlan& plan, HloOpcode opcode) {
  std::vector<const GpuPlanStep*> steps;
  for (const GpuPlanStep& s : plan.entry().steps) {
    if (s.kind == GpuPlanStep::Kind::kKernel && s.hlo->opcode() == opcode) steps.push_back(&s);
  }
  return steps;
}

TEST(PtxEmitterTest, SortKernelsTakeAPointerPerOutputAndAssemble) {
  absl::StatusOr<GpuPlan> plan = CompilePlan(modules::kSortModule);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::vector<const GpuPlanStep*> sorts = KernelSteps(*plan, HloOpcode::kSort);
  ASSERT_EQ(sorts.size(), 3u);
  for (const GpuPlanStep* s : sorts) {
    EXPECT_EQ(s->elements, 16 * 300) << s->kernel;
    // A block per row: 16 rows of 300 along dimension 1, 300 of 16 along dimension 0.
    EXPECT_EQ(s->rows, s->hlo->dimensions(0) == 1 ? 16 : 300) << s->kernel;
    // out..., operands...: two of each for the key-value sorts, one for the descending one.
    const size_t params = 2 * KernelOutputs(s->hlo->shape()).size();
    const size_t begin = plan->ptx.find(".entry " + s->kernel + "(");
    ASSERT_NE(begin, std::string::npos) << s->kernel;
    const std::string signature = plan->ptx.substr(begin, plan->ptx.find(')', begin) - begin);
    EXPECT_THAT(signature, HasSubstr(absl::StrCat("_param_", params - 1))) << signature;
    EXPECT_THAT(signature, ::testing::Not(HasSubstr(absl::StrCat("_param_", params)))) << signature;
  }
  EXPECT_THAT(plan->ptx, HasSubstr(".shared"));  // the rows' orders
  EXPECT_THAT(plan->ptx, HasSubstr("bar.sync"));
  EXPECT_EQ(Assemble(plan->ptx), "") << plan->ptx;
}

// Rows too long for shared memory keep their permutation in scratch: few of them are sorted
// by the whole grid (launches of their own), many by a block each; longer ones are refused.
TEST(PtxEmitterTest, LongSortRowsAreSortedInScratchUpToALimit) {
  auto text = [](int64_t rows, int64_t length) {
    return absl::StrCat(R"(HloModule long_rows
less {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = s32[)", rows, ",", length, R"(] parameter(0)
  ROOT s = s32[)", rows, ",", length, R"(] sort(x), dimensions={1}, to_apply=less
})");
  };
  absl::StatusOr<GpuPlan> plan = CompilePlan(text(2, 10000));
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<const GpuPlanStep*> sorts = KernelSteps(*plan, HloOpcode::kSort);
  ASSERT_EQ(sorts.size(), 1u);
  // Two rows: spread, each row's permutation of positions (padded to 16384) in scratch; the
  // tiles' launch, merges of 4096 (stride 2048), 8192 (4096, 2048) and 16384 (8192, 4096,
  // 2048) each with its tiles' launch, the gather.
  EXPECT_EQ(sorts[0]->rows, 0);
  EXPECT_EQ(sorts[0]->phases.size(), 6u + 3u + 1u);
  EXPECT_EQ(sorts[0]->scratch_bytes, 2 * 16384 * 4);
  EXPECT_THAT(plan->ptx, HasSubstr("bar.sync"));
  EXPECT_EQ(Assemble(plan->ptx), "") << plan->ptx;
  // Many rows: a block per row.
  plan = CompilePlan(text(kMostSpreadSortRows + 1, 10000));
  ASSERT_TRUE(plan.ok()) << plan.status();
  sorts = KernelSteps(*plan, HloOpcode::kSort);
  ASSERT_EQ(sorts.size(), 1u);
  EXPECT_EQ(sorts[0]->rows, kMostSpreadSortRows + 1);
  EXPECT_TRUE(sorts[0]->phases.empty());
  EXPECT_EQ(sorts[0]->scratch_bytes, (kMostSpreadSortRows + 1) * 16384 * 4);
  plan = CompilePlan(text(2, 268435457));
  EXPECT_TRUE(absl::IsUnimplemented(plan.status())) << plan.status();
  EXPECT_THAT(std::string(plan.status().message()), HasSubstr("rows of 268435457 elements"));
}

TEST(PtxEmitterTest, ScatterAndSelectAndScatterAreKernelsThatAssemble) {
  const std::pair<const char*, size_t> cases[] = {{modules::kScatterModule, 3}, {modules::kSelectAndScatterModule, 2}};
  for (const auto& [text, kernels] : cases) {
    absl::StatusOr<GpuPlan> plan = CompilePlan(text);
    ASSERT_TRUE(plan.ok()) << plan.status();
    const size_t scatters = KernelSteps(*plan, HloOpcode::kScatter).size();
    const size_t selects = KernelSteps(*plan, HloOpcode::kSelectAndScatter).size();
    EXPECT_EQ(scatters + selects, kernels) << plan->module->name();
    EXPECT_EQ(Assemble(plan->ptx), "") << plan->ptx;
  }
}

// Every atomic a scatter combines with (ptx_scatter.cc): one instruction where the device has
// it, a compare-and-swap loop otherwise; ptxas accepts them all for sm_90, and each later
// launch is an entry of the module.
TEST(PtxEmitterTest, AtomicScatterUpdatesAssemble) {
  std::string text = "HloModule atomics\n";
  std::vector<std::string> roots;
  const std::pair<const char*, const char*> kinds[] = {
      {"f32", "add"},      {"f64", "add"},     {"s32", "add"},     {"u32", "minimum"}, {"s64", "maximum"},
      {"u64", "xor"},      {"s32", "and"},     {"s32", "multiply"}, {"f32", "maximum"}, {"f64", "minimum"},
      {"f32", "multiply"}, {"bf16", "add"},    {"f16", "maximum"},  {"s8", "add"},      {"u16", "minimum"},
      {"pred", "or"},      {"s4", "add"},      {"f8e4m3fn", "add"}, {"f4e2m1fn", "maximum"},
      {"c64", "add"},      {"c64", "multiply"}, {"c128", "add"},
  };
  std::string entry = "ENTRY e {\n  indices = s32[64,1] parameter(0)\n";
  int n = 0;
  for (const auto& [type, op] : kinds) {
    const std::string t = type, c = absl::StrCat("c", n);
    absl::StrAppend(&text, c, " {\n  a = ", t, "[] parameter(0)\n  b = ", t, "[] parameter(1)\n  ROOT r = ", t, "[] ", op,
                    "(a, b)\n}\n");
    absl::StrAppend(&entry, "  o", n, " = ", t, "[32,8] parameter(", 2 * n + 1, ")\n  u", n, " = ", t, "[64,8] parameter(",
                    2 * n + 2, ")\n  s", n, " = ", t, "[32,8] scatter(o", n, ", indices, u", n,
                    "), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                    "index_vector_dim=1, to_apply=", c, "\n");
    roots.push_back(absl::StrCat("s", n));
    ++n;
  }
  // A select-and-scatter whose windows overlap too much for a thread per output element.
  absl::StrAppend(&text, "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = pred[] compare(a, b), "
                         "direction=GE\n}\n");
  absl::StrAppend(&entry, "  input = f32[300] parameter(", 2 * n + 1, ")\n  source = f32[201] parameter(", 2 * n + 2,
                  ")\n  zero = f32[] constant(0)\n  w = f32[300] select-and-scatter(input, source, zero), "
                  "window={size=100 stride=1}, select=ge, scatter=c0\n");
  roots.push_back("w");
  std::vector<std::string> shapes;
  for (const auto& [type, op] : kinds) shapes.push_back(absl::StrCat(type, "[32,8]"));
  shapes.push_back("f32[300]");
  absl::StrAppend(&text, entry, "  ROOT t = (", absl::StrJoin(shapes, ", "), ") tuple(", absl::StrJoin(roots, ", "), ")\n}\n");
  absl::StatusOr<GpuPlan> plan = CompilePlan(text);
  ASSERT_TRUE(plan.ok()) << plan.status() << "\n" << text;
  const std::vector<const GpuPlanStep*> scatters = KernelSteps(*plan, HloOpcode::kScatter);
  ASSERT_EQ(scatters.size(), std::size(kinds));
  for (const GpuPlanStep* s : scatters) {
    EXPECT_EQ(s->phases, std::vector<int64_t>{64 * 8}) << s->hlo->name();
    EXPECT_THAT(plan->ptx, HasSubstr(".entry " + PhaseEntry(s->kernel, 1))) << s->hlo->name();
  }
  ASSERT_EQ(KernelSteps(*plan, HloOpcode::kSelectAndScatter).size(), 1u);
  EXPECT_EQ(KernelSteps(*plan, HloOpcode::kSelectAndScatter)[0]->phases, std::vector<int64_t>{201});
  EXPECT_THAT(plan->ptx, HasSubstr(".add.f32"));
  EXPECT_THAT(plan->ptx, HasSubstr(".add.f64"));
  EXPECT_THAT(plan->ptx, HasSubstr(".min.u32"));
  EXPECT_THAT(plan->ptx, HasSubstr(".max.s64"));
  EXPECT_THAT(plan->ptx, HasSubstr(".xor.b64"));
  EXPECT_THAT(plan->ptx, HasSubstr("atom.global.cas.b32"));
  EXPECT_THAT(plan->ptx, HasSubstr("atom.global.cas.b64"));
  EXPECT_EQ(Assemble(plan->ptx), "") << plan->ptx;
}

TEST(PtxEmitterTest, VariadicReduceAndReduceWindowAreOneKernelEachWithAPointerPerResult) {
  absl::StatusOr<GpuPlan> plan = CompilePlan(modules::kVariadicReduceModule);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // The reduce (a fusion with the iota it reads) and the reduce-window: two-output kernels.
  std::vector<int64_t> elements;
  for (const GpuPlanStep& s : plan->entry().steps) {
    if (s.kind != GpuPlanStep::Kind::kKernel || !s.hlo->shape().IsTuple()) continue;
    EXPECT_EQ(KernelOutputs(s.hlo->shape()).size(), 2u) << s.hlo->name();
    elements.push_back(s.elements);
  }
  EXPECT_THAT(elements, ::testing::UnorderedElementsAre(64, 32 * 50));
  EXPECT_EQ(Assemble(plan->ptx), "") << plan->ptx;
}

// fft, cholesky and triangular-solve are kernels of their own (narrow solvers computed in
// double between converts), and ptxas accepts them.
TEST(PtxEmitterTest, FftAndSolversAreKernelsThatAssemble) {
  absl::StatusOr<GpuPlan> ffts = CompilePlan(modules::kFftModule);
  ASSERT_TRUE(ffts.ok()) << ffts.status();
  // One kernel per transformed axis (gpu_fft_expander.h): 2 + 1 + 2 + 3.
  EXPECT_EQ(KernelSteps(*ffts, HloOpcode::kFft).size(), 8u);
  EXPECT_EQ(Assemble(ffts->ptx), "") << ffts->ptx;
  absl::StatusOr<GpuPlan> solvers = CompilePlan(modules::kSolversModule);
  ASSERT_TRUE(solvers.ok()) << solvers.status();
  const std::vector<const GpuPlanStep*> choleskys = KernelSteps(*solvers, HloOpcode::kCholesky);
  const std::vector<const GpuPlanStep*> solves = KernelSteps(*solvers, HloOpcode::kTriangularSolve);
  ASSERT_EQ(choleskys.size(), 2u);
  ASSERT_EQ(solves.size(), 3u);
  for (const GpuPlanStep* s : choleskys) EXPECT_EQ(s->hlo->shape().element_type(), F64) << s->hlo->name();
  for (const GpuPlanStep* s : solves) {
    const PrimitiveType t = s->hlo->shape().element_type();
    EXPECT_TRUE(t == F64 || t == C128) << s->hlo->name();
  }
  EXPECT_EQ(Assemble(solvers->ptx), "") << solvers->ptx;
}

TEST(PtxEmitterTest, CollectivesAndCustomCallsLeaveNoKernelOfTheirOwn) {
  absl::StatusOr<GpuPlan> plan = CompilePlan(modules::kCollectivesModule);
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (const GpuPlanStep& s : plan->entry().steps) {
    EXPECT_NE(s.hlo->opcode(), HloOpcode::kAllReduce);
    EXPECT_NE(s.hlo->opcode(), HloOpcode::kAllGather);
    EXPECT_NE(s.hlo->opcode(), HloOpcode::kCollectivePermute);
    EXPECT_NE(s.hlo->opcode(), HloOpcode::kCustomCall);
  }
  EXPECT_EQ(Assemble(plan->ptx), "") << plan->ptx;
}

// Ops the cpu backend computes elementally on one device: kernels of their own here.
TEST(PtxEmitterTest, DeviceIdsRaggedDotAndStochasticConvertAreKernelsThatAssemble) {
  absl::StatusOr<GpuPlan> plan = CompilePlan(R"(HloModule one_device
ENTRY main {
  moved = f32[64,16] parameter(0)
  lhs = f32[19,11,5] parameter(1)
  rhs = f32[3,5,7] parameter(2)
  groups = s64[19,3] parameter(3)
  ragged = f32[19,11,7] ragged-dot(lhs, rhs, groups), lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={1}, rhs_group_dims={0}
  noise = u32[64,16] parameter(4)
  rounded = s32[64,16] stochastic-convert(moved, noise)
  replica = u32[] replica-id()
  partition = u32[] partition-id()
  ROOT t = (f32[64,16], f32[19,11,7], s32[64,16], u32[], u32[]) tuple(moved, ragged, rounded, replica, partition)
})");
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (HloOpcode op : {HloOpcode::kRaggedDot, HloOpcode::kStochasticConvert, HloOpcode::kReplicaId, HloOpcode::kPartitionId}) {
    EXPECT_EQ(KernelSteps(*plan, op).size(), 1u) << HloOpcodeString(op);
  }
  EXPECT_EQ(Assemble(plan->ptx), "") << plan->ptx;
}

TEST(PtxEmitterTest, GeluIsOneKernelThatPtxasAccepts) {
  Lowered l = Lower(modules::GeluModule("1024,256"));
  ASSERT_EQ(l.kernels.size(), 1u);
  EXPECT_EQ(l.kernels[0]->opcode(), HloOpcode::kFusion);
  absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "gelu");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->kernels.size(), 1u);
  EXPECT_EQ(m->kernels[0].elements, 1024 * 256);
  EXPECT_THAT(m->ptx, HasSubstr(".target sm_90"));
  EXPECT_THAT(m->ptx, HasSubstr(".version 7.8"));
  EXPECT_THAT(m->ptx, HasSubstr(".visible .entry " + m->kernels[0].name));
  EXPECT_THAT(m->ptx, HasSubstr("%ctaid.x"));  // the grid-stride loop reads the block index
  ExpectAssembles(*m);
}

// The issue's softmax is one row kernel (its 16384 rows are not split) whose threads keep
// their 64 elements of a row in registers: read once, four floats at a time, one exp each,
// reduced by warp shuffles, and no block cap (nothing to keep in L2). Without resident rows,
// or with rows too long to keep, the kernel loops over each row per pass and is capped to
// the rows whose bytes fit the L2 budget (48 MiB / 64 KiB per row); a small one is uncapped,
// and one element per thread has no vector accesses. GELU's tanh and exp take the device's
// approximate instructions.
// A transpose reads its operand through shared-memory tiles of 32 x 32 (ptx_transpose.cc):
// a block per tile, as many blocks as tiles; without tiling (GpuTarget::tiled_transposes) it is
// a thread per element. Every kind in the curated module assembles.
TEST(PtxEmitterTest, TransposesReadThroughSharedMemoryTilesAndAssemble) {
  for (const bool tiled : {true, false}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(modules::TransposeModule(1000, 3000));
    ASSERT_TRUE(module.ok()) << module.status();
    GpuTarget target;
    target.tiled_transposes = tiled;
    absl::StatusOr<GpuPlan> plan = CompileGpuPlan(*std::move(module), target);
    ASSERT_TRUE(plan.ok()) << plan.status();
    const std::vector<const GpuPlanStep*> kernels = KernelSteps(*plan, HloOpcode::kTranspose);
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0]->max_blocks, tiled ? 32 * 94 : 0);
    EXPECT_EQ(plan->ptx.find(".shared") != std::string::npos, tiled);
    EXPECT_EQ(plan->ptx.find("bar.sync") != std::string::npos, tiled);
    EXPECT_EQ(Assemble(plan->ptx), "") << plan->ptx;
  }
  absl::StatusOr<GpuPlan> plan = CompilePlan(modules::kTransposesModule);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Assemble(plan->ptx), "") << plan->ptx;
}

TEST(PtxEmitterTest, LargeSoftmaxIsOneRowKernelKeepingItsRowsInRegisters) {
  absl::StatusOr<GpuPlan> plan = CompilePlan(modules::SoftmaxModule(16384, 16384));
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::vector<const GpuPlanStep*> kernels = KernelSteps(*plan, HloOpcode::kFusion);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0]->rows, 16384);
  EXPECT_EQ(kernels[0]->max_blocks, 0);
  EXPECT_THAT(plan->ptx, HasSubstr("ld.global.nc.v4.f32"));
  EXPECT_THAT(plan->ptx, HasSubstr("st.global.v4.f32"));
  EXPECT_THAT(plan->ptx, HasSubstr("ex2.approx"));
  EXPECT_THAT(plan->ptx, HasSubstr("shfl.sync.down"));
  EXPECT_THAT(plan->ptx, HasSubstr(".maxntid 256, 1, 1"));
  // Resident: 64 elements, one exp each (16 chunks of 4 in one pass; the loop has 2 passes).
  auto count = [](const std::string& text, const std::string& what) {
    int64_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(plan->ptx, "ex2.approx"), 64);
  EXPECT_EQ(count(plan->ptx, "ld.global.nc.v4.f32"), 16);
  EXPECT_EQ(count(plan->ptx, "st.global.v4.f32"), 16);
  EXPECT_EQ(Assemble(plan->ptx), "") << plan->ptx;

  GpuTarget looping;
  looping.resident_rows = false;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(modules::SoftmaxModule(16384, 16384));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuPlan> loop = CompileGpuPlan(*std::move(module), looping);
  ASSERT_TRUE(loop.ok()) << loop.status();
  ASSERT_EQ(KernelSteps(*loop, HloOpcode::kFusion).size(), 1u);
  EXPECT_EQ(KernelSteps(*loop, HloOpcode::kFusion)[0]->max_blocks, (int64_t{48} << 20) / (16384 * 4));
  EXPECT_THAT(loop->ptx, HasSubstr("ld.global.nc.v4.f32"));
  EXPECT_THAT(loop->ptx, HasSubstr("shfl.sync.down"));
  absl::StatusOr<GpuPlan> wide = CompilePlan(modules::SoftmaxModule(2048, 32768));
  ASSERT_TRUE(wide.ok()) << wide.status();
  ASSERT_EQ(KernelSteps(*wide, HloOpcode::kFusion).size(), 1u);
  EXPECT_EQ(KernelSteps(*wide, HloOpcode::kFusion)[0]->max_blocks, (int64_t{48} << 20) / (32768 * 4));
  absl::StatusOr<GpuPlan> small = CompilePlan(modules::SoftmaxModule(64, 128));
  ASSERT_TRUE(small.ok()) << small.status();
  ASSERT_EQ(KernelSteps(*small, HloOpcode::kFusion).size(), 1u);
  EXPECT_EQ(KernelSteps(*small, HloOpcode::kFusion)[0]->max_blocks, 0);
  GpuTarget scalar;
  scalar.elements_per_thread = 1;
  module = ParseAndReturnUnverifiedModule(modules::GeluModule("1024,256"));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuPlan> one = CompileGpuPlan(*std::move(module), scalar);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_THAT(one->ptx, Not(HasSubstr(".v4.f32")));
  EXPECT_THAT(one->ptx, HasSubstr("ex2.approx"));
  EXPECT_THAT(one->ptx, HasSubstr("rcp.approx"));
}

TEST(PtxEmitterTest, SoftmaxRowsWithReductionsInsideTheKernels) {
  Lowered l = Lower(modules::SoftmaxModule(64, 128));
  ASSERT_FALSE(l.kernels.empty());
  absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "softmax");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->kernels.size(), l.kernels.size());
  // The cpu pipeline fuses softmax into one fusion with two row reductions: one row kernel,
  // a block per row reducing through shared memory.
  ASSERT_EQ(m->kernels.size(), 1u);
  EXPECT_EQ(m->kernels[0].rows, 64);
  EXPECT_THAT(m->ptx, HasSubstr(".shared"));
  EXPECT_THAT(m->ptx, HasSubstr("bar.sync"));
  ExpectAssembles(*m);
}

TEST(PtxEmitterTest, ReductionsToRowsAndColumns) {
  Lowered l = Lower(modules::kReductionsModule);
  ASSERT_EQ(l.kernels.size(), 2u);
  absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "reductions");
  ASSERT_TRUE(m.ok()) << m.status();
  int64_t row_kernels = 0;
  for (const PtxKernel& k : m->kernels) {
    if (k.rows > 0) {
      EXPECT_EQ(k.rows, 300) << k.name;  // the sum over each row's 35 elements
      ++row_kernels;
    } else {
      EXPECT_EQ(k.elements, 33) << k.name;  // a column reduction: a thread per output
    }
  }
  EXPECT_EQ(row_kernels, 1);
  ExpectAssembles(*m);
}

TEST(PtxEmitterTest, IntegerBf16PredicateAndDataMovementKernels) {
  Lowered l = Lower(modules::kMixedModule);
  ASSERT_FALSE(l.kernels.empty());
  absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "mixed");
  ASSERT_TRUE(m.ok()) << m.status();
  for (const PtxKernel& k : m->kernels) EXPECT_THAT(m->ptx, HasSubstr(".entry " + k.name));
  ExpectAssembles(*m);
}

// A dynamic-update-slice of scalar starts is a kernel over its update's elements
// (GpuPlanStep::in_place) that assembles; operand 0 in another layout than the result is
// first relaid out by a kernel of its own (layout assignment), then updated the same way.
TEST(PtxEmitterTest, DynamicUpdateSlicesWriteTheirUpdateRegion) {
  for (const char* layout : {"{1,0}", "{0,1}"}) {
    const std::string text = absl::StrCat(R"(HloModule dus
ENTRY e {
  a = f32[64,32])", layout, R"( parameter(0)
  u = f32[3,32]{1,0} parameter(1)
  i = s64[] parameter(2)
  j = s64[] parameter(3)
  ROOT d = f32[64,32]{1,0} dynamic-update-slice(a, u, i, j)
}
)");
    absl::StatusOr<GpuPlan> plan = CompilePlan(text);
    ASSERT_TRUE(plan.ok()) << plan.status();
    const std::vector<const GpuPlanStep*> steps = KernelSteps(*plan, HloOpcode::kDynamicUpdateSlice);
    ASSERT_EQ(steps.size(), 1u) << layout;
    EXPECT_TRUE(steps[0]->in_place) << layout;
    EXPECT_EQ(steps[0]->elements, 64 * 32);
    size_t kernels = 0;
    for (const GpuPlanStep& step : plan->entry().steps) kernels += step.kind == GpuPlanStep::Kind::kKernel;
    EXPECT_EQ(kernels, std::string(layout) == "{1,0}" ? 1u : 2u) << layout;
    EXPECT_EQ(Assemble(plan->ptx), "") << plan->ptx;
  }
}

TEST(PtxEmitterTest, ContractionsWindowsAndIndexing) {
  Lowered l = Lower(modules::kContractionsModule);
  ASSERT_FALSE(l.kernels.empty());
  absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "contractions");
  ASSERT_TRUE(m.ok()) << m.status();
  ExpectAssembles(*m);
}

// Transcendental functions need the toolkit's libdevice; a machine with CUDA's headers but
// without it skips the tests of them (the refusal is tested everywhere).
bool HaveLibdevice() { return std::ifstream(LibdevicePath()).good(); }
#define SKIP_WITHOUT_LIBDEVICE() \
  if (!HaveLibdevice()) GTEST_SKIP() << "no libdevice at " << LibdevicePath()

// PTX that calls a function it does not define (ptxas accepts that; loading the module
// on a GPU would fail), e.g. a libm routine that was not replaced.
bool HasExternalCalls(const std::string& ptx) { return ptx.find(".extern .func") != std::string::npos; }

TEST(PtxEmitterTest, EveryFloatElementwiseOpCompilesForEveryFloatType) {
  SKIP_WITHOUT_LIBDEVICE();
  // Transcendental functions come from libdevice; f16 and bf16 are computed in f32.
  for (const char* type : {"f32", "f64", "f16", "bf16"}) {
    SCOPED_TRACE(type);
    Lowered l = Lower(modules::FloatOpsModule(type, 64));
    ASSERT_FALSE(l.kernels.empty());
    absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, std::string("float_ops_") + type);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_FALSE(HasExternalCalls(m->ptx)) << m->ptx;
    EXPECT_THAT(m->ptx, ::testing::Not(HasSubstr("__nvvm_reflect")));
    ExpectAssembles(*m);
  }
}

TEST(PtxEmitterTest, EveryUnaryAndBinaryOpcodeOnFloatsCompiles) {
  SKIP_WITHOUT_LIBDEVICE();
  // A sweep over the opcode list, so that an op added to it is not silently left out: each
  // elementwise unary or binary opcode the interpreter (the reference) computes as
  // T[16] -> T[16] compiles.
  backend::RegisterBuiltinBackends();
  for (const char* type : {"f32", "f64"}) {
    const std::string t = std::string(type) + "[16]";
    int compiled = 0;
    for (int i = 0; i < kHloOpcodeCount; ++i) {
      const HloOpcode op = static_cast<HloOpcode>(i);
      const bool unary = HloOpcodeIsElementwiseUnary(op), binary = HloOpcodeIsElementwiseBinary(op);
      if (!unary && !binary) continue;
      const std::string name(HloOpcodeString(op));
      const std::string text = "HloModule m\nENTRY main {\n  x = " + t + " parameter(0)\n  y = " + t +
                               " parameter(1)\n  ROOT r = " + t + " " + name + (unary ? "(x)" : "(x, y)") + "\n}\n";
      absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseAndReturnUnverifiedModule(text);
      if (!parsed.ok() || !VerifyHloModule(**parsed).ok()) continue;
      std::vector<Literal> zeros;
      for (int a = 0; a < 2; ++a) zeros.push_back(*Literal::Create((*parsed)->entry_computation()->parameter_instruction(a)->shape()));
      if (!::xla::testing::RunHlo(text, zeros, "interpreter").ok()) continue;  // not an op on floats
      SCOPED_TRACE(name + " on " + type);
      Lowered l = Lower(text);
      absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "op");
      ASSERT_TRUE(m.ok()) << m.status();
      EXPECT_FALSE(HasExternalCalls(m->ptx));
      ExpectAssembles(*m);
      ++compiled;
    }
    EXPECT_GE(compiled, 36) << type;  // the sweep reached the float ops
  }
}

constexpr char kSine[] = R"(HloModule sine
ENTRY main {
  x = f32[32] parameter(0)
  ROOT y = f32[32] sine(x)
})";

TEST(PtxEmitterTest, WithoutLibdeviceTranscendentalsAreAClearRefusal) {
  const char* before = std::getenv("XLA_GPU_LIBDEVICE");
  const std::string saved = before == nullptr ? "" : before;
  setenv("XLA_GPU_LIBDEVICE", "/nonexistent/libdevice.10.bc", 1);
  Lowered l = Lower(kSine);
  ASSERT_EQ(l.kernels.size(), 1u);
  absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "sine");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::IsUnimplemented(m.status())) << m.status();
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("sinf"));
  EXPECT_THAT(std::string(m.status().message()), HasSubstr(l.kernels[0]->name()));
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("libdevice was not found at /nonexistent/libdevice.10.bc"));
  // Kernels that need no libdevice function do not read it.
  Lowered gelu = Lower(modules::GeluModule("64"));
  EXPECT_TRUE(EmitPtx(gelu.kernels, "gelu").ok());
  if (before == nullptr) {
    unsetenv("XLA_GPU_LIBDEVICE");
  } else {
    setenv("XLA_GPU_LIBDEVICE", saved.c_str(), 1);
  }
  if (!HaveLibdevice()) return;
  absl::StatusOr<PtxModule> again = EmitPtx(Lower(kSine).kernels, "sine");
  EXPECT_TRUE(again.ok()) << again.status();
}

// Complex math, a runtime routine of the cpu backend, is inline IR in device code
// (elemental_complex_math.cc): every complex op compiles to PTX that ptxas accepts and that
// calls no host routine.
TEST(PtxEmitterTest, ComplexMathIsDeviceCodeThatAssembles) {
  for (const char* type : {"c64", "c128"}) {
    std::string text = absl::StrCat("HloModule complex_math\nENTRY main {\n  x = ", type, "[32] parameter(0)\n  y = ",
                                    type, "[32] parameter(1)\n");
    std::vector<std::string> names;
    for (const char* op : {"exponential", "exponential-minus-one", "log", "log-plus-one", "sqrt", "rsqrt", "logistic",
                           "sine", "cosine", "tan", "tanh", "sign"}) {
      const std::string name = absl::StrCat("r", names.size());
      absl::StrAppend(&text, "  ", name, " = ", type, "[32] ", op, "(x)\n");
      names.push_back(name);
    }
    for (const char* op : {"divide", "power", "atan2"}) {
      const std::string name = absl::StrCat("r", names.size());
      absl::StrAppend(&text, "  ", name, " = ", type, "[32] ", op, "(x, y)\n");
      names.push_back(name);
    }
    std::vector<std::string> shapes(names.size(), absl::StrCat(type, "[32]"));
    absl::StrAppend(&text, "  ROOT t = (", absl::StrJoin(shapes, ", "), ") tuple(", absl::StrJoin(names, ", "), ")\n}");
    Lowered l = Lower(text);
    ASSERT_EQ(l.kernels.size(), names.size()) << type;
    absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "complex_math");
    ASSERT_TRUE(m.ok()) << type << ": " << m.status();
    EXPECT_THAT(m->ptx, ::testing::Not(HasSubstr("__xla_cpu"))) << type;
    ExpectAssembles(*m);
  }
}

TEST(PtxEmitterTest, NonCandidatesAreRefusedByName) {
  std::unique_ptr<HloModule> module = cpu::testing::ParseOrNull(R"(HloModule cholesky
ENTRY main {
  x = f32[4,4] parameter(0)
  ROOT c = f32[4,4] cholesky(x), lower=true
})");
  ASSERT_NE(module, nullptr);
  const HloInstruction* cholesky = module->entry_computation()->root_instruction();
  EXPECT_FALSE(IsKernelCandidate(*cholesky));
  absl::StatusOr<PtxModule> m = EmitPtx({cholesky}, "cholesky");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::IsUnimplemented(m.status())) << m.status();
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("cholesky c"));
}

}  // namespace
}  // namespace gpu
}  // namespace xla
