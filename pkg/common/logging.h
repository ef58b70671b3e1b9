// Logging as kube-scheduler writes it, through spdlog. The in-tree macros (LOG_INFO, VLOG, with
// fmt syntax) live here; stowage/common/log.h holds the spdlog-free entry plugins use.
//
// Text (the default) is klog's header format, one line per message:
//   I1122 19:44:01.123456   12345 schedule_one.cc:213] msg
// severity (I, W, E, F), month and day, local time to the microsecond, the thread id
// right-aligned in 7 columns (klog prints the pid there), the source file's base name and line.
// JSON (--logging-format=json) is what component-base's zap logger writes:
//   {"ts":1732304641123.4568,"caller":"scheduler/schedule_one.cc:213","msg":"msg","v":0}
// ts is milliseconds since the epoch as a float, caller the last directory and file; info and
// warning lines carry "v" (their verbosity), error lines carry no "v" and end with "err" when an
// error value was given (LOG_ERROR_ERR). One object per line, strings escaped as zap does.
//
// Verbosity follows klog: VLOG(n) lines appear when -v >= n, or when a --vmodule pattern
// matching the source file (base name without extension, glob syntax) grants >= n. Both can be
// changed at run time (SetVerbosity, for /debug/flags/v). Log lines never contain credentials:
// callers pass redacted values.
//
// Thread-safety: every function here may be called from any thread. Init replaces the process
// logger and is meant for startup (and tests). The per-line V level and error text reach the
// formatter through thread-locals, so the logger must stay synchronous (it is).
#pragma once

#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "stowage/common/log.h"
#include "stowage/common/status.h"

namespace stowage::logging {

enum class Format { kText, kJson };

// "text" or "json" (the values of --logging-format).
StatusOr<Format> ParseFormat(std::string_view name);

struct Config {
  int verbosity = 0;
  Format format = Format::kText;
  // klog's --vmodule: "pattern=N,pattern=N"; empty for none.
  std::string vmodule;
  // --log-{text,json}-split-stream: info and warnings to stdout, errors to stderr.
  bool split_stream = false;
};

// Installs the process logger on stderr (or split as configured). Safe to call again (tests) to
// change the settings. Fails only for a malformed vmodule, leaving the logger as it was.
Status Init(const Config& config);
// Init({verbosity, format}); cannot fail.
void Init(int verbosity, Format format = Format::kText);
// Installs the process logger writing to sink with the formatter of config.format (for tests
// and for callers that log somewhere else). split_stream is ignored.
Status InitWithSink(const Config& config, spdlog::sink_ptr sink);

// The current -v level.
int Verbosity();
// Changes -v at run time (PUT /debug/flags/v). Negative values count as 0.
void SetVerbosity(int v);
// Replaces the --vmodule setting at run time with klog's syntax and errors; "" clears it.
Status SetVModule(std::string_view spec);
// The current --vmodule setting as klog prints it ("a=2,b*=3").
std::string VModule();

// The formatter the process logger uses, for tests that build their own logger.
std::unique_ptr<spdlog::formatter> NewFormatter(Format format);

namespace internal {

// Marks the lines logged on this thread while alive with a V level (JSON "v").
class VScope {
 public:
  explicit VScope(int v);
  ~VScope();
  VScope(const VScope&) = delete;
  VScope& operator=(const VScope&) = delete;

 private:
  int previous_;
};

// Attaches an error text to the lines logged on this thread while alive (JSON "err", text
// err="...").
class ErrScope {
 public:
  explicit ErrScope(std::string err);
  ~ErrScope();
  ErrScope(const ErrScope&) = delete;
  ErrScope& operator=(const ErrScope&) = delete;
};

inline std::string ErrText(const Status& s) { return std::string(s.message()); }
inline std::string ErrText(std::string_view s) { return std::string(s); }
inline std::string ErrText(const char* s) { return s; }
inline std::string ErrText(const std::string& s) { return s; }

}  // namespace internal
}  // namespace stowage::logging

#define LOG_INFO(...) SPDLOG_INFO(__VA_ARGS__)
#define LOG_WARN(...) SPDLOG_WARN(__VA_ARGS__)
#define LOG_ERROR(...) SPDLOG_ERROR(__VA_ARGS__)
// klog's ErrorS(err, msg): err is a Status or a string; the message is formatted as usual.
#define LOG_ERROR_ERR(err, ...)                                \
  do {                                                         \
    ::stowage::logging::internal::ErrScope stowage_err_scope_( \
        ::stowage::logging::internal::ErrText(err));           \
    SPDLOG_ERROR(__VA_ARGS__);                                 \
  } while (0)
// klog's V(n).Info: cheap when disabled (an integer compare, arguments not evaluated).
#define VLOG(n, ...)                                                     \
  do {                                                                   \
    static ::stowage::logging::internal::VSite stowage_vsite_(__FILE__); \
    if (::stowage::logging::internal::VEnabled(stowage_vsite_, (n))) {   \
      ::stowage::logging::internal::VScope stowage_vscope_((n));         \
      SPDLOG_INFO(__VA_ARGS__);                                          \
    }                                                                    \
  } while (0)
