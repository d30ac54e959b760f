#ifndef XLA_BACKENDS_GPU_CUDA_DRIVER_H_
#define XLA_BACKENDS_GPU_CUDA_DRIVER_H_

// The CUDA driver API, loaded at run time (issue 7): libcuda is opened with dlopen and every
// entry point is resolved through cuGetProcAddress, never linked, so binaries built here run
// on machines with no driver (the "gpu" platform then reports itself unavailable).
//
// Entry points are resolved for the driver ABI of CUDA 12.0 (kCudaApiVersion): cuda.h's
// names (cuMemAlloc -> cuMemAlloc_v2, ...) give the matching signatures.
//
// Thread-safety: a loaded CudaDriver is immutable and shared; the driver's own functions are
// thread-safe as the CUDA documentation states.

#include <cuda.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace xla {
namespace gpu {

inline constexpr int kCudaApiVersion = 12000;

// Every driver entry point the backend uses: X(name) declares `decltype(&::name) name`.
#define XLA_CUDA_DRIVER_ENTRY_POINTS(X) \
  X(cuInit)                             \
  X(cuDriverGetVersion)                 \
  X(cuGetErrorName)                     \
  X(cuGetErrorString)                   \
  X(cuDeviceGetCount)                   \
  X(cuDeviceGet)                        \
  X(cuDeviceGetName)                    \
  X(cuDeviceTotalMem)                   \
  X(cuDeviceGetAttribute)               \
  X(cuDevicePrimaryCtxRetain)           \
  X(cuDevicePrimaryCtxRelease)          \
  X(cuCtxSetCurrent)                    \
  X(cuMemAlloc)                         \
  X(cuMemFree)                          \
  X(cuMemAllocHost)                     \
  X(cuMemFreeHost)                      \
  X(cuMemcpyHtoDAsync)                  \
  X(cuMemcpyDtoHAsync)                  \
  X(cuMemcpyDtoDAsync)                  \
  X(cuMemsetD8Async)                    \
  X(cuModuleLoadDataEx)                 \
  X(cuModuleUnload)                     \
  X(cuModuleGetFunction)                \
  X(cuLaunchKernel)                     \
  X(cuStreamCreate)                     \
  X(cuStreamDestroy)                    \
  X(cuStreamSynchronize)                \
  X(cuEventCreate)                      \
  X(cuEventDestroy)                     \
  X(cuEventRecord)                      \
  X(cuEventQuery)                       \
  X(cuEventSynchronize)

class CudaDriver {
 public:
  // Opens the driver library (`path`; empty: $XLA_GPU_LIBCUDA, else "libcuda.so.1"), resolves
  // every entry point and calls cuInit. UNAVAILABLE, naming the library and the cause, when
  // it is missing, is not a CUDA driver, lacks an entry point or cuInit fails (no device,
  // driver too old, ...). The library stays loaded for the life of the process.
  static absl::StatusOr<const CudaDriver*> Load(const std::string& path = "");

  // The process's driver, loaded once from the default path; the same error every call.
  static absl::StatusOr<const CudaDriver*> Default();

  const std::string& library() const { return library_; }
  int driver_version() const { return driver_version_; }

#define XLA_CUDA_DECLARE_ENTRY(name) decltype(&::name) name = nullptr;
  XLA_CUDA_DRIVER_ENTRY_POINTS(XLA_CUDA_DECLARE_ENTRY)
#undef XLA_CUDA_DECLARE_ENTRY

  // "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)" as a Status: resource errors are
  // RESOURCE_EXHAUSTED, a missing device UNAVAILABLE, bad arguments INVALID_ARGUMENT, other
  // failures INTERNAL.
  absl::Status ToStatus(CUresult result, const char* call) const;

 private:
  CudaDriver() = default;

  std::string library_;
  int driver_version_ = 0;
};

}  // namespace gpu
}  // namespace xla

// Returns from the enclosing function (Status or StatusOr) when a driver call fails.
#define CUDA_RETURN_IF_ERROR(driver, call)                                        \
  do {                                                                            \
    const CUresult xla_cuda_result_ = (driver)->call;                             \
    if (xla_cuda_result_ != CUDA_SUCCESS) {                                       \
      return (driver)->ToStatus(xla_cuda_result_, #call);                         \
    }                                                                             \
  } while (0)

#endif  // XLA_BACKENDS_GPU_CUDA_DRIVER_H_
