#include "backends/cpu/passes/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "backends/cpu/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

namespace fs = std::filesystem;
using testing::CountOpcode;

::testing::AssertionResult MeetsContract(const HloModule& module) {
  for (const auto& computation : module.computations()) {
    for (const auto& instruction : computation->instructions()) {
      const HloOpcode op = instruction->opcode();
      const std::string where = computation->name() + "/" + instruction->name();
      if (!ShapeUtil::HasLayoutEverywhere(instruction->shape())) {
        return ::testing::AssertionFailure() << where << " has no layout";
      }
      if (op == HloOpcode::kBatchNormTraining || op == HloOpcode::kBatchNormInference ||
          op == HloOpcode::kBatchNormGrad) {
        return ::testing::AssertionFailure() << where << " was not expanded";
      }
      if (op == HloOpcode::kDot && instruction->shape().is_static()) {
        const DotDimensionNumbers& d = instruction->attrs().dot_dimension_numbers();
        const bool batched = d.lhs_batch_dimensions_size() > 0;
        const int64_t rank = batched ? 3 : 2;
        if (instruction->operand(0)->shape().rank() != rank || instruction->operand(1)->shape().rank() != rank ||
            d.lhs_contracting_dimensions_size() != 1 || d.lhs_contracting_dimensions(0) != rank - 1 ||
            d.rhs_contracting_dimensions_size() != 1 || d.rhs_contracting_dimensions(0) != rank - 2) {
          return ::testing::AssertionFailure() << where << " is not a canonical dot";
        }
      }
      if (computation->is_fusion_computation()) {
        const bool allowed = op == HloOpcode::kParameter || op == HloOpcode::kBroadcast ||
                             op == HloOpcode::kReshape || op == HloOpcode::kTranspose || op == HloOpcode::kSlice ||
                             op == HloOpcode::kIota || op == HloOpcode::kReduce ||
                             (op == HloOpcode::kConstant && ShapeUtil::IsEffectiveScalar(instruction->shape())) ||
                             (HloOpcodeCategoryOf(op) != HloOpcodeCategory::kOther && op != HloOpcode::kCopy &&
                              op != HloOpcode::kBitcastConvert);
        if (!allowed) return ::testing::AssertionFailure() << where << " may not be fused";
        if (op == HloOpcode::kReduce && instruction.get() != computation->root_instruction()) {
          // Row reductions (fusion.h): [R, ...] -> [R] over every dimension but the first.
          const Shape& in = instruction->operand(0)->shape();
          const bool row = instruction->shape().rank() == 1 && in.rank() >= 2 &&
                           in.dimensions(0) == instruction->shape().dimensions(0) &&
                           static_cast<int64_t>(instruction->dimensions().size()) == in.rank() - 1 &&
                           std::find(instruction->dimensions().begin(), instruction->dimensions().end(), 0) ==
                               instruction->dimensions().end();
          if (!row) return ::testing::AssertionFailure() << where << ": a fused reduce is the root or a row reduction";
        }
      }
      if (op == HloOpcode::kFusion) {
        const HloComputation* fused = instruction->to_apply();
        const bool input = instruction->attrs().fusion_kind() == "kInput";
        if (fused == nullptr || !fused->is_fusion_computation() ||
            fused->num_parameters() != instruction->operand_count() ||
            input != (fused->root_instruction()->opcode() == HloOpcode::kReduce)) {
          return ::testing::AssertionFailure() << where << " is not a well-formed fusion";
        }
      }
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(PipelineTest, SoftmaxBecomesOneFusionReadingEachRowOnce) {
  const std::string text = R"(
HloModule softmax
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,16] parameter(0)
  ninf = f32[] constant(-inf)
  rmax = f32[8] reduce(x, ninf), dimensions={1}, to_apply=max
  bmax = f32[8,16] broadcast(rmax), dimensions={0}
  sub = f32[8,16] subtract(x, bmax)
  ex = f32[8,16] exponential(sub)
  zero = f32[] constant(0)
  zero2 = f32[] constant(0)
  sum = f32[8] reduce(ex, zero), dimensions={1}, to_apply=add
  bsum = f32[8,16] broadcast(sum), dimensions={0}
  dead = f32[8] reduce(ex, zero2), dimensions={1}, to_apply=add
  one = f32[] constant(1)
  bone = f32[8,16] broadcast(one), dimensions={}
  out = f32[8,16] divide(ex, bsum)
  ROOT r = f32[8,16] multiply(out, bone)
}
)";
  auto before = testing::ParseOrNull(text);
  auto after = testing::ParseOrNull(text);
  ASSERT_NE(after, nullptr);
  CpuPipelineOptions options;
  options.verify_after_each_pass = true;
  ASSERT_TRUE(RunCpuPipeline(after.get(), options).ok());
  const HloComputation* entry = after->entry_computation();
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kFusion), 1) << testing::ToText(*after);
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kReduce), 0);
  // x and the one loop fusion (max and sum as row reductions, then the divide).
  EXPECT_EQ(entry->instruction_count(), 2);
  EXPECT_EQ(CountOpcode(*entry->root_instruction()->to_apply(), HloOpcode::kReduce), 2);
  EXPECT_EQ(CountOpcode(*entry->root_instruction()->to_apply(), HloOpcode::kMultiply), 0);
  EXPECT_TRUE(testing::SameResults(*before, *after));
  EXPECT_TRUE(MeetsContract(*after));
}

