#ifndef XLA_BACKENDS_CPU_PASSES_LAYOUT_ASSIGNMENT_H_
#define XLA_BACKENDS_CPU_PASSES_LAYOUT_ASSIGNMENT_H_

#include "backends/cpu/passes/pass.h"

namespace xla {
namespace cpu {

// CPU layout assignment: every value inside the module uses the default descending
// (row-major) layout, so code generation only ever indexes row-major buffers. The module's
// interface keeps its layouts:
//  - entry parameters keep theirs (entry_computation_layout's when it is set); one with
//    another layout is copied once to row-major (`copy`, through get-tuple-element/tuple
//    for tuple parameters) and every user reads the copy;
//  - the entry result keeps its layout (entry_computation_layout's result when set, else
//    the root's): a row-major root is copied into it at the end.
// Bitcasts (whose meaning depends on both layouts) are first rewritten into transpose,
// reshape and bitcast-convert ops with the same result, so none remain unless their
// element widths differ. Custom calls keep their result layout too and are normalized the same way. Constants'
// literals are relaid out. After this pass every shape carries a layout.
class LayoutAssignment : public HloPass {
 public:
  std::string_view name() const override { return "layout-assignment"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_LAYOUT_ASSIGNMENT_H_
