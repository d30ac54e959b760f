// Compiles the gpu device check's modules here (LLVM), for a GPU machine that has no LLVM:
//   gpu_bundle OUT_DIR [CONFORMANCE_DIR]
// writes OUT_DIR/cases/<name>.gpuexe (a serialized gpu executable for sm_90), <name>.hlo (the
// module as given, for the interpreter on the GPU machine) and <name>.check ("rtol atol" or
// "bench"), for the curated modules below and every conformance module the gpu backend
// compiles. gpu_check_runner runs them there (tests/gpu/device_check.sh).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/testing/gpu_test_modules.h"
#include "hlo/hlo_parser.h"

namespace {

namespace modules = xla::gpu::testing;

bool WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  return static_cast<bool>(out);
}

// Compiles `hlo` for sm_90 and writes the case; false (with the reason on stderr) when the
// gpu backend cannot compile it.
bool AddCase(const std::filesystem::path& dir, const std::string& name, const std::string& hlo,
             const std::string& check, bool quiet, const xla::gpu::GpuTarget& target = {}) {
  absl::StatusOr<std::unique_ptr<xla::HloModule>> module = xla::ParseAndReturnUnverifiedModule(hlo);
  if (!module.ok()) {
    if (!quiet) std::cerr << name << ": " << module.status() << "\n";
    return false;
  }
  // target: sm_90, the H100/H200 the device machine has
  absl::StatusOr<xla::gpu::GpuPlan> plan = xla::gpu::CompileGpuPlan(*std::move(module), target);
  if (!plan.ok()) {
    if (!quiet) std::cerr << name << ": " << plan.status() << "\n";
    return false;
  }
  absl::StatusOr<std::string> bytes = xla::gpu::SerializeGpuPlan(*plan);
  if (!bytes.ok()) {
    std::cerr << name << ": " << bytes.status() << "\n";
    return false;
  }
  return WriteFile(dir / (name + ".gpuexe"), *bytes) &&
         WriteFile(dir / (name + ".hlo"), hlo) && WriteFile(dir / (name + ".check"), check + "\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: gpu_bundle OUT_DIR [CONFORMANCE_DIR]\n";
    return 2;
  }
  const std::filesystem::path dir = std::filesystem::path(argv[1]) / "cases";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  int curated = 0, failed = 0;
  for (const modules::CuratedCase& c : modules::CuratedCases()) {
    if (AddCase(dir, c.name, c.hlo, c.check, /*quiet=*/false)) {
      ++curated;
    } else {
      ++failed;
    }
  }
  // The benchmarks again with other tuning (GpuTarget), timed side by side with the defaults:
  // GELU with a thread per element or chunks of 2 or 8 instead of 4; softmax looping over its
  // rows in each pass (with and without the L2 cap) instead of keeping them in registers, or
  // with chunks of 2 or 8, or told to fit 3 blocks per multiprocessor; transposes as a thread
  // per element instead of through shared-memory tiles.
  struct Variant {
    const char* model;
    const char* suffix;
    xla::gpu::GpuTarget target;
  };
  auto target = [](int per_thread, bool resident, int64_t l2, int min_blocks, bool tiled = true) {
    xla::gpu::GpuTarget t;
    t.tiled_transposes = tiled;
    t.elements_per_thread = per_thread;
    t.resident_rows = resident;
    t.row_l2_budget = l2;
    t.row_min_blocks_per_sm = min_blocks;
    return t;
  };
  const int64_t l2 = xla::gpu::GpuTarget().row_l2_budget;
  const Variant variants[] = {{"gelu_256M", "_1_per_thread", target(1, true, l2, 0)},
                              {"gelu_256M", "_2_per_thread", target(2, true, l2, 0)},
                              {"gelu_256M", "_8_per_thread", target(8, true, l2, 0)},
                              {"softmax_16384x16384", "_loop", target(0, false, l2, 0)},
                              {"softmax_16384x16384", "_loop_no_cap", target(0, false, 0, 0)},
                              {"softmax_16384x16384", "_2_per_thread", target(2, true, l2, 0)},
                              {"softmax_16384x16384", "_8_per_thread", target(8, true, l2, 0)},
                              {"softmax_16384x16384", "_3_blocks_per_sm", target(0, true, l2, 3)},
                              {"transpose_8192x8192", "_untiled", target(0, true, l2, 0, false)},
                              {"key_transpose_bf16", "_untiled", target(0, true, l2, 0, false)}};
  for (const modules::CuratedCase& c : modules::CuratedCases()) {
    for (const Variant& v : variants) {
      if (c.name != v.model) continue;
      if (AddCase(dir, c.name + v.suffix, c.hlo, c.check, /*quiet=*/false, v.target)) {
        ++curated;
      } else {
        ++failed;
      }
    }
  }
  int conformance = 0, skipped = 0;
  if (argc == 3) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[2])) {
      if (entry.path().extension() != ".hlo") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string name = "conformance_" + entry.path().stem().string();
      // $GPU_BUNDLE_VERBOSE=1: say why each skipped conformance module does not compile.
      const bool verbose = std::getenv("GPU_BUNDLE_VERBOSE") != nullptr;
      // atol 1e-5: reductions of a few hundred seeded values in [-2, 2) reassociate on the
      // device (a result near zero keeps the terms' absolute rounding, ~1e-6 per 256 terms).
      // A dot or convolution at DEFAULT precision may run on cuBLAS with TF32 (a 10-bit
      // mantissa; convolutions become GEMMs, gpu_conv_gemm.h): the curated TF32 case's
      // tolerance then, as the cpu backend's suites allow nothing of the kind.
      const std::string hlo = text.str();
      const bool contracts = hlo.find(" dot(") != std::string::npos || hlo.find(" convolution(") != std::string::npos;
      const bool tf32 = contracts && hlo.find("operand_precision={highest") == std::string::npos;
      if (AddCase(dir, name, hlo, tf32 ? "1e-2 0.5" : "2e-6 1e-5", /*quiet=*/!verbose)) {
        ++conformance;
      } else {
        ++skipped;
      }
    }
  }
  std::cout << "gpu_bundle: " << curated << " curated cases (" << failed << " failed to compile), " << conformance
            << " conformance modules (" << skipped
            << " left out: several devices, host channels, unknown custom-calls or invalid modules; "
               "GPU_BUNDLE_VERBOSE=1 says which) in "
            << dir << "\n";
  return failed == 0 ? 0 : 1;
}
