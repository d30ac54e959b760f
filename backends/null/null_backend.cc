// The `null` backend: every operation is UNIMPLEMENTED. It shows the shape of a backend
// and lets tests exercise the registry and error paths without a real device.
#include "backends/null/null_backend.h"

#include "absl/strings/str_cat.h"

namespace xla {
namespace backend {
namespace {

absl::Status Unimplemented(const char* what) {
  return absl::UnimplementedError(absl::StrCat("the null backend does not implement ", what));
}

class NullBackend : public Backend {
 public:
  std::string platform() const override { return "null"; }
  int device_count() const override { return 1; }
  absl::StatusOr<DeviceDescription> Describe(int device_ordinal) const override {
    return Unimplemented("Describe");
  }
  absl::StatusOr<std::unique_ptr<Executable>> Compile(std::unique_ptr<HloModule> module,
                                                      const CompileOptions& options) override {
    return Unimplemented("Compile");
  }
  absl::StatusOr<std::shared_ptr<Buffer>> TransferToDevice(const Literal& literal,
                                                           int device_ordinal) override {
    return Unimplemented("TransferToDevice");
  }
  absl::StatusOr<Literal> TransferFromDevice(const Buffer& buffer) override {
    return Unimplemented("TransferFromDevice");
  }
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(const Shape& shape, int device_ordinal) override {
    return Unimplemented("Allocate");
  }
  absl::Status TransferToInfeed(int device_ordinal, const Literal& literal) override {
    return Unimplemented("TransferToInfeed");
  }
  absl::StatusOr<Literal> TransferFromOutfeed(int device_ordinal, const Shape& shape,
                                              int64_t timeout_ms) override {
    return Unimplemented("TransferFromOutfeed");
  }
};

}  // namespace

std::unique_ptr<Backend> CreateNullBackend() { return std::make_unique<NullBackend>(); }

}  // namespace backend
}  // namespace xla
