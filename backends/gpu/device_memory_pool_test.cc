#include "backends/gpu/device_memory_pool.h"

#include <map>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace xla {
namespace gpu {
namespace {

// Regions from a fake device: addresses far apart, a byte budget, and a record of what is out.
struct FakeDevice {
  uint64_t next = 1 << 20;
  uint64_t budget = UINT64_MAX;
  std::map<uint64_t, uint64_t> live;  // base -> size
  int allocations = 0;

  RegionSource Source() {
    return RegionSource{[this](uint64_t bytes) -> absl::StatusOr<uint64_t> {
                          uint64_t used = 0;
                          for (const auto& [base, size] : live) used += size;
                          if (used + bytes > budget) return absl::ResourceExhaustedError("fake device full");
                          const uint64_t base = next;
                          next += bytes + (1 << 20);  // a gap: regions are never adjacent
                          live[base] = bytes;
                          ++allocations;
                          return base;
                        },
                        [this](uint64_t base) { live.erase(base); }};
  }
};

TEST(DeviceMemoryPoolTest, AlignsAndReusesOneRegion) {
  FakeDevice device;
  DeviceMemoryPool pool(device.Source(), 1 << 16);
  std::vector<uint64_t> addresses;
  for (uint64_t bytes : {1, 255, 256, 257, 0, 1000}) {
    absl::StatusOr<uint64_t> a = pool.Allocate(bytes);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(*a % kDeviceAlignment, 0u);
    for (uint64_t other : addresses) EXPECT_NE(*a, other);
    addresses.push_back(*a);
  }
  EXPECT_EQ(device.allocations, 1);
  DeviceMemoryPool::Stats s = pool.stats();
  EXPECT_EQ(s.bytes_in_use, 256u * 4 + 512 + 1024);  // 1, 255, 256 and 0 take 256 each
  EXPECT_EQ(s.regions, 1);
  EXPECT_EQ(s.allocations, 6);
  for (uint64_t a : addresses) ASSERT_TRUE(pool.Free(a).ok());
  s = pool.stats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.largest_free_block, 1u << 16) << "freed blocks merge back into the whole region";
}

TEST(DeviceMemoryPoolTest, FreedNeighboursMergeInAnyOrder) {
  FakeDevice device;
  DeviceMemoryPool pool(device.Source(), 4096);
  const uint64_t a = *pool.Allocate(1024), b = *pool.Allocate(1024), c = *pool.Allocate(1024),
                 d = *pool.Allocate(1024);
  EXPECT_EQ(pool.stats().largest_free_block, 0u);
  ASSERT_TRUE(pool.Free(a).ok());
  ASSERT_TRUE(pool.Free(c).ok());
  EXPECT_EQ(pool.stats().largest_free_block, 1024u);
  ASSERT_TRUE(pool.Free(b).ok());  // joins a and c
  EXPECT_EQ(pool.stats().largest_free_block, 3072u);
  absl::StatusOr<uint64_t> big = pool.Allocate(3072);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(*big, a);
  EXPECT_EQ(device.allocations, 1);
  ASSERT_TRUE(pool.Free(d).ok());
  ASSERT_TRUE(pool.Free(*big).ok());
}

TEST(DeviceMemoryPoolTest, BestFitPicksTheSmallestBlockThatFits) {
  FakeDevice device;
  DeviceMemoryPool pool(device.Source(), 8192);
  const uint64_t a = *pool.Allocate(2048), sep1 = *pool.Allocate(256), b = *pool.Allocate(512),
                 sep2 = *pool.Allocate(256);
  ASSERT_TRUE(pool.Free(a).ok());
  ASSERT_TRUE(pool.Free(b).ok());
  EXPECT_EQ(*pool.Allocate(300), b);  // the 512-byte hole, not the 2048-byte one
  (void)sep1;
  (void)sep2;
}

TEST(DeviceMemoryPoolTest, LargeRequestsGetTheirOwnRegionAndTrimReturnsIt) {
  FakeDevice device;
  DeviceMemoryPool pool(device.Source(), 4096);
  const uint64_t small = *pool.Allocate(100);
  const uint64_t large = *pool.Allocate(1 << 20);
  EXPECT_EQ(device.allocations, 2);
  EXPECT_EQ(device.live.at(large), 1u << 20);
  ASSERT_TRUE(pool.Free(large).ok());
  pool.Trim();
  EXPECT_EQ(device.live.count(large), 0u);
  EXPECT_EQ(device.live.size(), 1u) << "the region still in use stays";
  ASSERT_TRUE(pool.Free(small).ok());
  pool.Trim();
  EXPECT_TRUE(device.live.empty());
  EXPECT_EQ(pool.stats().bytes_reserved, 0u);
}

TEST(DeviceMemoryPoolTest, OutOfMemoryTrimsEmptyRegionsAndRetries) {
  FakeDevice device;
  device.budget = 3 << 20;
  DeviceMemoryPool pool(device.Source(), 1 << 20);
  const uint64_t a = *pool.Allocate(2 << 20);  // its own region
  ASSERT_TRUE(pool.Free(a).ok());               // empty, still reserved
  absl::StatusOr<uint64_t> b = pool.Allocate(2 << 20 | 256);
  ASSERT_TRUE(b.ok()) << "the empty region is given back, then the request fits: " << b.status();
  absl::StatusOr<uint64_t> c = pool.Allocate(2 << 20);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(c.status())) << c.status();
  EXPECT_NE(c.status().message().find("fake device full"), std::string::npos) << c.status();
  ASSERT_TRUE(pool.Free(*b).ok());
}

