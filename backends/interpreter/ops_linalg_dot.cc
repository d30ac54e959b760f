// dot with general dimension numbers. As XLA's evaluator does, operands are first
// converted to the result element type (the preferred element type); products are then
// summed in a wide type (double, complex<double>, wrapping 64-bit integers) in contracting
// index order and rounded once to the result type.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/interpreter/evaluator.h"
#include "backends/interpreter/ops_linalg_internal.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace linalg {
namespace {

std::vector<int64_t> ToVector(const google::protobuf::RepeatedField<int64_t>& field) {
  return std::vector<int64_t>(field.begin(), field.end());
}

// c[m][n] = sum_k a[m][k] * b[n][k]: both operands have the contracting index innermost.
// Four output columns share one pass over a's row; each output keeps its own accumulator,
// so every sum is taken in plain k order.
template <typename T>
void DotKernel(const T* a, const T* b, T* c, int64_t m_size, int64_t n_size, int64_t k_size) {
  for (int64_t m = 0; m < m_size; ++m) {
    const T* a_row = a + m * k_size;
    T* c_row = c + m * n_size;
    int64_t n = 0;
    for (; n + 4 <= n_size; n += 4) {
      const T* b0 = b + n * k_size;
      const T* b1 = b0 + k_size;
      const T* b2 = b1 + k_size;
      const T* b3 = b2 + k_size;
      T s0{}, s1{}, s2{}, s3{};
      for (int64_t k = 0; k < k_size; ++k) {
        const T x = a_row[k];
        s0 += x * b0[k];
        s1 += x * b1[k];
        s2 += x * b2[k];
        s3 += x * b3[k];
      }
      c_row[n] = s0;
      c_row[n + 1] = s1;
      c_row[n + 2] = s2;
      c_row[n + 3] = s3;
    }
    for (; n < n_size; ++n) {
      const T* b0 = b + n * k_size;
      T s{};
      for (int64_t k = 0; k < k_size; ++k) s += a_row[k] * b0[k];
      c_row[n] = s;
    }
  }
}

struct DotPlan {
  std::vector<int64_t> lhs_perm, rhs_perm;  // batch, free, contracting
  int64_t batch = 1, m = 1, n = 1, k = 1;
};

template <typename T>
absl::StatusOr<Literal> RunDot(const Evaluator* evaluator, const Shape& result_shape, const Literal& lhs,
                               const Literal& rhs, const DotPlan& plan) {
  std::vector<T> lhs_values, rhs_values;
  ReadValues(lhs, &lhs_values);
  ReadValues(rhs, &rhs_values);
  const std::vector<T> a = Permute(lhs_values, lhs.shape().dimensions(), plan.lhs_perm);
  const std::vector<T> b = Permute(rhs_values, rhs.shape().dimensions(), plan.rhs_perm);
  std::vector<T> c(plan.batch * plan.m * plan.n, T{});
  // Rows in blocks of about kCancelPollSteps multiply-adds, polling cancellation between them.
  const int64_t row_steps = std::max<int64_t>(1, plan.n * plan.k);
  const int64_t block = std::clamp<int64_t>(kCancelPollSteps / row_steps, 1, std::max<int64_t>(plan.m, 1));
  CancelPoll poll(kCancelPollSteps);
  for (int64_t i = 0; i < plan.batch; ++i) {
    for (int64_t r0 = 0; r0 < plan.m; r0 += block) {
      const int64_t rows = std::min(block, plan.m - r0);
      DotKernel(a.data() + (i * plan.m + r0) * plan.k, b.data() + i * plan.n * plan.k,
                c.data() + (i * plan.m + r0) * plan.n, rows, plan.n, plan.k);
      RETURN_IF_ERROR(poll.Done(evaluator, rows * row_steps));
    }
  }
  return WriteValues(result_shape, c);
}

absl::StatusOr<Literal> Dot(EvalContext& ctx, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(operands, 2));
  const Shape& result_shape = instruction.shape();
  if (!result_shape.IsArray()) return absl::InvalidArgumentError("dot result must be an array");
  const Literal& lhs_in = *operands[0];
  const Literal& rhs_in = *operands[1];
  const int64_t lhs_rank = lhs_in.shape().rank();
  const int64_t rhs_rank = rhs_in.shape().rank();
  const DotDimensionNumbers& dnums = instruction.attrs().dot_dimension_numbers();
  const std::vector<int64_t> lhs_batch = ToVector(dnums.lhs_batch_dimensions());
  const std::vector<int64_t> rhs_batch = ToVector(dnums.rhs_batch_dimensions());
  const std::vector<int64_t> lhs_contracting = ToVector(dnums.lhs_contracting_dimensions());
  const std::vector<int64_t> rhs_contracting = ToVector(dnums.rhs_contracting_dimensions());
  if (lhs_batch.size() != rhs_batch.size()) {
    return absl::InvalidArgumentError("dot needs as many lhs as rhs batch dimensions");
  }
  if (lhs_contracting.size() != rhs_contracting.size()) {
    return absl::InvalidArgumentError("dot needs as many lhs as rhs contracting dimensions");
  }
  std::vector<int64_t> lhs_used = lhs_batch, rhs_used = rhs_batch;
  lhs_used.insert(lhs_used.end(), lhs_contracting.begin(), lhs_contracting.end());
  rhs_used.insert(rhs_used.end(), rhs_contracting.begin(), rhs_contracting.end());
  RETURN_IF_ERROR(CheckDimensions(lhs_used, lhs_rank, "dot lhs batch/contracting"));
  RETURN_IF_ERROR(CheckDimensions(rhs_used, rhs_rank, "dot rhs batch/contracting"));
  const auto& lhs_dims = lhs_in.shape().dimensions();
  const auto& rhs_dims = rhs_in.shape().dimensions();

