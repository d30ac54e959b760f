// The GEMM paths of dot and convolution (codegen/gemm_plan.cc, runtime/gemm.cc,
// runtime/conv_gemm.cc) against the interpreter: batched, transposed and multi-dimension
// dots, bf16/f16 through sgemm, integer dots bit-exact with wrap-around, and convolutions
// through im2col (padding, strides, dilations, reversal, feature groups, NHWC and NCHW).
// Whole modules go through the backend (whose pipeline canonicalizes dots and layouts), and
// the routines are also called directly on arrays in layouts the pipeline never hands them,
// so the trans flags, swapped results and strided im2col reads are checked too.
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/gemm_plan.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/passes/pipeline.h"
#include "backends/cpu/runtime/gemm.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

using testing::RandomLiteral;
using testing::RegisterBackendsOnce;
using testing::SameOnBothBackends;

// f32 sums of up to a few hundred products of values in [-1, 1): the dot tolerance of the
// cpu tests (cpu_backend_test's DotThroughGemmAndLoops).
constexpr double kRtol = 1e-4, kAtol = 1e-4;

// Values uniform in [-1, 1) (rounded to the element type), in `shape`'s layout.
Literal Uniform(const Shape& shape, uint64_t seed) {
  Literal literal = *Literal::Create(shape);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int64_t i = 0; i < literal.element_count(); ++i) literal.SetFromDouble(i, u(rng));
  return literal;
}

Literal Ints(const Shape& shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  return RandomLiteral(shape, &rng);
}

std::vector<Literal> Arguments(const HloModule& module, bool integers) {
  std::vector<Literal> args;
  uint64_t seed = 1;
  for (const HloInstruction* p : module.entry_computation()->parameter_instructions()) {
    Shape shape = p->shape();
    ShapeUtil::SetDefaultLayoutsIfMissing(&shape);
    args.push_back(integers ? Ints(shape, seed++) : Uniform(shape, seed++));
  }
  return args;
}

std::string Module(const std::string& body) { return absl::StrCat("HloModule m\nENTRY e {\n", body, "\n}\n"); }

// The whole module on both backends, and whether every dot and convolution left by the cpu
// pipeline goes to a GEMM routine (`gemm`) or not.
void Check(const std::string& hlo, bool gemm, double rtol = kRtol, double atol = kAtol) {
  auto module = ParseAndReturnUnverifiedModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status().message() << "\n" << hlo;
  bool integers = false;
  for (const HloInstruction* p : (*module)->entry_computation()->parameter_instructions()) {
    integers = integers || primitive_util::IsIntegralType(p->shape().element_type());
  }
  const std::vector<Literal> args = Arguments(**module, integers);
  EXPECT_TRUE(SameOnBothBackends(hlo, args, integers ? -1 : rtol, atol));
  ASSERT_TRUE(RunCpuPipeline(module->get()).ok());
  int seen = 0;
  for (const auto& instruction : (*module)->entry_computation()->instructions()) {
    const HloInstruction* h = instruction.get();
    if (h->opcode() != HloOpcode::kDot && h->opcode() != HloOpcode::kConvolution) continue;
    ++seen;
    bool planned;
    if (h->opcode() == HloOpcode::kDot) {
      auto call = PlanDotCall(*h, h->operand(0)->shape(), h->operand(1)->shape(), h->shape());
      planned = call && PreferDotCall(*call);
    } else {
      auto call = PlanConvolutionCall(*h, h->operand(0)->shape(), h->operand(1)->shape(), h->shape());
      planned = call && PreferConvolutionCall(*call);
    }
    EXPECT_EQ(planned, gemm) << h->name() << "\n" << hlo;
  }
  EXPECT_GT(seen, 0) << hlo;
}

std::string Dot(const std::string& type, const std::string& a, const std::string& b, const std::string& out,
                const std::string& dims, const std::string& out_type = "") {
  const std::string ot = out_type.empty() ? type : out_type;
  return Module(absl::StrCat("  a = ", type, a, " parameter(0)\n  b = ", type, b, " parameter(1)\n  ROOT d = ", ot, out,
                             " dot(a, b), ", dims));
}

const char* kBatched = "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}";

