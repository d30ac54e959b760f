#ifndef XLA_HLO_SHAPE_INFERENCE_CHECKS_H_
#define XLA_HLO_SHAPE_INFERENCE_CHECKS_H_

// Validation of an instruction's declared shape against its operands, attributes and
// called computations, for every opcode. Used by the verifier.

#include "absl/status/status.h"
#include "hlo/hlo_instruction.h"

namespace xla {

// OK when `instruction.shape()` is what XLA allows for its opcode, operands, attributes
// and called computations (layouts and dynamic-dimension flags are not compared, as in
// XLA's ShapeUtil::Compatible). For ops whose shape is inferable, the inferred shape must
// match; for the others (broadcast, reshape, convert, iota, rng, infeed, recv,
// custom-call, parameter, constant...) op-specific consistency checks run instead.
// Errors are InvalidArgument naming the opcode and instruction, with the expected and
// the actual shape.
absl::Status CheckHloShape(const HloInstruction& instruction);

}  // namespace xla

#endif  // XLA_HLO_SHAPE_INFERENCE_CHECKS_H_
