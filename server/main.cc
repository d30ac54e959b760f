// xla-server: owns the devices, serves XlaService over gRPC (see proto/xla_service.proto).
//
// SIGTERM/SIGINT stop accepting RPCs, drain in-flight ones (up to --drain-timeout) and exit 0.

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "server/grpc_server.h"

namespace {

constexpr char kUsage[] = R"(usage: xla-server [flags]

Serves XLA compilation and execution over gRPC (proto/xla_service.proto).

  --listen=HOST:PORT         address to listen on (default 127.0.0.1:50051; port 0 = any free port)
  --platform=NAME[,NAME]     backends to serve, repeatable; each one's devices follow the
                             previous ones' (default: gpu when a CUDA driver and GPU are
                             here (one device per GPU), then cpu (native code) when built,
                             then interpreter (the reference); e.g. gpu,cpu,interpreter)
  --auth-token-file=PATH     require "authorization: Bearer <token>" with the file's token
  --tls-cert=PATH            PEM certificate chain (enables TLS with --tls-key)
  --tls-key=PATH             PEM private key
  --tls-client-ca=PATH       PEM CA: require and verify client certificates (mutual TLS)
  --insecure                 allow a non-loopback --listen without token or TLS
  --allow-load               accept Load of serialized executables (CompileAheadOfTime's
                             output): they carry native code that then runs in this server,
                             so allow it only for clients you trust with that
  --session-lease=DURATION   default session lease (e.g. 60s, 500ms, 5m; default 60s)
  --max-session-memory=SIZE  per-session memory quota (e.g. 8G; 0 = unlimited)
  --max-module-bytes=SIZE    largest accepted HLO module (default 256M)
  --max-literal-bytes=SIZE   largest accepted literal (default 4G)
  --compile-threads=N        compile worker threads (default 2)
  --execute-threads=N        execute worker threads (default 2)
  --rpc-threads=N            workers running RPCs' core calls at once; more queue (default 16)
  --cache-entries=N          compiled executables kept per server (default 256)
  --drain-timeout=DURATION   on SIGTERM/SIGINT, wait this long for in-flight RPCs (default 30s)
  --log-level=LEVEL          trace, debug, info, warn, error, off (default info)
  --help                     this text
)";

// "4G", "256M", "1024K", "123" -> bytes.
bool ParseSize(const std::string& text, int64_t* out) {
  std::string s = absl::AsciiStrToUpper(text);
  if (absl::EndsWith(s, "B") && s.size() > 1 && !absl::ascii_isdigit(s[s.size() - 2])) s.pop_back();
  if (absl::EndsWith(s, "IB")) s.resize(s.size() - 2);
  int64_t scale = 1;
  if (!s.empty()) {
    switch (s.back()) {
      case 'K': scale = int64_t{1} << 10; break;
      case 'M': scale = int64_t{1} << 20; break;
      case 'G': scale = int64_t{1} << 30; break;
      case 'T': scale = int64_t{1} << 40; break;
      default: break;
    }
    if (scale != 1) s.pop_back();
  }
  int64_t value;
  if (!absl::SimpleAtoi(s, &value) || value < 0 || value > INT64_MAX / scale) return false;
  *out = value * scale;
  return true;
}

// "60s", "500ms", "5m", "1h", "250" (milliseconds) -> milliseconds.
bool ParseDurationMs(const std::string& text, int64_t* out) {
  std::string s = absl::AsciiStrToLower(text);
  int64_t scale = 1;
  if (absl::EndsWith(s, "ms")) {
    s.resize(s.size() - 2);
  } else if (absl::EndsWith(s, "s")) {
    scale = 1000, s.pop_back();
  } else if (absl::EndsWith(s, "m")) {
    scale = 60000, s.pop_back();
  } else if (absl::EndsWith(s, "h")) {
    scale = 3600000, s.pop_back();
  }
  int64_t value;
  if (!absl::SimpleAtoi(s, &value) || value < 0 || value > INT64_MAX / scale) return false;
  *out = value * scale;
  return true;
}

