#ifndef XLA_CLIENT_XLA_CLIENT_H_
#define XLA_CLIENT_XLA_CLIENT_H_

// The C++ client of xla-server, mirroring xla::Client. Two modes share every method:
//   Client::Connect(options)  remote, over gRPC (the only mode that touches the network);
//   Client::InProcess(opts)   the same service core in this process, no network.
// No gRPC header is included here; the transport lives in client/xla_client_grpc.cc.
// Libraries: xla_client (remote mode; nothing of the server is linked) and
// xla_client_inprocess (adds InProcess/Attach and the service core they run).
//
// Sessions: a Client opens one session at creation, renews its lease from a background
// thread (every lease/3) and closes it in its destructor, which frees every handle the
// session still owns on the server.
//
// Handles: GlobalData is RAII. Destroying one queues its handle; queued handles are
// unregistered in one batched Unregister on the next call, from the background thread when
// kUnregisterBatch are queued, or when the Client is destroyed. A GlobalData may outlive
// its Client (then it does nothing: the session's close already freed the handle).
//
// In-process mode has no transport: deadline_ms, the token and TLS options do not apply.
//
// Thread-safety: every Client method may be called concurrently. GlobalData objects may be
// destroyed on any thread.
//
// Errors: the server's codes pass through unchanged (INVALID_ARGUMENT with "LINE:COL:" for
// malformed HLO text, NOT_FOUND, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ...). Idempotent
// calls (GetVersion, KeepAlive, ListDevices, GetShape, GetComputationShape, GetStatus, Await,
// Transfer) are retried on UNAVAILABLE with exponential backoff, up to max_retries times.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/literal.h"
#include "hlo/shape.h"
#include "proto/hlo.pb.h"
#include "proto/xla_service.pb.h"

namespace xla {
namespace server {
struct ServiceOptions;
class ServiceCore;
}  // namespace server

namespace client {

inline constexpr int kClientProtocolVersion = 1;
// Handles queued before the background thread flushes them without waiting for a call.
inline constexpr size_t kUnregisterBatch = 256;
// Size of the chunks of streamed transfers.
inline constexpr size_t kTransferChunkBytes = size_t{1} << 20;
// ExecuteAndTransfer sends literals inline up to this total; larger calls go through
// streamed transfers (TransferToServer + Execute + Transfer).
inline constexpr int64_t kInlineLiteralBytes = int64_t{32} << 20;

struct ClientOptions {
  std::string target = "127.0.0.1:50051";  // "host:port"
  std::string auth_token;                  // non-empty: "authorization: Bearer <token>"
  bool tls = false;
  std::string tls_root_certs_pem;          // empty: the system roots
  std::string tls_client_cert_pem;         // mutual TLS (with tls_client_key_pem)
  std::string tls_client_key_pem;
  int64_t deadline_ms = 0;                 // per call; 0 = none
  int max_retries = 3;                     // for idempotent calls on UNAVAILABLE
  std::string client_name;
  int64_t lease_ms = 0;                    // requested session lease; 0 = the server default
};

namespace internal {
class Transport;
struct ReleaseQueue;
}  // namespace internal

// A value held by the server, owned by this client's session. Not copyable.
class GlobalData {
 public:
  ~GlobalData();
  GlobalData(const GlobalData&) = delete;
  GlobalData& operator=(const GlobalData&) = delete;

  int64_t handle() const { return handle_; }
  // Gives up ownership: the handle is not unregistered on destruction.
  int64_t Release() {
    queue_.reset();
    return handle_;
  }

 private:
  friend class Client;
  GlobalData(std::shared_ptr<internal::ReleaseQueue> queue, int64_t handle)
      : queue_(std::move(queue)), handle_(handle) {}
  std::shared_ptr<internal::ReleaseQueue> queue_;
  int64_t handle_;
};

// A compiled executable; it lives as long as the session.
struct ExecutableHandle {
  int64_t handle = 0;
  int device_ordinal = 0;
  ProgramShape program_shape;
  bool cache_hit = false;
  double compile_ms = 0;
};

struct ExecuteOptions {
  std::vector<int64_t> donated_arguments;  // indices into the arguments
  uint64_t rng_seed = 0;
  ExecutionProfile* profile = nullptr;  // filled when non-null
};

// One execution of ExecuteParallel.
struct ExecutionRequest {
  const ExecutableHandle* executable = nullptr;
  std::vector<const GlobalData*> arguments;
  ExecuteOptions options;
};

class Client {
 public:
  // Remote: dials options.target, checks the protocol version (FAILED_PRECONDITION when
  // version 1 is outside the server's range) and opens a session.
  static absl::StatusOr<std::unique_ptr<Client>> Connect(const ClientOptions& options);
  // In-process: creates a ServiceCore with `service_options` and talks to it directly.
  static absl::StatusOr<std::unique_ptr<Client>> InProcess();
  static absl::StatusOr<std::unique_ptr<Client>> InProcess(
      const server::ServiceOptions& service_options, const ClientOptions& options = {});
  // In-process over an existing core (not owned; it must outlive the client).
  static absl::StatusOr<std::unique_ptr<Client>> Attach(server::ServiceCore* core,
                                                        const ClientOptions& options = {});

  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const std::string& session_id() const { return session_id_; }
  int64_t lease_ms() const { return lease_ms_; }
  const server::GetVersionResponse& server_version() const { return version_; }

