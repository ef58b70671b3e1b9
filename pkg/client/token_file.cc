#include "pkg/client/token_file.h"

#include "pkg/common/file.h"
#include "pkg/common/logging.h"

namespace stowage::client {

TokenFile::TokenFile(std::string path, std::string source, const Clock& clock)
    : path_(std::move(path)), source_(std::move(source)), clock_(clock) {}

StatusOr<std::string> TokenFile::Read() const {
  // ReadFile's message opens with the quoted path, so this reads `token file "/p" is a FIFO...`.
  auto text = ReadFile(path_, kMaxBytes);
  if (!text.ok()) {
    return Status(text.status().code(),
                  source_ + ": token file " + std::string(text.status().message()));
  }
  std::string t = std::move(*text);
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  if (t.empty()) {
    return UnauthenticatedError(source_ + ": token file \"" + path_ + "\" is empty");
  }
  return t;
}

Status TokenFile::Load() {
  auto t = Read();
  MutexLock l(mu_);
  read_at_ = clock_.Now();
  if (!t.ok()) return t.status();
  token_ = std::move(*t);
  failing_ = false;
  return OkStatus();
}

std::string TokenFile::Get() {
  MutexLock l(mu_);
  if (clock_.Now() - read_at_ <= kRefresh) return token_;
  // The read happens under the lock: it is bounded (a regular file of at most kMaxBytes, never
  // a FIFO) and once a minute, and callers meanwhile must not race to read it too.
  read_at_ = clock_.Now();
  auto t = Read();
  if (t.ok()) {
    if (failing_) LOG_INFO("{}: token file \"{}\" read again", source_, path_);
    failing_ = false;
    token_ = std::move(*t);
  } else if (!failing_) {
    failing_ = true;
    LOG_WARN("{}; keeping the token read before until the file reads again", t.status().message());
  }
  return token_;
}

}  // namespace stowage::client
