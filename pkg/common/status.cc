#include "stowage/common/status.h"

namespace stowage {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kCancelled: return "CANCELLED";
    case StatusCode::kUnknown: return "UNKNOWN";
    case StatusCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case StatusCode::kDeadlineExceeded: return "DEADLINE_EXCEEDED";
    case StatusCode::kNotFound: return "NOT_FOUND";
    case StatusCode::kAlreadyExists: return "ALREADY_EXISTS";
    case StatusCode::kPermissionDenied: return "PERMISSION_DENIED";
    case StatusCode::kResourceExhausted: return "RESOURCE_EXHAUSTED";
    case StatusCode::kFailedPrecondition: return "FAILED_PRECONDITION";
    case StatusCode::kAborted: return "ABORTED";
    case StatusCode::kOutOfRange: return "OUT_OF_RANGE";
    case StatusCode::kUnimplemented: return "UNIMPLEMENTED";
    case StatusCode::kInternal: return "INTERNAL";
    case StatusCode::kUnavailable: return "UNAVAILABLE";
    case StatusCode::kDataLoss: return "DATA_LOSS";
    case StatusCode::kUnauthenticated: return "UNAUTHENTICATED";
  }
  return "UNKNOWN";
}

Status::Status(StatusCode code, std::string message) {
  if (code != StatusCode::kOk) rep_ = std::make_shared<const Rep>(Rep{code, std::move(message)});
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code()));
  out += ": ";
  out += message();
  return out;
}

Status Status::WithPrefix(std::string_view prefix) const {
  if (ok()) return *this;
  std::string msg(prefix);
  msg += ": ";
  msg += message();
  return Status(code(), std::move(msg));
}

std::ostream& operator<<(std::ostream& os, const Status& s) { return os << s.ToString(); }

#define STOWAGE_STATUS_CTOR(Name, Code) \
  Status Name(std::string message) { return Status(StatusCode::Code, std::move(message)); }
STOWAGE_STATUS_CTOR(InvalidArgumentError, kInvalidArgument)
STOWAGE_STATUS_CTOR(NotFoundError, kNotFound)
STOWAGE_STATUS_CTOR(AlreadyExistsError, kAlreadyExists)
STOWAGE_STATUS_CTOR(FailedPreconditionError, kFailedPrecondition)
STOWAGE_STATUS_CTOR(PermissionDeniedError, kPermissionDenied)
STOWAGE_STATUS_CTOR(UnauthenticatedError, kUnauthenticated)
STOWAGE_STATUS_CTOR(UnavailableError, kUnavailable)
STOWAGE_STATUS_CTOR(DeadlineExceededError, kDeadlineExceeded)
STOWAGE_STATUS_CTOR(ResourceExhaustedError, kResourceExhausted)
STOWAGE_STATUS_CTOR(InternalError, kInternal)
STOWAGE_STATUS_CTOR(AbortedError, kAborted)
STOWAGE_STATUS_CTOR(CancelledError, kCancelled)
STOWAGE_STATUS_CTOR(UnimplementedError, kUnimplemented)
STOWAGE_STATUS_CTOR(OutOfRangeError, kOutOfRange)
STOWAGE_STATUS_CTOR(DataLossError, kDataLoss)
#undef STOWAGE_STATUS_CTOR

}  // namespace stowage
