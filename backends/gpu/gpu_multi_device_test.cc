// Several GPUs behind one server: the service core on the fake driver's two devices
// ("gpu:0", "gpu:1") with the kernel emulator running their kernels. The fake keeps devices
// apart as a host with several GPUs does (a context per device, each thread's current one;
// streams, events, modules and memory belong to one), so work done on the wrong device's
// context or with the other device's memory fails here. ExecuteParallel runs executables
// compiled for each device at once, and each result agrees with the interpreter; caches
// donated through the service are updated in place on either device.

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/testing/fake_cuda_hooks.h"
#include "backends/gpu/cuda_driver.h"
#include "backends/gpu/testing/gpu_test_modules.h"
#include "backends/gpu/testing/kernel_emulator.h"
#include "backends/testing/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/service_core_test_util.h"

namespace xla {
namespace gpu {
namespace {

namespace modules = ::xla::gpu::testing;
using ::testing::HasSubstr;
using ::xla::testing::LiteralNear;
using ::xla::testing::RunHloOn;
using ::xla::testing::SharedInterpreter;

// The driver as the gpu platform loads it here: the fake, with the emulator installed.
void UseEmulatedDriver() {
  setenv("XLA_GPU_LIBCUDA", XLA_FAKE_LIBCUDA, 1);
  setenv("XLA_FAKE_CUDA_MODE", "ok", 1);
  setenv("XLA_FAKE_CUDA_STREAMS", "deferred", 1);
  setenv("XLA_GPU_LIBCUBLAS", "/nonexistent/libcublas.so", 1);
  const absl::Status installed = InstallKernelEmulator(XLA_FAKE_LIBCUDA);
  ASSERT_TRUE(installed.ok()) << installed;
}

TEST(FakeDriverTest, KeepsDevicesApartAsADriverDoes) {
  UseEmulatedDriver();
  absl::StatusOr<const CudaDriver*> loaded = CudaDriver::Load(XLA_FAKE_LIBCUDA);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const CudaDriver& d = **loaded;
  ASSERT_EQ(d.cuInit(0), CUDA_SUCCESS);
  CUcontext context[2];
  for (int i = 0; i < 2; ++i) ASSERT_EQ(d.cuDevicePrimaryCtxRetain(&context[i], i), CUDA_SUCCESS);
  std::thread([&d] {  // a new thread has no current context
    CUdeviceptr p;
    EXPECT_EQ(d.cuMemAlloc(&p, 256), CUDA_ERROR_INVALID_CONTEXT);
    CUstream s;
    EXPECT_EQ(d.cuStreamCreate(&s, 0), CUDA_ERROR_INVALID_CONTEXT);
    CUmodule m;
    EXPECT_EQ(d.cuModuleLoadDataEx(&m, ".visible .entry k()\n{\n}\n", 0, nullptr, nullptr), CUDA_ERROR_INVALID_CONTEXT);
  }).join();
  CUstream stream[2];
  CUdeviceptr memory[2];
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(d.cuCtxSetCurrent(context[i]), CUDA_SUCCESS);
    ASSERT_EQ(d.cuStreamCreate(&stream[i], 0), CUDA_SUCCESS);
    ASSERT_EQ(d.cuMemAlloc(&memory[i], 256), CUDA_SUCCESS);
  }
  // Device 1's context is current.
  EXPECT_EQ(d.cuMemsetD8Async(memory[1], 0, 256, stream[1]), CUDA_SUCCESS);
  EXPECT_EQ(d.cuMemsetD8Async(memory[1], 0, 256, stream[0]), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(d.cuMemsetD8Async(memory[0], 0, 256, stream[1]), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(d.cuMemsetD8Async(memory[1], 0, 257, stream[1]), CUDA_ERROR_INVALID_VALUE) << "past its end";
  CUevent event;
  ASSERT_EQ(d.cuCtxSetCurrent(context[0]), CUDA_SUCCESS);
  ASSERT_EQ(d.cuEventCreate(&event, 0), CUDA_SUCCESS);
  EXPECT_EQ(d.cuEventRecord(event, stream[0]), CUDA_SUCCESS);
  EXPECT_EQ(d.cuEventRecord(event, stream[1]), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(d.cuCtxSetCurrent(reinterpret_cast<CUcontext>(uintptr_t{0x42})), CUDA_ERROR_INVALID_CONTEXT);
  // A kernel loaded under device 0's context, given device 1's memory or launched on device
  // 1's stream, fails before it is queued.
  CUmodule module;
  CUfunction kernel;
  ASSERT_EQ(d.cuModuleLoadDataEx(&module, ".visible .entry k(.param .u64 p)\n{\n  ret;\n}\n", 0, nullptr, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(d.cuModuleGetFunction(&kernel, module, "k"), CUDA_SUCCESS);
  void* other_memory[] = {&memory[1]};
  EXPECT_EQ(d.cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, stream[0], other_memory, nullptr), CUDA_ERROR_ILLEGAL_ADDRESS);
  void* own_memory[] = {&memory[0]};
  ASSERT_EQ(d.cuCtxSetCurrent(context[1]), CUDA_SUCCESS);
  EXPECT_EQ(d.cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, stream[1], own_memory, nullptr), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_EQ(d.cuCtxSetCurrent(context[0]), CUDA_SUCCESS);
  EXPECT_EQ(d.cuModuleUnload(module), CUDA_SUCCESS);
  EXPECT_EQ(d.cuStreamSynchronize(stream[0]), CUDA_SUCCESS);
  EXPECT_EQ(d.cuEventDestroy(event), CUDA_SUCCESS);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(d.cuCtxSetCurrent(context[i]), CUDA_SUCCESS);
    EXPECT_EQ(d.cuStreamDestroy(stream[i]), CUDA_SUCCESS);
    EXPECT_EQ(d.cuMemFree(memory[i]), CUDA_SUCCESS);
    EXPECT_EQ(d.cuDevicePrimaryCtxRelease(i), CUDA_SUCCESS);
  }
}

// A row softmax after a dot, and a sort of its rows: a dot kernel (no cuBLAS here), a row
// reduction kernel and a sort kernel.
constexpr const char* kModule = R"(HloModule mixed
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[8,64] parameter(0)
  w = f32[64,48] parameter(1)
  d = f32[8,48] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ninf = f32[] constant(-inf)
  m = f32[8] reduce(d, ninf), dimensions={1}, to_apply=max
  mb = f32[8,48] broadcast(m), dimensions={0}
  shifted = f32[8,48] subtract(d, mb)
  e = f32[8,48] exponential(shifted)
  zero = f32[] constant(0)
  s = f32[8] reduce(e, zero), dimensions={1}, to_apply=add
  sb = f32[8,48] broadcast(s), dimensions={0}
  softmax = f32[8,48] divide(e, sb)
  sorted = f32[8,48] sort(d), dimensions={1}, to_apply=less
  ROOT t = (f32[8,48], f32[8,48]) tuple(softmax, sorted)
})";

class MultiGpuTest : public server::CoreTest {
 protected:
  void SetUp() override {
    UseEmulatedDriver();
    server::ServiceOptions options;
    options.platforms = {"gpu"};
    options.execute_threads = 4;
    Start(options);
  }

