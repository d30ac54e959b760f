// __xla_cpu_dot: batched matrix products for dots the code generator lays out as matrices
// (codegen/gemm_plan.cc). f32/f64 go to OpenBLAS one batch element at a time; bf16/f16
// operands are widened to f32 in thread-local buffers first and results rounded once (XLA's
// CPU backend upcasts them the same way); integers use the blocked loops below, in unsigned
// arithmetic of the accumulator width, which is the wrap-around the interpreter computes
// (products and sums in the result type, operands converted to it first).
#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "backends/cpu/runtime/gemm.h"
#include "backends/cpu/runtime/runtime.h"
#include "hlo/float_types.h"
#include "proto/xla_data.pb.h"

namespace xla {
namespace cpu {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// --- element conversions (hlo/float_types.h: the rounding literals and the interpreter use) ---

// `count` elements of float type `type` (F32, BF16, F16) as f32.
void WidenToF32(int64_t type, const void* in, int64_t count, float* out) {
  if (type == F32) {
    std::memcpy(out, in, count * sizeof(float));
    return;
  }
  const uint16_t* bits = static_cast<const uint16_t*>(in);
  if (type == BF16) {
    for (int64_t i = 0; i < count; ++i) out[i] = Bfloat16ToFloat(bits[i]);
  } else {
    for (int64_t i = 0; i < count; ++i) out[i] = HalfToFloat(bits[i]);
  }
}

void NarrowFromF32(int64_t type, const float* in, int64_t count, void* out) {
  uint16_t* bits = static_cast<uint16_t*>(out);
  if (type == BF16) {
    for (int64_t i = 0; i < count; ++i) bits[i] = FloatToBfloat16(in[i]);
  } else {
    for (int64_t i = 0; i < count; ++i) bits[i] = FloatToHalf(in[i]);
  }
}

// --- floats ---

template <typename T>
void BatchedGemm(const int64_t* d, const T* a, const T* b, T* c) {
  StopCheck stop;
  for (int64_t i = 0; i < d[kDotBatch]; ++i) {
    if (i > 0 && stop.Done(d[kDotM] * d[kDotN] * std::max<int64_t>(d[kDotK], 1))) return;
    BlasGemm<T>(d[kDotM], d[kDotN], d[kDotK], a + i * d[kDotStrideA], d[kDotTransA] != 0, d[kDotLda],
                b + i * d[kDotStrideB], d[kDotTransB] != 0, d[kDotLdb], c + i * d[kDotStrideC], d[kDotN]);
  }
}

// bf16/f16 anywhere among the three: widen what is narrow, sgemm, round the result once.
void NarrowFloatDot(const int64_t* d, const void* a, const void* b, void* c) {
  const int64_t a_count = d[kDotBatch] * d[kDotStrideA], b_count = d[kDotBatch] * d[kDotStrideB];
  const int64_t c_count = d[kDotBatch] * d[kDotStrideC];
  const float* fa = static_cast<const float*>(a);
  const float* fb = static_cast<const float*>(b);
  float* fc = static_cast<float*>(c);
  if (d[kDotLhsType] != F32) {
    float* buffer = static_cast<float*>(ThreadScratch(0, a_count * sizeof(float)));
    WidenToF32(d[kDotLhsType], a, a_count, buffer);
    fa = buffer;
  }
  if (d[kDotRhsType] != F32) {
    float* buffer = static_cast<float*>(ThreadScratch(1, b_count * sizeof(float)));
    WidenToF32(d[kDotRhsType], b, b_count, buffer);
    fb = buffer;
  }
  if (d[kDotOutType] != F32) fc = static_cast<float*>(ThreadScratch(2, c_count * sizeof(float)));
  BatchedGemm<float>(d, fa, fb, fc);
  if (d[kDotOutType] != F32) NarrowFromF32(d[kDotOutType], fc, c_count, c);
}

// --- integers ---

// C[i0..i1) rows of C[m][n] = A[m][k] B[k][n], all row-major, wrapping. Blocked so that a
// block of B stays in cache while the rows pass over it, four rows of B per pass over a row
// of C; the inner loop is contiguous and vectorizes (one clone per ISA; at -O3, since GCC's
// -O2 only vectorizes loops that need no remainder).
#define XLA_INT_KERNEL(NAME, U)                                                                               \
  __attribute__((target_clones("arch=skylake-avx512", "avx2", "default"), optimize("O3"))) void NAME(                        \
      const U* __restrict a, const U* __restrict b, U* __restrict c, int64_t i0, int64_t i1, int64_t n,          \
      int64_t k) {                                                                                             \
    constexpr int64_t kRowBlock = 1024, kDepthBlock = 128;                                                     \
    for (int64_t i = i0; i < i1; ++i) std::fill(c + i * n, c + (i + 1) * n, U(0));                             \
    for (int64_t j0 = 0; j0 < n; j0 += kRowBlock) {                                                            \
      const int64_t j1 = std::min(n, j0 + kRowBlock);                                                          \
      for (int64_t p0 = 0; p0 < k; p0 += kDepthBlock) {                                                        \
        const int64_t p1 = std::min(k, p0 + kDepthBlock);                                                      \
        for (int64_t i = i0; i < i1; ++i) {                                                                    \
          U* __restrict row = c + i * n;                                                                       \
          const U* ai = a + i * k;                                                                             \
          int64_t p = p0;                                                                                      \
          for (; p + 4 <= p1; p += 4) {                                                                        \
            const U x0 = ai[p], x1 = ai[p + 1], x2 = ai[p + 2], x3 = ai[p + 3];                                \
            const U* __restrict b0 = b + p * n;                                                                \
            const U* __restrict b1 = b0 + n;                                                                   \
            const U* __restrict b2 = b1 + n;                                                                   \
            const U* __restrict b3 = b2 + n;                                                                   \
            for (int64_t j = j0; j < j1; ++j) row[j] += x0 * b0[j] + x1 * b1[j] + x2 * b2[j] + x3 * b3[j];     \
          }                                                                                                    \
          for (; p < p1; ++p) {                                                                                \
            const U x = ai[p];                                                                                 \
            const U* __restrict bp = b + p * n;                                                                \
            for (int64_t j = j0; j < j1; ++j) row[j] += x * bp[j];                                             \
          }                                                                                                    \
        }                                                                                                      \
      }                                                                                                        \
    }                                                                                                          \
  }
XLA_INT_KERNEL(IntKernel32, uint32_t)
XLA_INT_KERNEL(IntKernel64, uint64_t)
#undef XLA_INT_KERNEL

void IntKernel(const uint32_t* a, const uint32_t* b, uint32_t* c, int64_t i0, int64_t i1, int64_t n, int64_t k) {
  IntKernel32(a, b, c, i0, i1, n, k);
}
void IntKernel(const uint64_t* a, const uint64_t* b, uint64_t* c, int64_t i0, int64_t i1, int64_t n, int64_t k) {
  IntKernel64(a, b, c, i0, i1, n, k);
}

// Element `i` of an integer array of `type`, sign- or zero-extended as its type says, then
// taken modulo 2^width(U) (converting to the result type first gives the same residue).
template <typename U>
U LoadInt(int64_t type, const void* p, int64_t i) {
  switch (type) {
    case S8: return static_cast<U>(static_cast<int64_t>(static_cast<const int8_t*>(p)[i]));
    case S16: return static_cast<U>(static_cast<int64_t>(static_cast<const int16_t*>(p)[i]));
    case S32: return static_cast<U>(static_cast<int64_t>(static_cast<const int32_t*>(p)[i]));
    case S64: return static_cast<U>(static_cast<const int64_t*>(p)[i]);
    case U8: return static_cast<U>(static_cast<const uint8_t*>(p)[i]);
    case U16: return static_cast<U>(static_cast<const uint16_t*>(p)[i]);
    case U32: return static_cast<U>(static_cast<const uint32_t*>(p)[i]);
    default: return static_cast<U>(static_cast<const uint64_t*>(p)[i]);
  }
}

// The low bits of `v` into element `i` of an integer array of `type`.
template <typename U>
void StoreInt(int64_t type, void* p, int64_t i, U v) {
  switch (type) {
    case S8: case U8: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v); break;
    case S16: case U16: static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v); break;
    case S32: case U32: static_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(v); break;
    default: static_cast<uint64_t*>(p)[i] = static_cast<uint64_t>(v); break;
  }
}

