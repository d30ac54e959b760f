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
// are scattered. Convolutions with batch groups, and grouped ones with at most four input
// features per group (depthwise ones), are direct sums instead (DirectConv below, bit-exact
// with the interpreter); a window covering nearly all of its input (a kernel gradient) goes
// through shifted grids (ShiftedGridConv below): GEMMs over copies of both operands made
// once, no im2col matrix.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
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
// The shifted-GEMM convolution (ShiftedGridConv below) is taken when its grid has at most
// 1/kShiftedGridWaste more cells than the window has taps (timed on 2 cores: ahead of im2col
// at 1.07 and 1.31 times the taps, behind at 1.65).
constexpr int64_t kShiftedGridWaste = 2;
// Its GEMMs go over blocks of grid rows of about this many bytes of both grids.
constexpr int64_t kShiftedGridBlockBytes = int64_t{2} << 20;

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

  // The product of a spatial field over the dimensions (kConvOutputSize: output positions per
  // image; kConvKernelSize: the window's taps).
  int64_t Product(int field) const {
    int64_t product = 1;
    for (int64_t r = 0; r < rank(); ++r) product *= spatial(r, field);
    return product;
  }

  // The window's taps in row-major order, as kernel indices per spatial dimension
  // ([tap][dimension]).
  std::vector<int64_t> Taps() const {
    const int64_t window = Product(kConvKernelSize);
    std::vector<int64_t> taps(window * rank());
    for (int64_t t = 0; t < window; ++t) {
      int64_t rest = t;
      for (int64_t r = rank() - 1; r >= 0; --r) {
        taps[t * rank() + r] = rest % spatial(r, kConvKernelSize);
        rest /= spatial(r, kConvKernelSize);
      }
    }
    return taps;
  }

  // The kernel's spatial offset at tap `tap` (kernel indices), window reversal applied.
  int64_t KernelOffset(const int64_t* tap) const {
    int64_t offset = 0;
    for (int64_t r = 0; r < rank(); ++r) {
      const int64_t size = spatial(r, kConvKernelSize);
      offset += (spatial(r, kConvReversal) ? size - 1 - tap[r] : tap[r]) * spatial(r, kConvKernelStride);
    }
    return offset;
  }

  // Output row `row` of (batch, positions...) in row-major order: its position per spatial
  // dimension into `position`; returns its batch index.
  int64_t OutputPosition(int64_t row, int64_t* position) const {
    for (int64_t r = rank() - 1; r >= 0; --r) {
      position[r] = row % spatial(r, kConvOutputSize);
      row /= spatial(r, kConvOutputSize);
    }
    return row;
  }

  // Whether output position `position` (per spatial dimension) reads the input at window
  // tap `tap` (kernel indices), not padding nor between base-dilated elements; if so, adds
  // the spatial part of the input offset it reads to *offset.
  bool TapOffset(const int64_t* position, const int64_t* tap, int64_t* offset) const {
    for (int64_t r = 0; r < rank(); ++r) {
      const int64_t at = position[r] * spatial(r, kConvWindowStride) + tap[r] * spatial(r, kConvWindowDilation) -
                         spatial(r, kConvPadLow);
      const int64_t dilation = spatial(r, kConvBaseDilation);
      if (dilation == 1) {  // no division in the common case
        if (at < 0 || at >= spatial(r, kConvInputSize)) return false;
        *offset += at * spatial(r, kConvInputStride);
      } else {
        if (at < 0 || at % dilation != 0 || at / dilation >= spatial(r, kConvInputSize)) return false;
        *offset += at / dilation * spatial(r, kConvInputStride);
      }
    }
    return true;
  }

 private:
  const int64_t* d_;
};

// Whether any of n values is an inf or a NaN (all exponent bits set), branch-free.
template <typename T>
bool AnyNonFinite(const T* values, int64_t n) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr Bits kExponent = sizeof(T) == 4 ? static_cast<Bits>(0x7f800000u) : static_cast<Bits>(0x7ff0000000000000u);
  bool any = false;
  for (int64_t j = 0; j < n; ++j) {
    Bits bits;
    std::memcpy(&bits, values + j, sizeof(T));
    any |= (bits & kExponent) == kExponent;
  }
  return any;
}

// Grids of the shifted-GEMM convolution larger than this go the im2col way.
constexpr int64_t kMaxShiftedGridBytes = int64_t{256} << 20;

