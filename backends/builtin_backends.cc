// The backends compiled into every binary that links xla_backends.
#include <mutex>

#include "backends/backend.h"
#include "backends/interpreter/interpreter_backend.h"
#include "backends/null/null_backend.h"

namespace xla {
namespace backend {

void RegisterBuiltinBackends() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterBackendFactory("null", []() -> absl::StatusOr<std::unique_ptr<Backend>> {
      return CreateNullBackend();
    });
    RegisterBackendFactory("interpreter", []() -> absl::StatusOr<std::unique_ptr<Backend>> {
      return interpreter::CreateInterpreterBackend();
    });
  });
}

}  // namespace backend
}  // namespace xla
