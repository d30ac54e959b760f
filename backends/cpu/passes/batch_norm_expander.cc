#include "backends/cpu/passes/batch_norm_expander.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/passes/pass_util.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

class Expander {
 public:
  Expander(HloModule* module, HloComputation* computation, HloInstruction* bn)
      : module_(module), computation_(computation), bn_(bn) {
    x_ = bn->mutable_operand(0);
    type_ = x_->shape().element_type();
    feature_ = bn->attrs().feature_index();
    for (int64_t d = 0; d < x_->shape().rank(); ++d) {
      if (d != feature_) reduce_dims_.push_back(d);
    }
    count_ = 1;
    for (int64_t d : reduce_dims_) count_ *= x_->shape().dimensions(d);
  }

  absl::StatusOr<HloInstruction*> Expand() {
    switch (bn_->opcode()) {
      case HloOpcode::kBatchNormInference:
        return Inference();
      case HloOpcode::kBatchNormTraining:
        return Training();
      case HloOpcode::kBatchNormGrad:
        return Grad();
      default:
        return absl::InternalError("not a batch-norm op");
    }
  }

 private:
  absl::StatusOr<HloInstruction*> Binary(HloOpcode opcode, HloInstruction* a, HloInstruction* b) {
    return AddInferred(computation_, opcode, {a, b});
  }
  absl::StatusOr<HloInstruction*> Unary(HloOpcode opcode, HloInstruction* a) {
    return AddInferred(computation_, opcode, {a});
  }
  absl::StatusOr<HloInstruction*> Scalar(double value) {
    ASSIGN_OR_RETURN(Literal literal, ScalarLiteral(type_, value));
    return AddConstant(computation_, std::move(literal));
  }
  // A per-feature vector (or scalar) broadcast to the operand's dimensions.
  HloInstruction* ToOperandShape(HloInstruction* value) {
    HloInstructionProto attrs;
    if (value->shape().rank() == 1) attrs.add_dimensions(feature_);
    return AddWithShape(computation_, HloOpcode::kBroadcast,
                        WithDefaultLayout(ShapeUtil::MakeShape(type_, x_->shape().dimensions())), {value}, attrs);
  }
  HloInstruction* ToFeatureShape(HloInstruction* scalar) {
    return AddWithShape(computation_, HloOpcode::kBroadcast,
                        WithDefaultLayout(ShapeUtil::MakeShape(type_, {x_->shape().dimensions(feature_)})),
                        {scalar});
  }
  // Sum over every dimension but the feature one: a [features] vector.
  absl::StatusOr<HloInstruction*> SumPerFeature(HloInstruction* value) {
    ASSIGN_OR_RETURN(HloInstruction * zero, Scalar(0));
    HloInstructionProto attrs;
    for (int64_t d : reduce_dims_) attrs.add_dimensions(d);
    HloInstruction* reduce =
        AddWithShape(computation_, HloOpcode::kReduce,
                     WithDefaultLayout(ShapeUtil::MakeShape(type_, {x_->shape().dimensions(feature_)})),
                     {value, zero}, attrs);
    reduce->AppendComputation(AddComputation());
    return reduce;
  }
  HloComputation* AddComputation() {
    const std::string name = "bn_add_" + std::string(primitive_util::LowercasePrimitiveTypeName(type_));
    if (HloComputation* existing = module_->GetComputationWithName(name)) return existing;
    auto add = std::make_unique<HloComputation>(name);
    const Shape scalar = WithDefaultLayout(ShapeUtil::MakeShape(type_, {}));
    HloInstruction* params[2];
    for (int i = 0; i < 2; ++i) {
      auto p = HloInstruction::Create(HloOpcode::kParameter, scalar);
      p->mutable_attrs()->set_parameter_number(i);
      p->set_name(i == 0 ? "lhs" : "rhs");
      params[i] = add->AddInstruction(std::move(p));
    }
    auto sum = HloInstruction::Create(HloOpcode::kAdd, scalar, {params[0], params[1]});
    sum->set_name("sum");
    add->set_root_instruction(add->AddInstruction(std::move(sum)));
    return module_->AddEmbeddedComputation(std::move(add));
  }
  // 1 / sqrt(var + epsilon) per feature.
  absl::StatusOr<HloInstruction*> InverseStddev(HloInstruction* var) {
    ASSIGN_OR_RETURN(HloInstruction * eps, Scalar(bn_->attrs().epsilon()));
    ASSIGN_OR_RETURN(HloInstruction * shifted, Binary(HloOpcode::kAdd, var, ToFeatureShape(eps)));
    return Unary(HloOpcode::kRsqrt, shifted);
  }
  absl::StatusOr<HloInstruction*> MeanPerFeature(HloInstruction* value) {
    ASSIGN_OR_RETURN(HloInstruction * sum, SumPerFeature(value));
    ASSIGN_OR_RETURN(HloInstruction * n, Scalar(static_cast<double>(count_)));
    return Binary(HloOpcode::kDivide, sum, ToFeatureShape(n));
  }
  // (x - mean) * inv * scale + offset.
  absl::StatusOr<HloInstruction*> Normalize(HloInstruction* mean, HloInstruction* inv, HloInstruction* scale,
                                            HloInstruction* offset) {
    ASSIGN_OR_RETURN(HloInstruction * centered, Binary(HloOpcode::kSubtract, x_, ToOperandShape(mean)));
    ASSIGN_OR_RETURN(HloInstruction * scaled, Binary(HloOpcode::kMultiply, centered, ToOperandShape(inv)));
    ASSIGN_OR_RETURN(HloInstruction * gained, Binary(HloOpcode::kMultiply, scaled, ToOperandShape(scale)));
    return Binary(HloOpcode::kAdd, gained, ToOperandShape(offset));
  }

