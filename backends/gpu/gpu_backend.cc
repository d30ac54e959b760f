#include "backends/gpu/gpu_backend.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/gpu_executable.h"
#include "backends/gpu/gpu_lanes.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {
namespace {

constexpr int kNewestSmEmitted = 90;  // LLVM 16's NVPTX; newer GPUs JIT sm_90 PTX forward

class GpuBackend : public backend::Backend {
 public:
  GpuBackend(std::vector<std::unique_ptr<Device>> devices, GpuCompileFn compile)
      : devices_(std::move(devices)), compile_(std::move(compile)) {}
  // Each Device's destructor releases its lanes, memory and context: every buffer and
  // executable (which hold the backend's devices) must be gone.
  ~GpuBackend() override = default;

  std::string platform() const override { return "gpu"; }
  int device_count() const override { return static_cast<int>(devices_.size()); }

  absl::StatusOr<backend::DeviceDescription> Describe(int ordinal) const override {
    ASSIGN_OR_RETURN(Device * device, GetDevice(ordinal));
    backend::DeviceDescription description;
    description.platform = "gpu";
    description.name = absl::StrCat(device->name, " (sm_", device->sm, ")");
    description.ordinal = ordinal;
    description.memory_bytes = device->memory_bytes;
    return description;
  }

  absl::StatusOr<std::unique_ptr<backend::Executable>> Compile(std::unique_ptr<HloModule> module,
                                                               const backend::CompileOptions& options) override {
    ASSIGN_OR_RETURN(Device * device, GetDevice(options.device_ordinal));
    if (!compile_) {
      return absl::UnimplementedError(
          "gpu: this binary has no gpu compiler (it is built without LLVM); load executables compiled elsewhere");
    }
    GpuTarget target;
    target.sm = std::min(device->sm, kNewestSmEmitted);
    ASSIGN_OR_RETURN(GpuPlan plan, compile_(std::move(module), target));
    return LoadGpuExecutable(device, std::move(plan));
  }

  absl::StatusOr<std::string> SerializeExecutable(const backend::Executable& executable) override {
    const GpuPlan* plan = GpuExecutablePlan(executable);
    if (plan == nullptr) return absl::InvalidArgumentError("not a gpu executable");
    return SerializeGpuPlan(*plan);
  }

  absl::StatusOr<std::unique_ptr<backend::Executable>> DeserializeExecutable(std::string_view bytes,
                                                                             int ordinal) override {
    ASSIGN_OR_RETURN(Device * device, GetDevice(ordinal));
    ASSIGN_OR_RETURN(GpuPlan plan, DeserializeGpuPlan(bytes));
    if (plan.sm > device->sm) {
      return absl::FailedPreconditionError(absl::StrCat("gpu: the executable's kernels are for sm_", plan.sm,
                                                        "; device ", ordinal, " (", device->name, ") is sm_",
                                                        device->sm));
    }
    return LoadGpuExecutable(device, std::move(plan));
  }

  absl::StatusOr<std::shared_ptr<backend::Buffer>> TransferToDevice(const Literal& literal, int ordinal) override {
    ASSIGN_OR_RETURN(Device * device, GetDevice(ordinal));
    LaneLease lease(device);
    RETURN_IF_ERROR(UseContext(*device));
    ASSIGN_OR_RETURN(std::shared_ptr<backend::Buffer> buffer, Upload(lease.lane(), literal));
    RETURN_IF_ERROR(lease.Finish());
    return buffer;
  }

  absl::StatusOr<Literal> TransferFromDevice(const backend::Buffer& buffer) override {
    ASSIGN_OR_RETURN(Device * device, GetDevice(buffer.device_ordinal()));
    LaneLease lease(device);
    RETURN_IF_ERROR(UseContext(*device));
    ASSIGN_OR_RETURN(Literal literal, Download(lease.lane(), buffer));
    RETURN_IF_ERROR(lease.Finish());
    return literal;
  }

  absl::StatusOr<std::shared_ptr<backend::Buffer>> Allocate(const Shape& shape, int ordinal) override {
    ASSIGN_OR_RETURN(Device * device, GetDevice(ordinal));
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
    Shape laid_out = shape;
    ShapeUtil::SetDefaultLayoutsIfMissing(&laid_out);
    LaneLease lease(device);
    RETURN_IF_ERROR(UseContext(*device));
    ASSIGN_OR_RETURN(std::shared_ptr<backend::Buffer> buffer, AllocateZeroed(lease.lane(), laid_out));
    RETURN_IF_ERROR(lease.Finish());
    return buffer;
  }

  // The device's feed queues are on the host (as the interpreter's): infeed steps copy from
  // them to device memory, outfeed steps from device memory to them.
  absl::Status TransferToInfeed(int ordinal, const Literal& literal) override {
    ASSIGN_OR_RETURN(Device * device, GetDevice(ordinal));
    device->host->PushInfeed(literal.Clone());
    return absl::OkStatus();
  }
  absl::StatusOr<Literal> TransferFromOutfeed(int ordinal, const Shape& shape, int64_t timeout_ms) override {
    ASSIGN_OR_RETURN(Device * device, GetDevice(ordinal));
    return device->host->PopOutfeed(timeout_ms, shape);
  }

 private:
  absl::StatusOr<Device*> GetDevice(int ordinal) const {
    if (ordinal < 0 || ordinal >= device_count()) {
      return absl::InvalidArgumentError(absl::StrCat("gpu: no device ", ordinal, " (", device_count(), " present)"));
    }
    return devices_[ordinal].get();
  }

  static absl::StatusOr<std::shared_ptr<backend::Buffer>> AllocateZeroed(Lane& lane, const Shape& shape) {
    if (shape.IsTuple()) {
      std::vector<std::shared_ptr<backend::Buffer>> elements;
      for (const Shape& element : shape.tuple_shapes()) {
        ASSIGN_OR_RETURN(elements.emplace_back(), AllocateZeroed(lane, element));
      }
      return std::make_shared<GpuBuffer>(lane.device, shape, std::move(elements));
    }
    ASSIGN_OR_RETURN(std::shared_ptr<GpuBuffer> buffer, AllocateArray(lane, shape));
    if (buffer->size_bytes() != 0) {
      CUDA_RETURN_IF_ERROR(lane.device->driver, cuMemsetD8Async(buffer->address(), 0,
                                                                static_cast<size_t>(buffer->size_bytes()), lane.stream));
    }
    return std::shared_ptr<backend::Buffer>(std::move(buffer));
  }

  const std::vector<std::unique_ptr<Device>> devices_;
  const GpuCompileFn compile_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<backend::Backend>> CreateGpuBackend(const CudaDriver* driver, GpuCompileFn compile) {
  if (driver == nullptr) return absl::InvalidArgumentError("gpu: no driver");
  int count = 0;
  CUDA_RETURN_IF_ERROR(driver, cuDeviceGetCount(&count));
  if (count <= 0) return absl::UnavailableError(absl::StrCat("gpu: ", driver->library(), " sees no CUDA device"));
  std::vector<std::unique_ptr<Device>> devices;
  for (int i = 0; i < count; ++i) {
    ASSIGN_OR_RETURN(devices.emplace_back(), OpenDevice(driver, i, LanesFromEnvironment()));
  }
  return std::unique_ptr<backend::Backend>(new GpuBackend(std::move(devices), std::move(compile)));
}

}  // namespace gpu
}  // namespace xla
