// Issue 6's CPU backend benchmark: each workload (bench/cpu_bench_workloads.h) on the cpu
// backend against the same work in NumPy (bench/cpu_bench_numpy.py in a /usr/bin/python3
// process) and two ceilings measured in this process: memory bandwidth (a triad over reused
// buffers, all cores) and OpenBLAS cblas_sgemm on the workload's matrix products (for the
// 2048^2 matmul that is the sgemm ceiling; for the MLP, the floor of any backend that calls
// sgemm). Prints one table with the aims.
//
// Each iteration runs the backend once, NumPy once and the workload's ceiling once, so all
// three see the same load on this shared machine (bench/cpu_bench_references.h). Execute time
// is Executable::Execute only (arguments already in device buffers, result buffers from the
// backend's pool); medians of --runs iterations (at least 10). Compile times: the backend's
// Compile of a module it has not seen (cold; LLVM already initialised, as in a running
// server), a second Compile of the same module (the backend keeps no cache), and, when the
// server core is linked in, ServiceCore::Compile's miss and its cache hit.
//
// Usage: cpu_bench [--runs=N] [--only=gelu,sum,...] [--no_numpy] [--python=/usr/bin/python3]
//                  [--numpy_script=PATH]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "backends/backend.h"
#include "backends/cpu/cpu_backend.h"
#include "bench/cpu_bench_checks.h"
#include "bench/cpu_bench_references.h"
#include "bench/cpu_bench_workloads.h"
#include "hlo/hlo_parser.h"
#include "hlo/literal.h"
#include "hlo/status_macros.h"

#ifdef XLA_BENCH_HAS_SERVICE_CORE
#include "server/service_core.h"
#endif

namespace xla {
namespace bench {
namespace {

using Clock = BenchClock;

struct Stats {
  double median = NAN, min = NAN, max = NAN;
};

Stats Summarize(std::vector<double> ms) {
  Stats s;
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  s.median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  s.min = ms.front();
  s.max = ms.back();
  return s;
}

double ProcessCpuMs() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return absl::StrCat(a, " ", b, " ", c);
}

// --- the cpu backend ---

struct CpuResult {
  Stats execute;
  Stats numpy;    // the same work in NumPy, alternating with the backend's runs
  Stats ceiling;  // the workload's ceiling run alongside: triad ms or sgemm-alone ms
  // Process CPU time per execution (all threads): less disturbed by other users' load than
  // the wall time, so it tells what an optimization changed on a busy machine.
  double cpu_ms_per_run = NAN;
  double compile_cold_ms = NAN, compile_again_ms = NAN;
  double server_miss_ms = NAN, server_hit_ms = NAN;
  std::string check;  // empty when the result passed its sanity check
};

Literal Uniform(const Shape& shape, uint32_t seed) {
  Literal literal = *Literal::Create(shape);
  absl::Span<float> data = literal.data<float>();
  uint32_t state = seed;
  for (float& v : data) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 8) / (1 << 23) - 1.0f;
  }
  return literal;
}

absl::StatusOr<double> TimeCompile(backend::Backend& backend, const std::string& hlo,
                                   std::unique_ptr<backend::Executable>* out) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseAndReturnUnverifiedModule(hlo));
  const auto start = Clock::now();
  ASSIGN_OR_RETURN(*out, backend.Compile(std::move(module), backend::CompileOptions()));
  return MsSince(start);
}

#ifdef XLA_BENCH_HAS_SERVICE_CORE
// The server's compile path in-process (no gRPC): the first Compile misses its cache, the
// later ones hit it. Returns {miss ms, median hit ms}.
absl::StatusOr<std::pair<double, double>> TimeServerCompile(const std::string& hlo) {
  server::ServiceOptions options;
  options.platforms = {"cpu"};
  ASSIGN_OR_RETURN(std::unique_ptr<server::ServiceCore> core, server::ServiceCore::Create(options));
  server::OpenSessionRequest open;
  open.set_protocol_version(server::kMaxProtocolVersion);
  ASSIGN_OR_RETURN(server::OpenSessionResponse session, core->OpenSession(open));
  server::CompileRequest request;
  request.set_session_id(session.session_id());
  request.set_hlo_text(hlo);
  std::vector<double> ms;
  for (int r = 0; r < 6; ++r) {
    const auto start = Clock::now();
    ASSIGN_OR_RETURN(server::CompileResponse response, core->Compile(request));
    ms.push_back(MsSince(start));
    if (response.cache_hit() != (r > 0)) return absl::InternalError("unexpected compile cache behaviour");
  }
  const double miss = ms.front();
  ms.erase(ms.begin());
  return std::make_pair(miss, Summarize(ms).median);
}
#endif

