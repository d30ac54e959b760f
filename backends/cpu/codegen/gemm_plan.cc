#include "backends/cpu/codegen/gemm_plan.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "backends/cpu/runtime/gemm.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"

namespace xla {
namespace cpu {
namespace {

// What a dimension of a dot's operand or result is: batch, lhs free (M), rhs free (N) or
// contracting (K), and which one of those (its position in the dimension numbers, or among
// the free dimensions).
struct Role {
  char kind;
  int64_t index;
  bool operator==(const Role& o) const { return kind == o.kind && index == o.index; }
};

// How an array is stored as a batch of matrices: its non-degenerate dimensions from major to
// minor are `batch`, then one run of each of two kinds; `first` is the kind of the major run
// (0 when one of them is empty).
struct MatrixLayout {
  std::vector<Role> batch;
  std::vector<Role> runs[2];
  char first = 0;
};

std::optional<MatrixLayout> Arrange(const Shape& shape, const std::vector<Role>& roles, char x, char y) {
  MatrixLayout layout;
  const auto& m2m = shape.layout().minor_to_major();
  std::vector<Role> major_to_minor;
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) {
    if (shape.dimensions(static_cast<int>(*it)) != 1) major_to_minor.push_back(roles[*it]);
  }
  size_t i = 0;
  while (i < major_to_minor.size() && major_to_minor[i].kind == 'B') layout.batch.push_back(major_to_minor[i++]);
  char current = 0;
  int runs = 0;
  for (; i < major_to_minor.size(); ++i) {
    const char kind = major_to_minor[i].kind;
    if (kind != x && kind != y) return std::nullopt;  // a batch dimension after a matrix one
    if (kind != current) {
      if (++runs > 2) return std::nullopt;
      if (layout.first == 0) layout.first = kind;
      current = kind;
    }
    layout.runs[kind == x ? 0 : 1].push_back(major_to_minor[i]);
  }
  if (layout.runs[0].empty() || layout.runs[1].empty()) layout.first = 0;
  return layout;
}

bool IsGemmFloat(PrimitiveType t) { return t == F32 || t == BF16 || t == F16; }

bool IsPlainInteger(PrimitiveType t) {
  return t == S8 || t == S16 || t == S32 || t == S64 || t == U8 || t == U16 || t == U32 || t == U64;
}

Shape LaidOut(const Shape& s) {
  Shape out = s;
  ShapeUtil::SetDefaultLayoutsIfMissing(&out);
  return out;
}

}  // namespace

std::optional<DotCall> PlanDotCall(const HloInstruction& hlo, const Shape& lhs_in, const Shape& rhs_in,
                                   const Shape& out_in) {
  if (hlo.operand_count() != 2 || !lhs_in.IsArray() || !rhs_in.IsArray() || !out_in.IsArray()) return std::nullopt;
  const Shape lhs = LaidOut(lhs_in), rhs = LaidOut(rhs_in), out = LaidOut(out_in);
  const PrimitiveType lt = lhs.element_type(), rt = rhs.element_type(), ot = out.element_type();
  const bool floats = (IsGemmFloat(lt) && IsGemmFloat(rt) && IsGemmFloat(ot)) || (lt == F64 && rt == F64 && ot == F64);
  const bool integers = IsPlainInteger(lt) && IsPlainInteger(rt) && IsPlainInteger(ot);
  if (!floats && !integers) return std::nullopt;
  if (!lhs.is_static() || !rhs.is_static() || !out.is_static()) return std::nullopt;
  for (const Shape* s : {&lhs, &rhs, &out}) {
    if (ShapeUtil::ElementsIn(*s) == 0) return std::nullopt;
  }
  const DotDimensionNumbers& d = hlo.attrs().dot_dimension_numbers();
  if (d.lhs_batch_dimensions_size() != d.rhs_batch_dimensions_size() ||
      d.lhs_contracting_dimensions_size() != d.rhs_contracting_dimensions_size()) {
    return std::nullopt;
  }
  // Roles of every dimension; free dimensions numbered in order, as the result lists them.
  std::vector<Role> lroles(lhs.rank(), Role{0, -1}), rroles(rhs.rank(), Role{0, -1});
  for (int i = 0; i < d.lhs_batch_dimensions_size(); ++i) {
    lroles.at(d.lhs_batch_dimensions(i)) = {'B', i};
    rroles.at(d.rhs_batch_dimensions(i)) = {'B', i};
  }
  for (int i = 0; i < d.lhs_contracting_dimensions_size(); ++i) {
    lroles.at(d.lhs_contracting_dimensions(i)) = {'K', i};
    rroles.at(d.rhs_contracting_dimensions(i)) = {'K', i};
  }
  int64_t m = 1, n = 1, k = 1, batch = 1, free_l = 0, free_r = 0;
  for (int64_t i = 0; i < lhs.rank(); ++i) {
    const int64_t size = lhs.dimensions(static_cast<int>(i));
    if (lroles[i].kind == 0) {
      lroles[i] = {'M', free_l++};
      m *= size;
    } else if (lroles[i].kind == 'K') {
      k *= size;
    } else {
      batch *= size;
    }
  }
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (rroles[i].kind == 0) {
      rroles[i] = {'N', free_r++};
      n *= rhs.dimensions(static_cast<int>(i));
    }
  }
  const int64_t batch_dims = d.lhs_batch_dimensions_size();
  if (out.rank() != batch_dims + free_l + free_r) return std::nullopt;
  std::vector<Role> oroles;
  for (int64_t i = 0; i < batch_dims; ++i) oroles.push_back({'B', i});
  for (int64_t i = 0; i < free_l; ++i) oroles.push_back({'M', i});
  for (int64_t i = 0; i < free_r; ++i) oroles.push_back({'N', i});

