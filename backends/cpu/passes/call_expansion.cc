#include "backends/cpu/passes/call_expansion.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"

namespace xla {
namespace cpu {

absl::Status CheckCallExpansion(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return absl::OkStatus();
  // Per computation: its instructions with every callee's expansion at each call site
  // (saturating past the limit), and how deep its calls nest.
  struct Size {
    int64_t expanded = 0, nesting = 1;
  };
  std::map<const HloComputation*, Size> sizes;
  for (const HloComputation* computation : module.MakeComputationPostOrder()) {  // callees first
    Size size;
    for (const HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      size.expanded = std::min(size.expanded + 1, kMostExpandedInstructions + 1);
      for (const HloComputation* callee : hlo->called_computations()) {
        const auto it = sizes.find(callee);
        if (it == sizes.end()) continue;  // not a computation of this module (the verifier refuses those)
        size.expanded = std::min(size.expanded + it->second.expanded, kMostExpandedInstructions + 1);
        size.nesting = std::max(size.nesting, it->second.nesting + 1);
      }
    }
    sizes[computation] = size;
  }
  const Size& whole = sizes[entry];
  if (whole.nesting > kMostCallNesting) {
    return absl::InvalidArgumentError(absl::StrCat("module ", module.name(), ": its computations nest ", whole.nesting,
                                                   " deep (while bodies, branches, calls, reducers, fusions), more "
                                                   "than the ",
                                                   kMostCallNesting, " the backends emit"));
  }
  if (whole.expanded > kMostExpandedInstructions) {
    return absl::InvalidArgumentError(absl::StrCat(
        "module ", module.name(), ": emitted with each called computation in place at every call site, as the "
        "cpu and gpu backends emit them, it comes to more than ", kMostExpandedInstructions,
        " instructions (computations shared by several call sites, level after level)"));
  }
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace xla
