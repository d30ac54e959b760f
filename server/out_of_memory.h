#ifndef XLA_SERVER_OUT_OF_MEMORY_H_
#define XLA_SERVER_OUT_OF_MEMORY_H_

#include <new>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace xla {
namespace server {

// fn() (a backend's compile, load or execution), with std::bad_alloc turned into
// RESOURCE_EXHAUSTED naming `what`: running out of host memory fails that request, not the
// server, and the compile cache's waiters get the error.
// (Generated cpu code never throws: its routines fail their execution instead, runtime.h.)
template <typename Fn>
auto OutOfMemoryAsError(const char* what, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(what, " ran out of host memory"));
  }
}

}  // namespace server
}  // namespace xla

#endif  // XLA_SERVER_OUT_OF_MEMORY_H_
