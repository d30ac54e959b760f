// xla-server against bare gRPC, side by side in one process (issue 4's performance aims):
//  - Execute round trip of a scalar add whose arguments are on the server, against a bare
//    unary echo of a message of the same size (aim: at most 1.5x);
//  - TransferToServer / TransferToClient of 256 MiB, against a bare stream of the same bytes
//    in 1 MiB chunks (aim: at least 0.8x the bare throughput);
//  - a compile cache hit, timed inside the service core (aim: well under a millisecond).
// Both servers listen on 127.0.0.1 in this process; the two sides alternate in blocks so
// that drift on a shared machine affects both alike. Prints one table of medians.

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bare_grpc.grpc.pb.h"
#include "client/xla_client.h"
#include "hlo/literal.h"
#include "server/grpc_server.h"
#include "server/service_core.h"

namespace xla {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n == 0 ? 0 : (n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2);
}

constexpr int64_t kChunkBytes = 1 << 20;

// The bare reference: echo, and streams that carry bytes and nothing else.
class BareService final : public bench::BareGrpc::Service {
 public:
  explicit BareService(int64_t download_bytes) : source_(download_bytes, 'x') {}

  grpc::Status Ping(grpc::ServerContext*, const bench::Blob* request, bench::Blob* reply) override {
    *reply = *request;
    return grpc::Status::OK;
  }
  grpc::Status Upload(grpc::ServerContext*, grpc::ServerReader<bench::Blob>* reader,
                      bench::Blob* reply) override {
    bench::Blob chunk;
    int64_t bytes = 0;
    while (reader->Read(&chunk)) bytes += static_cast<int64_t>(chunk.data().size());
    reply->set_data(std::to_string(bytes));
    return grpc::Status::OK;
  }
  grpc::Status Download(grpc::ServerContext*, const bench::Blob* request,
                        grpc::ServerWriter<bench::Blob>* writer) override {
    const int64_t bytes = std::min<int64_t>(std::atoll(request->data().c_str()), source_.size());
    bench::Blob chunk;
    for (int64_t offset = 0; offset < bytes; offset += kChunkBytes) {
      chunk.set_data(source_.data() + offset, std::min(kChunkBytes, bytes - offset));
      if (!writer->Write(chunk)) break;
    }
    return grpc::Status::OK;
  }

 private:
  std::string source_;
};

struct Row {
  std::string what, ours, reference, ratio, aim;
};