// The grids of a convolution ShiftedGridConv takes, or nothing.
struct ShiftedGrid {
  std::vector<int64_t> grid, grid_stride;  // per spatial dimension: the grid's size and row stride
  int64_t rows = 0;                        // input features x grid cells
  int64_t phase_rows = 0;                  // rows, then zero rows as far as the largest shift reads
  int64_t phases = 1, outputs = 1;
};

std::optional<ShiftedGrid> PlanShiftedGrid(const ConvView& v) {
  const int64_t rank = v.rank();
  if (v[kConvFeatureGroups] != 1 || v[kConvBatchGroups] != 1 || rank == 0) return std::nullopt;
  ShiftedGrid plan;
  plan.grid.resize(rank);
  plan.grid_stride.resize(rank);
  std::vector<int64_t> shift(rank);
  int64_t cells = 1, taps = 1;
  for (int64_t r = 0; r < rank; ++r) {
    if (v.spatial(r, kConvBaseDilation) != 1) return std::nullopt;
    shift[r] = (v.spatial(r, kConvOutputSize) - 1) * v.spatial(r, kConvWindowStride) / v.spatial(r, kConvWindowDilation);
    plan.grid[r] = shift[r] + v.spatial(r, kConvKernelSize);
    cells *= plan.grid[r];
    taps *= v.spatial(r, kConvKernelSize);
    plan.outputs *= v.spatial(r, kConvOutputSize);
    plan.phases *= v.spatial(r, kConvWindowDilation);
  }
  // The grid's cells beyond the taps are multiply-adds im2col would not do.
  if (cells > taps + taps / kShiftedGridWaste) return std::nullopt;
  int64_t max_offset = 0;
  for (int64_t r = rank - 1, stride = 1; r >= 0; --r) {
    plan.grid_stride[r] = stride;
    max_offset += shift[r] * stride;
    stride *= plan.grid[r];
  }
  plan.rows = v[kConvInputFeatures] * cells;
  plan.phase_rows = plan.rows + max_offset;
  const int64_t bytes = (plan.phases * plan.phase_rows * v[kConvBatch] + plan.rows * v[kConvOutputFeatures]) *
                        (v[kConvType] == F64 ? 8 : 4);
  if (plan.rows > std::numeric_limits<int>::max() || bytes > kMaxShiftedGridBytes) return std::nullopt;
  return plan;
}