// The reference run alongside a workload's: the triad for a bandwidth aim, cblas_sgemm on its
// products when it has some, nothing otherwise.
struct Ceiling {
  Triad* triad = nullptr;
  std::unique_ptr<Gemms> gemms;
  double RunOnce() { return triad != nullptr ? triad->RunOnce() : gemms != nullptr ? gemms->RunOnce() : NAN; }
};

absl::StatusOr<CpuResult> RunCpu(backend::Backend& backend, const Workload& w, int runs, NumpyPeer* numpy,
                                 Ceiling* ceiling) {
  CpuResult result;
  std::unique_ptr<backend::Executable> executable;
  ASSIGN_OR_RETURN(result.compile_cold_ms, TimeCompile(backend, w.hlo, &executable));
  {
    std::unique_ptr<backend::Executable> again;
    ASSIGN_OR_RETURN(result.compile_again_ms, TimeCompile(backend, w.hlo, &again));
  }
#ifdef XLA_BENCH_HAS_SERVICE_CORE
  ASSIGN_OR_RETURN(auto server, TimeServerCompile(w.hlo));
  result.server_miss_ms = server.first;
  result.server_hit_ms = server.second;
#endif
  std::vector<Literal> inputs;
  std::vector<std::shared_ptr<backend::Buffer>> arguments;
  for (size_t i = 0; i < w.parameters.size(); ++i) {
    inputs.push_back(Uniform(w.parameters[i], 12345u + 977u * static_cast<uint32_t>(i)));
    ASSIGN_OR_RETURN(auto buffer, backend.TransferToDevice(inputs.back(), 0));
    arguments.push_back(std::move(buffer));
  }
  {
    // Warm-up (pool blocks, thread pool, page faults), and the result's sanity check.
    ASSIGN_OR_RETURN(auto out, executable->Execute(arguments, backend::ExecuteOptions()));
    ASSIGN_OR_RETURN(Literal literal, backend.TransferFromDevice(*out));
    result.check = CheckResult(w, inputs, literal);
  }
  if (numpy != nullptr) RETURN_IF_ERROR(numpy->Setup(w.name));
  ceiling->RunOnce();  // warm-up
  std::vector<double> cpu_ms, numpy_ms, ceiling_ms;
  double cpu_time = 0;
  // After an sgemm, OpenBLAS's threads spin for a while (up to about 2^28 cycles) before they
  // sleep, and would take cores from whatever runs next, in this process or NumPy's: with
  // matrix products, every run starts after that time.
  auto settle = [&] {
    if (!w.gemms.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(250));
  };
  for (int r = 0; r < runs; ++r) {
    settle();
    const double cpu_start = ProcessCpuMs();
    const auto start = Clock::now();
    ASSIGN_OR_RETURN(auto out, executable->Execute(arguments, backend::ExecuteOptions()));
    cpu_ms.push_back(MsSince(start));
    cpu_time += ProcessCpuMs() - cpu_start;
    out.reset();
    if (numpy != nullptr) {
      settle();
      ASSIGN_OR_RETURN(double ms, numpy->RunOnce());
      numpy_ms.push_back(ms);
    }
    settle();
    ceiling_ms.push_back(ceiling->RunOnce());
  }
  result.cpu_ms_per_run = cpu_time / runs;
  result.execute = Summarize(cpu_ms);
  result.numpy = Summarize(numpy_ms);
  result.ceiling = Summarize(ceiling_ms);
  return result;
}

