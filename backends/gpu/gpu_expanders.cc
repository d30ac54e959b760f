#include "backends/gpu/gpu_expanders.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/passes/blocked_solvers.h"
#include "backends/cpu/passes/fold_transposes_into_dots.h"
#include "backends/cpu/passes/pass_util.h"
#include "backends/cpu/passes/reduction_splitter.h"
#include "backends/gpu/gpu_conv_gemm.h"
#include "backends/gpu/gpu_plan.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace gpu {
namespace {

// (a, b, index_a, index_b) -> a > b (largest) or a < b, floats in their total order.
HloComputation* TopKComparator(HloModule* module, PrimitiveType type, bool largest) {
  const std::string name = absl::StrCat("topk_compare_", std::string(primitive_util::LowercasePrimitiveTypeName(type)),
                                        largest ? "_gt" : "_lt");
  if (HloComputation* existing = module->GetComputationWithName(name)) return existing;
  auto comparator = std::make_unique<HloComputation>(name);
  std::vector<HloInstruction*> params;
  for (int i = 0; i < 4; ++i) {
    auto p = HloInstruction::Create(HloOpcode::kParameter,
                                    cpu::WithDefaultLayout(ShapeUtil::MakeShape(i < 2 ? type : S32, {})));
    p->mutable_attrs()->set_parameter_number(i);
    p->set_name(absl::StrCat("p", i));
    params.push_back(comparator->AddInstruction(std::move(p)));
  }
  auto compare = HloInstruction::Create(HloOpcode::kCompare, cpu::WithDefaultLayout(ShapeUtil::MakeShape(PRED, {})),
                                        {params[0], params[1]});
  compare->mutable_attrs()->set_comparison_direction(largest ? "GT" : "LT");
  if (primitive_util::IsFloatingPointType(type)) compare->mutable_attrs()->set_comparison_type("TOTALORDER");
  compare->set_name("compare");
  comparator->set_root_instruction(comparator->AddInstruction(std::move(compare)));
  return module->AddEmbeddedComputation(std::move(comparator));
}

absl::Status ExpandTopK(HloModule* module, HloComputation* computation, HloInstruction* topk) {
  HloInstruction* x = topk->mutable_operand(0);
  const Shape& in = x->shape();
  const int64_t last = in.rank() - 1;
  const int64_t k = topk->attrs().k();
  const PrimitiveType type = in.element_type();
  const Shape indices_shape = cpu::WithDefaultLayout(ShapeUtil::MakeShape(S32, in.dimensions()));
  HloInstructionProto iota_attrs;
  iota_attrs.add_dimensions(last);
  HloInstruction* iota = cpu::AddWithShape(computation, HloOpcode::kIota, indices_shape, {}, iota_attrs);
  HloInstructionProto sort_attrs;
  sort_attrs.add_dimensions(last);
  sort_attrs.set_is_stable(true);
  const Shape values_shape = cpu::WithDefaultLayout(ShapeUtil::MakeShape(type, in.dimensions()));
  HloInstruction* sort = cpu::AddWithShape(computation, HloOpcode::kSort,
                                           ShapeUtil::MakeTupleShape({values_shape, indices_shape}), {x, iota}, sort_attrs);
  sort->AppendComputation(TopKComparator(module, type, topk->attrs().largest()));
  std::vector<HloInstruction*> parts;
  for (int64_t i = 0; i < 2; ++i) {
    const Shape& sorted_shape = i == 0 ? values_shape : indices_shape;
    HloInstructionProto gte_attrs;
    gte_attrs.set_tuple_index(i);
    HloInstruction* sorted = cpu::AddWithShape(computation, HloOpcode::kGetTupleElement, sorted_shape, {sort}, gte_attrs);
    HloInstructionProto slice_attrs;
    for (int64_t d = 0; d < in.rank(); ++d) {
      auto* dim = slice_attrs.add_slice_dimensions();
      dim->set_start(0);
      dim->set_limit(d == last ? k : in.dimensions(d));
      dim->set_stride(1);
    }
    parts.push_back(cpu::AddWithShape(computation, HloOpcode::kSlice, topk->shape().tuple_shapes(i), {sorted},
                                      slice_attrs));
  }
  HloInstruction* tuple = cpu::AddWithShape(computation, HloOpcode::kTuple, topk->shape(), parts);
  RETURN_IF_ERROR(topk->ReplaceAllUsesWith(tuple));
  if (computation->root_instruction() == topk) computation->set_root_instruction(tuple);
  return computation->RemoveInstruction(topk);
}

// cholesky or triangular-solve on a type narrower than f64/c128: the same op on operands
// converted to f64 (c128 for complex), its result converted back, so the value is rounded
// once from double as the interpreter rounds it.
absl::Status WidenSolver(HloComputation* computation, HloInstruction* hlo) {
  const PrimitiveType type = hlo->shape().element_type();
  const PrimitiveType wide = primitive_util::IsComplexType(type) ? C128 : F64;
  std::vector<HloInstruction*> operands;
  for (HloInstruction* operand : hlo->operands()) {
    Shape shape = operand->shape();
    shape.set_element_type(wide);
    operands.push_back(cpu::AddWithShape(computation, HloOpcode::kConvert, shape, {operand}));
  }
  Shape wide_shape = hlo->shape();
  wide_shape.set_element_type(wide);
  HloInstruction* widened = cpu::AddWithShape(computation, hlo->opcode(), wide_shape, operands, hlo->attrs());
  HloInstruction* back = cpu::AddWithShape(computation, HloOpcode::kConvert, hlo->shape(), {widened});
  RETURN_IF_ERROR(hlo->ReplaceAllUsesWith(back));
  if (computation->root_instruction() == hlo) computation->set_root_instruction(back);
  return computation->RemoveInstruction(hlo);
}

bool NeedsWidening(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kCholesky && hlo.opcode() != HloOpcode::kTriangularSolve) return false;
  if (!hlo.shape().IsArray()) return false;
  const PrimitiveType type = hlo.shape().element_type();
  return (primitive_util::IsFloatingPointType(type) && type != F64) || type == C64;
}

}  // namespace

