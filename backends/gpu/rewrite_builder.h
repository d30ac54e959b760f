#ifndef XLA_BACKENDS_GPU_REWRITE_BUILDER_H_
#define XLA_BACKENDS_GPU_REWRITE_BUILDER_H_

// Adds the instructions of an HLO rewrite (gpu_conv_gemm.cc, gpu_expanders.cc) to one
// computation, each with the default layout.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/cpu/passes/pass_util.h"
#include "hlo/hlo_computation.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {

class RewriteBuilder {
 public:
  explicit RewriteBuilder(HloComputation* computation) : computation_(computation) {}

  HloInstruction* Add(HloOpcode opcode, PrimitiveType type, const std::vector<int64_t>& dims,
                      std::vector<HloInstruction*> operands, const HloInstructionProto& attrs = HloInstructionProto()) {
    return cpu::AddWithShape(computation_, opcode, cpu::WithDefaultLayout(ShapeUtil::MakeShape(type, dims)), operands,
                             attrs);
  }
  HloInstruction* AddShaped(HloOpcode opcode, const Shape& shape, std::vector<HloInstruction*> operands,
                            const HloInstructionProto& attrs = HloInstructionProto()) {
    return cpu::AddWithShape(computation_, opcode, shape, operands, attrs);
  }
  HloInstruction* Constant(Literal literal) { return cpu::AddConstant(computation_, std::move(literal)); }
  // x[start[d] : limit[d]] in every dimension d, stride 1.
  HloInstruction* Slice(HloInstruction* x, const std::vector<int64_t>& start, const std::vector<int64_t>& limit) {
    HloInstructionProto attrs;
    std::vector<int64_t> dims;
    for (size_t d = 0; d < start.size(); ++d) {
      auto* dim = attrs.add_slice_dimensions();
      dim->set_start(start[d]);
      dim->set_limit(limit[d]);
      dim->set_stride(1);
      dims.push_back(limit[d] - start[d]);
    }
    return Add(HloOpcode::kSlice, x->shape().element_type(), dims, {x}, attrs);
  }
  static std::vector<int64_t> Dims(const HloInstruction* x) {
    return std::vector<int64_t>(x->shape().dimensions().begin(), x->shape().dimensions().end());
  }
  HloInstruction* Convert(HloInstruction* x, PrimitiveType type) {
    if (x->shape().element_type() == type) return x;
    return Add(HloOpcode::kConvert, type, Dims(x), {x});
  }
  HloInstruction* Reshape(HloInstruction* x, const std::vector<int64_t>& dims) {
    if (Dims(x) == dims) return x;
    return Add(HloOpcode::kReshape, x->shape().element_type(), dims, {x});
  }
  // out dimension i = x's dimension perm[i].
  HloInstruction* Transpose(HloInstruction* x, const std::vector<int64_t>& perm) {
    bool identity = true;
    for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
    if (identity) return x;
    HloInstructionProto attrs;
    std::vector<int64_t> dims;
    for (int64_t p : perm) {
      attrs.add_dimensions(p);
      dims.push_back(x->shape().dimensions(p));
    }
    return Add(HloOpcode::kTranspose, x->shape().element_type(), dims, {x}, attrs);
  }
  absl::StatusOr<HloInstruction*> Scalar(PrimitiveType type, double value) {
    ASSIGN_OR_RETURN(Literal literal, cpu::ScalarLiteral(type, value));
    return cpu::AddConstant(computation_, std::move(literal));
  }

 private:
  HloComputation* computation_;
};

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_REWRITE_BUILDER_H_