int Fail(const std::string& message) {
  std::cerr << "xla-server: " << message << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  xla::server::ServerConfig config;
  std::vector<std::string> platforms;
  std::string log_level = "info";
  int64_t drain_ms = 30000;

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (!absl::StartsWith(arg, "--")) return Fail(absl::StrCat("unexpected argument '", arg, "' (see --help)"));
    std::string name = arg.substr(2), value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (name == "insecure") {
      if (has_value) return Fail("--insecure takes no value");
      config.insecure = true;
      continue;
    }
    if (name == "allow-load") {
      if (has_value) return Fail("--allow-load takes no value");
      config.service.allow_load = true;
      continue;
    }
    static const char* const kValueFlags[] = {
        "listen", "platform", "auth-token-file", "tls-cert", "tls-key", "tls-client-ca",
        "session-lease", "drain-timeout", "max-session-memory", "max-module-bytes",
        "max-literal-bytes", "compile-threads", "execute-threads", "rpc-threads",
        "cache-entries", "log-level"};
    if (std::find(std::begin(kValueFlags), std::end(kValueFlags), name) == std::end(kValueFlags)) {
      return Fail(absl::StrCat("unknown flag --", name, " (see --help)"));
    }
    if (!has_value) {
      if (i + 1 >= argc) return Fail(absl::StrCat("--", name, " needs a value (see --help)"));
      value = argv[++i];
    }
    auto bad = [&] { return Fail(absl::StrCat("bad value '", value, "' for --", name)); };
    int64_t number = 0;
    if (name == "listen") {
      config.listen = value;
    } else if (name == "platform") {
      for (absl::string_view p : absl::StrSplit(value, ',', absl::SkipEmpty())) platforms.emplace_back(p);
    } else if (name == "auth-token-file") {
      config.auth_token_file = value;
    } else if (name == "tls-cert") {
      config.tls_cert_file = value;
    } else if (name == "tls-key") {
      config.tls_key_file = value;
    } else if (name == "tls-client-ca") {
      config.tls_client_ca_file = value;
    } else if (name == "session-lease") {
      if (!ParseDurationMs(value, &number) || number == 0) return bad();
      config.service.default_lease_ms = number;
    } else if (name == "drain-timeout") {
      if (!ParseDurationMs(value, &number)) return bad();
      drain_ms = number;
    } else if (name == "max-session-memory") {
      if (!ParseSize(value, &number)) return bad();
      config.service.max_session_memory_bytes = number;
    } else if (name == "max-module-bytes") {
      if (!ParseSize(value, &number) || number == 0) return bad();
      config.service.max_module_bytes = number;
    } else if (name == "max-literal-bytes") {
      if (!ParseSize(value, &number) || number == 0) return bad();
      config.service.max_literal_bytes = number;
    } else if (name == "compile-threads" || name == "execute-threads" || name == "rpc-threads") {
      if (!absl::SimpleAtoi(value, &number) || number < 1 || number > 1024) return bad();
      int n = static_cast<int>(number);
      if (name == "compile-threads") config.service.compile_threads = n;
      if (name == "execute-threads") config.service.execute_threads = n;
      if (name == "rpc-threads") config.rpc_threads = n;
    } else if (name == "cache-entries") {
      if (!absl::SimpleAtoi(value, &number) || number < 0) return bad();
      config.service.cache_entries = number;
    } else if (name == "log-level") {
      log_level = value;
    } else {
      return Fail(absl::StrCat("unknown flag --", name, " (see --help)"));
    }
  }
  if (platforms.empty()) platforms = xla::server::DefaultPlatforms();
  config.service.platforms = platforms;

  spdlog::level::level_enum level = spdlog::level::from_str(log_level);
  if (level == spdlog::level::off && log_level != "off") return Fail(absl::StrCat("bad --log-level '", log_level, "'"));
  spdlog::set_level(level);

  if (absl::Status valid = xla::server::ValidateServerConfig(config); !valid.ok()) {
    return Fail(std::string(valid.message()));
  }

  // Signals are taken synchronously by this thread; every thread started later inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto server = xla::server::StartServer(config);
  if (!server.ok()) return Fail(server.status().ToString());
  std::cout << "xla-server listening on " << (*server)->address() << std::endl;

  int signal_number = 0;
  sigwait(&signals, &signal_number);
  spdlog::info("received signal {}; draining for up to {} ms", signal_number, drain_ms);
  (*server)->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(drain_ms));
  server->reset();
  return 0;
}
