#include "pkg/common/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace stowage {

const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  // O_NONBLOCK so that opening a FIFO cannot block start-up waiting for a writer; the type is
  // checked on the open descriptor, so a path swapped after a stat cannot slip through.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    std::string why = std::strerror(errno);
    if (errno == ENOENT) return NotFoundError("\"" + path + "\": " + why);
    return PermissionDeniedError("\"" + path + "\": " + why);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    return PermissionDeniedError("\"" + path + "\": " + why);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return InvalidArgumentError("\"" + path + "\" is " + FileKind(st.st_mode) +
                                ", not a regular file");
  }
  // The size a file reports is not trusted (procfs says 0, a growing file lies): the read itself
  // stops one byte past the limit.
  std::string out;
  out.resize(std::min<size_t>(static_cast<size_t>(std::max<off_t>(st.st_size, 0)), max_bytes) + 1);
  size_t got = 0;
  for (;;) {
    if (got == out.size()) {
      if (got > max_bytes) break;
      out.resize(std::min(out.size() * 2, max_bytes + 1));
    }
    const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      return PermissionDeniedError("\"" + path + "\": " + why);
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (got > max_bytes) {
    return ResourceExhaustedError("\"" + path + "\" is larger than the limit of " +
                                  std::to_string(max_bytes) + " bytes");
  }
  out.resize(got);
  return out;
}

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
int Sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}
}  // namespace

StatusOr<std::string> Base64Decode(std::string_view in) {
  std::string out;
  out.reserve(in.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  size_t pad = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++pad;
      continue;
    }
    int v = Sextet(c);
    if (v < 0 || pad > 0) {
      return InvalidArgumentError("invalid base64 at byte " + std::to_string(i));
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  if (pad > 2 || bits >= 6) return InvalidArgumentError("invalid base64: truncated input");
  return out;
}

std::string Base64Encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v =
        (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8) | uint8_t(in[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) v |= uint32_t(uint8_t(in[i + 1])) << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace stowage