// A convolution whose window covers nearly all of its (padded) input, as the weight gradient
// of a convolution that jax.grad produces (the output gradient's positions are the window,
// the kernel's few taps the output positions, the forward pass's batch the input features).
// Its im2col matrix would hold every input element once per output position, gathered with
// the input features innermost, far apart in memory. Instead, per output position s,
//   out[b, s, o] = sum over input feature i and tap t of in[b, s*S + t*D - L, i] k[t, i, o]
// is one GEMM over two grids each operand is copied into once: the padded input split by
// phase (padded position P mod the window dilation D) into grids [i][a...][b] of positions
// a = P div D, and the kernel into a grid [i][a...][o] holding tap t at a = t and zeros
// elsewhere. Output position s reads the input grid of phase s*S mod D shifted by
// q0 = s*S div D, so its rows are the kernel grid's rows plus one offset:
//   out[b, s, o] = sum over grid rows q of xg[q + offset(s)][b] kg[q][o].
// The kernel grid's zero rows meet input elements outside s's window, and 0 * x is 0 only
// for finite x: with an inf or NaN in the input this returns false having written nothing,
// as it does when PlanShiftedGrid declines, and the caller goes on with im2col. (The kernel's
// taps meet what im2col would give them, the window's inputs or zeros for its padding, so a
// non-finite kernel needs no such check.)
template <typename T>
bool ShiftedGridConv(const ConvView& v, const T* input, const T* kernel, T* output) {
  const std::optional<ShiftedGrid> plan = PlanShiftedGrid(v);
  if (!plan) return false;
  const int64_t rank = v.rank(), batch = v[kConvBatch], out_features = v[kConvOutputFeatures];
  const std::vector<int64_t>& grid = plan->grid;
  const std::vector<int64_t>& grid_stride = plan->grid_stride;
  const int64_t rows = plan->rows, phase_rows = plan->phase_rows, phases = plan->phases, outputs = plan->outputs;
  T* xg = static_cast<T*>(ThreadScratch(0, phases * phase_rows * batch * sizeof(T)));
  T* kg = static_cast<T*>(ThreadScratch(3, rows * out_features * sizeof(T)));
  std::atomic<bool> non_finite{false};
  const int64_t in_batch_stride = v[kConvInputBatchStride];
  ParallelRanges(phases * phase_rows, batch, [&](int64_t r0, int64_t r1) {
    bool any = false;
    for (int64_t row = r0; row < r1; ++row) {
      T* dst = xg + row * batch;
      int64_t rest = row % phase_rows, phase = row / phase_rows, offset = 0;
      bool inside = rest < rows;
      for (int64_t r = rank - 1; r >= 0 && inside; --r) {
        const int64_t dilation = v.spatial(r, kConvWindowDilation);
        const int64_t at = rest % grid[r] * dilation + phase % dilation - v.spatial(r, kConvPadLow);
        rest /= grid[r];
        phase /= dilation;
        inside = at >= 0 && at < v.spatial(r, kConvInputSize);
        offset += at * v.spatial(r, kConvInputStride);
      }
      if (!inside) {
        std::fill(dst, dst + batch, T(0));
        continue;
      }
      const T* src = input + offset + rest * v[kConvInputFeatureStride];
      if (in_batch_stride == 1) {
        std::memcpy(dst, src, batch * sizeof(T));
      } else {
        for (int64_t b = 0; b < batch; ++b) dst[b] = src[b * in_batch_stride];
      }
      any |= AnyNonFinite(dst, batch);
    }
    if (any) non_finite = true;
  });
  ParallelRanges(rows, out_features, [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> tap(rank);
    for (int64_t row = r0; row < r1; ++row) {
      T* dst = kg + row * out_features;
      int64_t rest = row;
      bool inside = true;
      for (int64_t r = rank - 1; r >= 0; --r) {
        tap[r] = rest % grid[r];
        rest /= grid[r];
        inside = inside && tap[r] < v.spatial(r, kConvKernelSize);
      }
      if (!inside) {
        std::fill(dst, dst + out_features, T(0));
        continue;
      }
      const T* src = kernel + v.KernelOffset(tap.data()) + rest * v[kConvKernelInputStride];
      for (int64_t o = 0; o < out_features; ++o) dst[o] = src[o * v[kConvKernelOutputStride]];
    }
  });
  if (non_finite) return false;

  // Per output position: where its input rows start, and where its result goes (its own
  // [batch][out_features] part of `result` when scattered).
  const int64_t out_batch_stride = v[kConvOutputBatchStride], out_feature_stride = v[kConvOutputFeatureStride];
  const bool scattered = out_feature_stride != 1 && out_batch_stride != 1;
  T* result = scattered ? static_cast<T*>(ThreadScratch(2, outputs * batch * out_features * sizeof(T))) : nullptr;
  std::vector<const T*> xs(outputs);
  std::vector<int64_t> out_offsets(outputs);
  std::vector<int64_t> position(rank);
  for (int64_t s = 0; s < outputs; ++s) {
    v.OutputPosition(s, position.data());
    int64_t phase = 0, phase_stride = 1, offset = 0, out_offset = 0;
    for (int64_t r = rank - 1; r >= 0; --r) {
      const int64_t at = position[r] * v.spatial(r, kConvWindowStride), dilation = v.spatial(r, kConvWindowDilation);
      phase += at % dilation * phase_stride;
      phase_stride *= dilation;
      offset += at / dilation * grid_stride[r];
      out_offset += position[r] * v.spatial(r, kConvOutputStride);
    }
    xs[s] = xg + (phase * phase_rows + offset) * batch;
    out_offsets[s] = out_offset;
  }
  // Blocks of grid rows, each output position's product in turn: the kernel grid's block and
  // the input grid's (shifted a little per position) stay in cache across the positions.
  const int64_t block = std::clamp<int64_t>(kShiftedGridBlockBytes / ((batch + out_features) * sizeof(T)), 1, rows);
  for (int64_t q0 = 0; q0 < rows; q0 += block) {
    const int64_t depth = std::min(block, rows - q0);
    const T* kq = kg + q0 * out_features;
    for (int64_t s = 0; s < outputs; ++s) {
      const T* xq = xs[s] + q0 * batch;
      T* out = scattered ? result + s * batch * out_features : output + out_offsets[s];
      if (out_feature_stride == 1 || scattered) {  // out[b][o], rows out_batch_stride apart
        const int64_t ldc = scattered || batch == 1 ? out_features : out_batch_stride;
        BlasGemm<T>(batch, out_features, depth, xq, /*trans_a=*/true, batch, kq, false, out_features, out, ldc, q0 > 0);
      } else {  // out^T[o][b] = kg^T xs, rows out_feature_stride apart
        BlasGemm<T>(out_features, batch, depth, kq, /*trans_a=*/true, out_features, xq, false, batch, out,
                    out_features == 1 ? batch : out_feature_stride, q0 > 0);
      }
    }
  }
  for (int64_t s = 0; scattered && s < outputs; ++s) {
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t o = 0; o < out_features; ++o) {
        output[out_offsets[s] + b * out_batch_stride + o * out_feature_stride] =
            result[(s * batch + b) * out_features + o];
      }
    }
  }
  return true;
}

