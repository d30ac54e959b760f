#ifndef XLA_BACKENDS_GPU_GPU_FFT_EXPANDER_H_
#define XLA_BACKENDS_GPU_GPU_FFT_EXPANDER_H_

// fft on the gpu backend is one kernel (ptx_linalg.cc) only for a single transformed axis:
// the fast form is a block transforming rows of a power-of-two length of up to
// kLongestSharedMemoryFft in shared memory. Every other fft becomes a chain of such
// single-axis ffts here, before the shared pipeline:
//  - 2-d and 3-d transforms: one 1-d fft per axis, a leading axis moved last by a transpose
//    and back (RFFT transforms its last axis first, IRFFT last, so the Hermitian half
//    spectrum is that of the last axis as XLA defines it);
//  - power-of-two lengths above kLongestSharedMemoryFft: the four-step (Bailey) form,
//    n = n1 * n2: transpose, n1-point ffts, twiddles exp(+-2 pi i j k / n), transpose,
//    n2-point ffts, transpose; RFFT transforms the real row as complex and keeps the half
//    spectrum, IRFFT rebuilds the full spectrum by Hermitian symmetry first;
//  - other lengths above kLongestDirectFft: Bluestein's chirp-z form, a circular
//    convolution of power-of-two length m >= 2n - 1 computed by ffts.
// Chains compute in c128 (f64 for real ends) and round once to the op's type, as the
// interpreter computes in complex<double>. Shorter non-power-of-two lengths stay one kernel
// (a direct DFT).

#include <cstdint>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace gpu {

// The longest row the fft kernel transforms in shared memory (2048 complex doubles: 32 KiB
// of the 48 KiB a block may have statically).
inline constexpr int64_t kLongestSharedMemoryFft = 2048;
// Non-power-of-two rows up to this length are a direct DFT (O(n) per output element);
// longer ones go through Bluestein's form.
inline constexpr int64_t kLongestDirectFft = 64;

// Rewrites the module's ffts as described above; returns whether anything changed.
absl::StatusOr<bool> ExpandFftsForGpu(HloModule* module);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_GPU_FFT_EXPANDER_H_
