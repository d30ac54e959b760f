#include "server/grpc_server.h"

#include <algorithm>
#include <climits>
#include <fstream>
#include <mutex>
#include <sstream>
#include <utility>

#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/server_credentials.h>
#include <spdlog/spdlog.h>

#include "backends/backend.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "server/grpc_service.h"

namespace xla::server {
namespace {

// Splits "host:port" / "[v6]:port" into host (without brackets) and port text.
bool SplitHostPort(const std::string& listen, std::string* host, std::string* port) {
  if (!listen.empty() && listen[0] == '[') {
    size_t close = listen.find(']');
    if (close == std::string::npos || close + 1 >= listen.size() || listen[close + 1] != ':') return false;
    *host = listen.substr(1, close - 1);
    *port = listen.substr(close + 2);
    return true;
  }
  size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return false;
  *host = listen.substr(0, colon);
  *port = listen.substr(colon + 1);
  return true;
}

absl::StatusOr<std::string> ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", what, " file '", path, "'"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class RunningServerImpl final : public RunningServer {
 public:
  RunningServerImpl(std::unique_ptr<ServiceCore> core, std::unique_ptr<XlaGrpcService> service,
                    std::unique_ptr<grpc::Server> server, int port, std::string address)
      : core_(std::move(core)),
        service_(std::move(service)),
        server_(std::move(server)),
        port_(port),
        address_(std::move(address)) {}

  ~RunningServerImpl() override { Shutdown(std::chrono::system_clock::now()); }

  int port() const override { return port_; }
  std::string address() const override { return address_; }
  ServiceCore* core() override { return core_.get(); }

  void Shutdown(std::chrono::system_clock::time_point deadline) override {
    std::call_once(shutdown_once_, [&] {
      if (auto* health = server_->GetHealthCheckService()) health->SetServingStatus(false);
      spdlog::info("xla-server on {} shutting down (draining in-flight RPCs)", address_);
      server_->Shutdown(deadline);
      spdlog::info("xla-server on {} stopped", address_);
    });
  }

  void Wait() override { server_->Wait(); }

 private:
  // Destroyed in reverse: the gRPC server first, then the service, then the core.
  std::unique_ptr<ServiceCore> core_;
  std::unique_ptr<XlaGrpcService> service_;
  std::unique_ptr<grpc::Server> server_;
  const int port_;
  const std::string address_;
  std::once_flag shutdown_once_;
};

}  // namespace

std::vector<std::string> DefaultPlatforms() {
  backend::RegisterBuiltinBackends();
  bool cpu = false, gpu = false;
  for (const std::string& platform : backend::RegisteredPlatforms()) {
    cpu |= platform == "cpu";
    gpu |= platform == "gpu";
  }
  std::vector<std::string> platforms;
  // Opening the gpu backend is the test that a driver and a GPU are here (without them it
  // fails at once, UNAVAILABLE); the service opens its own.
  if (gpu && backend::CreateBackend("gpu").ok()) platforms.push_back("gpu");
  if (cpu) platforms.push_back("cpu");
  platforms.push_back("interpreter");
  return platforms;
}

bool IsLoopbackListenAddress(const std::string& listen) {
  if (absl::StartsWith(listen, "unix:")) return true;  // local socket: not reachable remotely
  std::string host, port;
  if (!SplitHostPort(listen, &host, &port)) return false;
  host = absl::AsciiStrToLower(host);
  if (host == "localhost" || host == "::1") return true;
  std::vector<std::string> octets = absl::StrSplit(host, '.');
  if (octets.size() != 4 || octets[0] != "127") return false;
  for (const std::string& octet : octets) {
    int value;
    if (!absl::SimpleAtoi(octet, &value) || value < 0 || value > 255) return false;
  }
  return true;
}

