#ifndef XLA_BACKENDS_CPU_RUNTIME_GEMM_H_
#define XLA_BACKENDS_CPU_RUNTIME_GEMM_H_

// The descriptors generated code hands __xla_cpu_dot and __xla_cpu_conv (runtime/gemm.cc,
// runtime/conv_gemm.cc): constant i64 arrays the code generator (codegen/gemm_plan.cc) fills,
// indexed by these fields. Types are xla::PrimitiveType values.

#include <cstddef>
#include <cstdint>

namespace xla {
namespace cpu {

// A batch of row-major products C_i[m,n] = op(A_i) op(B_i), i < batch, where A_i starts
// stride_a elements after A_{i-1} (likewise B, C) and C_i's rows are n apart. op(A) is m x k:
// stored [m][k] with rows lda apart when trans_a is 0, else stored [k][m]; op(B) is k x n:
// [k][n] (ldb) when trans_b is 0, else [n][k].
enum DotField : int {
  kDotLhsType,
  kDotRhsType,
  kDotOutType,
  kDotBatch,
  kDotM,
  kDotN,
  kDotK,
  kDotTransA,
  kDotLda,
  kDotStrideA,
  kDotTransB,
  kDotLdb,
  kDotStrideB,
  kDotStrideC,
  kDotFields,
};

// A convolution over f32 or f64 arrays of one type (runtime/conv_gemm.cc: GEMMs over an
// im2col matrix or shifted grids, or direct sums for batch groups and small feature groups):
// the header, then kConvSpatialFields words per spatial dimension. Strides are in elements,
// per logical dimension, under each array's layout. kConvBatch is the input's batch (the
// output's times kConvBatchGroups).
enum ConvField : int {
  kConvType,
  kConvSpatialRank,
  kConvBatch,
  kConvInputFeatures,   // all groups
  kConvOutputFeatures,  // all groups
  kConvFeatureGroups,
  kConvInputBatchStride,
  kConvInputFeatureStride,
  kConvKernelInputStride,
  kConvKernelOutputStride,
  kConvOutputBatchStride,
  kConvOutputFeatureStride,
  kConvBatchGroups,
  kConvHeaderFields,
};
enum ConvSpatialField : int {
  kConvInputSize,
  kConvInputStride,
  kConvKernelSize,
  kConvKernelStride,
  kConvOutputSize,
  kConvOutputStride,
  kConvWindowStride,
  kConvPadLow,
  kConvBaseDilation,
  kConvWindowDilation,
  kConvReversal,
  kConvSpatialFields,
};

// Whether __xla_cpu_conv computes the convolution `descriptor` describes as GEMMs over
// shifted copies of its operands (runtime/conv_gemm.cc ShiftedGridConv: windows covering
// nearly all of their input, as kernel gradients) when both operands are finite, rather than
// through an im2col matrix.
bool ConvUsesShiftedGrids(const int64_t* descriptor);

// Row-major C[m,n] = op(A) op(B) (+ C when accumulate) through OpenBLAS (T: float or double):
// op(A) is m x k, stored [m][k] with rows lda apart, or [k][m] when trans_a; op(B) is k x n,
// [k][n] (ldb), or [n][k] when trans_b; C's rows are ldc apart. A product of more than
// kGemmPanelMacs multiply-adds goes in panels of rows, and the panels left (all of them, for a
// product of kStopCheckWork or more) are skipped once the execution is stopping (runtime.h
// ExecutionStopping), so that a huge product, or a routine's many, can be cancelled.
template <typename T>
void BlasGemm(int64_t m, int64_t n, int64_t k, const T* a, bool trans_a, int64_t lda, const T* b, bool trans_b,
              int64_t ldb, T* c, int64_t ldc, bool accumulate = false);
inline constexpr int64_t kGemmPanelMacs = int64_t{1} << 30;

// A buffer of at least `bytes` (64-byte aligned) owned by the calling thread, slot `which` of
// a few: kept and reused by later calls on the thread (fresh pages cost far more to write
// than reused ones), valid until the thread's next request for the same slot.
void* ThreadScratch(int which, size_t bytes);
// Frees the calling thread's scratch buffers larger than a few MiB (the routines call it
// when done, so one large op does not leave its scratch held by every thread for good).
void TrimThreadScratch();

}  // namespace cpu
}  // namespace xla

extern "C" {
// Computes the products `descriptor` (DotField) describes: f32/f64 through OpenBLAS
// (bf16/f16 operands or results converted to and from f32 around sgemm, as XLA's CPU backend
// does); integers with wrap-around products and sums in the result type (blocked loops here).
void __xla_cpu_dot(const int64_t* descriptor, const void* a, const void* b, void* c);
// The convolution `descriptor` (ConvField) describes, through im2col and OpenBLAS.
void __xla_cpu_conv(const int64_t* descriptor, const void* input, const void* kernel, void* output);
}

#endif  // XLA_BACKENDS_CPU_RUNTIME_GEMM_H_
