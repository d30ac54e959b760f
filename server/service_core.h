#ifndef XLA_SERVER_SERVICE_CORE_H_
#define XLA_SERVER_SERVICE_CORE_H_

// The transport-free xla-server: sessions with leases, a per-session handle table of
// refcounted device buffers, a compile cache shared by all sessions, and execution. The
// gRPC layer (server/grpc_*.cc) and the in-process client call it directly; tests too.
//
// Thread-safety: every method of ServiceCore may be called concurrently from any thread.
// Lifetime: a ServiceCore owns its backends, sessions and background reaper thread; the
// destructor stops the reaper and frees every session. Callers must not call methods
// concurrently with (or after) destruction. Values returned by BeginDownload are
// immutable and shared: they stay valid after the session dies.
//
// Errors: INVALID_ARGUMENT (malformed HLO, with "LINE:COL: " for text; bad shapes, naming
// the parameter), NOT_FOUND (unknown / expired session, unknown handle or one of another
// session, unknown upload id), RESOURCE_EXHAUSTED (max_module_bytes, max_literal_bytes,
// per-session memory quota), FAILED_PRECONDITION (wrong device, protocol version outside
// [1,1], reuse of a donated buffer, a serialized executable for another platform, target,
// CPU or version), DEADLINE_EXCEEDED (outfeed timeout), PERMISSION_DENIED (Load when not
// allowed).
//
// Handles: int64, unique per server and never reused; valid only within their session.
// Any call naming a session renews its lease; a lease never lapses during a compile,
// execution or outfeed wait of that session (it restarts when the call ends).
//
// Method notes:
//  - Compile: the cache key is a fingerprint of the module printed canonically, the layouts
//    asked for and the device; identical concurrent compiles run once; each Compile returns a
//    new execution handle. Failed compiles are not cached.
//  - CompileAheadOfTime: Compile (same cache), then the backend serializes the executable;
//    a backend that cannot is UNIMPLEMENTED. Load: needs ServiceOptions::allow_load; the
//    executable is cached under the bytes' fingerprint and the device (a repeated Load is a
//    cache hit); each Load returns a new execution handle, used like Compile's.
//  - Execute: the ExecutionProfile's compilation_cache_hit / compile_time_ms describe how the
//    handle's Compile obtained the executable. Donated handles leave the session before the
//    execution runs (even if it then fails); using one again is FAILED_PRECONDITION.
//    A result past the memory quota is dropped with RESOURCE_EXHAUSTED.
//  - DeconstructTuple: element handles are views sharing the tuple's element buffers; they
//    count against the session's memory like any handle and outlive the tuple's handle.
//  - Unregister: releases every known handle of the batch; NOT_FOUND lists the unknown ones.
//  - TransferFromOutfeed: timeout_ms <= 0 waits up to the session's lease.
//  - ResetDevice: validates the device; devices are shared, so no session's data is touched.
//  - GetStatus: needs no session; reports only the first 8 hex digits of each session id
//    (the full id is the session's credential).
//  - ExecuteParallel: runs the requests on up to execute_threads threads; any failure fails
//    the call, naming the failed request ("execution I: ...").
//  - Asynchronous execution (ExecuteRequest.run_async, as LocalClient::RunAsync): checks run
//    at once (errors are returned by Execute); then the result handle is returned while the
//    execution waits in its device's FIFO queue. A pending handle may be an argument of any
//    execution (which waits for it before taking an execute slot); GetShape, transfers and
//    DeconstructTuple of it wait for it. If the execution fails, Await and every later use of
//    its handle return its error. Queued executions of a closed or expired session, and those
//    still queued when the core is destroyed, stop with CANCELLED.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/literal.h"
#include "proto/xla_service.pb.h"
#include "server/transfer_codec.h"

namespace xla {
namespace server {

inline constexpr int kMinProtocolVersion = 1;
inline constexpr int kMaxProtocolVersion = 1;

struct ServiceOptions {
  // Each platform's devices are appended to the server's device list (server-wide ordinal =
  // index in that list).
  std::vector<std::string> platforms = {"interpreter"};
  int64_t default_lease_ms = 60000;           // session lease renewed by KeepAlive / any call
  int64_t max_session_memory_bytes = 0;       // 0 = unlimited; else RESOURCE_EXHAUSTED past it
  int64_t max_module_bytes = 256 << 20;
  int64_t max_literal_bytes = int64_t{4} << 30;
  int compile_threads = 2, execute_threads = 2;
  int64_t cache_entries = 256;                // compiled executables kept (LRU)
  // Load accepts serialized executables (native code from the client) only when set;
  // otherwise PERMISSION_DENIED. CompileAheadOfTime works either way.
  bool allow_load = false;
};

class ServiceCore {
 public:
  static absl::StatusOr<std::unique_ptr<ServiceCore>> Create(const ServiceOptions& options);
  ~ServiceCore();
  ServiceCore(const ServiceCore&) = delete;
  ServiceCore& operator=(const ServiceCore&) = delete;

