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

struct Case {
  const char* name;
  const char* hlo;
  const char* check;  // "rtol atol"; or "bench" (timed against a copy of as many bytes) or
                      // "bench flops N" (timed, N floating-point operations), not compared
};

constexpr char kDefaultPrecisionDot[] = R"(HloModule dot_default
ENTRY main {
  a = f32[256,512] parameter(0)
  b = f32[512,256] parameter(1)
  ROOT d = f32[256,256] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";

bool WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  return static_cast<bool>(out);
}

// Compiles `hlo` for sm_90 and writes the case; false (with the reason on stderr) when the
// gpu backend cannot compile it.
bool AddCase(const std::filesystem::path& dir, const std::string& name, const std::string& hlo,
             const std::string& check, bool quiet) {
  absl::StatusOr<std::unique_ptr<xla::HloModule>> module = xla::ParseAndReturnUnverifiedModule(hlo);
  if (!module.ok()) {
    if (!quiet) std::cerr << name << ": " << module.status() << "\n";
    return false;
  }
  xla::gpu::GpuTarget target;  // sm_90: the H100/H200 the device machine has
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
  const std::string softmax = modules::SoftmaxModule(64, 128), softmax_wide = modules::SoftmaxModule(97, 5000),
                    softmax_bench = modules::SoftmaxModule(16384, 16384);
  const std::string mlp_small = modules::MlpModule(64, /*highest=*/true), mlp_bench = modules::MlpModule(4096);
  const std::string gelu_small = modules::GeluModule("1024,1000"), gelu_bench = modules::GeluModule("16384,16384");
  const std::string ops_f32 = modules::FloatOpsModule("f32", 65536), ops_f64 = modules::FloatOpsModule("f64", 65536),
                    ops_f16 = modules::FloatOpsModule("f16", 65536), ops_bf16 = modules::FloatOpsModule("bf16", 65536);
  const std::vector<Case> cases = {
      {"gelu_small", gelu_small.c_str(), "1e-6 1e-6"},
      {"softmax_64x128", softmax.c_str(), "1e-5 1e-7"},
      {"softmax_97x5000", softmax_wide.c_str(), "1e-5 1e-9"},
      {"row_and_column_reductions", modules::kReductionsModule, "1e-5 1e-6"},
      {"mixed_int_bf16_movement", modules::kMixedModule, "0 0"},
      {"f32_math", modules::kMathModule, "2e-6 1e-30"},
      {"integers", modules::kIntegersModule, "0 0"},
      // Every float elementwise op; the transcendental ones through libdevice (within a few
      // ulps of libm: 2-4 for f32, 1-3 for f64); f16 and bf16 round f32 results once, so they
      // may differ from the interpreter by one of their own ulps.
      {"float_ops_f32", ops_f32.c_str(), "4e-6 1e-7"},
      {"float_ops_f64", ops_f64.c_str(), "1e-13 1e-300"},
      {"float_ops_f16", ops_f16.c_str(), "2e-3 1e-4"},
      {"float_ops_bf16", ops_bf16.c_str(), "1.6e-2 1e-3"},
      // Control flow: the host loops and branches on a pred or index read back per step. The
      // first chains five x + sin(x) steps (each may double an ulp-level difference); the last
      // takes cos of exp(x) (up to e^2: its ulps are absolute errors of the cosine). A wrong
      // iteration count or branch is off by far more.
      {"while_counted_with_branches", modules::kWhileModule, "1e-4 1e-6"},
      {"while_until_small", modules::kDataDependentWhileModule, "0 0"},
      {"conditionals_index_and_pred", modules::kConditionalModule, "4e-6 2e-6"},
      {"contractions_windows_indexing", modules::kContractionsModule, "1e-5 1e-4"},
      {"mlp_forward_batch64", mlp_small.c_str(), "1e-3 1e-5"},
      // Sort and scatter move values without arithmetic (scatter's adds run in the
      // interpreter's order): exact.
      {"sort_keys_values_ties_descending", modules::kSortModule, "0 0"},
      {"sort_long_rows_stable", modules::kLongSortModule, "0 0"},
      {"scatter_duplicates_unique_out_of_bounds", modules::kScatterModule, "0 0"},
      {"select_and_scatter_variadic_scatter", modules::kSelectAndScatterModule, "0 0"},
      {"variadic_reduce_and_reduce_window", modules::kVariadicReduceModule, "0 0"},
      {"collectives_custom_call_tokens", modules::kCollectivesModule, "0 0"},
      // DEFAULT precision: cuBLAS may round the operands to TF32 (10-bit mantissas).
      {"dot_default_precision_tf32", kDefaultPrecisionDot, "1e-2 0.5"},
      {"gelu_256M", gelu_bench.c_str(), "bench"},
      {"softmax_16384x16384", softmax_bench.c_str(), "bench"},
      // Timed as FLOP rates: dots are a thread per output so far (no cuBLAS path yet).
      {"mlp_forward_batch4096", mlp_bench.c_str(), "bench flops 15360000000"},
      {"matmul_bf16_8192", modules::kMatmulBf16Module, "bench flops 1099511627776"},
  };
  for (const Case& c : cases) {
    if (AddCase(dir, c.name, c.hlo, c.check, /*quiet=*/false)) {
      ++curated;
    } else {
      ++failed;
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
      if (AddCase(dir, name, text.str(), "2e-6 1e-6", /*quiet=*/!verbose)) {
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
