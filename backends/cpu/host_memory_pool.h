#ifndef XLA_BACKENDS_CPU_HOST_MEMORY_POOL_H_
#define XLA_BACKENDS_CPU_HOST_MEMORY_POOL_H_

// A pool of 64-byte-aligned host memory blocks. Writing fresh pages costs ~100x more than
// reused memory on the development machine (DESIGN.md), so freed blocks are kept and handed
// out again for requests of a similar size (up to `max_cached_bytes` in all).
//
// Thread-safe. Blocks hold a reference to the pool's state, so they may outlive the pool.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace xla {
namespace cpu {

class HostMemoryPool {
 public:
  explicit HostMemoryPool(int64_t max_cached_bytes = int64_t{8} << 30);
  HostMemoryPool(const HostMemoryPool&) = delete;
  HostMemoryPool& operator=(const HostMemoryPool&) = delete;

  // At least `bytes` (>= 1) bytes, 64-byte aligned, contents unspecified. The memory
  // returns to the pool when the last reference goes. nullptr when the system is out of memory.
  std::shared_ptr<void> Allocate(int64_t bytes);

  // Bytes held in free blocks right now.
  int64_t cached_bytes() const;

 private:
  struct State {
    mutable std::mutex mu;
    std::multimap<int64_t, void*> free_blocks;  // capacity -> block
    int64_t cached_bytes = 0;
    int64_t max_cached_bytes = 0;
    ~State();
  };
  static void Release(const std::shared_ptr<State>& state, void* block, int64_t capacity);
  std::shared_ptr<State> state_;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_HOST_MEMORY_POOL_H_