absl::StatusOr<bool> ExpandForGpu(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      if (NeedsWidening(*hlo)) {
        RETURN_IF_ERROR(WidenSolver(computation, hlo));
        changed = true;
        continue;
      }
      if (hlo->opcode() != HloOpcode::kTopk) continue;
      const Shape& in = hlo->operand(0)->shape();
      const int64_t k = hlo->attrs().k();
      if (!in.IsArray() || in.rank() < 1 || k < 0 || k > in.dimensions(in.rank() - 1) || !hlo->shape().IsTuple() ||
          hlo->shape().tuple_shapes_size() != 2) {
        return absl::InvalidArgumentError(absl::StrCat("topk ", hlo->name(), ": k=", k, " of ", in.ToString(true)));
      }
      RETURN_IF_ERROR(ExpandTopK(module, computation, hlo));
      changed = true;
    }
  }
  // After widening: large solvers as loops of small ones and dots, in double.
  ASSIGN_OR_RETURN(bool blocked, cpu::BlockSolvers(module, kGpuSolverBlock));
  ASSIGN_OR_RETURN(bool convolutions, RewriteConvolutionsAsGemm(module));
  // Reductions with few outputs: a block per chunk of a reduction to a scalar, and enough
  // partial outputs for the rest (a thread each), instead of a few threads reading it all.
  ASSIGN_OR_RETURN(bool to_scalar, cpu::ReductionSplitter(kGpuScalarReductionChunks).Run(module));
  ASSIGN_OR_RETURN(bool few_outputs, cpu::FewOutputReductionSplitter(kGpuMinReductionOutputs, kGpuScalarReductionChunks).Run(module));
  return changed || blocked || convolutions || to_scalar || few_outputs;
}


absl::StatusOr<bool> FoldTransposesIntoGemms(HloModule* module) {
  return cpu::FoldTransposesIntoDots(module, [](const HloInstruction& dot) { return CublasGemm(dot).has_value(); });
}

}  // namespace gpu
}  // namespace xla
