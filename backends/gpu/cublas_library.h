#ifndef XLA_BACKENDS_GPU_CUBLAS_LIBRARY_H_
#define XLA_BACKENDS_GPU_CUBLAS_LIBRARY_H_

// cuBLAS, loaded lazily with dlopen (never linked): the gpu backend's dots run through
// cublasGemmStridedBatchedEx when it loads, and through the emitted kernel otherwise.
// $XLA_GPU_LIBCUBLAS names the library; else libcublas.so.13, .12, then libcublas.so.

#include <cublas_api.h>

#include <string>

#include "absl/status/statusor.h"

namespace xla {
namespace gpu {

struct CublasLibrary {
  using CreateFn = cublasStatus_t (*)(cublasHandle_t*);
  using DestroyFn = cublasStatus_t (*)(cublasHandle_t);
  using SetStreamFn = cublasStatus_t (*)(cublasHandle_t, cudaStream_t);
  using GetStatusStringFn = const char* (*)(cublasStatus_t);
  using GemmStridedBatchedExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                                    int, const void*, const void*, cudaDataType, int, long long,
                                                    const void*, cudaDataType, int, long long, const void*, void*,
                                                    cudaDataType, int, long long, int, cublasComputeType_t,
                                                    cublasGemmAlgo_t);

  std::string library;
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  SetStreamFn set_stream = nullptr;
  GetStatusStringFn status_string = nullptr;
  GemmStridedBatchedExFn gemm_strided_batched = nullptr;

  // The process's cuBLAS, loaded once; UNAVAILABLE (the same every call) saying why not.
  static absl::StatusOr<const CublasLibrary*> Default();

  // "cublasGemmStridedBatchedEx: CUBLAS_STATUS_..." as an INTERNAL status.
  absl::Status ToStatus(cublasStatus_t status, const char* call) const;
};

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_CUBLAS_LIBRARY_H_
