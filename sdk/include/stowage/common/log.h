// The logging entry a plugin sees: klog-style lines through the process logger, with no
// third-party header (pkg/common/logging.h, which sets the logger up, includes spdlog; this
// header is what the installed SDK offers instead).
//
//   STOWAGE_LOG(INFO) << "Decision: " << pod.meta.name << " => " << node;
//   STOWAGE_VLOG(3) << "filter " << node;   // only when -v >= 3 or --vmodule grants 3
//
// A line is built in a std::ostringstream and handed to the logger when the statement ends;
// STOWAGE_VLOG evaluates nothing when its level is off (an integer compare). The lines carry
// the caller's file and line, and the V level, exactly as LOG_INFO/VLOG lines do.
//
// Thread-safety: any thread may log; the verbosity settings are atomics read per line.
#pragma once

#include <atomic>
#include <cstdint>
#include <sstream>
#include <string_view>

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::logging {

enum class Severity { kInfo, kWarning, kError };

// Writes one line to the process logger (stderr until the scheduler sets logging up).
void Emit(Severity severity, int v, const char* file, int line, std::string_view msg);

namespace internal {

// One VLOG call site: caches the --vmodule level for its file until the setting changes.
struct VSite {
  constexpr explicit VSite(const char* f) : file(f) {}
  const char* file;
  std::atomic<uint64_t> generation{0};  // 0: never computed
  std::atomic<int> level{0};
};

extern std::atomic<int> g_verbosity;
extern std::atomic<bool> g_vmodule_active;
// The vmodule level of site's file (recomputed when --vmodule changed since the last call).
int SiteLevel(VSite& site);

inline bool VEnabled(VSite& site, int n) {
  if (g_verbosity.load(std::memory_order_relaxed) >= n) return true;
  return g_vmodule_active.load(std::memory_order_relaxed) && SiteLevel(site) >= n;
}

// One line being written: emitted when the full expression ends.
class LineStream {
 public:
  LineStream(Severity severity, int v, const char* file, int line)
      : severity_(severity), v_(v), file_(file), line_(line) {}
  ~LineStream() { Emit(severity_, v_, file_, line_, out_.view()); }
  LineStream(const LineStream&) = delete;
  LineStream& operator=(const LineStream&) = delete;
  std::ostringstream& stream() { return out_; }

 private:
  Severity severity_;
  int v_;
  const char* file_;
  int line_;
  std::ostringstream out_;
};

}  // namespace internal
}  // namespace stowage::logging

#define STOWAGE_LOG_SEVERITY_INFO ::stowage::logging::Severity::kInfo
#define STOWAGE_LOG_SEVERITY_WARNING ::stowage::logging::Severity::kWarning
#define STOWAGE_LOG_SEVERITY_ERROR ::stowage::logging::Severity::kError
// STOWAGE_LOG(INFO|WARNING|ERROR) << ...: one line at that severity.
#define STOWAGE_LOG(severity)                                                                      \
  ::stowage::logging::internal::LineStream(STOWAGE_LOG_SEVERITY_##severity, 0, __FILE__, __LINE__) \
      .stream()
// STOWAGE_VLOG(n) << ...: klog's V(n).Info, an info line shown when -v >= n. The if-else shape
// keeps a caller's own `else` bound to the caller's `if`.
#define STOWAGE_VLOG(n)                                                                          \
  if (static ::stowage::logging::internal::VSite stowage_vsite_(__FILE__);                       \
      !::stowage::logging::internal::VEnabled(stowage_vsite_, (n))) {                            \
  } else                                                                                         \
    ::stowage::logging::internal::LineStream(::stowage::logging::Severity::kInfo, (n), __FILE__, \
                                             __LINE__)                                           \
        .stream()

#pragma GCC visibility pop
