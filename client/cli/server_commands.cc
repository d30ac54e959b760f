#include "client/cli/server_commands.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "backends/executable_format.h"
#include "hlo/hlo_computation.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cli {

const char kServerUsage[] =
    "  xla-cli devices [--json] [CONNECTION]\n"
    "  xla-cli status [--json] [CONNECTION]\n"
    "      The server's devices; its status (sessions, memory, cache, executions in flight).\n"
    "  xla-cli ping [--repeat=N] [--json] [CONNECTION]\n"
    "      Round trips of Execute for a compiled scalar add whose arguments are already on the\n"
    "      server; prints p50/p90/p99 in microseconds ({\"p50_us\",\"p90_us\",\"p99_us\"} with --json).\n"
    "  xla-cli transfer --bytes=N [--direction=to-server|to-client] [--repeat=N] [--json] [CONNECTION]\n"
    "      Streamed transfer throughput, best of the repeats ({\"gib_per_s\",\"seconds\"} with --json).\n"
    "  xla-cli run FILE --server=ADDR [run flags] [CONNECTION]\n"
    "      The run command, compiled and executed on a server.\n"
    "  CONNECTION: --server=ADDR (default 127.0.0.1:50051) --token-file=PATH --tls --tls-ca=PEM\n"
    "              --tls-cert=PEM --tls-key=PEM --deadline-ms=N\n";

