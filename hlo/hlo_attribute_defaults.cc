#include "hlo/hlo_attribute_defaults.h"

#include "hlo/comparison_util.h"

namespace xla {

void ClearDefaultAttributes(HloInstruction* instruction) {
  HloInstructionProto* attrs = instruction->mutable_attrs();
  if (attrs->has_precision_config()) {
    const PrecisionConfig& pc = attrs->precision_config();
    bool all_default = pc.algorithm() == PrecisionConfig::ALG_UNSET;
    for (int p : pc.operand_precision()) all_default &= p == PrecisionConfig::DEFAULT;
    if (all_default) attrs->clear_precision_config();
  }
  switch (instruction->opcode()) {
    case HloOpcode::kCompare:
      if (instruction->operand_count() > 0 &&
          attrs->comparison_type() ==
              ComparisonTypeToString(DefaultComparisonType(instruction->operand(0)->shape().element_type()))) {
        attrs->clear_comparison_type();
      }
      break;
    case HloOpcode::kConvolution:
      if (attrs->feature_group_count() == 1) attrs->clear_feature_group_count();
      if (attrs->batch_group_count() == 1) attrs->clear_batch_group_count();
      break;
    case HloOpcode::kCustomCall:
      if (attrs->custom_call_api_version() == API_VERSION_ORIGINAL) {
        attrs->clear_custom_call_api_version();
      }
      break;
    default:
      break;
  }
}

void FillDefaultAttributes(const HloInstruction& instruction, HloInstructionProto* proto) {
  switch (instruction.opcode()) {
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
      if (!proto->has_precision_config()) {
        for (int i = 0; i < 2; ++i) proto->mutable_precision_config()->add_operand_precision(PrecisionConfig::DEFAULT);
      }
      if (instruction.opcode() == HloOpcode::kConvolution) {
        if (proto->feature_group_count() == 0) proto->set_feature_group_count(1);
        if (proto->batch_group_count() == 0) proto->set_batch_group_count(1);
      }
      break;
    case HloOpcode::kCompare:
      if (proto->comparison_type().empty() && instruction.operand_count() > 0) {
        proto->set_comparison_type(
            ComparisonTypeToString(DefaultComparisonType(instruction.operand(0)->shape().element_type())));
      }
      break;
    case HloOpcode::kCustomCall:
      if (proto->custom_call_api_version() == API_VERSION_UNSPECIFIED) {
        proto->set_custom_call_api_version(API_VERSION_ORIGINAL);
      }
      break;
    default:
      break;
  }
}

}  // namespace xla
