#include "backends/interpreter/device_state.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "hlo/shape_util.h"

namespace xla {
namespace interpreter {
namespace {

absl::StatusOr<Literal> PopFrom(std::deque<Literal>* queue, std::mutex* mu,
                                std::condition_variable* cv, int64_t timeout_ms, const char* what,
                                const Shape* expected = nullptr) {
  std::unique_lock<std::mutex> lock(*mu);
  if (!cv->wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return !queue->empty(); })) {
    return absl::DeadlineExceededError(
        absl::StrCat("no ", what, " value arrived within ", timeout_ms, " ms"));
  }
  if (expected != nullptr && !ShapeUtil::Compatible(queue->front().shape(), *expected)) {
    return absl::InvalidArgumentError(absl::StrCat("the next ", what, " value has shape ",
                                                   queue->front().shape().ToString(), ", requested ",
                                                   expected->ToString(), "; it stays queued"));
  }
  Literal value = std::move(queue->front());
  queue->pop_front();
  return value;
}

}  // namespace

void DeviceState::PushInfeed(Literal value) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    infeed_.push_back(std::move(value));
  }
  cv_.notify_all();
}

absl::StatusOr<Literal> DeviceState::PopInfeed(int64_t timeout_ms) {
  return PopFrom(&infeed_, &mu_, &cv_, timeout_ms, "infeed");
}

void DeviceState::PushOutfeed(Literal value) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    outfeed_.push_back(std::move(value));
  }
  cv_.notify_all();
}

absl::StatusOr<Literal> DeviceState::PopOutfeed(int64_t timeout_ms, const Shape& expected) {
  return PopFrom(&outfeed_, &mu_, &cv_, timeout_ms, "outfeed", &expected);
}

uint64_t DeviceState::GetAndUpdateRngState(int64_t delta) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t current = rng_state_;
  rng_state_ += static_cast<uint64_t>(delta);
  return current;
}

}  // namespace interpreter
}  // namespace xla
