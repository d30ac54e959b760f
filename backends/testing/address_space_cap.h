#ifndef XLA_BACKENDS_TESTING_ADDRESS_SPACE_CAP_H_
#define XLA_BACKENDS_TESTING_ADDRESS_SPACE_CAP_H_

// Out-of-memory tests: caps this process's address space (RLIMIT_AS) a given headroom above
// what it maps now, so that the next large allocation fails as it would on a host out of
// memory. Use it in a death-test child (gtest's "threadsafe" style runs the test in a fresh
// process), never in the test process itself. AddressSanitizer reserves terabytes of address
// space, so such tests skip under it (XLA_ADDRESS_SANITIZER).

#include <sys/resource.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

#if defined(__SANITIZE_ADDRESS__)
#define XLA_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XLA_ADDRESS_SANITIZER 1
#endif
#endif

// Runs `statement`, which caps the address space, checks what it must and ends with
// std::_Exit(0) (another code naming what failed), in a fresh process: gtest's "threadsafe"
// death-test style re-runs the test binary for it, so no thread of this process is missing
// there. Skips under AddressSanitizer.
#ifdef XLA_ADDRESS_SANITIZER
#define XLA_EXPECT_CAPPED_CHILD_PASSES(statement) \
  GTEST_SKIP() << "AddressSanitizer reserves more address space than an RLIMIT_AS cap allows"
#else
#define XLA_EXPECT_CAPPED_CHILD_PASSES(statement)                         \
  do {                                                                    \
    GTEST_FLAG_SET(death_test_style, "threadsafe");                       \
    EXPECT_EXIT(statement, ::testing::ExitedWithCode(0), "");             \
  } while (0)
#endif

namespace xla {
namespace testing {

// VmSize of this process in bytes (/proc/self/status), or -1.
inline int64_t VirtualMemoryBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmSize:", 0) == 0) return std::atoll(line.c_str() + 7) * 1024;
  }
  return -1;
}

// While alive, the soft RLIMIT_AS is VmSize + headroom_bytes; ok() when it was set.
class AddressSpaceCap {
 public:
  explicit AddressSpaceCap(int64_t headroom_bytes) {
    const int64_t now = VirtualMemoryBytes();
    if (now < 0 || getrlimit(RLIMIT_AS, &original_) != 0) return;
    rlimit capped = original_;
    capped.rlim_cur = static_cast<rlim_t>(now + headroom_bytes);
    ok_ = setrlimit(RLIMIT_AS, &capped) == 0;
  }
  ~AddressSpaceCap() { Lift(); }
  AddressSpaceCap(const AddressSpaceCap&) = delete;
  AddressSpaceCap& operator=(const AddressSpaceCap&) = delete;

  bool ok() const { return ok_; }
  void Lift() {
    if (ok_) setrlimit(RLIMIT_AS, &original_);
    ok_ = false;
  }

 private:
  rlimit original_{};
  bool ok_ = false;
};

}  // namespace testing
}  // namespace xla

#endif  // XLA_BACKENDS_TESTING_ADDRESS_SPACE_CAP_H_