TEST(DeviceMemoryPoolTest, StrayAndDoubleFreesAreErrors) {
  FakeDevice device;
  DeviceMemoryPool pool(device.Source(), 4096);
  const uint64_t a = *pool.Allocate(64);
  EXPECT_TRUE(absl::IsInvalidArgument(pool.Free(a + 256)));
  ASSERT_TRUE(pool.Free(a).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(pool.Free(a)));
  EXPECT_TRUE(absl::IsResourceExhausted(pool.Allocate(UINT64_MAX).status()));
}

TEST(DeviceMemoryPoolTest, RandomWorkloadKeepsAllocationsDisjointAndReturnsEverything) {
  FakeDevice device;
  std::mt19937 rng(7);
  {
    DeviceMemoryPool pool(device.Source(), 1 << 16);
    std::map<uint64_t, uint64_t> live;  // address -> requested bytes
    for (int step = 0; step < 4000; ++step) {
      if (live.empty() || rng() % 3 != 0) {
        const uint64_t bytes = rng() % 5 == 0 ? rng() % (1 << 18) : rng() % 4096;
        absl::StatusOr<uint64_t> a = pool.Allocate(bytes);
        ASSERT_TRUE(a.ok()) << a.status();
        auto next = live.lower_bound(*a);
        if (next != live.end()) {
          ASSERT_GE(next->first, *a + bytes) << "overlaps the next allocation";
        }
        if (next != live.begin()) {
          auto prev = std::prev(next);
          ASSERT_LE(prev->first + prev->second, *a) << "overlaps the previous allocation";
        }
        live[*a] = bytes;
      } else {
        auto it = live.begin();
        std::advance(it, rng() % live.size());
        ASSERT_TRUE(pool.Free(it->first).ok());
        live.erase(it);
      }
    }
    for (const auto& [a, bytes] : live) ASSERT_TRUE(pool.Free(a).ok());
    EXPECT_EQ(pool.stats().bytes_in_use, 0u);
    EXPECT_EQ(pool.stats().allocations, 0);
  }
  EXPECT_TRUE(device.live.empty()) << "the destructor returns every region";
}

}  // namespace
}  // namespace gpu
}  // namespace xla
