#include "backends/gpu/gpu_conv_gemm.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/passes/pass_util.h"
#include "backends/gpu/rewrite_builder.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_inference_internal.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {
namespace {

// A convolution's sizes, read once from its shapes and attributes.
struct ConvSizes {
  int64_t input_batch = 0, batch = 0;  // the input's and the output's
  int64_t features = 0;
  // Feature groups: group j convolves input features [j, j + 1) * features / groups into
  // output features [j, j + 1) * output_features / groups. Batch groups (batch_groups): group
  // j convolves input batch [j, j + 1) * batch with every input feature into those output
  // features (so the output has batch = input_batch / groups).
  int64_t groups = 1;
  bool batch_groups = false;
  int64_t group_features = 0;   // kernel input features: features / feature groups
  int64_t output_features = 0;  // all groups'
  std::vector<int64_t> input, window, output;  // per spatial dimension
  std::vector<int64_t> stride, window_dilation, base_dilation, pad_low, pad_high;
  std::vector<bool> reversal;
  // Per spatial dimension, what the slices of its run are taken over: window offsets (a
  // slice holds every output position, the stack has a slot per offset), or, when there
  // are fewer outputs than offsets (weight gradients: a window as large as the image, a few
  // outputs), output positions (a slice holds one window, the stack a slot per output).
  std::vector<bool> by_output;
  std::vector<int64_t> stacked;  // slots: output or window size
  PrimitiveType operand_type = PRIMITIVE_TYPE_INVALID;  // of the dot's operands
};

bool IsCublasTypePair(PrimitiveType operand, PrimitiveType result) {
  switch (operand) {
    case F32:
    case F64:
      return result == operand;
    case F16:
    case BF16:
      return result == operand || result == F32;
    default:
      return false;
  }
}

// Types for which dot and convolution compute the same values: both convert their operands
// to the result type and round one wide sum, but the interpreter's convolution saturates
// integer results narrower than 32 bits where dot wraps them.
bool DotMatchesConvolution(PrimitiveType result) {
  if (primitive_util::IsFloatingPointType(result) || primitive_util::IsComplexType(result)) return true;
  return primitive_util::IsIntegralType(result) && primitive_util::BitWidth(result) >= 32;
}

// The dot's operand type: the convolution's when both operands share one that the dot
// takes as it is (the result's, or f16/bf16 to f32); otherwise the result type, to which
// convolution converts its operands first anyway.
PrimitiveType DotOperandType(PrimitiveType lhs, PrimitiveType rhs, PrimitiveType result) {
  if (lhs == rhs && (lhs == result || ((lhs == F16 || lhs == BF16) && result == F32))) return lhs;
  return result;
}

// Reads the sizes; an error for anything the rewrite does not express.
absl::StatusOr<ConvSizes> ReadSizes(const HloInstruction& conv) {
  if (conv.operand_count() != 2 || !conv.shape().IsArray() || !conv.operand(0)->shape().IsArray() ||
      !conv.operand(1)->shape().IsArray()) {
    return absl::InvalidArgumentError("not two array operands and an array result");
  }
  const Shape& lhs = conv.operand(0)->shape();
  const Shape& rhs = conv.operand(1)->shape();
  const Shape& out = conv.shape();
  if (!lhs.is_static() || !rhs.is_static() || !out.is_static()) return absl::InvalidArgumentError("dynamic shapes");
  const ConvolutionDimensionNumbers& dn = conv.attrs().convolution_dimension_numbers();
  const int64_t rank = dn.input_spatial_dimensions_size();
  if (dn.kernel_spatial_dimensions_size() != rank || dn.output_spatial_dimensions_size() != rank ||
      conv.attrs().window().dimensions_size() != rank || lhs.rank() != rank + 2 || rhs.rank() != rank + 2 ||
      out.rank() != rank + 2) {
    return absl::InvalidArgumentError("inconsistent ranks");
  }
  std::vector<int64_t> input_dims = {dn.input_batch_dimension(), dn.input_feature_dimension()};
  std::vector<int64_t> kernel_dims = {dn.kernel_input_feature_dimension(), dn.kernel_output_feature_dimension()};
  std::vector<int64_t> output_dims = {dn.output_batch_dimension(), dn.output_feature_dimension()};
  for (int64_t d = 0; d < rank; ++d) {
    input_dims.push_back(dn.input_spatial_dimensions(d));
    kernel_dims.push_back(dn.kernel_spatial_dimensions(d));
    output_dims.push_back(dn.output_spatial_dimensions(d));
  }
  using shape_inference_internal::IsPermutation;
  if (!IsPermutation(input_dims, rank + 2) || !IsPermutation(kernel_dims, rank + 2) ||
      !IsPermutation(output_dims, rank + 2)) {
    return absl::InvalidArgumentError("dimension numbers are not permutations");
  }
  const int64_t feature_groups = std::max<int64_t>(1, conv.attrs().feature_group_count());
  const int64_t batch_groups = std::max<int64_t>(1, conv.attrs().batch_group_count());
  if (feature_groups > 1 && batch_groups > 1) {
    return absl::InvalidArgumentError("both feature_group_count and batch_group_count > 1");
  }
  ConvSizes s;
  s.groups = std::max(feature_groups, batch_groups);
  s.batch_groups = batch_groups > 1;
  s.input_batch = lhs.dimensions(dn.input_batch_dimension());
  s.batch = out.dimensions(dn.output_batch_dimension());
  s.features = lhs.dimensions(dn.input_feature_dimension());
  s.group_features = rhs.dimensions(dn.kernel_input_feature_dimension());
  s.output_features = rhs.dimensions(dn.kernel_output_feature_dimension());
  if (s.features != s.group_features * feature_groups || s.output_features % s.groups != 0 ||
      out.dimensions(dn.output_feature_dimension()) != s.output_features || s.input_batch % batch_groups != 0 ||
      s.batch != s.input_batch / batch_groups) {
    return absl::InvalidArgumentError("inconsistent feature or batch sizes");
  }
  for (int64_t d = 0; d < rank; ++d) {
    const WindowDimension& w = conv.attrs().window().dimensions(d);
    s.input.push_back(lhs.dimensions(dn.input_spatial_dimensions(d)));
    s.window.push_back(rhs.dimensions(dn.kernel_spatial_dimensions(d)));
    s.output.push_back(out.dimensions(dn.output_spatial_dimensions(d)));
    s.stride.push_back(std::max<int64_t>(1, w.stride()));
    s.window_dilation.push_back(std::max<int64_t>(1, w.window_dilation()));
    s.base_dilation.push_back(std::max<int64_t>(1, w.base_dilation()));
    s.pad_low.push_back(w.padding_low());
    s.pad_high.push_back(w.padding_high());
    s.reversal.push_back(w.window_reversal());
    if (w.size() != s.window.back()) return absl::InvalidArgumentError("window size differs from the kernel's");
    // The padded extent must hold every window the output has (it does for a verified
    // convolution; checked so that no slice below can reach past it).
    const int64_t padded = (s.input.back() - 1) * s.base_dilation.back() + 1 + s.pad_low.back() + s.pad_high.back();
    const int64_t last = (s.output.back() - 1) * s.stride.back() + (s.window.back() - 1) * s.window_dilation.back();
    if (s.input.back() == 0 || s.window.back() == 0 || s.output.back() == 0) {
      return absl::InvalidArgumentError("an empty spatial dimension");
    }
    if (last >= padded) return absl::InvalidArgumentError("windows reach past the padded input");
    s.by_output.push_back(s.output.back() < s.window.back());
    s.stacked.push_back(s.by_output.back() ? s.output.back() : s.window.back());
    if (s.stacked.back() > kMaxStackedOffsets) {
      return absl::InvalidArgumentError(absl::StrCat("a spatial dimension of ", s.window.back(), " window offsets and ",
                                                     s.output.back(), " outputs, both > ", kMaxStackedOffsets));
    }
  }
  if (s.batch == 0 || s.features == 0 || s.output_features == 0) return absl::InvalidArgumentError("empty");
  s.operand_type = DotOperandType(lhs.element_type(), rhs.element_type(), out.element_type());
  return s;
}

// x [b, spatial..., (stacks so far)..., f] -> the strided slice of slot `slot` along the
// spatial dimensions `dims`: a window offset's outputs (shrinking the dimension to the output
// size), or an output position's window (shrinking it to the window size).
HloInstruction* WindowSlice(RewriteBuilder& b, HloInstruction* x, const ConvSizes& s, const std::vector<int64_t>& dims,
                            const std::vector<int64_t>& slot) {
  HloInstructionProto attrs;
  std::vector<int64_t> out = RewriteBuilder::Dims(x);
  for (int64_t i = 0; i < x->shape().rank(); ++i) {
    auto* slice = attrs.add_slice_dimensions();
    slice->set_start(0);
    slice->set_limit(x->shape().dimensions(i));
    slice->set_stride(1);
  }
  for (size_t j = 0; j < dims.size(); ++j) {
    const int64_t d = dims[j];
    auto* slice = attrs.mutable_slice_dimensions(1 + d);
    if (s.by_output[d]) {
      const int64_t start = slot[j] * s.stride[d];
      slice->set_start(start);
      slice->set_limit(start + (s.window[d] - 1) * s.window_dilation[d] + 1);
      slice->set_stride(s.window_dilation[d]);
      out[1 + d] = s.window[d];
    } else {
      const int64_t start = slot[j] * s.window_dilation[d];
      slice->set_start(start);
      slice->set_limit(start + (s.output[d] - 1) * s.stride[d] + 1);
      slice->set_stride(s.stride[d]);
      out[1 + d] = s.output[d];
    }
  }
  return b.Add(HloOpcode::kSlice, x->shape().element_type(), out, {x}, attrs);
}

// Stacks the slots (window offsets or output positions) of spatial dimensions `dims`
// (consecutive) of x [b, spatial..., stacks..., f] as a new dimension before f, numbered
// row-major over `dims`: stack[..., j, :] = slice(slot j). By select on an iota, which the
// fusion pass fuses with the slices into one kernel.
absl::StatusOr<HloInstruction*> StackOffsets(RewriteBuilder& b, HloInstruction* x, const ConvSizes& s,
                                             const std::vector<int64_t>& dims) {
  std::vector<std::vector<int64_t>> offsets = {{}};
  for (int64_t d : dims) {
    std::vector<std::vector<int64_t>> longer;
    for (const std::vector<int64_t>& o : offsets) {
      for (int64_t k = 0; k < s.stacked[d]; ++k) {
        longer.push_back(o);
        longer.back().push_back(k);
      }
    }
    offsets = std::move(longer);
  }
  const int64_t count = static_cast<int64_t>(offsets.size());
  const PrimitiveType type = x->shape().element_type();
  std::vector<HloInstruction*> slices;
  for (const std::vector<int64_t>& o : offsets) slices.push_back(WindowSlice(b, x, s, dims, o));
  std::vector<int64_t> stacked = RewriteBuilder::Dims(slices[0]);
  const int64_t axis = static_cast<int64_t>(stacked.size()) - 1;
  stacked.insert(stacked.begin() + axis, count);
  if (count == 1) return b.Reshape(slices[0], stacked);
  HloInstructionProto broadcast_attrs;
  for (int64_t i = 0; i < static_cast<int64_t>(stacked.size()); ++i) {
    if (i != axis) broadcast_attrs.add_dimensions(i);
  }
  HloInstructionProto iota_attrs;
  iota_attrs.add_dimensions(axis);
  HloInstruction* iota = b.Add(HloOpcode::kIota, S32, stacked, {}, iota_attrs);
  HloInstructionProto compare_attrs;
  compare_attrs.set_comparison_direction("EQ");
  HloInstruction* stack = b.Add(HloOpcode::kBroadcast, type, stacked, {slices[0]}, broadcast_attrs);
  for (int64_t j = 1; j < count; ++j) {
    ASSIGN_OR_RETURN(HloInstruction* index, b.Scalar(S32, static_cast<double>(j)));
    HloInstruction* indices = b.Add(HloOpcode::kBroadcast, S32, stacked, {index});
    HloInstruction* here = b.Add(HloOpcode::kCompare, PRED, stacked, {iota, indices}, compare_attrs);
    HloInstruction* value = b.Add(HloOpcode::kBroadcast, type, stacked, {slices[j]}, broadcast_attrs);
    stack = b.Add(HloOpcode::kSelect, type, stacked, {here, value, stack});
  }
  return stack;
}

// Consecutive spatial dimensions, each run with at most kMaxStackedOffsets slots.
std::vector<std::vector<int64_t>> StackRuns(const ConvSizes& s) {
  std::vector<std::vector<int64_t>> runs;
  int64_t offsets = 0;
  for (int64_t d = 0; d < static_cast<int64_t>(s.window.size()); ++d) {
    if (runs.empty() || offsets * s.stacked[d] > kMaxStackedOffsets) {
      runs.emplace_back();
      offsets = 1;
    }
    runs.back().push_back(d);
    offsets *= s.stacked[d];
  }
  return runs;
}

// Elements of the largest array the rewrite materializes before the dot: the relaid input,
// its padded copy, or the stack after a run of spatial dimensions (the last is the patches).
double LargestIntermediate(const ConvSizes& s) {
  const double rows = static_cast<double>(s.input_batch) * static_cast<double>(s.features);
  std::vector<double> spatial;
  double largest = rows * static_cast<double>(ShapeUtil::Product(s.input));
  for (size_t d = 0; d < s.input.size(); ++d) {
    spatial.push_back(static_cast<double>((s.input[d] - 1) * s.base_dilation[d] + 1 + s.pad_low[d] + s.pad_high[d]));
  }
  double stacked = 1;
  auto elements = [&]() {
    double e = rows * stacked;
    for (double x : spatial) e *= x;
    return e;
  };
  largest = std::max(largest, elements());
  for (const std::vector<int64_t>& run : StackRuns(s)) {
    for (int64_t d : run) {
      spatial[d] = static_cast<double>(s.by_output[d] ? s.window[d] : s.output[d]);
      stacked *= static_cast<double>(s.stacked[d]);
    }
    largest = std::max(largest, elements());
  }
  return largest;
}

absl::Status Rewrite(HloComputation* computation, HloInstruction* conv, const ConvSizes& s) {
  RewriteBuilder b(computation);
  const ConvolutionDimensionNumbers& dn = conv->attrs().convolution_dimension_numbers();
  const int64_t rank = static_cast<int64_t>(s.window.size());
  const int64_t g = s.groups;
  const int64_t og = s.output_features / g;
  const PrimitiveType type = s.operand_type;
  const PrimitiveType result_type = conv->shape().element_type();

  // Window padding (negative crops) and base dilation as one pad with zeros, in the input's
  // own type and dimension order: the convert and relayout below then fuse with the slices
  // into the patch fusion (a pad is a kernel of its own).
  HloInstruction* x = conv->mutable_operand(0);
  const PrimitiveType input_type = x->shape().element_type();
  bool pads = false;
  HloInstructionProto pad_attrs;
  std::vector<int64_t> padded = RewriteBuilder::Dims(x);
  for (int64_t i = 0; i < rank + 2; ++i) pad_attrs.mutable_padding_config()->add_dimensions();
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t i = dn.input_spatial_dimensions(d);
    auto* p = pad_attrs.mutable_padding_config()->mutable_dimensions(i);
    p->set_edge_padding_low(s.pad_low[d]);
    p->set_edge_padding_high(s.pad_high[d]);
    p->set_interior_padding(s.base_dilation[d] - 1);
    padded[i] = (s.input[d] - 1) * s.base_dilation[d] + 1 + s.pad_low[d] + s.pad_high[d];
    pads |= s.pad_low[d] != 0 || s.pad_high[d] != 0 || s.base_dilation[d] != 1;
  }
  if (pads) {
    ASSIGN_OR_RETURN(HloInstruction* zero, b.Scalar(input_type, 0));
    x = b.Add(HloOpcode::kPad, input_type, padded, {x, zero}, pad_attrs);
  }