  DotPlan plan;
  std::vector<int64_t> expected_dims;
  for (size_t i = 0; i < lhs_batch.size(); ++i) {
    if (lhs_dims[lhs_batch[i]] != rhs_dims[rhs_batch[i]]) {
      return absl::InvalidArgumentError(absl::StrCat("dot batch dimension sizes differ: ", lhs_dims[lhs_batch[i]],
                                                     " vs ", rhs_dims[rhs_batch[i]]));
    }
    plan.batch *= lhs_dims[lhs_batch[i]];
    expected_dims.push_back(lhs_dims[lhs_batch[i]]);
  }
  for (size_t i = 0; i < lhs_contracting.size(); ++i) {
    if (lhs_dims[lhs_contracting[i]] != rhs_dims[rhs_contracting[i]]) {
      return absl::InvalidArgumentError(absl::StrCat("dot contracting dimension sizes differ: ",
                                                     lhs_dims[lhs_contracting[i]], " vs ",
                                                     rhs_dims[rhs_contracting[i]]));
    }
    plan.k *= lhs_dims[lhs_contracting[i]];
  }
  plan.lhs_perm = lhs_batch;
  plan.rhs_perm = rhs_batch;
  auto add_free = [&](int64_t rank, const std::vector<int64_t>& used, const std::vector<int64_t>& dims,
                      std::vector<int64_t>* perm, int64_t* size) {
    for (int64_t d = 0; d < rank; ++d) {
      bool is_used = false;
      for (int64_t u : used) is_used |= u == d;
      if (is_used) continue;
      perm->push_back(d);
      *size *= dims[d];
      expected_dims.push_back(dims[d]);
    }
  };
  add_free(lhs_rank, lhs_used, lhs_dims, &plan.lhs_perm, &plan.m);
  add_free(rhs_rank, rhs_used, rhs_dims, &plan.rhs_perm, &plan.n);
  plan.lhs_perm.insert(plan.lhs_perm.end(), lhs_contracting.begin(), lhs_contracting.end());
  plan.rhs_perm.insert(plan.rhs_perm.end(), rhs_contracting.begin(), rhs_contracting.end());
  if (expected_dims != result_shape.dimensions()) {
    return absl::InvalidArgumentError(absl::StrCat("dot result shape ", result_shape.ToString(),
                                                   " does not match batch, lhs and rhs free dimensions"));
  }

  const PrimitiveType type = result_shape.element_type();
  ASSIGN_OR_RETURN(Literal lhs, ConvertedTo(lhs_in, type));
  ASSIGN_OR_RETURN(Literal rhs, ConvertedTo(rhs_in, type));
  return WithAccumulator(type, [&](auto accumulator) {
    return RunDot<decltype(accumulator)>(ctx.evaluator, result_shape, lhs, rhs, plan);
  });
}

}  // namespace

void RegisterDotHandlers(HandlerTable* table) { table->Register(HloOpcode::kDot, Dot); }

}  // namespace linalg
}  // namespace interpreter
}  // namespace xla
