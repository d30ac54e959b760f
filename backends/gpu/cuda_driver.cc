#include "backends/gpu/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "absl/strings/str_cat.h"

namespace xla {
namespace gpu {
namespace {

// cuGetProcAddress as drivers since CUDA 12.0 export it (the 5-argument form).
using GetProcAddressFn = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

std::string DlError() {
  const char* e = dlerror();
  return e == nullptr ? "unknown dlopen error" : e;
}

}  // namespace

absl::StatusOr<const CudaDriver*> CudaDriver::Load(const std::string& path) {
  std::string library = path;
  if (library.empty()) {
    const char* env = std::getenv("XLA_GPU_LIBCUDA");
    library = env != nullptr && *env != '\0' ? env : "libcuda.so.1";
  }
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace; never closed, since
  // the driver keeps threads and state for the life of the process.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("gpu: the CUDA driver library ", library, " could not be loaded (", DlError(),
                     "); is an NVIDIA driver installed?"));
  }
  auto get_proc = reinterpret_cast<GetProcAddressFn>(dlsym(handle, "cuGetProcAddress_v2"));
  if (get_proc == nullptr) {
    dlclose(handle);
    return absl::UnavailableError(absl::StrCat("gpu: ", library,
                                               " has no cuGetProcAddress_v2: not a CUDA driver of "
                                               "version 12.0 or later"));
  }
  std::unique_ptr<CudaDriver> driver(new CudaDriver());
  driver->library_ = library;
  std::string missing;
#define XLA_CUDA_RESOLVE_ENTRY(name)                                                          \
  {                                                                                           \
    void* fn = nullptr;                                                                       \
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;              \
    if (get_proc(#name, &fn, kCudaApiVersion, CU_GET_PROC_ADDRESS_DEFAULT, &found) ==         \
            CUDA_SUCCESS &&                                                                   \
        found == CU_GET_PROC_ADDRESS_SUCCESS && fn != nullptr) {                              \
      driver->name = reinterpret_cast<decltype(driver->name)>(fn);                            \
    } else {                                                                                  \
      absl::StrAppend(&missing, missing.empty() ? "" : ", ", #name);                          \
    }                                                                                         \
  }
  XLA_CUDA_DRIVER_ENTRY_POINTS(XLA_CUDA_RESOLVE_ENTRY)
#undef XLA_CUDA_RESOLVE_ENTRY
  if (!missing.empty()) {
    dlclose(handle);
    return absl::UnavailableError(
        absl::StrCat("gpu: ", library, " lacks driver entry points for CUDA ", kCudaApiVersion / 1000, ".",
                     kCudaApiVersion % 1000 / 10, ": ", missing));
  }
  const CUresult init = driver->cuInit(0);
  if (init != CUDA_SUCCESS) {
    absl::Status s = driver->ToStatus(init, "cuInit");
    // Leave the library loaded: a driver that failed to initialize may have started threads.
    return absl::UnavailableError(absl::StrCat("gpu: ", library, ": ", s.message()));
  }
  if (driver->cuDriverGetVersion(&driver->driver_version_) != CUDA_SUCCESS) driver->driver_version_ = 0;
  return driver.release();  // lives for the process, like the library
}

absl::StatusOr<const CudaDriver*> CudaDriver::Default() {
  static std::once_flag once;
  static absl::StatusOr<const CudaDriver*>* loaded = nullptr;
  std::call_once(once, [] { loaded = new absl::StatusOr<const CudaDriver*>(Load()); });
  return *loaded;
}

absl::Status CudaDriver::ToStatus(CUresult result, const char* call) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName == nullptr || cuGetErrorName(result, &name) != CUDA_SUCCESS) name = nullptr;
  if (cuGetErrorString == nullptr || cuGetErrorString(result, &text) != CUDA_SUCCESS) text = nullptr;
  // `call` may be a whole call expression (CUDA_RETURN_IF_ERROR): name the function only.
  const std::string function = std::string(call).substr(0, std::string(call).find('('));
  std::string message = absl::StrCat(function, ": ", name != nullptr ? name : absl::StrCat("CUresult ", result));
  if (text != nullptr) absl::StrAppend(&message, " (", text, ")");
  switch (result) {
    case CUDA_ERROR_OUT_OF_MEMORY:
      return absl::ResourceExhaustedError(message);
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
      return absl::UnavailableError(message);
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_INVALID_IMAGE:
      return absl::InvalidArgumentError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace gpu
}  // namespace xla