  // Input as [g * batch, spatial..., features / g] (batch groups: the input batch is
  // already g * batch, group-major, and every group reads every feature).
  x = b.Convert(x, type);
  std::vector<int64_t> perm = {dn.input_batch_dimension()};
  for (int64_t d = 0; d < rank; ++d) perm.push_back(dn.input_spatial_dimensions(d));
  perm.push_back(dn.input_feature_dimension());
  x = b.Transpose(x, perm);
  if (g > 1 && !s.batch_groups) {
    std::vector<int64_t> split = RewriteBuilder::Dims(x);
    split.back() = g;
    split.push_back(s.group_features);
    x = b.Reshape(x, split);
    std::vector<int64_t> group_first = {rank + 1, 0};
    for (int64_t d = 0; d < rank; ++d) group_first.push_back(1 + d);
    group_first.push_back(rank + 2);
    x = b.Transpose(x, group_first);
    std::vector<int64_t> merged = RewriteBuilder::Dims(x);
    merged[1] *= merged[0];
    merged.erase(merged.begin());
    x = b.Reshape(x, merged);
  }

  // Patches [g * batch, output spatial..., window..., features / g] -> [(g,) m, k]. The
  // stacks are split per dimension; dimensions sliced by output position hold their window
  // where the others hold their outputs, so a transpose (fused) swaps those back.
  for (const std::vector<int64_t>& run : StackRuns(s)) {
    ASSIGN_OR_RETURN(x, StackOffsets(b, x, s, run));
  }
  std::vector<int64_t> per_dimension = {RewriteBuilder::Dims(x).front()};
  std::vector<int64_t> patch_perm = {0};
  for (int64_t d = 0; d < rank; ++d) {
    per_dimension.push_back(s.by_output[d] ? s.window[d] : s.output[d]);
    patch_perm.push_back(s.by_output[d] ? 1 + rank + d : 1 + d);
  }
  for (int64_t d = 0; d < rank; ++d) {
    per_dimension.push_back(s.stacked[d]);
    patch_perm.push_back(s.by_output[d] ? 1 + d : 1 + rank + d);
  }
  per_dimension.push_back(RewriteBuilder::Dims(x).back());
  patch_perm.push_back(2 * rank + 1);
  x = b.Transpose(b.Reshape(x, per_dimension), patch_perm);
  const int64_t m = s.batch * ShapeUtil::Product(s.output);
  const int64_t k = ShapeUtil::Product(s.window) * s.group_features;
  HloInstruction* lhs = b.Reshape(x, g > 1 ? std::vector<int64_t>{g, m, k} : std::vector<int64_t>{m, k});

