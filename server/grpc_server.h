#ifndef XLA_SERVER_GRPC_SERVER_H_
#define XLA_SERVER_GRPC_SERVER_H_

// Starting and stopping xla-server's gRPC endpoint. No gRPC headers here: main.cc and tests
// include this cheaply; the gRPC types live in grpc_server.cc / grpc_service.cc.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/service_core.h"

namespace xla::server {

struct ServerConfig {
  std::string listen = "127.0.0.1:50051";  // "host:port"; port 0 picks a free port
  std::string auth_token_file;             // non-empty: every RPC needs "authorization: Bearer <token>"
  std::string tls_cert_file;               // PEM; with tls_key_file enables TLS
  std::string tls_key_file;
  std::string tls_client_ca_file;          // PEM; non-empty requires and verifies client certs (mTLS)
  bool insecure = false;                   // allow a non-loopback address without token or TLS
  int rpc_threads = 16;                    // workers running core calls at once (more RPCs queue)
  ServiceOptions service;
};

// The platforms xla-server serves when --platform is not given: "gpu" first when the binary
// has the gpu backend and it opens here (a CUDA driver and at least one GPU; checked on an
// H200 by tests/gpu/device_check.sh and server_check.sh), then "cpu" and "interpreter" (the
// reference, to check results against) when the binary has the cpu backend, else
// "interpreter".
std::vector<std::string> DefaultPlatforms();

// True for 127.0.0.0/8, ::1, [::1] and "localhost" (the host part of "host:port").
bool IsLoopbackListenAddress(const std::string& listen);

// Rejects inconsistent or unsafe configurations with INVALID_ARGUMENT / FAILED_PRECONDITION
// and a message saying what to do: a non-loopback address without a token or TLS unless
// `insecure`; a cert without a key (or the reverse); a client CA without TLS.
absl::Status ValidateServerConfig(const ServerConfig& config);

// A serving endpoint. Thread-safe. Destruction shuts down (like Shutdown with no grace).
class RunningServer {
 public:
  virtual ~RunningServer() = default;
  // The bound TCP port (the chosen one when listening on port 0).
  virtual int port() const = 0;
  // "127.0.0.1:<port>" style address clients can dial.
  virtual std::string address() const = 0;
  // Stops accepting RPCs, lets in-flight ones finish until `deadline`, then cancels the rest.
  // Idempotent.
  virtual void Shutdown(std::chrono::system_clock::time_point deadline) = 0;
  // Blocks until Shutdown completes (from another thread).
  virtual void Wait() = 0;
  // The core behind the endpoint (for in-process inspection by tests).
  virtual ServiceCore* core() = 0;
};

// Validates `config`, creates the ServiceCore, binds and starts serving.
absl::StatusOr<std::unique_ptr<RunningServer>> StartServer(const ServerConfig& config);

}  // namespace xla::server

#endif  // XLA_SERVER_GRPC_SERVER_H_
