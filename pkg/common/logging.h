// Logging in klog's text format through spdlog: "I1122 19:44:01.123456   12345 file.cc:42] msg".
// Verbosity follows klog: VLOG(n) lines appear when -v >= n. --logging-format=json switches to
// one JSON object per line. Log lines never contain credentials: callers pass redacted values.
#pragma once

#include <spdlog/spdlog.h>

#include <string_view>

namespace stowage::logging {

enum class Format { kText, kJson };

// Installs the process logger on stderr. Safe to call again (tests) to change the settings.
void Init(int verbosity, Format format = Format::kText);
// The current -v level.
int Verbosity();

}  // namespace stowage::logging

#define LOG_INFO(...) SPDLOG_INFO(__VA_ARGS__)
#define LOG_WARN(...) SPDLOG_WARN(__VA_ARGS__)
#define LOG_ERROR(...) SPDLOG_ERROR(__VA_ARGS__)
// klog's V(n).Info: cheap when disabled (one integer compare, arguments not evaluated).
#define VLOG(n, ...)                                                       \
  do {                                                                     \
    if (::stowage::logging::Verbosity() >= (n)) SPDLOG_INFO(__VA_ARGS__);  \
  } while (0)