// acc[o] += x[o] * w[o] for o < n in f64 (a product of two f32 values is exact there), each
// product and sum rounded on its own as the interpreter's are (no fused multiply-adds),
// vectorized (one clone per ISA; at -O3, since GCC's -O2 only vectorizes loops that need no
// remainder).
#define XLA_ADD_PRODUCTS(T)                                                                                  \
  __attribute__((target_clones("arch=skylake-avx512", "avx2", "default"), optimize("O3", "fp-contract=off"))) \
  void AddProducts(double* __restrict acc, const T* __restrict x, const T* __restrict w, int64_t n) {         \
    for (int64_t o = 0; o < n; ++o) acc[o] += static_cast<double>(x[o]) * static_cast<double>(w[o]);       \
  }
XLA_ADD_PRODUCTS(float)
XLA_ADD_PRODUCTS(double)
#undef XLA_ADD_PRODUCTS

// Grouped convolutions with at most this many input features per group go through
// DirectConv rather than a GEMM per group.
constexpr int64_t kDirectGroupFeatures = 4;

// Convolutions with batch groups (a depthwise convolution's kernel gradient, as jax.grad
// lowers it) or with few input features per feature group (depthwise ones have one) as
// direct sums: per output row (batch, position), each tap's input features times the
// kernel's weights are added into f64 accumulators for all output features at once (output
// feature o reads the input at its batch group's batch and its feature group's features;
// where those are consecutive elements the run vectorizes), taps in row-major window order
// and a group's features in order within each, window positions on padding or between
// dilated inputs skipped: the interpreter's order and precision, so bit-exact with it. A GEMM
// per group would have only taps x features for its depth and the group's outputs for its
// width; batch groups have no GEMM here at all.
template <typename T>
void DirectConv(const ConvView& v, const T* input, const T* kernel, T* output) {
  const int64_t rank = v.rank(), groups = v[kConvFeatureGroups], batch_groups = v[kConvBatchGroups];
  const int64_t batch = v[kConvBatch] / batch_groups, out_features = v[kConvOutputFeatures];
  const int64_t cg = v[kConvInputFeatures] / groups, og = out_features / groups;
  const int64_t obg = out_features / batch_groups;  // output features per batch group
  const int64_t positions = v.Product(kConvOutputSize), window = v.Product(kConvKernelSize);
  // The kernel as [tap][group's input feature][output feature], reversal applied.
  std::vector<T> weights(window * cg * out_features);
  const std::vector<int64_t> taps = v.Taps();
  for (int64_t t = 0; t < window; ++t) {
    const int64_t offset = v.KernelOffset(&taps[t * rank]);
    for (int64_t c = 0; c < cg; ++c) {
      for (int64_t o = 0; o < out_features; ++o) {
        weights[(t * cg + c) * out_features + o] =
            kernel[offset + c * v[kConvKernelInputStride] + o * v[kConvKernelOutputStride]];
      }
    }
  }
  // Where output feature o's input starts, from its row's: its batch group's batch and its
  // feature group's first feature.
  const int64_t feature_stride = v[kConvInputFeatureStride], out_feature_stride = v[kConvOutputFeatureStride];
  std::vector<int64_t> from(out_features);
  bool contiguous = true;
  for (int64_t o = 0; o < out_features; ++o) {
    from[o] = o / obg * batch * v[kConvInputBatchStride] + o / og * cg * feature_stride;
    contiguous = contiguous && from[o] == o;
  }
  ParallelRanges(batch * positions, window * cg * out_features, [&](int64_t r0, int64_t r1) {
    std::vector<double> acc(out_features);
    std::vector<int64_t> position(rank);
    for (int64_t row = r0; row < r1; ++row) {
      const int64_t n = v.OutputPosition(row, position.data());
      const T* image = input + n * v[kConvInputBatchStride];
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t t = 0; t < window; ++t) {
        int64_t offset = 0;
        if (!v.TapOffset(position.data(), &taps[t * rank], &offset)) continue;
        for (int64_t c = 0; c < cg; ++c) {
          const T* x = image + offset + c * feature_stride;
          const T* w = weights.data() + (t * cg + c) * out_features;
          if (contiguous) {
            AddProducts(acc.data(), x, w, out_features);
          } else {
            for (int64_t o = 0; o < out_features; ++o) {
              acc[o] += static_cast<double>(x[from[o]]) * static_cast<double>(w[o]);
            }
          }
        }
      }
      T* out = output + n * v[kConvOutputBatchStride];
      for (int64_t r = 0; r < rank; ++r) out += position[r] * v.spatial(r, kConvOutputStride);
      for (int64_t o = 0; o < out_features; ++o) out[o * out_feature_stride] = static_cast<T>(acc[o]);
    }
  });
}

