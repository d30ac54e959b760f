// Interpreter handlers for the shape op family (see evaluator.h for the list).
#include "backends/interpreter/evaluator.h"

namespace xla {
namespace interpreter {

// Not implemented yet: the evaluator reports these opcodes as UNIMPLEMENTED.
void RegisterShapeHandlers(HandlerTable* table) {}

}  // namespace interpreter
}  // namespace xla
