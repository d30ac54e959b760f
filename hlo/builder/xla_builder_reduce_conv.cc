// Reductions, windowed ops, dot, convolution, FFT, linear algebra and batch norm.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hlo/builder/xla_builder.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace {

// XLA's MakeWindow: every field is written (stride and dilations default to 1), which
// is also what the text parser fills in.
absl::StatusOr<Window> MakeWindow(absl::Span<const int64_t> window_dimensions,
                                  absl::Span<const int64_t> window_strides,
                                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                                  absl::Span<const int64_t> lhs_dilation,
                                  absl::Span<const int64_t> rhs_dilation) {
  const size_t n = window_dimensions.size();
  auto check = [&](size_t size, const char* what) -> absl::Status {
    if (size != 0 && size != n) {
      return absl::InvalidArgumentError(absl::StrCat("window has ", n, " dimensions but ", what,
                                                     " has ", size, " entries"));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(check(window_strides.size(), "window_strides"));
  RETURN_IF_ERROR(check(padding.size(), "padding"));
  RETURN_IF_ERROR(check(lhs_dilation.size(), "lhs/base dilation"));
  RETURN_IF_ERROR(check(rhs_dilation.size(), "rhs/window dilation"));
  Window window;
  for (size_t i = 0; i < n; ++i) {
    WindowDimension* d = window.add_dimensions();
    d->set_size(window_dimensions[i]);
    d->set_stride(window_strides.empty() ? 1 : window_strides[i]);
    if (!padding.empty()) {
      d->set_padding_low(padding[i].first);
      d->set_padding_high(padding[i].second);
    }
    d->set_base_dilation(lhs_dilation.empty() ? 1 : lhs_dilation[i]);
    d->set_window_dilation(rhs_dilation.empty() ? 1 : rhs_dilation[i]);
  }
  return window;
}

}  // namespace

XlaOp Reduce(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
             absl::Span<const int64_t> dimensions_to_reduce) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return Reduce(b, {operand}, {init_value}, computation, dimensions_to_reduce);
}

XlaOp Reduce(XlaBuilder* builder, absl::Span<const XlaOp> operands,
             absl::Span<const XlaOp> init_values, const XlaComputation& computation,
             absl::Span<const int64_t> dimensions_to_reduce) {
  return builder->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (operands.size() != init_values.size()) {
      return absl::InvalidArgumentError(absl::StrCat("reduce: ", operands.size(), " operands but ",
                                                     init_values.size(), " init values"));
    }
    HloInstructionProto instr;
    for (int64_t d : dimensions_to_reduce) instr.add_dimensions(d);
    RETURN_IF_ERROR(builder->AddCalledComputation(computation, &instr));
    std::vector<XlaOp> all(operands.begin(), operands.end());
    all.insert(all.end(), init_values.begin(), init_values.end());
    return builder->AddInferredInstruction(std::move(instr), HloOpcode::kReduce, all);
  });
}

XlaOp ReduceAll(XlaOp operand, XlaOp init_value, const XlaComputation& computation) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(operand));
    std::vector<int64_t> all(shape->rank());
    for (int64_t i = 0; i < shape->rank(); ++i) all[i] = i;
    return Reduce(operand, init_value, computation, all);
  });
}

XlaOp ReduceWindow(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
                   absl::Span<const int64_t> window_dimensions,
                   absl::Span<const int64_t> window_strides, Padding padding) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(operand));
    auto pads = MakePadding(shape->dimensions(), window_dimensions, window_strides, padding);
    return ReduceWindowWithGeneralPadding(operand, init_value, computation, window_dimensions,
                                          window_strides, {}, {}, pads);
  });
}

XlaOp ReduceWindowWithGeneralPadding(XlaOp operand, XlaOp init_value,
                                     const XlaComputation& computation,
                                     absl::Span<const int64_t> window_dimensions,
                                     absl::Span<const int64_t> window_strides,
                                     absl::Span<const int64_t> base_dilations,
                                     absl::Span<const int64_t> window_dilations,
                                     absl::Span<const std::pair<int64_t, int64_t>> padding) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    ASSIGN_OR_RETURN(*instr.mutable_window(), MakeWindow(window_dimensions, window_strides, padding,
                                                         base_dilations, window_dilations));
    RETURN_IF_ERROR(b->AddCalledComputation(computation, &instr));
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kReduceWindow, {operand, init_value});
  });
}