// --- NumPy ---

struct Flags {
  int runs = 15;
  std::vector<std::string> only;
  bool numpy = true;
  std::string python = "/usr/bin/python3";
  std::string numpy_script = XLA_BENCH_NUMPY_SCRIPT;
};

std::string Ms(double ms) { return std::isnan(ms) ? "-" : absl::StrFormat("%.2f", ms); }
std::string Spread(const Stats& s) { return absl::StrFormat("%.2f (%.2f-%.2f)", s.median, s.min, s.max); }

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* prefix) -> const char* {
      return arg.rfind(prefix, 0) == 0 ? argv[i] + std::strlen(prefix) : nullptr;
    };
    if (const char* v = value("--runs=")) {
      flags.runs = std::max(10, std::atoi(v));  // the issue asks for medians of >= 10 runs
    } else if (const char* v = value("--only=")) {
      flags.only = absl::StrSplit(v, ',', absl::SkipEmpty());
    } else if (arg == "--no_numpy") {
      flags.numpy = false;
    } else if (const char* v = value("--python=")) {
      flags.python = v;
    } else if (const char* v = value("--numpy_script=")) {
      flags.numpy_script = v;
    } else {
      std::fprintf(stderr, "unknown flag %s\n", arg.c_str());
      std::exit(2);
    }
  }
  return flags;
}

