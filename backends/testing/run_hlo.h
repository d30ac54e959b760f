#ifndef XLA_BACKENDS_TESTING_RUN_HLO_H_
#define XLA_BACKENDS_TESTING_RUN_HLO_H_

// Runs HLO text through the Backend interface (parse, compile, transfer, execute, transfer
// back) on device 0. No gtest: the tests (hlo_test_util.h) and the compile fuzzer
// (backends/cpu/hlo_compile_fuzz.cc) share it.

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/backend.h"
#include "hlo/hlo_parser.h"
#include "hlo/literal.h"

namespace xla {
namespace testing {

// Transfers `args` to device 0 of `backend`, runs `executable` there on them with `options`
// and transfers its result back.
inline absl::StatusOr<Literal> ExecuteOnDevice0(backend::Backend& backend, backend::Executable& executable,
                                                absl::Span<const Literal> args,
                                                const backend::ExecuteOptions& options = backend::ExecuteOptions()) {
  std::vector<std::shared_ptr<backend::Buffer>> buffers;
  for (const Literal& arg : args) {
    auto buffer = backend.TransferToDevice(arg, 0);
    if (!buffer.ok()) return buffer.status();
    buffers.push_back(*std::move(buffer));
  }
  auto result = executable.Execute(buffers, options);
  if (!result.ok()) return result.status();
  return backend.TransferFromDevice(**result);
}

// Compiles `hlo_text` for device 0 of `backend` and runs it on `args`.
inline absl::StatusOr<Literal> RunHloOn(backend::Backend& backend, std::string_view hlo_text,
                                        absl::Span<const Literal> args,
                                        const backend::ExecuteOptions& options = backend::ExecuteOptions()) {
  auto module = ParseAndReturnUnverifiedModule(hlo_text);
  if (!module.ok()) return module.status();
  auto executable = backend.Compile(*std::move(module), backend::CompileOptions());
  if (!executable.ok()) return executable.status();
  return ExecuteOnDevice0(backend, **executable, args, options);
}

}  // namespace testing
}  // namespace xla

#endif  // XLA_BACKENDS_TESTING_RUN_HLO_H_
