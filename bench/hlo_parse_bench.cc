// Parse + verify throughput of the HLO text front end.
//  - the largest .hlo file under ../shared/conformance (real XLA test data)
//  - a synthetic ~3 MB module (a long chain of typed ops with metadata), the size the
//    foundation issue asks to parse and verify "well under a second"
//  - printing the synthetic module back to text
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_printer.h"
#include "hlo/hlo_verifier.h"

namespace {

std::string SharedDir() {
  const char* env = std::getenv("XLA_SHARED_DIR");
  return env != nullptr ? env : "../shared";
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The largest .hlo under conformance/; with `must_verify`, the largest one that also
// passes the verifier (the largest files come from import tests that XLA's verifier
// rejects too, see tests/conformance_verify_test.cc).
std::filesystem::path LargestConformanceFile(bool must_verify) {
  std::filesystem::path best;
  uintmax_t best_size = 0;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(SharedDir() + "/conformance", ec)) {
    if (entry.path().extension() != ".hlo" || entry.file_size() <= best_size) continue;
    if (must_verify) {
      auto module = xla::ParseAndReturnUnverifiedModule(ReadAll(entry.path()));
      if (!module.ok() || !xla::VerifyHloModule(**module).ok()) continue;
    }
    best_size = entry.file_size();
    best = entry.path();
  }
  return best;
}

std::string SyntheticModule(size_t target_bytes) {
  std::string text =
      "HloModule synthetic, entry_computation_layout={(f32[16,16]{1,0})->f32[16,16]{1,0}}\n\n"
      "ENTRY %main (p0: f32[16,16]) -> f32[16,16] {\n"
      "  %p0 = f32[16,16]{1,0} parameter(0)\n"
      "  %v.0 = f32[16,16]{1,0} add(f32[16,16]{1,0} %p0, f32[16,16]{1,0} %p0)\n";
  int i = 1;
  while (text.size() < target_bytes) {
    const char* op = (i % 3 == 0) ? "multiply" : (i % 3 == 1) ? "add" : "maximum";
    absl::StrAppend(&text, "  %v.", i, " = f32[16,16]{1,0} ", op, "(f32[16,16]{1,0} %v.", i - 1,
                    ", f32[16,16]{1,0} %p0), metadata={op_type=\"", op,
                    "\" op_name=\"model/layer_", i, "/", op, "\" source_file=\"model.py\" source_line=",
                    i, "}\n");
    ++i;
  }
  absl::StrAppend(&text, "  ROOT %out = f32[16,16]{1,0} negate(f32[16,16]{1,0} %v.", i - 1, ")\n}\n");
  return text;
}

void ParseAndVerify(benchmark::State& state, const std::string& text) {
  for (auto _ : state) {
    auto module = xla::ParseAndReturnUnverifiedModule(text);
    if (!module.ok()) {
      state.SkipWithError(std::string(module.status().message()).c_str());
      return;
    }
    absl::Status verified = xla::VerifyHloModule(**module);
    if (!verified.ok()) {
      state.SkipWithError(std::string(verified.message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(module);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
  state.counters["bytes"] = static_cast<double>(text.size());
}

void BM_ParseLargestConformanceFile(benchmark::State& state) {
  static const std::filesystem::path path = LargestConformanceFile(/*must_verify=*/false);
  static const std::string text = ReadAll(path);
  state.SetLabel(path.filename().string());
  for (auto _ : state) {
    auto module = xla::ParseAndReturnUnverifiedModule(text);
    if (!module.ok()) {
      state.SkipWithError(std::string(module.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(module);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseLargestConformanceFile)->Unit(benchmark::kMicrosecond);

void BM_ParseVerifyLargestValidConformanceFile(benchmark::State& state) {
  static const std::filesystem::path path = LargestConformanceFile(/*must_verify=*/true);
  static const std::string text = ReadAll(path);
  state.SetLabel(path.filename().string());
  ParseAndVerify(state, text);
}
BENCHMARK(BM_ParseVerifyLargestValidConformanceFile)->Unit(benchmark::kMicrosecond);

void BM_ParseVerifySynthetic3MB(benchmark::State& state) {
  static const std::string text = SyntheticModule(3 << 20);
  ParseAndVerify(state, text);
}
BENCHMARK(BM_ParseVerifySynthetic3MB)->Unit(benchmark::kMillisecond);

void BM_PrintSynthetic3MB(benchmark::State& state) {
  static const std::string text = SyntheticModule(3 << 20);
  auto module = xla::ParseAndReturnUnverifiedModule(text);
  if (!module.ok()) {
    state.SkipWithError(std::string(module.status().message()).c_str());
    return;
  }
  size_t bytes = 0;
  for (auto _ : state) {
    std::string printed = xla::HloModuleToString(**module);
    bytes = printed.size();
    benchmark::DoNotOptimize(printed);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}
BENCHMARK(BM_PrintSynthetic3MB)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
