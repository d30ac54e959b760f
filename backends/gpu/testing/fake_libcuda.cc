// A stand-in for libcuda.so.1 in tests of the driver loader's failure paths (no GPU needed).
// It exports cuGetProcAddress_v2 only, as the real driver's loader entry; $XLA_FAKE_CUDA_MODE
// picks the behaviour: "ok" (two devices), "no_device" (cuInit fails as on a machine without
// GPUs), "missing_entry" (cuLaunchKernel cannot be resolved).
#include <cuda.h>

#include <cstdlib>
#include <cstring>

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
CUresult FakeDeviceGetCount(int* n) {
  *n = 2;
  return CUDA_SUCCESS;
}
CUresult FakeGetErrorName(CUresult r, const char** s) {
  switch (r) {
    case CUDA_ERROR_NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return CUDA_SUCCESS;
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
