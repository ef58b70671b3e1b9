// Landlock for the sandbox (internal to pkg/sandbox): the process may write nowhere except
// write_dirs, and read only beneath the directories of read_files and the system directories the
// C library reads at run time.
#pragma once

#include <string>
#include <vector>

#include "stowage/common/status.h"

namespace stowage::sandbox {

// Restricts the calling thread and its future threads. library_fds are open files that may
// still be read and mapped (read and execute on exactly each file). Returns the kernel's Landlock
// ABI version, 0 when the kernel has no Landlock (nothing is restricted then). Needs
// no_new_privs set.
StatusOr<int> RestrictFilesystem(const std::vector<std::string>& read_files,
                                 const std::vector<std::string>& write_dirs,
                                 const std::vector<int>& library_fds = {});

}  // namespace stowage::sandbox