int Main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  std::printf("cpu_bench: %d runs per figure, load average at start %s, %u hardware threads\n", flags.runs,
              LoadAverage().c_str(), std::thread::hardware_concurrency());
  cpu::RegisterCpuBackend();
  backend::RegisterBuiltinBackends();
  auto backend = backend::CreateBackend("cpu");
  if (!backend.ok()) {
    std::fprintf(stderr, "no cpu backend: %s\n", std::string(backend.status().message()).c_str());
    return 1;
  }
  {
    // LLVM's one-time initialisation is not part of any workload's compile time.
    std::unique_ptr<backend::Executable> warm;
    (void)TimeCompile(**backend, "HloModule warm\nENTRY e {\n  ROOT p = f32[4] parameter(0)\n}", &warm);
  }
  std::unique_ptr<NumpyPeer> numpy;
  if (flags.numpy) {
    auto started = NumpyPeer::Start(flags.python, flags.numpy_script);
    if (!started.ok()) {
      std::fprintf(stderr, "%s\n", std::string(started.status().message()).c_str());
      return 1;
    }
    numpy = *std::move(started);
  }
  Triad triad;
  std::vector<double> triad_ms;
  for (int r = 0; r < flags.runs + 1; ++r) triad_ms.push_back(triad.RunOnce());
  triad_ms.erase(triad_ms.begin());  // warms the threads and the TLB
  const Stats triad_alone = Summarize(triad_ms);
  std::printf("triad (c = a*b + 1, 3 x 64 MiB reused, %d threads) alone: %.1f GB/s, %s ms\n", triad.threads(),
              Triad::Bytes() / (triad_alone.median * 1e6), Spread(triad_alone).c_str());

  struct Row {
    Workload w;
    CpuResult cpu;
    double flops = 0;  // of the workload's matrix products
  };
  std::vector<Row> rows;
  for (Workload& w : IssueWorkloads()) {
    if (!flags.only.empty() && std::find(flags.only.begin(), flags.only.end(), w.name) == flags.only.end()) continue;
    Ceiling ceiling;
    if (w.aim == Aim::kFractionOfTriad) ceiling.triad = &triad;
    if (!w.gemms.empty()) ceiling.gemms = std::make_unique<Gemms>(w.gemms);
    auto cpu = RunCpu(**backend, w, flags.runs, numpy.get(), &ceiling);
    if (!cpu.ok()) {
      std::printf("%s: failed: %s\n", w.name.c_str(), std::string(cpu.status().message()).c_str());
      continue;
    }
    Row row{w, *cpu, ceiling.gemms != nullptr ? ceiling.gemms->Flops() : 0.0};
    std::printf("  %-8s cpu %s ms (%.2f ms of CPU time per run), numpy %s ms", w.name.c_str(),
                Spread(row.cpu.execute).c_str(), row.cpu.cpu_ms_per_run, Spread(row.cpu.numpy).c_str());
    if (ceiling.triad != nullptr) std::printf(", triad %s ms", Spread(row.cpu.ceiling).c_str());
    if (ceiling.gemms != nullptr) {
      std::printf(", cblas_sgemm alone %s ms (%.0f GFLOP/s)", Spread(row.cpu.ceiling).c_str(),
                  row.flops / (row.cpu.ceiling.median * 1e6));
    }
    std::printf("%s\n", row.cpu.check.empty() ? "" : (" CHECK FAILED: " + row.cpu.check).c_str());
    std::fflush(stdout);
    rows.push_back(std::move(row));
  }

  std::printf("\n| workload | cpu median ms (min-max) | NumPy median ms (min-max) | cpu vs NumPy | vs ceiling | aim | met? |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
  bool all_met = true;
  for (const Row& row : rows) {
    const double cpu_ms = row.cpu.execute.median;
    const double speedup = row.cpu.numpy.median / cpu_ms;
    const double ceiling_ms = row.cpu.ceiling.median;
    std::string ceiling = "-", aim;
    bool met = false;
    switch (row.w.aim) {
      case Aim::kSpeedupOverNumpy:
        aim = absl::StrFormat(">= %.1fx NumPy", row.w.target);
        met = speedup >= row.w.target;
        if (!row.w.gemms.empty()) {
          // No backend that calls the same sgemm can beat NumPy by more than NumPy/sgemm-alone.
          ceiling = absl::StrFormat("sgemm alone %.2f ms: cpu %.2fx of it; NumPy %.2fx of it", ceiling_ms,
                                    cpu_ms / ceiling_ms, row.cpu.numpy.median / ceiling_ms);
        }
        break;
      case Aim::kFractionOfTriad: {
        const double gbps = row.w.bytes_read / (cpu_ms * 1e6);
        const double triad_gbps = Triad::Bytes() / (ceiling_ms * 1e6);
        ceiling = absl::StrFormat("%.1f GB/s = %.0f%% of triad %.1f GB/s", gbps, 100 * gbps / triad_gbps, triad_gbps);
        aim = absl::StrFormat(">= %.0f%% of triad", 100 * row.w.target);
        met = gbps >= row.w.target * triad_gbps;
        break;
      }
      case Aim::kFractionOfSgemm:
        ceiling = absl::StrFormat("%.2fx sgemm (%.2f ms, %.0f GFLOP/s)", ceiling_ms / cpu_ms, ceiling_ms,
                                  row.flops / (ceiling_ms * 1e6));
        aim = absl::StrFormat(">= %.1fx sgemm", row.w.target);
        met = ceiling_ms / cpu_ms >= row.w.target;
        break;
    }
    met = met && row.cpu.check.empty();
    all_met = all_met && met;
    std::printf("| %s | %s | %s | %.2fx | %s | %s | %s |\n", row.w.name.c_str(), Spread(row.cpu.execute).c_str(),
                Spread(row.cpu.numpy).c_str(), speedup, ceiling.c_str(), aim.c_str(), met ? "yes" : "no");
  }
  std::printf("\n| workload | backend Compile cold ms | backend Compile again ms | server Compile miss ms | server cache hit ms |\n");
  std::printf("| --- | --- | --- | --- | --- |\n");
  for (const Row& row : rows) {
    std::printf("| %s | %s | %s | %s | %s |\n", row.w.name.c_str(), Ms(row.cpu.compile_cold_ms).c_str(),
                Ms(row.cpu.compile_again_ms).c_str(), Ms(row.cpu.server_miss_ms).c_str(),
                Ms(row.cpu.server_hit_ms).c_str());
  }
  std::printf("\nload average at end %s; all aims met: %s\n", LoadAverage().c_str(), all_met ? "yes" : "no");
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace xla

int main(int argc, char** argv) { return xla::bench::Main(argc, argv); }
