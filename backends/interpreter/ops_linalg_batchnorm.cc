// batch-norm-training, batch-norm-inference and batch-norm-grad over every dimension but
// feature_index, in double and rounded once per output (XLA's operation semantics):
//   training:  mean = E[x], var = E[(x - mean)^2] (biased), y = (x - mean) / sqrt(var + eps) * scale + offset
//   inference: y = (x - mean) / sqrt(var + eps) * scale + offset, with the given mean and var
//   grad:      grad_offset = sum(dy), grad_scale = sum(dy * (x - mean)) / sqrt(var + eps),
//              dx = scale / sqrt(var + eps) * (dy - mean(dy) - (x - mean) * mean(dy * (x - mean)) / (var + eps))
#include <cmath>
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

// Maps each element of the operand to its feature.
struct FeatureLayout {
  int64_t features = 0;  // size of the feature dimension
  int64_t inner = 1;     // elements after the feature dimension
  int64_t count = 0;     // elements per feature
  int64_t FeatureOf(int64_t linear) const { return (linear / inner) % features; }
};

absl::StatusOr<FeatureLayout> CheckBatchNorm(const HloInstruction& instruction, Operands operands,
                                             size_t operand_count, const std::vector<int>& per_feature) {
  RETURN_IF_ERROR(CheckArrayOperands(operands, operand_count));
  const Shape& x = operands[0]->shape();
  const int64_t feature_index = instruction.attrs().feature_index();
  if (feature_index < 0 || feature_index >= x.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("feature_index ", feature_index, " out of range for ", x.ToString()));
  }
  FeatureLayout layout;
  layout.features = x.dimensions(feature_index);
  for (int64_t d = feature_index + 1; d < x.rank(); ++d) layout.inner *= x.dimensions(d);
  const int64_t total = ElementCount(x.dimensions());
  layout.count = layout.features == 0 ? 0 : total / layout.features;
  for (int i : per_feature) {
    const Shape& s = operands[i]->shape();
    if (s.rank() != 1 || s.dimensions(0) != layout.features) {
      return absl::InvalidArgumentError(
          absl::StrCat("operand ", i, " must be a vector of the ", layout.features, " features, got ", s.ToString()));
    }
  }
  for (const Literal* operand : operands) {
    if (!primitive_util::IsFloatingPointType(operand->shape().element_type())) {
      return absl::InvalidArgumentError("batch-norm operands must be floating point");
    }
  }
  return layout;
}

absl::Status CheckResult(const Shape& shape, size_t tuple_size, const Shape& x) {
  if (tuple_size == 0) {
    if (!shape.IsArray() || shape.dimensions() != x.dimensions()) {
      return absl::InvalidArgumentError("batch-norm result shape differs from the operand's");
    }
    return absl::OkStatus();
  }
  if (!shape.IsTuple() || shape.tuple_shapes_size() != static_cast<int64_t>(tuple_size) ||
      shape.tuple_shapes(0).dimensions() != x.dimensions()) {
    return absl::InvalidArgumentError(absl::StrCat("batch-norm result must be a ", tuple_size, "-tuple"));
  }
  return absl::OkStatus();
}

std::vector<double> Values(const Literal& literal) {
  std::vector<double> v;
  ReadValues(literal, &v);
  return v;
}

absl::StatusOr<Literal> Normalize(const Shape& shape, const std::vector<double>& x, const FeatureLayout& layout,
                                  const std::vector<double>& mean, const std::vector<double>& var,
                                  const std::vector<double>& scale, const std::vector<double>& offset,
                                  double epsilon) {
  std::vector<double> inv(layout.features);
  for (int64_t c = 0; c < layout.features; ++c) inv[c] = 1.0 / std::sqrt(var[c] + epsilon);
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t c = layout.FeatureOf(i);
    y[i] = (x[i] - mean[c]) * inv[c] * scale[c] + offset[c];
  }
  return WriteValues(shape, y);
}

