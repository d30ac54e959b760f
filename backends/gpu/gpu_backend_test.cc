// The gpu backend on the fake driver (testing/fake_libcuda.cc): devices, memory, transfers,
// compilation to loaded PTX, and executions that need no kernel. Kernels run only on a real
// GPU (gpu_device_test.cc, tests/gpu/device_check.sh).
#include "backends/gpu/gpu_compiler.h"

#include <dlfcn.h>

#include <cstdlib>
#include <functional>
#include <string>

#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace gpu {
namespace {

using ::testing::HasSubstr;
using testing::L;
using testing::LiteralEqual;

template <typename F>
F Hook(const char* name) {
  void* lib = dlopen(XLA_FAKE_LIBCUDA, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(lib, nullptr);
  return lib == nullptr ? nullptr : reinterpret_cast<F>(dlsym(lib, name));
}
int LiveAllocations() { return Hook<int (*)()>("xla_fake_cuda_live_allocations")(); }
int Launches() { return Hook<int (*)()>("xla_fake_cuda_launches")(); }
std::string LastImage() { return Hook<const char* (*)()>("xla_fake_cuda_last_image")(); }

// A backend on the fake driver's two devices; `with_compiler` false is a binary without LLVM.
std::unique_ptr<backend::Backend> FakeBackend(bool with_compiler = true) {
  setenv("XLA_FAKE_CUDA_MODE", "ok", 1);
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Load(XLA_FAKE_LIBCUDA);
  EXPECT_TRUE(driver.ok()) << driver.status();
  if (!driver.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<backend::Backend>> b =
      CreateGpuBackend(*driver, with_compiler ? GpuCompileFn(CompileGpuPlan) : nullptr);
  EXPECT_TRUE(b.ok()) << b.status();
  return b.ok() ? *std::move(b) : nullptr;
}

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseAndReturnUnverifiedModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

TEST(GpuBackendTest, NoDevicesIsUnavailable) {
  setenv("XLA_FAKE_CUDA_MODE", "zero_devices", 1);
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Load(XLA_FAKE_LIBCUDA);
  ASSERT_TRUE(driver.ok()) << driver.status();
  absl::StatusOr<std::unique_ptr<backend::Backend>> b = CreateGpuBackend(*driver);
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(absl::IsUnavailable(b.status())) << b.status();
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("no CUDA device"));
}

TEST(GpuBackendTest, RegisteredAsGpuAndUnavailableWithoutADriver) {
  // The registry's factory loads the default driver: none here ($XLA_GPU_LIBCUDA points
  // nowhere), so asking for "gpu" is a clear UNAVAILABLE, as a server on a GPU-less host sees.
  setenv("XLA_GPU_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  RegisterGpuBackend();
  absl::StatusOr<std::unique_ptr<backend::Backend>> b = backend::CreateBackend("gpu");
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(absl::IsUnavailable(b.status())) << b.status();
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("/nonexistent/libcuda.so.1"));
}

TEST(GpuBackendTest, DescribesEveryDevice) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->platform(), "gpu");
  ASSERT_EQ(b->device_count(), 2);
  absl::StatusOr<backend::DeviceDescription> d = b->Describe(1);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->platform, "gpu");
  EXPECT_EQ(d->name, "Fake GPU 1 (sm_90)");
  EXPECT_EQ(d->ordinal, 1);
  EXPECT_EQ(d->memory_bytes, int64_t{1} << 30);
  EXPECT_TRUE(absl::IsInvalidArgument(b->Describe(2).status()));
}

TEST(GpuBackendTest, TransfersRoundTripAndFreeTheirMemory) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  for (const char* text : {"f32[2,3] {{1, 2, 3}, {4, 5, 6}}", "s8[5] {-1, 2, -3, 4, 127}", "pred[3] {true, false, true}",
                           "(f32[2] {1.5, -2}, s32[] 7)", "f32[0] {}", "bf16[2] {0.5, 3}", "u4[3] {1, 15, 7}"}) {
    Literal value = L(text);
    for (int device : {0, 1}) {
      absl::StatusOr<std::shared_ptr<backend::Buffer>> buffer = b->TransferToDevice(value, device);
      ASSERT_TRUE(buffer.ok()) << text << ": " << buffer.status();
      EXPECT_EQ((*buffer)->device_ordinal(), device);
      EXPECT_TRUE(LiteralEqual(value, b->TransferFromDevice(**buffer))) << text;
    }
  }
  absl::StatusOr<std::shared_ptr<backend::Buffer>> zeros = b->Allocate(ShapeUtil::MakeShape(S32, {4}), 0);
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  EXPECT_TRUE(LiteralEqual(L("s32[4] {0, 0, 0, 0}"), b->TransferFromDevice(**zeros)));
  // One pool region per device, whatever the buffers did.
  EXPECT_EQ(LiveAllocations(), 2);
  EXPECT_TRUE(absl::IsInvalidArgument(b->TransferToDevice(L("f32[] 1"), 5).status()));
}

