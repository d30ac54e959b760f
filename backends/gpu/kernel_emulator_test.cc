// The gpu backend end to end with its kernels running on the host (testing/kernel_emulator.h):
// the device check's curated cases and the conformance modules the backend compiles, against
// the interpreter on the same seeded random arguments, as tests/gpu/device_check.sh does on a
// GPU. What differs from a GPU: libm stands in for libdevice (the tolerances allow both), and
// cuBLAS is absent, so dots are the backend's own kernels.
#include "backends/gpu/testing/kernel_emulator.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/testing/gpu_test_modules.h"
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace gpu {
namespace testing {
// gtest names a failing case by this rather than its bytes.
void PrintTo(const CuratedCase& c, std::ostream* os) { *os << c.name; }
}  // namespace testing
namespace {

namespace modules = ::xla::gpu::testing;
using ::xla::testing::LiteralNear;

// The gpu backend on the fake driver with the emulator installed (once per process).
backend::Backend* Gpu() {
  static backend::Backend* gpu = [] () -> backend::Backend* {
    setenv("XLA_FAKE_CUDA_MODE", "ok", 1);
    setenv("XLA_GPU_LIBCUBLAS", "/nonexistent/libcublas.so", 1);
    absl::Status installed = InstallKernelEmulator(XLA_FAKE_LIBCUDA);
    EXPECT_TRUE(installed.ok()) << installed;
    absl::StatusOr<const CudaDriver*> driver = CudaDriver::Load(XLA_FAKE_LIBCUDA);
    EXPECT_TRUE(driver.ok()) << driver.status();
    if (!installed.ok() || !driver.ok()) return nullptr;
    absl::StatusOr<std::unique_ptr<backend::Backend>> b = CreateGpuBackend(*driver, CompileGpuPlan);
    EXPECT_TRUE(b.ok()) << b.status();
    return b.ok() ? b->release() : nullptr;
  }();
  return gpu;
}

backend::Backend* Interpreter() {
  static backend::Backend* interpreter = [] {
    backend::RegisterBuiltinBackends();
    absl::StatusOr<std::unique_ptr<backend::Backend>> b = backend::CreateBackend("interpreter");
    EXPECT_TRUE(b.ok()) << b.status();
    return b.ok() ? b->release() : nullptr;
  }();
  return interpreter;
}

absl::StatusOr<std::unique_ptr<backend::Executable>> CompileOn(backend::Backend& b, const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(hlo);
  if (!module.ok()) return module.status();
  return b.Compile(*std::move(module), backend::CompileOptions());
}

absl::StatusOr<Literal> Execute(backend::Backend& b, backend::Executable& exe, const std::vector<Literal>& args) {
  std::vector<std::shared_ptr<backend::Buffer>> buffers;
  for (const Literal& a : args) {
    absl::StatusOr<std::shared_ptr<backend::Buffer>> buffer = b.TransferToDevice(a, 0);
    if (!buffer.ok()) return buffer.status();
    buffers.push_back(*std::move(buffer));
  }
  absl::StatusOr<std::shared_ptr<backend::Buffer>> out = exe.Execute(buffers, backend::ExecuteOptions());
  if (!out.ok()) return out.status();
  return b.TransferFromDevice(**out);
}

absl::StatusOr<Literal> RunOn(backend::Backend& b, const std::string& hlo, const std::vector<Literal>& args) {
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = CompileOn(b, hlo);
  if (!exe.ok()) return exe.status();
  return Execute(b, **exe, args);
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
  backend::Backend* gpu = Gpu();
  ASSERT_NE(gpu, nullptr);
  int64_t bytes = 0;
  absl::StatusOr<std::vector<Literal>> args = Arguments(name, hlo, &bytes, int64_t{256} << 20);
  ASSERT_TRUE(args.ok()) << args.status();
  absl::StatusOr<Literal> actual = RunOn(*gpu, hlo, *args);
  absl::StatusOr<Literal> expected = RunOn(*Interpreter(), hlo, *args);
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
  ASSERT_NE(Gpu(), nullptr);
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

// Every conformance module (XLA's own test HLO) that the gpu backend compiles, on seeded
// random arguments, against the interpreter, as the device check runs them on a GPU. Modules
// the interpreter cannot run either (or with over 64 MiB of arguments) are passed over.
TEST(KernelEmulatorTest, ConformanceModulesAgreeWithTheInterpreter) {
  const char* shared = std::getenv("XLA_SHARED_DIR");
  const std::filesystem::path dir = std::filesystem::path(shared != nullptr ? shared : "../shared") / "conformance";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no conformance modules at " << dir;
  backend::Backend* gpu = Gpu();
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
    absl::StatusOr<Literal> expected = RunOn(*Interpreter(), text.str(), *args);
    if (!expected.ok()) {
      ++not_run;
      continue;
    }
    // The device check's tolerance (tests/gpu/gpu_bundle.cc): reductions reassociate.
    EXPECT_TRUE(LiteralNear(*expected, Execute(*gpu, **on_gpu, *args), 2e-6, 1e-5)) << name;
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