  // One method per unary RPC of XlaService.
  absl::StatusOr<GetVersionResponse> GetVersion(const GetVersionRequest& request);
  absl::StatusOr<OpenSessionResponse> OpenSession(const OpenSessionRequest& request);
  absl::StatusOr<CloseSessionResponse> CloseSession(const CloseSessionRequest& request);
  absl::StatusOr<KeepAliveResponse> KeepAlive(const KeepAliveRequest& request);
  absl::StatusOr<ListDevicesResponse> ListDevices(const ListDevicesRequest& request);
  absl::StatusOr<GetDeviceHandlesResponse> GetDeviceHandles(const GetDeviceHandlesRequest& request);
  absl::StatusOr<CompileResponse> Compile(const CompileRequest& request);
  absl::StatusOr<CompileAheadOfTimeResponse> CompileAheadOfTime(const CompileAheadOfTimeRequest& request);
  absl::StatusOr<LoadResponse> Load(const LoadRequest& request);
  // `should_cancel` (optional) is polled between operations; once it returns true the
  // execution stops with CANCELLED (the transport maps its call's cancellation and deadline
  // onto it).
  absl::StatusOr<ExecuteResponse> Execute(const ExecuteRequest& request,
                                          std::function<bool()> should_cancel = nullptr);
  absl::StatusOr<ExecuteAndTransferResponse> ExecuteAndTransfer(
      const ExecuteAndTransferRequest& request, std::function<bool()> should_cancel = nullptr);
  absl::StatusOr<ExecuteParallelResponse> ExecuteParallel(const ExecuteParallelRequest& request,
                                                          std::function<bool()> should_cancel = nullptr);
  // Waits for the handles' asynchronous executions; `should_cancel` as for Execute.
  absl::StatusOr<AwaitResponse> Await(const AwaitRequest& request,
                                      std::function<bool()> should_cancel = nullptr);
  absl::StatusOr<TransferToInfeedResponse> TransferToInfeed(const TransferToInfeedRequest& request);
  absl::StatusOr<TransferFromOutfeedResponse> TransferFromOutfeed(
      const TransferFromOutfeedRequest& request);
  absl::StatusOr<GetShapeResponse> GetShape(const GetShapeRequest& request);
  absl::StatusOr<GetComputationShapeResponse> GetComputationShape(
      const GetComputationShapeRequest& request);
  absl::StatusOr<DeconstructTupleResponse> DeconstructTuple(const DeconstructTupleRequest& request);
  absl::StatusOr<UnregisterResponse> Unregister(const UnregisterRequest& request);
  absl::StatusOr<ResetDeviceResponse> ResetDevice(const ResetDeviceRequest& request);
  absl::StatusOr<GetStatusResponse> GetStatus(const GetStatusRequest& request);

  // TransferToServer (client stream): the first chunk opens an upload (session_id,
  // device_ordinal, shape) and its data is appended too; AppendUpload adds data; FinishUpload
  // checks the size, transfers to the device and registers the handle. Bytes count against
  // the session's memory as they arrive; past the quota or max_literal_bytes the upload is
  // aborted with RESOURCE_EXHAUSTED. Any error from Append/Finish frees the upload (the id
  // becomes unknown). AbortUpload (client vanished mid-stream) frees everything; unknown
  // ids are ignored. An upload id is used by one stream at a time.
  absl::StatusOr<int64_t> BeginUpload(const TransferChunk& first_chunk);
  absl::Status AppendUpload(int64_t upload_id, absl::string_view data);
  absl::StatusOr<TransferToServerResponse> FinishUpload(int64_t upload_id);
  void AbortUpload(int64_t upload_id);

  // TransferToClient (server stream): the value to send (transfer_codec.h); the transport
  // chunks it with ForEachChunk. It stays valid after the handle is released or the session dies.
  absl::StatusOr<OutgoingValue> BeginDownload(const TransferToClientRequest& request);

  struct Impl;  // service_core*.cc internals

 private:
  explicit ServiceCore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace server
}  // namespace xla

#endif  // XLA_SERVER_SERVICE_CORE_H_
