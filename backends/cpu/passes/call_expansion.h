#ifndef XLA_BACKENDS_CPU_PASSES_CALL_EXPANSION_H_
#define XLA_BACKENDS_CPU_PASSES_CALL_EXPANSION_H_

// The cpu and gpu backends emit a called computation (a while body or condition, a branch, a
// call, a reducer, a fused computation) at each of its call sites. A module whose
// computations call one shared computation from two sites, level after level, thus expands to
// 2^levels instructions, and one that nests computations 100000 deep recurses that deep
// while it is planned and emitted. CheckCallExpansion measures both in time linear in the
// module (each computation once, callees first) and refuses, before any pass runs, a module
// that expands past kMostExpandedInstructions or nests deeper than kMostCallNesting.

#include <cstdint>

#include "absl/status/status.h"
#include "hlo/hlo_module.h"

namespace xla {
namespace cpu {

inline constexpr int64_t kMostExpandedInstructions = int64_t{1} << 22;
inline constexpr int64_t kMostCallNesting = 200;  // the interpreter's limit on nested calls

absl::Status CheckCallExpansion(const HloModule& module);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PASSES_CALL_EXPANSION_H_
