#ifndef XLA_BACKENDS_GPU_LOOP_TRIP_COUNT_H_
#define XLA_BACKENDS_GPU_LOOP_TRIP_COUNT_H_

// Counted while loops: the gpu runtime decides a loop's next iteration on the host, reading
// the condition's pred back from the device (a copy that waits for every kernel before it).
// A loop whose trip count is known from its HLO alone runs its body that many times without
// evaluating the condition at all, so the host enqueues the iterations back to back.

#include <cstdint>
#include <optional>

#include "hlo/hlo_instruction.h"

namespace xla {
namespace gpu {

// The number of iterations of while `loop` when its HLO fixes it: the state is a tuple
// whose element k is an integer counter that starts at a constant (in the tuple the while
// takes, or a constant tuple), the condition is nothing but one comparison of the counter
// with a constant (LT, LE or NE, or GT/GE with the constant first), and the body's result
// tuple has counter + constant step (step > 0; 1 for NE) at k; the counter never wraps.
// Otherwise (or for anything else) nullopt: the condition is read back each iteration.
std::optional<int64_t> KnownTripCount(const HloInstruction& loop);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_LOOP_TRIP_COUNT_H_