TEST(GpuBackendTest, OutOfDeviceMemoryIsResourceExhausted) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  absl::StatusOr<std::shared_ptr<backend::Buffer>> huge = b->Allocate(ShapeUtil::MakeShape(F32, {1 << 29}), 0);
  ASSERT_FALSE(huge.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(huge.status())) << huge.status();
  EXPECT_THAT(std::string(huge.status().message()), HasSubstr("CUDA_ERROR_OUT_OF_MEMORY"));
  EXPECT_TRUE(b->Allocate(ShapeUtil::MakeShape(F32, {1024}), 0).ok()) << "the device is still usable";
}

TEST(GpuBackendTest, ExecutionsWithoutKernelsPassBuffersThrough) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b->Compile(Parse(R"(HloModule pass
ENTRY main {
  p = (f32[2], s32[]) parameter(0)
  x = f32[2] get-tuple-element(p), index=0
  c = s32[3] constant({4, 5, 6})
  ROOT t = (s32[3], f32[2]) tuple(c, x)
})"),
                                                                         backend::CompileOptions{1});
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<std::shared_ptr<backend::Buffer>> arg = b->TransferToDevice(L("(f32[2] {1, 2}, s32[] 3)"), 1);
  ASSERT_TRUE(arg.ok());
  absl::StatusOr<std::shared_ptr<backend::Buffer>> out = (*exe)->Execute({*arg}, backend::ExecuteOptions());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(LiteralEqual(L("(s32[3] {4, 5, 6}, f32[2] {1, 2})"), b->TransferFromDevice(**out)));
  // Arguments are checked.
  EXPECT_TRUE(absl::IsInvalidArgument((*exe)->Execute({}, backend::ExecuteOptions()).status()));
  absl::StatusOr<std::shared_ptr<backend::Buffer>> wrong = b->TransferToDevice(L("(f32[3] {1, 2, 3}, s32[] 3)"), 1);
  EXPECT_THAT(std::string((*exe)->Execute({*wrong}, backend::ExecuteOptions()).status().message()),
              HasSubstr("the parameter wants"));
  absl::StatusOr<std::shared_ptr<backend::Buffer>> elsewhere = b->TransferToDevice(L("(f32[2] {1, 2}, s32[] 3)"), 0);
  EXPECT_THAT(std::string((*exe)->Execute({*elsewhere}, backend::ExecuteOptions()).status().message()),
              HasSubstr("not on device 1"));
}

TEST(GpuBackendTest, KernelsAreEmittedLoadedAndLaunched) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b->Compile(Parse(R"(HloModule axpy
ENTRY main {
  a = f32[] parameter(0)
  x = f32[1000] parameter(1)
  y = f32[1000] parameter(2)
  ba = f32[1000] broadcast(a), dimensions={}
  ax = f32[1000] multiply(ba, x)
  ROOT r = f32[1000] add(ax, y)
})"),
                                                                         backend::CompileOptions{});
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_THAT(LastImage(), HasSubstr(".target sm_90"));
  EXPECT_THAT(LastImage(), HasSubstr(".visible .entry"));
  std::vector<std::shared_ptr<backend::Buffer>> args;
  args.push_back(*b->TransferToDevice(L("f32[] 2"), 0));
  for (int i = 0; i < 2; ++i) args.push_back(*b->Allocate(ShapeUtil::MakeShape(F32, {1000}), 0));
  const int before = Launches();
  absl::StatusOr<std::shared_ptr<backend::Buffer>> out = (*exe)->Execute(args, backend::ExecuteOptions());
  // The fake driver refuses to run device code: the launch is attempted and its error is ours.
  EXPECT_EQ(Launches(), before + 1);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("cuLaunchKernel"));
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("CUDA_ERROR_NOT_SUPPORTED"));
}

