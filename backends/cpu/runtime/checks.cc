// Run-time checks of values the cpu backend keeps static: dynamic-reshape sizes against their
// bounds (only a size that keeps every element is representable, as in the interpreter) and
// ragged-all-to-all offsets and sizes against the rows of its one peer.
#include "absl/strings/str_cat.h"
#include "backends/cpu/runtime/runtime.h"

int32_t __xla_cpu_check_dynamic_size(void* run_context, int64_t dimension, int64_t size, int64_t bound) {
  if (size == bound) return 0;
  auto* context = static_cast<xla::cpu::RunContext*>(run_context);
  if (size < 0 || size > bound) {
    context->error = absl::InvalidArgumentError(
        absl::StrCat("dynamic-reshape: size ", size, " of dimension ", dimension, " is outside [0, ", bound, "]"));
  } else {
    context->error = absl::UnimplementedError(absl::StrCat(
        "dynamic-reshape to size ", size, " below the bound ", bound, " of dimension ", dimension,
        " (the cpu backend keeps static shapes)"));
  }
  return 1;
}

int32_t __xla_cpu_check_ragged_all_to_all(void* run_context, int64_t input_offset, int64_t send_size,
                                          int64_t output_offset, int64_t recv_size, int64_t input_rows,
                                          int64_t output_rows) {
  auto* context = static_cast<xla::cpu::RunContext*>(run_context);
  if (send_size != recv_size) {
    context->error = absl::InvalidArgumentError(
        absl::StrCat("ragged-all-to-all: send size ", send_size, " differs from receive size ", recv_size));
    return 1;
  }
  if (send_size < 0 || input_offset < 0 || output_offset < 0 || input_offset > input_rows - send_size ||
      output_offset > output_rows - send_size) {
    context->error = absl::InvalidArgumentError(absl::StrCat(
        "ragged-all-to-all: rows [", input_offset, ", +", send_size, ") of the input or [", output_offset, ", +",
        send_size, ") of the output are out of bounds (", input_rows, " and ", output_rows, " rows)"));
    return 1;
  }
  return 0;
}
