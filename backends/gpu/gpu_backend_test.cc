// The gpu backend on the fake driver (testing/fake_libcuda.cc): devices, memory, transfers,
// compilation to loaded PTX, and executions that need no kernel. Kernels run only on a real
// GPU (gpu_device_test.cc, tests/gpu/device_check.sh).
#include "backends/gpu/gpu_backend.h"

#include <dlfcn.h>

#include <cstdlib>
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

std::unique_ptr<backend::Backend> FakeBackend() {
  setenv("XLA_FAKE_CUDA_MODE", "ok", 1);
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Load(XLA_FAKE_LIBCUDA);
  EXPECT_TRUE(driver.ok()) << driver.status();
  if (!driver.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<backend::Backend>> b = CreateGpuBackend(*driver);
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
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = b->Compile(Parse(R"(HloModule sort
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[8] parameter(0)
  ROOT s = f32[8] sort(x), dimensions={0}, to_apply=cmp
})"),
                                                                         backend::CompileOptions{});
  ASSERT_FALSE(exe.ok());
  EXPECT_TRUE(absl::IsUnimplemented(exe.status())) << exe.status();
  EXPECT_THAT(std::string(exe.status().message()), HasSubstr("sort (s)"));
  EXPECT_TRUE(absl::IsInvalidArgument(b->Compile(Parse("HloModule m\nENTRY e {\n  ROOT c = f32[] constant(1)\n}"),
                                                 backend::CompileOptions{7})
                                          .status()));
}

}  // namespace
}  // namespace gpu
}  // namespace xla
