#include "backends/gpu/host_copy.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace xla {
namespace gpu {
namespace {

// Four threads whatever the machine (CI has two cores, which would copy on one), set before
// HostCopyThreads() first reads it.
const bool kFourThreads = setenv("XLA_GPU_COPY_THREADS", "4", 1) == 0;

std::vector<uint8_t> Pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = static_cast<uint8_t>(seed >> 24);
  }
  return v;
}

// Every size copies exactly: none, under a piece, pieces that do not divide it, and more
// pieces than threads; nothing past the end is written.
TEST(HostCopyTest, CopiesEveryByteAndNothingElse) {
  ASSERT_TRUE(kFourThreads);
  EXPECT_EQ(HostCopyThreads(), 4);
  for (size_t n : {size_t{0}, size_t{1}, size_t{4095}, kHostCopyPieceBytes - 1, 2 * kHostCopyPieceBytes,
                   3 * kHostCopyPieceBytes + 17, size_t{8} << 20, (size_t{33} << 20) + 4097}) {
    SCOPED_TRACE(n);
    const std::vector<uint8_t> from = Pattern(n, static_cast<uint32_t>(n));
    std::vector<uint8_t> to(n + 64, 0xAB);
    HostCopy(to.data(), from.data(), n);
    EXPECT_EQ(std::memcmp(to.data(), from.data(), n), 0);
    for (size_t i = n; i < n + 64; ++i) ASSERT_EQ(to[i], 0xAB) << i;
  }
}

// Several threads copying at once (lanes of several devices) each get their own bytes.
TEST(HostCopyTest, ConcurrentCopiesKeepTheirOwnBytes) {
  constexpr int kThreads = 6;
  const size_t n = (size_t{9} << 20) + 123;
  std::vector<std::vector<uint8_t>> from, to;
  for (int t = 0; t < kThreads; ++t) {
    from.push_back(Pattern(n, 1000 + t));
    to.emplace_back(n, 0);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 4; ++round) HostCopy(to[t].data(), from[t].data(), n);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(to[t], from[t]) << "thread " << t;
}

}  // namespace
}  // namespace gpu
}  // namespace xla
