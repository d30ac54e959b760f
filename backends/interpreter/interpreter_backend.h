#ifndef XLA_BACKENDS_INTERPRETER_INTERPRETER_BACKEND_H_
#define XLA_BACKENDS_INTERPRETER_INTERPRETER_BACKEND_H_

// The interpreter backend (platform "interpreter"): device memory is host memory holding
// Literals, and executables evaluate HLO with the reference Evaluator.

#include <memory>

#include "backends/backend.h"

namespace xla {
namespace interpreter {

std::unique_ptr<backend::Backend> CreateInterpreterBackend();

}  // namespace interpreter
}  // namespace xla

#endif  // XLA_BACKENDS_INTERPRETER_INTERPRETER_BACKEND_H_
