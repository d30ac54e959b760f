// __xla_cpu_cholesky and __xla_cpu_triangular_solve: batches of matrices (the last two
// dimensions), computed in double / complex<double> and rounded once
// (backends/interpreter/ops_linalg_solve.cc states the semantics: only the named triangle is
// read; a matrix that is not positive definite gives an all-NaN factor; zero pivots give IEEE
// inf/NaN). Matrices of up to kLapackOrder rows in the interpreter's order of operations, so
// results are bit-exact with it; larger ones through OpenBLAS's LAPACK factor (dpotrf/zpotrf)
// and BLAS triangular solve (dtrsm/ztrsm), blocked and threaded, within a few ulps of it.
#include <cblas.h>

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>
#include <vector>

#include "backends/cpu/runtime/runtime.h"
#include "backends/cpu/runtime/strided_array.h"

namespace xla {
namespace cpu {
namespace {

using Complex = std::complex<double>;

// Matrices with more rows go through LAPACK and BLAS (the sequential loops below cost n^3/3
// dependent steps: 2.6 s for one 2048-row factor).
constexpr int64_t kLapackOrder = 128;

}  // namespace
}  // namespace cpu
}  // namespace xla

// OpenBLAS's LAPACK (C implementations taking no hidden string lengths; 32-bit integers).
extern "C" int dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
extern "C" int zpotrf_(const char* uplo, const int* n, std::complex<double>* a, const int* lda, int* info);

namespace xla {
namespace cpu {
namespace {

double Conj(double v) { return v; }
Complex Conj(const Complex& v) { return std::conj(v); }
double Real(double v) { return v; }
double Real(const Complex& v) { return v.real(); }

template <typename T>
T NaN() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if constexpr (std::is_same_v<T, Complex>) return Complex(nan, nan);
  return T(nan);
}

template <typename T>
std::vector<T> ReadAll(const StridedArray& a);
template <>
std::vector<double> ReadAll<double>(const StridedArray& a) { return ReadReal(a); }
template <>
std::vector<Complex> ReadAll<Complex>(const StridedArray& a) { return ReadComplex(a); }

// Storage offset of matrix `batch` of `a` (its batches row-major over the leading dimensions).
int64_t MatrixOffset(const StridedArray& a, int64_t batch) {
  int64_t offset = 0;
  for (int64_t d = a.rank() - 3; d >= 0; --d) {
    offset += (batch % a.dim(d)) * a.stride(d);
    batch /= a.dim(d);
  }
  return offset;
}

template <typename T>
T LoadAs(const StridedArray& a, int64_t offset) {
  if constexpr (std::is_same_v<T, Complex>) return a.Load(offset);
  return a.Load(offset).real();
}

int64_t MatrixCount(const StridedArray& a) {
  int64_t batches = 1;
  for (int64_t d = 0; d + 2 < a.rank(); ++d) batches *= a.dim(d);
  return batches;
}

// cholesky of matrices past kLapackOrder rows through LAPACK: the lower triangle of the
// Hermitian matrix, row-major in `d`, is the upper triangle of its conjugate column-major,
// whose factor U = L^T (conj(A) = conj(L) L^T) LAPACK writes in place: L row-major.
template <typename T>
void CholeskyLapack(const StridedArray& a, const StridedArray& out, bool lower) {
  const int64_t r = a.rank(), n = a.dim(r - 1);
  const int64_t ai = a.stride(r - 2), aj = a.stride(r - 1), oi = out.stride(r - 2), oj = out.stride(r - 1);
  std::vector<T> d(n * n);
  const int64_t batches = MatrixCount(a);
  StopCheck stop;  // between matrices (one LAPACK or BLAS call is not interrupted)
  for (int64_t batch = 0; batch < batches; ++batch) {
    if (batch > 0 && stop.Done(n * n * n)) return;
    const int64_t in = MatrixOffset(a, batch), to = MatrixOffset(out, batch);
    std::fill(d.begin(), d.end(), T{});
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = lower ? 0 : i; lower ? j <= i : j < n; ++j) {
        const T v = LoadAs<T>(a, in + i * ai + j * aj);
        if (lower) {
          d[i * n + j] = v;
        } else {
          d[j * n + i] = Conj(v);  // at(j, i) of the Hermitian matrix whose lower triangle is conj(a)^T
        }
      }
    }
    const int order = static_cast<int>(n);
    int info = 0;
    if constexpr (std::is_same_v<T, Complex>) {
      zpotrf_("U", &order, d.data(), &order, &info);
    } else {
      dpotrf_("U", &order, d.data(), &order, &info);
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        T v{};
        if (info != 0) {
          v = NaN<T>();
        } else if (lower) {
          if (j <= i) v = d[i * n + j];
        } else if (j > i) {
          v = Conj(d[j * n + i]);
        } else if (j == i) {
          v = d[i * n + i];
        }
        out.Store(to + i * oi + j * oj, v);
      }
    }
  }
}

