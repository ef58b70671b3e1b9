// Small file and encoding helpers for configuration inputs (kubeconfig, certificates, tokens).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "stowage/common/status.h"

namespace stowage {

// Reads a whole regular file with a hard cap: reading stops past max_bytes whatever size the file
// reports, and anything but a regular file (a FIFO, /dev/zero, a directory) is refused without
// blocking. Errors name the path and what went wrong; callers prefix the flag that named it.
StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes = 16u << 20);

// What a file of this st_mode is, for errors about files that should be regular ("a directory",
// "a FIFO", "a symbolic link", ...).
const char* FileKind(mode_t mode);

// Standard base64 (RFC 4648, with padding; whitespace ignored). Errors say where the input is bad.
StatusOr<std::string> Base64Decode(std::string_view in);
std::string Base64Encode(std::string_view in);

}  // namespace stowage
