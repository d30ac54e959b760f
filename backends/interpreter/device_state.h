#ifndef XLA_BACKENDS_INTERPRETER_DEVICE_STATE_H_
#define XLA_BACKENDS_INTERPRETER_DEVICE_STATE_H_

// Per-device state of the interpreter: infeed and outfeed queues and rng state.
// Thread-safe.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

#include "absl/status/statusor.h"
#include "hlo/literal.h"
#include "hlo/shape.h"

namespace xla {
namespace interpreter {

class DeviceState {
 public:
  explicit DeviceState(int ordinal) : ordinal_(ordinal) {}
  int ordinal() const { return ordinal_; }

  void PushInfeed(Literal value);
  // Next infeed value; DEADLINE_EXCEEDED after timeout_ms (an HLO infeed with nothing
  // queued would otherwise block forever).
  absl::StatusOr<Literal> PopInfeed(int64_t timeout_ms);
  void PushOutfeed(Literal value);
  // Next outfeed value if its shape is compatible with `expected`; on a mismatch the value
  // stays queued (a caller's wrong shape must not destroy the data) and the error names both.
  absl::StatusOr<Literal> PopOutfeed(int64_t timeout_ms, const Shape& expected);

  // XLA's rng-get-and-update-state: returns the current state and advances it by delta.
  uint64_t GetAndUpdateRngState(int64_t delta);

 private:
  const int ordinal_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Literal> infeed_;
  std::deque<Literal> outfeed_;
  uint64_t rng_state_ = 0x7012395ull;
};

}  // namespace interpreter
}  // namespace xla

#endif  // XLA_BACKENDS_INTERPRETER_DEVICE_STATE_H_
