// Random-number ops as gpu kernels. None yet: rng, rng-bit-generator and
// rng-get-and-update-state are refused by the gpu compiler as ops it does not run.
#include "absl/strings/str_cat.h"
#include "backends/gpu/ptx_kernel_util.h"

namespace xla {
namespace gpu {

bool IsRngKernel(const HloInstruction&) { return false; }

absl::Status EmitRngBody(KernelContext&, const HloInstruction* hlo) {
  return absl::InternalError(absl::StrCat("gpu backend: no rng kernel for ", hlo->name()));
}

}  // namespace gpu
}  // namespace xla