template <typename T>
void Conv(const int64_t* descriptor, const T* input, const T* kernel, T* output) {
  const ConvView v(descriptor);
  if (v[kConvBatchGroups] > 1 ||
      (v[kConvFeatureGroups] > 1 && v[kConvInputFeatures] / v[kConvFeatureGroups] <= kDirectGroupFeatures)) {
    DirectConv(v, input, kernel, output);
    return;
  }
  if (ShiftedGridConv(v, input, kernel, output)) return;
  const int64_t rank = v.rank(), batch = v[kConvBatch], groups = v[kConvFeatureGroups];
  const int64_t in_features = v[kConvInputFeatures], out_features = v[kConvOutputFeatures];
  const int64_t cg = in_features / groups, og = out_features / groups;
  const int64_t positions = v.Product(kConvOutputSize), window = v.Product(kConvKernelSize);
  const int64_t rows = batch * positions, depth = window * cg;
  if (rows == 0 || out_features == 0) return;
  const std::vector<int64_t> taps = v.Taps();

  // The kernel as [group][tap, input feature][output feature].
  T* weights = static_cast<T*>(ThreadScratch(3, std::max<int64_t>(1, groups * depth * og) * sizeof(T)));
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t t = 0; t < window; ++t) {
      const int64_t offset = v.KernelOffset(&taps[t * rank]);
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
              v.OutputPosition(s0, position.data());
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
          BlasGemm<T>(og, width, depth, weights + g * depth * og, /*trans_a=*/true, og, columns, false, width,
                      output + n * v[kConvOutputBatchStride] + g * og * positions + s0, positions);
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
      BlasGemm<T>(rows, og, cg, input + g * cg, false, in_features, weights + g * depth * og, false, og, result + g * og,
                  out_features);
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
            const int64_t n = v.OutputPosition(r0 + i, position.data());
            const T* base = input + n * v[kConvInputBatchStride] + g * cg * feature_stride;
            T* dst = columns + i * depth;
            for (int64_t t = 0; t < window; ++t, dst += cg) {
              int64_t offset = 0;
              if (!v.TapOffset(position.data(), &taps[t * rank], &offset)) {
                std::fill(dst, dst + cg, T(0));
              } else if (feature_stride == 1) {
                std::memcpy(dst, base + offset, cg * sizeof(T));
              } else {
                for (int64_t c = 0; c < cg; ++c) dst[c] = base[offset + c * feature_stride];
              }
            }
          }
        });
        BlasGemm<T>(r1 - r0, og, depth, columns, false, depth, weights + g * depth * og, false, og,
                    result + r0 * out_features + g * og, out_features);
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

bool ConvUsesShiftedGrids(const int64_t* descriptor) { return PlanShiftedGrid(ConvView(descriptor)).has_value(); }

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