// triangular-solve of matrices past kLapackOrder rows through BLAS, which takes XLA's options
// as they are: op(a) x = b or x op(a) = b, a's named triangle only, a unit diagonal unread.
template <typename T>
void TriangularSolveBlas(const StridedArray& a, const StridedArray& b, const StridedArray& out, bool left_side,
                         bool lower, bool unit_diagonal, int64_t transpose_a) {
  const int64_t r = b.rank(), rows = b.dim(r - 2), cols = b.dim(r - 1), m = a.dim(r - 1);
  std::vector<T> t(m * m), x(rows * cols);
  const int64_t batches = MatrixCount(b);
  StopCheck stop;  // between matrices (one LAPACK or BLAS call is not interrupted)
  for (int64_t batch = 0; batch < batches; ++batch) {
    if (batch > 0 && stop.Done(m * rows * cols)) return;
    const int64_t at = MatrixOffset(a, batch), bt = MatrixOffset(b, batch), ot = MatrixOffset(out, batch);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) t[i * m + j] = LoadAs<T>(a, at + i * a.stride(r - 2) + j * a.stride(r - 1));
    }
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) x[i * cols + j] = LoadAs<T>(b, bt + i * b.stride(r - 2) + j * b.stride(r - 1));
    }
    const CBLAS_TRANSPOSE op = transpose_a == 0 ? CblasNoTrans : transpose_a == 1 ? CblasTrans : CblasConjTrans;
    const CBLAS_SIDE side = left_side ? CblasLeft : CblasRight;
    const CBLAS_UPLO uplo = lower ? CblasLower : CblasUpper;
    const CBLAS_DIAG diag = unit_diagonal ? CblasUnit : CblasNonUnit;
    const int mi = static_cast<int>(rows), ni = static_cast<int>(cols), lda = static_cast<int>(m), ldb = ni;
    if (rows > 0 && cols > 0) {
      if constexpr (std::is_same_v<T, Complex>) {
        const Complex one(1, 0);
        cblas_ztrsm(CblasRowMajor, side, uplo, op, diag, mi, ni, &one, t.data(), lda, x.data(), ldb);
      } else {
        cblas_dtrsm(CblasRowMajor, side, uplo, op, diag, mi, ni, 1.0, t.data(), lda, x.data(), ldb);
      }
    }
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) out.Store(ot + i * out.stride(r - 2) + j * out.stride(r - 1), x[i * cols + j]);
    }
  }
}

// Lower factor L (row-major n x n, zero-filled by the caller) of the Hermitian matrix whose
// lower triangle `at(i, j)` gives; false when a pivot is not positive.
template <typename T, typename At>
bool FactorLower(int64_t n, At at, T* l) {
  for (int64_t j = 0; j < n; ++j) {
    double pivot_square = Real(at(j, j));
    for (int64_t k = 0; k < j; ++k) pivot_square -= Real(l[j * n + k] * Conj(l[j * n + k]));
    if (!(pivot_square > 0)) return false;
    const double pivot = std::sqrt(pivot_square);
    l[j * n + j] = T(pivot);
    for (int64_t i = j + 1; i < n; ++i) {
      T sum = at(i, j);
      for (int64_t k = 0; k < j; ++k) sum -= l[i * n + k] * Conj(l[j * n + k]);
      l[i * n + j] = sum / pivot;
    }
  }
  return true;
}

template <typename T>
void Cholesky(const StridedArray& a, const StridedArray& out, bool lower) {
  if (a.rank() >= 2 && a.dim(a.rank() - 1) > kLapackOrder) return CholeskyLapack<T>(a, out, lower);
  const std::vector<T> in = ReadAll<T>(a);
  const int64_t n = a.rank() < 2 ? 0 : a.dim(a.rank() - 1);
  const int64_t size = n * n;
  const int64_t batches = size == 0 ? 0 : static_cast<int64_t>(in.size()) / size;
  std::vector<T> result(in.size(), T{});
  std::vector<T> l(size);
  StopCheck stop;  // between matrices
  for (int64_t batch = 0; batch < batches; ++batch) {
    if (batch > 0 && stop.Done(n * n * n)) return;
    const T* m = in.data() + batch * size;
    std::fill(l.begin(), l.end(), T{});
    // For upper, U = L^H where L factors a^H, whose lower triangle is conj of a's upper one.
    const bool ok = lower ? FactorLower<T>(n, [&](int64_t i, int64_t j) { return m[i * n + j]; }, l.data())
                          : FactorLower<T>(n, [&](int64_t i, int64_t j) { return Conj(m[j * n + i]); }, l.data());
    T* o = result.data() + batch * size;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        T v{};
        if (!ok) {
          v = NaN<T>();
        } else if (lower) {
          if (j <= i) v = l[i * n + j];
        } else if (j > i) {
          v = Conj(l[j * n + i]);
        } else if (j == i) {
          v = l[i * n + i];  // real: conjugating would make its imaginary part -0
        }
        o[i * n + j] = v;
      }
    }
  }
  Write(out, result);
}

