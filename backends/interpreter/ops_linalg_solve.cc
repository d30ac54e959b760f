// cholesky and triangular-solve on batches of matrices (the last two dimensions), computed
// in double / complex<double> and rounded once.
//  - cholesky reads only the triangle named by `lower`; the result holds the factor in that
//    triangle and zeros in the other. A matrix that is not (numerically) positive definite
//    gives an all-NaN factor, as JAX documents for XLA's cholesky.
//  - triangular-solve reads only the triangle named by `lower` (and not the diagonal when
//    unit_diagonal); transpose_a is NO_TRANSPOSE, TRANSPOSE or ADJOINT. Zero pivots give
//    IEEE inf/NaN.
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/interpreter/evaluator.h"
#include "backends/interpreter/ops_linalg_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace linalg {
namespace {

double Conj(double v) { return v; }
Complex Conj(const Complex& v) { return std::conj(v); }
double RealPart(double v) { return v; }
double RealPart(const Complex& v) { return v.real(); }
template <typename T> T NaNValue();
template <> double NaNValue<double>() { return std::numeric_limits<double>::quiet_NaN(); }
template <> Complex NaNValue<Complex>() {
  return Complex(std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN());
}

absl::Status CheckFloatingType(PrimitiveType type, const char* op) {
  if (primitive_util::IsFloatingPointType(type) || primitive_util::IsComplexType(type)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(op, " needs a floating-point or complex operand"));
}

// Lower Cholesky factor of the n x n Hermitian matrix whose lower triangle is lower(i, j),
// written into `out` (row-major); false when a pivot is not positive. Polls cancellation
// between columns.
template <typename T, typename Get>
absl::StatusOr<bool> CholeskyLower(const Evaluator* evaluator, CancelPoll& poll, int64_t n, Get lower, T* out) {
  for (int64_t j = 0; j < n; ++j) {
    RETURN_IF_ERROR(poll.Done(evaluator, (n - j) * (j + 1)));
    double d = RealPart(lower(j, j));
    for (int64_t k = 0; k < j; ++k) d -= RealPart(out[j * n + k] * Conj(out[j * n + k]));
    if (!(d > 0)) return false;
    const double pivot = std::sqrt(d);
    out[j * n + j] = T(pivot);
    for (int64_t i = j + 1; i < n; ++i) {
      T s = lower(i, j);
      for (int64_t k = 0; k < j; ++k) s -= out[i * n + k] * Conj(out[j * n + k]);
      out[i * n + j] = s / pivot;
    }
  }
  return true;
}

template <typename T>
absl::StatusOr<Literal> RunCholesky(const Evaluator* evaluator, const Literal& a, const Shape& out_shape,
                                    bool lower) {
  std::vector<T> values;
  ReadValues(a, &values);
  const int64_t rank = a.shape().rank();
  const int64_t n = a.shape().dimensions(rank - 1);
  const int64_t matrix = n * n;
  const int64_t batches = matrix == 0 ? 0 : static_cast<int64_t>(values.size()) / matrix;
  std::vector<T> out(values.size(), T{});
  std::vector<T> factor(matrix);
  CancelPoll poll(kCancelPollSteps);
  for (int64_t b = 0; b < batches; ++b) {
    const T* m = values.data() + b * matrix;
    std::fill(factor.begin(), factor.end(), T{});
    bool ok;
    if (lower) {
      ASSIGN_OR_RETURN(ok, CholeskyLower<T>(
                               evaluator, poll, n, [&](int64_t i, int64_t j) { return m[i * n + j]; }, factor.data()));
    } else {
      // The upper triangle U of a = U^H U is the conjugate transpose of the lower factor of a^H.
      ASSIGN_OR_RETURN(ok, CholeskyLower<T>(
                               evaluator, poll, n, [&](int64_t i, int64_t j) { return Conj(m[j * n + i]); },
                               factor.data()));
    }
    T* o = out.data() + b * matrix;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        if (!ok) {
          o[i * n + j] = NaNValue<T>();
        } else if (lower) {
          o[i * n + j] = j <= i ? factor[i * n + j] : T{};
        } else {
          // The diagonal is real: keep it as is (conjugating would give -0 imaginary parts).
          o[i * n + j] = j > i ? Conj(factor[j * n + i]) : j == i ? factor[i * n + i] : T{};
        }
      }
    }
  }
  return WriteValues(out_shape, out);
}

absl::StatusOr<Literal> Cholesky(EvalContext& ctx, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(operands, 1));
  const Shape& shape = operands[0]->shape();
  const Shape& out_shape = instruction.shape();
  RETURN_IF_ERROR(CheckFloatingType(out_shape.element_type(), "cholesky"));
  if (shape.rank() < 2 || shape.dimensions(shape.rank() - 1) != shape.dimensions(shape.rank() - 2)) {
    return absl::InvalidArgumentError(absl::StrCat("cholesky needs square matrices, got ", shape.ToString()));
  }
  if (!out_shape.IsArray() || out_shape.dimensions() != shape.dimensions()) {
    return absl::InvalidArgumentError("cholesky result shape differs from the operand's");
  }
  const bool lower = instruction.attrs().cholesky_options().lower();
  ASSIGN_OR_RETURN(Literal a, ConvertedTo(*operands[0], out_shape.element_type()));
  if (primitive_util::IsComplexType(out_shape.element_type())) {
    return RunCholesky<Complex>(ctx.evaluator, a, out_shape, lower);
  }
  return RunCholesky<double>(ctx.evaluator, a, out_shape, lower);
}

