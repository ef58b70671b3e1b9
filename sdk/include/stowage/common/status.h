// Status and StatusOr<T>: how stowage reports infrastructure errors (I/O, TLS, HTTP, parsing,
// configuration, API conflicts). Scheduling outcomes use framework::Status instead.
//
// A Status is a code plus a message. Success is represented by a null pointer, so returning and
// checking OK costs one word and no allocation. Errors allocate once. Status is a value type;
// copies are cheap (shared, immutable representation) and it is safe to read from any thread.
// The codes follow the canonical set used by gRPC and Abseil so callers can branch on them.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage {

enum class StatusCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  // The message without the code; empty for OK.
  std::string_view message() const { return rep_ ? std::string_view(rep_->message) : ""; }
  // "INVALID_ARGUMENT: message", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "<prefix>: <message>", keeping the code. OK stays OK.
  Status WithPrefix(std::string_view prefix) const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code() == b.code() && a.message() == b.message();
  }

 private:
  struct Rep {
    StatusCode code;
    std::string message;
  };
  std::shared_ptr<const Rep> rep_;
};

inline Status OkStatus() { return Status(); }
std::ostream& operator<<(std::ostream& os, const Status& s);

// Constructors named after the codes, for readability at call sites.
Status InvalidArgumentError(std::string message);
Status NotFoundError(std::string message);
Status AlreadyExistsError(std::string message);
Status FailedPreconditionError(std::string message);
Status PermissionDeniedError(std::string message);
Status UnauthenticatedError(std::string message);
Status UnavailableError(std::string message);
Status DeadlineExceededError(std::string message);
Status ResourceExhaustedError(std::string message);
Status InternalError(std::string message);
Status AbortedError(std::string message);
Status CancelledError(std::string message);
Status UnimplementedError(std::string message);
Status OutOfRangeError(std::string message);
Status DataLossError(std::string message);

// StatusOr<T> holds either a T or a non-OK Status. Accessing the value of an error is a bug
// and aborts (hardened builds check it in release too).
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const T& value) : v_(value) {}        // NOLINT: implicit by design, as absl::StatusOr
  StatusOr(T&& value) : v_(std::move(value)) {}  // NOLINT
  StatusOr(Status status) : v_(std::move(status)) {  // NOLINT
    if (std::get<Status>(v_).ok()) v_ = Status(StatusCode::kInternal, "StatusOr built from OK");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }

  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<Status, T> v_;
};

}  // namespace stowage

#pragma GCC visibility pop
