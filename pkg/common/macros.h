// RETURN_IF_ERROR and ASSIGN_OR_RETURN: early return of a non-OK Status, as in Abseil's
// status_macros (which Debian's libabsl does not ship).
#pragma once

#include "stowage/common/status.h"

#define STOWAGE_CONCAT_INNER(a, b) a##b
#define STOWAGE_CONCAT(a, b) STOWAGE_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    ::stowage::Status _stowage_status = (expr);        \
    if (!_stowage_status.ok()) return _stowage_status; \
  } while (0)

#define STOWAGE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

#define ASSIGN_OR_RETURN(lhs, expr) \
  STOWAGE_ASSIGN_OR_RETURN_IMPL(STOWAGE_CONCAT(_stowage_or_, __LINE__), lhs, expr)
