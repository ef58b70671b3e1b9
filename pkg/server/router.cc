// Exact and prefix path matching.
#include "pkg/server/router.h"

#include <algorithm>

#include "pkg/common/logging.h"
#include "stowage/common/mutex.h"

namespace stowage::server {
namespace {

bool BetterPrefix(const std::string& a, const std::string& b) {
  auto slashes_a = std::count(a.begin(), a.end(), '/');
  auto slashes_b = std::count(b.begin(), b.end(), '/');
  if (slashes_a != slashes_b) return slashes_a > slashes_b;
  if (a.size() != b.size()) return a.size() > b.size();
  return a > b;
}

}  // namespace

Status Router::Handle(const std::string& path, Handler handler) {
  if (path.empty() || path.front() != '/') {
    return InvalidArgumentError(name_ + " router: path \"" + path + "\" must start with '/'");
  }
  if (!handler) return InvalidArgumentError(name_ + " router: nil handler for " + path);
  WriterMutexLock l(mu_);
  if (!exact_.emplace(path, std::move(handler)).second) {
    return AlreadyExistsError(name_ + " router: path " + path + " is registered twice");
  }
  return OkStatus();
}

Status Router::HandlePrefix(const std::string& prefix, Handler handler) {
  if (prefix.empty() || prefix.front() != '/' || prefix.back() != '/') {
    return InvalidArgumentError(name_ + " router: prefix \"" + prefix +
                                "\" must start and end with '/'");
  }
  if (!handler) return InvalidArgumentError(name_ + " router: nil handler for " + prefix);
  WriterMutexLock l(mu_);
  for (const auto& [p, h] : prefixes_) {
    if (p == prefix) {
      return AlreadyExistsError(name_ + " router: prefix " + prefix + " is registered twice");
    }
  }
  prefixes_.emplace_back(prefix, std::move(handler));
  std::sort(prefixes_.begin(), prefixes_.end(),
            [](const auto& a, const auto& b) { return BetterPrefix(a.first, b.first); });
  return OkStatus();
}

void Router::SetNotFoundHandler(Handler handler) {
  WriterMutexLock l(mu_);
  not_found_ = std::move(handler);
}

Response Router::Serve(const Request& req) const {
  Handler chosen;
  {
    ReaderMutexLock l(mu_);
    if (auto it = exact_.find(req.path); it != exact_.end()) {
      VLOG(5, "{}: \"{}\" satisfied by exact match", name_, req.path);
      chosen = it->second;
    } else {
      for (const auto& [prefix, h] : prefixes_) {
        if (req.path.starts_with(prefix)) {
          VLOG(5, "{}: \"{}\" satisfied by prefix {}", name_, req.path, prefix);
          chosen = h;
          break;
        }
      }
    }
    if (!chosen) chosen = not_found_;
  }
  // The handler runs outside the lock so a slow one never delays registration.
  if (chosen) return chosen(req);
  VLOG(5, "{}: \"{}\" satisfied by NotFoundHandler", name_, req.path);
  return ErrorResponse(404, "404 page not found");
}

std::vector<std::string> Router::ListedPaths() const {
  ReaderMutexLock l(mu_);
  std::vector<std::string> out;
  for (const auto& [p, h] : exact_) out.push_back(p);
  for (const auto& [p, h] : prefixes_) out.push_back(p);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace stowage::server
