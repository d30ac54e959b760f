// The gpu backend end to end with its kernels running on the host (testing/kernel_emulator.h):
// the device check's curated cases and the conformance modules the backend compiles, against
// the interpreter on the same seeded random arguments, as tests/gpu/device_check.sh does on a
// GPU. What differs from a GPU: libm stands in for libdevice (the tolerances allow both), and
// cuBLAS is absent, so dots are the backend's own kernels.
#include "backends/gpu/testing/emulated_gpu.h"
#include "backends/gpu/testing/kernel_emulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/testing/gpu_test_modules.h"
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/primitive_util.h"

namespace xla {
namespace gpu {
namespace testing {
// gtest names a failing case by this rather than its bytes.
void PrintTo(const CuratedCase& c, std::ostream* os) { *os << c.name; }
}  // namespace testing
namespace {

namespace modules = ::xla::gpu::testing;
using ::xla::testing::ExecuteOnDevice0;
using ::xla::testing::LiteralNear;
using ::xla::testing::RunHloOn;
using ::xla::testing::SharedInterpreter;

absl::StatusOr<std::unique_ptr<backend::Executable>> CompileOn(backend::Backend& b, const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(hlo);
  if (!module.ok()) return module.status();
  return b.Compile(*std::move(module), backend::CompileOptions());
}

constexpr int64_t kMaxEmulatedBytes = int64_t{4} << 20;

// Seeded random arguments for the entry's parameters, as the device check makes them.
// Stops early (the caller skips the module) past `max_bytes`.
absl::StatusOr<std::vector<Literal>> Arguments(const std::string& name, const std::string& hlo, int64_t* bytes,
                                               int64_t max_bytes) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(hlo);
  if (!module.ok()) return module.status();
  uint64_t state = std::hash<std::string>()(name);
  std::vector<Literal> args;
  *bytes = 0;
  for (const HloInstruction* p : (*module)->entry_computation()->parameter_instructions()) {
    ShapeUtil::ForEachSubshape(p->shape(), [&](const Shape& s, const ShapeIndex&) {
      if (s.IsArray()) *bytes += ShapeUtil::ByteSizeOf(s);
    });
    if (*bytes > max_bytes) return args;
    absl::StatusOr<Literal> arg = Literal::Create(p->shape());
    if (!arg.ok()) return arg.status();
    modules::FillRandom(&*arg, p->shape(), &state);
    args.push_back(*std::move(arg));
  }
  return args;
}

// Compares one case on gpu (emulated) with the interpreter.
void Check(const std::string& name, const std::string& hlo, double rtol, double atol) {
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  int64_t bytes = 0;
  absl::StatusOr<std::vector<Literal>> args = Arguments(name, hlo, &bytes, int64_t{256} << 20);
  ASSERT_TRUE(args.ok()) << args.status();
  absl::StatusOr<Literal> actual = RunHloOn(*gpu, hlo, *args);
  absl::StatusOr<Literal> expected = RunHloOn(*SharedInterpreter(), hlo, *args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_TRUE(LiteralNear(*expected, actual, rtol, atol)) << name;
}

std::vector<modules::CuratedCase> CheckedCuratedCases() {
  std::vector<modules::CuratedCase> cases;
  for (modules::CuratedCase& c : modules::CuratedCases()) {
    if (c.check.rfind("bench", 0) != 0) cases.push_back(std::move(c));
  }
  return cases;
}

class CuratedCaseTest : public ::testing::TestWithParam<modules::CuratedCase> {};

TEST_P(CuratedCaseTest, AgreesWithTheInterpreter) {
  const modules::CuratedCase& c = GetParam();
  double rtol = 0, atol = 0;
  std::istringstream(c.check) >> rtol >> atol;
  const int before = EmulatedLaunches();
  Check(c.name, c.hlo, rtol, atol);
  EXPECT_GT(EmulatedLaunches(), before) << "no kernel ran on the emulator";
}

INSTANTIATE_TEST_SUITE_P(Curated, CuratedCaseTest, ::testing::ValuesIn(CheckedCuratedCases()),
                         [](const ::testing::TestParamInfo<modules::CuratedCase>& info) { return info.param.name; });

// The emulator runs only kernels whose IR this process emitted; any other launch fails (a
// launch error, not a crash), as does a grid of more than one dimension.
TEST(KernelEmulatorTest, LaunchesItCannotRunFail) {
  ASSERT_NE(EmulatedGpu(), nullptr);
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Load(XLA_FAKE_LIBCUDA);
  ASSERT_TRUE(driver.ok()) << driver.status();
  const CudaDriver& d = **driver;
  const int before = EmulatedLaunches();
  const char image[] = "// not emitted by this process\n.entry k0_ghost(\n)\n";
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  ASSERT_EQ(d.cuModuleLoadDataEx(&module, image, 0, nullptr, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(d.cuModuleGetFunction(&function, module, "k0_ghost"), CUDA_SUCCESS);
  EXPECT_EQ(d.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(d.cuLaunchKernel(function, 1, 2, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(EmulatedLaunches(), before + 2);
  EXPECT_EQ(d.cuModuleUnload(module), CUDA_SUCCESS);
}

// fft on the emulator against the interpreter. Both compute in double and round once; they
// differ only in the order of rounding (the shared-memory kernel runs the interpreter's
// radix-2 steps with the same twiddles; the four-step and Bluestein chains and the per-axis
// passes reassociate), which bounds the error by a few units of the result type's epsilon
// times log2(n) times the transform's magnitude. So every element is held to
// tolerance * max |expected|: 1e-6 for c64/f32 results (float epsilon 6e-8 times a
// rounding step or two, with margin), 1e-12 for c128/f64 results (double epsilon 1.1e-16
// times log2(n) <= 20 with margin for Bluestein's three transforms). A wrong twiddle, index or
// scale is an O(1) relative error. Measured on the emulator: at most 1.1e-8 (c64) and 2e-15
// (c128, f64) of the magnitude, most results bit-equal to the interpreter's; a GPU's libdevice
// cos and sin (four-step and Bluestein twiddles) and fused multiply-adds may add a few ulps.
std::string FftHlo(const std::string& in, const std::string& out, const std::string& type, const std::string& lengths) {
  return absl::StrCat("HloModule fft\nENTRY main {\n  x = ", in, " parameter(0)\n  ROOT f = ", out,
                      " fft(x), fft_type=", type, ", fft_length={", lengths, "}\n}\n");
}

// Uniform random values in [-1, 1) for every real and imaginary part (FillRandom leaves
// complex arrays zero).
Literal RandomFftInput(const Shape& shape, uint64_t seed) {
  Literal x = Literal::Create(shape).value();
  uint64_t state = seed;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 40) / (1 << 23) - 1;
  };
  const bool complex = primitive_util::IsComplexType(shape.element_type());
  for (int64_t i = 0; i < x.element_count(); ++i) {
    const double re = next();
    if (complex) {
      x.SetFromComplex(i, {re, next()});
    } else {
      x.SetFromDouble(i, re);
    }
  }
  return x;
}

::testing::AssertionResult FftAgrees(const std::string& hlo, uint64_t seed) {
  backend::Backend* gpu = EmulatedGpu();
  if (gpu == nullptr) return ::testing::AssertionFailure() << "no emulated gpu";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(hlo);
  if (!module.ok()) return ::testing::AssertionFailure() << module.status();
  const Shape in = (*module)->entry_computation()->parameter_instruction(0)->shape();
  std::vector<Literal> args;
  args.push_back(RandomFftInput(in, seed));
  absl::StatusOr<Literal> expected = RunHloOn(*SharedInterpreter(), hlo, args);
  if (!expected.ok()) return ::testing::AssertionFailure() << "interpreter: " << expected.status();
  absl::StatusOr<Literal> actual = RunHloOn(*gpu, hlo, args);
  if (!actual.ok()) return ::testing::AssertionFailure() << "gpu: " << actual.status();
  if (!ShapeUtil::Compatible(expected->shape(), actual->shape())) {
    return ::testing::AssertionFailure() << "shape " << actual->shape().ToString();
  }
  const PrimitiveType type = expected->shape().element_type();
  const double tolerance = type == C64 || type == F32 ? 1e-6 : 1e-12;
  double scale = 0;
  for (int64_t i = 0; i < expected->element_count(); ++i) scale = std::max(scale, std::abs(expected->GetAsComplex(i)));
  double worst = 0;
  int64_t worst_at = 0;
  for (int64_t i = 0; i < expected->element_count(); ++i) {
    const double error = std::abs(expected->GetAsComplex(i) - actual->GetAsComplex(i));
    if (!(error <= worst)) {
      worst = error;
      worst_at = i;
    }
  }
  if (std::getenv("XLA_EMULATOR_TRACE") != nullptr) {
    std::cerr << in.ToString() << " -> " << expected->shape().ToString() << ": error " << worst / scale
              << " of the magnitude\n";
  }
  if (!(worst <= tolerance * scale)) {
    return ::testing::AssertionFailure() << "element " << worst_at << ": " << actual->ElementToString(worst_at)
                                         << ", expected " << expected->ElementToString(worst_at) << " (error " << worst
                                         << " > " << tolerance << " * " << scale << ")";
  }
  return ::testing::AssertionSuccess();
}

// One case per fft type for rows of length n, `batch` rows, in the given precision.
void CheckEveryFftType(int64_t n, int64_t batch, bool wide) {
  const std::string c = wide ? "c128" : "c64", r = wide ? "f64" : "f32";
  const std::string rows = absl::StrCat("[", batch, ",");
  const std::string full = absl::StrCat(rows, n, "]"), half = absl::StrCat(rows, n / 2 + 1, "]");
  const std::string length = absl::StrCat(n);
  const uint64_t seed = static_cast<uint64_t>(n * 4 + batch * 2 + wide);
  EXPECT_TRUE(FftAgrees(FftHlo(c + full, c + full, "FFT", length), seed)) << "FFT " << c << full;
  EXPECT_TRUE(FftAgrees(FftHlo(c + full, c + full, "IFFT", length), seed + 1)) << "IFFT " << c << full;
  EXPECT_TRUE(FftAgrees(FftHlo(r + full, c + half, "RFFT", length), seed + 2)) << "RFFT " << r << full;
  EXPECT_TRUE(FftAgrees(FftHlo(c + half, r + full, "IRFFT", length), seed + 3)) << "IRFFT " << c << half;
}

// Every power of two from 2 to 4096 (the shared-memory kernel's lengths, and the first
// four-step one), every type, both precisions; batches of one row and of several per block.
TEST(KernelEmulatorFftTest, PowerOfTwoLengthsAgreeWithTheInterpreter) {
  for (int64_t n = 2; n <= 4096; n *= 2) {
    CheckEveryFftType(n, n <= 64 ? 37 : 3, n % 8 == 0);
    CheckEveryFftType(n, 1, n % 8 != 0);
  }
}

// Four-step lengths (n1 = n / 2048 point transforms, then 2048 point ones), recursing past
// 2048 * 2048.
TEST(KernelEmulatorFftTest, LongPowerOfTwoLengthsAgreeWithTheInterpreter) {
  CheckEveryFftType(8192, 2, false);
  CheckEveryFftType(65536, 1, true);
}

// A million points: 2e7 butterflies here (seconds on the emulator), where the direct DFT
// the kernel used to be would need 1e12 complex products (days on the emulator; 7e10 for
// the quarter-million-point RFFT).
TEST(KernelEmulatorFftTest, MillionPointTransformIsFast) {
  EXPECT_TRUE(FftAgrees(FftHlo("c64[1,1048576]", "c64[1,1048576]", "FFT", "1048576"), 1));
  EXPECT_TRUE(FftAgrees(FftHlo("f64[262144]", "c128[131073]", "RFFT", "262144"), 2));
}

// Other lengths: short ones are a direct DFT, longer ones Bluestein's convolution (of 256 to
// 8192 points here, the latter itself four-step); odd lengths for RFFT and IRFFT too.
TEST(KernelEmulatorFftTest, OtherLengthsAgreeWithTheInterpreter) {
  for (int64_t n : {3, 5, 12, 63, 65, 100, 101, 1000, 3001}) CheckEveryFftType(n, 2, n % 2 == 0);
}

// Two and three axes (leading axes moved last by transposes), with batches, every type, both
// precisions, short and long axes.
TEST(KernelEmulatorFftTest, MultiAxisTransformsAgreeWithTheInterpreter) {
  EXPECT_TRUE(FftAgrees(FftHlo("c64[3,16,32]", "c64[3,16,32]", "FFT", "16,32"), 1));
  EXPECT_TRUE(FftAgrees(FftHlo("c128[2,8,4,16]", "c128[2,8,4,16]", "IFFT", "8,4,16"), 2));
  EXPECT_TRUE(FftAgrees(FftHlo("f32[2,64,32]", "c64[2,64,17]", "RFFT", "64,32"), 3));
  EXPECT_TRUE(FftAgrees(FftHlo("c128[2,8,16,9]", "f64[2,8,16,16]", "IRFFT", "8,16,16"), 4));
  EXPECT_TRUE(FftAgrees(FftHlo("f64[4,8,6,10]", "c128[4,8,6,6]", "RFFT", "8,6,10"), 5));
  EXPECT_TRUE(FftAgrees(FftHlo("c64[5,33]", "f32[5,64]", "IRFFT", "5,64"), 6));
  EXPECT_TRUE(FftAgrees(FftHlo("c64[4096,4]", "c64[4096,4]", "FFT", "4096,4"), 7));
  EXPECT_TRUE(FftAgrees(FftHlo("c128[3,100,8]", "c128[3,100,8]", "IFFT", "3,100,8"), 8));
  // Axes of one point, and nothing to transform.
  EXPECT_TRUE(FftAgrees(FftHlo("c64[4,1,8]", "c64[4,1,8]", "IFFT", "1,8"), 9));
  EXPECT_TRUE(FftAgrees(FftHlo("c128[3,1,3]", "f64[3,1,4]", "IRFFT", "1,4"), 10));
  EXPECT_TRUE(FftAgrees(FftHlo("f32[2,1]", "c64[2,1]", "RFFT", "1"), 11));
  EXPECT_TRUE(FftAgrees(FftHlo("c64[0,4096]", "c64[0,4096]", "FFT", "4096"), 12));
  EXPECT_TRUE(FftAgrees(FftHlo("c64[0,8,16]", "c64[0,8,16]", "FFT", "8,16"), 13));
}

// What makes them fast, checked without timing: after compilation every fft left is one
// kernel over one axis, the shared-memory radix-2 form (a power of two up to 2048) or a
// direct DFT of at most 64 points (O(n) per element).
TEST(KernelEmulatorFftTest, EveryCompiledFftIsOneShortAxis) {
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  for (const std::string& hlo : {FftHlo("c64[1,1048576]", "c64[1,1048576]", "FFT", "1048576"),
                                 FftHlo("f64[3,3001]", "c128[3,1501]", "RFFT", "3001"),
                                 FftHlo("c128[2,8,16,9]", "f64[2,8,16,16]", "IRFFT", "8,16,16"),
                                 FftHlo("c64[5,100,4096]", "c64[5,100,4096]", "IFFT", "100,4096")}) {
    absl::StatusOr<std::unique_ptr<backend::Executable>> exe = CompileOn(*gpu, hlo);
    ASSERT_TRUE(exe.ok()) << exe.status();
    int ffts = 0;
    for (const std::unique_ptr<HloComputation>& computation : (*exe)->module().computations()) {
      for (const std::unique_ptr<HloInstruction>& fft : computation->instructions()) {
        if (fft->opcode() != HloOpcode::kFft) continue;
        ++ffts;
        ASSERT_EQ(fft->attrs().fft_length_size(), 1) << fft->name() << " in\n" << hlo;
        const int64_t n = fft->attrs().fft_length(0);
        EXPECT_TRUE((n & (n - 1)) == 0 ? n <= 2048 : n <= 64) << fft->name() << " of " << n << " points in\n" << hlo;
      }
    }
    EXPECT_GE(ffts, 2) << hlo;
  }
}

// Layouts other than the default, on the single-kernel and the expanded forms.
TEST(KernelEmulatorFftTest, NonDefaultLayoutsAgreeWithTheInterpreter) {
  EXPECT_TRUE(FftAgrees(FftHlo("c64[8,16]{0,1}", "c64[8,16]{0,1}", "FFT", "16"), 1));
  EXPECT_TRUE(FftAgrees(FftHlo("c64[3,4096]{0,1}", "c64[3,4096]{0,1}", "IFFT", "4096"), 2));
  EXPECT_TRUE(FftAgrees(FftHlo("f32[6,8]{0,1}", "c64[6,5]{0,1}", "RFFT", "6,8"), 3));
}

// Every conformance module (XLA's own test HLO) that the gpu backend compiles, on seeded
// random arguments, against the interpreter, as the device check runs them on a GPU. Modules
// the interpreter cannot run either (or with over 64 MiB of arguments) are passed over.
// Executions from several threads at once take different lanes (streams) of one device,
// each with work queued until its lease drains: a loop whose every iteration frees and
// allocates buffers (reused within a lane only) and a row reduction, with each thread's own
// arguments, must give each thread its own interpreter result.
TEST(KernelEmulatorTest, ConcurrentExecutionsOnLanesKeepTheirOwnData) {
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  const std::string hlo = R"(HloModule loop_softmax
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  p = (s32[], f32[8,64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[8,64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[8,64] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  h = f32[] constant(0.5)
  hb = f32[8,64] broadcast(h), dimensions={}
  y = f32[8,64] multiply(x, hb)
  t = f32[8,64] tanh(y)
  z = f32[8,64] add(t, x)
  ROOT r = (s32[], f32[8,64]) tuple(j, z)
}
ENTRY main {
  x = f32[8,64] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[8,64]) tuple(zero, x)
  w = (s32[], f32[8,64]) while(init), condition=cond, body=body
  v = f32[8,64] get-tuple-element(w), index=1
  e = f32[8,64] exponential(v)
  c = f32[] constant(0)
  sum = f32[8] reduce(e, c), dimensions={1}, to_apply=add
  sb = f32[8,64] broadcast(sum), dimensions={0}
  ROOT out = f32[8,64] divide(e, sb)
})";
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = CompileOn(*gpu, hlo);
  ASSERT_TRUE(exe.ok()) << exe.status();
  constexpr int kThreads = 6, kRounds = 3;
  std::vector<std::vector<Literal>> args(kThreads * kRounds);
  std::vector<Literal> expected;
  for (int i = 0; i < kThreads * kRounds; ++i) {
    uint64_t state = 1000 + i;
    Literal x = *Literal::Create(ShapeUtil::MakeShape(F32, {8, 64}));
    modules::FillRandom(&x, x.shape(), &state);
    args[i].push_back(std::move(x));
    absl::StatusOr<Literal> want = RunHloOn(*SharedInterpreter(), hlo, args[i]);
    ASSERT_TRUE(want.ok()) << want.status();
    expected.push_back(*std::move(want));
  }
  std::vector<std::string> wrong(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        const int i = t * kRounds + round;
        absl::StatusOr<Literal> got = ExecuteOnDevice0(*gpu, **exe, args[i]);
        if (!got.ok()) {
          wrong[t] = got.status().ToString();
        } else if (!LiteralNear(expected[i], got, 2e-6, 1e-6)) {
          wrong[t] = absl::StrCat("arguments ", i, " gave another result");
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], "") << "thread " << t;
}

// Reductions with few outputs are split for the device (gpu_expanders.h): a column sum, batch-
// norm statistics and a sum to a scalar agree with the interpreter (up to reassociation), and
// their compiled modules hold the partial and the combining reductions.
TEST(KernelEmulatorTest, FewOutputReductionsAreSplitAndAgree) {
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  struct Case {
    const char* in;
    const char* dims;
    const char* out;
  };
  for (const Case& c : {Case{"f32[65536,8]", "0", "f32[8]"}, Case{"f32[16,32,32,16]", "0,1,2", "f32[16]"},
                        Case{"f32[4194304]", "0", "f32[]"}, Case{"f32[8,65536]", "1", "f32[8]"}}) {
    const std::string hlo = absl::StrCat(R"(HloModule few
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = )", c.in, R"( parameter(0)
  z = f32[] constant(0)
  ROOT r = )", c.out, " reduce(x, z), dimensions={", c.dims, R"(}, to_apply=add
})");
    SCOPED_TRACE(c.in);
    absl::StatusOr<std::unique_ptr<backend::Executable>> exe = CompileOn(*gpu, hlo);
    ASSERT_TRUE(exe.ok()) << exe.status();
    int reduces = 0;
    for (const auto& computation : (*exe)->module().computations()) {
      for (const auto& inner : computation->instructions()) reduces += inner->opcode() == HloOpcode::kReduce;
    }
    EXPECT_GE(reduces, 2);
    int64_t bytes = 0;
    absl::StatusOr<std::vector<Literal>> args = Arguments(c.in, hlo, &bytes, int64_t{64} << 20);
    ASSERT_TRUE(args.ok()) << args.status();
    absl::StatusOr<Literal> expected = RunHloOn(*SharedInterpreter(), hlo, *args);
    ASSERT_TRUE(expected.ok()) << expected.status();
    EXPECT_TRUE(LiteralNear(*expected, ExecuteOnDevice0(*gpu, **exe, *args), 1e-4, 1e-3));
  }
}

TEST(KernelEmulatorTest, ConformanceModulesAgreeWithTheInterpreter) {
  const char* shared = std::getenv("XLA_SHARED_DIR");
  const std::filesystem::path dir = std::filesystem::path(shared != nullptr ? shared : "../shared") / "conformance";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no conformance modules at " << dir;
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  int compared = 0, not_compiled = 0, not_run = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".hlo") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string name = entry.path().stem().string();
    const auto start = std::chrono::steady_clock::now();
    const bool trace = std::getenv("XLA_EMULATOR_TRACE") != nullptr;
    absl::StatusOr<std::unique_ptr<backend::Executable>> on_gpu = CompileOn(*gpu, text.str());
    if (!on_gpu.ok()) {
      ++not_compiled;
      continue;
    }
    int64_t bytes = 0;
    absl::StatusOr<std::vector<Literal>> args = Arguments(name, text.str(), &bytes, kMaxEmulatedBytes);
    // Emulated kernels run every thread on one core: modules moving more than 4 MiB (the
    // conformance set has convolutions of 20 GFLOP) are left to the device check.
    int64_t result_bytes = 0;
    ShapeUtil::ForEachSubshape((*on_gpu)->module().entry_computation()->root_instruction()->shape(),
                               [&](const Shape& s, const ShapeIndex&) {
                                 if (s.IsArray()) result_bytes += ShapeUtil::ByteSizeOf(s);
                               });
    if (!args.ok() || bytes > kMaxEmulatedBytes || result_bytes > kMaxEmulatedBytes) {
      ++not_run;
      continue;
    }
    absl::StatusOr<Literal> expected = RunHloOn(*SharedInterpreter(), text.str(), *args);
    if (!expected.ok()) {
      ++not_run;
      continue;
    }
    // The device check's tolerance (tests/gpu/gpu_bundle.cc): reductions reassociate.
    EXPECT_TRUE(LiteralNear(*expected, ExecuteOnDevice0(*gpu, **on_gpu, *args), 2e-6, 1e-5)) << name;
    ++compared;
    if (trace) {
      std::cerr << name << " "
                << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
    }
  }
  std::cout << compared << " conformance modules compared, " << not_compiled << " not compiled by the gpu backend, "
            << not_run << " not run (too large, or the interpreter refuses them)\n";
  EXPECT_GT(compared, 100);
}

}  // namespace
}  // namespace gpu
}  // namespace xla
