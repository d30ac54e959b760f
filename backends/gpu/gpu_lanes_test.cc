// Lanes, retired blocks and staged transfers (gpu_lanes.h) on the fake driver with deferred
// streams: queued work runs only when the host waits for it, so a copy that reuses a
// staging buffer too early, or memory handed to another lane while queued work still reads
// it, shows up as wrong values here as it would on a GPU.
#include "backends/gpu/gpu_lanes.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "backends/gpu/gpu_backend.h"
#include "gtest/gtest.h"
#include "hlo/shape_util.h"

namespace xla {
namespace gpu {
namespace {

const CudaDriver* FakeDriver() {
  setenv("XLA_FAKE_CUDA_MODE", "ok", 1);
  setenv("XLA_FAKE_CUDA_STREAMS", "deferred", 1);
  absl::StatusOr<const CudaDriver*> d = CudaDriver::Load(XLA_FAKE_LIBCUDA);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *d : nullptr;
}

// A u32 literal of `n` elements, element i = i * 2654435761 + seed (no two chunks alike).
Literal Pattern(int64_t n, uint32_t seed) {
  Literal l = *Literal::Create(ShapeUtil::MakeShape(U32, {n}));
  auto* data = static_cast<uint32_t*>(l.untyped_data());
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<uint32_t>(i) * 2654435761u + seed;
  return l;
}

bool SameBytes(const Literal& a, const Literal& b) {
  return a.size_bytes() == b.size_bytes() && std::memcmp(a.untyped_data(), b.untyped_data(), a.size_bytes()) == 0;
}

TEST(GpuLanesTest, LargeTransfersRoundTripThroughTheStagingBuffers) {
  const CudaDriver* driver = FakeDriver();
  ASSERT_NE(driver, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Backend>> b = CreateGpuBackend(driver);
  ASSERT_TRUE(b.ok()) << b.status();
  // 5.5 chunks: both staging buffers are reused twice, the last chunk is partial; and one
  // copy small enough to skip the staging.
  for (int64_t n : {static_cast<int64_t>(11 * kStagingChunkBytes / 8), int64_t{1000}}) {
    const Literal value = Pattern(n, 7);
    absl::StatusOr<std::shared_ptr<backend::Buffer>> buffer = (*b)->TransferToDevice(value, 0);
    ASSERT_TRUE(buffer.ok()) << buffer.status();
    absl::StatusOr<Literal> back = (*b)->TransferFromDevice(**buffer);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(SameBytes(value, *back)) << n << " elements";
  }
}

TEST(GpuLanesTest, WithoutPinnedMemoryLargeTransfersGoFromPageableMemory) {
  const CudaDriver* driver = FakeDriver();
  ASSERT_NE(driver, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Backend>> b = CreateGpuBackend(driver);
  ASSERT_TRUE(b.ok()) << b.status();
  setenv("XLA_FAKE_CUDA_MODE", "no_pinned_memory", 1);
  const Literal value = Pattern(static_cast<int64_t>(3 * kStagingChunkBytes / 4), 11);
  absl::StatusOr<std::shared_ptr<backend::Buffer>> buffer = (*b)->TransferToDevice(value, 0);
  absl::StatusOr<Literal> back =
      buffer.ok() ? (*b)->TransferFromDevice(**buffer) : absl::StatusOr<Literal>(buffer.status());
  setenv("XLA_FAKE_CUDA_MODE", "ok", 1);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(SameBytes(value, *back));
}

TEST(GpuLanesTest, ConcurrentTransfersUseSeveralLanesAndKeepTheirData) {
  const CudaDriver* driver = FakeDriver();
  ASSERT_NE(driver, nullptr);
  absl::StatusOr<std::unique_ptr<backend::Backend>> b = CreateGpuBackend(driver);
  ASSERT_TRUE(b.ok()) << b.status();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 4; ++round) {
        const Literal value = Pattern(int64_t{600} * 1024 + t * 4096, static_cast<uint32_t>(t * 100 + round));
        absl::StatusOr<std::shared_ptr<backend::Buffer>> buffer = (*b)->TransferToDevice(value, t % 2);
        if (!buffer.ok()) {
          ++wrong;
          continue;
        }
        absl::StatusOr<Literal> back = (*b)->TransferFromDevice(**buffer);
        if (!back.ok() || !SameBytes(value, *back)) ++wrong;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

class DeviceLanesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const CudaDriver* driver = FakeDriver();
    ASSERT_NE(driver, nullptr);
    absl::StatusOr<std::unique_ptr<Device>> d = OpenDevice(driver, 0, 2);
    ASSERT_TRUE(d.ok()) << d.status();
    device_ = std::move(*d);
  }
  std::unique_ptr<Device> device_;
};

TEST_F(DeviceLanesTest, BlocksFreedDuringALeaseAreReusedOnlyByThatLane) {
  const Shape shape = ShapeUtil::MakeShape(F32, {1000});
  uint64_t in_use_before = 0;
  {
    LaneLease first(device_.get());
    LaneLease second(device_.get());
    ASSERT_NE(&first.lane(), &second.lane());
    in_use_before = device_->pool->stats().bytes_in_use;
    absl::StatusOr<std::shared_ptr<GpuBuffer>> a = AllocateArray(first.lane(), shape);
    ASSERT_TRUE(a.ok()) << a.status();
    const CUdeviceptr address = (*a)->address();
    a->reset();  // queued work of the first lane may still read it
    EXPECT_GT(device_->pool->stats().bytes_in_use, in_use_before);
    absl::StatusOr<std::shared_ptr<GpuBuffer>> other = AllocateArray(second.lane(), shape);
    ASSERT_TRUE(other.ok()) << other.status();
    EXPECT_NE((*other)->address(), address);
    // The same lane's later work runs after any reader: the block is reused, for a
    // request of at least half its size.
    absl::StatusOr<std::shared_ptr<GpuBuffer>> smaller = AllocateArray(first.lane(), ShapeUtil::MakeShape(F32, {600}));
    ASSERT_TRUE(smaller.ok()) << smaller.status();
    EXPECT_EQ((*smaller)->address(), address);
    smaller->reset();
    absl::StatusOr<std::shared_ptr<GpuBuffer>> tiny = AllocateArray(first.lane(), ShapeUtil::MakeShape(F32, {10}));
    ASSERT_TRUE(tiny.ok()) << tiny.status();
    EXPECT_NE((*tiny)->address(), address);
  }
  // Every lease ended: the retired block went back to the pool, everything else was freed.
  EXPECT_EQ(device_->pool->stats().bytes_in_use, in_use_before);
}

TEST_F(DeviceLanesTest, RetiredBlocksGoBackWhenMemoryRunsOut) {
  // The fake device has 1 GiB: 800 MiB retired and a 300 MiB request that it does not fit.
  LaneLease lease(device_.get());
  const Shape big = ShapeUtil::MakeShape(U8, {int64_t{800} << 20});
  absl::StatusOr<std::shared_ptr<GpuBuffer>> a = AllocateArray(lease.lane(), big);
  ASSERT_TRUE(a.ok()) << a.status();
  a->reset();
  absl::StatusOr<std::shared_ptr<GpuBuffer>> b = AllocateArray(lease.lane(), ShapeUtil::MakeShape(U8, {int64_t{300} << 20}));
  ASSERT_TRUE(b.ok()) << b.status();
  // Truly more than the device: still RESOURCE_EXHAUSTED.
  absl::StatusOr<std::shared_ptr<GpuBuffer>> c = AllocateArray(lease.lane(), big);
  EXPECT_TRUE(absl::IsResourceExhausted(c.status())) << c.status();
}

TEST_F(DeviceLanesTest, ALeaseWaitsForAFreeLane) {
  auto first = std::make_unique<LaneLease>(device_.get());
  auto second = std::make_unique<LaneLease>(device_.get());
  std::atomic<bool> leased{false};
  std::thread third([&] {
    LaneLease lease(device_.get());
    leased = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(leased.load());
  second.reset();
  third.join();
  EXPECT_TRUE(leased.load());
}

TEST(GpuLanesEnvironmentTest, LaneCountComesFromTheEnvironmentWithinBounds) {
  unsetenv("XLA_GPU_LANES");
  EXPECT_EQ(LanesFromEnvironment(), kDefaultLanes);
  setenv("XLA_GPU_LANES", "2", 1);
  EXPECT_EQ(LanesFromEnvironment(), 2);
  setenv("XLA_GPU_LANES", "0", 1);
  EXPECT_EQ(LanesFromEnvironment(), kDefaultLanes);
  setenv("XLA_GPU_LANES", "lots", 1);
  EXPECT_EQ(LanesFromEnvironment(), kDefaultLanes);
  unsetenv("XLA_GPU_LANES");
}

}  // namespace
}  // namespace gpu
}  // namespace xla