absl::StatusOr<Literal> BatchNormTraining(EvalContext&, const HloInstruction& instruction, Operands operands) {
  ASSIGN_OR_RETURN(FeatureLayout layout, CheckBatchNorm(instruction, operands, 3, {1, 2}));
  const Shape& shape = instruction.shape();
  RETURN_IF_ERROR(CheckResult(shape, 3, operands[0]->shape()));
  const std::vector<double> x = Values(*operands[0]);
  std::vector<double> mean(layout.features, 0.0), var(layout.features, 0.0);
  for (size_t i = 0; i < x.size(); ++i) mean[layout.FeatureOf(i)] += x[i];
  for (double& m : mean) m /= static_cast<double>(layout.count);
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = x[i] - mean[layout.FeatureOf(i)];
    var[layout.FeatureOf(i)] += d * d;
  }
  for (double& v : var) v /= static_cast<double>(layout.count);
  const double epsilon = instruction.attrs().epsilon();
  std::vector<Literal> elements;
  ASSIGN_OR_RETURN(Literal y, Normalize(shape.tuple_shapes(0), x, layout, mean, var, Values(*operands[1]),
                                        Values(*operands[2]), epsilon));
  elements.push_back(std::move(y));
  ASSIGN_OR_RETURN(Literal mean_lit, WriteValues(shape.tuple_shapes(1), mean));
  elements.push_back(std::move(mean_lit));
  ASSIGN_OR_RETURN(Literal var_lit, WriteValues(shape.tuple_shapes(2), var));
  elements.push_back(std::move(var_lit));
  return Literal::MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> BatchNormInference(EvalContext&, const HloInstruction& instruction, Operands operands) {
  ASSIGN_OR_RETURN(FeatureLayout layout, CheckBatchNorm(instruction, operands, 5, {1, 2, 3, 4}));
  RETURN_IF_ERROR(CheckResult(instruction.shape(), 0, operands[0]->shape()));
  return Normalize(instruction.shape(), Values(*operands[0]), layout, Values(*operands[3]), Values(*operands[4]),
                   Values(*operands[1]), Values(*operands[2]), instruction.attrs().epsilon());
}

absl::StatusOr<Literal> BatchNormGrad(EvalContext&, const HloInstruction& instruction, Operands operands) {
  // operands: operand, scale, mean, variance, grad_output
  ASSIGN_OR_RETURN(FeatureLayout layout, CheckBatchNorm(instruction, operands, 5, {1, 2, 3}));
  const Shape& shape = instruction.shape();
  RETURN_IF_ERROR(CheckResult(shape, 3, operands[0]->shape()));
  if (operands[4]->shape().dimensions() != operands[0]->shape().dimensions()) {
    return absl::InvalidArgumentError("grad_output must have the operand's dimensions");
  }
  const std::vector<double> x = Values(*operands[0]);
  const std::vector<double> scale = Values(*operands[1]);
  const std::vector<double> mean = Values(*operands[2]);
  const std::vector<double> var = Values(*operands[3]);
  const std::vector<double> dy = Values(*operands[4]);
  const double epsilon = instruction.attrs().epsilon();
  std::vector<double> sum_dy(layout.features, 0.0), sum_dy_xc(layout.features, 0.0);
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t c = layout.FeatureOf(i);
    sum_dy[c] += dy[i];
    sum_dy_xc[c] += dy[i] * (x[i] - mean[c]);
  }
  std::vector<double> inv(layout.features), grad_scale(layout.features);
  const double n = static_cast<double>(layout.count);
  for (int64_t c = 0; c < layout.features; ++c) {
    inv[c] = 1.0 / std::sqrt(var[c] + epsilon);
    grad_scale[c] = sum_dy_xc[c] * inv[c];
  }
  std::vector<double> dx(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t c = layout.FeatureOf(i);
    dx[i] = scale[c] * inv[c] *
            (dy[i] - sum_dy[c] / n - (x[i] - mean[c]) * (sum_dy_xc[c] / n) / (var[c] + epsilon));
  }
  std::vector<Literal> elements;
  ASSIGN_OR_RETURN(Literal dx_lit, WriteValues(shape.tuple_shapes(0), dx));
  elements.push_back(std::move(dx_lit));
  ASSIGN_OR_RETURN(Literal scale_lit, WriteValues(shape.tuple_shapes(1), grad_scale));
  elements.push_back(std::move(scale_lit));
  ASSIGN_OR_RETURN(Literal offset_lit, WriteValues(shape.tuple_shapes(2), sum_dy));
  elements.push_back(std::move(offset_lit));
  return Literal::MakeTuple(std::move(elements));
}

}  // namespace

void RegisterBatchNormHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kBatchNormTraining, BatchNormTraining);
  table->Register(HloOpcode::kBatchNormInference, BatchNormInference);
  table->Register(HloOpcode::kBatchNormGrad, BatchNormGrad);
}

}  // namespace linalg
}  // namespace interpreter
}  // namespace xla
