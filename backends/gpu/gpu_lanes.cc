#include "backends/gpu/gpu_lanes.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "backends/gpu/host_copy.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {
namespace {

constexpr uint64_t kRegionBytes = uint64_t{256} << 20;

// A retired block is reused for a request of at least half its size (no worse than the
// pool's own rounding, and a loop's next iteration asks for the same sizes again).
bool Fits(int64_t block_bytes, int64_t wanted) { return wanted <= block_bytes && wanted * 2 >= block_bytes; }

// Makes the lane's pinned staging buffers and their events; false when the host has no
// pinned memory to give (copies then go from pageable memory, as before).
bool EnsureStaging(Lane& lane) {
  if (lane.staging[0] != nullptr) return true;
  if (lane.staging_unavailable) return false;
  const CudaDriver* d = lane.device->driver;
  for (int i = 0; i < 2; ++i) {
    if (d->cuMemAllocHost(&lane.staging[i], kStagingChunkBytes) != CUDA_SUCCESS ||
        d->cuEventCreate(&lane.staged[i], CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) {
      for (int j = 0; j <= i; ++j) {
        if (lane.staging[j] != nullptr) d->cuMemFreeHost(lane.staging[j]);
        if (lane.staged[j] != nullptr) d->cuEventDestroy(lane.staged[j]);
        lane.staging[j] = nullptr;
        lane.staged[j] = nullptr;
      }
      lane.staging_unavailable = true;
      return false;
    }
  }
  return true;
}

}  // namespace

Device::~Device() {
  if (context != nullptr && UseContext(*this).ok()) {
    pool.reset();  // every buffer is gone: executables and buffers hold their device
    absl::StatusOr<const CublasLibrary*> blas = CublasLibrary::Default();
    for (auto& lane : lanes) {
      if (lane->cublas != nullptr && blas.ok()) (*blas)->destroy(lane->cublas);
      if (lane->stream != nullptr) driver->cuStreamDestroy(lane->stream);
      for (int i = 0; i < 2; ++i) {
        if (lane->staging[i] != nullptr) driver->cuMemFreeHost(lane->staging[i]);
        if (lane->staged[i] != nullptr) driver->cuEventDestroy(lane->staged[i]);
      }
    }
    driver->cuDevicePrimaryCtxRelease(device);
  }
}

absl::Status UseContext(const Device& device) {
  CUDA_RETURN_IF_ERROR(device.driver, cuCtxSetCurrent(device.context));
  return absl::OkStatus();
}

int LanesFromEnvironment() {
  const char* text = std::getenv("XLA_GPU_LANES");
  if (text == nullptr) return kDefaultLanes;
  const int lanes = std::atoi(text);
  return lanes >= 1 && lanes <= 64 ? lanes : kDefaultLanes;
}

LaneLease::LaneLease(Device* device) : device_(device) {
  absl::MutexLock lock(&device->lanes_mu);
  auto take_free_lane = [this, device]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(device->lanes_mu) {
    for (auto& lane : device->lanes) {
      if (!lane->busy) {
        lane_ = lane.get();
        return true;
      }
    }
    return false;
  };
  device->lanes_mu.Await(absl::Condition(&take_free_lane));
  lane_->busy = true;
}

absl::Status LaneLease::Finish() {
  RETURN_IF_ERROR(UseContext(*device_));
  CUDA_RETURN_IF_ERROR(device_->driver, cuStreamSynchronize(lane_->stream));
  return absl::OkStatus();
}

LaneLease::~LaneLease() {
  // The blocks retired during the lease may still be read by queued work until the stream
  // drains; after that nothing of this lane reads them.
  Finish().IgnoreError();
  std::vector<std::pair<uint64_t, int64_t>> retired;
  {
    absl::MutexLock lock(&device_->lanes_mu);
    retired.swap(lane_->retired);
    lane_->busy = false;
  }
  for (const auto& block : retired) device_->pool->Free(block.first).IgnoreError();
}

GpuBuffer::~GpuBuffer() {
  if (address_ == 0 || viewed_ != nullptr) return;  // views own nothing
  if (lane_ != nullptr) {
    absl::MutexLock lock(&device_->lanes_mu);
    if (lane_->busy) {
      lane_->retired.emplace_back(address_, block_bytes_);
      return;
    }
  }
  device_->pool->Free(address_).IgnoreError();  // ours: cannot be stray
}

int GpuBuffer::device_ordinal() const { return device_->ordinal; }

absl::StatusOr<std::shared_ptr<GpuBuffer>> AllocateArray(Lane& lane, const Shape& shape, int64_t extra_bytes) {
  Device* device = lane.device;
  const int64_t bytes = shape.IsArray() ? ShapeUtil::ByteSizeOf(shape) : 0;
  if (bytes == 0 && extra_bytes == 0) return std::make_shared<GpuBuffer>(device, &lane, shape, 0, 0);
  const int64_t wanted = bytes + extra_bytes;
  {
    // Best fit among the blocks this lane's own work retired (see gpu_lanes.h).
    absl::MutexLock lock(&device->lanes_mu);
    auto best = lane.retired.end();
    for (auto it = lane.retired.begin(); it != lane.retired.end(); ++it) {
      if (Fits(it->second, wanted) && (best == lane.retired.end() || it->second < best->second)) best = it;
    }
    if (best != lane.retired.end()) {
      const CUdeviceptr address = static_cast<CUdeviceptr>(best->first);
      const int64_t block = best->second;
      lane.retired.erase(best);
      return std::make_shared<GpuBuffer>(device, &lane, shape, address, bytes, block);
    }
  }
  RETURN_IF_ERROR(UseContext(*device));
  absl::StatusOr<uint64_t> address = device->pool->Allocate(static_cast<uint64_t>(wanted));
  if (absl::IsResourceExhausted(address.status())) {
    // Out of memory while this lane holds retired blocks of other sizes: wait for the
    // lane's queued work, which is all that may still read them, give them back and retry.
    std::vector<std::pair<uint64_t, int64_t>> retired;
    {
      absl::MutexLock lock(&device->lanes_mu);
      if (lane.busy) retired.swap(lane.retired);
    }
    if (!retired.empty()) {
      const CUresult drained = device->driver->cuStreamSynchronize(lane.stream);
      if (drained != CUDA_SUCCESS) {
        // Not known to be done with them: they stay retired until the lease ends.
        absl::MutexLock lock(&device->lanes_mu);
        lane.retired.insert(lane.retired.end(), retired.begin(), retired.end());
        return device->driver->ToStatus(drained, "cuStreamSynchronize");
      }
      for (const auto& block : retired) device->pool->Free(block.first).IgnoreError();
      address = device->pool->Allocate(static_cast<uint64_t>(wanted));
    }
  }
  if (!address.ok()) return address.status();
  return std::make_shared<GpuBuffer>(device, &lane, shape, static_cast<CUdeviceptr>(*address), bytes, wanted);
}

absl::Status CopyToDevice(Lane& lane, CUdeviceptr device, const void* host, uint64_t bytes) {
  const CudaDriver* d = lane.device->driver;
  if (bytes < kStagedCopyBytes || !EnsureStaging(lane)) {
    // From pageable memory: the driver has read `host` when the call returns.
    CUDA_RETURN_IF_ERROR(d, cuMemcpyHtoDAsync(device, host, bytes, lane.stream));
    return absl::OkStatus();
  }
  const char* from = static_cast<const char*>(host);
  for (uint64_t offset = 0, chunk = 0; offset < bytes; offset += kStagingChunkBytes, ++chunk) {
    const int k = static_cast<int>(chunk % 2);
    const uint64_t n = std::min(kStagingChunkBytes, bytes - offset);
    // The copy that last read this staging buffer has run (at once if none was recorded).
    CUDA_RETURN_IF_ERROR(d, cuEventSynchronize(lane.staged[k]));
    HostCopy(lane.staging[k], from + offset, n);
    CUDA_RETURN_IF_ERROR(d, cuMemcpyHtoDAsync(device + offset, lane.staging[k], n, lane.stream));
    CUDA_RETURN_IF_ERROR(d, cuEventRecord(lane.staged[k], lane.stream));
  }
  // The caller's memory was read when each chunk was staged; the staging buffers are free
  // again once their events complete, which the next copy waits for.
  return absl::OkStatus();
}

absl::Status CopyToHost(Lane& lane, void* host, CUdeviceptr device, uint64_t bytes) {
  const CudaDriver* d = lane.device->driver;
  if (bytes < kStagedCopyBytes || !EnsureStaging(lane)) {
    // Into pageable memory: the call returns once the copy is done.
    CUDA_RETURN_IF_ERROR(d, cuMemcpyDtoHAsync(host, device, bytes, lane.stream));
    return absl::OkStatus();
  }
  char* to = static_cast<char*>(host);
  const uint64_t chunks = (bytes + kStagingChunkBytes - 1) / kStagingChunkBytes;
  auto issue = [&](uint64_t chunk) -> absl::Status {
    const int k = static_cast<int>(chunk % 2);
    const uint64_t offset = chunk * kStagingChunkBytes;
    CUDA_RETURN_IF_ERROR(d, cuMemcpyDtoHAsync(lane.staging[k], device + offset,
                                              std::min(kStagingChunkBytes, bytes - offset), lane.stream));
    CUDA_RETURN_IF_ERROR(d, cuEventRecord(lane.staged[k], lane.stream));
    return absl::OkStatus();
  };
  // The device fills one staging buffer while the host empties the other.
  RETURN_IF_ERROR(issue(0));
  for (uint64_t chunk = 0; chunk < chunks; ++chunk) {
    if (chunk + 1 < chunks) RETURN_IF_ERROR(issue(chunk + 1));
    const int k = static_cast<int>(chunk % 2);
    const uint64_t offset = chunk * kStagingChunkBytes;
    CUDA_RETURN_IF_ERROR(d, cuEventSynchronize(lane.staged[k]));
    HostCopy(to + offset, lane.staging[k], std::min(kStagingChunkBytes, bytes - offset));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<backend::Buffer>> Upload(Lane& lane, const Literal& literal) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    std::vector<std::shared_ptr<backend::Buffer>> elements;
    for (int64_t i = 0; i < ShapeUtil::TupleElementCount(shape); ++i) {
      ASSIGN_OR_RETURN(elements.emplace_back(), Upload(lane, literal.tuple_element(i)));
    }
    return std::make_shared<GpuBuffer>(lane.device, shape, std::move(elements));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<GpuBuffer> buffer, AllocateArray(lane, shape));
  if (buffer->size_bytes() != 0) {
    if (literal.size_bytes() != buffer->size_bytes()) {
      return absl::InternalError(absl::StrCat("gpu: literal of ", shape.ToString(true), " holds ", literal.size_bytes(),
                                              " bytes, the device buffer ", buffer->size_bytes()));
    }
    RETURN_IF_ERROR(CopyToDevice(lane, buffer->address(), literal.untyped_data(),
                                 static_cast<uint64_t>(buffer->size_bytes())));
  }
  return std::shared_ptr<backend::Buffer>(std::move(buffer));
}

absl::StatusOr<Literal> Download(Lane& lane, const backend::Buffer& buffer) {
  if (buffer.shape().IsTuple()) {
    std::vector<Literal> elements;
    for (const auto& element : buffer.tuple_elements()) {
      ASSIGN_OR_RETURN(Literal l, Download(lane, *element));
      elements.push_back(std::move(l));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  const auto* gpu = dynamic_cast<const GpuBuffer*>(&buffer);
  if (gpu == nullptr) return absl::InvalidArgumentError("not a gpu buffer");
  // Not zero-filled first: the copy below writes every byte (its size is checked).
  ASSIGN_OR_RETURN(Literal literal, Literal::CreateForOverwrite(buffer.shape()));
  if (gpu->size_bytes() != 0) {
    if (literal.size_bytes() != gpu->size_bytes()) {
      return absl::InternalError(absl::StrCat("gpu: buffer of ", buffer.shape().ToString(true), " holds ",
                                              gpu->size_bytes(), " bytes, its literal ", literal.size_bytes()));
    }
    RETURN_IF_ERROR(UseContext(*lane.device));
    RETURN_IF_ERROR(CopyToHost(lane, literal.untyped_data(), gpu->address(), static_cast<uint64_t>(gpu->size_bytes())));
  }
  return literal;
}

absl::StatusOr<std::unique_ptr<Device>> OpenDevice(const CudaDriver* driver, int ordinal, int lanes) {
  auto device = std::make_unique<Device>();
  device->driver = driver;
  device->ordinal = ordinal;
  device->host = std::make_unique<interpreter::DeviceState>(ordinal);
  CUDA_RETURN_IF_ERROR(driver, cuDeviceGet(&device->device, ordinal));
  char name[256] = {};
  CUDA_RETURN_IF_ERROR(driver, cuDeviceGetName(name, sizeof(name) - 1, device->device));
  device->name = name;
  size_t memory = 0;
  CUDA_RETURN_IF_ERROR(driver, cuDeviceTotalMem(&memory, device->device));
  device->memory_bytes = static_cast<int64_t>(memory);
  int major = 0, minor = 0;
  CUDA_RETURN_IF_ERROR(driver, cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device->device));
  CUDA_RETURN_IF_ERROR(driver, cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device->device));
  device->sm = major * 10 + minor;
  CUDA_RETURN_IF_ERROR(driver, cuDeviceGetAttribute(&device->multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                                    device->device));
  device->multiprocessors = std::max(device->multiprocessors, 1);
  if (device->sm < 60) {
    return absl::UnavailableError(absl::StrCat("gpu: device ", ordinal, " (", device->name, ") is sm_", device->sm,
                                               "; sm_60 or newer is needed"));
  }
  CUDA_RETURN_IF_ERROR(driver, cuDevicePrimaryCtxRetain(&device->context, device->device));
  RETURN_IF_ERROR(UseContext(*device));
  for (int i = 0; i < lanes; ++i) {
    auto lane = std::make_unique<Lane>();
    lane->device = device.get();
    CUDA_RETURN_IF_ERROR(driver, cuStreamCreate(&lane->stream, CU_STREAM_NON_BLOCKING));
    device->lanes.push_back(std::move(lane));
  }
  Device* raw = device.get();
  device->pool = std::make_unique<DeviceMemoryPool>(
      RegionSource{[raw](uint64_t bytes) -> absl::StatusOr<uint64_t> {
                     CUdeviceptr p = 0;
                     CUDA_RETURN_IF_ERROR(raw->driver, cuMemAlloc(&p, bytes));
                     return static_cast<uint64_t>(p);
                   },
                   [raw](uint64_t address) { raw->driver->cuMemFree(static_cast<CUdeviceptr>(address)); }},
      kRegionBytes);
  return device;
}

}  // namespace gpu
}  // namespace xla
