// Interpreter handlers for the rng op family (see evaluator.h for the list).
#include "backends/interpreter/evaluator.h"

namespace xla {
namespace interpreter {

// Not implemented yet: the evaluator reports these opcodes as UNIMPLEMENTED.
void RegisterRngHandlers(HandlerTable* table) {}

}  // namespace interpreter
}  // namespace xla
