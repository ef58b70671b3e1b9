#include "pkg/common/sdnotify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "pkg/common/logging.h"

namespace stowage::sdnotify {

bool NotifySocket(std::string_view name, std::string_view state) {
  if (name.empty()) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  // An abstract socket is written "@name" and addressed with a leading NUL; a path must be
  // absolute. Either must fit sun_path (the abstract form needs no terminator).
  bool abstract = name[0] == '@';
  if (!abstract && name[0] != '/') {
    VLOG(2, "NOTIFY_SOCKET={} is neither a path nor an abstract name; not notifying", name);
    return false;
  }
  if (name.size() > sizeof(addr.sun_path) - (abstract ? 0 : 1)) {
    VLOG(2, "NOTIFY_SOCKET is longer than a unix socket address; not notifying");
    return false;
  }
  std::memcpy(addr.sun_path, name.data(), name.size());
  if (abstract) addr.sun_path[0] = '\0';
  socklen_t len =
      static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size() + (abstract ? 0 : 1));

  int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    VLOG(2, "sd_notify: socket: {}", std::strerror(errno));
    return false;
  }
  ssize_t n = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL | MSG_DONTWAIT,
                       reinterpret_cast<const sockaddr*>(&addr), len);
  int err = errno;
  ::close(fd);
  if (n < 0 || static_cast<size_t>(n) != state.size()) {
    VLOG(2, "sd_notify to {}: {}", name, n < 0 ? std::strerror(err) : "short write");
    return false;
  }
  return true;
}

bool Notify(std::string_view state) {
  const char* env = std::getenv("NOTIFY_SOCKET");
  if (env == nullptr || *env == '\0') return false;
  return NotifySocket(env, state);
}

std::string StatusLine(std::string_view text) {
  std::string out = "STATUS=";
  out.reserve(out.size() + text.size());
  for (char c : text) out += (c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

}  // namespace stowage::sdnotify