  const std::optional<MatrixLayout> a = Arrange(lhs, lroles, 'M', 'K');
  const std::optional<MatrixLayout> b = Arrange(rhs, rroles, 'K', 'N');
  const std::optional<MatrixLayout> c = Arrange(out, oroles, 'M', 'N');
  if (!a || !b || !c) return std::nullopt;
  // One batch order, one contracting order, one order of each operand's free dimensions.
  if (a->batch != b->batch || a->batch != c->batch || a->runs[1] != b->runs[0] || a->runs[0] != c->runs[0] ||
      b->runs[1] != c->runs[1]) {
    return std::nullopt;
  }
  // BLAS takes its sizes and strides as int.
  if (std::max({m, n, k}) > std::numeric_limits<int>::max()) return std::nullopt;
  bool trans_a = a->first == 'K', trans_b = b->first == 'N';
  int64_t lda = trans_a ? m : k, ldb = trans_b ? k : n;
  std::vector<int64_t> desc(kDotFields);
  desc[kDotBatch] = batch;
  desc[kDotK] = k;
  if (c->first != 'N') {
    desc[kDotLhsType] = lt;
    desc[kDotRhsType] = rt;
    desc[kDotM] = m;
    desc[kDotN] = n;
    desc[kDotTransA] = trans_a;
    desc[kDotLda] = lda;
    desc[kDotStrideA] = m * k;
    desc[kDotTransB] = trans_b;
    desc[kDotLdb] = ldb;
    desc[kDotStrideB] = k * n;
  } else {
    // The result is stored [n][m]: C^T = op(B)^T op(A)^T, operands swapped.
    desc[kDotLhsType] = rt;
    desc[kDotRhsType] = lt;
    desc[kDotM] = n;
    desc[kDotN] = m;
    desc[kDotTransA] = !trans_b;
    desc[kDotLda] = ldb;
    desc[kDotStrideA] = k * n;
    desc[kDotTransB] = !trans_a;
    desc[kDotLdb] = lda;
    desc[kDotStrideB] = m * k;
  }
  desc[kDotOutType] = ot;
  desc[kDotStrideC] = m * n;
  return DotCall{std::move(desc), c->first == 'N'};
}

