#include "pkg/sandbox/landlock.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

// Rights newer than the build machine's kernel headers (Debian 12 ships 6.1's); the kernel
// reports its ABI, and only rights that ABI knows are asked for.
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

namespace stowage::sandbox {
namespace {

// Read by the C library and by stowage itself after start-up: name resolution and its modules
// (/etc, the library directories), /proc for the process metrics, /dev for the random device,
// and /sys/fs/cgroup, where the CEL bridge's Go runtime reads the CPU limit its GOMAXPROCS follows
// (at load and again when the limit changes; denied, it would take every CPU of the host).
constexpr const char* kSystemReadDirs[] = {"/etc",  "/usr", "/lib",          "/lib64",
                                           "/proc", "/dev", "/sys/fs/cgroup"};

// Every file-system right of a Landlock ABI, so that what is not granted below is denied.
uint64_t HandledRights(int abi) {
  uint64_t rights = (static_cast<uint64_t>(LANDLOCK_ACCESS_FS_MAKE_SYM) << 1) - 1;  // ABI 1
  if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5) rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  return rights;
}

constexpr uint64_t kRead = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
// Writing new files (and replacing them) in a directory, as --cert-dir's generation does.
constexpr uint64_t kWrite = kRead | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_MAKE_REG |
                            LANDLOCK_ACCESS_FS_REMOVE_FILE;

std::string DirOf(const std::string& file) {
  const size_t slash = file.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : file.substr(0, slash);
}

// Adds a rule for the directory path and what is beneath it; a path that does not exist is
// skipped (there is nothing to read there).
Status AddRule(int ruleset, const std::string& path, uint64_t rights, uint64_t handled) {
  const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return OkStatus();
  landlock_path_beneath_attr attr{};
  attr.allowed_access = rights & handled;
  attr.parent_fd = fd;
  const long rc = ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0);
  const int err = errno;
  ::close(fd);
  if (rc != 0) {
    return InternalError("sandbox: landlock rule for \"" + path + "\": " + std::strerror(err));
  }
  return OkStatus();
}

// Reading one file and mapping it executable (Landlock's execute right covers execve only, but
// granting it keeps the rule true to what the file is for).
constexpr uint64_t kMapLibrary = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE;

// Adds a rule for exactly the open file fd (a regular file: only file rights may be granted).
Status AddFileRule(int ruleset, int fd, uint64_t rights, uint64_t handled) {
  landlock_path_beneath_attr attr{};
  attr.allowed_access = rights & handled;
  attr.parent_fd = fd;
  if (::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0) != 0) {
    return InternalError("sandbox: landlock rule for descriptor " + std::to_string(fd) + ": " +
                         std::strerror(errno));
  }
  return OkStatus();
}

}  // namespace

StatusOr<int> RestrictFilesystem(const std::vector<std::string>& read_files,
                                 const std::vector<std::string>& write_dirs,
                                 const std::vector<int>& library_fds) {
  const long abi =
      ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) return 0;  // ENOSYS or EOPNOTSUPP: no Landlock in this kernel
  const uint64_t handled = HandledRights(static_cast<int>(abi));
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = handled;
  const long ruleset =
      ::syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr.handled_access_fs), 0);
  if (ruleset < 0) {
    return InternalError(std::string("sandbox: landlock ruleset: ") + std::strerror(errno));
  }
  const int fd = static_cast<int>(ruleset);
  Status s;
  std::set<std::string> read_dirs(std::begin(kSystemReadDirs), std::end(kSystemReadDirs));
  for (const std::string& f : read_files) {
    if (!f.empty()) read_dirs.insert(DirOf(f));
  }
  for (const std::string& d : read_dirs) {
    if (s.ok()) s = AddRule(fd, d, kRead, handled);
  }
  for (const std::string& d : write_dirs) {
    if (s.ok() && !d.empty()) s = AddRule(fd, d, kWrite, handled);
  }
  for (const int lib : library_fds) {
    if (s.ok()) s = AddFileRule(fd, lib, kMapLibrary, handled);
  }
  if (s.ok() && ::syscall(SYS_landlock_restrict_self, fd, 0) != 0) {
    s = InternalError(std::string("sandbox: landlock restrict_self: ") + std::strerror(errno));
  }
  ::close(fd);
  if (!s.ok()) return s;
  return static_cast<int>(abi);
}

}  // namespace stowage::sandbox
