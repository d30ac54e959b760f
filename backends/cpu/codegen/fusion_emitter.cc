// Fusion kernels: the generators of every fused instruction, and the loops of a kernel.
// A fusion with row reductions inside (passes/fusion.h: reduce of x[R, ...] over all but the
// first dimension, used only along row-aligned paths to the root) computes each of them once
// per row of the kernel's outermost loop, before that row's elements: a softmax then reads each
// row from memory once and finds it in cache for its other passes, and rows split across
// threads like any loop.
#include <map>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

// The fused reduces that are not the root, in def-before-use order.
std::vector<const HloInstruction*> RowReductions(const HloInstruction& hlo) {
  std::vector<const HloInstruction*> reductions;
  if (hlo.opcode() != HloOpcode::kFusion || hlo.to_apply() == nullptr) return reductions;
  const HloComputation* fused = hlo.to_apply();
  for (const HloInstruction* inner : fused->MakeInstructionPostOrder()) {
    if (inner->opcode() == HloOpcode::kReduce && inner != fused->root_instruction()) reductions.push_back(inner);
  }
  return reductions;
}

}  // namespace

absl::StatusOr<ElementalEmitter::FusionGenerators> ElementalEmitter::MakeFusionGenerators(
    const HloInstruction* hlo, const OperandGenerator& operand) {
  const HloComputation* fused = hlo->to_apply();
  if (fused == nullptr) {
    return absl::UnimplementedError(absl::StrCat("cpu backend: fusion ", hlo->name(), " has no computation"));
  }
  auto generators = std::make_shared<std::map<const HloInstruction*, Generator>>();
  for (const HloInstruction* inner : fused->MakeInstructionPostOrder()) {
    if (inner->opcode() == HloOpcode::kParameter) {
      ASSIGN_OR_RETURN((*generators)[inner], operand(inner->parameter_number()));
      continue;
    }
    OperandGenerator inner_operand = [generators, inner](int64_t i) -> absl::StatusOr<Generator> {
      return generators->at(inner->operand(i));
    };
    ASSIGN_OR_RETURN(Generator generator, MakeGenerator(inner, inner_operand));
    if (inner->opcode() == HloOpcode::kReduce && inner != fused->root_instruction()) {
      // A row reduction: its value for the current row once EmitKernelLoops computed it.
      generator = [this, inner, generator](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        auto it = row_values_.find(inner);
        if (it != row_values_.end()) return it->second;
        return generator(index);
      };
    }
    (*generators)[inner] = std::move(generator);
  }
  return generators;
}

absl::Status EmitKernelLoops(ElementalEmitter* e, const HloInstruction* hlo, const OperandGenerator& operand,
                             const Shape& iteration, llvm::Value* begin, llvm::Value* end,
                             const std::function<absl::Status(const IrIndex&)>& body) {
  const std::vector<const HloInstruction*> reductions = RowReductions(*hlo);
  llvm::IRBuilder<>* b = e->b();
  if (reductions.empty()) return EmitLoopNest(b, iteration, begin, end, body);
  if (iteration.rank() < 1 || iteration.layout().minor_to_major().back() != 0) {
    return absl::InternalError(absl::StrCat("fusion ", hlo->name(), " has row reductions but its output ",
                                            iteration.ToString(true), " is not row-major"));
  }
  ASSIGN_OR_RETURN(ElementalEmitter::FusionGenerators generators, e->MakeFusionGenerators(hlo, operand));
  absl::Status status = EmitForLoop(b, begin, end, "row", [&](llvm::Value* row) -> absl::Status {
    IrIndex at_row;
    at_row.multi = {row};
    for (const HloInstruction* reduction : reductions) {
      ASSIGN_OR_RETURN(llvm::Value* value, generators->at(reduction)(at_row));
      e->SetRowValue(reduction, value);
    }
    return EmitLoopNest(b, iteration, row, b->CreateAdd(row, b->getInt64(1)), body);
  });
  e->ClearRowValues();
  return status;
}

}  // namespace cpu
}  // namespace xla
