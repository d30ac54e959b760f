#include "backends/value_checks.h"

#include "absl/strings/str_cat.h"

namespace xla {
namespace backend {

absl::Status CheckDynamicReshapeSize(int64_t dimension, int64_t size, int64_t bound, const std::string& backend) {
  if (size == bound) return absl::OkStatus();
  if (size < 0 || size > bound) {
    return absl::InvalidArgumentError(
        absl::StrCat("size ", size, " of dimension ", dimension, " is outside [0, ", bound, "]"));
  }
  return absl::UnimplementedError(absl::StrCat("dynamic-reshape to size ", size, " below the bound ", bound,
                                               " of dimension ", dimension, " (the ", backend,
                                               " keeps static shapes)"));
}

absl::Status CheckRaggedAllToAllRows(int64_t input_offset, int64_t send_size, int64_t output_offset,
                                     int64_t recv_size, int64_t input_rows, int64_t output_rows) {
  if (send_size != recv_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("send size ", send_size, " differs from receive size ", recv_size));
  }
  if (send_size < 0 || input_offset < 0 || output_offset < 0 || input_offset > input_rows - send_size ||
      output_offset > output_rows - send_size) {
    return absl::InvalidArgumentError(absl::StrCat("rows [", input_offset, ", +", send_size, ") of the input or [",
                                                   output_offset, ", +", send_size,
                                                   ") of the output are out of bounds (", input_rows, " and ",
                                                   output_rows, " rows)"));
  }
  return absl::OkStatus();
}

}  // namespace backend
}  // namespace xla
