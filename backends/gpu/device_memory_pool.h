#ifndef XLA_BACKENDS_GPU_DEVICE_MEMORY_POOL_H_
#define XLA_BACKENDS_GPU_DEVICE_MEMORY_POOL_H_

// A suballocator for device memory (issue 7): buffers come out of large regions taken from
// the device once (cuMemAlloc costs a synchronizing driver call and fresh pages), placed best
// fit, and merge with free neighbours when released. Pure bookkeeping over addresses, so it
// is tested without a GPU; the regions come from a RegionSource (the driver on a GPU).
//
// Thread-safety: all methods may be called concurrently.

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace xla {
namespace gpu {

struct RegionSource {
  // A fresh region of at least `bytes` (aligned to kDeviceAlignment); RESOURCE_EXHAUSTED when
  // the device is out of memory.
  std::function<absl::StatusOr<uint64_t>(uint64_t bytes)> allocate;
  std::function<void(uint64_t address)> release;
};

inline constexpr uint64_t kDeviceAlignment = 256;  // cuMemAlloc's, and enough for any vector access

class DeviceMemoryPool {
 public:
  struct Stats {
    uint64_t bytes_in_use = 0;    // allocated to callers (rounded up to the alignment)
    uint64_t bytes_reserved = 0;  // held in regions
    int64_t regions = 0;
    int64_t allocations = 0;
    uint64_t largest_free_block = 0;
  };

  // Requests up to `region_bytes` share regions of that size; larger ones get a region each.
  DeviceMemoryPool(RegionSource source, uint64_t region_bytes);
  ~DeviceMemoryPool();  // releases every region (callers must be done with the memory)
  DeviceMemoryPool(const DeviceMemoryPool&) = delete;
  DeviceMemoryPool& operator=(const DeviceMemoryPool&) = delete;

  // `bytes` (0 allowed: a distinct aligned address of an empty buffer). When the source is out
  // of memory, empty regions are returned to it and the request retried once.
  absl::StatusOr<uint64_t> Allocate(uint64_t bytes);
  // INVALID_ARGUMENT for an address that is not a live allocation (double free, stray).
  absl::Status Free(uint64_t address);
  // Returns regions with nothing allocated in them to the source.
  void Trim();
  Stats stats() const;

 private:
  struct Region {
    uint64_t size = 0;
    int64_t live = 0;  // allocations inside
  };
  struct Allocation {
    uint64_t size = 0;
    uint64_t region = 0;  // base address of its region
  };

  absl::StatusOr<uint64_t> AllocateLocked(uint64_t size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AddFreeBlock(uint64_t address, uint64_t size, uint64_t region) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemoveFreeBlock(std::map<uint64_t, std::pair<uint64_t, uint64_t>>::iterator it)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void TrimLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const RegionSource source_;
  const uint64_t region_bytes_;
  mutable absl::Mutex mu_;
  std::map<uint64_t, Region> regions_ ABSL_GUARDED_BY(mu_);  // by base address
  // Free blocks by address -> (size, region), and by (size, address) for best fit.
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> free_by_address_ ABSL_GUARDED_BY(mu_);
  std::set<std::pair<uint64_t, uint64_t>> free_by_size_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, Allocation> allocations_ ABSL_GUARDED_BY(mu_);
  uint64_t bytes_in_use_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t bytes_reserved_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_DEVICE_MEMORY_POOL_H_
