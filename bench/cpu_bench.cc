// Issue 6's CPU backend benchmark: each workload (bench/cpu_bench_workloads.h) on the cpu
// backend, then the same work in NumPy (bench/cpu_bench_numpy.py under /usr/bin/python3) right
// after it, plus two ceilings measured in this process: memory bandwidth (a triad over reused
// buffers, all cores) and OpenBLAS cblas_sgemm on each workload's matrix products (for the
// 2048^2 matmul that is the sgemm ceiling; for the MLP, the floor of any backend that calls
// sgemm). Prints one table with the aims.
//
// Execute time is Executable::Execute only (arguments already in device buffers, result
// buffers from the backend's pool); medians of --runs runs (at least 10). Compile times: the
// backend's Compile of a module it has not seen (cold; LLVM already initialised, as in a
// running server), a second Compile of the same module (the backend keeps no cache), and,
// when the server core is linked in, ServiceCore::Compile's miss and its cache hit.
//
// Usage: cpu_bench [--runs=N] [--only=gelu,sum,...] [--no_numpy] [--python=/usr/bin/python3]
//                  [--numpy_script=PATH]
#include <cblas.h>

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
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "backends/backend.h"
#include "backends/cpu/cpu_backend.h"
#include "bench/cpu_bench_checks.h"
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

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

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

// --- ceilings ---

// c[i] = a[i] * b[i] + 1 over preallocated, already-touched arrays, one contiguous share per
// hardware thread. Counts 12 bytes per element (two reads, one write).
struct TriadResult {
  Stats ms;
  double gbps = 0;  // from the median
};

TriadResult MeasureTriad(int runs) {
  const int64_t n = int64_t{16} << 20;  // 3 x 64 MiB, far past the caches
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  auto alloc = [n] { return static_cast<float*>(std::aligned_alloc(64, n * sizeof(float))); };
  float* a = alloc();
  float* b = alloc();
  float* c = alloc();
  auto run_shares = [&](auto&& body) {
    std::vector<std::thread> pool;
    const int64_t share = (n + threads - 1) / threads;
    for (int t = 0; t < threads; ++t) {
      const int64_t begin = t * share, end = std::min(n, begin + share);
      pool.emplace_back([&body, begin, end] { body(begin, end); });
    }
    for (auto& t : pool) t.join();
  };
  run_shares([&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      a[i] = static_cast<float>(i % 7);
      b[i] = 0.5f;
      c[i] = 0;
    }
  });
  std::vector<double> ms;
  for (int r = 0; r < runs + 1; ++r) {
    const auto start = Clock::now();
    run_shares([a, b, c](int64_t begin, int64_t end) {
      float* __restrict out = c;
      const float* __restrict x = a;
      const float* __restrict y = b;
      for (int64_t i = begin; i < end; ++i) out[i] = x[i] * y[i] + 1.0f;
    });
    if (r > 0) ms.push_back(MsSince(start));  // the first run warms the threads and TLB
  }
  volatile float sink = c[n / 2];
  (void)sink;
  std::free(a);
  std::free(b);
  std::free(c);
  TriadResult result;
  result.ms = Summarize(ms);
  result.gbps = 12.0 * n / (result.ms.median * 1e6);
  return result;
}

// The workload's matrix products through cblas_sgemm, back to back, on preallocated operands.
Stats MeasureGemms(const std::vector<GemmShape>& shapes, int runs) {
  struct Operands {
    std::vector<float> a, b, c;
  };
  std::vector<Operands> operands;
  for (const GemmShape& s : shapes) {
    Operands o{std::vector<float>(s.m * s.k), std::vector<float>(s.k * s.n), std::vector<float>(s.m * s.n)};
    for (size_t i = 0; i < o.a.size(); ++i) o.a[i] = static_cast<float>((i * 7) % 13) / 13.0f - 0.5f;
    for (size_t i = 0; i < o.b.size(); ++i) o.b[i] = static_cast<float>((i * 5) % 11) / 11.0f - 0.5f;
    operands.push_back(std::move(o));
  }
  std::vector<double> ms;
  for (int r = 0; r < runs + 1; ++r) {
    const auto start = Clock::now();
    for (size_t i = 0; i < shapes.size(); ++i) {
      const int m = static_cast<int>(shapes[i].m), n = static_cast<int>(shapes[i].n), k = static_cast<int>(shapes[i].k);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, operands[i].a.data(), k,
                  operands[i].b.data(), n, 0.0f, operands[i].c.data(), n);
    }
    if (r > 0) ms.push_back(MsSince(start));
  }
  return Summarize(ms);
}

double Flops(const std::vector<GemmShape>& shapes) {
  double flops = 0;
  for (const GemmShape& s : shapes) flops += 2.0 * s.m * s.n * s.k;
  return flops;
}

// --- the cpu backend ---