TEST(CpuGemm, BatchedDotsOfOddSizes) {
  for (const char* type : {"f32", "f64"}) {
    for (auto [b, m, k, n] : std::vector<std::array<int, 4>>{{2, 3, 17, 5}, {1, 17, 1, 3}, {3, 1, 3, 17},
                                                             {4, 17, 17, 17}, {5, 1, 1, 1}, {2, 33, 70, 9}}) {
      Check(Dot(type, absl::StrCat("[", b, ",", m, ",", k, "]"), absl::StrCat("[", b, ",", k, ",", n, "]"),
                absl::StrCat("[", b, ",", m, ",", n, "]"), kBatched),
            true);
    }
  }
}

TEST(CpuGemm, TransposedAndMultiDimensionalDots) {
  // Contracting dimensions major (the pipeline transposes them into place).
  Check(Dot("f32", "[3,17,5]", "[3,4,17]", "[3,5,4]",
            "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={2}"),
        true);
  // Batch dimensions in the middle and at the end.
  Check(Dot("f32", "[3,4,5]", "[5,4,2]", "[4,3,2]",
            "lhs_batch_dims={1}, rhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_contracting_dims={0}"),
        true);
  Check(Dot("f32", "[3,5,4]", "[5,2,4]", "[4,3,2]",
            "lhs_batch_dims={2}, rhs_batch_dims={2}, lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
        true);
  // Two batch, two contracting and two free dimensions.
  Check(Dot("f32", "[2,3,4,5,6]", "[2,3,5,6,7]", "[2,3,4,7]",
            "lhs_batch_dims={0,1}, rhs_batch_dims={0,1}, lhs_contracting_dims={3,4}, rhs_contracting_dims={2,3}"),
        true);
  Check(Dot("f32", "[4,3,6]", "[6,2,5]", "[4,3,2,5]", "lhs_contracting_dims={2}, rhs_contracting_dims={0}"), true);
  // Contracting dimensions paired in the opposite order.
  Check(Dot("f64", "[3,4,5]", "[5,4,6]", "[3,6]", "lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}"), true);
  // Operands and result in non-default layouts.
  Check(Module("  a = f32[4,3,5]{1,2,0} parameter(0)\n  b = f32[4,5,6]{0,1,2} parameter(1)\n"
               "  ROOT d = f32[4,3,6]{1,2,0} dot(a, b), " + std::string(kBatched)),
        true);
  // Matrix-vector and vector-vector.
  Check(Dot("f32", "[17,9]", "[9]", "[17]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"), true);
  Check(Dot("f64", "[9]", "[9]", "[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}"), true);
}

// x . w^T and a gradient's x^T . g: compiled by the backend, the dot reads the operand as
// stored (a trans flag, FoldTransposesIntoDots) and no transpose is left to run first.
TEST(CpuGemm, TransposedOperandsAreReadAsStored) {
  RegisterBackendsOnce();
  for (const std::string& hlo :
       {Dot("f32", "[33,40]", "[17,40]", "[33,17]", "lhs_contracting_dims={1}, rhs_contracting_dims={1}"),
        Dot("f64", "[3,40,9]", "[3,40,17]", "[3,9,17]",
            "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}"),
        Dot("f32", "[40,9]", "[17,40]", "[9,17]", "lhs_contracting_dims={0}, rhs_contracting_dims={1}")}) {
    auto module = ParseAndReturnUnverifiedModule(hlo);
    ASSERT_TRUE(module.ok()) << module.status();
    const std::vector<Literal> args = Arguments(**module, false);
    EXPECT_TRUE(SameOnBothBackends(hlo, args, kRtol, kAtol));
    auto cpu = backend::CreateBackend("cpu");
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    auto executable = (*cpu)->Compile(*std::move(module), backend::CompileOptions());
    ASSERT_TRUE(executable.ok()) << executable.status();
    for (const HloInstruction* h : (*executable)->module().entry_computation()->MakeInstructionPostOrder()) {
      EXPECT_NE(h->opcode(), HloOpcode::kTranspose) << h->name() << " in\n" << hlo;
    }
  }
}

TEST(CpuGemm, NarrowFloatDotsThroughSgemm) {
  // bf16 keeps 8 significant bits: the rounding of the result dominates.
  for (const char* type : {"bf16", "f16"}) {
    Check(Dot(type, "[3,17,33]", "[3,33,5]", "[3,17,5]", kBatched), true, 1e-2, 1e-2);
    Check(Dot(type, "[17,33]", "[5,33]", "[17,5]", "lhs_contracting_dims={1}, rhs_contracting_dims={1}"), true, 1e-2,
          1e-2);
    Check(Dot(type, "[17,33]", "[33,5]", "[17,5]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", "f32"), true,
          1e-4, 1e-4);
    Check(Dot(type, "[3,7]", "[7,5]", "[3,5]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"), false, 1e-2, 1e-2);
  }
}

TEST(CpuGemm, IntegerDotsWrapLikeTheInterpreter) {
  // Random values over the whole range: the sums overflow and must wrap exactly.
  for (const char* type : {"s8", "s16", "s32", "s64", "u8", "u32", "u64"}) {
    Check(Dot(type, "[3,33,17]", "[3,17,65]", "[3,33,65]", kBatched), true);
    Check(Dot(type, "[17,67]", "[65,17]", "[67,65]", "lhs_contracting_dims={0}, rhs_contracting_dims={1}"), true);
    // Small ones stay on the generator.
    Check(Dot(type, "[2,3,17]", "[2,17,5]", "[2,3,5]", kBatched), false);
  }
  // Narrow operands into wider results, and a mixed pair.
  Check(Dot("s8", "[9,300]", "[300,27]", "[9,27]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", "s32"), true);
  Check(Dot("u8", "[9,300]", "[300,27]", "[9,27]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", "s32"), true);
  Check(Module("  a = u16[60,40] parameter(0)\n  b = s8[40,31] parameter(1)\n"
               "  ROOT d = s32[60,31] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
        true);
  // Past the row and depth blocks of the kernel.
  Check(Dot("s32", "[5,131]", "[131,1030]", "[5,1030]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"), true);
  // pred and sub-byte dots stay on the generator.
  Check(Dot("s4", "[30,50]", "[50,40]", "[30,40]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"), false);
}

// Calls __xla_cpu_dot directly on the module's root dot with its operands in the layouts the
// text gives (the pipeline would normalize them first) and compares with the interpreter.
void CheckDotRoutine(const std::string& hlo, bool expect_planned) {
  auto module = ParseAndReturnUnverifiedModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status().message();
  const HloInstruction* dot = (*module)->entry_computation()->root_instruction();
  const bool integers = primitive_util::IsIntegralType(dot->shape().element_type());
  std::vector<Literal> args = Arguments(**module, integers);
  std::optional<DotCall> call = PlanDotCall(*dot, args[0].shape(), args[1].shape(), dot->shape());
  ASSERT_EQ(call.has_value(), expect_planned) << hlo;
  if (!call) return;
  Literal out = *Literal::Create(dot->shape());
  const void* a = args[0].untyped_data();
  const void* b = args[1].untyped_data();
  if (call->swap_operands) std::swap(a, b);
  __xla_cpu_dot(call->descriptor.data(), a, b, out.untyped_data());
  testing::RegisterBackendsOnce();
  auto expected = xla::testing::RunHlo(hlo, args, "interpreter");
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  if (integers) {
    EXPECT_TRUE(xla::testing::LiteralEqual(*expected, std::move(out))) << hlo;
  } else {
    EXPECT_TRUE(xla::testing::LiteralNear(*expected, std::move(out), kRtol, kAtol)) << hlo;
  }
}

TEST(CpuGemm, DotRoutineOnEveryLayout) {
  const std::string mk = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
  for (const char* t : {"f32", "f64", "s32", "bf16"}) {
    const std::string ty = t;
    for (const char* la : {"{1,0}", "{0,1}"}) {
      for (const char* lb : {"{1,0}", "{0,1}"}) {
        for (const char* lc : {"{1,0}", "{0,1}"}) {
          CheckDotRoutine(Module(absl::StrCat("  a = ", ty, "[3,17]", la, " parameter(0)\n  b = ", ty, "[17,5]", lb,
                                              " parameter(1)\n  ROOT d = ", ty, "[3,5]", lc, " dot(a, b), ", mk)),
                          true);
        }
      }
    }
    // Batch majormost, matrices transposed inside each batch.
    CheckDotRoutine(Module(absl::StrCat("  a = ", ty, "[2,3,5]{1,2,0} parameter(0)\n  b = ", ty,
                                        "[2,5,4]{1,2,0} parameter(1)\n  ROOT d = ", ty, "[2,3,4]{1,2,0} dot(a, b), ",
                                        kBatched)),
                    true);
    // Size-1 dimensions anywhere do not matter.
    CheckDotRoutine(Module(absl::StrCat("  a = ", ty, "[2,1,5]{1,2,0} parameter(0)\n  b = ", ty,
                                        "[2,5,4]{2,1,0} parameter(1)\n  ROOT d = ", ty, "[2,1,4]{2,1,0} dot(a, b), ",
                                        kBatched)),
                    true);
    // A batch dimension that is not majormost is no strided batch of matrices.
    CheckDotRoutine(Module(absl::StrCat("  a = ", ty, "[2,3,5]{2,0,1} parameter(0)\n  b = ", ty,
                                        "[2,5,4]{2,1,0} parameter(1)\n  ROOT d = ", ty, "[2,3,4]{2,1,0} dot(a, b), ",
                                        kBatched)),
                    false);
    // Two contracting dimensions paired in different storage orders do not collapse.
    CheckDotRoutine(Module(absl::StrCat("  a = ", ty, "[3,4,5] parameter(0)\n  b = ", ty,
                                        "[5,4,6] parameter(1)\n  ROOT d = ", ty,
                                        "[3,6] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}")),
                    false);
    CheckDotRoutine(Module(absl::StrCat("  a = ", ty, "[3,4,5] parameter(0)\n  b = ", ty,
                                        "[4,5,6] parameter(1)\n  ROOT d = ", ty,
                                        "[3,6] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}")),
                    true);
  }
}

std::string Conv(const std::string& type, const std::string& in, const std::string& kernel, const std::string& out,
                 const std::string& attrs) {
  return Module(absl::StrCat("  x = ", type, in, " parameter(0)\n  w = ", type, kernel, " parameter(1)\n  ROOT c = ",
                             type, out, " convolution(x, w), ", attrs));
}

// Ops whose routine would need more scratch than kMaxGemmScratchBytes stay on the generator
// (the generators need none); the same ops a size smaller take the routine.
TEST(CpuGemm, ScratchBeyondTheCapStaysOnTheGenerator) {
  auto dot = [](PrimitiveType lhs, PrimitiveType out, int64_t m, int64_t n, int64_t k) {
    DotCall call;
    call.descriptor.assign(kDotFields, 0);
    std::vector<int64_t>& d = call.descriptor;
    d[kDotLhsType] = lhs;
    d[kDotRhsType] = lhs;
    d[kDotOutType] = out;
    d[kDotBatch] = 1;
    d[kDotM] = m;
    d[kDotN] = n;
    d[kDotK] = k;
    d[kDotStrideA] = m * k;
    d[kDotStrideB] = k * n;
    d[kDotStrideC] = m * n;
    return PreferDotCall(call);
  };
  // bf16: three arrays of 4M elements widen to 48 MiB; of 32M elements, to 384 MiB.
  EXPECT_TRUE(dot(BF16, BF16, 2048, 2048, 2048));
  EXPECT_FALSE(dot(BF16, BF16, 8192, 4096, 4096));
  // s8 -> s32: packed as 32-bit words.
  EXPECT_TRUE(dot(S8, S32, 1024, 1024, 1024));
  EXPECT_FALSE(dot(S8, S32, 8192, 8192, 4096));
  // f32 needs no scratch: always the GEMM.
  EXPECT_TRUE(dot(F32, F32, 65536, 65536, 4096));
}

TEST(CpuGemm, ConvolutionsThroughIm2col) {
  for (const char* t : {"f32", "f64"}) {
    // 3x3 SAME in NHWC and NCHW.
    Check(Conv(t, "[2,9,9,8]", "[3,3,8,16]", "[2,9,9,16]", "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
          true);
    Check(Conv(t, "[2,8,9,9]", "[16,8,3,3]", "[2,16,9,9]", "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"),
          true);
    // NCHW outputs take transposed GEMMs per image: strides, dilations, groups, 1-D.
    Check(Conv(t, "[2,8,19,19]", "[16,8,3,3]", "[2,16,10,9]",
               "window={size=3x3 stride=2x2 pad=1_1x0_0}, dim_labels=bf01_oi01->bf01"),
          true);
    Check(Conv(t, "[2,8,9,9]", "[16,8,3,3]", "[2,16,19,14]",
               "window={size=3x3 pad=2_2x0_-1 lhs_dilate=2x2 rhs_dilate=1x1 rhs_reversal=0x1}, dim_labels=bf01_oi01->bf01"),
          true);
    Check(Conv(t, "[2,8,9,9]", "[16,4,3,3]", "[2,16,7,9]",
               "window={size=3x3 pad=1_1x1_1 rhs_dilate=2x1}, dim_labels=bf01_oi01->bf01, feature_group_count=2"),
          true);
    Check(Conv(t, "[3,17,40]", "[33,17,5]", "[3,33,36]", "window={size=5}, dim_labels=bf0_oi0->bf0"), true);
    // Strides and uneven padding, odd sizes.
    Check(Conv(t, "[3,17,17,3]", "[3,3,3,17]", "[3,9,8,17]",
               "window={size=3x3 stride=2x2 pad=1_1x0_0}, dim_labels=b01f_01io->b01f"),
          true);
    // Base (lhs) and window (rhs) dilation, reversal, negative padding.
    Check(Conv(t, "[2,9,9,8]", "[3,3,8,16]", "[2,19,14,16]",
               "window={size=3x3 pad=2_2x0_-1 lhs_dilate=2x2 rhs_dilate=1x1}, dim_labels=b01f_01io->b01f"),
          true);
    Check(Conv(t, "[2,13,13,8]", "[3,3,8,16]", "[2,9,9,16]",
               "window={size=3x3 rhs_dilate=2x2 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f"),
          true);
    // Feature groups, depthwise included.
    Check(Conv(t, "[2,9,9,8]", "[3,3,4,16]", "[2,9,9,16]",
               "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2"),
          true);
    Check(Conv(t, "[4,17,17,16]", "[3,3,1,16]", "[4,17,17,16]",
               "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=16"),
          true);
    // 1x1 with unit strides reads the input in place.
    Check(Conv(t, "[4,17,17,16]", "[1,1,16,32]", "[4,17,17,32]", "window={size=1x1}, dim_labels=b01f_01io->b01f"), true);
    Check(Conv(t, "[4,16,17,17]", "[32,16,1,1]", "[4,32,17,17]", "window={size=1x1}, dim_labels=bf01_oi01->bf01"),
          true);
    // 1-D and 3-D.
    Check(Conv(t, "[3,40,17]", "[5,17,33]", "[3,36,33]", "window={size=5}, dim_labels=b0f_0io->b0f"), true);
    Check(Conv(t, "[2,5,6,7,8]", "[3,3,3,8,16]", "[2,5,6,7,16]",
               "window={size=3x3x3 pad=1_1x1_1x1_1}, dim_labels=b012f_012io->b012f"),
          true);
  }
  // Small convolutions and other types stay on the generator.
  Check(Conv("f32", "[1,5,5,2]", "[3,3,2,3]", "[1,5,5,3]", "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
        false);
  Check(Conv("s32", "[2,9,9,8]", "[3,3,8,16]", "[2,9,9,16]", "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
        false);
}

// Grouped convolutions with up to four input features per group (depthwise ones, channel
// multipliers, ResNeXt-like groups) and convolutions with batch groups (depthwise kernel
// gradients, as jax.grad lowers them) as direct sums in the interpreter's order and precision
// (runtime/conv_gemm.cc DirectConv): bit-exact with it for f32 and f64, across
// strides, padding, base and window dilation, reversal, NCHW, 1-D and 3-D; an inf in the
// kernel over padding stays out of the sums, and a NaN in the input reaches only its windows.
TEST(CpuGemm, GroupedConvolutionsAsDirectSums) {
  const std::string grad = "dim_labels=f01b_i01o->01bf, batch_group_count=";
  const std::string nhwc = "dim_labels=b01f_01io->b01f, feature_group_count=";
  for (const char* t : {"f32", "f64"}) {
    for (const std::string& hlo : {
             Conv(t, "[4,12,12,16]", "[4,12,12,16]", "[3,3,1,16]", "window={size=12x12 pad=1_1x1_1}, " + grad + "16"),
             Conv(t, "[4,12,12,8]", "[4,12,12,16]", "[3,3,1,16]", "window={size=12x12 pad=1_1x1_1}, " + grad + "8"),
             Conv(t, "[8,13,13,32]", "[8,7,7,32]", "[3,3,1,32]",
                  "window={size=7x7 pad=1_1x1_1 rhs_dilate=2x2}, " + grad + "32"),
             Conv(t, "[4,9,9,8]", "[3,3,8,16]", "[2,9,9,16]",
                  "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, batch_group_count=2"),
             Conv(t, "[4,17,17,16]", "[3,3,1,16]", "[4,17,17,16]", "window={size=3x3 pad=1_1x1_1}, " + nhwc + "16"),
             Conv(t, "[4,17,17,8]", "[3,3,1,16]", "[4,17,17,16]", "window={size=3x3 pad=1_1x1_1}, " + nhwc + "8"),
             Conv(t, "[4,13,13,8]", "[3,3,2,12]", "[4,7,13,12]",
                  "window={size=3x3 stride=2x1 pad=1_1x0_2}, " + nhwc + "4"),
             Conv(t, "[2,9,9,16]", "[3,3,4,16]", "[2,17,9,16]",
                  "window={size=3x3 pad=1_1x1_1 lhs_dilate=2x1}, " + nhwc + "4"),
             Conv(t, "[4,17,17,16]", "[3,3,1,16]", "[4,17,17,16]",
                  "window={size=3x3 pad=2_2x2_2 rhs_dilate=2x2 rhs_reversal=1x0}, " + nhwc + "16"),
             Conv(t, "[2,16,17,17]", "[16,1,3,3]", "[2,16,17,17]",
                  "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=16"),
             Conv(t, "[4,400,16]", "[5,1,16]", "[4,396,16]", "window={size=5}, dim_labels=b0f_0io->b0f, feature_group_count=16"),
             Conv(t, "[2,8,8,8,8]", "[3,3,3,1,8]", "[2,8,8,8,8]",
                  "window={size=3x3x3 pad=1_1x1_1x1_1}, dim_labels=b012f_012io->b012f, feature_group_count=8"),
         }) {
      Check(hlo, true, 0, 0);
    }
  }
  const std::string hlo =
      Conv("f32", "[4,17,17,16]", "[3,3,1,16]", "[4,17,17,16]", "window={size=3x3 pad=1_1x1_1}, " + nhwc + "16");
  auto module = ParseAndReturnUnverifiedModule(hlo);
  ASSERT_TRUE(module.ok());
  std::vector<Literal> args = Arguments(**module, false);
  args[1].SetFromDouble({0, 0, 0, 3}, std::numeric_limits<double>::infinity());  // meets padding at row 0
  args[0].SetFromDouble({1, 8, 8, 5}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(SameOnBothBackends(hlo, args, 0, 0));
}

// Whether the module's convolution, after the cpu pipeline, takes the GEMM routine's shifted
// grids (runtime/conv_gemm.cc ShiftedGridConv) for finite operands.
bool TakesShiftedGrids(const std::string& hlo) {
  auto module = ParseAndReturnUnverifiedModule(hlo);
  if (!module.ok() || !RunCpuPipeline(module->get()).ok()) return false;
  for (const auto& instruction : (*module)->entry_computation()->instructions()) {
    const HloInstruction* h = instruction.get();
    if (h->opcode() != HloOpcode::kConvolution) continue;
    auto call = PlanConvolutionCall(*h, h->operand(0)->shape(), h->operand(1)->shape(), h->shape());
    return call && PreferConvolutionCall(*call) && ConvUsesShiftedGrids(call->data());
  }
  return false;
}

// Kernel gradients, as jax.grad lowers them (the forward input's features as the batch, its
// batch as the features, the output gradient as the kernel whose window covers nearly all of
// the input), go through shifted grids: forward strides of 1 and 2 (window dilation 2: two
// phases per dimension), a dilated forward kernel (window strides), both at once with odd
// padding, reversal, 1-D and 3-D; a forward convolution (3x3 window over 9x9) and a window
// whose grid would waste too much go through im2col.
TEST(CpuGemm, KernelGradientsThroughShiftedGrids) {
  const std::string grad = "dim_labels=f01b_i01o->01bf";
  for (const char* t : {"f32", "f64"}) {
    const std::vector<std::string> shifted = {
        Conv(t, "[2,9,9,8]", "[2,9,9,16]", "[3,3,8,16]", "window={size=9x9 pad=1_1x1_1}, " + grad),
        Conv(t, "[2,9,9,16]", "[2,5,5,16]", "[3,3,16,16]", "window={size=5x5 pad=1_1x1_1 rhs_dilate=2x2}, " + grad),
        Conv(t, "[2,20,20,8]", "[2,20,20,16]", "[3,3,8,16]", "window={size=20x20 stride=2x2 pad=2_2x2_2}, " + grad),
        Conv(t, "[2,41,41,4]", "[2,19,19,8]", "[3,2,4,8]",
             "window={size=19x19 stride=3x3 pad=1_2x0_1 rhs_dilate=2x2}, " + grad),
        Conv(t, "[2,9,9,8]", "[2,9,9,16]", "[3,3,8,16]", "window={size=9x9 pad=1_1x1_1 rhs_reversal=1x1}, " + grad),
        Conv(t, "[3,40,16]", "[3,40,17]", "[3,16,17]", "window={size=40 pad=1_1}, dim_labels=f0b_i0o->0bf"),
        Conv(t, "[2,14,14,14,3]", "[2,14,14,14,4]", "[3,3,3,3,4]",
             "window={size=14x14x14 pad=1_1x1_1x1_1}, dim_labels=f012b_i012o->012bf"),
    };
    for (const std::string& hlo : shifted) {
      Check(hlo, true);
      EXPECT_TRUE(TakesShiftedGrids(hlo)) << hlo;
    }
  }
  // Grid rows in several blocks (about 2 MiB of both grids' rows each), summed into the output.
  const std::string blocks =
      Conv("f32", "[4,80,80,8]", "[4,80,80,16]", "[3,3,8,16]", "window={size=80x80 pad=1_1x1_1}, " + grad);
  Check(blocks, true);
  EXPECT_TRUE(TakesShiftedGrids(blocks));
  for (const std::string& hlo : {
           Conv("f32", "[2,9,9,8]", "[3,3,8,16]", "[2,9,9,16]", "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
           Conv("f32", "[2,9,9,8]", "[2,7,7,16]", "[3,3,8,16]", "window={size=7x7}, dim_labels=f01b_i01o->01bf"),
       }) {
    Check(hlo, true);
    EXPECT_FALSE(TakesShiftedGrids(hlo)) << hlo;
  }
}

// Grids beyond 256 MiB go the im2col way: the same kernel gradient with 64 channels takes the
// shifted grids, with 4096 (an input grid of ~440 MiB) does not.
TEST(CpuGemm, ShiftedGridsAreBounded) {
  for (const auto& [channels, shifted] : std::vector<std::pair<int, bool>>{{64, true}, {4096, false}}) {
    const std::string x = absl::StrCat("[8,56,56,", channels, "]");
    auto module = ParseAndReturnUnverifiedModule(Conv("f32", x, "[8,56,56,64]", absl::StrCat("[3,3,", channels, ",64]"),
                                                      "window={size=56x56 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf"));
    ASSERT_TRUE(module.ok()) << module.status().message();
    const HloInstruction* conv = (*module)->entry_computation()->root_instruction();
    auto call = PlanConvolutionCall(*conv, conv->operand(0)->shape(), conv->operand(1)->shape(), conv->shape());
    ASSERT_TRUE(call.has_value());
    EXPECT_EQ(ConvUsesShiftedGrids(call->data()), shifted) << channels;
  }
}

// The kernel grid's zero rows meet input elements outside each output position's window:
// with an inf or NaN in the input the routine goes the im2col way, so a NaN reaches only the
// taps whose windows hold it, as on the interpreter.
TEST(CpuGemm, KernelGradientWithNonFiniteInputsKeepsItsWindows) {
  const std::string hlo =
      Conv("f32", "[2,9,9,8]", "[2,9,9,16]", "[3,3,8,16]", "window={size=9x9 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf");
  ASSERT_TRUE(TakesShiftedGrids(hlo));
  auto module = ParseAndReturnUnverifiedModule(hlo);
  ASSERT_TRUE(module.ok());
  std::vector<Literal> args = Arguments(**module, false);
  // x[1, 0, 0, 3] is read by taps (0..1, 0..1) only; x[0, 8, 8, 5] by taps (1..2, 1..2) only.
  args[0].SetFromDouble({1, 0, 0, 3}, std::numeric_limits<double>::quiet_NaN());
  args[0].SetFromDouble({0, 8, 8, 5}, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(SameOnBothBackends(hlo, args, kRtol, kAtol));
  RegisterBackendsOnce();
  auto expected = xla::testing::RunHlo(hlo, args, "interpreter");
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  EXPECT_TRUE(std::isnan(expected->GetAsDouble({0, 0, 3, 0})));
  EXPECT_FALSE(std::isnan(expected->GetAsDouble({2, 2, 3, 0})));
  EXPECT_FALSE(std::isfinite(expected->GetAsDouble({2, 2, 5, 0})));
  EXPECT_TRUE(std::isfinite(expected->GetAsDouble({0, 0, 5, 0})));

  // An inf in the kernel (the output gradient) away from the border meets only inputs in each
  // tap's window (the shifted grids take it): that output feature's gradient is infinite for
  // every tap and channel, the others finite, as on the interpreter.
  std::vector<Literal> finite = Arguments(**module, false);
  finite[1].SetFromDouble({1, 4, 4, 7}, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(SameOnBothBackends(hlo, finite, kRtol, kAtol));
  auto inf = xla::testing::RunHlo(hlo, finite, "interpreter");
  ASSERT_TRUE(inf.ok()) << inf.status().message();
  EXPECT_TRUE(std::isinf(inf->GetAsDouble({2, 0, 3, 7})));
  EXPECT_TRUE(std::isfinite(inf->GetAsDouble({2, 0, 3, 6})));
}

// __xla_cpu_conv directly on arrays in the layouts the text gives (strided features, an
// output scattered through its buffer).
TEST(CpuGemm, ConvolutionRoutineOnOtherLayouts) {
  for (const std::string& hlo : {
           Module("  x = f32[2,9,9,8]{2,1,3,0} parameter(0)\n  w = f32[3,3,8,16]{0,1,3,2} parameter(1)\n"
                  "  ROOT c = f32[2,5,9,16]{0,3,2,1} convolution(x, w), window={size=3x3 stride=2x1 pad=1_1x1_1},"
                  " dim_labels=b01f_01io->b01f"),
           Module("  x = f64[8,9,9,2]{3,0,2,1} parameter(0)\n  w = f64[3,3,4,16]{3,2,1,0} parameter(1)\n"
                  "  ROOT c = f64[16,9,9,2]{0,1,2,3} convolution(x, w), window={size=3x3 pad=1_1x1_1}, "
                  "dim_labels=f01b_01io->f01b, feature_group_count=2"),
           // Kernel gradients through shifted grids: the input's batch strided, the kernel's
           // output features strided, and outputs written transposed (batch minor) and
           // scattered (a spatial dimension minor).
           Module("  x = f32[2,9,9,8]{0,2,1,3} parameter(0)\n  w = f32[2,9,9,16]{2,3,1,0} parameter(1)\n"
                  "  ROOT c = f32[3,3,8,16]{2,3,1,0} convolution(x, w), window={size=9x9 pad=1_1x1_1}, "
                  "dim_labels=f01b_i01o->01bf"),
           Module("  x = f32[4,80,80,8] parameter(0)\n  w = f32[4,80,80,16] parameter(1)\n"
                  "  ROOT c = f32[3,3,8,16]{2,3,1,0} convolution(x, w), window={size=80x80 pad=1_1x1_1}, "
                  "dim_labels=f01b_i01o->01bf"),
           Module("  x = f64[2,9,9,8]{3,2,1,0} parameter(0)\n  w = f64[2,5,5,16]{3,2,1,0} parameter(1)\n"
                  "  ROOT c = f64[3,3,8,16]{0,3,2,1} convolution(x, w), window={size=5x5 pad=1_1x1_1 rhs_dilate=2x2}, "
                  "dim_labels=f01b_i01o->01bf"),
       }) {
    auto module = ParseAndReturnUnverifiedModule(hlo);
    ASSERT_TRUE(module.ok()) << module.status().message();
    const HloInstruction* conv = (*module)->entry_computation()->root_instruction();
    std::vector<Literal> args = Arguments(**module, false);
    std::optional<std::vector<int64_t>> call = PlanConvolutionCall(*conv, args[0].shape(), args[1].shape(), conv->shape());
    ASSERT_TRUE(call.has_value()) << hlo;
    EXPECT_EQ(ConvUsesShiftedGrids(call->data()), conv->shape().dimensions(0) == 3) << hlo;
    Literal out = *Literal::Create(conv->shape());
    __xla_cpu_conv(call->data(), args[0].untyped_data(), args[1].untyped_data(), out.untyped_data());
    testing::RegisterBackendsOnce();
    auto expected = xla::testing::RunHlo(hlo, args, "interpreter");
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    EXPECT_TRUE(xla::testing::LiteralNear(*expected, std::move(out), kRtol, kAtol)) << hlo;
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
