// __xla_cpu_conv: a convolution as GEMMs (codegen/gemm_plan.cc picks which ones come here).
// The kernel is packed once into [group][window position, input feature][output feature]
// (window reversal applied while packing); the input is unrolled block by block into an
// im2col matrix [output position][window position, input feature] in a thread-local buffer
// (zeros where the window falls on padding or between dilated input elements), and each
// block is one sgemm/dgemm per feature group. A 1x1 convolution with unit strides and no
// padding over an input whose features are minor reads the input in place. Outputs whose
// features are minor and positions row-major (NHWC) are written in place; outputs whose
// features are major over row-major positions (NCHW) are written in place by transposed
// GEMMs over a transposed im2col matrix, one image at a time; others go through a buffer and
// are scattered.
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/runtime/gemm.h"
#include "backends/cpu/runtime/runtime.h"
#include "proto/xla_data.pb.h"

namespace xla {
namespace cpu {
namespace {

// About this many bytes of im2col matrix per GEMM: big enough for a GEMM near its peak,
// small enough to stay in the last-level cache between being written and read.
constexpr int64_t kIm2colBlockBytes = int64_t{4} << 20;

// Row-major C[m,n] = op(A) B, op(A) = A^T when trans_a.
template <typename T>
void Gemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc,
          bool trans_a = false) {
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  const auto ta = trans_a ? CblasTrans : CblasNoTrans;
  if constexpr (sizeof(T) == 4) {
    cblas_sgemm(CblasRowMajor, ta, CblasNoTrans, mi, ni, ki, 1.0f, a, static_cast<int>(lda), b, static_cast<int>(ldb),
                0.0f, c, static_cast<int>(ldc));
  } else {
    cblas_dgemm(CblasRowMajor, ta, CblasNoTrans, mi, ni, ki, 1.0, a, static_cast<int>(lda), b, static_cast<int>(ldb),
                0.0, c, static_cast<int>(ldc));
  }
}

class ConvView {
 public:
  explicit ConvView(const int64_t* d) : d_(d) {}
  int64_t rank() const { return d_[kConvSpatialRank]; }
  int64_t operator[](int field) const { return d_[field]; }
  int64_t spatial(int64_t r, int field) const { return d_[kConvHeaderFields + r * kConvSpatialFields + field]; }

  // Whether rows over (batch, spatial...) in row-major order are `row_stride` apart: the
  // positions of an array whose features are minor, read as a matrix [positions][features].
  bool RowsUniform(int size_field, int stride_field, int64_t batch_stride, int64_t row_stride) const {
    int64_t expected = row_stride;
    for (int64_t r = rank() - 1; r >= 0; --r) {
      if (spatial(r, size_field) > 1 && spatial(r, stride_field) != expected) return false;
      expected *= spatial(r, size_field);
    }
    return d_[kConvBatch] <= 1 || batch_stride == expected;
  }

 private:
  const int64_t* d_;
};

template <typename T>
void Conv(const int64_t* descriptor, const T* input, const T* kernel, T* output) {
  const ConvView v(descriptor);
  const int64_t rank = v.rank(), batch = v[kConvBatch], groups = v[kConvFeatureGroups];
  const int64_t in_features = v[kConvInputFeatures], out_features = v[kConvOutputFeatures];
  const int64_t cg = in_features / groups, og = out_features / groups;
  int64_t positions = 1, window = 1;
  for (int64_t r = 0; r < rank; ++r) {
    positions *= v.spatial(r, kConvOutputSize);
    window *= v.spatial(r, kConvKernelSize);
  }
  const int64_t rows = batch * positions, depth = window * cg;
  if (rows == 0 || out_features == 0) return;

  // Window positions in row-major order, as per-dimension kernel indices.
  std::vector<int64_t> taps(window * rank);
  for (int64_t t = 0; t < window; ++t) {
    int64_t rest = t;
    for (int64_t r = rank - 1; r >= 0; --r) {
      taps[t * rank + r] = rest % v.spatial(r, kConvKernelSize);
      rest /= v.spatial(r, kConvKernelSize);
    }
  }

  // The kernel as [group][tap, input feature][output feature].
  T* weights = static_cast<T*>(ThreadScratch(3, std::max<int64_t>(1, groups * depth * og) * sizeof(T)));
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t t = 0; t < window; ++t) {
      int64_t offset = 0;
      for (int64_t r = 0; r < rank; ++r) {
        const int64_t size = v.spatial(r, kConvKernelSize), k = taps[t * rank + r];
        offset += (v.spatial(r, kConvReversal) ? size - 1 - k : k) * v.spatial(r, kConvKernelStride);
      }
      for (int64_t c = 0; c < cg; ++c) {
        T* dst = weights + ((g * window + t) * cg + c) * og;
        const T* src = kernel + offset + c * v[kConvKernelInputStride] + g * og * v[kConvKernelOutputStride];
        for (int64_t o = 0; o < og; ++o) dst[o] = src[o * v[kConvKernelOutputStride]];
      }
    }
  }