  // Kernel -> [(g,) k, output features / g]: a reshape splits the output feature dimension
  // in place into (g, output features / g), then one transpose orders it as [(g,) window...,
  // features / g, output features / g].
  HloInstruction* w = b.Convert(conv->mutable_operand(1), type);
  HloInstructionProto reverse_attrs;
  for (int64_t d = 0; d < rank; ++d) {
    if (s.reversal[d] && s.window[d] > 1) reverse_attrs.add_dimensions(dn.kernel_spatial_dimensions(d));
  }
  if (reverse_attrs.dimensions_size() > 0) {
    w = b.Add(HloOpcode::kReverse, type, RewriteBuilder::Dims(w), {w}, reverse_attrs);
  }
  const int64_t o_dim = dn.kernel_output_feature_dimension();
  std::vector<int64_t> split_kernel = RewriteBuilder::Dims(w);
  if (g > 1) {
    split_kernel[o_dim] = og;
    split_kernel.insert(split_kernel.begin() + o_dim, g);
  }
  w = b.Reshape(w, split_kernel);
  auto split_position = [&](int64_t i) { return g > 1 && i > o_dim ? i + 1 : i; };
  std::vector<int64_t> kernel_perm;
  if (g > 1) kernel_perm.push_back(o_dim);
  for (int64_t d = 0; d < rank; ++d) kernel_perm.push_back(split_position(dn.kernel_spatial_dimensions(d)));
  kernel_perm.push_back(split_position(dn.kernel_input_feature_dimension()));
  kernel_perm.push_back(g > 1 ? o_dim + 1 : o_dim);
  w = b.Transpose(w, kernel_perm);
  HloInstruction* rhs = b.Reshape(w, g > 1 ? std::vector<int64_t>{g, k, og} : std::vector<int64_t>{k, og});

