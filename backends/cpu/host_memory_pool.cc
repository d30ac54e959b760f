#include "backends/cpu/host_memory_pool.h"

#include <sys/mman.h>

#include <cstdlib>

namespace xla {
namespace cpu {
namespace {

// Capacities are rounded so that repeated requests of nearby sizes share blocks.
int64_t RoundCapacity(int64_t bytes) {
  if (bytes <= 64) return 64;
  if (bytes <= 4096) return (bytes + 63) / 64 * 64;
  return (bytes + 4095) / 4096 * 4096;
}

// Large blocks are 2 MiB aligned and advised as transparent huge pages, so their first
// writes fault once per 2 MiB (several times faster than 4 KiB pages here).
constexpr int64_t kHugePage = int64_t{2} << 20;

void* NewBlock(int64_t capacity) {
  if (capacity < 2 * kHugePage) return std::aligned_alloc(64, static_cast<size_t>(capacity));
  const int64_t rounded = (capacity + kHugePage - 1) / kHugePage * kHugePage;
  void* block = std::aligned_alloc(static_cast<size_t>(kHugePage), static_cast<size_t>(rounded));
#ifdef MADV_HUGEPAGE
  if (block != nullptr) madvise(block, static_cast<size_t>(rounded), MADV_HUGEPAGE);  // advisory
#endif
  return block;
}

}  // namespace

HostMemoryPool::HostMemoryPool(int64_t max_cached_bytes) : state_(std::make_shared<State>()) {
  state_->max_cached_bytes = max_cached_bytes;
}

HostMemoryPool::State::~State() {
  for (auto& [capacity, block] : free_blocks) std::free(block);
}

std::shared_ptr<void> HostMemoryPool::Allocate(int64_t bytes) {
  const int64_t capacity = RoundCapacity(bytes < 1 ? 1 : bytes);
  void* block = nullptr;
  int64_t block_capacity = capacity;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    // Best fit among blocks at most 2x (or 64 KiB) larger than needed.
    auto it = state_->free_blocks.lower_bound(capacity);
    if (it != state_->free_blocks.end() && it->first <= std::max(capacity * 2, capacity + (64 << 10))) {
      block = it->second;
      block_capacity = it->first;
      state_->cached_bytes -= it->first;
      state_->free_blocks.erase(it);
    }
  }
  if (block == nullptr) {
    block = NewBlock(capacity);
    if (block == nullptr) return nullptr;
  }
  std::shared_ptr<State> state = state_;
  return std::shared_ptr<void>(block, [state, block_capacity](void* p) { Release(state, p, block_capacity); });
}

void HostMemoryPool::Release(const std::shared_ptr<State>& state, void* block, int64_t capacity) {
  {
    std::lock_guard<std::mutex> lock(state->mu);
    if (state->cached_bytes + capacity <= state->max_cached_bytes) {
      state->free_blocks.emplace(capacity, block);
      state->cached_bytes += capacity;
      return;
    }
  }
  std::free(block);
}

int64_t HostMemoryPool::cached_bytes() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->cached_bytes;
}

}  // namespace cpu
}  // namespace xla