TEST(GpuBackendTest, UnsupportedOpsAreNamedAtCompile) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b->Compile(Parse(R"(HloModule cholesky
ENTRY main {
  x = f32[4,4] parameter(0)
  ROOT c = f32[4,4] cholesky(x), lower=true
})"),
                                                                         backend::CompileOptions{});
  ASSERT_FALSE(exe.ok());
  EXPECT_TRUE(absl::IsUnimplemented(exe.status())) << exe.status();
  EXPECT_THAT(std::string(exe.status().message()), HasSubstr("cholesky (c)"));
  EXPECT_TRUE(absl::IsInvalidArgument(b->Compile(Parse("HloModule m\nENTRY e {\n  ROOT c = f32[] constant(1)\n}"),
                                                 backend::CompileOptions{7})
                                          .status()));
}

constexpr char kAxpy[] = R"(HloModule axpy
ENTRY main {
  a = f32[] parameter(0)
  x = f32[1000] parameter(1)
  y = f32[1000] parameter(2)
  ba = f32[1000] broadcast(a), dimensions={}
  ax = f32[1000] multiply(ba, x)
  c = f32[2] constant({7, 8})
  ROOT r = (f32[1000], f32[2]) tuple(add(ax, y), c)
})";

TEST(GpuBackendTest, ExecutablesSerializeAndLoadWithoutACompiler) {
  std::unique_ptr<backend::Backend> compiler = FakeBackend();
  ASSERT_NE(compiler, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = compiler->Compile(Parse(kAxpy), backend::CompileOptions{});
  ASSERT_TRUE(exe.ok()) << exe.status();
  const std::string compiled_ptx = LastImage();
  absl::StatusOr<std::string> bytes = compiler->SerializeExecutable(**exe);
  ASSERT_TRUE(bytes.ok()) << bytes.status();

  // A binary without LLVM cannot compile, but loads the bytes: same kernels, same module.
  std::unique_ptr<backend::Backend> runner = FakeBackend(/*with_compiler=*/false);
  ASSERT_NE(runner, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Executable>> none = runner->Compile(Parse(kAxpy), backend::CompileOptions{});
  EXPECT_TRUE(absl::IsUnimplemented(none.status())) << none.status();
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("no gpu compiler"));
  absl::StatusOr<std::unique_ptr<backend::Executable>> loaded = runner->DeserializeExecutable(*bytes, 1);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(LastImage(), compiled_ptx);
  EXPECT_EQ((*loaded)->module().entry_computation()->num_parameters(), 3);
  absl::StatusOr<std::string> again = runner->SerializeExecutable(**loaded);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *bytes) << "serializing a loaded executable gives the same bytes";

  // Damaged bytes are INVALID_ARGUMENT at every truncation and on flipped bytes, never a crash.
  for (size_t n = 0; n < bytes->size(); n += std::max<size_t>(1, bytes->size() / 97)) {
    absl::StatusOr<std::unique_ptr<backend::Executable>> cut = runner->DeserializeExecutable(bytes->substr(0, n), 0);
    ASSERT_FALSE(cut.ok()) << n;
    EXPECT_TRUE(absl::IsInvalidArgument(cut.status())) << n << ": " << cut.status();
  }
  std::string flipped = *bytes;
  flipped[flipped.size() / 2] ^= 0x5a;
  EXPECT_TRUE(absl::IsInvalidArgument(runner->DeserializeExecutable(flipped, 0).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(runner->DeserializeExecutable(*bytes, 3).status())) << "no device 3";
}

TEST(GpuBackendTest, KernelsForANewerGpuAreRefused) {
  std::unique_ptr<backend::Backend> b = FakeBackend();
  ASSERT_NE(b, nullptr);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(kAxpy);
  ASSERT_TRUE(module.ok());
  GpuTarget newer;
  newer.sm = 100;  // the fake devices are sm_90
  absl::StatusOr<GpuPlan> plan = CompileGpuPlan(*std::move(module), newer);
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::unique_ptr<backend::Executable>> loaded = b->DeserializeExecutable(*SerializeGpuPlan(*plan), 0);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(loaded.status())) << loaded.status();
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("sm_100"));
}