XlaOp SelectAndScatter(XlaOp operand, const XlaComputation& select,
                       absl::Span<const int64_t> window_dimensions,
                       absl::Span<const int64_t> window_strides, Padding padding, XlaOp source,
                       XlaOp init_value, const XlaComputation& scatter) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(operand));
    auto pads = MakePadding(shape->dimensions(), window_dimensions, window_strides, padding);
    return SelectAndScatterWithGeneralPadding(operand, select, window_dimensions, window_strides,
                                              pads, source, init_value, scatter);
  });
}

XlaOp SelectAndScatterWithGeneralPadding(XlaOp operand, const XlaComputation& select,
                                         absl::Span<const int64_t> window_dimensions,
                                         absl::Span<const int64_t> window_strides,
                                         absl::Span<const std::pair<int64_t, int64_t>> padding,
                                         XlaOp source, XlaOp init_value,
                                         const XlaComputation& scatter) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    ASSIGN_OR_RETURN(*instr.mutable_window(),
                     MakeWindow(window_dimensions, window_strides, padding, {}, {}));
    RETURN_IF_ERROR(b->AddCalledComputation(select, &instr));
    RETURN_IF_ERROR(b->AddCalledComputation(scatter, &instr));
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kSelectAndScatter,
                                     {operand, source, init_value});
  });
}

namespace {

// Infers the op, then applies a preferred result element type.
absl::StatusOr<XlaOp> AddWithPreferredType(XlaBuilder* b, HloInstructionProto instr,
                                           HloOpcode opcode, absl::Span<const XlaOp> operands,
                                           std::optional<PrimitiveType> preferred) {
  if (!preferred.has_value()) return b->AddInferredInstruction(std::move(instr), opcode, operands);
  ASSIGN_OR_RETURN(Shape shape, b->InferShape(instr, opcode, operands));
  shape.set_element_type(*preferred);
  *instr.mutable_shape() = shape.ToProto();
  return b->AddInstruction(std::move(instr), opcode, operands);
}

}  // namespace

XlaOp Dot(XlaOp lhs, XlaOp rhs, const PrecisionConfig* precision_config,
          std::optional<PrimitiveType> preferred_element_type) {
  XlaBuilder* b = lhs.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(lhs));
    DotDimensionNumbers dnums;
    dnums.add_lhs_contracting_dimensions(shape->rank() == 1 ? 0 : 1);
    dnums.add_rhs_contracting_dimensions(0);
    return DotGeneral(lhs, rhs, dnums, precision_config, preferred_element_type);
  });
}

XlaOp DotGeneral(XlaOp lhs, XlaOp rhs, const DotDimensionNumbers& dimension_numbers,
                 const PrecisionConfig* precision_config,
                 std::optional<PrimitiveType> preferred_element_type) {
  XlaBuilder* b = lhs.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    *instr.mutable_dot_dimension_numbers() = dimension_numbers;
    if (precision_config != nullptr) *instr.mutable_precision_config() = *precision_config;
    return AddWithPreferredType(b, std::move(instr), HloOpcode::kDot, {lhs, rhs},
                                preferred_element_type);
  });
}

XlaOp RaggedDot(XlaOp lhs, XlaOp rhs, XlaOp group_sizes, const RaggedDotDimensionNumbers& dimension_numbers,
                const PrecisionConfig* precision_config, std::optional<PrimitiveType> preferred_element_type) {
  XlaBuilder* b = lhs.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    *instr.mutable_ragged_dot_dimension_numbers() = dimension_numbers;
    if (precision_config != nullptr) *instr.mutable_precision_config() = *precision_config;
    return AddWithPreferredType(b, std::move(instr), HloOpcode::kRaggedDot, {lhs, rhs, group_sizes},
                                preferred_element_type);
  });
}

