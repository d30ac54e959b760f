#ifndef XLA_BACKENDS_GPU_PTX_SORTED_UPDATES_H_
#define XLA_BACKENDS_GPU_PTX_SORTED_UPDATES_H_

// Internal to the PTX emitter (includes LLVM): the launches that apply updates in the
// interpreter's order in parallel by sorting them (ScatterStrategy::kSortedUpdates for
// scatter, kSortedSources for select-and-scatter; ptx_scatter.cc says what the keys and the
// updates of each are).

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/gpu/ptx_kernel_util.h"

namespace xla {
namespace gpu {

// How a kSortedUpdates scatter keeps its update keys in scratch memory: `padded` (the update
// elements rounded up to a power of two) 64-bit keys, each the output element the update
// writes (its storage offset) above `position_bits` bits of the update's position in the
// interpreter's order; updates whose window leaves the operand, and the padding, are all
// ones. Sorted ascending, the keys put each element's updates side by side in the order the
// interpreter applies them. Blocks sort tiles of `tile` keys in shared memory.
struct SortedKeys {
  int position_bits = 0;
  int64_t padded = 0;
  int64_t tile = 0;
  int64_t bytes() const { return padded * 8; }
};
inline constexpr int64_t kSortedKeysTile = 4096;  // 32 KiB of shared memory

// The keys of `updates` update elements writing into `elements` output elements, when the
// element and the position fit 63 bits together and the keys a sort's scratch.
std::optional<SortedKeys> SortedKeysFor(int64_t updates, int64_t elements);

// What a kernel of a sorted strategy emits per update `i` (the interpreter's order): `store`
// called with the update's output element where it has one (else its key stays all ones).
using KeyOf = std::function<absl::Status(llvm::Value* i, const std::function<void(llvm::Value* element)>& store)>;
using MakeKeyOf = std::function<absl::StatusOr<KeyOf>(KernelContext& k)>;

// What a kernel of a sorted strategy emits to apply one update: its key's output element
// and its position in the interpreter's order.
using ApplyOne = std::function<absl::Status(llvm::Value* element, llvm::Value* position)>;
using MakeApplyOne = std::function<absl::StatusOr<ApplyOne>(KernelContext& k)>;

// The launches of a sorted strategy after the fill: keys, their sort, the runs applied.
void AppendSortedLaunches(SortedKeys keys, int64_t updates, MakeKeyOf make_key, MakeApplyOne make_apply,
                          std::vector<KernelLaunch>* launches);

}  // namespace gpu
}  // namespace xla

#endif  // XLA_BACKENDS_GPU_PTX_SORTED_UPDATES_H_
