// The gather generator: an output element's batch coordinates pick an index vector, whose
// components (through start_index_map) and the batching dimensions give the slice start,
// clamped so the slice fits in the operand (as XLA); the offset coordinates then walk the
// slice. Pure index arithmetic, so gathers fuse like any data-movement op.
#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/primitive_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

bool Contains(const std::vector<int64_t>& dims, int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); }

template <typename Repeated>
std::vector<int64_t> ToVector(const Repeated& field) {
  return std::vector<int64_t>(field.begin(), field.end());
}

}  // namespace

llvm::Value* ElementalEmitter::IndexToI64(llvm::Value* v, PrimitiveType type) {
  // u64 values past INT64_MAX saturate (the interpreter reads them so), then clamp high.
  if (type == U64) return b_->CreateSelect(b_->CreateICmpSLT(v, I64(0)), I64(INT64_MAX), v);
  return primitive_util::IsUnsignedIntegralType(type) ? b_->CreateZExtOrTrunc(v, b_->getInt64Ty())
                                                      : b_->CreateSExtOrTrunc(v, b_->getInt64Ty());
}

absl::StatusOr<Generator> ElementalEmitter::MakeGatherGenerator(const HloInstruction* hlo,
                                                                const OperandGenerator& operand) {
  const auto& dnums = hlo->attrs().gather_dimension_numbers();
  const Shape& in_shape = hlo->operand(0)->shape();
  const Shape& indices_shape = hlo->operand(1)->shape();
  const Shape& out_shape = hlo->shape();
  const int64_t rank = in_shape.rank();
  const std::vector<int64_t> start_map = ToVector(dnums.start_index_map());
  const std::vector<int64_t> collapsed = ToVector(dnums.collapsed_slice_dims());
  const std::vector<int64_t> offset_dims = ToVector(dnums.offset_dims());
  const std::vector<int64_t> batching = ToVector(dnums.operand_batching_dims());
  const std::vector<int64_t> indices_batching = ToVector(dnums.start_indices_batching_dims());
  const std::vector<int64_t> slice_sizes(hlo->attrs().gather_slice_sizes().begin(),
                                         hlo->attrs().gather_slice_sizes().end());
  const int64_t vector_dim = dnums.index_vector_dim();
  if (static_cast<int64_t>(slice_sizes.size()) != rank || vector_dim < 0 || vector_dim > indices_shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("gather ", hlo->name(), ": malformed dimension numbers"));
  }
  std::vector<int64_t> indices_batch_dims, window_dims, out_batch_dims;
  for (int64_t d = 0; d < indices_shape.rank(); ++d) {
    if (d != vector_dim) indices_batch_dims.push_back(d);
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(collapsed, d) && !Contains(batching, d)) window_dims.push_back(d);
  }
  for (int64_t d = 0; d < out_shape.rank(); ++d) {
    if (!Contains(offset_dims, d)) out_batch_dims.push_back(d);
  }
  // Operand batching dim i takes the batch coordinate of indices dim indices_batching[i].
  std::vector<int64_t> batching_position;
  for (int64_t d : indices_batching) {
    auto it = std::find(indices_batch_dims.begin(), indices_batch_dims.end(), d);
    if (it == indices_batch_dims.end()) return absl::InvalidArgumentError("gather: bad indices batching dims");
    batching_position.push_back(it - indices_batch_dims.begin());
  }
  if (window_dims.size() != offset_dims.size() || out_batch_dims.size() != indices_batch_dims.size() ||
      batching.size() != batching_position.size()) {
    return absl::InvalidArgumentError(absl::StrCat("gather ", hlo->name(), ": dimension numbers do not match the shapes"));
  }
  const PrimitiveType index_type = indices_shape.element_type();
  ASSIGN_OR_RETURN(Generator operand_gen, operand(0));
  ASSIGN_OR_RETURN(Generator indices_gen, operand(1));
  return Generator([=](const IrIndex& out) -> absl::StatusOr<llvm::Value*> {
    std::vector<llvm::Value*> start(rank, I64(0));
    IrIndex ii;
    ii.multi.assign(indices_shape.rank(), nullptr);
    for (size_t j = 0; j < out_batch_dims.size(); ++j) ii.multi[indices_batch_dims[j]] = out.multi[out_batch_dims[j]];
    for (size_t k = 0; k < start_map.size(); ++k) {
      if (vector_dim < indices_shape.rank()) ii.multi[vector_dim] = I64(static_cast<int64_t>(k));
      ASSIGN_OR_RETURN(llvm::Value* v, indices_gen(ii));
      start[start_map[k]] = IndexToI64(v, index_type);
    }
    for (size_t i = 0; i < batching.size(); ++i) start[batching[i]] = out.multi[out_batch_dims[batching_position[i]]];
    IrIndex in;
    in.multi.assign(rank, nullptr);
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t hi = std::max<int64_t>(0, in_shape.dimensions(static_cast<int>(d)) - slice_sizes[d]);
      llvm::Value* s = b_->CreateSelect(b_->CreateICmpSLT(start[d], I64(0)), I64(0), start[d]);
      in.multi[d] = b_->CreateSelect(b_->CreateICmpSGT(s, I64(hi)), I64(hi), s);
    }
    for (size_t k = 0; k < window_dims.size(); ++k) {
      in.multi[window_dims[k]] = b_->CreateAdd(in.multi[window_dims[k]], out.multi[offset_dims[k]]);
    }
    return operand_gen(in);
  });
}

}  // namespace cpu
}  // namespace xla
