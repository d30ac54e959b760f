#include "backends/cpu/passes/tuple_constants.h"

#include <vector>

#include "backends/cpu/passes/pass_util.h"
#include "hlo/status_macros.h"

namespace xla {
namespace cpu {
namespace {

// `value` as instructions of `computation`: a constant for an array, a tuple of the
// elements' instructions for a tuple.
HloInstruction* Split(HloComputation* computation, const Literal& value) {
  if (!value.IsTuple()) return AddConstant(computation, value.Clone());
  std::vector<HloInstruction*> elements;
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < value.tuple_element_count(); ++i) {
    elements.push_back(Split(computation, value.tuple_element(i)));
    shapes.push_back(elements.back()->shape());
  }
  return AddWithShape(computation, HloOpcode::kTuple, Shape::MakeTuple(std::move(shapes)), elements);
}

}  // namespace

absl::StatusOr<bool> TupleConstantSplitter::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      if (hlo->opcode() != HloOpcode::kConstant || !hlo->shape().IsTuple() || !hlo->has_literal() ||
          !hlo->literal().IsTuple()) {
        continue;
      }
      HloInstruction* tuple = Split(computation, hlo->literal());
      RETURN_IF_ERROR(computation->ReplaceInstruction(hlo, tuple));
      changed = true;
    }
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
