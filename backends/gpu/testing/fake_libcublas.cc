// A stand-in for libcublas in tests (no GPU): the gpu backend's dots go through
// cublasGemmStridedBatchedEx as on a GPU, with its column-major conventions, operations,
// leading dimensions, strides, data and compute types, and this computes the product on the
// host: the fake driver's device memory is host memory. The product is queued on the
// handle's stream through the fake driver (xla_fake_cublas_set_submit), so that it runs in
// order with the kernels around it. Products accumulate in double; CUBLAS_COMPUTE_32F_FAST_TF32
// first rounds the inputs to TF32 (10-bit mantissas), as the tensor cores read them.

#include <cublas_api.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

struct FakeHandle {
  cudaStream_t stream = nullptr;
};

using SubmitFn = int (*)(void* stream, int (*work)(void*), void* context);
std::atomic<SubmitFn> submit{nullptr};
std::atomic<int> gemms{0};

float Bits32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint32_t FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}
// Rounds away the low `drop` bits of a float's mantissa, to nearest even (NaN and inf kept).
float RoundMantissa(float f, int drop) {
  if (!std::isfinite(f)) return f;
  const uint32_t bits = FloatBits(f);
  const uint32_t half = (1u << (drop - 1)) - 1 + ((bits >> drop) & 1);
  return Bits32(((bits + half) >> drop) << drop);
}

double Read(const void* base, int64_t i, cudaDataType type, bool tf32) {
  switch (type) {
    case CUDA_R_64F: return static_cast<const double*>(base)[i];
    case CUDA_R_32F: {
      const float f = static_cast<const float*>(base)[i];
      return tf32 ? RoundMantissa(f, 13) : f;
    }
    case CUDA_R_16BF: return Bits32(static_cast<uint32_t>(static_cast<const uint16_t*>(base)[i]) << 16);
    case CUDA_R_16F: return static_cast<double>(static_cast<const _Float16*>(base)[i]);
    default: return std::nan("");
  }
}

void Write(void* base, int64_t i, cudaDataType type, double v) {
  switch (type) {
    case CUDA_R_64F: static_cast<double*>(base)[i] = v; break;
    case CUDA_R_32F: static_cast<float*>(base)[i] = static_cast<float>(v); break;
    case CUDA_R_16BF: {
      const float f = static_cast<float>(v);
      static_cast<uint16_t*>(base)[i] =
          std::isnan(f) ? uint16_t{0x7fc0} : static_cast<uint16_t>(FloatBits(RoundMantissa(f, 16)) >> 16);
      break;
    }
    case CUDA_R_16F: static_cast<_Float16*>(base)[i] = static_cast<_Float16>(static_cast<float>(v)); break;
    default: break;
  }
}

struct Gemm {
  cublasOperation_t ta, tb;
  int m, n, k;
  double alpha, beta;
  const void* a;
  cudaDataType a_type;
  int lda;
  long long stride_a;
  const void* b;
  cudaDataType b_type;
  int ldb;
  long long stride_b;
  void* c;
  cudaDataType c_type;
  int ldc;
  long long stride_c;
  int batch;
  bool tf32;
};

int RunGemm(void* context) {
  const Gemm* g = static_cast<const Gemm*>(context);
  for (int p = 0; p < g->batch; ++p) {
    const int64_t a0 = p * g->stride_a, b0 = p * g->stride_b, c0 = p * g->stride_c;
    for (int j = 0; j < g->n; ++j) {
      for (int i = 0; i < g->m; ++i) {
        double sum = 0;
        for (int l = 0; l < g->k; ++l) {
          const int64_t ai = g->ta == CUBLAS_OP_N ? i + int64_t{l} * g->lda : l + int64_t{i} * g->lda;
          const int64_t bi = g->tb == CUBLAS_OP_N ? l + int64_t{j} * g->ldb : j + int64_t{l} * g->ldb;
          sum += Read(g->a, a0 + ai, g->a_type, g->tf32) * Read(g->b, b0 + bi, g->b_type, g->tf32);
        }
        const int64_t ci = c0 + i + int64_t{j} * g->ldc;
        double out = g->alpha * sum;
        if (g->beta != 0) out += g->beta * Read(g->c, ci, g->c_type, false);
        Write(g->c, ci, g->c_type, out);
      }
    }
  }
  delete g;
  return 0;
}

}  // namespace

#define FAKE_CUBLAS_EXPORT extern "C" __attribute__((visibility("default")))

FAKE_CUBLAS_EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  *handle = reinterpret_cast<cublasHandle_t>(new FakeHandle);
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_CUBLAS_EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  delete reinterpret_cast<FakeHandle*>(handle);
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_CUBLAS_EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  reinterpret_cast<FakeHandle*>(handle)->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}
FAKE_CUBLAS_EXPORT const char* cublasGetStatusString(cublasStatus_t status) {
  return status == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : "fake cuBLAS failure";
}
FAKE_CUBLAS_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const void* alpha,
    const void* a, cudaDataType a_type, int lda, long long stride_a, const void* b, cudaDataType b_type, int ldb,
    long long stride_b, const void* beta, void* c, cudaDataType c_type, int ldc, long long stride_c, int batch,
    cublasComputeType_t compute, cublasGemmAlgo_t) {
  const SubmitFn run = submit.load();
  if (handle == nullptr || run == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  const bool wide = compute == CUBLAS_COMPUTE_64F;
  if (m < 0 || n < 0 || k < 0 || batch < 0 || lda < (ta == CUBLAS_OP_N ? m : k) ||
      ldb < (tb == CUBLAS_OP_N ? k : n) || ldc < m || (wide != (a_type == CUDA_R_64F))) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  auto* g = new Gemm{ta, tb, m, n, k,
                     wide ? *static_cast<const double*>(alpha) : *static_cast<const float*>(alpha),
                     wide ? *static_cast<const double*>(beta) : *static_cast<const float*>(beta),
                     a, a_type, lda, stride_a, b, b_type, ldb, stride_b, c, c_type, ldc, stride_c, batch,
                     compute == CUBLAS_COMPUTE_32F_FAST_TF32};
  ++gemms;
  if (run(reinterpret_cast<FakeHandle*>(handle)->stream, &RunGemm, g) != 0) {
    delete g;
    return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  return CUBLAS_STATUS_SUCCESS;
}

// Test hooks: how products reach the fake driver's streams (xla_fake_cuda_submit), and how
// many were asked for so far.
FAKE_CUBLAS_EXPORT void xla_fake_cublas_set_submit(SubmitFn fn) { submit.store(fn); }
FAKE_CUBLAS_EXPORT int xla_fake_cublas_gemms() { return gemms.load(); }
