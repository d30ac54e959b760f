#include "backends/gpu/cublas_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xla {
namespace gpu {
namespace {

absl::StatusOr<const CublasLibrary*> Load() {
  std::vector<std::string> candidates;
  const char* env = std::getenv("XLA_GPU_LIBCUBLAS");
  if (env != nullptr && *env != '\0') {
    candidates.push_back(env);
  } else {
    candidates = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
  }
  std::string errors;
  for (const std::string& name : candidates) {
    void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* e = dlerror();
      absl::StrAppend(&errors, errors.empty() ? "" : "; ", e != nullptr ? e : name);
      continue;
    }
    auto lib = std::make_unique<CublasLibrary>();
    lib->library = name;
    lib->create = reinterpret_cast<CublasLibrary::CreateFn>(dlsym(handle, "cublasCreate_v2"));
    lib->destroy = reinterpret_cast<CublasLibrary::DestroyFn>(dlsym(handle, "cublasDestroy_v2"));
    lib->set_stream = reinterpret_cast<CublasLibrary::SetStreamFn>(dlsym(handle, "cublasSetStream_v2"));
    lib->status_string = reinterpret_cast<CublasLibrary::GetStatusStringFn>(dlsym(handle, "cublasGetStatusString"));
    lib->gemm_strided_batched =
        reinterpret_cast<CublasLibrary::GemmStridedBatchedExFn>(dlsym(handle, "cublasGemmStridedBatchedEx"));
    if (lib->create == nullptr || lib->destroy == nullptr || lib->set_stream == nullptr ||
        lib->gemm_strided_batched == nullptr) {
      dlclose(handle);
      absl::StrAppend(&errors, errors.empty() ? "" : "; ", name, " lacks cublasCreate_v2, cublasDestroy_v2, ",
                      "cublasSetStream_v2 or cublasGemmStridedBatchedEx");
      continue;
    }
    return lib.release();  // stays loaded with the library, for the process
  }
  return absl::UnavailableError(absl::StrCat("gpu: cuBLAS could not be loaded (", errors, ")"));
}

}  // namespace

absl::StatusOr<const CublasLibrary*> CublasLibrary::Default() {
  static std::once_flag once;
  static absl::StatusOr<const CublasLibrary*>* loaded = nullptr;
  std::call_once(once, [] { loaded = new absl::StatusOr<const CublasLibrary*>(Load()); });
  return *loaded;
}

absl::Status CublasLibrary::ToStatus(cublasStatus_t status, const char* call) const {
  const char* text = status_string != nullptr ? status_string(status) : nullptr;
  return absl::InternalError(
      absl::StrCat(call, ": ", text != nullptr ? text : absl::StrCat("cublasStatus_t ", static_cast<int>(status))));
}

}  // namespace gpu
}  // namespace xla