// Runs the pipeline (verified after each pass), checks results and the contract.
std::unique_ptr<HloModule> Pipe(const std::string& text) {
  auto before = testing::ParseOrNull(text);
  auto after = testing::ParseOrNull(text);
  if (after == nullptr) return nullptr;
  CpuPipelineOptions options;
  options.verify_after_each_pass = true;
  absl::Status status = RunCpuPipeline(after.get(), options);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_TRUE(testing::SameResults(*before, *after));
  EXPECT_TRUE(MeetsContract(*after));
  return after;
}

TEST(PipelineTest, GeluTanhIsOneLoopOverItsInput) {
  auto module = Pipe(R"(
HloModule gelu
ENTRY e {
  x = f32[64] parameter(0)
  half = f32[] constant(0.5)
  one = f32[] constant(1)
  c = f32[] constant(0.044715)
  k = f32[] constant(0.7978845608)
  bhalf = f32[64] broadcast(half), dimensions={}
  bone = f32[64] broadcast(one), dimensions={}
  bc = f32[64] broadcast(c), dimensions={}
  bk = f32[64] broadcast(k), dimensions={}
  x2 = f32[64] multiply(x, x)
  x3 = f32[64] multiply(x2, x)
  cx3 = f32[64] multiply(bc, x3)
  inner = f32[64] add(x, cx3)
  scaled = f32[64] multiply(bk, inner)
  t = f32[64] tanh(scaled)
  onet = f32[64] add(bone, t)
  hx = f32[64] multiply(bhalf, x)
  ROOT y = f32[64] multiply(hx, onet)
}
)");
  ASSERT_NE(module, nullptr);
  const HloComputation* entry = module->entry_computation();
  EXPECT_EQ(entry->instruction_count(), 2) << testing::ToText(*module);
  EXPECT_EQ(entry->root_instruction()->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(entry->root_instruction()->operand_count(), 1);
}

TEST(PipelineTest, MlpLayerFusesBiasAndReluAfterTheGemm) {
  auto module = Pipe(R"(
HloModule mlp
ENTRY e {
  x = f32[8,16] parameter(0)
  w = f32[16,4] parameter(1)
  b = f32[4] parameter(2)
  d = f32[8,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[8,4] broadcast(b), dimensions={1}
  a = f32[8,4] add(d, bb)
  z = f32[] constant(0)
  bz = f32[8,4] broadcast(z), dimensions={}
  ROOT r = f32[8,4] maximum(a, bz)
}
)");
  ASSERT_NE(module, nullptr);
  const HloComputation* entry = module->entry_computation();
  EXPECT_EQ(CountOpcode(*entry, HloOpcode::kDot), 1);
  ASSERT_EQ(entry->root_instruction()->opcode(), HloOpcode::kFusion) << testing::ToText(*module);
  EXPECT_EQ(entry->root_instruction()->operand_count(), 2);  // the dot's result and the bias
}

TEST(PipelineTest, InvalidModuleIsAnErrorNotACrash) {
  auto module = ParseAndReturnUnverifiedModule(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[5] negate(p)
}
)");
  ASSERT_TRUE(module.ok());
  EXPECT_FALSE(RunCpuPipeline(module->get()).ok());
  EXPECT_EQ(RunCpuPipeline(nullptr).code(), absl::StatusCode::kInvalidArgument);
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string ConformanceDir() {
  const char* env = std::getenv("XLA_SHARED_DIR");
  return std::string(env != nullptr ? env : "../shared") + "/conformance";
}

// Ops whose results depend on more than the arguments (I/O, random draws, replicas) or
// that would wait on a queue: such modules are rewritten but not compared.
bool RunsDeterministically(const HloModule& module) {
  for (const auto& computation : module.computations()) {
    for (const auto& instruction : computation->instructions()) {
      switch (instruction->opcode()) {
        case HloOpcode::kInfeed:
        case HloOpcode::kOutfeed:
        case HloOpcode::kRecv:
        case HloOpcode::kRecvDone:
        case HloOpcode::kSend:
        case HloOpcode::kSendDone:
        case HloOpcode::kRng:
        case HloOpcode::kRngGetAndUpdateState:
        case HloOpcode::kCustomCall:
          return false;
        default:
          break;
      }
    }
  }
  return true;
}

bool HasBatchNorm(const HloModule& module) {
  for (const auto& computation : module.computations()) {
    for (const auto& instruction : computation->instructions()) {
      const HloOpcode op = instruction->opcode();
      if (op == HloOpcode::kBatchNormTraining || op == HloOpcode::kBatchNormInference ||
          op == HloOpcode::kBatchNormGrad) {
        return true;
      }
    }
  }
  return false;
}

bool SmallInputs(const HloModule& module) {
  int64_t elements = 0;
  for (const HloInstruction* p : module.entry_computation()->parameter_instructions()) {
    elements += ShapeUtil::ElementsInRecursive(p->shape());
  }
  return elements <= (1 << 20);
}

// The output contract of pipeline.h, checked on every module the pipeline produced.
// Every conformance module that verifies goes through the pipeline (verified after every
// pass); those the interpreter can run give the same results before and after.
TEST(PipelineTest, ConformanceModulesKeepTheirResults) {
  const auto start = std::chrono::steady_clock::now();
  int files = 0, piped = 0, compared = 0, not_runnable = 0;
  for (const char* sub : {"parser_roundtrip", "parse_only"}) {
    const fs::path dir = fs::path(ConformanceDir()) / sub;
    ASSERT_TRUE(fs::exists(dir)) << dir;
    for (const auto& file : fs::directory_iterator(dir)) {
      if (file.path().extension() != ".hlo") continue;
      ++files;
      const std::string name = file.path().filename().string();
      const std::string text = ReadFile(file.path());
      auto before = ParseAndReturnUnverifiedModule(text);
      if (!before.ok() || !VerifyHloModule(**before).ok()) continue;
      auto after = ParseAndReturnUnverifiedModule(text);
      ASSERT_TRUE(after.ok());
      CpuPipelineOptions options;
      options.verify_after_each_pass = true;
      absl::Status status = RunCpuPipeline(after->get(), options);
      EXPECT_TRUE(status.ok()) << name << ": " << status;
      if (!status.ok()) continue;
      ++piped;
      EXPECT_TRUE(MeetsContract(**after)) << name;
      if (!RunsDeterministically(**before) || !SmallInputs(**before)) continue;
      std::vector<Literal> args = testing::RandomArguments(**before, 7);
      absl::StatusOr<Literal> expected = testing::RunOnInterpreter(**before, args);
      if (!expected.ok()) {
        ++not_runnable;
        continue;
      }
      absl::StatusOr<Literal> actual = testing::RunOnInterpreter(**after, args);
      ASSERT_TRUE(actual.ok()) << name << ": " << actual.status() << "\n" << testing::ToText(**after);
      if (HasBatchNorm(**before)) {
        EXPECT_TRUE(xla::testing::LiteralNear(*expected, actual, 1e-4, 1e-4)) << name;
      } else {
        EXPECT_TRUE(xla::testing::LiteralEqual(*expected, actual)) << name << "\n" << testing::ToText(**after);
      }
      ++compared;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("conformance: %d files, %d through the pipeline, %d compared, %d not runnable, %.1f s\n", files,
              piped, compared, not_runnable, seconds);
  EXPECT_GT(compared, 40);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
