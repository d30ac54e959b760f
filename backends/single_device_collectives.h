#ifndef XLA_BACKENDS_SINGLE_DEVICE_COLLECTIVES_H_
#define XLA_BACKENDS_SINGLE_DEVICE_COLLECTIVES_H_

// The checks behind a collective's single-device meaning, shared by the interpreter (which
// evaluates collectives) and the cpu backend (which lowers them to plain HLO first): a module
// built for more devices is INVALID_ARGUMENT "... the module needs N devices; the <backend>
// has one". `context` prefixes messages ("" for none, else e.g. the instruction's name).

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/hlo_instruction.h"
#include "hlo/shape.h"

namespace xla {
namespace backend {

absl::Status NeedsDevices(int64_t devices, const std::string& why, const std::string& backend);

// OK when every device the replica groups name is device 0 (or none are named). Groups such
// as {{0},{1}} still need a second device: the module was built for it.
absl::Status CheckSingleParticipant(const HloInstruction& hlo, const std::string& context, const std::string& backend);

// Whether `result` holds one element per operand (a tuple of them) rather than the only
// operand itself.
bool IsTupleOfOperands(const Shape& result, absl::Span<const Shape* const> operands);

// On one device each result element has its operand's shape; a larger declared result (an
// all-gather over groups the text leaves implicit) needs more devices.
absl::Status CheckSameShapes(const Shape& result, absl::Span<const Shape* const> operands,
                             const std::string& context, const std::string& backend);

}  // namespace backend
}  // namespace xla

#endif  // XLA_BACKENDS_SINGLE_DEVICE_COLLECTIVES_H_
