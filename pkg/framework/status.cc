#include "pkg/framework/status.h"

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
  rep_ = std::make_unique<Rep>();
  rep_->code = code;
  if (!reason.empty()) rep_->reasons.push_back(std::move(reason));
}

Status::Status(Code code, std::vector<std::string> reasons) {
  if (code == Code::kSuccess && reasons.empty()) return;
  rep_ = std::make_unique<Rep>(Rep{code, std::move(reasons), {}});
}

Status::Status(const Status& other) {
  if (other.rep_) rep_ = std::make_unique<Rep>(*other.rep_);
}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
  return *this;
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
  if (!rep_) rep_ = std::make_unique<Rep>(Rep{Code::kSuccess, {}, {}});
  rep_->plugin.assign(plugin);
  return *this;
}

Status& Status::AppendReason(std::string reason) {
  if (!rep_) rep_ = std::make_unique<Rep>(Rep{Code::kSuccess, {}, {}});
  rep_->reasons.push_back(std::move(reason));
  return *this;
}

}  // namespace stowage::framework