// Stored matrix (rows x cols, rows `ld` apart) of op(X) as a row-major U matrix of
// op(X)'s shape (r x c): transposed while packing when `trans`.
template <typename U>
void PackInt(int64_t type, const void* x, int64_t offset, bool trans, int64_t ld, int64_t r, int64_t c, U* out) {
  if (!trans) {
    for (int64_t i = 0; i < r; ++i) {
      for (int64_t j = 0; j < c; ++j) out[i * c + j] = LoadInt<U>(type, x, offset + i * ld + j);
    }
  } else {
    for (int64_t j = 0; j < c; ++j) {
      for (int64_t i = 0; i < r; ++i) out[i * c + j] = LoadInt<U>(type, x, offset + j * ld + i);
    }
  }
}

// Integer products smaller than this run on the calling thread: waking the pool costs more.
constexpr int64_t kIntParallelMacs = int64_t{1} << 21;

template <typename U>
void IntDot(const int64_t* d, const void* a, const void* b, void* c) {
  const int64_t m = d[kDotM], n = d[kDotN], k = d[kDotK];
  if (m == 0 || n == 0) return;
  U* pa = static_cast<U*>(ThreadScratch(0, std::max<int64_t>(1, m * k) * sizeof(U)));
  U* pb = static_cast<U*>(ThreadScratch(1, std::max<int64_t>(1, k * n) * sizeof(U)));
  U* pc = static_cast<U*>(ThreadScratch(2, m * n * sizeof(U)));
  const int64_t out_type = d[kDotOutType];
  for (int64_t batch = 0; batch < d[kDotBatch]; ++batch) {
    PackInt<U>(d[kDotLhsType], a, batch * d[kDotStrideA], d[kDotTransA] != 0, d[kDotLda], m, k, pa);
    PackInt<U>(d[kDotRhsType], b, batch * d[kDotStrideB], d[kDotTransB] != 0, d[kDotLdb], k, n, pb);
    const int64_t out_offset = batch * d[kDotStrideC];
    auto rows = [&](int64_t i0, int64_t i1) {
      IntKernel(pa, pb, pc, i0, i1, n, k);
      for (int64_t i = i0 * n; i < i1 * n; ++i) StoreInt<U>(out_type, c, out_offset + i, pc[i]);
    };
    if (m * n * k < kIntParallelMacs) {
      rows(0, m);
    } else {
      ParallelRanges(m, n * std::max<int64_t>(k, 1), rows);
    }
  }
}

