// A stand-in for libcuda.so.1 in tests of the driver loader and the gpu backend (no GPU
// needed). It exports cuGetProcAddress_v2, as the real driver's loader entry, plus test hooks
// (xla_fake_cuda_*). $XLA_FAKE_CUDA_MODE picks the behaviour: "ok" (two sm_90 devices of
// 1 GiB whose memory is host memory; modules load; kernels do not run unless a test installs
// a launch handler or a kernel runner that stands in for them), "zero_devices",
// "no_device" (cuInit fails as on a machine without GPUs), "missing_entry" (cuLaunchKernel
// cannot be resolved).
#include <cuda.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>

namespace {

const char* Mode() {
  const char* m = std::getenv("XLA_FAKE_CUDA_MODE");
  return m == nullptr ? "ok" : m;
}

CUresult FakeInit(unsigned int) {
  return std::strcmp(Mode(), "no_device") == 0 ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}
CUresult FakeDriverGetVersion(int* v) {
  *v = 12080;
  return CUDA_SUCCESS;
}
constexpr size_t kDeviceBytes = size_t{1} << 30;
std::mutex mu;
std::map<CUdeviceptr, size_t> allocations;  // all devices together
std::string last_image;
std::atomic<int> launches{0};
std::atomic<int> device_to_host_copies{0};
// A CUmodule points to its image (PTX text); a CUfunction to one of these, whose first
// member is the kernel's name (launch handlers read it as a C string).
struct FakeFunction {
  std::string name;
  const std::string* image;
};
std::set<std::string*> images;
std::map<std::tuple<const std::string*, std::string>, FakeFunction*> functions;
// Called for each launch with the kernel's name and parameters when set; 0 is success.
using LaunchHandler = int (*)(const char* kernel, void** params, void* context);
std::atomic<LaunchHandler> launch_handler{nullptr};
std::atomic<void*> launch_context{nullptr};
// Called instead, when set, with the kernel's module image and launch dimensions too.
using KernelRunner = int (*)(const char* image, const char* kernel, const unsigned* grid, const unsigned* block,
                             void** params, void* context);
std::atomic<KernelRunner> kernel_runner{nullptr};
std::atomic<void*> runner_context{nullptr};

CUresult FakeDeviceGetCount(int* n) {
  *n = std::strcmp(Mode(), "zero_devices") == 0 ? 0 : 2;
  return CUDA_SUCCESS;
}
CUresult FakeDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal < 0 || ordinal > 1) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
CUresult FakeDeviceGetName(char* name, int len, CUdevice d) {
  std::snprintf(name, static_cast<size_t>(len), "Fake GPU %d", d);
  return CUDA_SUCCESS;
}
CUresult FakeDeviceTotalMem(size_t* bytes, CUdevice) {
  *bytes = kDeviceBytes;
  return CUDA_SUCCESS;
}
CUresult FakeDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}
CUresult FakePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  *c = reinterpret_cast<CUcontext>(static_cast<uintptr_t>(0x1000 + d));
  return CUDA_SUCCESS;
}
CUresult FakePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult FakeCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
// Device memory is host memory here, so transfers are memcpy and tests can check contents.
CUresult FakeMemAlloc(CUdeviceptr* p, size_t bytes) {
  std::lock_guard<std::mutex> lock(mu);
  size_t used = 0;
  for (const auto& [base, size] : allocations) used += size;
  if (used + bytes > kDeviceBytes) return CUDA_ERROR_OUT_OF_MEMORY;
  void* memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (memory == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = reinterpret_cast<CUdeviceptr>(memory);
  allocations[*p] = bytes;
  return CUDA_SUCCESS;
}
CUresult FakeMemFree(CUdeviceptr p) {
  std::lock_guard<std::mutex> lock(mu);
  if (allocations.erase(p) == 0) return CUDA_ERROR_INVALID_VALUE;
  std::free(reinterpret_cast<void*>(p));
  return CUDA_SUCCESS;
}
CUresult FakeMemcpyHtoD(CUdeviceptr dst, const void* src, size_t n, CUstream) {
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  return CUDA_SUCCESS;
}
CUresult FakeMemcpyDtoH(void* dst, CUdeviceptr src, size_t n, CUstream) {
  ++device_to_host_copies;
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
  return CUDA_SUCCESS;
}
CUresult FakeMemsetD8(CUdeviceptr dst, unsigned char v, size_t n, CUstream) {
  std::memset(reinterpret_cast<void*>(dst), v, n);
  return CUDA_SUCCESS;
}
CUresult FakeStreamCreate(CUstream* s, unsigned int) {
  *s = reinterpret_cast<CUstream>(new int(0));
  return CUDA_SUCCESS;
}
CUresult FakeStreamDestroy(CUstream s) {
  delete reinterpret_cast<int*>(s);
  return CUDA_SUCCESS;
}
CUresult FakeStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
CUresult FakeModuleLoadDataEx(CUmodule* m, const void* image, unsigned int, CUjit_option*, void**) {
  std::lock_guard<std::mutex> lock(mu);
  last_image = static_cast<const char*>(image);
  auto* held = new std::string(last_image);
  images.insert(held);
  *m = reinterpret_cast<CUmodule>(held);
  return CUDA_SUCCESS;
}
CUresult FakeModuleUnload(CUmodule m) {
  std::lock_guard<std::mutex> lock(mu);
  auto* image = reinterpret_cast<std::string*>(m);
  if (images.erase(image) == 0) return CUDA_ERROR_INVALID_HANDLE;
  for (auto it = functions.begin(); it != functions.end();) {
    if (std::get<0>(it->first) == image) {
      delete it->second;
      it = functions.erase(it);
    } else {
      ++it;
    }
  }
  delete image;
  return CUDA_SUCCESS;
}
CUresult FakeModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  std::lock_guard<std::mutex> lock(mu);
  auto* image = reinterpret_cast<std::string*>(m);
  if (images.count(image) == 0) return CUDA_ERROR_INVALID_HANDLE;
  if (image->find(std::string(".entry ") + name) == std::string::npos) return CUDA_ERROR_NOT_FOUND;
  FakeFunction*& function = functions[{image, name}];
  if (function == nullptr) function = new FakeFunction{name, image};
  *f = reinterpret_cast<CUfunction>(function);
  return CUDA_SUCCESS;
}
CUresult FakeLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned, CUstream, void** params, void**) {
  ++launches;
  const auto* function = reinterpret_cast<const FakeFunction*>(f);
  if (KernelRunner runner = kernel_runner.load(); runner != nullptr) {
    const unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
    return runner(function->image->c_str(), function->name.c_str(), grid, block, params, runner_context.load()) == 0
               ? CUDA_SUCCESS
               : CUDA_ERROR_LAUNCH_FAILED;
  }
  LaunchHandler handler = launch_handler.load();
  if (handler == nullptr) return CUDA_ERROR_NOT_SUPPORTED;  // the fake runs no device code
  return handler(function->name.c_str(), params, launch_context.load()) == 0 ? CUDA_SUCCESS
                                                                             : CUDA_ERROR_LAUNCH_FAILED;
}
CUresult FakeGetErrorName(CUresult r, const char** s) {
  switch (r) {
    case CUDA_ERROR_NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_SUPPORTED: *s = "CUDA_ERROR_NOT_SUPPORTED"; return CUDA_SUCCESS;
    case CUDA_ERROR_LAUNCH_FAILED: *s = "CUDA_ERROR_LAUNCH_FAILED"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_HANDLE: *s = "CUDA_ERROR_INVALID_HANDLE"; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}
CUresult FakeGetErrorString(CUresult r, const char** s) {
  switch (r) {
    case CUDA_ERROR_NO_DEVICE: *s = "no CUDA-capable device is detected"; return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "out of memory"; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}
// Every other entry point: resolvable, never called by the tests.
CUresult FakeNotSupported() { return CUDA_ERROR_NOT_SUPPORTED; }

}  // namespace

extern "C" __attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(
    const char* symbol, void** pfn, int, cuuint64_t, CUdriverProcAddressQueryResult* status) {
  struct Entry {
    const char* name;
    void* fn;
  };
  static const Entry kEntries[] = {
      {"cuInit", reinterpret_cast<void*>(&FakeInit)},
      {"cuDriverGetVersion", reinterpret_cast<void*>(&FakeDriverGetVersion)},
      {"cuDeviceGetCount", reinterpret_cast<void*>(&FakeDeviceGetCount)},
      {"cuGetErrorName", reinterpret_cast<void*>(&FakeGetErrorName)},
      {"cuGetErrorString", reinterpret_cast<void*>(&FakeGetErrorString)},
      {"cuDeviceGet", reinterpret_cast<void*>(&FakeDeviceGet)},
      {"cuDeviceGetName", reinterpret_cast<void*>(&FakeDeviceGetName)},
      {"cuDeviceTotalMem", reinterpret_cast<void*>(&FakeDeviceTotalMem)},
      {"cuDeviceGetAttribute", reinterpret_cast<void*>(&FakeDeviceGetAttribute)},
      {"cuDevicePrimaryCtxRetain", reinterpret_cast<void*>(&FakePrimaryCtxRetain)},
      {"cuDevicePrimaryCtxRelease", reinterpret_cast<void*>(&FakePrimaryCtxRelease)},
      {"cuCtxSetCurrent", reinterpret_cast<void*>(&FakeCtxSetCurrent)},
      {"cuMemAlloc", reinterpret_cast<void*>(&FakeMemAlloc)},
      {"cuMemFree", reinterpret_cast<void*>(&FakeMemFree)},
      {"cuMemcpyHtoDAsync", reinterpret_cast<void*>(&FakeMemcpyHtoD)},
      {"cuMemcpyDtoHAsync", reinterpret_cast<void*>(&FakeMemcpyDtoH)},
      {"cuMemsetD8Async", reinterpret_cast<void*>(&FakeMemsetD8)},
      {"cuStreamCreate", reinterpret_cast<void*>(&FakeStreamCreate)},
      {"cuStreamDestroy", reinterpret_cast<void*>(&FakeStreamDestroy)},
      {"cuStreamSynchronize", reinterpret_cast<void*>(&FakeStreamSynchronize)},
      {"cuModuleLoadDataEx", reinterpret_cast<void*>(&FakeModuleLoadDataEx)},
      {"cuModuleUnload", reinterpret_cast<void*>(&FakeModuleUnload)},
      {"cuModuleGetFunction", reinterpret_cast<void*>(&FakeModuleGetFunction)},
      {"cuLaunchKernel", reinterpret_cast<void*>(&FakeLaunchKernel)},
  };
  *pfn = nullptr;
  if (std::strcmp(Mode(), "missing_entry") == 0 && std::strcmp(symbol, "cuLaunchKernel") == 0) {
    *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  *status = CU_GET_PROC_ADDRESS_SUCCESS;
  for (const Entry& e : kEntries) {
    if (std::strcmp(symbol, e.name) == 0) {
      *pfn = e.fn;
      return CUDA_SUCCESS;
    }
  }
  *pfn = reinterpret_cast<void*>(&FakeNotSupported);
  return CUDA_SUCCESS;
}

// Test hooks (looked up with dlsym by gpu_backend_test).
extern "C" __attribute__((visibility("default"))) int xla_fake_cuda_live_allocations() {
  std::lock_guard<std::mutex> lock(mu);
  return static_cast<int>(allocations.size());
}
extern "C" __attribute__((visibility("default"))) int xla_fake_cuda_launches() { return launches.load(); }
extern "C" __attribute__((visibility("default"))) const char* xla_fake_cuda_last_image() {
  std::lock_guard<std::mutex> lock(mu);
  return last_image.c_str();
}
extern "C" __attribute__((visibility("default"))) int xla_fake_cuda_device_to_host_copies() {
  return device_to_host_copies.load();
}
// `handler` (null: none) runs each launched kernel in place of the device: the parameters
// are pointers to the kernel's CUdeviceptr arguments, which are host addresses here.
extern "C" __attribute__((visibility("default"))) void xla_fake_cuda_set_launch_handler(LaunchHandler handler,
                                                                                      void* context) {
  launch_context.store(context);
  launch_handler.store(handler);
}
// `runner` (null: none) runs each launched kernel in place of the device, before any launch
// handler: it gets the PTX the kernel's module was loaded from, the launch's grid and block
// dimensions, and the parameters as a launch handler does (kernel_emulator.h is one).
extern "C" __attribute__((visibility("default"))) void xla_fake_cuda_set_kernel_runner(KernelRunner runner,
                                                                                     void* context) {
  runner_context.store(context);
  kernel_runner.store(runner);
}
