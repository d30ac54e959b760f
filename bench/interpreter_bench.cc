// Reference interpreter throughput through the Backend interface (compile once, transfer
// the arguments once, time Execute only):
//  - a 512x512 f32 dot
//  - a convolution of a 1x64x64x32 NHWC input with 3x3x32x32 filters, SAME padding
//  - an elementwise chain (add, multiply, maximum, add) on 1M f32 elements
// An op the interpreter does not implement yet is reported as an error, not a crash.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "backends/backend.h"
#include "hlo/hlo_parser.h"
#include "hlo/literal.h"

namespace {

using xla::Literal;
using xla::Shape;

// Deterministic, non-trivial values in [-1, 1).
Literal Filled(const Shape& shape) {
  Literal literal = *Literal::Create(shape);
  uint32_t state = 12345;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    state = state * 1664525u + 1013904223u;
    literal.SetFromDouble(i, static_cast<double>(state >> 8) / (1 << 23) - 1.0);
  }
  return literal;
}

struct Prepared {
  std::unique_ptr<xla::backend::Backend> backend;
  std::unique_ptr<xla::backend::Executable> executable;
  std::vector<std::shared_ptr<xla::backend::Buffer>> arguments;
};

absl::StatusOr<Prepared> Prepare(const std::string& hlo, const std::vector<Shape>& parameter_shapes) {
  xla::backend::RegisterBuiltinBackends();
  Prepared p;
  auto module = xla::ParseAndReturnUnverifiedModule(hlo);
  if (!module.ok()) return module.status();
  auto backend = xla::backend::CreateBackend("interpreter");
  if (!backend.ok()) return backend.status();
  p.backend = *std::move(backend);
  auto executable = p.backend->Compile(*std::move(module), xla::backend::CompileOptions());
  if (!executable.ok()) return executable.status();
  p.executable = *std::move(executable);
  for (const Shape& shape : parameter_shapes) {
    auto buffer = p.backend->TransferToDevice(Filled(shape), 0);
    if (!buffer.ok()) return buffer.status();
    p.arguments.push_back(*std::move(buffer));
  }
  return p;
}

void RunExecutable(benchmark::State& state, const std::string& hlo, const std::vector<Shape>& shapes,
                   double flops_per_run) {
  auto prepared = Prepare(hlo, shapes);
  if (!prepared.ok()) {
    state.SkipWithError(std::string(prepared.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    auto result = prepared->executable->Execute(prepared->arguments, xla::backend::ExecuteOptions());
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  state.counters["FLOP/s"] =
      benchmark::Counter(flops_per_run, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Dot512(benchmark::State& state) {
  const char* hlo = R"(HloModule dot
ENTRY main {
  a = f32[512,512] parameter(0)
  b = f32[512,512] parameter(1)
  ROOT d = f32[512,512] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  const Shape s(xla::F32, {512, 512});
  RunExecutable(state, hlo, {s, s}, 2.0 * 512 * 512 * 512);
}
BENCHMARK(BM_Dot512)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Conv64x64x32(benchmark::State& state) {
  const char* hlo = R"(HloModule conv
ENTRY main {
  x = f32[1,64,64,32] parameter(0)
  k = f32[3,3,32,32] parameter(1)
  ROOT c = f32[1,64,64,32] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})";
  RunExecutable(state, hlo, {Shape(xla::F32, {1, 64, 64, 32}), Shape(xla::F32, {3, 3, 32, 32})},
                2.0 * 64 * 64 * 32 * 3 * 3 * 32);
}
BENCHMARK(BM_Conv64x64x32)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ElementwiseChain1M(benchmark::State& state) {
  const char* hlo = R"(HloModule chain
ENTRY main {
  a = f32[1048576] parameter(0)
  b = f32[1048576] parameter(1)
  s = f32[1048576] add(a, b)
  m = f32[1048576] multiply(s, a)
  x = f32[1048576] maximum(m, b)
  ROOT r = f32[1048576] add(x, s)
})";
  const Shape s(xla::F32, {1048576});
  RunExecutable(state, hlo, {s, s}, 4.0 * 1048576);
}
BENCHMARK(BM_ElementwiseChain1M)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
