#ifndef XLA_BACKENDS_VALUE_CHECKS_H_
#define XLA_BACKENDS_VALUE_CHECKS_H_

// Checks of run-time values that shape an op's result, shared by every backend so that each
// refuses the same values with the same status: the interpreter checks them as it evaluates,
// the cpu backend from its entry function, the gpu backend on the host before the kernel.

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace xla {
namespace backend {

// dynamic-reshape's `size` of result dimension `dimension` against its static `bound`: a
// size outside [0, bound] is INVALID_ARGUMENT; one below the bound is UNIMPLEMENTED (a
// result with fewer elements needs a dynamic shape, which `backend` does not keep).
absl::Status CheckDynamicReshapeSize(int64_t dimension, int64_t size, int64_t bound, const std::string& backend);

// ragged-all-to-all with one peer: its send and receive sizes must agree and name rows that
// exist in the input and the output (`input_rows`, `output_rows`), else INVALID_ARGUMENT.
absl::Status CheckRaggedAllToAllRows(int64_t input_offset, int64_t send_size, int64_t output_offset,
                                     int64_t recv_size, int64_t input_rows, int64_t output_rows);

}  // namespace backend
}  // namespace xla

#endif  // XLA_BACKENDS_VALUE_CHECKS_H_
