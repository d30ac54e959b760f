#include "backends/gpu/host_copy.h"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace xla {
namespace gpu {
namespace {

constexpr size_t kPageBytes = 4096;

// One HostCopy call: its pieces still being copied.
struct Job {
  int pending = 0;
};

struct Piece {
  char* to;
  const char* from;
  size_t n;
  std::shared_ptr<Job> job;
};

// Worker threads (HostCopyThreads() - 1, made on first use, never joined: they live as long as
// the process) taking pieces from one queue; a caller copies its own first piece, then helps
// with the queue until its job is done.
class Pool {
 public:
  static Pool& Get() {
    static Pool* pool = new Pool(HostCopyThreads() - 1);
    return *pool;
  }

  void Copy(char* to, const char* from, size_t n, int pieces) {
    auto job = std::make_shared<Job>();
    // Page-aligned piece boundaries (relative to `to`), so no two threads fault one page.
    const size_t step = (n / static_cast<size_t>(pieces) + kPageBytes - 1) / kPageBytes * kPageBytes;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t offset = step; offset < n; offset += step) {
        queue_.push_back({to + offset, from + offset, std::min(step, n - offset), job});
        ++job->pending;
      }
    }
    ready_.notify_all();
    std::memcpy(to, from, std::min(step, n));
    std::unique_lock<std::mutex> lock(mu_);
    while (job->pending > 0) {
      if (!queue_.empty()) {
        RunOne(lock);
      } else {
        done_.wait(lock);
      }
    }
  }

 private:
  explicit Pool(int workers) {
    for (int i = 0; i < workers; ++i) {
      std::thread([this] {
        std::unique_lock<std::mutex> lock(mu_);
        for (;;) {
          ready_.wait(lock, [this] { return !queue_.empty(); });
          RunOne(lock);
        }
      }).detach();
    }
  }

  // Takes the queue's first piece and copies it with the lock released.
  void RunOne(std::unique_lock<std::mutex>& lock) {
    Piece piece = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    std::memcpy(piece.to, piece.from, piece.n);
    lock.lock();
    if (--piece.job->pending == 0) done_.notify_all();
  }

  std::mutex mu_;
  std::condition_variable ready_, done_;
  std::deque<Piece> queue_;
};

}  // namespace

int HostCopyThreads() {
  static const int threads = [] {
    const char* set = std::getenv("XLA_GPU_COPY_THREADS");
    const int n = set != nullptr && *set != '\0' ? std::atoi(set)
                                                 : static_cast<int>(std::thread::hardware_concurrency()) / 2;
    return std::clamp(n, 1, 8);
  }();
  return threads;
}

void HostCopy(void* to, const void* from, size_t n) {
  const int pieces = static_cast<int>(std::min<size_t>(static_cast<size_t>(HostCopyThreads()), n / kHostCopyPieceBytes));
  if (pieces <= 1) {
    std::memcpy(to, from, n);
    return;
  }
  Pool::Get().Copy(static_cast<char*>(to), static_cast<const char*>(from), n, pieces);
}

}  // namespace gpu
}  // namespace xla
