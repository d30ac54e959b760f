// convolution with all dimension numbers, window strides, padding (negative too), base
// (lhs) and window (rhs) dilation, window reversal, feature_group_count and
// batch_group_count, indexed as XLA's evaluator does. Operands are converted to the result
// type first; products are summed in a wide type in window order then input-feature order
// and rounded once. Integer results narrower than 32 bits saturate as in XLA's evaluator
// (it accumulates those in 64 bits and clamps).
#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/interpreter/evaluator.h"
#include "backends/interpreter/ops_linalg_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace linalg {
namespace {

struct SpatialDim {
  int64_t input = 0, kernel = 0, output = 0;  // sizes
  int64_t stride = 1, pad_low = 0, base_dilation = 1, window_dilation = 1;
  bool reversal = false;
};

struct ConvPlan {
  std::vector<int64_t> input_perm, kernel_perm, output_perm;  // see RunConv
  std::vector<SpatialDim> spatial;
  int64_t input_batch = 0, input_features = 0, kernel_input_features = 0, output_features = 0;
  int64_t output_batch = 0, feature_groups = 1, batch_groups = 1;
};

// Output size of one window dimension as XLA's shape inference computes it.
int64_t WindowOutputSize(int64_t input, int64_t window, const WindowDimension& w, int64_t base_dilation,
                         int64_t window_dilation, int64_t stride) {
  const int64_t dilated_input = input == 0 ? 0 : (input - 1) * base_dilation + 1;
  const int64_t padded = dilated_input + w.padding_low() + w.padding_high();
  const int64_t dilated_window = window == 0 ? 0 : (window - 1) * window_dilation + 1;
  if (padded <= 0 || dilated_window > padded) return 0;
  return (padded - dilated_window) / stride + 1;
}

template <typename T>
absl::StatusOr<std::vector<T>> RunConv(const Evaluator* evaluator, const Literal& lhs, const Literal& rhs,
                                       const ConvPlan& p) {
  std::vector<T> lhs_values, rhs_values;
  ReadValues(lhs, &lhs_values);
  ReadValues(rhs, &rhs_values);
  // input as [batch, spatial..., feature]; kernel as [out feature, spatial..., in feature].
  const std::vector<T> in = Permute(lhs_values, lhs.shape().dimensions(), p.input_perm);
  const std::vector<T> ker = Permute(rhs_values, rhs.shape().dimensions(), p.kernel_perm);
  const int64_t rank = static_cast<int64_t>(p.spatial.size());
  std::vector<int64_t> in_dims, ker_dims, out_dims;
  for (const SpatialDim& d : p.spatial) {
    in_dims.push_back(d.input);
    ker_dims.push_back(d.kernel);
    out_dims.push_back(d.output);
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(in_dims);
  const std::vector<int64_t> ker_strides = RowMajorStrides(ker_dims);
  const int64_t in_spatial = ElementCount(in_dims);
  const int64_t ker_spatial = ElementCount(ker_dims);
  const int64_t out_spatial = ElementCount(out_dims);
  const int64_t of = p.output_features;
  const int64_t kif = p.kernel_input_features;
  const int64_t of_per_feature_group = of / p.feature_groups;
  const int64_t of_per_batch_group = of / p.batch_groups;
  const int64_t batch_group_size = p.input_batch / p.batch_groups;

  // Output as [batch, spatial..., feature].
  std::vector<T> out(p.output_batch * out_spatial * of, T{});
  std::vector<T> acc(of);
  std::vector<int64_t> out_index(rank, 0), window_index(rank, 0);
  // Per output position: each window tap, and the features' multiply-adds where it is inside.
  const int64_t position_steps = ker_spatial * (1 + of * kif);
  CancelPoll poll(kCancelPollSteps);
  for (int64_t ob = 0; ob < p.output_batch; ++ob) {
    std::fill(out_index.begin(), out_index.end(), 0);
    for (int64_t os = 0; os < out_spatial; ++os) {
      std::fill(acc.begin(), acc.end(), T{});
      std::fill(window_index.begin(), window_index.end(), 0);
      for (int64_t kw = 0; kw < ker_spatial; ++kw) {
        int64_t in_offset = 0, ker_offset = 0;
        bool inside = true;
        for (int64_t d = 0; d < rank && inside; ++d) {
          const SpatialDim& s = p.spatial[d];
          const int64_t dilated = out_index[d] * s.stride - s.pad_low + window_index[d] * s.window_dilation;
          if (dilated % s.base_dilation != 0) {
            inside = false;
            break;
          }
          const int64_t pos = dilated / s.base_dilation;
          if (pos < 0 || pos >= s.input) {
            inside = false;
            break;
          }
          in_offset += pos * in_strides[d];
          ker_offset += (s.reversal ? s.kernel - 1 - window_index[d] : window_index[d]) * ker_strides[d];
        }
        if (inside) {
          for (int64_t o = 0; o < of; ++o) {
            const int64_t feature_group = o / of_per_feature_group;
            const int64_t ib = ob + (o / of_per_batch_group) * batch_group_size;
            const T* x = in.data() + (ib * in_spatial + in_offset) * p.input_features + feature_group * kif;
            const T* w = ker.data() + (o * ker_spatial + ker_offset) * kif;
            T sum = acc[o];
            for (int64_t i = 0; i < kif; ++i) sum += x[i] * w[i];
            acc[o] = sum;
          }
        }
        for (int64_t d = rank - 1; d >= 0; --d) {
          if (++window_index[d] < ker_dims[d]) break;
          window_index[d] = 0;
        }
      }
      std::copy(acc.begin(), acc.end(), out.begin() + (ob * out_spatial + os) * of);
      RETURN_IF_ERROR(poll.Done(evaluator, position_steps));
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++out_index[d] < out_dims[d]) break;
        out_index[d] = 0;
      }
    }
  }
  std::vector<int64_t> canonical_dims = {p.output_batch};
  canonical_dims.insert(canonical_dims.end(), out_dims.begin(), out_dims.end());
  canonical_dims.push_back(of);
  return Permute(out, canonical_dims, p.output_perm);
}

