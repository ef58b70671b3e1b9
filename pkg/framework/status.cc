#include "stowage/framework/status.h"

#include <atomic>

#include "pkg/common/error_list.h"

namespace stowage::framework {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kSuccess: return "Success";
    case Code::kError: return "Error";
    case Code::kUnschedulable: return "Unschedulable";
    case Code::kUnschedulableAndUnresolvable: return "UnschedulableAndUnresolvable";
    case Code::kWait: return "Wait";
    case Code::kSkip: return "Skip";
    case Code::kPending: return "Pending";
  }
  return "Unknown";
}

Status::Status(Code code, std::string reason) {
  if (code == Code::kSuccess && reason.empty()) return;
  rep_ = std::make_shared<Rep>();
  rep_->code = code;
  if (!reason.empty()) rep_->reasons.push_back(std::move(reason));
}

Status::Status(Code code, std::vector<std::string> reasons) {
  if (code == Code::kSuccess && reasons.empty()) return;
  rep_ = std::make_shared<Rep>(Rep{code, std::move(reasons), {}});
}

Status::Rep& Status::Mutable() {
  if (!rep_) {
    rep_ = std::make_shared<Rep>(Rep{Code::kSuccess, {}, {}});
  } else if (rep_.use_count() > 1) {
    // Another Status shares it; only copying this one can add owners, so 1 stays 1.
    rep_ = std::make_shared<Rep>(*rep_);
  } else {
    // Sole owner: order this write after the reads of owners that have let go.
    std::atomic_thread_fence(std::memory_order_acquire);
  }
  return *rep_;
}

bool Status::IsRejected() const {
  Code c = code();
  return c == Code::kUnschedulable || c == Code::kUnschedulableAndUnresolvable ||
         c == Code::kPending;
}

const std::vector<std::string>& Status::reasons() const {
  static const std::vector<std::string>* empty = new std::vector<std::string>();
  return rep_ ? rep_->reasons : *empty;
}

std::string Status::Message() const { return Join(reasons(), ", "); }

const std::string& Status::plugin() const {
  static const std::string* empty = new std::string();
  return rep_ ? rep_->plugin : *empty;
}

Status& Status::WithPlugin(std::string_view plugin) {
  if (rep_ && rep_->plugin == plugin) return *this;
  Mutable().plugin.assign(plugin);
  return *this;
}

Status& Status::AppendReason(std::string reason) {
  Mutable().reasons.push_back(std::move(reason));
  return *this;
}

}  // namespace stowage::framework