  // --- devices ---
  absl::StatusOr<std::vector<server::DeviceInfo>> ListDevices();
  absl::StatusOr<std::vector<server::DeviceHandle>> GetDeviceHandles(int64_t device_count);

  // --- compile and execute ---
  absl::StatusOr<ExecutableHandle> Compile(absl::string_view hlo_text, int device_ordinal = 0);
  absl::StatusOr<ExecutableHandle> Compile(const HloModuleProto& module, int device_ordinal = 0);
  absl::StatusOr<ExecutableHandle> CompileSerializedProto(std::string serialized_module,
                                                          int device_ordinal = 0);
  // Ahead-of-time compilation (XLA's CompileAheadOfTime / Load): the serialized executable
  // of the module compiled for `device_ordinal` (UNIMPLEMENTED where the device's backend
  // cannot serialize), and a handle, used like Compile's, of such bytes loaded on a device of
  // the same platform without compiling (FAILED_PRECONDITION for another platform, target,
  // CPU or xla-server version; INVALID_ARGUMENT for damaged bytes; PERMISSION_DENIED unless
  // the server allows loads). compile_ms of a loaded handle is the load time.
  absl::StatusOr<std::string> CompileAheadOfTime(absl::string_view hlo_text, int device_ordinal = 0);
  absl::StatusOr<std::string> CompileAheadOfTime(const HloModuleProto& module, int device_ordinal = 0);
  absl::StatusOr<ExecutableHandle> Load(std::string serialized_executable, int device_ordinal = 0);
  absl::StatusOr<std::unique_ptr<GlobalData>> Execute(const ExecutableHandle& executable,
                                                      absl::Span<const GlobalData* const> arguments,
                                                      const ExecuteOptions& options = {});
  absl::StatusOr<Literal> ExecuteAndTransfer(const ExecutableHandle& executable,
                                             absl::Span<const Literal> arguments,
                                             const ExecuteOptions& options = {});
  absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> ExecuteParallel(
      absl::Span<const ExecutionRequest> requests);
  // Asynchronous Execute (as LocalClient::RunAsync): returns the result handle at once, before
  // the execution has run. Executions queued on one device run in submission order; the handle
  // can be passed to further Execute/ExecuteAsync calls right away, and Transfer, GetShape and
  // DeconstructTuple of it wait until it is ready. options.profile is not filled: Await
  // reports the profile, or the execution's error (also returned by every later use of the
  // handle).
  absl::StatusOr<std::unique_ptr<GlobalData>> ExecuteAsync(const ExecutableHandle& executable,
                                                           absl::Span<const GlobalData* const> arguments,
                                                           const ExecuteOptions& options = {});
  // Waits until every handle in `data` is ready. On success `profiles` (when non-null) gets one
  // ExecutionProfile per handle (empty for data that was never pending); a failed execution's
  // error is returned as is.
  absl::Status Await(absl::Span<const GlobalData* const> data,
                     std::vector<ExecutionProfile>* profiles = nullptr);

  // --- transfers ---
  absl::StatusOr<std::unique_ptr<GlobalData>> TransferToServer(const Literal& literal,
                                                               int device_ordinal = 0);
  absl::StatusOr<Literal> Transfer(const GlobalData& data);
  absl::Status TransferToInfeed(const Literal& literal, int device_ordinal = 0);
  absl::StatusOr<Literal> TransferFromOutfeed(const Shape& shape, int device_ordinal = 0,
                                              int64_t timeout_ms = 10000);

  // --- handles ---
  absl::StatusOr<Shape> GetShape(const GlobalData& data);
  absl::StatusOr<ProgramShape> GetComputationShape(const ExecutableHandle& executable);
  absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> DeconstructTuple(const GlobalData& data);
  // Unregisters now; the GlobalData objects then own nothing (their destructors do nothing).
  absl::Status Unregister(absl::Span<GlobalData* const> data);
  absl::Status ResetDevice(int device_ordinal = 0);
  absl::StatusOr<server::GetStatusResponse> GetStatus();
  absl::Status KeepAlive();

  // Unregisters every handle queued by destroyed GlobalData objects. Errors are dropped
  // (handles may already be gone, e.g. donated).
  void FlushUnregisters();

 private:
  Client(std::unique_ptr<internal::Transport> transport, const ClientOptions& options);
  absl::Status Handshake();
  void StartKeepAlive();
  std::unique_ptr<GlobalData> Wrap(int64_t handle);
  absl::StatusOr<Literal> ExecuteAndTransferStreamed(const ExecutableHandle& executable,
                                                     absl::Span<const Literal> arguments,
                                                     const ExecuteOptions& options);
  static absl::StatusOr<std::unique_ptr<Client>> Finish(std::unique_ptr<Client> client);

  struct Background;
  std::unique_ptr<internal::Transport> transport_;
  ClientOptions options_;
  std::string session_id_;
  int64_t lease_ms_ = 0;
  server::GetVersionResponse version_;
  std::shared_ptr<internal::ReleaseQueue> queue_;
  std::unique_ptr<Background> background_;
};

}  // namespace client
}  // namespace xla

#endif  // XLA_CLIENT_XLA_CLIENT_H_