std::string Fmt(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

int Fail(const std::string& what, const absl::Status& status) {
  std::fprintf(stderr, "server_bench: %s: %s\n", what.c_str(), status.ToString().c_str());
  return 1;
}

constexpr char kScalarAdd[] = R"(HloModule scalar_add
ENTRY main {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
)";

// A mid-sized module (a 64-op elementwise chain) for the cache-hit figure: a hit still
// parses and fingerprints the text, so its size shows.
std::string ChainModule(int ops) {
  std::string text = "HloModule chain\nENTRY main {\n  v0 = f32[1024] parameter(0)\n";
  for (int i = 1; i <= ops; ++i) {
    absl::StrAppend(&text, "  v", i, " = f32[1024] ", i % 2 ? "add" : "multiply", "(v", i - 1,
                    ", v0)\n");
  }
  absl::StrAppend(&text, "  ROOT r = f32[1024] negate(v", ops, ")\n}\n");
  return text;
}

int Run(int pings, int transfers, int64_t transfer_bytes) {
  // --- servers ---
  server::ServerConfig config;
  config.listen = "127.0.0.1:0";
  config.service.platforms = server::DefaultPlatforms();  // as xla-server: cpu when built
  auto xla_server = server::StartServer(config);
  if (!xla_server.ok()) return Fail("start xla-server", xla_server.status());

  BareService bare(transfer_bytes);
  grpc::ServerBuilder builder;
  int bare_port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &bare_port);
  builder.RegisterService(&bare);
  builder.SetMaxReceiveMessageSize(INT_MAX);
  builder.SetMaxSendMessageSize(INT_MAX);
  std::unique_ptr<grpc::Server> bare_server = builder.BuildAndStart();
  if (bare_server == nullptr || bare_port == 0) return Fail("start bare server", absl::InternalError("no port"));

  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(INT_MAX);
  args.SetMaxSendMessageSize(INT_MAX);
  auto bare_stub = bench::BareGrpc::NewStub(grpc::CreateCustomChannel(
      absl::StrCat("127.0.0.1:", bare_port), grpc::InsecureChannelCredentials(), args));

  client::ClientOptions options;
  options.target = (*xla_server)->address();
  auto client_or = client::Client::Connect(options);
  if (!client_or.ok()) return Fail("connect", client_or.status());
  client::Client& client = **client_or;

  // --- Execute round trip against a unary echo of the same request size ---
  auto exe = client.Compile(kScalarAdd);
  if (!exe.ok()) return Fail("compile", exe.status());
  auto a = client.TransferToServer(Literal::CreateR0<float>(1));
  auto b = client.TransferToServer(Literal::CreateR0<float>(2));
  if (!a.ok() || !b.ok()) return Fail("upload arguments", a.ok() ? b.status() : a.status());
  std::vector<const client::GlobalData*> arguments = {a->get(), b->get()};
  bench::Blob ping;
  ping.set_data(std::string(64, 'p'));  // about an ExecuteRequest's size (session id + 3 ints)
  std::vector<double> execute_us, ping_us;
  std::vector<std::unique_ptr<client::GlobalData>> results;
  results.reserve(pings + 64);
  constexpr int kBlock = 100;
  for (int done = -kBlock; done < pings; done += kBlock) {  // the first block warms up
    for (int i = 0; i < kBlock; ++i) {
      grpc::ClientContext context;
      bench::Blob echo;
      const auto start = Clock::now();
      grpc::Status status = bare_stub->Ping(&context, ping, &echo);
      if (done >= 0) ping_us.push_back(Seconds(Clock::now() - start) * 1e6);
      if (!status.ok()) return Fail("bare ping", absl::UnavailableError(status.error_message()));
    }
    for (int i = 0; i < kBlock; ++i) {
      const auto start = Clock::now();
      auto result = client.Execute(*exe, arguments);
      if (done >= 0) execute_us.push_back(Seconds(Clock::now() - start) * 1e6);
      if (!result.ok()) return Fail("execute", result.status());
      results.push_back(std::move(*result));
    }
    // Release outside the timed calls.
    results.clear();
    client.FlushUnregisters();
  }

  // --- 256 MiB each way against bare 1 MiB-chunk streams ---
  std::vector<uint8_t> bytes(transfer_bytes);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 131 + 7);
  Literal big = Literal::CreateR1<uint8_t>(bytes);
  bytes = {};
  std::vector<double> up_s, bare_up_s, down_s, bare_down_s;
  std::unique_ptr<client::GlobalData> resident;
  for (int rep = 0; rep < transfers + 1; ++rep) {  // the first round warms up
    {
      grpc::ClientContext context;
      bench::Blob reply;
      const auto start = Clock::now();
      auto writer = bare_stub->Upload(&context, &reply);
      bench::Blob chunk;
      const char* data = static_cast<const char*>(big.untyped_data());
      for (int64_t offset = 0; offset < transfer_bytes; offset += kChunkBytes) {
        chunk.set_data(data + offset, std::min(kChunkBytes, transfer_bytes - offset));
        if (!writer->Write(chunk)) break;
      }
      writer->WritesDone();
      grpc::Status status = writer->Finish();
      if (rep > 0) bare_up_s.push_back(Seconds(Clock::now() - start));
      if (!status.ok() || reply.data() != std::to_string(transfer_bytes)) {
        return Fail("bare upload", absl::InternalError(status.error_message()));
      }
    }
    {
      resident.reset();
      client.FlushUnregisters();
      const auto start = Clock::now();
      auto uploaded = client.TransferToServer(big);
      if (rep > 0) up_s.push_back(Seconds(Clock::now() - start));
      if (!uploaded.ok()) return Fail("TransferToServer", uploaded.status());
      resident = std::move(*uploaded);
    }
    {
      grpc::ClientContext context;
      bench::Blob request;
      request.set_data(std::to_string(transfer_bytes));
      int64_t received = 0;
      const auto start = Clock::now();
      auto reader = bare_stub->Download(&context, request);
      bench::Blob chunk;
      // The strictest reference: the bytes are received and counted, never assembled.
      while (reader->Read(&chunk)) received += static_cast<int64_t>(chunk.data().size());
      grpc::Status status = reader->Finish();
      if (rep > 0) bare_down_s.push_back(Seconds(Clock::now() - start));
      if (!status.ok() || received != transfer_bytes) {
        return Fail("bare download", absl::InternalError(status.error_message()));
      }
    }
    {
      const auto start = Clock::now();
      auto back = client.Transfer(*resident);
      if (rep > 0) down_s.push_back(Seconds(Clock::now() - start));
      if (!back.ok()) return Fail("Transfer", back.status());
      if (rep == transfers && std::memcmp(back->untyped_data(), big.untyped_data(), transfer_bytes) != 0) {
        return Fail("Transfer", absl::DataLossError("the bytes that came back differ"));
      }
    }
  }

  // --- compile cache hit inside the service core (no transport) ---
  server::ServiceOptions core_options;
  core_options.platforms = server::DefaultPlatforms();
  auto core = server::ServiceCore::Create(core_options);
  if (!core.ok()) return Fail("core", core.status());
  server::OpenSessionRequest open;
  open.set_protocol_version(client::kClientProtocolVersion);
  auto session = (*core)->OpenSession(open);
  if (!session.ok()) return Fail("session", session.status());
  auto time_hits = [&](const std::string& text, double* miss_ms, double* hit_us) -> absl::Status {
    server::CompileRequest request;
    request.set_session_id(session->session_id());
    request.set_hlo_text(text);
    auto start = Clock::now();
    auto first = (*core)->Compile(request);
    *miss_ms = Seconds(Clock::now() - start) * 1e3;
    if (!first.ok()) return first.status();
    std::vector<double> us;
    for (int i = 0; i < 200; ++i) {
      start = Clock::now();
      auto again = (*core)->Compile(request);
      us.push_back(Seconds(Clock::now() - start) * 1e6);
      if (!again.ok()) return again.status();
      if (!again->cache_hit()) return absl::InternalError("a repeated compile missed the cache");
    }
    *hit_us = Median(us);
    return absl::OkStatus();
  };
  double small_miss_ms = 0, small_hit_us = 0, chain_miss_ms = 0, chain_hit_us = 0;
  if (auto s = time_hits(kScalarAdd, &small_miss_ms, &small_hit_us); !s.ok()) return Fail("cache", s);
  const std::string chain = ChainModule(64);
  if (auto s = time_hits(chain, &chain_miss_ms, &chain_hit_us); !s.ok()) return Fail("cache", s);

  // --- table ---
  const double gib = static_cast<double>(transfer_bytes) / (1 << 30);
  const double exec = Median(execute_us), echo = Median(ping_us);
  const double up = gib / Median(up_s), bare_up = gib / Median(bare_up_s);
  const double down = gib / Median(down_s), bare_down = gib / Median(bare_down_s);
  std::vector<Row> rows = {
      {"Execute round trip, scalar add, arguments resident (p50)", Fmt("%.0f us", exec),
       Fmt("%.0f us (bare unary echo)", echo), Fmt("%.2fx", exec / echo), "<= 1.5x"},
      {absl::StrCat("TransferToServer ", transfer_bytes >> 20, " MiB"), Fmt("%.2f GiB/s", up),
       Fmt("%.2f GiB/s (bare 1 MiB-chunk stream, bytes discarded)", bare_up), Fmt("%.2fx", up / bare_up), ">= 0.8x"},
      {absl::StrCat("TransferToClient ", transfer_bytes >> 20, " MiB"), Fmt("%.2f GiB/s", down),
       Fmt("%.2f GiB/s (bare 1 MiB-chunk stream, bytes discarded)", bare_down), Fmt("%.2fx", down / bare_down),
       ">= 0.8x"},
      {absl::StrCat("Compile cache hit in the core, scalar add (", sizeof(kScalarAdd) - 1, " B)"),
       Fmt("%.1f us", small_hit_us),
       Fmt("%.2f ms (cold compile)", small_miss_ms), "", "well under 1 ms"},
      {absl::StrCat("Compile cache hit in the core, 64-op chain (", chain.size() / 1024, " KiB)"),
       Fmt("%.1f us", chain_hit_us), Fmt("%.2f ms (cold compile)", chain_miss_ms), "",
       "well under 1 ms"},
  };
  std::printf("| benchmark | xla-server | reference | ratio | aim |\n| --- | --- | --- | --- | --- |\n");
  for (const Row& row : rows) {
    std::printf("| %s | %s | %s | %s | %s |\n", row.what.c_str(), row.ours.c_str(),
                row.reference.c_str(), row.ratio.c_str(), row.aim.c_str());
  }
  std::printf("(medians: %d round trips each, %d transfers each way)\n", pings, transfers);
  resident.reset();
  client_or->reset();
  (*xla_server)->Shutdown(std::chrono::system_clock::now());
  bare_server->Shutdown();
  return 0;
}

}  // namespace
}  // namespace xla

int main(int argc, char** argv) {
  int pings = 2000, transfers = 5;
  int64_t mib = 256;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--pings=", 0) == 0) pings = std::atoi(arg.c_str() + 8);
    else if (arg.rfind("--transfers=", 0) == 0) transfers = std::atoi(arg.c_str() + 12);
    else if (arg.rfind("--mib=", 0) == 0) mib = std::atoll(arg.c_str() + 6);
    else {
      std::fprintf(stderr, "usage: server_bench [--pings=N] [--transfers=N] [--mib=N]\n");
      return 2;
    }
  }
  return xla::Run(std::max(pings, 100), std::max(transfers, 1), std::max<int64_t>(mib, 1) << 20);
}
