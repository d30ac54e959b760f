#ifndef XLA_HLO_HLO_ATTRIBUTE_DEFAULTS_H_
#define XLA_HLO_HLO_ATTRIBUTE_DEFAULTS_H_

// The IR's canonical form leaves attributes that equal their default unset, so a module
// compares equal however it was made (text with or without `feature_group_count=1`, a proto
// from XLA that always writes defaults, or the builder).

#include "hlo/hlo_instruction.h"

namespace xla {

// Clears attrs() fields that hold their op's default value: comparison_type equal to the
// operand type's default, feature_group_count / batch_group_count of 1, custom-call
// api_version ORIGINAL, a precision_config with only DEFAULT precisions and no algorithm. Needs operands attached (the compare default depends on them).
void ClearDefaultAttributes(HloInstruction* instruction);

// The inverse, for protos sent to XLA: writes the defaults XLA itself writes (a precision
// config with one DEFAULT per dot/convolution operand, api_version ORIGINAL on custom-calls,
// group counts of 1 on convolutions, the compare type) into `proto` where they are unset.
void FillDefaultAttributes(const HloInstruction& instruction, HloInstructionProto* proto);

}  // namespace xla

#endif  // XLA_HLO_HLO_ATTRIBUTE_DEFAULTS_H_
