// Issue 6, donation: one row written into a 64 MiB cache (f32[4096,4096]) whose result
// aliases the cache (input_output_alias), as a KV cache or an optimizer state is updated
// step after step. Donated, the cpu backend writes the row into the caller's buffer; not
// donated, every step produces a fresh 64 MiB result. The reference is a plain memcpy of the
// cache, the least a copying update costs. Also a while loop updating a cache in its state.
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

// A decoding loop on the server side: 64 iterations of a while, each writing one row of a
// 16 MiB cache carried in the loop state (f32[4096,1024]). The body's update goes into the
// state in place; before, each iteration copied the cache twice (update, then back into the
// state). Reference: two memcpys of the cache per iteration, what the copies cost.
constexpr char kDecodeLoop[] = R"(HloModule decode
cond {
  s = (s32[], f32[4096,1024], f32[1,1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(64)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4096,1024], f32[1,1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  cache = f32[4096,1024] get-tuple-element(s), index=1
  x = f32[1,1024] get-tuple-element(s), index=2
  z = s32[] constant(0)
  d = f32[4096,1024] dynamic-update-slice(cache, x, i, z)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  x2 = f32[1,1024] exponential(x)
  ROOT t = (s32[], f32[4096,1024], f32[1,1024]) tuple(i2, d, x2)
}
ENTRY e {
  cache = f32[4096,1024] parameter(0)
  x = f32[1,1024] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[4096,1024], f32[1,1024]) tuple(z, cache, x)
  ROOT w = (s32[], f32[4096,1024], f32[1,1024]) while(init), condition=cond, body=body
})";

void BM_DecodeLoop64Rows(benchmark::State& state) {
  auto backend = cpu::CreateCpuBackend();
  auto module = ParseAndReturnUnverifiedModule(kDecodeLoop);
  auto executable = *backend->Compile(*std::move(module), backend::CompileOptions());
  std::vector<std::shared_ptr<backend::Buffer>> arguments;
  arguments.push_back(*backend->TransferToDevice(*Literal::Create(ShapeUtil::MakeShape(F32, {4096, 1024})), 0));
  arguments.push_back(*backend->TransferToDevice(*Literal::Create(ShapeUtil::MakeShape(F32, {1, 1024})), 0));
  for (auto _ : state) {
    auto result = executable->Execute(arguments, backend::ExecuteOptions());
    if (!result.ok()) state.SkipWithError(std::string(result.status().message()).c_str());
  }
}
BENCHMARK(BM_DecodeLoop64Rows)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_DecodeLoopCopiesReference(benchmark::State& state) {
  std::vector<float> a(4096 * 1024, 1.0f), b(4096 * 1024);
  for (auto _ : state) {
    for (int i = 0; i < 64; ++i) {
      std::memcpy(b.data(), a.data(), a.size() * sizeof(float));
      std::memcpy(a.data(), b.data(), a.size() * sizeof(float));
    }
    benchmark::DoNotOptimize(a.data());
  }
}
BENCHMARK(BM_DecodeLoopCopiesReference)->Unit(benchmark::kMicrosecond)->UseRealTime();

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