bool IsNarrowFloat(int64_t t) { return t == BF16 || t == F16; }

}  // namespace

namespace {

constexpr int kScratchSlots = 4;
// Kept between calls up to this size: the im2col blocks (4 MiB) and the usual operands.
constexpr size_t kKeptScratchBytes = size_t{16} << 20;

struct ScratchBuffer {
  std::unique_ptr<char, FreeDeleter> data;
  size_t size = 0;
};

ScratchBuffer* ThreadScratchBuffers() {
  thread_local ScratchBuffer buffers[kScratchSlots];
  return buffers;
}

}  // namespace

template <typename T>
void BlasGemm(int64_t m, int64_t n, int64_t k, const T* a, bool trans_a, int64_t lda, const T* b, bool trans_b,
              int64_t ldb, T* c, int64_t ldc, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate) {
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, T(0));
    }
    return;
  }
  const auto ta = trans_a ? CblasTrans : CblasNoTrans, tb = trans_b ? CblasTrans : CblasNoTrans;
  const int ni = static_cast<int>(n), ki = static_cast<int>(k);
  const int64_t panel = std::clamp<int64_t>(kGemmPanelMacs / (n * k), 64, m);
  // Also before the first panel: a routine calling GEMMs block by block stops at its next one.
  const bool check_first = m * n * k >= kStopCheckWork;
  for (int64_t i0 = 0; i0 < m; i0 += panel) {
    if ((i0 > 0 || check_first) && ExecutionStopping()) return;
    const int rows = static_cast<int>(std::min(panel, m - i0));
    const T* pa = a + (trans_a ? i0 : i0 * lda);
    T* pc = c + i0 * ldc;
    if constexpr (sizeof(T) == 4) {
      cblas_sgemm(CblasRowMajor, ta, tb, rows, ni, ki, 1.0f, pa, static_cast<int>(lda), b, static_cast<int>(ldb),
                  accumulate ? 1.0f : 0.0f, pc, static_cast<int>(ldc));
    } else {
      cblas_dgemm(CblasRowMajor, ta, tb, rows, ni, ki, 1.0, pa, static_cast<int>(lda), b, static_cast<int>(ldb),
                  accumulate ? 1.0 : 0.0, pc, static_cast<int>(ldc));
    }
  }
}
template void BlasGemm<float>(int64_t, int64_t, int64_t, const float*, bool, int64_t, const float*, bool, int64_t,
                              float*, int64_t, bool);
