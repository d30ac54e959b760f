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
  // a thread per element or chunks of 2 or 8 instead of 4, row kernels with every row in
  // flight or with another L2 budget.
  struct Variant {
    const char* suffix;
    int elements_per_thread;
    int64_t row_l2_budget;
  };
  const Variant variants[] = {{"_1_per_thread_no_cap", 1, 0},
                              {"_no_cap", 0, 0},
                              {"_l2_36MiB", 0, int64_t{36} << 20},
                              {"_8_per_thread", 8, int64_t{48} << 20},
                              {"_2_per_thread", 2, int64_t{48} << 20}};
  for (const modules::CuratedCase& c : modules::CuratedCases()) {
    if (c.name != "gelu_256M" && c.name != "softmax_16384x16384") continue;
    for (const Variant& v : variants) {
      // No rows: the cap changes nothing, and "_no_cap" is the default.
      if (c.name == "gelu_256M" && (v.elements_per_thread == 0 || (v.row_l2_budget != 0 && v.elements_per_thread != 8))) {
        continue;
      }
      xla::gpu::GpuTarget target;
      target.elements_per_thread = v.elements_per_thread;
      target.row_l2_budget = v.row_l2_budget;
      if (AddCase(dir, c.name + v.suffix, c.hlo, c.check, /*quiet=*/false, target)) {
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
            << " conformance modules (" << skipped << " use ops the gpu backend lacks) in " << dir << "\n";
  return failed == 0 ? 0 : 1;
}