// Bytes that pass the checksum but describe an impossible plan are refused by name (the
// checksum catches accidents, not a plan written wrong).
TEST(GpuBackendTest, InconsistentPlansAreRefused) {
  auto fresh = [] {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(kAxpy);
    EXPECT_TRUE(module.ok());
    absl::StatusOr<GpuPlan> plan = CompileGpuPlan(*std::move(module), GpuTarget{});
    EXPECT_TRUE(plan.ok()) << plan.status();
    return *std::move(plan);
  };
  ASSERT_TRUE(ValidateGpuPlan(fresh()).ok());
  auto kernel_step = [](GpuPlan& plan) -> GpuPlanStep& {
    for (GpuPlanStep& s : plan.entry().steps) {
      if (s.kind == GpuPlanStep::Kind::kKernel) return s;
    }
    return plan.entry().steps.front();
  };
  struct Breakage {
    const char* what;
    std::function<void(GpuPlan&)> apply;
  };
  const std::vector<Breakage> breakages = {
      {"operand", [&](GpuPlan& p) { kernel_step(p).operands[0] = static_cast<int>(p.entry().steps.size()); }},
      {"not a kernel of its shape", [&](GpuPlan& p) { kernel_step(p).elements += 1; }},
      {"not a kernel of its shape", [&](GpuPlan& p) { kernel_step(p).rows = 5; }},
      {"not a cuBLAS gemm", [&](GpuPlan& p) { kernel_step(p).gemm = true; }},
      {"is not parameter", [](GpuPlan& p) { p.entry().steps[0].index = 7; }},
      {"the root of sequence 0 has no step", [](GpuPlan& p) { p.entry().root = 0; }},
      {"has two steps", [](GpuPlan& p) { p.entry().steps.push_back(p.entry().steps.back()); }},
      {"calls sequences but is no control flow", [&](GpuPlan& p) { kernel_step(p).callees = {0}; }},
      {"the first sequence is not the entry", [](GpuPlan& p) { p.sequences.clear(); }},
  };
  for (const Breakage& b : breakages) {
    GpuPlan plan = fresh();
    b.apply(plan);
    absl::Status s = ValidateGpuPlan(plan);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << b.what << ": " << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(b.what)) << s;
  }
}

TEST(GpuBackendTest, DotsCuBlasCanComputeAreMarkedAndKeepTheirKernel) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(R"(HloModule dots
ENTRY main {
  a = f32[8,16] parameter(0)
  b = f32[16,4] parameter(1)
  ba = bf16[3,8,16] parameter(2)
  bb = bf16[3,16,4] parameter(3)
  ia = s32[8,16] parameter(4)
  ib = s32[16,4] parameter(5)
  f = f32[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[4,8] dot(b, a), lhs_contracting_dims={0}, rhs_contracting_dims={1}
  bf = f32[3,8,4] dot(ba, bb), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  i = s32[8,4] dot(ia, ib), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[8,4], f32[4,8], f32[3,8,4], s32[8,4]) tuple(f, t, bf, i)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuPlan> plan = CompileGpuPlan(*std::move(module), GpuTarget{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  int gemms = 0, integer_dots = 0;
  for (const GpuPlanStep& step : plan->entry().steps) {
    if (step.hlo->opcode() != HloOpcode::kDot) continue;
    EXPECT_FALSE(step.kernel.empty()) << "every dot keeps its kernel, for machines without cuBLAS";
    if (step.hlo->shape().element_type() == S32) {
      EXPECT_FALSE(step.gemm) << "cuBLAS has no s32 gemm here";
      ++integer_dots;
    } else {
      EXPECT_TRUE(step.gemm) << step.hlo->name() << " is canonical after the pipeline";
      ++gemms;
    }
  }
  EXPECT_EQ(gemms, 3);
  EXPECT_EQ(integer_dots, 1);
  absl::StatusOr<std::string> bytes = SerializeGpuPlan(*plan);
  ASSERT_TRUE(bytes.ok());
  absl::StatusOr<GpuPlan> back = DeserializeGpuPlan(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  for (size_t i = 0; i < plan->entry().steps.size(); ++i) {
    EXPECT_EQ(back->entry().steps[i].gemm, plan->entry().steps[i].gemm) << i;
  }
}

}  // namespace
}  // namespace gpu
}  // namespace xla