  HloInstructionProto dot_attrs;
  DotDimensionNumbers* dot_dn = dot_attrs.mutable_dot_dimension_numbers();
  if (g > 1) {
    dot_dn->add_lhs_batch_dimensions(0);
    dot_dn->add_rhs_batch_dimensions(0);
  }
  dot_dn->add_lhs_contracting_dimensions(g > 1 ? 2 : 1);
  dot_dn->add_rhs_contracting_dimensions(g > 1 ? 1 : 0);
  *dot_attrs.mutable_precision_config() = conv->attrs().precision_config();
  HloInstruction* dot = b.Add(HloOpcode::kDot, result_type,
                              g > 1 ? std::vector<int64_t>{g, m, og} : std::vector<int64_t>{m, s.output_features},
                              {lhs, rhs}, dot_attrs);

  // [(g,) batch, output spatial..., output features (/ g)] -> the convolution's dimensions:
  // one transpose, with (g, output features / g) side by side where the feature dimension
  // goes, and a reshape merging them.
  std::vector<int64_t> split_out = {s.batch};
  split_out.insert(split_out.end(), s.output.begin(), s.output.end());
  split_out.push_back(og);
  if (g > 1) split_out.insert(split_out.begin(), g);
  HloInstruction* y = b.Reshape(dot, split_out);
  const int64_t shift = g > 1 ? 1 : 0;
  std::vector<int64_t> spatial_of(rank + 2, -1);
  for (int64_t d = 0; d < rank; ++d) spatial_of[dn.output_spatial_dimensions(d)] = d;
  std::vector<int64_t> out_perm;
  for (int64_t i = 0; i < rank + 2; ++i) {
    if (i == dn.output_batch_dimension()) {
      out_perm.push_back(shift);
    } else if (i == dn.output_feature_dimension()) {
      if (g > 1) out_perm.push_back(0);
      out_perm.push_back(shift + rank + 1);
    } else {
      out_perm.push_back(shift + 1 + spatial_of[i]);
    }
  }
  bool identity = true;
  HloInstructionProto out_attrs;
  for (size_t i = 0; i < out_perm.size(); ++i) {
    out_attrs.add_dimensions(out_perm[i]);
    identity &= out_perm[i] == static_cast<int64_t>(i);
  }
  // The last op carries the convolution's exact shape, layout included.
  HloInstruction* result;
  if (g > 1) {
    result = cpu::AddWithShape(computation, HloOpcode::kReshape, conv->shape(), {b.Transpose(y, out_perm)});
  } else if (identity) {
    result = cpu::AddWithShape(computation, HloOpcode::kReshape, conv->shape(), {y});
  } else {
    result = cpu::AddWithShape(computation, HloOpcode::kTranspose, conv->shape(), {y}, out_attrs);
  }
  return computation->ReplaceInstruction(conv, result);
}