template <typename T>
void TriangularSolve(const StridedArray& a_array, const StridedArray& b_array, const StridedArray& out,
                     bool left_side, bool lower_in, bool unit_diagonal, int64_t transpose_a) {
  if (a_array.rank() >= 2 && a_array.dim(a_array.rank() - 1) > kLapackOrder) {
    return TriangularSolveBlas<T>(a_array, b_array, out, left_side, lower_in, unit_diagonal, transpose_a);
  }
  const std::vector<T> a_all = ReadAll<T>(a_array);
  const std::vector<T> b_all = ReadAll<T>(b_array);
  const int64_t rank = b_array.rank();
  const int64_t rows = b_array.dim(rank - 2), cols = b_array.dim(rank - 1);
  const int64_t m = a_array.dim(rank - 1);
  const int64_t a_size = m * m, b_size = rows * cols;
  int64_t batches = 1;
  for (int64_t d = 0; d < rank - 2; ++d) batches *= b_array.dim(d);
  const bool transpose = transpose_a != 0;
  const bool conjugate = transpose_a == 2;
  // Left side solves op(a) x = b; right side x op(a) = b, i.e. op(a)^T x^T = b^T.
  const int64_t k = left_side ? cols : rows;
  bool lower = lower_in != transpose;
  if (!left_side) lower = !lower;
  std::vector<T> result(b_all.size(), T{});
  std::vector<T> t(a_size), x(m * k);
  StopCheck stop;  // between matrices
  for (int64_t batch = 0; batch < batches; ++batch) {
    if (batch > 0 && stop.Done(m * m * k)) return;
    const T* a = a_all.data() + batch * a_size;
    const T* b = b_all.data() + batch * b_size;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        T v = (lower_in ? j <= i : j >= i) ? a[i * m + j] : T{};
        if (i == j && unit_diagonal) v = T(1);
        if (conjugate) v = Conj(v);
        t[transpose ? j * m + i : i * m + j] = v;
      }
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t c = 0; c < k; ++c) x[i * k + c] = left_side ? b[i * cols + c] : b[c * cols + i];
    }
    auto coefficient = [&](int64_t i, int64_t j) { return left_side ? t[i * m + j] : t[j * m + i]; };
    for (int64_t step = 0; step < m; ++step) {
      const int64_t i = lower ? step : m - 1 - step;
      const int64_t from = lower ? 0 : i + 1, to = lower ? i : m;
      for (int64_t c = 0; c < k; ++c) {
        T sum = x[i * k + c];
        for (int64_t j = from; j < to; ++j) sum -= coefficient(i, j) * x[j * k + c];
        x[i * k + c] = unit_diagonal ? sum : sum / coefficient(i, i);
      }
    }
    T* o = result.data() + batch * b_size;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t c = 0; c < k; ++c) (left_side ? o[i * cols + c] : o[c * cols + i]) = x[i * k + c];
    }
  }
  Write(out, result);
}

}  // namespace
}  // namespace cpu
}  // namespace xla

static void Cholesky(void* a, const int64_t* a_descriptor, void* out, const int64_t* out_descriptor,
                     int64_t lower) {
  const xla::cpu::StridedArray in(a, a_descriptor), result(out, out_descriptor);
  if (result.is_complex()) {
    xla::cpu::Cholesky<xla::cpu::Complex>(in, result, lower != 0);
  } else {
    xla::cpu::Cholesky<double>(in, result, lower != 0);
  }
}

extern "C" void __xla_cpu_cholesky(void* a, const int64_t* a_descriptor, void* out, const int64_t* out_descriptor,
                                   int64_t lower) {
  xla::cpu::RunRoutine("cholesky", [&] { Cholesky(a, a_descriptor, out, out_descriptor, lower); });
}

static void TriangularSolve(void* a, const int64_t* a_descriptor, void* b, const int64_t* b_descriptor,
                            void* out, const int64_t* out_descriptor, int64_t left_side, int64_t lower,
                            int64_t unit_diagonal, int64_t transpose_a) {
  const xla::cpu::StridedArray a_array(a, a_descriptor), b_array(b, b_descriptor), result(out, out_descriptor);
  if (result.is_complex()) {
    xla::cpu::TriangularSolve<xla::cpu::Complex>(a_array, b_array, result, left_side != 0, lower != 0,
                                                 unit_diagonal != 0, transpose_a);
  } else {
    xla::cpu::TriangularSolve<double>(a_array, b_array, result, left_side != 0, lower != 0, unit_diagonal != 0,
                                      transpose_a);
  }
}

extern "C" void __xla_cpu_triangular_solve(void* a, const int64_t* a_descriptor, void* b, const int64_t* b_descriptor,
                                           void* out, const int64_t* out_descriptor, int64_t left_side, int64_t lower,
                                           int64_t unit_diagonal, int64_t transpose_a) {
  xla::cpu::RunRoutine("triangular-solve", [&] {
    TriangularSolve(a, a_descriptor, b, b_descriptor, out, out_descriptor, left_side, lower, unit_diagonal, transpose_a);
  });
}