  // Output features major over row-major positions in each image (NCHW-like): per image and
  // group, out^T [og][positions] = W^T im2col^T, the im2col matrix built transposed
  // ([tap, input feature][position]) so that both it and the output are walked along positions.
  bool channel_major = out_features == 1 || v[kConvOutputFeatureStride] == positions;
  for (int64_t r = rank - 1, expected = 1; r >= 0; --r) {
    if (v.spatial(r, kConvOutputSize) > 1 && v.spatial(r, kConvOutputStride) != expected) channel_major = false;
    expected *= v.spatial(r, kConvOutputSize);
  }
  if (channel_major && !(v[kConvOutputFeatureStride] == 1 && out_features > 1)) {
    const int64_t block = std::clamp<int64_t>(kIm2colBlockBytes / (depth * sizeof(T)), 1, positions);
    T* columns = static_cast<T*>(ThreadScratch(0, block * depth * sizeof(T)));
    const int64_t feature_stride = v[kConvInputFeatureStride];
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t s0 = 0; s0 < positions; s0 += block) {
        const int64_t s1 = std::min(positions, s0 + block), width = s1 - s0;
        for (int64_t g = 0; g < groups; ++g) {
          const T* image = input + n * v[kConvInputBatchStride] + g * cg * feature_stride;
          ParallelRanges(depth, width, [&](int64_t k0, int64_t k1) {
            std::vector<int64_t> position(rank);
            for (int64_t k = k0; k < k1; ++k) {
              const int64_t t = k / cg, c = k % cg;
              const T* plane = image + c * feature_stride;
              int64_t rest = s0;
              for (int64_t r = rank - 1; r >= 0; --r) {
                position[r] = rest % v.spatial(r, kConvOutputSize);
                rest /= v.spatial(r, kConvOutputSize);
              }
              T* dst = columns + k * width;
              if (rank == 0) {
                dst[0] = plane[0];
                continue;
              }
              // One run along the last spatial dimension at a time: the other dimensions'
              // offset and validity once per run, no division inside it unless dilated.
              const int64_t last = rank - 1;
              const int64_t out_size = v.spatial(last, kConvOutputSize), in_size = v.spatial(last, kConvInputSize);
              const int64_t step = v.spatial(last, kConvWindowStride), in_stride = v.spatial(last, kConvInputStride);
              const int64_t dilation = v.spatial(last, kConvBaseDilation);
              const int64_t shift = taps[t * rank + last] * v.spatial(last, kConvWindowDilation) -
                                    v.spatial(last, kConvPadLow);
              for (int64_t s = 0; s < width;) {
                int64_t outer = 0;
                bool inside = true;
                for (int64_t r = 0; r < last; ++r) {
                  const int64_t at = position[r] * v.spatial(r, kConvWindowStride) +
                                     taps[t * rank + r] * v.spatial(r, kConvWindowDilation) - v.spatial(r, kConvPadLow);
                  const int64_t d = v.spatial(r, kConvBaseDilation);
                  const bool ok = at >= 0 && at % d == 0 && at / d < v.spatial(r, kConvInputSize);
                  inside = inside && ok;
                  outer += ok ? at / d * v.spatial(r, kConvInputStride) : 0;
                }
                const int64_t count = std::min(width - s, out_size - position[last]);
                T* run = dst + s;
                const int64_t first = position[last];
                if (!inside) {
                  std::fill(run, run + count, T(0));
                } else if (dilation == 1) {
                  for (int64_t j = 0; j < count; ++j) {
                    const int64_t at = (first + j) * step + shift;
                    run[j] = at >= 0 && at < in_size ? plane[outer + at * in_stride] : T(0);
                  }
                } else {
                  for (int64_t j = 0; j < count; ++j) {
                    const int64_t at = (first + j) * step + shift;
                    const bool ok = at >= 0 && at % dilation == 0 && at / dilation < in_size;
                    run[j] = ok ? plane[outer + at / dilation * in_stride] : T(0);
                  }
                }
                s += count;
                position[last] += count;
                for (int64_t r = last; r > 0 && position[r] == v.spatial(r, kConvOutputSize); --r) {
                  position[r] = 0;
                  ++position[r - 1];
                }
              }
            }
          });
          Gemm<T>(og, width, depth, weights + g * depth * og, og, columns, width,
                  output + n * v[kConvOutputBatchStride] + g * og * positions + s0, positions, /*trans_a=*/true);
        }
      }
    }
    return;
  }

  const bool out_in_place =
      v[kConvOutputFeatureStride] == 1 &&
      v.RowsUniform(kConvOutputSize, kConvOutputStride, v[kConvOutputBatchStride], out_features);
  T* result = out_in_place ? output : static_cast<T*>(ThreadScratch(2, rows * out_features * sizeof(T)));

  bool in_place = v[kConvInputFeatureStride] == 1 &&
                  v.RowsUniform(kConvInputSize, kConvInputStride, v[kConvInputBatchStride], in_features);
  for (int64_t r = 0; r < rank; ++r) {
    in_place = in_place && v.spatial(r, kConvKernelSize) == 1 && v.spatial(r, kConvWindowStride) == 1 &&
               v.spatial(r, kConvPadLow) == 0 && v.spatial(r, kConvBaseDilation) == 1 &&
               v.spatial(r, kConvOutputSize) == v.spatial(r, kConvInputSize);
  }
  if (in_place) {
    for (int64_t g = 0; g < groups; ++g) {
      Gemm<T>(rows, og, cg, input + g * cg, in_features, weights + g * depth * og, og, result + g * og, out_features);
    }
  } else {
    const int64_t block = std::clamp<int64_t>(kIm2colBlockBytes / (depth * sizeof(T)), 1, rows);
    T* columns = static_cast<T*>(ThreadScratch(0, block * depth * sizeof(T)));
    const int64_t feature_stride = v[kConvInputFeatureStride];
    for (int64_t r0 = 0; r0 < rows; r0 += block) {
      const int64_t r1 = std::min(rows, r0 + block);
      for (int64_t g = 0; g < groups; ++g) {
        ParallelRanges(r1 - r0, depth, [&](int64_t i0, int64_t i1) {
          std::vector<int64_t> position(rank);
          for (int64_t i = i0; i < i1; ++i) {
            int64_t rest = r0 + i;
            for (int64_t r = rank - 1; r >= 0; --r) {
              position[r] = rest % v.spatial(r, kConvOutputSize);
              rest /= v.spatial(r, kConvOutputSize);
            }
            const T* base = input + rest * v[kConvInputBatchStride] + g * cg * feature_stride;
            T* dst = columns + i * depth;
            for (int64_t t = 0; t < window; ++t, dst += cg) {
              int64_t offset = 0;
              bool inside = true;
              for (int64_t r = 0; r < rank && inside; ++r) {
                const int64_t at = position[r] * v.spatial(r, kConvWindowStride) +
                                   taps[t * rank + r] * v.spatial(r, kConvWindowDilation) - v.spatial(r, kConvPadLow);
                const int64_t dilation = v.spatial(r, kConvBaseDilation);
                if (at < 0 || at % dilation != 0 || at / dilation >= v.spatial(r, kConvInputSize)) {
                  inside = false;
                } else {
                  offset += at / dilation * v.spatial(r, kConvInputStride);
                }
              }
              if (!inside) {
                std::fill(dst, dst + cg, T(0));
              } else if (feature_stride == 1) {
                std::memcpy(dst, base + offset, cg * sizeof(T));
              } else {
                for (int64_t c = 0; c < cg; ++c) dst[c] = base[offset + c * feature_stride];
              }
            }
          }
        });
        Gemm<T>(r1 - r0, og, depth, columns, depth, weights + g * depth * og, og, result + r0 * out_features + g * og,
                out_features);
      }
    }
  }
  if (out_in_place) return;
  std::vector<int64_t> position(rank);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t rest = row, offset = 0;
    for (int64_t r = rank - 1; r >= 0; --r) {
      offset += rest % v.spatial(r, kConvOutputSize) * v.spatial(r, kConvOutputStride);
      rest /= v.spatial(r, kConvOutputSize);
    }
    offset += rest * v[kConvOutputBatchStride];
    const T* src = result + row * out_features;
    for (int64_t o = 0; o < out_features; ++o) output[offset + o * v[kConvOutputFeatureStride]] = src[o];
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla

static void Conv(const int64_t* descriptor, const void* input, const void* kernel, void* output) {
  using namespace xla::cpu;
  if (descriptor[kConvType] == xla::F64) {
    Conv<double>(descriptor, static_cast<const double*>(input), static_cast<const double*>(kernel),
                 static_cast<double*>(output));
  } else {
    Conv<float>(descriptor, static_cast<const float*>(input), static_cast<const float*>(kernel),
                static_cast<float*>(output));
  }
  TrimThreadScratch();
}

extern "C" void __xla_cpu_conv(const int64_t* descriptor, const void* input, const void* kernel, void* output) {
  xla::cpu::RunRoutine("convolution", [&] { Conv(descriptor, input, kernel, output); });
}
