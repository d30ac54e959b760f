#ifndef XLA_BACKENDS_CPU_CODEGEN_EMIT_RUNTIME_CALL_H_
#define XLA_BACKENDS_CPU_CODEGEN_EMIT_RUNTIME_CALL_H_

// Ops computed by one runtime routine over whole arrays (cholesky, triangular-solve, fft,
// copies of complex, sub-byte and f8 arrays, rng-bit-generator, rng,
// rng-get-and-update-state, topk, infeed, outfeed):
// the call is emitted in the entry function at the builder's position, with each array's
// base pointer and a constant descriptor of its type, dims and strides
// (runtime/strided_array.h), so operands in any layout are read in place. Internal to
// codegen (includes LLVM headers).

#include <vector>

#include "absl/status/status.h"
#include "backends/cpu/codegen/ir_emitter.h"

namespace xla {
namespace cpu {

// True for the opcodes EmitRuntimeCall handles.
bool IsRuntimeCallOp(const HloInstruction& hlo);

// `operands` and `outputs` are the arrays (base pointer and shape with layout) of the array
// leaves of `hlo`'s operands and result.
// `run_context`: the entry function's run context argument (rng draws and device state).
absl::Status EmitRuntimeCall(llvm::IRBuilder<>* b, const HloInstruction* hlo, const std::vector<SerialOutput>& operands,
                             const std::vector<SerialOutput>& outputs, llvm::Value* run_context);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CODEGEN_EMIT_RUNTIME_CALL_H_
