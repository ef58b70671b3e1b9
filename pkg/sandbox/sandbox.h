// The process sandbox: what stowage gives up once its inputs are known, so that a flaw reached
// from the network (the secure port, the API server's data) cannot be turned into code execution
// or access to the host.
//
//   * no_new_privs, so nothing it could execute gains privileges (and seccomp needs it);
//   * every capability dropped: effective, permitted, inheritable, ambient and bounding sets;
//   * Landlock, where the kernel has it: no write anywhere, reads only beneath the directories of
//     the files it re-reads (certificates, kubeconfig, token) and the system directories the C
//     library needs (name resolution, /proc for metrics, /sys/fs/cgroup for the CEL bridge's Go
//     runtime), and read and execute on exactly the libraries of library_fds (the CEL bridge);
//   * a seccomp allow-list of the system calls it makes (kAllowedSyscalls in sandbox.cc); any
//     other call fails with EPERM (clone3 with ENOSYS, so glibc falls back to clone).
//
// Capabilities, no_new_privs and Landlock apply to the calling thread and the threads it creates
// later, so Enter must run before any other thread exists; it checks, and fails otherwise.
// seccomp is installed with TSYNC all the same. Not thread-safe: call once, from main's thread.
#pragma once

#include <string>
#include <vector>

#include "stowage/common/status.h"

namespace stowage::sandbox {

struct Policy {
  // Files read after Enter (reloaded certificates, kubeconfig, token files): their directories
  // stay readable, so a file replaced by a rename (as Kubernetes updates Secrets) is still seen.
  std::vector<std::string> read_files;
  // Directories written after Enter (the generated certificate pair of --cert-dir).
  std::vector<std::string> write_dirs;
  // Libraries mapped after Enter (the CEL bridge), as descriptors opened after their checks:
  // read and execute on exactly those files, loaded through /proc/self/fd/N.
  std::vector<int> library_fds;
  // Landlock only (tests): skip the seccomp filter.
  bool seccomp = true;
};

// What Enter applied, for the start-up log.
struct Report {
  int landlock_abi = 0;  // 0: the kernel has no Landlock; the rest still applies
};

// Applies the whole sandbox to the process. Errors say which step failed and why.
StatusOr<Report> Enter(const Policy& policy);

// The seccomp allow-list alone, on the calling thread (tests use it in a child process).
Status InstallSeccompFilter();

}  // namespace stowage::sandbox
