#include "pkg/sandbox/sandbox.h"

#include <dirent.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pkg/sandbox/landlock.h"

namespace stowage::sandbox {
namespace {

// The system calls stowage makes once running, found by running the integration tests under
// `strace -f -c` (docs/security.md says how to redo it): I/O and sockets (Asio's epoll reactor,
// OpenSSL, the HTTP clients and server), memory, threads and their synchronisation, signals
// (sigwait for SIGTERM), time, and the few reads of process facts (metrics, hardware threads).
constexpr const char* kAllowedSyscalls[] = {
    // Files and descriptors.
    "read",
    "write",
    "readv",
    "writev",
    "pread64",
    "pwrite64",
    "lseek",
    "close",
    "close_range",
    "fstat",
    "newfstatat",
    "stat",
    "lstat",
    "statx",
    "openat",
    "open",
    "access",
    "faccessat",
    "faccessat2",
    "readlink",
    "readlinkat",
    "getdents64",
    "fcntl",
    "ioctl",
    "dup",
    "dup2",
    "dup3",
    "pipe",
    "pipe2",
    "eventfd2",
    "fsync",
    "fdatasync",
    "mkdir",
    "mkdirat",
    "rename",
    "renameat",
    "unlink",
    "unlinkat",
    "umask",
    "getcwd",
    "statfs",
    "fstatfs",
    "fadvise64",
    // Readiness and timers.
    "epoll_create1",
    "epoll_ctl",
    "epoll_wait",
    "epoll_pwait",
    "epoll_pwait2",
    "poll",
    "ppoll",
    "select",
    "pselect6",
    "timerfd_create",
    "timerfd_settime",
    "timerfd_gettime",
    // Sockets.
    "socket",
    "socketpair",
    "connect",
    "accept",
    "accept4",
    "bind",
    "listen",
    "getsockname",
    "getpeername",
    "setsockopt",
    "getsockopt",
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    "sendmmsg",
    "recvmmsg",
    "shutdown",
    // Memory.
    "mmap",
    "munmap",
    "mremap",
    "mprotect",
    "madvise",
    "brk",
    "mincore",
    "membarrier",
    // Threads and synchronisation.
    "clone",
    "futex",
    "futex_waitv",
    "set_robust_list",
    "get_robust_list",
    "rseq",
    "set_tid_address",
    "exit",
    "exit_group",
    "gettid",
    "getpid",
    "getppid",
    "tgkill",
    "tkill",
    "sched_yield",
    "sched_getaffinity",
    "sched_getparam",
    "sched_getscheduler",
    "prctl",
    "arch_prctl",
    // Signals.
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "rt_sigtimedwait",
    "rt_sigsuspend",
    "sigaltstack",
    "restart_syscall",
    "kill",
    // Time.
    "nanosleep",
    "clock_nanosleep",
    "clock_gettime",
    "clock_getres",
    "gettimeofday",
    "time",
    // Process facts.
    "getrandom",
    "uname",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "getresuid",
    "getresgid",
    "getgroups",
    "prlimit64",
    "getrlimit",
    "getrusage",
    "sysinfo",
    "times",
    "capget",
};

// Landlock and capabilities act per thread: a thread that already exists would keep both.
Status CheckSingleThreaded() {
  DIR* d = ::opendir("/proc/self/task");
  if (d == nullptr) return FailedPreconditionError("sandbox: cannot list /proc/self/task");
  int threads = 0;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] != '.') ++threads;
  }
  ::closedir(d);
  if (threads != 1) {
    return FailedPreconditionError("sandbox: " + std::to_string(threads) +
                                   " threads already run; it must be entered before any starts");
  }
  return OkStatus();
}

Status DropCapabilities() {
  // The bounding set first: dropping from it needs CAP_SETPCAP, which goes next. EINVAL marks the
  // end of the capabilities this kernel knows.
  for (int cap = 0; cap <= 63; ++cap) {
    if (::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0) break;
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EPERM) {
      return InternalError("sandbox: dropping capability " + std::to_string(cap) +
                           " from the bounding set: " + std::strerror(errno));
    }
  }
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
    return InternalError(std::string("sandbox: clearing ambient capabilities: ") +
                         std::strerror(errno));
  }
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (::syscall(SYS_capset, &header, data) != 0) {
    return InternalError(std::string("sandbox: dropping capabilities: ") + std::strerror(errno));
  }
  return OkStatus();
}

}  // namespace

Status InstallSeccompFilter() {
  scmp_filter_ctx ctx = ::seccomp_init(SCMP_ACT_ERRNO(EPERM));
  if (ctx == nullptr) return InternalError("sandbox: seccomp_init failed");
  auto fail = [&](const std::string& what, int rc) {
    ::seccomp_release(ctx);
    return InternalError("sandbox: seccomp " + what + ": " + std::strerror(-rc));
  };
  // All threads, and no_new_privs set by libseccomp if it is not yet.
  if (int rc = ::seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1); rc != 0) {
    return fail("TSYNC", rc);
  }
  for (const char* name : kAllowedSyscalls) {
    const int nr = ::seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture (open, stat on arm64)
    if (int rc = ::seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0); rc != 0) {
      return fail(std::string("allowing ") + name, rc);
    }
  }
  // glibc falls back from clone3 to clone only on ENOSYS; clone is allowed above.
  if (int rc = ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0); rc != 0) {
    return fail("clone3", rc);
  }
  if (int rc = ::seccomp_load(ctx); rc != 0) return fail("load", rc);
  ::seccomp_release(ctx);
  return OkStatus();
}

StatusOr<Report> Enter(const Policy& policy) {
  if (Status s = CheckSingleThreaded(); !s.ok()) return s;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    return InternalError(std::string("sandbox: no_new_privs: ") + std::strerror(errno));
  }
  Report report;
  // Landlock before the capabilities go: building the ruleset opens the allowed directories,
  // some of which only root may read with CAP_DAC_READ_SEARCH.
  auto abi = RestrictFilesystem(policy.read_files, policy.write_dirs, policy.library_fds);
  if (!abi.ok()) return abi.status();
  report.landlock_abi = *abi;
  if (Status s = DropCapabilities(); !s.ok()) return s;
  if (policy.seccomp) {
    if (Status s = InstallSeccompFilter(); !s.ok()) return s;
  }
  return report;
}

}  // namespace stowage::sandbox
