#ifndef XLA_BACKENDS_GPU_LIBDEVICE_H_
#define XLA_BACKENDS_GPU_LIBDEVICE_H_

// Transcendental functions in kernels through NVIDIA's libdevice (internal to the gpu
// codegen: includes LLVM headers; only ptx_emitter.cc includes it).
//
// The cpu elemental emitter computes sine, power, erf, f64 exp/log/tanh and the like with libm
// calls (sinf, pow, ...); NVPTX cannot call the host's libm, and its instruction selection
// stops LLVM with a fatal error on llvm.sin.* and friends. libdevice (libdevice.10.bc in the
// CUDA toolkit, read at compile time, never shipped with the executable) defines the same
// functions as device bitcode: __nv_sinf, __nv_pow, ... So the kernel module's calls are
// renamed to them, and only the functions used are linked in, internalized and then inlined
// by the optimizer; the PTX has no external calls left.
//
// libdevice asks __nvvm_reflect about the compilation: __CUDA_FTZ is 0 (XLA keeps denormals,
// as the cpu backend and the interpreter do), __CUDA_PREC_SQRT is 1 (correctly rounded square
// roots) and __CUDA_ARCH is the target's sm * 10; the calls are replaced by these constants.
// frem (remainder) becomes __nv_fmodf/__nv_fmod, which are exact as std::fmod is (NVPTX's own
// lowering computes x - trunc(x / y) * y, which is not).

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "backends/gpu/ptx_emitter.h"  // LibdevicePath
#include "llvm/IR/Module.h"

namespace xla {
namespace gpu {

// The libdevice function for the libm routine or LLVM intrinsic called `name` ("sinf" ->
// "__nv_sinf", "llvm.pow.f64" -> "__nv_pow"), or "" when none is mapped (signatures are
// checked against libdevice's when linking).
std::string LibdeviceFunctionFor(const std::string& name);

// Renames every mapped call of `module` (and its frem instructions) to libdevice's functions
// and links them in (nothing is read when no call needs it). `describe` names, for error
// messages, the op a kernel function computes. UNIMPLEMENTED when a call needs libdevice
// and the file cannot be read; INTERNAL when it does not link. Calls with no libdevice
// counterpart stay as they are, for the caller's refusal.
absl::Status LinkLibdevice(llvm::Module& module, int sm,
                           const std::function<std::string(const llvm::Function&)>& describe);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_LIBDEVICE_H_
