// Interpreter handlers for the linalg op family (see evaluator.h for the list).
#include "backends/interpreter/evaluator.h"

namespace xla {
namespace interpreter {

// Not implemented yet: the evaluator reports these opcodes as UNIMPLEMENTED.
void RegisterLinalgHandlers(HandlerTable* table) {}

}  // namespace interpreter
}  // namespace xla
