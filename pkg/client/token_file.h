// TokenFile: a bearer token kept in a file that is rewritten while stowage runs (a kubeconfig's
// tokenFile, the in-cluster service-account token; projected tokens rotate). The file is read
// under the rules of every file stowage reads (ReadFile: a regular file only, opened without
// blocking, at most kMaxBytes), once at start, where a failure stops the caller, and again on
// use once the last read is older than kRefresh, as client-go re-reads every minute.
//
// A re-read that fails keeps the last good token, so a rotation caught half-way or a file
// briefly missing is not an outage; it is logged once when the failures start and once when the
// file reads again, not on every request. An empty file is a failure: client-go refuses it too.
//
// Thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "stowage/common/clock.h"
#include "stowage/common/mutex.h"
#include "stowage/common/status.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::client {

class TokenFile {
 public:
  // A token is a JWT of a few KiB at most; a larger file is not a token.
  static constexpr size_t kMaxBytes = 1u << 20;
  static constexpr Duration kRefresh = std::chrono::minutes(1);

  // source names what gave the path, e.g. `kubeconfig "/etc/kubernetes/scheduler.conf", context
  // "default"`, and opens every error.
  TokenFile(std::string path, std::string source, const Clock& clock = RealClock());

  // Reads the file now. Errors name the source, the file and what was wrong with it.
  [[nodiscard]] Status Load();

  // The token, read again first when the last read is older than kRefresh.
  std::string Get();

 private:
  StatusOr<std::string> Read() const;

  const std::string path_;
  const std::string source_;
  const Clock& clock_;
  Mutex mu_;
  std::string token_ GUARDED_BY(mu_);
  MonoTime read_at_ GUARDED_BY(mu_){};
  bool failing_ GUARDED_BY(mu_) = false;  // the last re-read failed and was logged
};

}  // namespace stowage::client