  absl::StatusOr<HloInstruction*> Inference() {
    ASSIGN_OR_RETURN(HloInstruction * inv, InverseStddev(bn_->mutable_operand(4)));
    return Normalize(bn_->mutable_operand(3), inv, bn_->mutable_operand(1), bn_->mutable_operand(2));
  }

  absl::StatusOr<HloInstruction*> Training() {
    ASSIGN_OR_RETURN(HloInstruction * mean, MeanPerFeature(x_));
    ASSIGN_OR_RETURN(HloInstruction * centered, Binary(HloOpcode::kSubtract, x_, ToOperandShape(mean)));
    ASSIGN_OR_RETURN(HloInstruction * squares, Binary(HloOpcode::kMultiply, centered, centered));
    ASSIGN_OR_RETURN(HloInstruction * var, MeanPerFeature(squares));
    ASSIGN_OR_RETURN(HloInstruction * inv, InverseStddev(var));
    ASSIGN_OR_RETURN(HloInstruction * y, Normalize(mean, inv, bn_->mutable_operand(1), bn_->mutable_operand(2)));
    return AddWithShape(computation_, HloOpcode::kTuple, bn_->shape(), {y, mean, var});
  }

  absl::StatusOr<HloInstruction*> Grad() {
    HloInstruction* scale = bn_->mutable_operand(1);
    HloInstruction* mean = bn_->mutable_operand(2);
    HloInstruction* var = bn_->mutable_operand(3);
    HloInstruction* dy = bn_->mutable_operand(4);
    ASSIGN_OR_RETURN(HloInstruction * inv, InverseStddev(var));
    ASSIGN_OR_RETURN(HloInstruction * centered, Binary(HloOpcode::kSubtract, x_, ToOperandShape(mean)));
    ASSIGN_OR_RETURN(HloInstruction * sum_dy, SumPerFeature(dy));
    ASSIGN_OR_RETURN(HloInstruction * dy_centered, Binary(HloOpcode::kMultiply, dy, centered));
    ASSIGN_OR_RETURN(HloInstruction * sum_dy_centered, SumPerFeature(dy_centered));
    ASSIGN_OR_RETURN(HloInstruction * grad_scale, Binary(HloOpcode::kMultiply, sum_dy_centered, inv));
    // dx = scale * inv * (dy - sum_dy / n - centered * (sum_dy_centered / n) / (var + eps))
    ASSIGN_OR_RETURN(HloInstruction * n, Scalar(static_cast<double>(count_)));
    ASSIGN_OR_RETURN(HloInstruction * mean_dy, Binary(HloOpcode::kDivide, sum_dy, ToFeatureShape(n)));
    ASSIGN_OR_RETURN(HloInstruction * mean_dy_centered,
                     Binary(HloOpcode::kDivide, sum_dy_centered, ToFeatureShape(n)));
    ASSIGN_OR_RETURN(HloInstruction * eps, Scalar(bn_->attrs().epsilon()));
    ASSIGN_OR_RETURN(HloInstruction * var_eps, Binary(HloOpcode::kAdd, var, ToFeatureShape(eps)));
    ASSIGN_OR_RETURN(HloInstruction * term, Binary(HloOpcode::kMultiply, centered, ToOperandShape(mean_dy_centered)));
    ASSIGN_OR_RETURN(HloInstruction * term2, Binary(HloOpcode::kDivide, term, ToOperandShape(var_eps)));
    ASSIGN_OR_RETURN(HloInstruction * d1, Binary(HloOpcode::kSubtract, dy, ToOperandShape(mean_dy)));
    ASSIGN_OR_RETURN(HloInstruction * d2, Binary(HloOpcode::kSubtract, d1, term2));
    ASSIGN_OR_RETURN(HloInstruction * gain, Binary(HloOpcode::kMultiply, scale, inv));
    ASSIGN_OR_RETURN(HloInstruction * dx, Binary(HloOpcode::kMultiply, ToOperandShape(gain), d2));
    return AddWithShape(computation_, HloOpcode::kTuple, bn_->shape(), {dx, grad_scale, sum_dy});
  }

  HloModule* module_;
  HloComputation* computation_;
  HloInstruction* bn_;
  HloInstruction* x_;
  PrimitiveType type_;
  int64_t feature_;
  std::vector<int64_t> reduce_dims_;
  int64_t count_;
};

bool Expandable(const HloInstruction& instruction) {
  const HloOpcode op = instruction.opcode();
  if (op != HloOpcode::kBatchNormInference && op != HloOpcode::kBatchNormTraining &&
      op != HloOpcode::kBatchNormGrad) {
    return false;
  }
  const Shape& x = instruction.operand(0)->shape();
  const int64_t feature = instruction.attrs().feature_index();
  if (!x.IsArray() || !x.is_static() || feature < 0 || feature >= x.rank() ||
      !primitive_util::IsFloatingPointType(x.element_type())) {
    return false;
  }
  for (const HloInstruction* operand : instruction.operands()) {
    if (operand->shape().element_type() != x.element_type()) return false;
  }
  return instruction.control_predecessors().empty() && instruction.control_successors().empty();
}

}  // namespace

absl::StatusOr<bool> BatchNormExpander::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    if (computation->is_fusion_computation()) continue;
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (!Expandable(*instruction)) continue;
      Expander expander(module, computation, instruction);
      ASSIGN_OR_RETURN(HloInstruction * replacement, expander.Expand());
      if (instruction->shape().IsArray() && replacement->shape() != instruction->shape()) {
        // Keep the original result layout.
        replacement = AddWithShape(computation, HloOpcode::kCopy, instruction->shape(), {replacement});
      }
      RETURN_IF_ERROR(computation->ReplaceInstruction(instruction, replacement));
      changed = true;
    }
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
