#ifndef XLA_BACKENDS_NULL_NULL_BACKEND_H_
#define XLA_BACKENDS_NULL_NULL_BACKEND_H_

#include <memory>

#include "backends/backend.h"

namespace xla {
namespace backend {

// A backend whose every method returns UNIMPLEMENTED (platform "null").
std::unique_ptr<Backend> CreateNullBackend();

}  // namespace backend
}  // namespace xla

#endif  // XLA_BACKENDS_NULL_NULL_BACKEND_H_
