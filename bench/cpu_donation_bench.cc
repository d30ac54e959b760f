// Issue 6, donation: one row written into a 64 MiB cache (f32[4096,4096]) whose result
// aliases the cache (input_output_alias), as a KV cache or an optimizer state is updated
// step after step. Donated, the cpu backend writes the row into the caller's buffer; not
// donated, every step produces a fresh 64 MiB result. The reference is a plain memcpy of the
// cache, the least a copying update costs.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "hlo/hlo_parser.h"
#include "hlo/shape_util.h"

namespace xla {
namespace {

constexpr int64_t kRows = 4096, kColumns = 4096;

constexpr char kUpdate[] = R"(HloModule update, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  cache = f32[4096,4096] parameter(0)
  row = f32[1,4096] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT d = f32[4096,4096] dynamic-update-slice(cache, row, i, z)
})";

struct Setup {
  std::unique_ptr<backend::Backend> backend = cpu::CreateCpuBackend();
  std::unique_ptr<backend::Executable> executable;
  std::vector<std::shared_ptr<backend::Buffer>> arguments;

  Setup() {
    auto module = ParseAndReturnUnverifiedModule(kUpdate);
    executable = *backend->Compile(*std::move(module), backend::CompileOptions());
    auto cache = Literal::Create(ShapeUtil::MakeShape(F32, {kRows, kColumns}));
    auto row = Literal::Create(ShapeUtil::MakeShape(F32, {1, kColumns}));
    arguments.push_back(*backend->TransferToDevice(*cache, 0));
    arguments.push_back(*backend->TransferToDevice(*row, 0));
    arguments.push_back(*backend->TransferToDevice(Literal::CreateR0<int32_t>(7), 0));
  }
};

void BM_CacheRowUpdateDonated(benchmark::State& state) {
  Setup s;
  backend::ExecuteOptions options;
  options.donated_arguments = {0};
  for (auto _ : state) {
    auto result = s.executable->Execute(s.arguments, options);
    if (!result.ok()) state.SkipWithError(std::string(result.status().message()).c_str());
    s.arguments[0] = *std::move(result);  // the next step donates this result
  }
}
BENCHMARK(BM_CacheRowUpdateDonated)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_CacheRowUpdateNotDonated(benchmark::State& state) {
  Setup s;
  for (auto _ : state) {
    auto result = s.executable->Execute(s.arguments, backend::ExecuteOptions());
    if (!result.ok()) state.SkipWithError(std::string(result.status().message()).c_str());
    s.arguments[0] = *std::move(result);
  }
}
BENCHMARK(BM_CacheRowUpdateNotDonated)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_CacheMemcpyReference(benchmark::State& state) {
  std::vector<float> from(kRows * kColumns, 1.0f), to(kRows * kColumns);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), from.size() * sizeof(float));
    benchmark::DoNotOptimize(to.data());
  }
}
BENCHMARK(BM_CacheMemcpyReference)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace xla

BENCHMARK_MAIN();
