// Run-time checks of values the cpu backend keeps static (backends/value_checks.h, as the
// interpreter checks them): dynamic-reshape sizes against their bounds and ragged-all-to-all
// offsets and sizes against the rows of its one peer.
#include "absl/strings/str_cat.h"
#include "backends/cpu/runtime/runtime.h"
#include "backends/value_checks.h"

namespace {

// 0 when `status` is OK, else 1 with the error in the run context, prefixed with `op`.
int32_t Report(void* run_context, const char* op, const absl::Status& status) {
  if (status.ok()) return 0;
  static_cast<xla::cpu::RunContext*>(run_context)->Fail(
      absl::Status(status.code(), absl::StrCat(op, ": ", status.message())));
  return 1;
}

}  // namespace

int32_t __xla_cpu_check_dynamic_size(void* run_context, int64_t dimension, int64_t size, int64_t bound) {
  return Report(run_context, "dynamic-reshape",
                xla::backend::CheckDynamicReshapeSize(dimension, size, bound, "cpu backend"));
}

int32_t __xla_cpu_check_ragged_all_to_all(void* run_context, int64_t input_offset, int64_t send_size,
                                          int64_t output_offset, int64_t recv_size, int64_t input_rows,
                                          int64_t output_rows) {
  return Report(run_context, "ragged-all-to-all",
                xla::backend::CheckRaggedAllToAllRows(input_offset, send_size, output_offset, recv_size, input_rows,
                                                      output_rows));
}