struct CpuResult {
  Stats execute;
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

absl::StatusOr<CpuResult> RunCpu(backend::Backend& backend, const Workload& w, int runs) {
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
  std::vector<double> ms;
  const double cpu_start = ProcessCpuMs();
  for (int r = 0; r < runs; ++r) {
    const auto start = Clock::now();
    ASSIGN_OR_RETURN(auto out, executable->Execute(arguments, backend::ExecuteOptions()));
    ms.push_back(MsSince(start));
  }
  result.cpu_ms_per_run = (ProcessCpuMs() - cpu_start) / runs;
  result.execute = Summarize(ms);
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

absl::StatusOr<Stats> RunNumpy(const Flags& flags, const std::string& name) {
  const std::string command = absl::StrCat(flags.python, " ", flags.numpy_script, " ", name, " ", flags.runs);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return absl::InternalError(absl::StrCat("cannot run ", command));
  std::string output;
  char chunk[256];
  while (fgets(chunk, sizeof(chunk), pipe) != nullptr) output += chunk;
  const int rc = pclose(pipe);
  std::vector<std::string> fields = absl::StrSplit(output, absl::ByAnyChar(" \n"), absl::SkipEmpty());
  Stats s;
  if (rc != 0 || fields.size() != 4 || fields[0] != name || !absl::SimpleAtod(fields[1], &s.median) ||
      !absl::SimpleAtod(fields[2], &s.min) || !absl::SimpleAtod(fields[3], &s.max)) {
    return absl::InternalError(absl::StrCat(command, " failed (exit ", rc, "): ", output));
  }
  return s;
}

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
  const TriadResult triad_before = MeasureTriad(flags.runs);
  std::printf("triad (c = a*b + 1, 3 x 64 MiB reused, %u threads): %.1f GB/s, %s ms\n",
              std::thread::hardware_concurrency(), triad_before.gbps, Spread(triad_before.ms).c_str());

  struct Row {
    Workload w;
    CpuResult cpu;
    Stats numpy;
    Stats gemms;  // cblas_sgemm alone on the workload's products (when it has some)
  };
  std::vector<Row> rows;
  for (Workload& w : IssueWorkloads()) {
    if (!flags.only.empty() && std::find(flags.only.begin(), flags.only.end(), w.name) == flags.only.end()) continue;
    auto cpu = RunCpu(**backend, w, flags.runs);
    if (!cpu.ok()) {
      std::printf("%s: cpu backend failed: %s\n", w.name.c_str(), std::string(cpu.status().message()).c_str());
      continue;
    }
    Row row{w, *cpu, Stats(), Stats()};
    if (!w.gemms.empty()) {
      row.gemms = MeasureGemms(w.gemms, flags.runs);
      std::printf("  %-8s OpenBLAS cblas_sgemm alone on its products: %s ms (%.0f GFLOP/s)\n", w.name.c_str(),
                  Spread(row.gemms).c_str(), Flops(w.gemms) / (row.gemms.median * 1e6));
    }
    if (flags.numpy) {
      auto numpy = RunNumpy(flags, w.name);
      if (numpy.ok()) {
        row.numpy = *numpy;
      } else {
        std::printf("%s: %s\n", w.name.c_str(), std::string(numpy.status().message()).c_str());
      }
    }
    std::printf("  %-8s cpu %s ms (%.2f ms of CPU time per run), numpy %s ms%s\n", w.name.c_str(),
                Spread(row.cpu.execute).c_str(), row.cpu.cpu_ms_per_run, Spread(row.numpy).c_str(),
                row.cpu.check.empty() ? "" : (" CHECK FAILED: " + row.cpu.check).c_str());
    std::fflush(stdout);
    rows.push_back(std::move(row));
  }
  const TriadResult triad_after = MeasureTriad(flags.runs);
  // The ceiling is the better of the two triads (load from other users only lowers it).
  const double triad_gbps = std::max(triad_before.gbps, triad_after.gbps);
  std::printf("triad again: %.1f GB/s; ceiling used: %.1f GB/s\n", triad_after.gbps, triad_gbps);

  std::printf("\n| workload | cpu median ms (min-max) | NumPy median ms (min-max) | cpu vs NumPy | vs ceiling | aim | met? |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
  bool all_met = true;
  for (const Row& row : rows) {
    const double cpu_ms = row.cpu.execute.median;
    const double speedup = row.numpy.median / cpu_ms;
    std::string ceiling = "-", aim;
    bool met = false;
    switch (row.w.aim) {
      case Aim::kSpeedupOverNumpy:
        aim = absl::StrFormat(">= %.1fx NumPy", row.w.target);
        met = speedup >= row.w.target;
        if (!row.w.gemms.empty()) {
          // No backend that calls the same sgemm can beat NumPy by more than this.
          ceiling = absl::StrFormat("sgemm alone %.2f ms: cpu at %.2fx of it; NumPy/sgemm-alone %.2fx",
                                    row.gemms.median, cpu_ms / row.gemms.median, row.numpy.median / row.gemms.median);
        }
        break;
      case Aim::kFractionOfTriad: {
        const double gbps = row.w.bytes_read / (cpu_ms * 1e6);
        ceiling = absl::StrFormat("%.1f GB/s = %.0f%% of triad %.1f", gbps, 100 * gbps / triad_gbps, triad_gbps);
        aim = absl::StrFormat(">= %.0f%% of triad", 100 * row.w.target);
        met = gbps >= row.w.target * triad_gbps;
        break;
      }
      case Aim::kFractionOfSgemm:
        ceiling = absl::StrFormat("%.2fx sgemm (%.2f ms)", row.gemms.median / cpu_ms, row.gemms.median);
        aim = absl::StrFormat(">= %.1fx sgemm", row.w.target);
        met = row.gemms.median / cpu_ms >= row.w.target;
        break;
    }
    met = met && row.cpu.check.empty();
    all_met = all_met && met;
    std::printf("| %s | %s | %s | %.2fx | %s | %s | %s |\n", row.w.name.c_str(), Spread(row.cpu.execute).c_str(),
                Spread(row.numpy).c_str(), speedup, ceiling.c_str(), aim.c_str(), met ? "yes" : "no");
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
