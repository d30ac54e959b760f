#include "backends/gpu/device_memory_pool.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace xla {
namespace gpu {
namespace {

uint64_t RoundUp(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

}  // namespace

DeviceMemoryPool::DeviceMemoryPool(RegionSource source, uint64_t region_bytes)
    : source_(std::move(source)), region_bytes_(RoundUp(std::max<uint64_t>(region_bytes, 1), kDeviceAlignment)) {}

DeviceMemoryPool::~DeviceMemoryPool() {
  absl::MutexLock lock(&mu_);
  for (const auto& [base, region] : regions_) source_.release(base);
}

absl::StatusOr<uint64_t> DeviceMemoryPool::Allocate(uint64_t bytes) {
  if (bytes > (uint64_t{1} << 62)) {
    return absl::ResourceExhaustedError(absl::StrCat("device allocation of ", bytes, " bytes is too large"));
  }
  const uint64_t size = RoundUp(std::max<uint64_t>(bytes, 1), kDeviceAlignment);
  absl::MutexLock lock(&mu_);
  absl::StatusOr<uint64_t> address = AllocateLocked(size);
  if (address.ok() || !absl::IsResourceExhausted(address.status())) return address;
  TrimLocked();  // give empty regions back and try once more: the device may fit it now
  return AllocateLocked(size);
}

absl::StatusOr<uint64_t> DeviceMemoryPool::AllocateLocked(uint64_t size) {
  auto best = free_by_size_.lower_bound({size, 0});
  if (best == free_by_size_.end()) {
    const uint64_t region_size = std::max(size, region_bytes_);
    absl::StatusOr<uint64_t> base = source_.allocate(region_size);
    if (!base.ok()) {
      return absl::ResourceExhaustedError(absl::StrCat("device memory exhausted allocating ", size, " bytes (",
                                                       bytes_in_use_, " in use, ", bytes_reserved_,
                                                       " reserved): ", base.status().message()));
    }
    regions_[*base] = Region{region_size, 0};
    bytes_reserved_ += region_size;
    AddFreeBlock(*base, region_size, *base);
    best = free_by_size_.find({region_size, *base});
  }
  const uint64_t address = best->second;
  auto block = free_by_address_.find(address);
  const auto [block_size, region] = block->second;
  RemoveFreeBlock(block);
  if (block_size > size) AddFreeBlock(address + size, block_size - size, region);
  allocations_[address] = Allocation{size, region};
  ++regions_[region].live;
  bytes_in_use_ += size;
  return address;
}

absl::Status DeviceMemoryPool::Free(uint64_t address) {
  absl::MutexLock lock(&mu_);
  auto it = allocations_.find(address);
  if (it == allocations_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("device address 0x", absl::Hex(address),
                                                   " is not a live allocation of this pool"));
  }
  uint64_t start = address;
  uint64_t size = it->second.size;
  const uint64_t region = it->second.region;
  allocations_.erase(it);
  bytes_in_use_ -= size;
  --regions_[region].live;
  // Merge with the free neighbours of the same region.
  auto next = free_by_address_.find(start + size);
  if (next != free_by_address_.end() && next->second.second == region) {
    size += next->second.first;
    RemoveFreeBlock(next);
  }
  auto prev = free_by_address_.lower_bound(start);
  if (prev != free_by_address_.begin()) {
    --prev;
    if (prev->first + prev->second.first == start && prev->second.second == region) {
      start = prev->first;
      size += prev->second.first;
      RemoveFreeBlock(prev);
    }
  }
  AddFreeBlock(start, size, region);
  return absl::OkStatus();
}

void DeviceMemoryPool::Trim() {
  absl::MutexLock lock(&mu_);
  TrimLocked();
}

void DeviceMemoryPool::TrimLocked() {
  for (auto it = regions_.begin(); it != regions_.end();) {
    if (it->second.live != 0) {
      ++it;
      continue;
    }
    // An empty region is one free block spanning it.
    RemoveFreeBlock(free_by_address_.find(it->first));
    bytes_reserved_ -= it->second.size;
    source_.release(it->first);
    it = regions_.erase(it);
  }
}

DeviceMemoryPool::Stats DeviceMemoryPool::stats() const {
  absl::MutexLock lock(&mu_);
  Stats s;
  s.bytes_in_use = bytes_in_use_;
  s.bytes_reserved = bytes_reserved_;
  s.regions = static_cast<int64_t>(regions_.size());
  s.allocations = static_cast<int64_t>(allocations_.size());
  s.largest_free_block = free_by_size_.empty() ? 0 : free_by_size_.rbegin()->first;
  return s;
}

void DeviceMemoryPool::AddFreeBlock(uint64_t address, uint64_t size, uint64_t region) {
  free_by_address_[address] = {size, region};
  free_by_size_.insert({size, address});
}

void DeviceMemoryPool::RemoveFreeBlock(std::map<uint64_t, std::pair<uint64_t, uint64_t>>::iterator it) {
  free_by_size_.erase({it->second.first, it->first});
  free_by_address_.erase(it);
}

}  // namespace gpu
}  // namespace xla
