// Small file and encoding helpers for configuration inputs (kubeconfig, certificates, tokens).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "pkg/common/status.h"

namespace stowage {

// Reads a whole file; files larger than max_bytes are rejected rather than loaded. Errors name
// the path and what went wrong.
StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes = 16u << 20);

// Standard base64 (RFC 4648, with padding; whitespace ignored). Errors say where the input is bad.
StatusOr<std::string> Base64Decode(std::string_view in);
std::string Base64Encode(std::string_view in);

}  // namespace stowage
