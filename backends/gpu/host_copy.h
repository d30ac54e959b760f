#ifndef XLA_BACKENDS_GPU_HOST_COPY_H_
#define XLA_BACKENDS_GPU_HOST_COPY_H_

// Host-side copies between a transfer's pinned staging buffers and the caller's memory
// (gpu_lanes.cc), split across a few threads when large. Copying into memory the process has
// not touched yet (a literal made for a download) is bound by its page faults, which the
// kernel serves on several cores at once; into touched memory one core's copy is also below
// what the device's DMA delivers.

#include <cstddef>

namespace xla {
namespace gpu {

// Pieces of at least this many bytes go to other threads.
inline constexpr size_t kHostCopyPieceBytes = size_t{1} << 20;

// The threads a large copy uses (the caller's among them): $XLA_GPU_COPY_THREADS, else half
// the host's cores; 1 to 8, fixed at the first call.
int HostCopyThreads();

// memcpy(to, from, n), in up to HostCopyThreads() page-aligned pieces copied at once; returns
// when all are done. Safe to call from several threads.
void HostCopy(void* to, const void* from, size_t n);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_HOST_COPY_H_
