#ifndef XLA_BACKENDS_GPU_LOOP_TRIP_COUNT_H_
#define XLA_BACKENDS_GPU_LOOP_TRIP_COUNT_H_

// Counted while loops: the gpu runtime decides a loop's next iteration on the host, reading
// the condition's pred back from the device (a copy that waits for every kernel before it).
// A loop whose trip count is known from its HLO alone, or from at most two integers of its
// initial state read once, runs its body that many times without evaluating the condition at
// all, so the host enqueues the iterations back to back.

#include <cstdint>
#include <optional>

#include "hlo/comparison_util.h"
#include "hlo/hlo_instruction.h"

namespace xla {
namespace gpu {

// A while loop that counts: the state is a tuple whose element `counter` is an integer
// stepped by a positive constant each iteration and compared with a bound, and the condition
// computes nothing else. The counter's first value and the bound are each a constant of the
// HLO, or (`*_element` >= 0) an element of the state the loop starts from that the host reads
// once before the first iteration: the counter's own, for the first value (a fori_loop whose
// lower bound is traced), and for the bound one the body passes through unchanged (a traced
// upper bound).
struct CountedLoop {
  int64_t counter = 0;
  PrimitiveType type = PRIMITIVE_TYPE_INVALID;  // the counter's
  ComparisonDirection direction = ComparisonDirection::kLt;  // counter `direction` bound
  int64_t step = 1;
  std::optional<int64_t> first, limit;  // the constants, when they are
  int64_t first_element = -1, limit_element = -1;
};

// The counted loop `loop` is (LT, LE or NE, or GT/GE with the bound first; step > 0, 1 for
// NE; a comparison of the counter type's default kind); nullopt for any other loop, whose
// condition is then read back each iteration.
std::optional<CountedLoop> FindCountedLoop(const HloInstruction& loop);

// The iterations of `loop` from `first` to `limit` (values of the counter's type, as
// int64: nullopt for an unsigned value past int64's range), or nullopt when the counter
// could wrap on the way.
std::optional<int64_t> TripCount(const CountedLoop& loop, int64_t first, int64_t limit);

// The number of iterations when the HLO alone fixes it (a counted loop whose first value and
// bound are both constants); otherwise nullopt.
std::optional<int64_t> KnownTripCount(const HloInstruction& loop);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_LOOP_TRIP_COUNT_H_
