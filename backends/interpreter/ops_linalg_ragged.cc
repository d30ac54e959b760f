// ragged-dot and scaled-dot.
//
// ragged-dot(lhs, rhs, group_sizes) follows XLA's RaggedDotRewriter, which defines the op as a
// masked dot. group_sizes has shape [p..., g]: its leading p dims index lhs dims 0..p-1 (the
// batch and outer dims, all outer to the ragged dim) and its last dim the g groups. Group j
// covers ragged coordinates [start_j, end_j) with end_j the cumulative sum of sizes 0..j and
// start_j = end_{j-1} (start_0 = 0); cumulative sums wrap in group_sizes' element type.
//  - ragged non-contracting lhs dim: rhs has a group dim; an lhs row is multiplied with the
//    rhs slice of every group that covers it (rows no group covers give zeros);
//  - ragged contracting dim: the result gets a leading dim of g; output j contracts only the
//    contracting coordinates group j covers;
//  - ragged batch dim: a plain dot (group_sizes does not change the result).
// Masked-out terms are skipped rather than multiplied by zero, so an inf outside a row's
// group does not turn the result into NaN.
//
// scaled-dot(lhs, rhs, lhs_scale, rhs_scale) follows XLA's operand order and block-scaling
// decomposition: each operand and its scale are converted to the result type, multiplied
// elementwise (rounded once to the result type) with scale element s covering the block of
// operand elements i with i[d] / (operand_dim[d] / scale_dim[d]) == s[d] (a scalar scale
// covers all), and the dequantized operands go through an ordinary dot.
//
// Both reuse the dot conventions of ops_linalg_dot.cc: operands converted to the result
// type, products summed in a wide type in contracting index order, rounded once.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/interpreter/evaluator.h"
#include "backends/interpreter/ops_linalg_internal.h"
#include "hlo/primitive_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace interpreter {
namespace linalg {
namespace {

std::vector<int64_t> ToVector(const google::protobuf::RepeatedField<int64_t>& field) {
  return std::vector<int64_t>(field.begin(), field.end());
}

bool Contains(const std::vector<int64_t>& values, int64_t v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

enum class RaggedMode { kNone, kNonContracting, kContracting, kBatch };

// How each output dim and each contracting dim moves through lhs, rhs and group_sizes.
struct ContractionPlan {
  RaggedMode mode = RaggedMode::kNone;
  std::vector<int64_t> out_dims;
  // Per output dim: row-major stride in lhs / rhs, stride in the group_sizes prefix, and
  // whether it is the lhs ragged dim.
  std::vector<int64_t> out_lhs, out_rhs, out_prefix, out_ragged;
  int64_t out_group_dim = -1;  // ragged contracting: output dim 0 indexes the group
  std::vector<int64_t> k_dims, k_lhs, k_rhs, k_prefix, k_ragged;
  int64_t num_groups = 0;
  int64_t rhs_group_stride = 0;
  // Per group_sizes prefix: num_groups + 1 cumulative bounds (bounds[j], bounds[j + 1]).
  std::vector<__int128> bounds;
};

template <typename T>
std::vector<T> Contract(const std::vector<T>& a, const std::vector<T>& b, const ContractionPlan& p) {
  const int64_t out_rank = static_cast<int64_t>(p.out_dims.size());
  const int64_t k_rank = static_cast<int64_t>(p.k_dims.size());
  const int64_t k_count = ElementCount(p.k_dims);
  const int64_t out_count = ElementCount(p.out_dims);
  // Offsets of every contracting index, in row-major contracting order.
  std::vector<int64_t> kl(k_count), kr(k_count), kp(k_count), kg(k_count);
  {
    std::vector<int64_t> idx(k_rank, 0);
    for (int64_t k = 0; k < k_count; ++k) {
      int64_t l = 0, r = 0, pre = 0, rag = 0;
      for (int64_t d = 0; d < k_rank; ++d) {
        l += idx[d] * p.k_lhs[d];
        r += idx[d] * p.k_rhs[d];
        pre += idx[d] * p.k_prefix[d];
        rag += idx[d] * p.k_ragged[d];
      }
      kl[k] = l, kr[k] = r, kp[k] = pre, kg[k] = rag;
      for (int64_t d = k_rank - 1; d >= 0; --d) {
        if (++idx[d] < p.k_dims[d]) break;
        idx[d] = 0;
      }
    }
  }
  const int64_t stride = p.num_groups + 1;
  auto covers = [&](int64_t prefix, int64_t group, int64_t coordinate) {
    const __int128* row = p.bounds.data() + prefix * stride;
    return row[group] <= coordinate && coordinate < row[group + 1];
  };
  std::vector<T> out(out_count, T{});
  std::vector<int64_t> idx(out_rank, 0);
  for (int64_t o = 0; o < out_count; ++o) {
    int64_t lo = 0, ro = 0, po = 0, rg = 0, group = 0;
    for (int64_t d = 0; d < out_rank; ++d) {
      lo += idx[d] * p.out_lhs[d];
      ro += idx[d] * p.out_rhs[d];
      po += idx[d] * p.out_prefix[d];
      rg += idx[d] * p.out_ragged[d];
      if (d == p.out_group_dim) group = idx[d];
    }
    T sum{};
    switch (p.mode) {
      case RaggedMode::kNone:
      case RaggedMode::kBatch:
        for (int64_t k = 0; k < k_count; ++k) sum += a[lo + kl[k]] * b[ro + kr[k]];
        break;
      case RaggedMode::kNonContracting:
        for (int64_t g = 0; g < p.num_groups; ++g) {
          const int64_t rg_off = ro + g * p.rhs_group_stride;
          for (int64_t k = 0; k < k_count; ++k) {
            if (covers(po + kp[k], g, rg)) sum += a[lo + kl[k]] * b[rg_off + kr[k]];
          }
        }
        break;
      case RaggedMode::kContracting:
        for (int64_t k = 0; k < k_count; ++k) {
          if (covers(po + kp[k], group, kg[k])) sum += a[lo + kl[k]] * b[ro + kr[k]];
        }
        break;
    }
    out[o] = sum;
    for (int64_t d = out_rank - 1; d >= 0; --d) {
      if (++idx[d] < p.out_dims[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// Fills the output and contracting parts of `plan` from dot dimension numbers. `rhs_group`
// is the rhs group dim (-1 for none), `ragged` the lhs ragged dim (-1 for none) and
// `prefix_strides` the group_sizes prefix stride of each lhs dim (0 when not a prefix dim).
absl::Status PlanDot(const Shape& lhs, const Shape& rhs, const DotDimensionNumbers& dnums, int64_t rhs_group,
                     int64_t ragged, const std::vector<int64_t>& prefix_strides, ContractionPlan* plan) {
  const std::vector<int64_t> lb = ToVector(dnums.lhs_batch_dimensions());
  const std::vector<int64_t> rb = ToVector(dnums.rhs_batch_dimensions());
  const std::vector<int64_t> lc = ToVector(dnums.lhs_contracting_dimensions());
  const std::vector<int64_t> rc = ToVector(dnums.rhs_contracting_dimensions());
  if (lb.size() != rb.size()) return absl::InvalidArgumentError("needs as many lhs as rhs batch dimensions");
  if (lc.size() != rc.size()) {
    return absl::InvalidArgumentError("needs as many lhs as rhs contracting dimensions");
  }
  std::vector<int64_t> lhs_used = lb, rhs_used = rb;
  lhs_used.insert(lhs_used.end(), lc.begin(), lc.end());
  rhs_used.insert(rhs_used.end(), rc.begin(), rc.end());
  if (rhs_group >= 0) rhs_used.push_back(rhs_group);
  RETURN_IF_ERROR(CheckDimensions(lhs_used, lhs.rank(), "lhs batch/contracting"));
  RETURN_IF_ERROR(CheckDimensions(rhs_used, rhs.rank(), "rhs batch/contracting/group"));
  const std::vector<int64_t> ls = RowMajorStrides(lhs.dimensions());
  const std::vector<int64_t> rs = RowMajorStrides(rhs.dimensions());
  auto prefix = [&](int64_t d) { return d < static_cast<int64_t>(prefix_strides.size()) ? prefix_strides[d] : 0; };
  auto add_out = [&](int64_t size, int64_t l, int64_t r, int64_t pre, int64_t rag) {
    plan->out_dims.push_back(size);
    plan->out_lhs.push_back(l);
    plan->out_rhs.push_back(r);
    plan->out_prefix.push_back(pre);
    plan->out_ragged.push_back(rag);
  };
  for (size_t i = 0; i < lb.size(); ++i) {
    if (lhs.dimensions(lb[i]) != rhs.dimensions(rb[i])) {
      return absl::InvalidArgumentError(absl::StrCat("batch dimension sizes differ: ", lhs.dimensions(lb[i]),
                                                     " vs ", rhs.dimensions(rb[i])));
    }
    add_out(lhs.dimensions(lb[i]), ls[lb[i]], rs[rb[i]], prefix(lb[i]), lb[i] == ragged ? 1 : 0);
  }
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!Contains(lhs_used, d)) add_out(lhs.dimensions(d), ls[d], 0, prefix(d), d == ragged ? 1 : 0);
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!Contains(rhs_used, d)) add_out(rhs.dimensions(d), 0, rs[d], 0, 0);
  }
  for (size_t i = 0; i < lc.size(); ++i) {
    if (lhs.dimensions(lc[i]) != rhs.dimensions(rc[i])) {
      return absl::InvalidArgumentError(absl::StrCat("contracting dimension sizes differ: ",
                                                     lhs.dimensions(lc[i]), " vs ", rhs.dimensions(rc[i])));
    }
    plan->k_dims.push_back(lhs.dimensions(lc[i]));
    plan->k_lhs.push_back(ls[lc[i]]);
    plan->k_rhs.push_back(rs[rc[i]]);
    plan->k_prefix.push_back(prefix(lc[i]));
    plan->k_ragged.push_back(lc[i] == ragged ? 1 : 0);
  }
  if (rhs_group >= 0) plan->rhs_group_stride = rs[rhs_group];
  return absl::OkStatus();
}

absl::Status CheckResultDims(const Shape& result, const ContractionPlan& plan, const char* op) {
  if (!result.IsArray() || result.dimensions() != plan.out_dims) {
    return absl::InvalidArgumentError(absl::StrCat(op, " result shape ", result.ToString(),
                                                   " does not match the expected dimensions [",
                                                   absl::StrJoin(plan.out_dims, ","), "]"));
  }
  if (ElementCount(plan.out_dims) < 0 || ElementCount(plan.k_dims) < 0) {
    return absl::InvalidArgumentError(absl::StrCat(op, " is too large"));
  }
  return absl::OkStatus();
}

template <typename T>
absl::StatusOr<Literal> RunContraction(const Shape& result_shape, const Literal& lhs, const Literal& rhs,
                                       const ContractionPlan& plan) {
  std::vector<T> a, b;
  ReadValues(lhs, &a);
  ReadValues(rhs, &b);
  return WriteValues(result_shape, Contract(a, b, plan));
}

// Converts both operands to the result type and contracts them with the wide type of that type.
absl::StatusOr<Literal> ConvertAndContract(const Shape& result_shape, const Literal& lhs_in,
                                           const Literal& rhs_in, const ContractionPlan& plan) {
  const PrimitiveType type = result_shape.element_type();
  ASSIGN_OR_RETURN(Literal lhs, ConvertedTo(lhs_in, type));
  ASSIGN_OR_RETURN(Literal rhs, ConvertedTo(rhs_in, type));
  return WithAccumulator(type, [&](auto accumulator) {
    return RunContraction<decltype(accumulator)>(result_shape, lhs, rhs, plan);
  });
}

// group_sizes value `v` (already wrapped) as its element type sees it, for comparisons.
__int128 AsGroupType(uint64_t v, PrimitiveType type) {
  const int bits = primitive_util::BitWidth(type);
  if (bits < 64) {
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    v &= mask;
    if (primitive_util::IsSignedIntegralType(type) && (v >> (bits - 1)) != 0) v |= ~mask;
  }
  if (primitive_util::IsUnsignedIntegralType(type)) return static_cast<__int128>(v);
  return static_cast<__int128>(static_cast<int64_t>(v));
}

absl::StatusOr<Literal> RaggedDot(EvalContext&, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(operands, 3));
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  const Literal& group_sizes = *operands[2];
  const Shape& lhs_shape = lhs.shape();
  const Shape& gs_shape = group_sizes.shape();
  const RaggedDotDimensionNumbers& rdn = instruction.attrs().ragged_dot_dimension_numbers();
  const DotDimensionNumbers& dnums = rdn.dot_dimension_numbers();
  const std::vector<int64_t> ragged_dims = ToVector(rdn.lhs_ragged_dimensions());
  const std::vector<int64_t> group_dims = ToVector(rdn.rhs_group_dimensions());
  if (ragged_dims.size() != 1 || ragged_dims[0] < 0 || ragged_dims[0] >= lhs_shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("ragged-dot needs exactly one lhs ragged dimension in range, got {",
                                                   absl::StrJoin(ragged_dims, ","), "}"));
  }
  const int64_t ragged = ragged_dims[0];
  if (!primitive_util::IsIntegralType(gs_shape.element_type()) || gs_shape.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("ragged-dot group_sizes must be an integral array of rank >= 1, got ", gs_shape.ToString()));
  }
  ContractionPlan plan;
  plan.num_groups = gs_shape.dimensions(gs_shape.rank() - 1);
  if (Contains(ToVector(dnums.lhs_contracting_dimensions()), ragged)) {
    plan.mode = RaggedMode::kContracting;
  } else if (Contains(ToVector(dnums.lhs_batch_dimensions()), ragged)) {
    plan.mode = RaggedMode::kBatch;
  } else {
    plan.mode = RaggedMode::kNonContracting;
  }
  int64_t rhs_group = -1;
  if (plan.mode == RaggedMode::kNonContracting) {
    if (group_dims.size() != 1) {
      return absl::InvalidArgumentError(
          "ragged-dot with a ragged non-contracting dimension needs one rhs group dimension");
    }
    rhs_group = group_dims[0];
    if (rhs_group < 0 || rhs_group >= rhs.shape().rank()) {
      return absl::InvalidArgumentError(absl::StrCat("ragged-dot rhs group dimension ", rhs_group, " out of range"));
    }
    if (rhs.shape().dimensions(rhs_group) != plan.num_groups) {
      return absl::InvalidArgumentError(absl::StrCat("ragged-dot rhs group dimension has size ",
                                                     rhs.shape().dimensions(rhs_group), " but group_sizes has ",
                                                     plan.num_groups, " groups"));
    }
  } else if (!group_dims.empty()) {
    return absl::InvalidArgumentError(
        "ragged-dot with a ragged contracting or batch dimension takes no rhs group dimension");
  }

  // group_sizes prefix dims index lhs dims 0..p-1, all outer to the ragged dim.
  const int64_t prefix_rank = gs_shape.rank() - 1;
  std::vector<int64_t> prefix_strides;
  if (plan.mode != RaggedMode::kBatch) {
    if (prefix_rank > ragged) {
      return absl::UnimplementedError(absl::StrCat("ragged-dot group_sizes ", gs_shape.ToString(),
                                                   " has more leading dimensions than the lhs has before",
                                                   " its ragged dimension ", ragged));
    }
    std::vector<int64_t> prefix_dims(gs_shape.dimensions().begin(), gs_shape.dimensions().end() - 1);
    for (int64_t i = 0; i < prefix_rank; ++i) {
      if (prefix_dims[i] != lhs_shape.dimensions(i)) {
        return absl::InvalidArgumentError(absl::StrCat("ragged-dot group_sizes ", gs_shape.ToString(),
                                                       " dimension ", i, " does not match lhs ", lhs_shape.ToString()));
      }
    }
    prefix_strides = RowMajorStrides(prefix_dims);
  }
  RETURN_IF_ERROR(PlanDot(lhs_shape, rhs.shape(), dnums, rhs_group, ragged, prefix_strides, &plan));
  if (plan.mode == RaggedMode::kContracting) {
    // A leading output dim indexes the group.
    plan.out_dims.insert(plan.out_dims.begin(), plan.num_groups);
    plan.out_lhs.insert(plan.out_lhs.begin(), 0);
    plan.out_rhs.insert(plan.out_rhs.begin(), 0);
    plan.out_prefix.insert(plan.out_prefix.begin(), 0);
    plan.out_ragged.insert(plan.out_ragged.begin(), 0);
    plan.out_group_dim = 0;
  }
  RETURN_IF_ERROR(CheckResultDims(instruction.shape(), plan, "ragged-dot"));

  if (plan.mode != RaggedMode::kBatch) {
    // Cumulative bounds per prefix, summed with wrap-around in group_sizes' type.
    const PrimitiveType gs_type = gs_shape.element_type();
    const bool is_unsigned = primitive_util::IsUnsignedIntegralType(gs_type);
    const int64_t g = plan.num_groups;
    const int64_t prefixes = g == 0 ? 0 : group_sizes.element_count() / g;
    plan.bounds.assign(prefixes * (g + 1), 0);
    for (int64_t pre = 0; pre < prefixes; ++pre) {
      uint64_t sum = 0;
      for (int64_t j = 0; j < g; ++j) {
        const int64_t i = pre * g + j;
        sum += is_unsigned ? group_sizes.GetAsUint64(i) : static_cast<uint64_t>(group_sizes.GetAsInt64(i));
        plan.bounds[pre * (g + 1) + j + 1] = AsGroupType(sum, gs_type);
      }
    }
  }
  return ConvertAndContract(instruction.shape(), lhs, rhs, plan);
}

// operand * broadcast(scale) in the result type, rounded once to it.
template <typename T>
absl::StatusOr<Literal> Dequantize(const Literal& operand, const Literal& scale, PrimitiveType type) {
  ASSIGN_OR_RETURN(Literal x, ConvertedTo(operand, type));
  ASSIGN_OR_RETURN(Literal s, ConvertedTo(scale, type));
  std::vector<T> xv, sv;
  ReadValues(x, &xv);
  ReadValues(s, &sv);
  const Shape& shape = operand.shape();
  const int64_t rank = shape.rank();
  if (scale.shape().rank() == 0) {
    for (T& v : xv) v = v * sv[0];
  } else if (!xv.empty()) {
    const std::vector<int64_t> scale_strides = RowMajorStrides(scale.shape().dimensions());
    std::vector<int64_t> block(rank);
    for (int64_t d = 0; d < rank; ++d) block[d] = shape.dimensions(d) / scale.shape().dimensions(d);
    std::vector<int64_t> idx(rank, 0);
    for (size_t i = 0; i < xv.size(); ++i) {
      int64_t si = 0;
      for (int64_t d = 0; d < rank; ++d) si += (idx[d] / block[d]) * scale_strides[d];
      xv[i] = xv[i] * sv[si];
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < shape.dimensions(d)) break;
        idx[d] = 0;
      }
    }
  }
  Shape result_shape = shape;
  result_shape.set_element_type(type);
  return WriteValues(result_shape, xv);
}

