#include "backends/cpu/passes/pass.h"

#include "absl/strings/str_cat.h"
#include "hlo/hlo_verifier.h"

namespace xla {
namespace cpu {

absl::StatusOr<bool> HloPassPipeline::Run(HloModule* module) {
  changed_.clear();
  bool changed = false;
  for (const auto& pass : passes_) {
    absl::StatusOr<bool> pass_changed = pass->Run(module);
    if (!pass_changed.ok()) {
      return absl::Status(pass_changed.status().code(),
                          absl::StrCat("pass ", std::string(pass->name()), ": ",
                                       pass_changed.status().message()));
    }
    if (!*pass_changed) continue;
    changed = true;
    changed_.push_back(std::string(pass->name()));
    if (verify_) {
      absl::Status status = VerifyHloModule(*module);
      if (!status.ok()) {
        return absl::InternalError(absl::StrCat("module does not verify after pass ",
                                                std::string(pass->name()), ": ", status.message()));
      }
    }
  }
  return changed;
}

absl::StatusOr<bool> FixedPointPass::Run(HloModule* module) {
  bool changed = false;
  for (int i = 0; i < max_iterations_; ++i) {
    absl::StatusOr<bool> iteration_changed = pass_->Run(module);
    if (!iteration_changed.ok()) return iteration_changed.status();
    if (!*iteration_changed) break;
    changed = true;
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