std::optional<std::vector<int64_t>> PlanConvolutionCall(const HloInstruction& hlo, const Shape& lhs_in,
                                                        const Shape& rhs_in, const Shape& out_in) {
  if (hlo.operand_count() != 2 || !lhs_in.IsArray() || !rhs_in.IsArray() || !out_in.IsArray()) return std::nullopt;
  const Shape lhs = LaidOut(lhs_in), rhs = LaidOut(rhs_in), out = LaidOut(out_in);
  const PrimitiveType t = out.element_type();
  if ((t != F32 && t != F64) || lhs.element_type() != t || rhs.element_type() != t) return std::nullopt;
  if (!lhs.is_static() || !rhs.is_static() || !out.is_static()) return std::nullopt;
  const HloInstructionProto& attrs = hlo.attrs();
  const ConvolutionDimensionNumbers& dn = attrs.convolution_dimension_numbers();
  const int64_t rank = dn.input_spatial_dimensions_size();
  if (dn.kernel_spatial_dimensions_size() != rank || dn.output_spatial_dimensions_size() != rank ||
      attrs.window().dimensions_size() != rank || lhs.rank() != rank + 2 || rhs.rank() != rank + 2 ||
      out.rank() != rank + 2) {
    return std::nullopt;
  }
  for (const Shape* s : {&lhs, &rhs, &out}) {
    if (ShapeUtil::ElementsIn(*s) == 0) return std::nullopt;
  }
  auto strides = [](const Shape& s) {
    std::vector<int64_t> result(s.rank());
    int64_t stride = 1;
    for (int64_t d : s.layout().minor_to_major()) {
      result[d] = stride;
      stride *= s.dimensions(static_cast<int>(d));
    }
    return result;
  };
  const std::vector<int64_t> ls = strides(lhs), ks = strides(rhs), os = strides(out);
  const int64_t groups = std::max<int64_t>(1, attrs.feature_group_count());
  const int64_t batch_groups = std::max<int64_t>(1, attrs.batch_group_count());
  const int64_t in_features = lhs.dimensions(static_cast<int>(dn.input_feature_dimension()));
  const int64_t kernel_in = rhs.dimensions(static_cast<int>(dn.kernel_input_feature_dimension()));
  const int64_t out_features = rhs.dimensions(static_cast<int>(dn.kernel_output_feature_dimension()));
  if (in_features != kernel_in * groups || out_features % groups != 0 || out_features % batch_groups != 0 ||
      (groups > 1 && batch_groups > 1) ||
      out.dimensions(static_cast<int>(dn.output_feature_dimension())) != out_features ||
      out.dimensions(static_cast<int>(dn.output_batch_dimension())) * batch_groups !=
          lhs.dimensions(static_cast<int>(dn.input_batch_dimension()))) {
    return std::nullopt;
  }
  std::vector<int64_t> desc(kConvHeaderFields);
  desc[kConvType] = t;
  desc[kConvSpatialRank] = rank;
  desc[kConvBatch] = lhs.dimensions(static_cast<int>(dn.input_batch_dimension()));
  desc[kConvInputFeatures] = in_features;
  desc[kConvOutputFeatures] = out_features;
  desc[kConvFeatureGroups] = groups;
  desc[kConvInputBatchStride] = ls[dn.input_batch_dimension()];
  desc[kConvInputFeatureStride] = ls[dn.input_feature_dimension()];
  desc[kConvKernelInputStride] = ks[dn.kernel_input_feature_dimension()];
  desc[kConvKernelOutputStride] = ks[dn.kernel_output_feature_dimension()];
  desc[kConvOutputBatchStride] = os[dn.output_batch_dimension()];
  desc[kConvOutputFeatureStride] = os[dn.output_feature_dimension()];
  desc[kConvBatchGroups] = batch_groups;
  for (int64_t r = 0; r < rank; ++r) {
    const int i = static_cast<int>(r);
    const WindowDimension& w = attrs.window().dimensions(i);
    const int64_t id = dn.input_spatial_dimensions(i), kd = dn.kernel_spatial_dimensions(i);
    const int64_t od = dn.output_spatial_dimensions(i);
    std::vector<int64_t> s(kConvSpatialFields);
    s[kConvInputSize] = lhs.dimensions(static_cast<int>(id));
    s[kConvInputStride] = ls[id];
    s[kConvKernelSize] = rhs.dimensions(static_cast<int>(kd));
    s[kConvKernelStride] = ks[kd];
    s[kConvOutputSize] = out.dimensions(static_cast<int>(od));
    s[kConvOutputStride] = os[od];
    s[kConvWindowStride] = std::max<int64_t>(1, w.stride());
    s[kConvPadLow] = w.padding_low();
    s[kConvBaseDilation] = std::max<int64_t>(1, w.base_dilation());
    s[kConvWindowDilation] = std::max<int64_t>(1, w.window_dilation());
    s[kConvReversal] = w.window_reversal() ? 1 : 0;
    if (w.size() != 0 && w.size() != s[kConvKernelSize]) return std::nullopt;
    desc.insert(desc.end(), s.begin(), s.end());
  }
  int64_t rows = desc[kConvBatch], depth = kernel_in;
  for (int64_t r = 0; r < rank; ++r) {
    const int64_t* s = desc.data() + kConvHeaderFields + r * kConvSpatialFields;
    rows *= s[kConvOutputSize];
    depth *= s[kConvKernelSize];
  }
  // BLAS takes its sizes and strides as int.
  if (std::max({rows, depth, out_features}) > std::numeric_limits<int>::max()) return std::nullopt;
  return desc;
}

