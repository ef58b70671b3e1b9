#include "pkg/plugin_loader/root_owned_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#include "pkg/common/file.h"
#include "pkg/common/go_quote.h"
#include "pkg/common/macros.h"

namespace stowage::plugin_loader {
namespace {

// The ownership and mode rules shared by directories and the file; what names the object in the
// message (the file, or "its directory /x"). A root-owned sticky directory (/tmp) may be writable
// by all: its sticky bit keeps others from renaming or removing what they do not own, and the
// next component is checked in turn.
Status CheckOwnerAndMode(const struct stat& st, const std::string& what, bool allow_own_uid) {
  const uid_t self = ::geteuid();
  if (st.st_uid != 0 && !(allow_own_uid && st.st_uid == self)) {
    return PermissionDeniedError(
        what + " is owned by uid " + std::to_string(st.st_uid) + ", not by root" +
        (allow_own_uid && self != 0 ? " or uid " + std::to_string(self) + " (this process)"
                                    : std::string()));
  }
  const bool sticky_root_dir = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) && st.st_uid == 0;
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !sticky_root_dir) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return PermissionDeniedError(what + " is writable by group or others (mode " + mode + ")");
  }
  return OkStatus();
}

// Why openat failed on component name of dir, in the words of the error.
Status OpenError(int err, int dir, const std::string& name, const std::string& what) {
  if (err == ENOENT) return NotFoundError(what + " does not exist");
  struct stat st {};
  if ((err == ELOOP || err == ENOTDIR) &&
      ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    return PermissionDeniedError(what + " is " + FileKind(st.st_mode));
  }
  return PermissionDeniedError(what + ": " + std::strerror(err));
}

}  // namespace

OwnedFd& OwnedFd::operator=(OwnedFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

OwnedFd::~OwnedFd() {
  if (fd_ >= 0) ::close(fd_);
}

StatusOr<OwnedFd> OpenRootOwnedFile(const std::string& path) {
  return OpenTrustedFile(path, TrustedFileRules{});
}

StatusOr<OwnedFd> OpenTrustedFile(const std::string& path, const TrustedFileRules& rules) {
  const std::string where = rules.what + " " + GoQuote(path);
  if (path.empty() || path[0] != '/') {
    return InvalidArgumentError(where + ": the path must be absolute");
  }
  std::vector<std::string> parts;
  for (size_t at = 1; at <= path.size();) {
    const size_t end = std::min(path.find('/', at), path.size());
    if (end > at) parts.push_back(path.substr(at, end - at));
    at = end + 1;
  }
  if (parts.empty() || path.back() == '/') {
    return InvalidArgumentError(where + ": the path names a directory");
  }
  for (const std::string& p : parts) {
    if (p == "." || p == "..") {
      return InvalidArgumentError(where + ": the path must not contain \".\" or \"..\"");
    }
  }

  OwnedFd dir(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return PermissionDeniedError(where + ": /: " + std::strerror(errno));
  std::string walked;  // the directory checked so far, for messages
  for (size_t i = 0;; ++i) {
    struct stat st {};
    if (::fstat(dir.get(), &st) != 0) {
      return PermissionDeniedError(where + ": " + std::strerror(errno));
    }
    const std::string dir_name = walked.empty() ? "/" : walked;
    RETURN_IF_ERROR(
        CheckOwnerAndMode(st, where + ": its directory " + GoQuote(dir_name), rules.allow_own_uid));
    const std::string& name = parts[i];
    const std::string next = walked + "/" + name;
    if (i + 1 == parts.size()) {
      // O_NONBLOCK: a FIFO planted here must not block start-up; it is refused below.
      OwnedFd file(::openat(dir.get(), name.c_str(),
                            O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
      if (file.get() < 0) return OpenError(errno, dir.get(), name, where);
      if (::fstat(file.get(), &st) != 0) {
        return PermissionDeniedError(where + ": " + std::strerror(errno));
      }
      if (!S_ISREG(st.st_mode)) {
        return InvalidArgumentError(where + " is " + FileKind(st.st_mode) + ", not a regular file");
      }
      RETURN_IF_ERROR(CheckOwnerAndMode(st, where, rules.allow_own_uid));
      return file;
    }
    OwnedFd sub(::openat(dir.get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (sub.get() < 0) {
      return OpenError(errno, dir.get(), name, where + ": its directory " + GoQuote(next));
    }
    dir = std::move(sub);
    walked = next;
  }
}

}  // namespace stowage::plugin_loader
