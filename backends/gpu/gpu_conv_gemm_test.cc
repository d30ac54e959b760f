// convolution as one GEMM (gpu_conv_gemm.h): which convolutions are rewritten, what the plan
// then runs, and the values: the rewritten module against the original on the interpreter
// (every shape of convolution the rewrite expresses, on any type), and the gpu backend on
// the kernel emulator against the interpreter for convolutions it rewrites by itself.
#include "backends/gpu/gpu_conv_gemm.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/gpu_expanders.h"
#include "backends/gpu/testing/gpu_test_modules.h"
#include "backends/gpu/testing/emulated_gpu.h"
#include "backends/gpu/testing/kernel_emulator.h"
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace gpu {
namespace {

using ::testing::HasSubstr;
using ::xla::testing::ExecuteOnDevice0;
using ::xla::testing::LiteralNear;
using ::xla::testing::SharedInterpreter;

std::string ConvModule(const std::string& lhs, const std::string& rhs, const std::string& out,
                       const std::string& attrs) {
  return absl::StrCat("HloModule conv\nENTRY main {\n  a = ", lhs, " parameter(0)\n  b = ", rhs,
                      " parameter(1)\n  ROOT c = ", out, " convolution(a, b), ", attrs, "\n}\n");
}

std::unique_ptr<HloModule> Parse(const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

int Count(const HloModule& module, HloOpcode opcode) {
  int n = 0;
  for (const auto& computation : module.computations()) {
    for (const auto& hlo : computation->instructions()) n += hlo->opcode() == opcode;
  }
  return n;
}

const HloInstruction* Find(const HloModule& module, HloOpcode opcode) {
  for (const auto& computation : module.computations()) {
    for (const auto& hlo : computation->instructions()) {
      if (hlo->opcode() == opcode) return hlo.get();
    }
  }
  return nullptr;
}

// Why the entry's root convolution of `hlo` is not rewritten ("" when it is).
std::string Refusal(const std::string& hlo, const ConvGemmOptions& options = ConvGemmOptions()) {
  std::unique_ptr<HloModule> module = Parse(hlo);
  if (module == nullptr) return "unparsed";
  return ConvGemmRefusal(*module->entry_computation()->root_instruction(), options);
}

// A typical layer: NHWC, 3x3, same padding, 64 -> 64 features.
const std::string kNhwc3x3 = ConvModule("f32[4,16,16,64]", "f32[3,3,64,64]", "f32[4,16,16,64]",
                                        "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f");

TEST(ConvGemmTest, ATypicalConvolutionBecomesOneDot) {
  std::unique_ptr<HloModule> module = Parse(kNhwc3x3);
  ASSERT_NE(module, nullptr);
  absl::StatusOr<bool> changed = ExpandForGpu(module.get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(Count(*module, HloOpcode::kConvolution), 0);
  EXPECT_EQ(Count(*module, HloOpcode::kDot), 1);
  EXPECT_EQ(Count(*module, HloOpcode::kSlice), 9);
  const HloInstruction* dot = Find(*module, HloOpcode::kDot);
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->shape().dimensions(), (std::vector<int64_t>{4 * 16 * 16, 64}));
  EXPECT_EQ(dot->operand(0)->shape().dimensions(), (std::vector<int64_t>{4 * 16 * 16, 9 * 64}));
  EXPECT_EQ(dot->operand(1)->shape().dimensions(), (std::vector<int64_t>{9 * 64, 64}));
}

std::vector<std::string> KernelOpcodes(const GpuPlan& plan);

// After the whole pipeline: a pad kernel, one fusion gathering the patches, the dot (marked for
// cuBLAS) and nothing else; no convolution kernel.
TEST(ConvGemmTest, ThePlanIsPadPatchFusionAndGemm) {
  absl::StatusOr<GpuPlan> plan = CompileGpuPlan(Parse(kNhwc3x3), GpuTarget{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  int gemms = 0;
  for (const GpuPlanStep& step : plan->entry().steps) {
    if (step.hlo->opcode() == HloOpcode::kDot) gemms += step.gemm;
  }
  EXPECT_EQ(KernelOpcodes(*plan), (std::vector<std::string>{"pad", "fusion", "dot"}));
  EXPECT_EQ(gemms, 1);
}

std::vector<std::string> KernelOpcodes(const GpuPlan& plan) {
  std::vector<std::string> kernels;
  for (const GpuPlanStep& step : plan.entry().steps) {
    if (step.kind == GpuPlanStep::Kind::kKernel) kernels.push_back(std::string(HloOpcodeString(step.hlo->opcode())));
  }
  return kernels;
}

// NCHW: the input's relayout (and, without padding, everything before the dot) fuses into
// the patch fusion; the kernel's and the result's relayouts are transpose kernels.
TEST(ConvGemmTest, NchwRelayoutsFuseIntoThePatches) {
  absl::StatusOr<GpuPlan> strided = CompileGpuPlan(
      Parse(ConvModule("f32[8,32,18,18]", "f32[32,32,3,3]", "f32[8,32,8,8]",
                       "window={size=3x3 stride=2x2}, dim_labels=bf01_oi01->bf01")),
      GpuTarget{});
  ASSERT_TRUE(strided.ok()) << strided.status();
  EXPECT_EQ(KernelOpcodes(*strided), (std::vector<std::string>{"transpose", "fusion", "dot", "transpose"}));
  absl::StatusOr<GpuPlan> padded = CompileGpuPlan(
      Parse(ConvModule("f32[4,32,16,16]", "f32[32,32,3,3]", "f32[4,32,16,16]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01")),
      GpuTarget{});
  ASSERT_TRUE(padded.ok()) << padded.status();
  std::vector<std::string> kernels = KernelOpcodes(*padded);
  std::sort(kernels.begin(), kernels.end());
  EXPECT_EQ(kernels, (std::vector<std::string>{"dot", "fusion", "pad", "transpose", "transpose"}));
}

// A 1x1 NHWC convolution is the dot alone: its patches are the input, reshaped in place.
TEST(ConvGemmTest, OneByOneNhwcIsTheGemmAlone) {
  absl::StatusOr<GpuPlan> plan = CompileGpuPlan(
      Parse(ConvModule("bf16[8,28,28,64]", "bf16[1,1,64,128]", "f32[8,28,28,128]",
                       "window={size=1x1}, dim_labels=b01f_01io->b01f")),
      GpuTarget{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(KernelOpcodes(*plan), (std::vector<std::string>{"dot"}));
  for (const GpuPlanStep& step : plan->entry().steps) {
    if (step.hlo->opcode() == HloOpcode::kDot) {
      EXPECT_TRUE(step.gemm);
    }
  }
}

TEST(ConvGemmTest, PrecisionConfigIsCarriedOntoTheDot) {
  std::unique_ptr<HloModule> module =
      Parse(ConvModule("f32[4,16,16,64]", "f32[3,3,64,64]", "f32[4,16,16,64]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                       "operand_precision={highest,highest}"));
  ASSERT_NE(module, nullptr);
  ASSERT_TRUE(ExpandForGpu(module.get()).ok());
  const HloInstruction* dot = Find(*module, HloOpcode::kDot);
  ASSERT_NE(dot, nullptr);
  ASSERT_EQ(dot->attrs().precision_config().operand_precision_size(), 2);
  EXPECT_EQ(dot->attrs().precision_config().operand_precision(0), PrecisionConfig::HIGHEST);
  EXPECT_EQ(dot->attrs().precision_config().operand_precision(1), PrecisionConfig::HIGHEST);
}

TEST(ConvGemmTest, ConvolutionsThatDoNotPayStayConvolutions) {
  const std::string same = "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f";
  struct Kept {
    std::string hlo, why;
  };
  const std::vector<Kept> kept = {
      {ConvModule("f32[1,4,4,2]", "f32[3,3,2,4]", "f32[1,4,4,4]", same), "tiny"},
      {ConvModule("s8[4,16,16,64]", "s8[3,3,64,64]", "s8[4,16,16,64]", same), "saturate"},
      {ConvModule("s32[4,16,16,64]", "s32[3,3,64,64]", "s32[4,16,16,64]", same), "no cuBLAS gemm for s32"},
      {ConvModule("f32[64,16,16,64]", "f32[3,3,1,64]", "f32[64,16,16,64]", same + ", feature_group_count=64"),
       "1 output features per group"},
      {ConvModule("f32[8,16,16,64]", "f32[3,3,32,64]", "f32[4,16,16,64]",
                  same + ", feature_group_count=2, batch_group_count=2"),
       "both feature_group_count and batch_group_count"},
      {ConvModule("f32[4,64,64]", "f32[13,64,64]", "f32[4,52,64]", "window={size=13}, dim_labels=b0f_0io->b0f"),
       "13 window offsets and 52 outputs"},
      {ConvModule("f32[128,64,64,64]", "f32[3,3,64,64]", "f32[128,64,64,64]", same), "patches of"},
      {ConvModule("f32[64,64,64,4]", "f32[1,1,4,64]", "f32[64,64,64,64]", "window={size=1x1}, dim_labels=b01f_01io->b01f"),
       "a contraction of 4"},
  };
  for (const Kept& k : kept) {
    EXPECT_THAT(Refusal(k.hlo), HasSubstr(k.why)) << k.hlo;
    std::unique_ptr<HloModule> module = Parse(k.hlo);
    ASSERT_NE(module, nullptr);
    ASSERT_TRUE(ExpandForGpu(module.get()).ok());
    EXPECT_EQ(Count(*module, HloOpcode::kConvolution), 1) << k.hlo;
    EXPECT_EQ(Count(*module, HloOpcode::kDot), 0) << k.hlo;
  }
  EXPECT_EQ(Refusal(kNhwc3x3), "");
}

// A module that skipped verification: the rewrite reads nothing out of range and leaves
// what it cannot express to the verifier and the direct kernel.
TEST(ConvGemmTest, MalformedConvolutionsAreLeftAlone) {
  struct Broken {
    std::function<void(HloInstructionProto*)> apply;
    std::string why;
  };
  const std::vector<Broken> broken = {
      {[](HloInstructionProto* a) { a->mutable_convolution_dimension_numbers()->set_input_batch_dimension(7); },
       "not permutations"},
      {[](HloInstructionProto* a) {
         a->mutable_convolution_dimension_numbers()->set_kernel_input_feature_dimension(3);
       },
       "not permutations"},
      {[](HloInstructionProto* a) { a->mutable_window()->mutable_dimensions(0)->set_size(2); }, "window size"},
      {[](HloInstructionProto* a) { a->set_feature_group_count(3); }, "inconsistent feature"},
      {[](HloInstructionProto* a) { a->mutable_window()->mutable_dimensions(1)->set_padding_high(-3); },
       "reach past"},
      {[](HloInstructionProto* a) { a->mutable_window()->clear_dimensions(); }, "inconsistent ranks"},
  };
  for (const Broken& b : broken) {
    std::unique_ptr<HloModule> module = Parse(kNhwc3x3);
    ASSERT_NE(module, nullptr);
    HloInstruction* conv = module->entry_computation()->root_instruction();
    b.apply(conv->mutable_attrs());
    EXPECT_THAT(ConvGemmRefusal(*conv), HasSubstr(b.why));
    absl::StatusOr<bool> changed = RewriteConvolutionsAsGemm(module.get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_FALSE(*changed) << b.why;
  }
}

// Replacing a convolution would drop its control edges' meaning: it is left alone.
TEST(ConvGemmTest, ConvolutionsWithControlDependenciesAreLeftAlone) {
  std::unique_ptr<HloModule> module = Parse(kNhwc3x3);
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  entry->parameter_instruction(0)->AddControlDependencyTo(entry->root_instruction());
  EXPECT_EQ(ConvGemmRefusal(*entry->root_instruction()), "control dependencies");
  absl::StatusOr<bool> changed = RewriteConvolutionsAsGemm(module.get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(Count(*module, HloOpcode::kConvolution), 1);
}

// Compiles and runs `module`; `opcodes` (when given) counts convolutions and dots in the
// compiled module.
absl::StatusOr<Literal> RunModule(backend::Backend& b, std::unique_ptr<HloModule> module,
                                  const std::vector<Literal>& args, std::pair<int, int>* opcodes = nullptr) {
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b.Compile(std::move(module), backend::CompileOptions());
  if (!exe.ok()) return exe.status();
  if (opcodes != nullptr) {
    *opcodes = {Count((*exe)->module(), HloOpcode::kConvolution), Count((*exe)->module(), HloOpcode::kDot)};
  }
  return ExecuteOnDevice0(b, **exe, args);
}

std::vector<Literal> RandomArguments(const HloModule& module, uint64_t seed) {
  std::vector<Literal> args;
  for (const HloInstruction* p : module.entry_computation()->parameter_instructions()) {
    absl::StatusOr<Literal> arg = Literal::Create(p->shape());
    EXPECT_TRUE(arg.ok()) << arg.status();
    if (!arg.ok()) return {};
    testing::FillRandom(&*arg, p->shape(), &seed);
    args.push_back(*std::move(arg));
  }
  return args;
}

struct ConvCase {
  std::string name, lhs, rhs, out, attrs;
  double rtol = 1e-6, atol = 1e-6;
};

void PrintTo(const ConvCase& c, std::ostream* os) { *os << c.name; }

// Every case the rewrite expresses: strides, padding (negative too), lhs and rhs dilation,
// reversal, dimension numbers, 1-D to 3-D, feature groups, types, preferred result types.
std::vector<ConvCase> SemanticCases() {
  const std::string nhwc = "dim_labels=b01f_01io->b01f";
  return {
      {"nhwc_3x3_same", "f32[2,9,9,4]", "f32[3,3,4,8]", "f32[2,9,9,8]", "window={size=3x3 pad=1_1x1_1}, " + nhwc},
      {"nchw_stride2", "f32[2,4,9,9]", "f32[8,4,3,3]", "f32[2,8,5,5]",
       "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"},
      {"permuted_labels", "f32[3,7,6,2]", "f32[3,2,3,5]", "f32[6,2,2,5]",
       "window={size=2x3 stride=1x2}, dim_labels=f01b_i01o->01bf"},
      {"lhs_dilation_negative_padding", "f32[1,7,3]", "f32[3,3,5]", "f32[1,12,5]",
       "window={size=3 pad=2_-1 lhs_dilate=2}, dim_labels=b0f_0io->b0f"},
      {"rhs_dilation_reversal", "f32[1,10,10,3]", "f32[3,3,3,4]", "f32[1,6,8,4]",
       "window={size=3x3 rhs_dilate=2x1 rhs_reversal=1x0}, " + nhwc},
      {"all_window_attributes", "f32[2,6,5,3]", "f32[2,3,3,4]", "f32[2,6,2,4]",
       "window={size=2x3 stride=2x1 pad=1_0x2_-1 lhs_dilate=2x1 rhs_dilate=1x2 rhs_reversal=0x1}, " + nhwc},
      {"one_d", "f32[3,20,4]", "f32[5,4,6]", "f32[3,8,6]", "window={size=5 stride=2}, dim_labels=b0f_0io->b0f"},
      {"three_d_two_runs", "f32[1,5,6,7,2]", "f32[3,3,3,2,4]", "f32[1,5,2,7,4]",
       "window={size=3x3x3 stride=1x2x1 pad=1_1x0_0x1_1}, dim_labels=b012f_012io->b012f"},
      {"five_by_five_two_runs", "f32[1,8,8,2]", "f32[5,5,2,3]", "f32[1,8,8,3]",
       "window={size=5x5 pad=2_2x2_2}, " + nhwc},
      {"one_by_one_stride", "f32[2,7,7,6]", "f32[1,1,6,5]", "f32[2,4,4,5]", "window={size=1x1 stride=2x2}, " + nhwc},
      {"no_spatial_dims", "f32[4,6]", "f32[6,3]", "f32[4,3]", "dim_labels=bf_io->bf"},
      {"feature_groups", "f32[2,6,6,8]", "f32[3,3,2,12]", "f32[2,4,4,12]",
       "window={size=3x3}, " + nhwc + ", feature_group_count=4"},
      {"feature_groups_nchw_padded", "f32[2,6,5,5]", "f32[6,2,3,3]", "f32[2,6,5,5]",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=3"},
      {"weight_gradient_shape", "f32[2,7,7,3]", "f32[2,5,5,4]", "f32[3,3,3,4]",
       "window={size=5x5}, dim_labels=f01b_i01o->01bf"},
      {"long_window_few_outputs", "f32[2,24,3]", "f32[16,3,2]", "f32[2,5,2]",
       "window={size=16 stride=2 rhs_dilate=1}, dim_labels=b0f_0io->b0f"},
      {"mixed_slots_dilated_padded", "f32[1,9,12,2]", "f32[7,3,2,3]", "f32[1,2,10,3]",
       "window={size=7x3 stride=3x1 pad=2_1x0_0 rhs_dilate=1x1 rhs_reversal=1x0}, " + nhwc},
      {"by_output_rhs_dilation", "f32[1,20,2]", "f32[6,2,3]", "f32[1,4,3]",
       "window={size=6 stride=3 pad=1_0 rhs_dilate=2}, dim_labels=b0f_0io->b0f"},
      {"permuted_labels_groups", "f32[4,7,6,2]", "f32[2,2,6,3]", "f32[6,6,2,4]",
       "window={size=2x3}, dim_labels=f01b_i0o1->0fb1, feature_group_count=2"},
      {"batch_groups", "f32[4,5,5,3]", "f32[3,3,3,6]", "f32[2,3,3,6]",
       "window={size=3x3}, " + nhwc + ", batch_group_count=2"},
      {"batch_groups_nchw_padded_strided", "f32[6,2,7,6]", "f32[9,2,3,2]", "f32[2,9,4,3]",
       "window={size=3x2 stride=2x2 pad=1_1x0_0}, dim_labels=bf01_oi01->bf01, batch_group_count=3"},
      {"depthwise", "f32[1,5,5,3]", "f32[3,3,1,3]", "f32[1,3,3,3]",
       "window={size=3x3}, " + nhwc + ", feature_group_count=3"},
      {"f16", "f16[2,6,6,4]", "f16[3,3,4,4]", "f16[2,6,6,4]", "window={size=3x3 pad=1_1x1_1}, " + nhwc},
      {"bf16_to_f32", "bf16[2,6,6,4]", "bf16[3,3,4,4]", "f32[2,6,6,4]", "window={size=3x3 pad=1_1x1_1}, " + nhwc},
      {"f16_to_f32_groups", "f16[2,6,6,4]", "f16[3,3,2,4]", "f32[2,4,4,4]",
       "window={size=3x3}, " + nhwc + ", feature_group_count=2"},
      {"f64", "f64[2,6,6,4]", "f64[3,3,4,4]", "f64[2,6,6,4]", "window={size=3x3 pad=1_1x1_1}, " + nhwc},
      {"s32", "s32[2,6,6,4]", "s32[3,3,4,4]", "s32[2,4,4,4]", "window={size=3x3}, " + nhwc},
      {"s8_to_s32", "s8[2,6,6,4]", "s8[3,3,4,4]", "s32[2,6,6,4]", "window={size=3x3 pad=1_1x1_1}, " + nhwc},
      {"s8_to_f32", "s8[2,6,6,4]", "s8[3,3,4,4]", "f32[2,4,4,4]", "window={size=3x3}, " + nhwc},
      {"mixed_f16_f32", "f16[2,6,6,4]", "f32[3,3,4,4]", "f32[2,4,4,4]", "window={size=3x3}, " + nhwc},
      {"bf16", "bf16[2,6,6,4]", "bf16[3,3,4,4]", "bf16[2,6,6,4]", "window={size=3x3 pad=1_1x1_1}, " + nhwc},
      {"layouts", "f32[2,6,6,4]{2,1,3,0}", "f32[3,3,4,5]{0,1,2,3}", "f32[2,6,6,5]{0,1,2,3}",
       "window={size=3x3 pad=1_1x1_1}, " + nhwc},
  };
}

ConvGemmOptions Everything() {
  ConvGemmOptions options;
  options.cublas_types_only = false;
  options.min_multiply_adds = 0;
  options.min_output_features = 1;
  options.min_contraction = 1;
  return options;
}

class ConvGemmSemanticsTest : public ::testing::TestWithParam<ConvCase> {};

// The interpreter sums dot and convolution in double in the same order (window offsets, then
// input features), so the rewritten module gives the convolution's values to the last bit
// but for the sign of zero sums.
TEST_P(ConvGemmSemanticsTest, RewrittenModuleMatchesTheConvolutionOnTheInterpreter) {
  const ConvCase& c = GetParam();
  const std::string hlo = ConvModule(c.lhs, c.rhs, c.out, c.attrs);
  std::unique_ptr<HloModule> original = Parse(hlo);
  std::unique_ptr<HloModule> rewritten = Parse(hlo);
  ASSERT_NE(original, nullptr);
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ConvGemmRefusal(*rewritten->entry_computation()->root_instruction(), Everything()), "");
  absl::StatusOr<bool> changed = RewriteConvolutionsAsGemm(rewritten.get(), Everything());
  ASSERT_TRUE(changed.ok()) << changed.status();
  ASSERT_TRUE(*changed);
  ASSERT_EQ(Count(*rewritten, HloOpcode::kConvolution), 0);
  ASSERT_EQ(Count(*rewritten, HloOpcode::kDot), 1);
  const std::vector<Literal> args = RandomArguments(*original, std::hash<std::string>()(c.name));
  ASSERT_EQ(args.size(), 2u);
  absl::StatusOr<Literal> expected = RunModule(*SharedInterpreter(), std::move(original), args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_TRUE(LiteralNear(*expected, RunModule(*SharedInterpreter(), std::move(rewritten), args), 1e-12, 1e-12));
}

INSTANTIATE_TEST_SUITE_P(Cases, ConvGemmSemanticsTest, ::testing::ValuesIn(SemanticCases()),
                         [](const ::testing::TestParamInfo<ConvCase>& info) { return info.param.name; });

// Convolutions the gpu backend rewrites by itself (cuBLAS types, big enough), compiled and run
// on the emulator (the dot a kernel, cuBLAS being absent) against the interpreter.
std::vector<ConvCase> GpuCases() {
  const std::string nhwc = "dim_labels=b01f_01io->b01f";
  return {
      {"nhwc_3x3_same", "f32[4,12,12,32]", "f32[3,3,32,32]", "f32[4,12,12,32]",
       "window={size=3x3 pad=1_1x1_1}, " + nhwc},
      {"nchw_stride2_lhs_dilation", "f32[8,32,8,8]", "f32[32,32,3,3]", "f32[8,32,8,8]",
       "window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=2x2}, dim_labels=bf01_oi01->bf01"},
      {"rhs_dilation_reversal", "f32[8,14,14,16]", "f32[3,3,16,32]", "f32[8,10,12,32]",
       "window={size=3x3 rhs_dilate=2x1 rhs_reversal=1x1}, " + nhwc},
      {"one_d", "f32[12,128,32]", "f32[7,32,32]", "f32[12,61,32]", "window={size=7 stride=2}, dim_labels=b0f_0io->b0f"},
      {"three_d", "f32[2,8,8,8,16]", "f32[3,3,3,16,16]", "f32[2,8,8,8,16]",
       "window={size=3x3x3 pad=1_1x1_1x1_1}, dim_labels=b012f_012io->b012f"},
      {"feature_groups", "f32[16,12,12,32]", "f32[3,3,8,32]", "f32[16,12,12,32]",
       "window={size=3x3 pad=1_1x1_1}, " + nhwc + ", feature_group_count=4"},
      {"f16", "f16[4,12,12,32]", "f16[3,3,32,32]", "f16[4,12,12,32]", "window={size=3x3 pad=1_1x1_1}, " + nhwc, 2e-3,
       2e-2},
      {"bf16_to_f32", "bf16[4,12,12,32]", "bf16[3,3,32,32]", "f32[4,12,12,32]",
       "window={size=3x3 pad=1_1x1_1}, " + nhwc},
      {"bf16", "bf16[4,12,12,32]", "bf16[3,3,32,32]", "bf16[4,12,12,32]", "window={size=3x3 pad=1_1x1_1}, " + nhwc,
       1e-2, 1e-1},
      // Sums of 1152 products.
      {"weight_gradient", "f32[8,14,14,32]", "f32[8,12,12,16]", "f32[3,3,32,16]",
       "window={size=12x12}, dim_labels=f01b_i01o->01bf", 1e-5, 1e-3},
      {"batch_groups", "f32[32,16,16,32]", "f32[3,3,32,16]", "f32[8,14,14,16]",
       "window={size=3x3}, " + nhwc + ", batch_group_count=4"},
      {"layouts", "f32[4,12,12,32]{2,1,3,0}", "f32[3,3,32,32]{0,1,2,3}", "f32[4,12,12,32]{1,2,3,0}",
       "window={size=3x3 pad=1_1x1_1}, " + nhwc},
      {"nchw_groups_padded", "f32[16,32,12,12]", "f32[32,8,3,3]", "f32[16,32,12,12]",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=4"},
  };
}

class ConvGemmOnGpuTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvGemmOnGpuTest, AgreesWithTheInterpreter) {
  const ConvCase& c = GetParam();
  const std::string hlo = ConvModule(c.lhs, c.rhs, c.out, c.attrs);
  EXPECT_EQ(Refusal(hlo), "");
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  std::unique_ptr<HloModule> module = Parse(hlo);
  ASSERT_NE(module, nullptr);
  const std::vector<Literal> args = RandomArguments(*module, std::hash<std::string>()(c.name));
  std::pair<int, int> convolutions_and_dots;
  const int before = EmulatedLaunches();
  absl::StatusOr<Literal> actual = RunModule(*gpu, std::move(module), args, &convolutions_and_dots);
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_GT(EmulatedLaunches(), before);
  EXPECT_EQ(convolutions_and_dots, std::make_pair(0, 1));
  absl::StatusOr<Literal> expected = RunModule(*SharedInterpreter(), Parse(hlo), args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  // f32 sums of hundreds of products in another order than the interpreter's double sum.
  EXPECT_TRUE(LiteralNear(*expected, actual, c.rtol, std::max(c.atol, 1e-4)));
}

INSTANTIATE_TEST_SUITE_P(Cases, ConvGemmOnGpuTest, ::testing::ValuesIn(GpuCases()),
                         [](const ::testing::TestParamInfo<ConvCase>& info) { return info.param.name; });

// Convolutions in a while body are rewritten too.
TEST(ConvGemmOnGpuTest, ConvolutionInAWhileBody) {
  const std::string hlo = R"(HloModule loop
cond {
  p = (s32[], f32[4,12,12,32], f32[3,3,32,32]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4,12,12,32], f32[3,3,32,32]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4,12,12,32] get-tuple-element(p), index=1
  w = f32[3,3,32,32] get-tuple-element(p), index=2
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[4,12,12,32] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT t = (s32[], f32[4,12,12,32], f32[3,3,32,32]) tuple(j, y, w)
}
ENTRY main {
  x = f32[4,12,12,32] parameter(0)
  w = f32[3,3,32,32] parameter(1)
  zero = s32[] constant(0)
  t = (s32[], f32[4,12,12,32], f32[3,3,32,32]) tuple(zero, x, w)
  r = (s32[], f32[4,12,12,32], f32[3,3,32,32]) while(t), condition=cond, body=body
  ROOT y = f32[4,12,12,32] get-tuple-element(r), index=1
})";
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  std::unique_ptr<HloModule> module = Parse(hlo);
  ASSERT_NE(module, nullptr);
  const std::vector<Literal> args = RandomArguments(*module, 7);
  std::pair<int, int> convolutions_and_dots;
  absl::StatusOr<Literal> actual = RunModule(*gpu, std::move(module), args, &convolutions_and_dots);
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_EQ(convolutions_and_dots, std::make_pair(0, 1));
  absl::StatusOr<Literal> expected = RunModule(*SharedInterpreter(), Parse(hlo), args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_TRUE(LiteralNear(*expected, actual, 1e-5, 1e-2));
}

}  // namespace
}  // namespace gpu
}  // namespace xla
