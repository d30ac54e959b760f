#ifndef XLA_BACKENDS_CPU_CODEGEN_EMIT_NARROW_FLOAT_H_
#define XLA_BACKENDS_CPU_CODEGEN_EMIT_NARROW_FLOAT_H_

// Rounding an f32 or f64 to an 8- or 4-bit float in inline IR (internal to codegen: includes
// LLVM headers). The cpu backend emits it so conversion loops vectorize, and the gpu backend,
// which reuses the cpu elemental emitter for its kernels, can run it on the device: no call,
// no branch, only integer arithmetic, comparisons, selects and bitcasts.

#include "hlo/float_types.h"
#include "llvm/IR/IRBuilder.h"

namespace xla {
namespace cpu {

// Returns the bits of EncodeFloat(kind, x) (hlo/float_types.h: round to nearest even once
// from the exact value; overflow, NaN, signed zero and F8E8M0FNU rules as documented there)
// in the low total_bits bits of an i8, or of a vector of i8 when `x` is a vector.
// `x`: float or double, scalar or vector. `kind`: a format of at most 8 bits (every kind but
// kF16 and kBF16); f16 and bf16 are rounded by the caller (XLA takes f64 to them through f32).
llvm::Value* EmitEncodeNarrowFloat(llvm::IRBuilder<>* b, llvm::Value* x, FloatFormatKind kind);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CODEGEN_EMIT_NARROW_FLOAT_H_