bool PreferDotCall(const DotCall& call) {
  const std::vector<int64_t>& d = call.descriptor;
  const int64_t macs = d[kDotBatch] * d[kDotM] * d[kDotN] * d[kDotK];
  const auto narrow = [](int64_t t) { return t == BF16 || t == F16; };
  const PrimitiveType out = static_cast<PrimitiveType>(d[kDotOutType]);
  if (primitive_util::IsIntegralType(out)) {
    // Packed A, B and C in 32- or 64-bit words, one batch at a time (runtime/gemm.cc IntDot).
    const int64_t word = out == S64 || out == U64 ? 8 : 4;
    const int64_t scratch = (d[kDotM] * d[kDotK] + d[kDotK] * d[kDotN] + d[kDotM] * d[kDotN]) * word;
    return macs >= kIntDotGemmMinMacs && scratch <= kMaxGemmScratchBytes;
  }
  if (narrow(d[kDotLhsType]) || narrow(d[kDotRhsType]) || narrow(d[kDotOutType])) {
    // Each narrow array widened whole to f32.
    int64_t scratch = 0;
    if (narrow(d[kDotLhsType])) scratch += d[kDotBatch] * d[kDotStrideA] * 4;
    if (narrow(d[kDotRhsType])) scratch += d[kDotBatch] * d[kDotStrideB] * 4;
    if (narrow(d[kDotOutType])) scratch += d[kDotBatch] * d[kDotStrideC] * 4;
    return macs >= kNarrowFloatDotGemmMinMacs && scratch <= kMaxGemmScratchBytes;
  }
  return true;
}

bool PreferConvolutionCall(const std::vector<int64_t>& d) {
  int64_t macs =
      d[kConvBatch] / d[kConvBatchGroups] * d[kConvOutputFeatures] * (d[kConvInputFeatures] / d[kConvFeatureGroups]);
  // Scratch (runtime/conv_gemm.cc): the packed kernel, and the result where it is not written
  // in place (counted always); the im2col blocks and shifted grids are bounded on their own.
  int64_t kernel = d[kConvOutputFeatures] * (d[kConvInputFeatures] / d[kConvFeatureGroups]);
  int64_t result = d[kConvBatch] / d[kConvBatchGroups] * d[kConvOutputFeatures];
  for (int64_t r = 0; r < d[kConvSpatialRank]; ++r) {
    const int64_t* s = d.data() + kConvHeaderFields + r * kConvSpatialFields;
    macs *= s[kConvOutputSize] * s[kConvKernelSize];
    kernel *= s[kConvKernelSize];
    result *= s[kConvOutputSize];
  }
  const int64_t word = d[kConvType] == F64 ? 8 : 4;
  return macs >= kConvGemmMinMacs && (kernel + result) * word <= kMaxGemmScratchBytes;
}

}  // namespace cpu
}  // namespace xla
