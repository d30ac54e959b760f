#ifndef XLA_HLO_SHAPE_INFERENCE_H_
#define XLA_HLO_SHAPE_INFERENCE_H_

// Shape inference for every HLO opcode, following XLA's operation semantics. Used by the
// parser (instructions written without a result shape), the verifier (the declared shape
// must match) and the builder (shapes are inferred as ops are added).

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_opcode.h"
#include "hlo/shape.h"
#include "proto/hlo.pb.h"

namespace xla {

// Result shape of `opcode` applied to operands of `operand_shapes`, with per-op attributes
// in `attrs` (XLA's HloInstructionProto field names: dimensions, window, slice_dimensions,
// convolution_dimension_numbers, ...), and the program shapes of the called computations
// in XLA's order (see hlo_instruction.h). Errors are InvalidArgument naming the op and the
// offending operand/attribute. Ops whose shape cannot be derived from these inputs
// (parameter, constant without literal, custom-call, infeed, recv, rng-bit-generator's
// state/output split, fusion...) return an error saying the shape must be given.
//
// The result carries no layout; callers add layouts where they need them.
//
// With `declared`, the shape is checked as the verifier checks an instruction's: ops whose
// shape must be given (dynamic-reshape, rng-bit-generator, ...) validate and return it.
absl::StatusOr<Shape> InferHloShape(HloOpcode opcode,
                                    absl::Span<const Shape* const> operand_shapes,
                                    const HloInstructionProto& attrs,
                                    absl::Span<const ProgramShape* const> called_program_shapes,
                                    const Shape* declared = nullptr);

// Same, reading everything from an instruction (operands' shapes, attrs(), called
// computations, the literal of a constant).
absl::StatusOr<Shape> InferHloShape(const HloInstruction& instruction);

}  // namespace xla

#endif  // XLA_HLO_SHAPE_INFERENCE_H_
