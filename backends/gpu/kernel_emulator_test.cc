// The gpu backend end to end with its kernels running on the host (testing/kernel_emulator.h):
// the device check's curated cases and the conformance modules the backend compiles, against
// the interpreter on the same seeded random arguments, as tests/gpu/device_check.sh does on a
// GPU. What differs from a GPU: libm stands in for libdevice (the tolerances allow both), and
// cuBLAS is absent, so dots are the backend's own kernels.
#include "backends/gpu/testing/kernel_emulator.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
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

absl::StatusOr<Literal> Run(backend::Backend& b, const std::string& hlo, const std::vector<Literal>& args) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(hlo);
  if (!module.ok()) return module.status();
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b.Compile(*std::move(module), backend::CompileOptions());
  if (!exe.ok()) return exe.status();
  std::vector<std::shared_ptr<backend::Buffer>> buffers;
  for (const Literal& a : args) {
    absl::StatusOr<std::shared_ptr<backend::Buffer>> buffer = b.TransferToDevice(a, 0);
    if (!buffer.ok()) return buffer.status();
    buffers.push_back(*std::move(buffer));
  }
  absl::StatusOr<std::shared_ptr<backend::Buffer>> out = (*exe)->Execute(buffers, backend::ExecuteOptions());
  if (!out.ok()) return out.status();
  return b.TransferFromDevice(**out);
}

// Seeded random arguments for the entry's parameters, as the device check makes them.
absl::StatusOr<std::vector<Literal>> Arguments(const std::string& name, const std::string& hlo, int64_t* bytes) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(hlo);
  if (!module.ok()) return module.status();
  uint64_t state = std::hash<std::string>()(name);
  std::vector<Literal> args;
  *bytes = 0;
  for (const HloInstruction* p : (*module)->entry_computation()->parameter_instructions()) {
    ShapeUtil::ForEachSubshape(p->shape(), [&](const Shape& s, const ShapeIndex&) {
      if (s.IsArray()) *bytes += ShapeUtil::ByteSizeOf(s);
    });
    if (*bytes > (int64_t{64} << 20)) return args;  // the caller skips it
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
  absl::StatusOr<std::vector<Literal>> args = Arguments(name, hlo, &bytes);
  ASSERT_TRUE(args.ok()) << args.status();
  absl::StatusOr<Literal> actual = Run(*gpu, hlo, *args);
  absl::StatusOr<Literal> expected = Run(*Interpreter(), hlo, *args);
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

}  // namespace
}  // namespace gpu
}  // namespace xla