template <typename T>
absl::StatusOr<Literal> RunTriangularSolve(const Evaluator* evaluator, const Literal& a_lit, const Literal& b_lit,
                                           const Shape& out_shape, const TriangularSolveOptions& options) {
  CancelPoll poll(kCancelPollSteps);
  std::vector<T> a_values, b_values;
  ReadValues(a_lit, &a_values);
  ReadValues(b_lit, &b_values);
  const int64_t rank = b_lit.shape().rank();
  const int64_t rows = b_lit.shape().dimensions(rank - 2);
  const int64_t cols = b_lit.shape().dimensions(rank - 1);
  const int64_t m = a_lit.shape().dimensions(rank - 1);
  const int64_t a_size = m * m, b_size = rows * cols;
  int64_t batches = 1;
  for (int64_t d = 0; d < rank - 2; ++d) batches *= b_lit.shape().dimensions(d);
  const bool transpose = options.transpose_a() == TriangularSolveOptions::TRANSPOSE ||
                         options.transpose_a() == TriangularSolveOptions::ADJOINT;
  const bool conjugate = options.transpose_a() == TriangularSolveOptions::ADJOINT;
  std::vector<T> out(b_values.size(), T{});
  std::vector<T> t(a_size), x;
  for (int64_t batch = 0; batch < batches; ++batch) {
    const T* a = a_values.data() + batch * a_size;
    const T* b = b_values.data() + batch * b_size;
    // t = op(triangle of a), with ones on the diagonal when unit_diagonal.
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        const bool in_triangle = options.lower() ? j <= i : j >= i;
        T v = in_triangle ? a[i * m + j] : T{};
        if (i == j && options.unit_diagonal()) v = T(1);
        if (conjugate) v = Conj(v);
        t[transpose ? j * m + i : i * m + j] = v;
      }
    }
    bool lower = options.lower() != transpose;
    // Solve t x = rhs (left side) or x t = b, i.e. t^T x^T = b^T (right side); x is m x k.
    const int64_t k = options.left_side() ? cols : rows;
    x.assign(m * k, T{});
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t c = 0; c < k; ++c) x[i * k + c] = options.left_side() ? b[i * cols + c] : b[c * cols + i];
    }
    auto coef = [&](int64_t i, int64_t j) { return options.left_side() ? t[i * m + j] : t[j * m + i]; };
    if (!options.left_side()) lower = !lower;
    for (int64_t step = 0; step < m; ++step) {
      RETURN_IF_ERROR(poll.Done(evaluator, (m + 1) * k));
      const int64_t i = lower ? step : m - 1 - step;
      for (int64_t c = 0; c < k; ++c) {
        T s = x[i * k + c];
        if (lower) {
          for (int64_t j = 0; j < i; ++j) s -= coef(i, j) * x[j * k + c];
        } else {
          for (int64_t j = i + 1; j < m; ++j) s -= coef(i, j) * x[j * k + c];
        }
        x[i * k + c] = options.unit_diagonal() ? s : s / coef(i, i);
      }
    }
    T* o = out.data() + batch * b_size;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t c = 0; c < k; ++c) {
        (options.left_side() ? o[i * cols + c] : o[c * cols + i]) = x[i * k + c];
      }
    }
  }
  return WriteValues(out_shape, out);
}

absl::StatusOr<Literal> TriangularSolve(EvalContext& ctx, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(operands, 2));
  const Shape& a = operands[0]->shape();
  const Shape& b = operands[1]->shape();
  const Shape& out_shape = instruction.shape();
  RETURN_IF_ERROR(CheckFloatingType(out_shape.element_type(), "triangular-solve"));
  const TriangularSolveOptions& options = instruction.attrs().triangular_solve_options();
  const int64_t rank = b.rank();
  if (rank < 2 || a.rank() != rank) {
    return absl::InvalidArgumentError("triangular-solve operands need the same rank, at least 2");
  }
  for (int64_t d = 0; d < rank - 2; ++d) {
    if (a.dimensions(d) != b.dimensions(d)) {
      return absl::InvalidArgumentError("triangular-solve batch dimensions differ");
    }
  }
  const int64_t m = a.dimensions(rank - 1);
  const int64_t solved = options.left_side() ? b.dimensions(rank - 2) : b.dimensions(rank - 1);
  if (a.dimensions(rank - 2) != m || m != solved) {
    return absl::InvalidArgumentError(absl::StrCat("triangular-solve: a ", a.ToString(), " does not fit b ",
                                                   b.ToString(), options.left_side() ? " (left side)" : " (right side)"));
  }
  if (!out_shape.IsArray() || out_shape.dimensions() != b.dimensions()) {
    return absl::InvalidArgumentError("triangular-solve result shape differs from b's");
  }
  TriangularSolveOptions effective = options;
  if (effective.transpose_a() == TriangularSolveOptions::TRANSPOSE_INVALID) {
    effective.set_transpose_a(TriangularSolveOptions::NO_TRANSPOSE);
  }
  ASSIGN_OR_RETURN(Literal a_lit, ConvertedTo(*operands[0], out_shape.element_type()));
  ASSIGN_OR_RETURN(Literal b_lit, ConvertedTo(*operands[1], out_shape.element_type()));
  if (primitive_util::IsComplexType(out_shape.element_type())) {
    return RunTriangularSolve<Complex>(ctx.evaluator, a_lit, b_lit, out_shape, effective);
  }
  return RunTriangularSolve<double>(ctx.evaluator, a_lit, b_lit, out_shape, effective);
}

}  // namespace

void RegisterSolveHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kCholesky, Cholesky);
  table->Register(HloOpcode::kTriangularSolve, TriangularSolve);
}

}  // namespace linalg
}  // namespace interpreter
}  // namespace xla
