#ifndef XLA_HLO_STATUS_MACROS_H_
#define XLA_HLO_STATUS_MACROS_H_

// Error-propagation helpers. Never abort on user input: broken invariants become
// absl::InternalError via RET_CHECK, bad input becomes InvalidArgument at the source.

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

#define XLA_STATUS_CONCAT_INNER_(a, b) a##b
#define XLA_STATUS_CONCAT_(a, b) XLA_STATUS_CONCAT_INNER_(a, b)

#define RETURN_IF_ERROR(expr)                     \
  do {                                            \
    ::absl::Status _xla_status = (expr);          \
    if (!_xla_status.ok()) return _xla_status;    \
  } while (0)

#define ASSIGN_OR_RETURN_IMPL_(var, lhs, expr) \
  auto var = (expr);                           \
  if (!var.ok()) return var.status();          \
  lhs = std::move(var).value()

#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL_(XLA_STATUS_CONCAT_(_xla_statusor_, __LINE__), lhs, expr)

// Returns an InternalError naming the failed condition and its location.
#define RET_CHECK(cond)                                                          \
  if (!(cond))                                                                   \
  return ::absl::InternalError(::absl::StrCat("RET_CHECK failure (", __FILE__, \
                                              ":", __LINE__, ") ", #cond))

#endif  // XLA_HLO_STATUS_MACROS_H_