// Saturates integer sums to the result type when it is narrower than 32 bits.
void ClampNarrowIntegers(PrimitiveType type, std::vector<uint64_t>* values) {
  const int bits = primitive_util::BitWidth(type);
  if (bits >= 32) return;
  if (primitive_util::IsSignedIntegralType(type)) {
    const int64_t hi = (int64_t{1} << (bits - 1)) - 1;
    const int64_t lo = -hi - 1;
    for (uint64_t& v : *values) v = static_cast<uint64_t>(std::clamp(static_cast<int64_t>(v), lo, hi));
  } else {
    const uint64_t hi = (uint64_t{1} << bits) - 1;
    for (uint64_t& v : *values) v = std::min(v, hi);
  }
}

absl::StatusOr<ConvPlan> MakePlan(const HloInstruction& instruction, const Shape& lhs, const Shape& rhs) {
  const ConvolutionDimensionNumbers& dn = instruction.attrs().convolution_dimension_numbers();
  const Shape& out = instruction.shape();
  const int64_t rank = dn.input_spatial_dimensions_size();
  if (dn.kernel_spatial_dimensions_size() != rank || dn.output_spatial_dimensions_size() != rank) {
    return absl::InvalidArgumentError("convolution spatial dimension counts differ");
  }
  if (lhs.rank() != rank + 2 || rhs.rank() != rank + 2 || out.rank() != rank + 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("convolution operands and result must have rank ", rank + 2, " (", rank, " spatial dims)"));
  }
  if (instruction.attrs().window().dimensions_size() != rank) {
    return absl::InvalidArgumentError("convolution window rank differs from the spatial dimension count");
  }
  ConvPlan p;
  p.input_perm.push_back(dn.input_batch_dimension());
  p.kernel_perm.push_back(dn.kernel_output_feature_dimension());
  std::vector<int64_t> canonical_out = {dn.output_batch_dimension()};
  for (int64_t d = 0; d < rank; ++d) {
    p.input_perm.push_back(dn.input_spatial_dimensions(d));
    p.kernel_perm.push_back(dn.kernel_spatial_dimensions(d));
    canonical_out.push_back(dn.output_spatial_dimensions(d));
  }
  p.input_perm.push_back(dn.input_feature_dimension());
  p.kernel_perm.push_back(dn.kernel_input_feature_dimension());
  canonical_out.push_back(dn.output_feature_dimension());
  RETURN_IF_ERROR(CheckDimensions(p.input_perm, rank + 2, "convolution input"));
  RETURN_IF_ERROR(CheckDimensions(p.kernel_perm, rank + 2, "convolution kernel"));
  RETURN_IF_ERROR(CheckDimensions(canonical_out, rank + 2, "convolution output"));
  // Result dim i is canonical position output_perm[i].
  p.output_perm.assign(rank + 2, 0);
  for (int64_t i = 0; i < rank + 2; ++i) p.output_perm[canonical_out[i]] = i;

  p.feature_groups = std::max<int64_t>(1, instruction.attrs().feature_group_count());
  p.batch_groups = std::max<int64_t>(1, instruction.attrs().batch_group_count());
  if (instruction.attrs().feature_group_count() < 0 || instruction.attrs().batch_group_count() < 0) {
    return absl::InvalidArgumentError("group counts must be positive");
  }
  p.input_batch = lhs.dimensions(dn.input_batch_dimension());
  p.input_features = lhs.dimensions(dn.input_feature_dimension());
  p.kernel_input_features = rhs.dimensions(dn.kernel_input_feature_dimension());
  p.output_features = rhs.dimensions(dn.kernel_output_feature_dimension());
  p.output_batch = out.dimensions(dn.output_batch_dimension());
  if (p.input_features != p.kernel_input_features * p.feature_groups) {
    return absl::InvalidArgumentError(absl::StrCat("input feature size ", p.input_features,
                                                   " must be kernel input features ", p.kernel_input_features,
                                                   " times feature_group_count ", p.feature_groups));
  }
  if (p.output_features % p.feature_groups != 0 || p.output_features % p.batch_groups != 0) {
    return absl::InvalidArgumentError("kernel output features must divide by the group counts");
  }
  if (p.input_batch % p.batch_groups != 0 || p.output_batch != p.input_batch / p.batch_groups) {
    return absl::InvalidArgumentError(absl::StrCat("output batch ", p.output_batch, " must be input batch ",
                                                   p.input_batch, " / batch_group_count ", p.batch_groups));
  }
  if (out.dimensions(dn.output_feature_dimension()) != p.output_features) {
    return absl::InvalidArgumentError("output feature size differs from the kernel output features");
  }
  for (int64_t d = 0; d < rank; ++d) {
    const WindowDimension& w = instruction.attrs().window().dimensions(d);
    SpatialDim s;
    s.input = lhs.dimensions(dn.input_spatial_dimensions(d));
    s.kernel = rhs.dimensions(dn.kernel_spatial_dimensions(d));
    s.output = out.dimensions(dn.output_spatial_dimensions(d));
    if (w.stride() < 0 || w.base_dilation() < 0 || w.window_dilation() < 0) {
      return absl::InvalidArgumentError("window strides and dilations must be positive");
    }
    s.stride = std::max<int64_t>(1, w.stride());
    s.base_dilation = std::max<int64_t>(1, w.base_dilation());
    s.window_dilation = std::max<int64_t>(1, w.window_dilation());
    s.pad_low = w.padding_low();
    s.reversal = w.window_reversal();
    if (w.size() != s.kernel) {
      return absl::InvalidArgumentError(
          absl::StrCat("window size ", w.size(), " differs from kernel spatial size ", s.kernel));
    }
    const int64_t expected = WindowOutputSize(s.input, s.kernel, w, s.base_dilation, s.window_dilation, s.stride);
    if (expected != s.output) {
      return absl::InvalidArgumentError(absl::StrCat("output spatial dimension ", d, " has size ", s.output,
                                                     "; the window gives ", expected));
    }
    p.spatial.push_back(s);
  }
  return p;
}