ConvolutionDimensionNumbers CreateDefaultConvDimensionNumbers(int num_spatial_dims) {
  ConvolutionDimensionNumbers d;
  d.set_input_batch_dimension(0);
  d.set_input_feature_dimension(1);
  d.set_output_batch_dimension(0);
  d.set_output_feature_dimension(1);
  d.set_kernel_output_feature_dimension(0);
  d.set_kernel_input_feature_dimension(1);
  for (int i = 0; i < num_spatial_dims; ++i) {
    d.add_input_spatial_dimensions(i + 2);
    d.add_kernel_spatial_dimensions(i + 2);
    d.add_output_spatial_dimensions(i + 2);
  }
  return d;
}

XlaOp Conv(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides, Padding padding,
           int64_t feature_group_count, int64_t batch_group_count,
           const PrecisionConfig* precision_config,
           std::optional<PrimitiveType> preferred_element_type) {
  XlaBuilder* b = lhs.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(lhs));
    const int spatial = static_cast<int>(std::max<int64_t>(0, shape->rank() - 2));
    return ConvWithGeneralDimensions(lhs, rhs, window_strides, padding,
                                     CreateDefaultConvDimensionNumbers(spatial), feature_group_count,
                                     batch_group_count, precision_config, preferred_element_type);
  });
}

XlaOp ConvWithGeneralPadding(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                             absl::Span<const std::pair<int64_t, int64_t>> padding,
                             int64_t feature_group_count, int64_t batch_group_count,
                             const PrecisionConfig* precision_config,
                             std::optional<PrimitiveType> preferred_element_type) {
  XlaBuilder* b = lhs.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape* shape, b->GetShapePtr(lhs));
    const int spatial = static_cast<int>(std::max<int64_t>(0, shape->rank() - 2));
    return ConvGeneral(lhs, rhs, window_strides, padding, CreateDefaultConvDimensionNumbers(spatial),
                       feature_group_count, batch_group_count, precision_config,
                       preferred_element_type);
  });
}

XlaOp ConvWithGeneralDimensions(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                                Padding padding, const ConvolutionDimensionNumbers& dimension_numbers,
                                int64_t feature_group_count, int64_t batch_group_count,
                                const PrecisionConfig* precision_config,
                                std::optional<PrimitiveType> preferred_element_type) {
  XlaBuilder* b = lhs.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape lhs_shape, b->GetShape(lhs));
    ASSIGN_OR_RETURN(const Shape rhs_shape, b->GetShape(rhs));
    std::vector<int64_t> input_spatial, kernel_spatial;
    for (int64_t d : dimension_numbers.input_spatial_dimensions()) {
      if (d < 0 || d >= lhs_shape.rank()) {
        return absl::InvalidArgumentError(absl::StrCat("convolution: input spatial dimension ", d,
                                                       " out of range for ", lhs_shape.ToString()));
      }
      input_spatial.push_back(lhs_shape.dimensions(static_cast<int>(d)));
    }
    for (int64_t d : dimension_numbers.kernel_spatial_dimensions()) {
      if (d < 0 || d >= rhs_shape.rank()) {
        return absl::InvalidArgumentError(absl::StrCat("convolution: kernel spatial dimension ", d,
                                                       " out of range for ", rhs_shape.ToString()));
      }
      kernel_spatial.push_back(rhs_shape.dimensions(static_cast<int>(d)));
    }
    return ConvGeneral(lhs, rhs, window_strides,
                       MakePadding(input_spatial, kernel_spatial, window_strides, padding),
                       dimension_numbers, feature_group_count, batch_group_count, precision_config,
                       preferred_element_type);
  });
}

XlaOp ConvGeneral(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                  const ConvolutionDimensionNumbers& dimension_numbers, int64_t feature_group_count,
                  int64_t batch_group_count, const PrecisionConfig* precision_config,
                  std::optional<PrimitiveType> preferred_element_type) {
  return ConvGeneralDilated(lhs, rhs, window_strides, padding, {}, {}, dimension_numbers,
                            feature_group_count, batch_group_count, precision_config,
                            preferred_element_type);
}