template void BlasGemm<double>(int64_t, int64_t, int64_t, const double*, bool, int64_t, const double*, bool, int64_t,
                               double*, int64_t, bool);

void TrimThreadScratch() {
  ScratchBuffer* buffers = ThreadScratchBuffers();
  for (int i = 0; i < kScratchSlots; ++i) {
    if (buffers[i].size > kKeptScratchBytes) {
      buffers[i].data.reset();
      buffers[i].size = 0;
    }
  }
}

void* ThreadScratch(int which, size_t bytes) {
  ScratchBuffer& buffer = ThreadScratchBuffers()[which % kScratchSlots];
  if (buffer.size < bytes) {
    const size_t size = (std::max<size_t>(bytes, 64) + 63) / 64 * 64;
    buffer.data.reset(static_cast<char*>(std::aligned_alloc(64, size)));
    buffer.size = 0;
    if (buffer.data == nullptr) throw std::bad_alloc();  // the routine fails its execution (runtime.h)
    buffer.size = size;
  }
  return buffer.data.get();
}

}  // namespace cpu
}  // namespace xla

static void Dot(const int64_t* d, const void* a, const void* b, void* c) {
  using namespace xla;
  using namespace xla::cpu;
  const int64_t lt = d[kDotLhsType], rt = d[kDotRhsType], ot = d[kDotOutType];
  if (lt == F32 && rt == F32 && ot == F32) {
    BatchedGemm<float>(d, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(c));
  } else if (lt == F64 && rt == F64 && ot == F64) {
    BatchedGemm<double>(d, static_cast<const double*>(a), static_cast<const double*>(b), static_cast<double*>(c));
  } else if (IsNarrowFloat(lt) || IsNarrowFloat(rt) || IsNarrowFloat(ot)) {
    NarrowFloatDot(d, a, b, c);
  } else if (ot == S64 || ot == U64) {
    IntDot<uint64_t>(d, a, b, c);
  } else {
    IntDot<uint32_t>(d, a, b, c);
  }
  TrimThreadScratch();
}

extern "C" void __xla_cpu_dot(const int64_t* d, const void* a, const void* b, void* c) {
  xla::cpu::RunRoutine("dot", [&] { Dot(d, a, b, c); });
}
