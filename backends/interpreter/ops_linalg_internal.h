#ifndef XLA_BACKENDS_INTERPRETER_OPS_LINALG_INTERNAL_H_
#define XLA_BACKENDS_INTERPRETER_OPS_LINALG_INTERNAL_H_

// Shared helpers of the linear-algebra handlers (dot, convolution, fft, cholesky,
// triangular-solve, batch-norm). Operands are read once into dense row-major vectors of a
// wide accumulation type (double, complex<double> or uint64_t wrapping integers), the math
// runs on those, and the result is rounded once into the instruction's element type.

#include <complex>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/interpreter/evaluator.h"
#include "hlo/literal.h"
#include "hlo/shape.h"

namespace xla {
namespace interpreter {
namespace linalg {

using Operands = absl::Span<const Literal* const>;
using Complex = std::complex<double>;

// How values of an element type are accumulated.
enum class AccumKind { kFloat, kComplex, kInt, kPred };
AccumKind AccumKindOf(PrimitiveType type);

// Calls fn(Accumulator{}) with the accumulator type of `type` (double, Complex, or uint64_t
// for integers and PRED) and returns what it returns: the one place that maps kinds to types.
template <typename Fn>
auto WithAccumulator(PrimitiveType type, Fn&& fn) {
  switch (AccumKindOf(type)) {
    case AccumKind::kFloat:
      return fn(double{});
    case AccumKind::kComplex:
      return fn(Complex{});
    case AccumKind::kInt:
    case AccumKind::kPred:
      break;
  }
  return fn(uint64_t{});
}

// Literal values in logical row-major order. Integers are read sign- or zero-extended and
// carried as uint64_t so that sums and products wrap like two's complement.
void ReadValues(const Literal& literal, std::vector<double>* out);
void ReadValues(const Literal& literal, std::vector<Complex>* out);
void ReadValues(const Literal& literal, std::vector<uint64_t>* out);

// A literal of `shape` (layout dropped: the evaluator relayouts) from row-major values,
// each rounded once to the element type (integers wrap; PRED is value != 0).
absl::StatusOr<Literal> WriteValues(const Shape& shape, const std::vector<double>& values);
absl::StatusOr<Literal> WriteValues(const Shape& shape, const std::vector<Complex>& values);
absl::StatusOr<Literal> WriteValues(const Shape& shape, const std::vector<uint64_t>& values);

// The literal converted to `type` with XLA's convert semantics (a clone when it already is).
absl::StatusOr<Literal> ConvertedTo(const Literal& literal, PrimitiveType type);

// Row-major strides of `dims`.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);
// Product of dims; -1 when it would overflow.
int64_t ElementCount(absl::Span<const int64_t> dims);

// Transposes row-major `src` with dims `dims` so that destination dim i is source dim
// perm[i]; returns the destination values (row-major).
template <typename T>
std::vector<T> Permute(const std::vector<T>& src, absl::Span<const int64_t> dims,
                       absl::Span<const int64_t> perm) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> dst_dims(rank);
  for (int64_t i = 0; i < rank; ++i) dst_dims[i] = dims[perm[i]];
  const std::vector<int64_t> dst_strides = RowMajorStrides(dst_dims);
  std::vector<int64_t> stride_of_src_dim(rank);
  for (int64_t i = 0; i < rank; ++i) stride_of_src_dim[perm[i]] = dst_strides[i];
  std::vector<T> dst(src.size());
  if (src.empty()) return dst;
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  for (size_t linear = 0; linear < src.size(); ++linear) {
    dst[offset] = src[linear];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < dims[d]) {
        offset += stride_of_src_dim[d];
        break;
      }
      offset -= (dims[d] - 1) * stride_of_src_dim[d];
      index[d] = 0;
    }
  }
  return dst;
}

// Checks that `dims` are distinct, in [0, rank).
absl::Status CheckDimensions(absl::Span<const int64_t> dims, int64_t rank, const char* what);

// Requires `count` array operands.
absl::Status CheckArrayOperands(Operands operands, size_t count);

// Family registration functions (one per file).
void RegisterDotHandlers(HandlerTable* table);
void RegisterConvolutionHandlers(HandlerTable* table);
void RegisterFftHandlers(HandlerTable* table);
void RegisterSolveHandlers(HandlerTable* table);
void RegisterBatchNormHandlers(HandlerTable* table);
void RegisterRaggedAndScaledDotHandlers(HandlerTable* table);  // ops_linalg_ragged.cc

}  // namespace linalg
}  // namespace interpreter
}  // namespace xla

#endif  // XLA_BACKENDS_INTERPRETER_OPS_LINALG_INTERNAL_H_