absl::StatusOr<Literal> Convolution(EvalContext& ctx, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(operands, 2));
  const Shape& result_shape = instruction.shape();
  if (!result_shape.IsArray()) return absl::InvalidArgumentError("convolution result must be an array");
  ASSIGN_OR_RETURN(ConvPlan plan, MakePlan(instruction, operands[0]->shape(), operands[1]->shape()));
  const PrimitiveType type = result_shape.element_type();
  ASSIGN_OR_RETURN(Literal lhs, ConvertedTo(*operands[0], type));
  ASSIGN_OR_RETURN(Literal rhs, ConvertedTo(*operands[1], type));
  return WithAccumulator(type, [&](auto accumulator) -> absl::StatusOr<Literal> {
    using Accumulator = decltype(accumulator);
    ASSIGN_OR_RETURN(std::vector<Accumulator> values, RunConv<Accumulator>(ctx.evaluator, lhs, rhs, plan));
    if constexpr (std::is_same_v<Accumulator, uint64_t>) {
      // XLA's evaluator saturates integer convolutions narrower than 32 bits.
      if (AccumKindOf(type) == AccumKind::kInt) ClampNarrowIntegers(type, &values);
    }
    return WriteValues(result_shape, values);
  });
}

}  // namespace

void RegisterConvolutionHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kConvolution, Convolution);
}

}  // namespace linalg
}  // namespace interpreter
}  // namespace xla
