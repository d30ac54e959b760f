#ifndef XLA_BACKENDS_WORK_COUNTER_H_
#define XLA_BACKENDS_WORK_COUNTER_H_

#include <cstdint>

namespace xla {

// Counts the work a long loop has done and says when another `every` units have passed, so
// that a loop of small parts asks an expensive question (is the execution cancelled?) once per
// `every` units rather than once per part: the cpu runtime's StopCheck and the interpreter's
// CancelPoll.
class WorkCounter {
 public:
  explicit WorkCounter(int64_t every) : every_(every) {}
  // Counts `work` more; true once at least `every` units have been counted since it last was.
  bool Add(int64_t work) {
    done_ += work;
    if (done_ < every_) return false;
    done_ = 0;
    return true;
  }

 private:
  const int64_t every_;
  int64_t done_ = 0;
};

}  // namespace xla

#endif  // XLA_BACKENDS_WORK_COUNTER_H_
