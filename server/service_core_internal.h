#ifndef XLA_SERVER_SERVICE_CORE_INTERNAL_H_
#define XLA_SERVER_SERVICE_CORE_INTERNAL_H_

// Internals of ServiceCore shared by service_core*.cc. Not for other users.
//
// Locking order (never take them the other way round): Impl::mu -> Session::mu and
// Upload::mu -> Session::mu; CompileCache::mu -> CompileCache::Entry::mu.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <unordered_map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "backends/backend.h"
#include "hlo/shape.h"
#include "server/out_of_memory.h"
#include "server/service_core.h"
#include "server/worker_pool.h"

namespace xla {
namespace server {


using Clock = std::chrono::steady_clock;

// 128 bits (two independent 64-bit hashes, one seeded per process) as 32 hex digits.
std::string Fingerprint(absl::string_view text);

// A compiled executable as the cache and the sessions share it.
struct CompiledProgram {
  std::shared_ptr<backend::Executable> executable;
  int device = 0;  // server-wide ordinal
  ProgramShape program_shape;
  std::vector<std::string> parameter_names;
};

// An execution handle: the shared program plus how the session's Compile obtained it
// (reported in every ExecutionProfile of that handle).
struct SessionExecutable {
  std::shared_ptr<const CompiledProgram> program;
  bool cache_hit = false;
  int64_t compile_ms = 0;
};

// The result of an asynchronous execution: filled in once, when the execution finishes.
class PendingValue {
 public:
  void Finish(absl::StatusOr<std::shared_ptr<backend::Buffer>> result, ExecutionProfile profile);
  // Waits until finished; CANCELLED once `should_cancel` (polled) returns true.
  absl::StatusOr<std::shared_ptr<backend::Buffer>> Wait(const std::function<bool()>& should_cancel);
  // Valid once Wait returned OK.
  ExecutionProfile profile() {
    absl::MutexLock lock(&mu_);
    return profile_;
  }

 private:
  absl::Mutex mu_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<backend::Buffer> buffer_ ABSL_GUARDED_BY(mu_);
  ExecutionProfile profile_ ABSL_GUARDED_BY(mu_);
};

struct GlobalData {
  std::shared_ptr<backend::Buffer> buffer;  // null while `pending`
  std::shared_ptr<PendingValue> pending;    // set for results of asynchronous executions
  Shape shape;  // for pending values: the program's result shape (the buffer's may differ in layout)
  int device = 0;  // server-wide ordinal
  int64_t bytes = 0;

  // The buffer, waiting for a pending execution; the execution's error when it failed.
  absl::StatusOr<std::shared_ptr<backend::Buffer>> Ready(const std::function<bool()>& should_cancel = {}) const {
    if (pending == nullptr) return buffer;
    return pending->Wait(should_cancel);
  }
};

struct Session {
  std::string id;
  std::string client_name;
  int64_t lease_ms = 0;

  absl::Mutex mu;
  Clock::time_point deadline ABSL_GUARDED_BY(mu);
  bool closed ABSL_GUARDED_BY(mu) = false;
  // Set with `closed`; read without the lock by queued executions (which then stop).
  std::atomic<bool> dropped{false};
  std::map<int64_t, std::shared_ptr<GlobalData>> data ABSL_GUARDED_BY(mu);
  std::set<int64_t> donated ABSL_GUARDED_BY(mu);  // handles given up by donation
  std::map<int64_t, SessionExecutable> executables ABSL_GUARDED_BY(mu);
  int64_t memory_bytes ABSL_GUARDED_BY(mu) = 0;
  // Long calls (compile, execute, outfeed) in progress: the lease does not lapse under them.
  int active_calls ABSL_GUARDED_BY(mu) = 0;

  bool Expired(Clock::time_point now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return active_calls == 0 && now >= deadline;
  }
};

// Marks a long call on a session; the lease restarts when it ends.
class SessionUse {
 public:
  explicit SessionUse(std::shared_ptr<Session> session) : session_(std::move(session)) {
    absl::MutexLock lock(&session_->mu);
    ++session_->active_calls;
  }
  ~SessionUse() {
    absl::MutexLock lock(&session_->mu);
    --session_->active_calls;
    session_->deadline = Clock::now() + std::chrono::milliseconds(session_->lease_ms);
  }
  SessionUse(const SessionUse&) = delete;
  SessionUse& operator=(const SessionUse&) = delete;

 private:
  std::shared_ptr<Session> session_;
};

struct DeviceSlot {
  backend::Backend* backend = nullptr;
  int local_ordinal = 0;
  DeviceInfo info;
};

// Single-flight LRU cache of compiled programs keyed by a 128-bit fingerprint of the canonical
// module text + options + device (Fingerprint below).
class CompileCache {
 public:
  explicit CompileCache(int64_t capacity) : capacity_(capacity) {}
  struct Entry {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    absl::Status status;
    std::shared_ptr<const CompiledProgram> program;
    double compile_ms = 0;
  };
  // Returns the entry for `key` and whether this caller must compile it (then it must call
  // Complete). Otherwise the caller waits with Wait.
  std::pair<std::shared_ptr<Entry>, bool> Lookup(const std::string& key);
  void Complete(const std::string& key, const std::shared_ptr<Entry>& entry, absl::Status status,
                std::shared_ptr<const CompiledProgram> program, double compile_ms);
  static void Wait(Entry& entry);
  // The fast path of a repeated request: the program compiled for the request whose exact
  // bytes (module, device, layouts) fingerprint to `request_key`, if it is cached and
  // finished; counts a hit. A hit then costs a hash of the request, not a parse.
  std::shared_ptr<const CompiledProgram> FindExact(const std::string& request_key);
  // Remembers that `request_key` compiles to the canonical `key` (bounded; forgetting only
  // costs a parse).
  void RememberExact(const std::string& request_key, const std::string& key);
  int64_t size();
  int64_t hits() { return hits_.load(); }

