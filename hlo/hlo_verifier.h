#ifndef XLA_HLO_HLO_VERIFIER_H_
#define XLA_HLO_HLO_VERIFIER_H_

// Structural and semantic verification of an HLO module. Every error is InvalidArgument
// naming the computation and instruction; when the instruction came from HLO text the
// message starts with "LINE:COL: " so tools can print FILE:LINE:COL.

#include "absl/status/status.h"
#include "hlo/hlo_module.h"

namespace xla {

struct HloVerifierOptions {
  // Check every instruction's declared shape against shape inference / op rules.
  bool check_shapes = true;
  // Require every array shape to carry a layout (true after parsing with default layouts).
  bool require_layouts = false;
};

absl::Status VerifyHloModule(const HloModule& module, const HloVerifierOptions& options = {});

}  // namespace xla

#endif  // XLA_HLO_HLO_VERIFIER_H_
