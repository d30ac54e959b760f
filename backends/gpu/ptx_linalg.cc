// fft, cholesky and triangular-solve as gpu kernels. None yet: the gpu compiler
// refuses them as ops it does not run.
#include "absl/strings/str_cat.h"
#include "backends/gpu/ptx_kernel_util.h"

namespace xla {
namespace gpu {

bool IsLinalgKernel(const HloInstruction&) { return false; }

absl::Status EmitLinalgBody(KernelContext&, const HloInstruction* hlo) {
  return absl::InternalError(absl::StrCat("gpu backend: no linalg kernel for ", hlo->name()));
}

}  // namespace gpu
}  // namespace xla
