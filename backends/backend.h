#ifndef XLA_BACKENDS_BACKEND_H_
#define XLA_BACKENDS_BACKEND_H_

// The narrow interface every backend implements (interpreter, cpu, gpu), plus a registry
// by platform name. Backends never include gRPC or server code.
//
// Thread-safety: a Backend is shared by many sessions; all its methods are thread-safe.
// An Executable may be executed concurrently from several threads. Buffers are immutable
// once filled, except when donated to an execution (then the caller gives them up).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "hlo/literal.h"
#include "hlo/shape.h"

namespace xla {
namespace backend {

struct DeviceDescription {
  std::string platform;   // "interpreter", "cpu", "cuda"
  std::string name;       // human-readable device name
  int ordinal = 0;
  int64_t memory_bytes = 0;  // 0 when unknown / host memory
};

// Memory on one device holding a value of `shape()` (an array or a tuple). Tuple buffers
// own their element buffers (XLA's DeconstructTuple returns views of them).
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual const Shape& shape() const = 0;
  virtual int device_ordinal() const = 0;
  // Bytes this buffer holds on the device (not counting tuple elements).
  virtual int64_t size_bytes() const = 0;
  // Element buffers of a tuple; empty for arrays.
  virtual std::vector<std::shared_ptr<Buffer>> tuple_elements() const = 0;
  // The dense bytes of an array buffer in shape()'s layout, when the device memory is host
  // memory (transfers then copy straight in and out, with no Literal in between); nullptr
  // for tuples and for device memory the host cannot address. Only whoever allocated the
  // buffer may write through it, and only before the buffer is shared. A backend reusing a
  // donated buffer's memory must hold its only reference: readers keep the buffer alive.
  virtual void* host_data() const { return nullptr; }
};

struct CompileOptions {
  int device_ordinal = 0;
};

struct ExecuteOptions {
  // Indices of arguments the caller donates: the executable may reuse their memory for
  // outputs (honouring the module's input_output_alias) and they must not be used again.
  std::vector<int64_t> donated_arguments;
  // Seed for rng ops; 0 = the backend's default.
  uint64_t rng_seed = 0;
  // Polled between operations (interpreter) or kernels; once it returns true, Execute stops
  // and returns CANCELLED. Empty = never cancelled. Must be cheap and thread-safe.
  std::function<bool()> should_cancel;
};

class Executable {
 public:
  virtual ~Executable() = default;
  virtual const HloModule& module() const = 0;
  // Runs the entry computation on `arguments` (one buffer per entry parameter, each with
  // a shape compatible with the parameter's). Returns the result buffer.
  virtual absl::StatusOr<std::shared_ptr<Buffer>> Execute(
      absl::Span<const std::shared_ptr<Buffer>> arguments, const ExecuteOptions& options) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string platform() const = 0;
  virtual int device_count() const = 0;
  virtual absl::StatusOr<DeviceDescription> Describe(int device_ordinal) const = 0;

  // Verifies and compiles a module for one device.
  virtual absl::StatusOr<std::unique_ptr<Executable>> Compile(std::unique_ptr<HloModule> module,
                                                              const CompileOptions& options) = 0;

  // Host <-> device transfers.
  virtual absl::StatusOr<std::shared_ptr<Buffer>> TransferToDevice(const Literal& literal,
                                                                   int device_ordinal) = 0;
  virtual absl::StatusOr<Literal> TransferFromDevice(const Buffer& buffer) = 0;
  // Uninitialized (zeroed) device memory of `shape`, from the backend's pool.
  virtual absl::StatusOr<std::shared_ptr<Buffer>> Allocate(const Shape& shape, int device_ordinal) = 0;

  // Infeed / outfeed queues of one device (FIFO). TransferFromOutfeed blocks until a value
  // of a compatible shape is available or returns DEADLINE_EXCEEDED after `timeout_ms`.
  virtual absl::Status TransferToInfeed(int device_ordinal, const Literal& literal) = 0;
  virtual absl::StatusOr<Literal> TransferFromOutfeed(int device_ordinal, const Shape& shape,
                                                      int64_t timeout_ms) = 0;

  // Ahead-of-time compilation (XLA's CompileAheadOfTime / Load): the bytes of an executable
  // this backend compiled (backends/executable_format.h), and an executable loaded from such
  // bytes without compiling again. Loading checks the bytes' platform, xla-server version and
  // integrity, and whatever the backend's code depends on (the cpu backend: target and host
  // CPU features): a mismatch is FAILED_PRECONDITION, damaged bytes INVALID_ARGUMENT. The
  // defaults are UNIMPLEMENTED, naming the platform.
  virtual absl::StatusOr<std::string> SerializeExecutable(const Executable& executable);
  virtual absl::StatusOr<std::unique_ptr<Executable>> DeserializeExecutable(std::string_view bytes,
                                                                            int device_ordinal);
};

// --- registry ---
using BackendFactory = std::function<absl::StatusOr<std::unique_ptr<Backend>>()>;
// Registers a factory under `platform` (e.g. "interpreter"). Returns false if taken.
bool RegisterBackendFactory(const std::string& platform, BackendFactory factory);
// Creates a backend by platform name; NOT_FOUND lists the registered names.
absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(const std::string& platform);
std::vector<std::string> RegisteredPlatforms();
// Registers the backends compiled into this binary (interpreter, null, ...). Idempotent.
void RegisterBuiltinBackends();

}  // namespace backend
}  // namespace xla

#endif  // XLA_BACKENDS_BACKEND_H_
