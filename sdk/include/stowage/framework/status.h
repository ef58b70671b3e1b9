// framework::Status: the outcome of running a plugin, mirroring upstream's framework.Status.
//
// A default-constructed Status is Success and costs one null pointer, so the hot path (every
// Filter on every node) allocates nothing when a node fits. Failures carry a code, the reasons
// (each becomes an entry of the "0/N nodes are available: ..." histogram) and the plugin that
// produced them. Copies share the failure's data (copy-on-write), so a plugin that rejects many
// nodes with the same reason can build that Status once, plugin name included, and return a copy
// per node at the cost of a reference count. Not to be confused with stowage::Status, which
// reports infrastructure errors.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::framework {

enum class Code : uint8_t {
  kSuccess,
  kError,                         // an unexpected failure: the pod goes to error backoff
  kUnschedulable,                 // does not fit now; preemption may help
  kUnschedulableAndUnresolvable,  // does not fit, and preemption cannot change that
  kWait,                          // Permit: hold the pod until allowed, rejected or timed out
  kSkip,                          // PreFilter/PreScore: this plugin has nothing to do for the pod
  kPending,                       // requeue without backoff when the awaited event happens
};

std::string_view CodeName(Code code);

class Status {
 public:
  Status() = default;
  explicit Status(Code code, std::string reason = "");
  Status(Code code, std::vector<std::string> reasons);
  Status(const Status& other) = default;
  Status& operator=(const Status& other) = default;
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status Error(std::string reason) { return Status(Code::kError, std::move(reason)); }
  static Status Unschedulable(std::string reason) {
    return Status(Code::kUnschedulable, std::move(reason));
  }
  static Status Unresolvable(std::string reason) {
    return Status(Code::kUnschedulableAndUnresolvable, std::move(reason));
  }
  static Status Skip() { return Status(Code::kSkip); }

  Code code() const { return rep_ ? rep_->code : Code::kSuccess; }
  bool IsSuccess() const { return code() == Code::kSuccess; }
  bool IsSkip() const { return code() == Code::kSkip; }
  bool IsWait() const { return code() == Code::kWait; }
  bool IsError() const { return code() == Code::kError; }
  // Unschedulable, UnschedulableAndUnresolvable or Pending: the pod was rejected, not failed.
  bool IsRejected() const;

  const std::vector<std::string>& reasons() const;
  // The reasons joined with ", ".
  std::string Message() const;
  // The plugin that returned this status ("" until the framework sets it).
  const std::string& plugin() const;
  // Sets the plugin; copies nothing when it is already the one set.
  Status& WithPlugin(std::string_view plugin);
  Status& AppendReason(std::string reason);

 private:
  struct Rep {
    Code code;
    std::vector<std::string> reasons;
    std::string plugin;
  };
  // The data, unshared first, before a change.
  Rep& Mutable();

  std::shared_ptr<Rep> rep_;  // shared by copies; changed only while this is its one owner
};

}  // namespace stowage::framework

#pragma GCC visibility pop
