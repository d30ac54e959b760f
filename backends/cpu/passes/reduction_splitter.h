#ifndef XLA_BACKENDS_CPU_PASSES_REDUCTION_SPLITTER_H_
#define XLA_BACKENDS_CPU_PASSES_REDUCTION_SPLITTER_H_

#include <cstdint>

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

// Splits a large reduction to a scalar into partial reductions of contiguous chunks and a
// reduction of the partials (XLA's tree reduction rewrite):
//   reduce(x[K]) -> reduce(reduce(reshape(x)[T, K/T], dims={1})[T], dims={0})
// A kernel runs its output elements in parallel and a scalar has one, so the whole input
// would be read by one thread; the partials split it across the runtime's threads.
// Only for reducers whose reordering changes nothing but float rounding (add, multiply,
// maximum, minimum of the two parameters) with an init value that is the reducer's identity,
// since the init is then applied T + 1 times. Inputs must be row-major (run it after layout
// assignment) and have at least kMinElements elements and a divisor T in a useful range.
class ReductionSplitter : public HloPass {
 public:
  static constexpr int64_t kMinElements = int64_t{1} << 20;

  // T is the first divisor from `min_chunks` up (to 16 times it), else the largest below
  // it down to 8: 64 suits a few cpu threads; a GPU wants a block per chunk, some thousand.
  explicit ReductionSplitter(int64_t min_chunks = 64) : min_chunks_(min_chunks) {}

  std::string_view name() const override { return "reduction-splitter"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  const int64_t min_chunks_;
};

// Splits a reduction with few outputs and many inputs per output, which a kernel running a
// thread per output computes on few threads (a column sum of x[N, 8], batch-norm statistics
// of x[N, H, W, C] over N, H, W). Adjacent reduced dimensions are merged (a reshape), then
// the outermost reduced one, of size S, is split into [T, S/T]: the partial reduction keeps
// T as a dimension (T times the outputs, each over S/T as many inputs, reading memory as the
// original did) and a second reduction combines the T partials:
//   reduce(x[N*H*W, C], dims={0}) -> reduce(reduce(x[T, N*H*W/T, C], dims={1}), dims={0})
// T is the first divisor of S giving `min_outputs` partial outputs, else the largest that
// leaves S/T >= 16. Same reducers and identity condition as ReductionSplitter; reductions
// to a scalar are left to it, and reductions that already have `min_outputs` outputs or
// fewer than 1024 inputs per output (the combining reduction's usually).
//
// With `min_rows` > 0, a reduction over its innermost dimensions only (x[K, S] over S) makes
// its partials rows instead: x[K*T, S/T] reduced along dimension 1 (a row reduction, which a
// GPU runs a block per row, reading each row's contiguous memory together), T giving
// `min_rows` rows of at least 256 inputs each; one with `min_rows` rows already is left as is.
class FewOutputReductionSplitter : public HloPass {
 public:
  explicit FewOutputReductionSplitter(int64_t min_outputs, int64_t min_rows = 0)
      : min_outputs_(min_outputs), min_rows_(min_rows) {}

  std::string_view name() const override { return "few-output-reduction-splitter"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  const int64_t min_outputs_;
  const int64_t min_rows_;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_REDUCTION_SPLITTER_H_
