#ifndef XLA_BACKENDS_CPU_PASSES_PASS_UTIL_H_
#define XLA_BACKENDS_CPU_PASSES_PASS_UTIL_H_

// Instruction predicates and small builders shared by the CPU passes.

#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"
#include "hlo/hlo_module.h"
#include "hlo/literal.h"

namespace xla {
namespace cpu {

// Ops whose execution is observable beyond their result (I/O, collectives, random state,
// side-effecting custom calls), looking into called computations. Such ops are never
// removed when dead, merged or moved into fusions.
bool HasSideEffect(const HloInstruction& instruction);
// The opcode alone is side-effecting (no look into called computations).
bool HasSideEffectNoRecurse(const HloInstruction& instruction);

// Elementwise unary/binary/ternary math (including compare, convert, select, clamp).
bool IsElementwise(const HloInstruction& instruction);

// Adds a new instruction to `computation`: `opcode` over `operands` with `attrs`, whose
// shape comes from shape inference with the default descending layout. Named after the
// opcode (made unique).
absl::StatusOr<HloInstruction*> AddInferred(HloComputation* computation, HloOpcode opcode,
                                            absl::Span<HloInstruction* const> operands,
                                            const HloInstructionProto& attrs = HloInstructionProto());
// Adds an instruction with a given shape (no inference).
HloInstruction* AddWithShape(HloComputation* computation, HloOpcode opcode, const Shape& shape,
                             absl::Span<HloInstruction* const> operands,
                             const HloInstructionProto& attrs = HloInstructionProto());
// Adds a constant holding `literal` (shape = literal's shape with a default layout).
HloInstruction* AddConstant(HloComputation* computation, Literal literal);
// A scalar constant of `type` with value `value` (converted with Literal::SetFromDouble).
absl::StatusOr<Literal> ScalarLiteral(PrimitiveType type, double value);

// `shape` with the default descending layout on every array subshape (replacing any).
Shape WithDefaultLayout(Shape shape);

// A constant that is a scalar, or an array whose elements all equal `value`.
bool IsConstantWithValue(const HloInstruction& instruction, double value);
// The instruction is a broadcast of a scalar constant, or a constant, with every element
// equal to `value`.
bool IsEffectiveConstantWithValue(const HloInstruction& instruction, double value);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_PASS_UTIL_H_
