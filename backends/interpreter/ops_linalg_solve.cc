#include "backends/interpreter/ops_linalg_internal.h"

namespace xla {
namespace interpreter {
namespace linalg {

void RegisterSolveHandlers(HandlerTable* table) {}

}  // namespace linalg
}  // namespace interpreter
}  // namespace xla