  // The inputs of run `i` (different for every run) and what the interpreter makes of them.
  struct Run {
    Literal x, w, expected;
  };
  Run MakeRun(int i) {
    Run run;
    // In [-0.5, 0.5): dot products of a few units, whose softmax is not dominated by one exp.
    run.x = modules::RandomLiteral(F32, {8, 64}, 2 * i + 1, 0.5);
    run.w = modules::RandomLiteral(F32, {64, 48}, 2 * i + 2, 0.5);
    std::vector<Literal> args;
    args.push_back(run.x.Clone());
    args.push_back(run.w.Clone());
    absl::StatusOr<Literal> expected = RunHloOn(*SharedInterpreter(), kModule, args);
    EXPECT_TRUE(expected.ok()) << expected.status();
    if (expected.ok()) run.expected = *std::move(expected);
    return run;
  }
};

TEST_F(MultiGpuTest, ExecuteParallelRunsOnBothDevicesAndAgrees) {
  server::ListDevicesRequest list;
  list.set_session_id(session_);
  absl::StatusOr<server::ListDevicesResponse> devices = core_->ListDevices(list);
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_EQ(devices->devices_size(), 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(devices->devices(i).platform(), "gpu");
    EXPECT_EQ(devices->devices(i).ordinal(), i);
  }
  int64_t executable[2];
  for (int device = 0; device < 2; ++device) {
    absl::StatusOr<server::CompileResponse> compiled = Compile(kModule, "", device);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    executable[device] = compiled->execution_handle();
  }
  // Eight executions, alternating devices, each with its own inputs on its own device.
  constexpr int kRuns = 8;
  std::vector<Run> runs;
  server::ExecuteParallelRequest request;
  for (int i = 0; i < kRuns; ++i) {
    runs.push_back(MakeRun(i));
    const int device = i % 2;
    absl::StatusOr<int64_t> x = Upload(runs[i].x, "", device);
    absl::StatusOr<int64_t> w = Upload(runs[i].w, "", device);
    ASSERT_TRUE(x.ok() && w.ok()) << x.status() << w.status();
    server::ExecuteRequest* one = request.add_requests();
    one->set_session_id(session_);
    one->set_execution_handle(executable[device]);
    one->add_arguments(*x);
    one->add_arguments(*w);
  }
  absl::StatusOr<server::ExecuteParallelResponse> response = core_->ExecuteParallel(request);
  ASSERT_TRUE(response.ok()) << response.status();
  ASSERT_EQ(response->responses_size(), kRuns);
  for (int i = 0; i < kRuns; ++i) {
    EXPECT_TRUE(LiteralNear(runs[i].expected, Download(response->responses(i).result_handle()), 1e-5, 1e-6))
        << "run " << i << " on device " << i % 2;
  }

  // An argument on the other device is refused, naming both, and harms nothing.
  server::ExecuteParallelRequest mixed = request;
  mixed.mutable_requests(3)->set_execution_handle(executable[0]);
  absl::StatusOr<server::ExecuteParallelResponse> refused = core_->ExecuteParallel(mixed);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("execution 3"));
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("lives on device 1"));
  EXPECT_TRUE(LiteralNear(runs[3].expected, Download(response->responses(3).result_handle()), 1e-5, 1e-6));
  absl::StatusOr<server::ExecuteParallelResponse> again = core_->ExecuteParallel(request);
  ASSERT_TRUE(again.ok()) << again.status();
  for (int i = 0; i < kRuns; ++i) {
    EXPECT_TRUE(LiteralNear(runs[i].expected, Download(again->responses(i).result_handle()), 1e-5, 1e-6));
  }
}

TEST_F(MultiGpuTest, ThreadsOnBothDevicesAtOnceKeepTheirData) {
  int64_t executable[2];
  for (int device = 0; device < 2; ++device) {
    absl::StatusOr<server::CompileResponse> compiled = Compile(kModule, "", device);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    executable[device] = compiled->execution_handle();
  }
  constexpr int kThreads = 4, kIterations = 3;
  std::vector<std::vector<Run>> runs(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kIterations; ++i) runs[t].push_back(MakeRun(t * kIterations + i));
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIterations; ++i) {
        const int device = (t + i) % 2;
        const Run& run = runs[t][i];
        absl::StatusOr<int64_t> x = Upload(run.x, "", device);
        absl::StatusOr<int64_t> w = Upload(run.w, "", device);
        if (!x.ok() || !w.ok()) {
          ++failures;
          continue;
        }
        absl::StatusOr<server::ExecuteResponse> r = Execute(executable[device], {*x, *w});
        if (!r.ok()) {
          ADD_FAILURE() << "thread " << t << " device " << device << ": " << r.status();
          ++failures;
          continue;
        }
        const ::testing::AssertionResult near = LiteralNear(run.expected, Download(r->result_handle()), 1e-5, 1e-6);
        if (!near) {
          ADD_FAILURE() << "thread " << t << " device " << device << ": " << near.message();
          ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

// Bytes the fake driver has copied device to device since the process started.
int64_t DeviceToDeviceBytes() { return FakeCudaCount<int64_t>("xla_fake_cuda_device_to_device_bytes"); }

// Through the service: a decode loop's cache donated by handle (ExecuteRequest's
// donated_arguments) is updated in place, on either device and from several threads at once;
// not donated, it is copied once and the caller's handle keeps its value.
TEST_F(MultiGpuTest, DonatedCachesAreUpdatedInPlaceThroughTheService) {
  const std::string module = modules::KvCacheModule(16, 32, 64);
  const int64_t cache_bytes = 32 * 64 * 4;
  int64_t executable[2];
  for (int device = 0; device < 2; ++device) {
    absl::StatusOr<server::CompileResponse> compiled = Compile(module, "", device);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    executable[device] = compiled->execution_handle();
  }
  const Literal cache = modules::RandomLiteral(F32, {32, 64}, 81);
  std::vector<Literal> args;
  args.push_back(cache.Clone());
  absl::StatusOr<Literal> expected = RunHloOn(*SharedInterpreter(), module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();

  absl::StatusOr<int64_t> kept = Upload(cache, "", 1);
  ASSERT_TRUE(kept.ok()) << kept.status();
  int64_t before = DeviceToDeviceBytes();
  absl::StatusOr<server::ExecuteResponse> copied = Execute(executable[1], {*kept});
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_EQ(DeviceToDeviceBytes() - before, cache_bytes);
  EXPECT_TRUE(LiteralNear(*expected, Download(copied->result_handle()), 0, 0));
  EXPECT_TRUE(LiteralNear(cache, Download(*kept), 0, 0)) << "the caller's cache changed";

  // Threads at once, each donating its own cache; the driver's copy count is shared, so it
  // is taken over all of them: no donated cache is copied.
  constexpr int kThreads = 4;
  std::vector<int64_t> handles;
  for (int t = 0; t < kThreads; ++t) {
    absl::StatusOr<int64_t> handle = Upload(cache, "", t % 2);
    ASSERT_TRUE(handle.ok()) << handle.status();
    handles.push_back(*handle);
  }
  before = DeviceToDeviceBytes();
  std::vector<int64_t> results(kThreads, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<server::ExecuteResponse> r = Execute(executable[t % 2], {handles[t]}, {0});
      if (r.ok()) {
        results[t] = r->result_handle();
      } else {
        ADD_FAILURE() << "thread " << t << ": " << r.status();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(DeviceToDeviceBytes() - before, 0);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_TRUE(LiteralNear(*expected, Download(results[t]), 0, 0)) << "thread " << t;
    absl::StatusOr<Literal> gone = Download(handles[t]);
    EXPECT_FALSE(gone.ok()) << "a donated handle still answers";
  }
}

}  // namespace
}  // namespace gpu
}  // namespace xla