namespace {

constexpr char kScalarAdd[] = R"(HloModule ping
ENTRY main {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
)";

std::optional<std::string> ValueOf(const std::string& flag, absl::string_view name) {
  std::string prefix = absl::StrCat(std::string(name), "=");
  if (!absl::StartsWith(flag, prefix)) return std::nullopt;
  return flag.substr(prefix.size());
}

absl::StatusOr<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("cannot open ", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += absl::StrFormat("\\u%04x", static_cast<int>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

double Percentile(const std::vector<double>& sorted, double p) {
  // Nearest rank.
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * sorted.size()));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

double Seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

int Fail(std::ostream& err, const std::string& where, const absl::Status& status) {
  err << "xla-cli: " << where << ": " << status.message() << " ("
      << absl::StatusCodeToString(status.code()) << ")\n";
  return 1;
}

int Usage(std::ostream& err, const std::string& message) {
  err << "xla-cli: " << message << "\n" << kServerUsage;
  return 2;
}

int Devices(client::Client& client, bool json, std::ostream& out, std::ostream& err) {
  auto devices = client.ListDevices();
  if (!devices.ok()) return Fail(err, "devices", devices.status());
  if (json) {
    std::string line = "{\"devices\": [";
    for (size_t i = 0; i < devices->size(); ++i) {
      const auto& d = (*devices)[i];
      absl::StrAppend(&line, i == 0 ? "" : ", ", "{\"ordinal\": ", d.ordinal(),
                      ", \"platform\": ", JsonString(d.platform()), ", \"name\": ", JsonString(d.name()),
                      ", \"memory_bytes\": ", d.memory_bytes(), "}");
    }
    out << line << "]}\n";
    return 0;
  }
  for (const auto& d : *devices) {
    out << d.ordinal() << " " << d.platform() << " " << d.name();
    if (d.memory_bytes() > 0) out << " " << d.memory_bytes() << " bytes";
    out << "\n";
  }
  return 0;
}

int Status(client::Client& client, bool json, std::ostream& out, std::ostream& err) {
  auto status = client.GetStatus();
  if (!status.ok()) return Fail(err, "status", status.status());
  if (json) {
    std::string line = absl::StrCat("{\"devices\": ", status->devices_size(), ", \"sessions\": [");
    for (int i = 0; i < status->sessions_size(); ++i) {
      const auto& s = status->sessions(i);
      absl::StrAppend(&line, i == 0 ? "" : ", ", "{\"session_id\": ", JsonString(s.session_id()),
                      ", \"client_name\": ", JsonString(s.client_name()), ", \"memory_bytes\": ",
                      s.memory_bytes(), ", \"handles\": ", s.handles(), ", \"executables\": ",
                      s.executables(), "}");
    }
    absl::StrAppend(&line, "], \"cache_entries\": ", status->cache_entries(), ", \"cache_hits\": ",
                    status->cache_hits(), ", \"executions_in_flight\": ", status->executions_in_flight(),
                    "}");
    out << line << "\n";
    return 0;
  }
  out << "devices: " << status->devices_size() << "\n";
  for (const auto& d : status->devices()) out << "  " << d.ordinal() << " " << d.platform() << " " << d.name() << "\n";
  out << "sessions: " << status->sessions_size() << "\n";
  for (const auto& s : status->sessions()) {
    out << "  " << s.session_id() << " " << (s.client_name().empty() ? "-" : s.client_name()) << " memory "
        << s.memory_bytes() << " bytes, " << s.handles() << " handles, " << s.executables()
        << " executables\n";
  }
  out << "cache: " << status->cache_entries() << " entries, " << status->cache_hits() << " hits\n";
  out << "executions in flight: " << status->executions_in_flight() << "\n";
  return 0;
}

int Ping(client::Client& client, int64_t repeat, bool json, std::ostream& out, std::ostream& err) {
  auto exe = client.Compile(kScalarAdd);
  if (!exe.ok()) return Fail(err, "ping", exe.status());
  auto a = client.TransferToServer(Literal::CreateR0<float>(1.0f));
  if (!a.ok()) return Fail(err, "ping", a.status());
  auto b = client.TransferToServer(Literal::CreateR0<float>(2.0f));
  if (!b.ok()) return Fail(err, "ping", b.status());
  std::vector<const client::GlobalData*> args = {a->get(), b->get()};
  // Results are kept until the end so no Unregister rides inside a timed call.
  std::vector<std::unique_ptr<client::GlobalData>> results;
  results.reserve(static_cast<size_t>(repeat) + 3);
  for (int i = 0; i < 3; ++i) {  // warm-up: connection, caches
    auto r = client.Execute(*exe, args);
    if (!r.ok()) return Fail(err, "ping", r.status());
    results.push_back(std::move(*r));
  }
  std::vector<double> us;
  us.reserve(repeat);
  for (int64_t i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto r = client.Execute(*exe, args);
    us.push_back(Seconds(std::chrono::steady_clock::now() - start) * 1e6);
    if (!r.ok()) return Fail(err, "ping", r.status());
    results.push_back(std::move(*r));
  }
  auto check = client.Transfer(*results.back());
  if (!check.ok()) return Fail(err, "ping", check.status());
  if (*check != Literal::CreateR0<float>(3.0f)) {
    return Fail(err, "ping", absl::InternalError(absl::StrCat("1 + 2 gave ", check->ToString())));
  }
  std::sort(us.begin(), us.end());
  const double p50 = Percentile(us, 50), p90 = Percentile(us, 90), p99 = Percentile(us, 99);
  if (json) {
    out << absl::StrFormat("{\"p50_us\": %.3f, \"p90_us\": %.3f, \"p99_us\": %.3f}\n", p50, p90, p99);
  } else {
    out << absl::StrFormat("%d Execute round trips: p50 %.1f us, p90 %.1f us, p99 %.1f us\n", repeat, p50,
                           p90, p99);
  }
  return 0;
}

int Transfer(client::Client& client, int64_t bytes, bool to_server, int64_t repeat, bool json,
             std::ostream& out, std::ostream& err) {
  auto literal = Literal::Create(ShapeUtil::MakeShape(U8, {bytes}));
  if (!literal.ok()) return Fail(err, "transfer", literal.status());
  auto data = literal->data<uint8_t>();
  for (int64_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>(i * 131 + 7);
  std::unique_ptr<client::GlobalData> on_server;
  if (!to_server) {
    auto uploaded = client.TransferToServer(*literal);
    if (!uploaded.ok()) return Fail(err, "transfer", uploaded.status());
    on_server = std::move(*uploaded);
  }
  double best = 0;
  for (int64_t i = 0; i < repeat; ++i) {
    client.FlushUnregisters();  // outside the timed call
    const auto start = std::chrono::steady_clock::now();
    if (to_server) {
      auto uploaded = client.TransferToServer(*literal);
      const double s = Seconds(std::chrono::steady_clock::now() - start);
      if (!uploaded.ok()) return Fail(err, "transfer", uploaded.status());
      best = i == 0 ? s : std::min(best, s);
    } else {
      auto downloaded = client.Transfer(*on_server);
      const double s = Seconds(std::chrono::steady_clock::now() - start);
      if (!downloaded.ok()) return Fail(err, "transfer", downloaded.status());
      if (downloaded->size_bytes() != bytes) {
        return Fail(err, "transfer", absl::DataLossError(absl::StrCat("received ", downloaded->size_bytes(),
                                                                      " bytes, expected ", bytes)));
      }
      best = i == 0 ? s : std::min(best, s);
    }
  }
  const double gib_per_s = best > 0 ? static_cast<double>(bytes) / best / (1024.0 * 1024.0 * 1024.0) : 0;
  if (json) {
    out << absl::StrFormat("{\"gib_per_s\": %.6f, \"seconds\": %.9f}\n", gib_per_s, best);
  } else {
    out << absl::StrFormat("%s %d bytes: %.3f GiB/s (best of %d, %.6f s)\n",
                           to_server ? "to-server" : "to-client", bytes, gib_per_s, repeat, best);
  }
  return 0;
}

absl::StatusOr<std::unique_ptr<client::Client>> ConnectFor(const client::ClientOptions& options) {
  client::ClientOptions named = options;
  if (named.client_name.empty()) named.client_name = "xla-cli";
  return client::Client::Connect(named);
}

}  // namespace

bool IsServerCommand(const std::string& command) {
  return command == "devices" || command == "status" || command == "ping" || command == "transfer";
}

absl::StatusOr<client::ClientOptions> ExtractConnectionFlags(std::vector<std::string>* flags,
                                                             bool* given) {
  client::ClientOptions options;
  *given = false;
  std::vector<std::string> rest;
  for (const std::string& flag : *flags) {
    if (auto v = ValueOf(flag, "--server")) {
      if (v->empty()) return absl::InvalidArgumentError("--server needs an address");
      options.target = *v;
      *given = true;
    } else if (auto v = ValueOf(flag, "--token-file")) {
      ASSIGN_OR_RETURN(std::string token, ReadText(*v));
      while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) {
        token.pop_back();
      }
      options.auth_token = token;
    } else if (flag == "--tls") {
      options.tls = true;
    } else if (auto v = ValueOf(flag, "--tls-ca")) {
      ASSIGN_OR_RETURN(options.tls_root_certs_pem, ReadText(*v));
      options.tls = true;
    } else if (auto v = ValueOf(flag, "--tls-cert")) {
      ASSIGN_OR_RETURN(options.tls_client_cert_pem, ReadText(*v));
      options.tls = true;
    } else if (auto v = ValueOf(flag, "--tls-key")) {
      ASSIGN_OR_RETURN(options.tls_client_key_pem, ReadText(*v));
      options.tls = true;
    } else if (auto v = ValueOf(flag, "--deadline-ms")) {
      if (!absl::SimpleAtoi(*v, &options.deadline_ms) || options.deadline_ms < 0) {
        return absl::InvalidArgumentError(absl::StrCat("bad --deadline-ms '", *v, "'"));
      }
    } else {
      rest.push_back(flag);
    }
  }
  flags->swap(rest);
  return options;
}

int RunServerCommand(const std::string& command, std::vector<std::string> flags, std::ostream& out,
                     std::ostream& err) {
  bool server_given = false;
  auto connection = ExtractConnectionFlags(&flags, &server_given);
  if (!connection.ok()) return Usage(err, std::string(connection.status().message()));
  bool json = false;
  int64_t repeat = command == "ping" ? 1000 : 5;
  int64_t bytes = -1;
  std::string direction = "to-server";
  for (const std::string& flag : flags) {
    if (flag == "--json") {
      json = true;
    } else if (auto v = ValueOf(flag, "--repeat"); v && (command == "ping" || command == "transfer")) {
      if (!absl::SimpleAtoi(*v, &repeat) || repeat < 1 || repeat > 10000000) {
        return Usage(err, absl::StrCat("bad --repeat '", *v, "'"));
      }
    } else if (auto v = ValueOf(flag, "--bytes"); v && command == "transfer") {
      if (!absl::SimpleAtoi(*v, &bytes) || bytes < 1) return Usage(err, absl::StrCat("bad --bytes '", *v, "'"));
    } else if (auto v = ValueOf(flag, "--direction"); v && command == "transfer") {
      if (*v != "to-server" && *v != "to-client") {
        return Usage(err, absl::StrCat("bad --direction '", *v, "' (to-server or to-client)"));
      }
      direction = *v;
    } else {
      return Usage(err, absl::StrCat(command, ": unexpected argument ", flag));
    }
  }
  if (command == "transfer" && bytes < 0) return Usage(err, "transfer needs --bytes=N");

  auto client = ConnectFor(*connection);
  if (!client.ok()) return Fail(err, connection->target, client.status());
  if (command == "devices") return Devices(**client, json, out, err);
  if (command == "status") return Status(**client, json, out, err);
  if (command == "ping") return Ping(**client, repeat, json, out, err);
  return Transfer(**client, bytes, direction == "to-server", repeat, json, out, err);
}

int RunModuleOnServer(const RunOptions& options, bool platform_given,
                      const client::ClientOptions& connection, const ModuleLoader& load,
                      const ErrorReporter& fail, std::ostream& out) {
  const std::string& file = options.file;
  // --executable: the serialized executable's own module gives the parameters, and it runs
  // on a device of the platform it was compiled for.
  std::string serialized;
  std::string executable_platform;
  absl::StatusOr<std::unique_ptr<HloModule>> module = absl::UnknownError("no module");
  if (options.executable) {
    auto bytes = ReadBinaryFile(file);
    if (!bytes.ok()) return fail(file, bytes.status());
    serialized = *std::move(bytes);
    auto fields = backend::ReadExecutableContainer(serialized);
    if (!fields.ok()) return fail(file, fields.status());
    auto platform = fields->Get("platform");
    if (!platform.ok()) return fail(file, platform.status());
    executable_platform = std::string(*platform);
    auto module_bytes = fields->Get("module");
    if (!module_bytes.ok()) return fail(file, module_bytes.status());
    HloModuleProtoWithConfig proto;
    if (!proto.ParseFromArray(module_bytes->data(), static_cast<int>(module_bytes->size()))) {
      return fail(file, absl::InvalidArgumentError("the executable's module does not parse"));
    }
    module = HloModuleFromProtoWithConfig(proto);
  } else {
    module = load(file, options.verify);
  }
  if (!module.ok()) return fail(file, module.status());
  const HloComputation* entry = (*module)->entry_computation();
  if (entry == nullptr) return fail(file, absl::InvalidArgumentError("module has no entry computation"));
  int reported = 0;
  auto arguments = BuildRunArguments(options, *entry, fail, &reported);
  if (!arguments.ok()) return reported != 0 ? reported : fail(file, arguments.status());

  auto client = ConnectFor(connection);
  if (!client.ok()) return fail(connection.target, client.status());
  auto devices = (*client)->ListDevices();
  if (!devices.ok()) return fail(connection.target, devices.status());
  const server::DeviceInfo* device = nullptr;
  const std::string wanted = options.executable && !platform_given ? executable_platform : options.platform;
  for (const auto& d : *devices) {
    if ((!platform_given && !options.executable) || d.platform() == wanted) {
      device = &d;
      break;
    }
  }
  if (device == nullptr) {
    return fail(connection.target,
                absl::NotFoundError(absl::StrCat("the server has no ", wanted, " device")));
  }

  const auto compile_start = std::chrono::steady_clock::now();
  auto exe = options.executable ? (*client)->Load(std::move(serialized), device->ordinal())
                                 : (*client)->Compile(HloModuleToProto(**module), device->ordinal());
  const double compile_ms = Seconds(std::chrono::steady_clock::now() - compile_start) * 1e3;
  if (!exe.ok()) return fail(file, exe.status());

  std::vector<std::unique_ptr<client::GlobalData>> uploaded;
  std::vector<const client::GlobalData*> args;
  for (const Literal& literal : *arguments) {
    auto data = (*client)->TransferToServer(literal, device->ordinal());
    if (!data.ok()) return fail(file, data.status());
    args.push_back(data->get());
    uploaded.push_back(std::move(*data));
  }
  std::vector<double> execute_ms;
  std::unique_ptr<client::GlobalData> result_data;
  for (int64_t i = 0; i < options.repeat; ++i) {
    result_data.reset();
    (*client)->FlushUnregisters();
    const auto start = std::chrono::steady_clock::now();
    auto result = (*client)->Execute(*exe, args);
    execute_ms.push_back(Seconds(std::chrono::steady_clock::now() - start) * 1e3);
    if (!result.ok()) return fail(file, result.status());
    result_data = std::move(*result);
  }
  auto result = (*client)->Transfer(*result_data);
  if (!result.ok()) return fail(file, result.status());

  if (!options.output_dir.empty()) {
    absl::Status written = WriteRunOutputs(options.output_dir, *result);
    if (!written.ok()) return fail(options.output_dir, written);
  }
  if (options.json) {
    std::sort(execute_ms.begin(), execute_ms.end());
    const size_t n = execute_ms.size();
    const double median = n % 2 == 1 ? execute_ms[n / 2] : (execute_ms[n / 2 - 1] + execute_ms[n / 2]) / 2;
    out << absl::StrFormat(
        "{\"compile_ms\": %.6f, \"execute_ms\": {\"min\": %.6f, \"median\": %.6f, \"max\": %.6f}, "
        "\"repeat\": %d, \"platform\": %s, \"result_shape\": %s, \"server\": %s}\n",
        compile_ms, execute_ms.front(), median, execute_ms.back(), options.repeat,
        JsonString(device->platform()), JsonString(ShapeUtil::HumanString(result->shape())),
        JsonString(connection.target));
  } else {
    out << result->ToString() << "\n";
  }
  return 0;
}

}  // namespace cli
}  // namespace xla
