// Opening a file that only root can have put there, for code stowage will map into itself.
//
// A plugin library runs with the scheduler's privileges, so its file must be as trustworthy as
// the scheduler's own binary: the file and every directory from "/" down to it owned by root and
// writable by nobody else, and no symbolic link on the way (a link would make the checked path
// and the opened file two different things). The walk opens each directory with
// openat(O_NOFOLLOW) relative to the one checked before it and checks the open descriptor, so
// nothing can be swapped between the check and the open by anyone but root. The CEL bridge
// (docs/cel.md) is checked the same way, its owner also allowed to be the process's own uid.
#pragma once

#include <string>

#include "stowage/common/status.h"

namespace stowage::plugin_loader {

// An open file descriptor, closed on destruction.
class OwnedFd {
 public:
  OwnedFd() = default;
  explicit OwnedFd(int fd) : fd_(fd) {}
  OwnedFd(OwnedFd&& other) noexcept : fd_(other.release()) {}
  OwnedFd& operator=(OwnedFd&& other) noexcept;
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd();

  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// Who may own the file and its directories, and what the file is called in errors.
struct TrustedFileRules {
  std::string what = "plugin library";
  // Also accept the process's own effective uid as owner (a library the scheduler's own user
  // installed, as in a build tree). Still writable by no one else.
  bool allow_own_uid = false;
};

// Opens path read-only (O_CLOEXEC) after checking it as described above. The path must be
// absolute. Errors name the path and, where it is not the file itself, the offending directory:
// not found, a symbolic link, not a directory or not a regular file, not owned by root, writable
// by group or others.
StatusOr<OwnedFd> OpenRootOwnedFile(const std::string& path);

// The same checks, with the owners and the name of rules.
StatusOr<OwnedFd> OpenTrustedFile(const std::string& path, const TrustedFileRules& rules);

}  // namespace stowage::plugin_loader
