#ifndef XLA_BACKENDS_CPU_PLAN_FORMAT_H_
#define XLA_BACKENDS_CPU_PLAN_FORMAT_H_

// The part of a BufferPlan that running compiled code needs (the slot table, the arena size,
// the parameter and result shapes, the output slots), as bytes inside a serialized cpu
// executable; constants travel with their data. The entry ComputationPlan and the output
// copies only guide code generation and are not kept.
//
// Decoding treats the bytes as hostile: every count is bounded by the bytes left, shapes are
// validated, and the plan must be consistent (slot indices and sizes, arena bounds, output
// slots matching the result's leaves) so that Execute never reads past a table or a buffer;
// any inconsistency is INVALID_ARGUMENT.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/cpu/codegen/buffer_plan.h"
#include "hlo/literal.h"

namespace xla {
namespace cpu {

std::string EncodeRuntimePlan(const BufferPlan& plan);

struct DecodedPlan {
  std::unique_ptr<BufferPlan> plan;  // entry is null; constant slots point into `constants`
  std::vector<std::unique_ptr<Literal>> constants;
};
absl::StatusOr<DecodedPlan> DecodeRuntimePlan(std::string_view bytes);

}  // namespace cpu
}  // namespace xla

#endif  // XLA_BACKENDS_CPU_PLAN_FORMAT_H_