// The sizes of a convolution the rewrite takes under `options`; else an error whose message
// is the refusal.
absl::StatusOr<ConvSizes> AcceptedSizes(const HloInstruction& conv, const ConvGemmOptions& options) {
  auto refuse = [](std::string why) { return absl::FailedPreconditionError(why); };
  if (conv.opcode() != HloOpcode::kConvolution) return refuse("not a convolution");
  if (!conv.control_predecessors().empty() || !conv.control_successors().empty()) {
    return refuse("control dependencies");
  }
  ASSIGN_OR_RETURN(ConvSizes s, ReadSizes(conv));
  const PrimitiveType result = conv.shape().element_type();
  if (!DotMatchesConvolution(result)) {
    return refuse(absl::StrCat("dot would not saturate ",
                               std::string(primitive_util::LowercasePrimitiveTypeName(result)),
                               " sums as convolution does"));
  }
  if (options.cublas_types_only && !IsCublasTypePair(s.operand_type, result)) {
    return refuse(absl::StrCat("no cuBLAS gemm for ",
                               std::string(primitive_util::LowercasePrimitiveTypeName(s.operand_type)), " to ",
                               std::string(primitive_util::LowercasePrimitiveTypeName(result))));
  }
  const int64_t m = s.batch * ShapeUtil::Product(s.output);
  const int64_t k = ShapeUtil::Product(s.window) * s.group_features;
  const int64_t n = s.output_features / s.groups;
  // Multiply-adds, in double: the product of sizes may pass int64 for absurd shapes.
  const double multiply_adds = static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n) *
                               static_cast<double>(s.groups);
  if (multiply_adds < static_cast<double>(options.min_multiply_adds)) {
    return refuse(absl::StrCat("tiny: ", multiply_adds, " multiply-adds"));
  }
  if (n < options.min_output_features) return refuse(absl::StrCat(n, " output features per group"));
  if (k < options.min_contraction) return refuse(absl::StrCat("a contraction of ", k));
  const double bytes = LargestIntermediate(s) * primitive_util::ByteWidth(s.operand_type);
  if (bytes > static_cast<double>(options.max_patch_bytes)) return refuse(absl::StrCat("patches of ", bytes, " bytes"));
  return s;
}

}  // namespace

std::string ConvGemmRefusal(const HloInstruction& conv, const ConvGemmOptions& options) {
  absl::StatusOr<ConvSizes> sizes = AcceptedSizes(conv, options);
  return sizes.ok() ? "" : std::string(sizes.status().message());
}

absl::StatusOr<bool> RewriteConvolutionsAsGemm(HloModule* module, const ConvGemmOptions& options) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    if (computation->is_fusion_computation()) continue;
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      if (hlo->opcode() != HloOpcode::kConvolution) continue;
      absl::StatusOr<ConvSizes> sizes = AcceptedSizes(*hlo, options);
      if (!sizes.ok()) continue;  // refused: the direct kernel computes it
      RETURN_IF_ERROR(Rewrite(computation, hlo, *sizes));
      changed = true;
    }
  }
  return changed;
}

}  // namespace gpu
}  // namespace xla