XlaOp ConvGeneralDilated(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                         absl::Span<const std::pair<int64_t, int64_t>> padding,
                         absl::Span<const int64_t> lhs_dilation,
                         absl::Span<const int64_t> rhs_dilation,
                         const ConvolutionDimensionNumbers& dimension_numbers,
                         int64_t feature_group_count, int64_t batch_group_count,
                         const PrecisionConfig* precision_config,
                         std::optional<PrimitiveType> preferred_element_type) {
  XlaBuilder* b = lhs.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(const Shape rhs_shape, b->GetShape(rhs));
    std::vector<int64_t> window_dims;
    for (int64_t d : dimension_numbers.kernel_spatial_dimensions()) {
      if (d < 0 || d >= rhs_shape.rank()) {
        return absl::InvalidArgumentError(absl::StrCat("convolution: kernel spatial dimension ", d,
                                                       " out of range for ", rhs_shape.ToString()));
      }
      window_dims.push_back(rhs_shape.dimensions(static_cast<int>(d)));
    }
    HloInstructionProto instr;
    ASSIGN_OR_RETURN(*instr.mutable_window(),
                     MakeWindow(window_dims, window_strides, padding, lhs_dilation, rhs_dilation));
    *instr.mutable_convolution_dimension_numbers() = dimension_numbers;
    // 1 is the default and stays unset, as parsed text without the attribute.
    if (feature_group_count != 1) instr.set_feature_group_count(feature_group_count);
    if (batch_group_count != 1) instr.set_batch_group_count(batch_group_count);
    if (precision_config != nullptr) *instr.mutable_precision_config() = *precision_config;
    return AddWithPreferredType(b, std::move(instr), HloOpcode::kConvolution, {lhs, rhs},
                                preferred_element_type);
  });
}

XlaOp Fft(XlaOp operand, FftType fft_type, absl::Span<const int64_t> fft_length) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    instr.set_fft_type(fft_type);
    for (int64_t l : fft_length) instr.add_fft_length(l);
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kFft, {operand});
  });
}

XlaOp TriangularSolve(XlaOp a, XlaOp b_op, bool left_side, bool lower, bool unit_diagonal,
                      TriangularSolveOptions::Transpose transpose_a) {
  XlaBuilder* b = a.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    TriangularSolveOptions* options = instr.mutable_triangular_solve_options();
    options->set_left_side(left_side);
    options->set_lower(lower);
    options->set_unit_diagonal(unit_diagonal);
    options->set_transpose_a(transpose_a);
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kTriangularSolve, {a, b_op});
  });
}

XlaOp Cholesky(XlaOp a, bool lower) {
  XlaBuilder* b = a.builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    instr.mutable_cholesky_options()->set_lower(lower);
    return b->AddInferredInstruction(std::move(instr), HloOpcode::kCholesky, {a});
  });
}

namespace {
XlaOp BatchNorm(HloOpcode opcode, std::vector<XlaOp> operands, float epsilon, int64_t feature_index) {
  XlaBuilder* b = operands[0].builder();
  if (b == nullptr) return XlaOp();
  return b->ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    HloInstructionProto instr;
    instr.set_epsilon(epsilon);
    instr.set_feature_index(feature_index);
    return b->AddInferredInstruction(std::move(instr), opcode, operands);
  });
}
}  // namespace

XlaOp BatchNormTraining(XlaOp operand, XlaOp scale, XlaOp offset, float epsilon,
                        int64_t feature_index) {
  return BatchNorm(HloOpcode::kBatchNormTraining, {operand, scale, offset}, epsilon, feature_index);
}
XlaOp BatchNormInference(XlaOp operand, XlaOp scale, XlaOp offset, XlaOp mean, XlaOp variance,
                         float epsilon, int64_t feature_index) {
  return BatchNorm(HloOpcode::kBatchNormInference, {operand, scale, offset, mean, variance}, epsilon,
                   feature_index);
}
XlaOp BatchNormGrad(XlaOp operand, XlaOp scale, XlaOp batch_mean, XlaOp batch_var,
                    XlaOp grad_output, float epsilon, int64_t feature_index) {
  return BatchNorm(HloOpcode::kBatchNormGrad, {operand, scale, batch_mean, batch_var, grad_output},
                   epsilon, feature_index);
}

}  // namespace xla
