#ifndef XLA_BACKENDS_CPU_CODEGEN_EMIT_REDUCE_PRECISION_H_
#define XLA_BACKENDS_CPU_CODEGEN_EMIT_REDUCE_PRECISION_H_

// reduce-precision on one element (internal to codegen: includes LLVM headers).

#include "absl/status/statusor.h"
#include "hlo/hlo_instruction.h"
#include "llvm/IR/IRBuilder.h"

namespace xla {
namespace cpu {

// `x` in its register type (f16 half, bf16 its i16 bits, f32 float, f64 double).
// `narrow_is_nan`: for 8- and 4-bit floats (held in i8), whether x is a NaN (their NaN
// encodings differ by format; the caller decodes them).
absl::StatusOr<llvm::Value*> EmitReducePrecision(llvm::IRBuilder<>* b, const HloInstruction& hlo, llvm::Value* x,
                                                 llvm::Value* narrow_is_nan = nullptr);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CODEGEN_EMIT_REDUCE_PRECISION_H_
