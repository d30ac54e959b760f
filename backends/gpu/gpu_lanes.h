#ifndef XLA_BACKENDS_GPU_GPU_LANES_H_
#define XLA_BACKENDS_GPU_GPU_LANES_H_

// The gpu backend's per-device runtime (gpu_backend.h): lanes, buffers and transfers.
//  - A lane is a stream with its own cuBLAS handle and pinned staging buffers. Every
//    execution and transfer leases a lane for its duration (LaneLease), so up to `lanes`
//    of them are on a device at once: one's copies overlap another's kernels. A lease ends
//    once its stream has drained, so whatever it computed is complete for the next user.
//  - Memory comes from the device's DeviceMemoryPool. A block freed while its lane is
//    leased may still be read by work queued on that lane's stream, so it is retired to the
//    lane: only the lane's later work (which runs after those readers, in stream order) may
//    reuse it, and it returns to the pool when the lease ends, or earlier when the pool runs
//    out of memory (the lane's stream drained first).
//  - Copies of at least kStagedCopyBytes go through the lane's two pinned buffers chunk by
//    chunk: the host fills (or empties) one while the device copies the other, events
//    marking when each is free again. Smaller copies go straight from pageable memory.
//
// Thread-safety: a Device is shared by every thread; a Lane belongs to its lease's holder,
// except `busy` and `retired`, guarded by Device::lanes_mu.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "backends/backend.h"
#include "backends/gpu/cublas_library.h"
#include "backends/gpu/cuda_driver.h"
#include "backends/gpu/device_memory_pool.h"
#include "backends/interpreter/device_state.h"
#include "hlo/literal.h"

namespace xla {
namespace gpu {

inline constexpr int kDefaultLanes = 4;                          // $XLA_GPU_LANES overrides (1 to 64)
inline constexpr uint64_t kStagingChunkBytes = uint64_t{8} << 20;  // each of a lane's two pinned buffers
inline constexpr uint64_t kStagedCopyBytes = uint64_t{1} << 20;    // smaller copies skip the staging

struct Device;

struct Lane {
  Device* device = nullptr;
  CUstream stream = nullptr;
  cublasHandle_t cublas = nullptr;  // created at the lane's first gemm
  // Pinned host buffers of kStagingChunkBytes, made at the lane's first large copy (null
  // when pinned memory could not be had: copies then go from pageable memory), and the
  // events that complete once the copy using each has run.
  void* staging[2] = {nullptr, nullptr};
  CUevent staged[2] = {nullptr, nullptr};
  bool staging_unavailable = false;
  bool busy = false;                                  // leased (Device::lanes_mu)
  std::vector<std::pair<uint64_t, int64_t>> retired;  // (address, bytes) freed while leased (lanes_mu)
};

struct Device {
  ~Device();  // the caller has released every buffer and executable of the device

  const CudaDriver* driver = nullptr;
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;
  int64_t memory_bytes = 0;
  int sm = 0;  // compute capability major * 10 + minor
  int multiprocessors = 1;
  std::unique_ptr<DeviceMemoryPool> pool;
  // What the host keeps for the device, as the interpreter's DeviceState: the infeed and
  // outfeed queues and the rng state (thread-safe on its own).
  std::unique_ptr<interpreter::DeviceState> host;
  std::atomic<bool> cublas_unusable{false};  // cuBLAS loaded but cannot initialize: kernels do the dots
  std::vector<std::unique_ptr<Lane>> lanes;
  absl::Mutex lanes_mu;
};

// Opens device `ordinal` with `lanes` streams (UNAVAILABLE for a GPU older than sm_60).
absl::StatusOr<std::unique_ptr<Device>> OpenDevice(const CudaDriver* driver, int ordinal, int lanes);

// The number of lanes per device: $XLA_GPU_LANES when it is 1 to 64, else kDefaultLanes.
int LanesFromEnvironment();

// Makes `device`'s context current on this thread (driver calls act on the current one).
absl::Status UseContext(const Device& device);

// A lane of `device`, leased for this object's life (waits while every lane is leased).
// Its destructor drains the lane's stream, then returns the lane's retired blocks to the
// pool: call Finish() first to see a failure of the work still queued.
class LaneLease {
 public:
  explicit LaneLease(Device* device);
  ~LaneLease();
  LaneLease(const LaneLease&) = delete;
  LaneLease& operator=(const LaneLease&) = delete;

  Lane& lane() const { return *lane_; }
  // Waits for the lane's queued work; its first failure as a Status.
  absl::Status Finish();

 private:
  Device* const device_;
  Lane* lane_ = nullptr;
};

class GpuBuffer : public backend::Buffer {
 public:
  // An array (or token) in `address` (0 for zero bytes with no allocation), allocated by
  // work on `lane` (null: none, e.g. a token); the block there holds `block_bytes` (-1:
  // `bytes`).
  GpuBuffer(Device* device, Lane* lane, Shape shape, CUdeviceptr address, int64_t bytes, int64_t block_bytes = -1)
      : device_(device), lane_(lane), shape_(std::move(shape)), address_(address), bytes_(bytes),
        block_bytes_(block_bytes < 0 ? bytes : block_bytes) {}
  GpuBuffer(Device* device, Shape shape, std::vector<std::shared_ptr<backend::Buffer>> elements)
      : device_(device), shape_(std::move(shape)), elements_(std::move(elements)) {}
  // A view of `viewed`'s bytes as an array of `shape` (a bitcast), keeping it alive.
  GpuBuffer(Device* device, Shape shape, std::shared_ptr<GpuBuffer> viewed)
      : device_(device), shape_(std::move(shape)), address_(viewed->address()), bytes_(viewed->size_bytes()),
        viewed_(std::move(viewed)) {}
  ~GpuBuffer() override;

  const Shape& shape() const override { return shape_; }
  int device_ordinal() const override;
  int64_t size_bytes() const override { return bytes_; }
  std::vector<std::shared_ptr<backend::Buffer>> tuple_elements() const override { return elements_; }
  CUdeviceptr address() const { return address_; }
  // The buffer this one views (null: it owns its bytes or has none).
  const std::shared_ptr<GpuBuffer>& viewed() const { return viewed_; }

 private:
  Device* const device_;
  Lane* const lane_ = nullptr;
  const Shape shape_;
  const CUdeviceptr address_ = 0;
  const int64_t bytes_ = 0;
  const int64_t block_bytes_ = 0;
  const std::vector<std::shared_ptr<backend::Buffer>> elements_;
  const std::shared_ptr<GpuBuffer> viewed_;
};

// An array of `shape` in device memory for work on `lane` (`extra_bytes` more allocated
// past its end), uninitialized; a token or empty array has no memory.
absl::StatusOr<std::shared_ptr<GpuBuffer>> AllocateArray(Lane& lane, const Shape& shape, int64_t extra_bytes = 0);

// Copies between host and device memory on `lane`'s stream, after the work queued before
// them. When a copy returns, `host` has been read (to the device) or written (to the host);
// a copy to the device lands when the stream gets to it.
absl::Status CopyToDevice(Lane& lane, CUdeviceptr device, const void* host, uint64_t bytes);
absl::Status CopyToHost(Lane& lane, void* host, CUdeviceptr device, uint64_t bytes);

// `literal` in new buffers on `lane`'s device (its tuple structure as buffers of elements).
absl::StatusOr<std::shared_ptr<backend::Buffer>> Upload(Lane& lane, const Literal& literal);
// A buffer's value, once the work queued on `lane` before has computed it.
absl::StatusOr<Literal> Download(Lane& lane, const backend::Buffer& buffer);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_GPU_LANES_H_