 private:
  const int64_t capacity_;
  std::mutex mu_;
  std::list<std::string> lru_;  // front = most recent
  struct Slot {
    std::shared_ptr<Entry> entry;
    std::list<std::string>::iterator lru_pos;
  };
  std::map<std::string, Slot> entries_;
  std::unordered_map<std::string, std::string> exact_;  // request fingerprint -> key
  std::atomic<int64_t> hits_{0};
};

struct Upload {
  std::mutex mu;
  std::shared_ptr<Session> session;
  int device = 0;
  // Where the bytes go: straight into a host-visible device buffer when the backend has
  // one (arrays), else into a literal transferred to the device at the end.
  std::shared_ptr<backend::Buffer> buffer;
  Literal literal;
  Shape shape;
  LeafWriter writer;  // into the dense storage of each array leaf
  int64_t received = 0;  // bytes counted against the session
  int64_t expected = 0;
};

// A counting semaphore bounding concurrent compiles / executions.
class Semaphore {
 public:
  explicit Semaphore(int n) : n_(n < 1 ? 1 : n) {}
  void Acquire() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return n_ > 0; });
    --n_;
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    ++n_;
    cv_.notify_one();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_;
};

// An execution whose arguments are checked and whose donated handles are taken: what remains
// is to run it (now, or later from its device's queue).
struct PreparedExecution {
  std::shared_ptr<Session> session;
  SessionExecutable executable;
  std::vector<std::shared_ptr<GlobalData>> arguments;
  backend::ExecuteOptions options;
};

struct ServiceCore::Impl {
  explicit Impl(const ServiceOptions& o)
      : options(o), cache(o.cache_entries), compile_slots(o.compile_threads),
        execute_slots(o.execute_threads) {}

  const ServiceOptions options;
  std::vector<std::unique_ptr<backend::Backend>> backends;
  std::vector<DeviceSlot> devices;
  CompileCache cache;
  Semaphore compile_slots, execute_slots;
  std::atomic<int64_t> next_handle{1};
  std::atomic<int64_t> executions_in_flight{0};  // running or queued
  std::atomic<bool> shutting_down{false};  // queued executions stop
  // One FIFO per device for asynchronous executions (submission order per device).
  std::vector<std::unique_ptr<WorkerPool>> device_queues;

  absl::Mutex mu;
  std::map<std::string, std::shared_ptr<Session>> sessions ABSL_GUARDED_BY(mu);
  std::map<int64_t, std::shared_ptr<Upload>> uploads ABSL_GUARDED_BY(mu);

  // Reaper.
  std::mutex reaper_mu;
  std::condition_variable reaper_cv;
  bool stopping = false;
  std::thread reaper;

  int64_t NewHandle() { return next_handle.fetch_add(1); }

  // Finds a live session and renews its lease; NOT_FOUND when unknown or expired.
  absl::StatusOr<std::shared_ptr<Session>> FindSession(const std::string& id);
  // Removes a session (closing it) and frees everything it owns, including its uploads.
  void DropSession(const std::shared_ptr<Session>& session);
  void ReapExpired();
  void ReaperLoop();

  absl::StatusOr<const DeviceSlot*> Device(int64_t ordinal) const;

  // Handle table helpers (take session->mu).
  absl::StatusOr<std::shared_ptr<GlobalData>> LookupData(Session& session, int64_t handle);
  absl::StatusOr<SessionExecutable> LookupProgram(Session& session, int64_t handle);
  // Registers a buffer; with `check_quota`, fails RESOURCE_EXHAUSTED past the quota.
  absl::StatusOr<int64_t> RegisterData(Session& session, std::shared_ptr<backend::Buffer> buffer,
                                       const Shape& shape, int device, bool check_quota);
  absl::Status CheckQuota(int64_t used, int64_t extra) const;

  // Compile's work without the handle: parse, verify, and compile through the cache.
  struct CompileResult {
    std::shared_ptr<const CompiledProgram> program;
    bool cache_hit = false;
    double compile_ms = 0;
  };
  absl::StatusOr<CompileResult> CompileCached(const CompileRequest& request);
  // A new execution handle of `session` for `program`; NOT_FOUND if the session closed.
  absl::StatusOr<int64_t> RegisterExecutable(Session& session, std::shared_ptr<const CompiledProgram> program,
                                             bool cache_hit, double compile_ms);

  absl::StatusOr<ExecuteResponse> ExecuteOne(const ExecuteRequest& request,
                                             const std::function<bool()>& should_cancel);
  absl::StatusOr<PreparedExecution> PrepareExecution(const ExecuteRequest& request);
  // Waits for pending arguments (before taking an execute slot), runs, fills the profile.
  absl::StatusOr<std::shared_ptr<backend::Buffer>> RunPrepared(PreparedExecution& prepared,
                                                             ExecutionProfile* profile);
};

}  // namespace server
}  // namespace xla

#endif  // XLA_SERVER_SERVICE_CORE_INTERNAL_H_
