#include "backends/interpreter/ops_linalg_internal.h"

namespace xla {
namespace interpreter {
namespace linalg {

void RegisterFftHandlers(HandlerTable* table) {}

}  // namespace linalg
}  // namespace interpreter
}  // namespace xla
