#ifndef XLA_BACKENDS_GPU_PTX_SORT_H_
#define XLA_BACKENDS_GPU_PTX_SORT_H_

// What a sort kernel (ptx_sort.cc) needs besides its operands and outputs: device
// scratch memory for rows too long for a block's shared memory. No LLVM here: the compiler
// records the bytes in the kernel's plan step (GpuPlanStep::scratch_bytes).

#include <cstdint>

#include "absl/status/statusor.h"
#include "hlo/hlo_instruction.h"

namespace xla {
namespace gpu {

// Rows of up to this many elements sort in a block's shared memory; longer ones in scratch.
inline constexpr int64_t kLongestSharedMemorySort = 8192;
// The static shared memory a sort's block takes at most: a tile of positions, and the
// operands' values beside them where they fit.
inline constexpr int64_t kSortSharedMemoryBytes = 48 * 1024;
// The most scratch one sort kernel asks for; rows whose permutation alone needs more are
// refused at compile time.
inline constexpr int64_t kMostSortScratchBytes = int64_t{1} << 30;
// The most rows a long sort has in flight at once (a scratch slot each, a block each).
inline constexpr int64_t kMostSortRowsInFlight = 1024;

// Long rows as few as this (and whose permutations all fit the scratch limit) are sorted by
// the whole grid at once (a spread sort: launches of their own) rather than a block per row.
inline constexpr int64_t kMostSpreadSortRows = 128;
// The smallest tile a long row's network runs on in shared memory (with the operands' values
// beside the positions; without them tiles are kLongestSharedMemorySort).
inline constexpr int64_t kSmallestSpreadSortTile = 2048;

// How a sort with rows longer than kLongestSharedMemorySort uses its scratch: `slots` slots of
// `padded` (the row length rounded up to a power of two) 32-bit positions; a slot per row when
// `spread`.
struct LongSortScratch {
  int64_t padded = 0;
  int64_t slots = 0;
  bool spread = false;
  int64_t bytes() const { return padded * 4 * slots; }
};

// Test seam: a smaller bound on the rows in flight (0 restores kMostSortRowsInFlight), so
// that tests reach more rows than slots (blocks past the slots idle, the others take several
// rows) without a thousand long rows. Set before compiling.
void SetMostSortRowsInFlightForTesting(int64_t rows);
// Test seam: false makes every long sort a block per row, as many rows do. Set before
// compiling; returns the previous setting.
bool SetSpreadSortsForTesting(bool spread);

// The scratch of sort `sort` (0 bytes for a sort whose rows fit shared memory, or which has no
// elements); UNIMPLEMENTED when one row's permutation would exceed kMostSortScratchBytes.
absl::StatusOr<LongSortScratch> SortScratch(const HloInstruction& sort);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_PTX_SORT_H_