absl::Status CheckScale(const Shape& operand, const Shape& scale, const char* what) {
  if (scale.rank() == 0) return absl::OkStatus();
  if (scale.rank() != operand.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("scaled-dot ", what, " scale ", scale.ToString(),
                                                   " must be a scalar or have the rank of ", operand.ToString()));
  }
  for (int64_t d = 0; d < scale.rank(); ++d) {
    const int64_t o = operand.dimensions(d), s = scale.dimensions(d);
    if (s == 0 ? o != 0 : o % s != 0) {
      return absl::InvalidArgumentError(absl::StrCat("scaled-dot ", what, " scale ", scale.ToString(), " dimension ",
                                                     d, " does not divide ", operand.ToString()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> ScaledDot(EvalContext&, const HloInstruction& instruction, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperands(operands, 4));
  const Shape& result_shape = instruction.shape();
  if (!result_shape.IsArray()) return absl::InvalidArgumentError("scaled-dot result must be an array");
  // XLA's operand order: lhs, rhs, lhs_scale, rhs_scale.
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  RETURN_IF_ERROR(CheckScale(lhs.shape(), operands[2]->shape(), "lhs"));
  RETURN_IF_ERROR(CheckScale(rhs.shape(), operands[3]->shape(), "rhs"));
  ContractionPlan plan;
  RETURN_IF_ERROR(PlanDot(lhs.shape(), rhs.shape(), instruction.attrs().dot_dimension_numbers(), -1, -1, {}, &plan));
  RETURN_IF_ERROR(CheckResultDims(result_shape, plan, "scaled-dot"));
  const PrimitiveType type = result_shape.element_type();
  return WithAccumulator(type, [&](auto accumulator) -> absl::StatusOr<Literal> {
    using Accumulator = decltype(accumulator);
    ASSIGN_OR_RETURN(Literal a, Dequantize<Accumulator>(lhs, *operands[2], type));
    ASSIGN_OR_RETURN(Literal b, Dequantize<Accumulator>(rhs, *operands[3], type));
    return RunContraction<Accumulator>(result_shape, a, b, plan);
  });
}

}  // namespace

void RegisterRaggedAndScaledDotHandlers(HandlerTable* table) {
  table->Register(HloOpcode::kRaggedDot, RaggedDot);
  table->Register(HloOpcode::kScaledDot, ScaledDot);
}

}  // namespace linalg
}  // namespace interpreter
}  // namespace xla
