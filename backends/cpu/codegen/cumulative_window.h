#ifndef XLA_BACKENDS_CPU_CODEGEN_CUMULATIVE_WINDOW_H_
#define XLA_BACKENDS_CPU_CODEGEN_CUMULATIVE_WINDOW_H_

// Which reduce-windows the cpu and gpu backends run as scans (no LLVM here: the emitters are
// EmitCumulativeRow and EmitCumulativeWindowRange in ir_emitter.h, emit_window.cc).

#include <cstdint>
#include <optional>

#include "hlo/hlo_computation.h"
#include "hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

// A cumulative reduce-window (JAX lowers cumsum, cumprod, cummax, cummin and logcumsumexp to
// one): along `dimension`, of n > 1 elements, a window of n with n - 1 padding before it
// (forward: output j reduces elements 0..j) or after it (reverse: elements j..n-1), stride and
// dilations 1, and a window of one without padding along every other dimension. It runs as a
// scan along the dimension, n reducer calls per row instead of n^2 / 2: a forward scan calls the
// reducer in the interpreter's order (the init values, then elements 0, 1, ..., j; padding is
// skipped), so exactly, whatever the reducer; a reverse scan associates from the end, so only
// single-operand windows whose reducer is add, multiply, maximum, minimum, and, or or xor of
// its two parameters are taken (float sums and products then round in that order).
struct CumulativeWindow {
  int64_t dimension = 0;
  bool reverse = false;
};
std::optional<CumulativeWindow> AsCumulativeWindow(const HloInstruction& hlo);
// Whether `reducer` applies one of add, multiply, maximum, minimum, and, or, xor to its two
// parameters (either order) and returns it: a scan with it may associate in any order (exactly
// but for float sums and products, which round in that order).
bool ReassociatingReducer(const HloComputation& reducer);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_CODEGEN_CUMULATIVE_WINDOW_H_
