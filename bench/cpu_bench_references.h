#ifndef XLA_BENCH_CPU_BENCH_REFERENCES_H_
#define XLA_BENCH_CPU_BENCH_REFERENCES_H_

// What cpu_bench measures the cpu backend against, one run at a time so that the runs can
// alternate with the backend's (the machine is shared: load drifts within seconds, and
// alternating exposes both sides to the same drift):
//  - NumpyPeer: a /usr/bin/python3 process running bench/cpu_bench_numpy.py --serve, which
//    times one NumPy run per request;
//  - Triad: c = a*b + 1 over three preallocated 64 MiB arrays, one share per hardware thread
//    (the memory bandwidth ceiling, 12 bytes per element);
//  - Gemms: cblas_sgemm on a workload's matrix products, back to back.

#include <cblas.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "bench/cpu_bench_workloads.h"

namespace xla {
namespace bench {

using BenchClock = std::chrono::steady_clock;

inline double MsSince(BenchClock::time_point start) {
  return std::chrono::duration<double, std::milli>(BenchClock::now() - start).count();
}

class NumpyPeer {
 public:
  static absl::StatusOr<std::unique_ptr<NumpyPeer>> Start(const std::string& python, const std::string& script) {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) return absl::InternalError("pipe failed");
    const pid_t pid = fork();
    if (pid < 0) return absl::InternalError("fork failed");
    if (pid == 0) {
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      close(to_child[1]);
      close(from_child[0]);
      execl(python.c_str(), python.c_str(), script.c_str(), "--serve", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    auto peer = std::unique_ptr<NumpyPeer>(new NumpyPeer(pid, fdopen(to_child[1], "w"), fdopen(from_child[0], "r")));
    auto hello = peer->Request("hello");
    if (!hello.ok()) return hello.status();
    return peer;
  }

  ~NumpyPeer() {
    std::fputs("quit\n", to_);
    std::fclose(to_);
    std::fclose(from_);
    int status = 0;
    waitpid(pid_, &status, 0);
  }

  // Builds the workload's inputs in NumPy (and runs it once).
  absl::Status Setup(const std::string& workload) { return Request("setup " + workload).status(); }

  // One timed run of the workload set up last, in ms (timed inside Python).
  absl::StatusOr<double> RunOnce() {
    absl::StatusOr<std::string> reply = Request("run");
    if (!reply.ok()) return reply.status();
    double ms = 0;
    if (!absl::SimpleAtod(*reply, &ms)) return absl::InternalError(absl::StrCat("bad reply from NumPy: ", *reply));
    return ms;
  }

 private:
  NumpyPeer(pid_t pid, FILE* to, FILE* from) : pid_(pid), to_(to), from_(from) {}

  absl::StatusOr<std::string> Request(const std::string& line) {
    std::fprintf(to_, "%s\n", line.c_str());
    std::fflush(to_);
    char buffer[512];
    if (std::fgets(buffer, sizeof(buffer), from_) == nullptr) {
      return absl::InternalError(absl::StrCat("the NumPy process ended (request: ", line, ")"));
    }
    std::string reply(absl::StripTrailingAsciiWhitespace(buffer));
    if (absl::StartsWith(reply, "error")) return absl::InternalError(absl::StrCat("NumPy: ", reply));
    return reply;
  }

  pid_t pid_;
  FILE* to_;
  FILE* from_;
};

class Triad {
 public:
  static constexpr int64_t kElements = int64_t{16} << 20;  // 3 x 64 MiB, far past the caches

  Triad() : threads_(std::max(1u, std::thread::hardware_concurrency())) {
    for (float** p : {&a_, &b_, &c_}) *p = static_cast<float*>(std::aligned_alloc(64, kElements * sizeof(float)));
    // Each thread first touches its own share.
    Shares([this](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        a_[i] = static_cast<float>(i % 7);
        b_[i] = 0.5f;
        c_[i] = 0;
      }
    });
  }
  ~Triad() {
    for (float* p : {a_, b_, c_}) std::free(p);
  }
  Triad(const Triad&) = delete;
  Triad& operator=(const Triad&) = delete;

  int threads() const { return threads_; }
  static double Bytes() { return 12.0 * kElements; }

  // One pass; returns ms.
  double RunOnce() {
    const auto start = BenchClock::now();
    Shares([this](int64_t begin, int64_t end) {
      float* __restrict out = c_;
      const float* __restrict x = a_;
      const float* __restrict y = b_;
      for (int64_t i = begin; i < end; ++i) out[i] = x[i] * y[i] + 1.0f;
    });
    return MsSince(start);
  }

 private:
  template <typename F>
  void Shares(F&& body) {
    std::vector<std::thread> pool;
    const int64_t share = (kElements + threads_ - 1) / threads_;
    for (int t = 0; t < threads_; ++t) {
      const int64_t begin = t * share, end = std::min(kElements, begin + share);
      pool.emplace_back([&body, begin, end] { body(begin, end); });
    }
    for (auto& t : pool) t.join();
  }

  const int threads_;
  float* a_ = nullptr;
  float* b_ = nullptr;
  float* c_ = nullptr;
};

class Gemms {
 public:
  explicit Gemms(std::vector<GemmShape> shapes) : shapes_(std::move(shapes)) {
    for (const GemmShape& s : shapes_) {
      Operands o{std::vector<float>(s.m * s.k), std::vector<float>(s.k * s.n), std::vector<float>(s.m * s.n)};
      for (size_t i = 0; i < o.a.size(); ++i) o.a[i] = static_cast<float>((i * 7) % 13) / 13.0f - 0.5f;
      for (size_t i = 0; i < o.b.size(); ++i) o.b[i] = static_cast<float>((i * 5) % 11) / 11.0f - 0.5f;
      operands_.push_back(std::move(o));
    }
  }

  double Flops() const {
    double flops = 0;
    for (const GemmShape& s : shapes_) flops += 2.0 * s.m * s.n * s.k;
    return flops;
  }

  // Every product once; returns ms.
  double RunOnce() {
    const auto start = BenchClock::now();
    for (size_t i = 0; i < shapes_.size(); ++i) {
      const int m = static_cast<int>(shapes_[i].m), n = static_cast<int>(shapes_[i].n);
      const int k = static_cast<int>(shapes_[i].k);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, operands_[i].a.data(), k,
                  operands_[i].b.data(), n, 0.0f, operands_[i].c.data(), n);
    }
    return MsSince(start);
  }

 private:
  struct Operands {
    std::vector<float> a, b, c;
  };
  std::vector<GemmShape> shapes_;
  std::vector<Operands> operands_;
};

}  // namespace bench
}  // namespace xla

#endif  // XLA_BENCH_CPU_BENCH_REFERENCES_H_
