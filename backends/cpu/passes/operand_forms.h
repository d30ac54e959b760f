#ifndef XLA_BACKENDS_CPU_PASSES_OPERAND_FORMS_H_
#define XLA_BACKENDS_CPU_PASSES_OPERAND_FORMS_H_

#include <string_view>

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

// Rewrites operand forms that XLA accepts but the emitters do not read, into the forms they do
// (run by the cpu and gpu compilers before their passes):
// - A reduce or reduce-window whose inputs or init values are of another floating-point type
//   than the reducer's parameters (XLA's shape checks ignore floating-point precision there:
//   f16 inputs to an f32 adder) gets them converted to the reducer's types first, as the
//   interpreter reads them. An init of another type than the reducer's whose result
//   keeps the init's type (a reducer's f32 values rounded to f16 at each step) is refused
//   with UNIMPLEMENTED naming the instruction.
// - A dynamic-slice or dynamic-update-slice whose start indices are one rank-1 array (XLA's
//   older form) gets one scalar index per dimension, sliced from that array.
class OperandFormNormalizer : public HloPass {
 public:
  std::string_view name() const override { return "operand-forms"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_OPERAND_FORMS_H_