absl::Status ValidateServerConfig(const ServerConfig& config) {
  if (config.listen.empty()) return absl::InvalidArgumentError("--listen is empty");
  std::string host, port;
  if (!absl::StartsWith(config.listen, "unix:")) {
    int port_number;
    if (!SplitHostPort(config.listen, &host, &port) || !absl::SimpleAtoi(port, &port_number) ||
        port_number < 0 || port_number > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("--listen='", config.listen, "' is not host:port (for example 127.0.0.1:50051)"));
    }
  }
  if (config.tls_cert_file.empty() != config.tls_key_file.empty()) {
    return absl::InvalidArgumentError("TLS needs both --tls-cert and --tls-key");
  }
  const bool tls = !config.tls_cert_file.empty();
  if (!config.tls_client_ca_file.empty() && !tls) {
    return absl::InvalidArgumentError("--tls-client-ca (mutual TLS) needs --tls-cert and --tls-key");
  }
  if (config.rpc_threads < 1) return absl::InvalidArgumentError("rpc thread count must be >= 1");
  if (!IsLoopbackListenAddress(config.listen) && config.auth_token_file.empty() && !tls &&
      !config.insecure) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to listen on non-loopback address '", config.listen,
        "' without authentication: pass --auth-token-file and/or --tls-cert/--tls-key, "
        "or --insecure to accept unauthenticated remote connections"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<RunningServer>> StartServer(const ServerConfig& config) {
  if (absl::Status valid = ValidateServerConfig(config); !valid.ok()) return valid;

  std::string token;
  if (!config.auth_token_file.empty()) {
    absl::StatusOr<std::string> text = ReadFile(config.auth_token_file, "auth token");
    if (!text.ok()) return text.status();
    token = std::string(absl::StripAsciiWhitespace(*text));
    if (token.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("auth token file '", config.auth_token_file, "' is empty"));
    }
  }

  std::shared_ptr<grpc::ServerCredentials> credentials;
  if (!config.tls_cert_file.empty()) {
    absl::StatusOr<std::string> cert = ReadFile(config.tls_cert_file, "TLS certificate");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadFile(config.tls_key_file, "TLS key");
    if (!key.ok()) return key.status();
    grpc::SslServerCredentialsOptions ssl;
    ssl.pem_key_cert_pairs.push_back({*key, *cert});
    if (!config.tls_client_ca_file.empty()) {
      absl::StatusOr<std::string> ca = ReadFile(config.tls_client_ca_file, "TLS client CA");
      if (!ca.ok()) return ca.status();
      ssl.pem_root_certs = *ca;
      ssl.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
    }
    credentials = grpc::SslServerCredentials(ssl);
  } else {
    credentials = grpc::InsecureServerCredentials();
  }

  absl::StatusOr<std::unique_ptr<ServiceCore>> core = ServiceCore::Create(config.service);
  if (!core.ok()) return core.status();
  auto service = std::make_unique<XlaGrpcService>(core->get(), token, config.rpc_threads);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int selected_port = 0;
  builder.AddListeningPort(config.listen, credentials, &selected_port);
  builder.RegisterService(service.get());
  // Two servers must not silently share a port (gRPC enables SO_REUSEPORT by default).
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // Find peers that vanished without closing (a stalled stream of a dead client) within ~80 s,
  // and accept clients' own keepalive pings down to every 10 s.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 60000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  // Modules arrive in one message (literals stream in chunks); allow the module limit plus headroom.
  int64_t max_receive = std::max<int64_t>(config.service.max_module_bytes, int64_t{64} << 20) + (1 << 20);
  builder.SetMaxReceiveMessageSize(static_cast<int>(std::min<int64_t>(max_receive, INT_MAX)));
  builder.SetMaxSendMessageSize(INT_MAX);

  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || selected_port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on '", config.listen,
                                               "' (address in use or not local?)"));
  }
  if (auto* health = server->GetHealthCheckService()) health->SetServingStatus(true);

  std::string host, port;
  std::string address = config.listen;
  if (SplitHostPort(config.listen, &host, &port)) {
    if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
    if (host == "::") host = "::1";
    address = host.find(':') != std::string::npos ? absl::StrCat("[", host, "]:", selected_port)
                                                   : absl::StrCat(host, ":", selected_port);
  }
  spdlog::info("xla-server listening on {} ({}{})", address, credentials && !config.tls_cert_file.empty()
                                                                 ? (config.tls_client_ca_file.empty() ? "TLS" : "mutual TLS")
                                                                 : "plaintext",
               token.empty() ? "" : ", bearer token");
  return std::unique_ptr<RunningServer>(new RunningServerImpl(std::move(*core), std::move(service),
                                                              std::move(server), selected_port, address));
}

}  // namespace xla::server
