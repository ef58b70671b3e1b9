#include "pkg/common/logging.h"

#include <fnmatch.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>
#include <vector>

#include "pkg/common/go_quote.h"
#include "pkg/common/log_value.h"
#include "pkg/common/strconv.h"
#include "stowage/common/mutex.h"

namespace stowage::logging {
namespace internal {
std::atomic<int> g_verbosity{0};
std::atomic<bool> g_vmodule_active{false};
}  // namespace internal

namespace {

using internal::g_verbosity;
using internal::g_vmodule_active;

struct ModulePattern {
  std::string pattern;
  bool literal;
  int level;
};

Mutex g_vmodule_mu;
std::vector<ModulePattern> g_vmodule GUARDED_BY(g_vmodule_mu);
// Bumped on every SetVModule so call sites recompute their cached level; starts at 1 because 0
// marks a site that never computed one.
std::atomic<uint64_t> g_vmodule_generation{1};

thread_local int t_v = 0;
thread_local std::optional<std::string> t_err;

void AppendHex2(std::string& out, const char* prefix, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += prefix;
  out += kHex[c >> 4];
  out += kHex[c & 0xF];
}

// A JSON string body as zap's encoder writes it: \" \\ \n \r \t, other control bytes as \u00XX,
// invalid UTF-8 as \ufffd, everything else (including <, > and &) as is.
void AppendZapEscaped(std::string& out, std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      size_t n;
      if (DecodeRune(s, i, n) < 0) {
        out += "\\ufffd";
      } else {
        out.append(s.substr(i, n));
      }
      i += n;
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          AppendHex2(out, "\\u00", c);
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
}

// klog's value syntax for key=value: quoted on one line, or the =<\n\tline\n > block.
void AppendKlogValue(std::string& out, std::string_view key, std::string_view v) {
  out += ' ';
  out += key;
  if (v.find('\n') == std::string_view::npos) {
    out += '=';
    AppendGoQuote(out, v);
    return;
  }
  out += "=<\n";
  size_t nl;
  while ((nl = v.find('\n')) != std::string_view::npos) {
    out += '\t';
    out.append(v.substr(0, nl + 1));
    v.remove_prefix(nl + 1);
  }
  if (v.empty()) {
    out += " >";
  } else {
    out += '\t';
    out.append(v);
    out += "\n >";
  }
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// zap's ShortCallerEncoder: the last directory and the file.
std::string_view ShortPath(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return path;
  size_t prev = path.rfind('/', slash - 1);
  return prev == std::string_view::npos ? path : path.substr(prev + 1);
}

class KlogFormatter : public spdlog::formatter {
 public:
  explicit KlogFormatter(Format format) : format_(format) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    std::string line = format_ == Format::kJson ? Json(msg) : Text(msg);
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<KlogFormatter>(format_);
  }

 private:
  static bool IsError(spdlog::level::level_enum l) { return l >= spdlog::level::err; }

  static std::string Text(const spdlog::details::log_msg& msg) {
    char severity = msg.level >= spdlog::level::critical ? 'F'
                    : msg.level == spdlog::level::err    ? 'E'
                    : msg.level == spdlog::level::warn   ? 'W'
                                                         : 'I';
    auto micros =
        std::chrono::duration_cast<std::chrono::microseconds>(msg.time.time_since_epoch()).count();
    std::time_t secs = static_cast<std::time_t>(micros / 1000000);
    std::tm tm{};
    localtime_r(&secs, &tm);
    // klog writes the last 7 digits of the id, padded with spaces on the left.
    unsigned long long tid = msg.thread_id % 10000000ULL;
    std::string_view file = msg.source.filename ? BaseName(msg.source.filename) : "???";
    int line_no = msg.source.filename ? msg.source.line : 1;
    char head[96];
    int n = std::snprintf(head, sizeof(head), "%c%02d%02d %02d:%02d:%02d.%06lld %7llu ", severity,
                          tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                          static_cast<long long>(micros % 1000000), tid);
    std::string out(head, static_cast<size_t>(n));
    out.append(file);
    out += ':';
    out += std::to_string(line_no);
    out += "] ";
    std::string_view payload(msg.payload.data(), msg.payload.size());
    if (t_err && IsError(msg.level)) {
      // klog's ErrorS: the message quoted, then err=.
      AppendGoQuote(out, payload);
      AppendKlogValue(out, "err", *t_err);
      out += '\n';
      return out;
    }
    out.append(payload);
    if (payload.empty() || payload.back() != '\n') out += '\n';
    return out;
  }

  static std::string Json(const spdlog::details::log_msg& msg) {
    auto nanos =
        std::chrono::duration_cast<std::chrono::nanoseconds>(msg.time.time_since_epoch()).count();
    double millis = static_cast<double>(nanos) / 1e6;
    char ts[64];
    auto [end, ec] = std::to_chars(ts, ts + sizeof(ts), millis, std::chars_format::fixed);
    std::string out = "{\"ts\":";
    out.append(ts, ec == std::errc() ? end : ts);
    if (msg.source.filename) {
      out += ",\"caller\":\"";
      AppendZapEscaped(out, ShortPath(msg.source.filename));
      out += ':';
      out += std::to_string(msg.source.line);
      out += '"';
    }
    out += ",\"msg\":\"";
    AppendZapEscaped(out, std::string_view(msg.payload.data(), msg.payload.size()));
    out += '"';
    if (!IsError(msg.level)) {
      out += ",\"v\":";
      out += std::to_string(t_v);
    } else if (t_err) {
      out += ",\"err\":\"";
      AppendZapEscaped(out, *t_err);
      out += '"';
    }
    out += "}\n";
    return out;
  }

  Format format_;
};

// --log-*-split-stream: errors to stderr, the rest to stdout; each line flushed at once.
class SplitSink : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t buf;
    formatter_->format(msg, buf);
    FILE* f = msg.level >= spdlog::level::err ? stderr : stdout;
    std::fwrite(buf.data(), 1, buf.size(), f);
    std::fflush(f);
  }
  void flush_() override {
    std::fflush(stdout);
    std::fflush(stderr);
  }
};

StatusOr<std::vector<ModulePattern>> ParseVModule(std::string_view spec) {
  const Status syntax =
      InvalidArgumentError("syntax error: expect comma-separated list of filename=N");
  std::vector<ModulePattern> out;
  while (!spec.empty()) {
    size_t comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (item.empty()) continue;  // a trailing comma is harmless
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || item.find('=', eq + 1) != std::string_view::npos ||
        eq == 0 || eq + 1 == item.size()) {
      return syntax;
    }
    std::string_view pattern = item.substr(0, eq);
    std::optional<int64_t> level = ParseInt64(item.substr(eq + 1));
    if (!level || *level > INT32_MAX || *level < INT32_MIN) return syntax;
    if (*level < 0) return InvalidArgumentError("negative value for vmodule level");
    if (*level == 0) continue;  // klog ignores these
    bool literal = pattern.find_first_of("\\*?[]") == std::string_view::npos;
    out.push_back({std::string(pattern), literal, static_cast<int>(*level)});
  }
  return out;
}

Status Install(const Config& config, spdlog::sink_ptr sink) {
  if (auto s = SetVModule(config.vmodule); !s.ok()) return s;
  SetVerbosity(config.verbosity);
  sink->set_formatter(NewFormatter(config.format));
  spdlog::drop("stowage");
  auto logger = std::make_shared<spdlog::logger>("stowage", std::move(sink));
  logger->set_level(spdlog::level::info);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(std::move(logger));
  return OkStatus();
}

}  // namespace

namespace internal {

int SiteLevel(VSite& site) {
  uint64_t gen = g_vmodule_generation.load(std::memory_order_acquire);
  if (site.generation.load(std::memory_order_acquire) == gen) {
    return site.level.load(std::memory_order_relaxed);
  }
  // klog matches the file's base name without its extension.
  std::string file(BaseName(site.file));
  if (size_t dot = file.rfind('.'); dot != std::string::npos) file.resize(dot);
  int level = 0;
  {
    MutexLock l(g_vmodule_mu);
    for (const ModulePattern& p : g_vmodule) {
      bool match = p.literal ? file == p.pattern
                             : fnmatch(p.pattern.c_str(), file.c_str(), FNM_PATHNAME) == 0;
      if (match) {
        level = p.level;
        break;
      }
    }
  }
  site.level.store(level, std::memory_order_relaxed);
  site.generation.store(gen, std::memory_order_release);
  return level;
}

VScope::VScope(int v) : previous_(t_v) { t_v = v; }
VScope::~VScope() { t_v = previous_; }

ErrScope::ErrScope(std::string err) { t_err = std::move(err); }
ErrScope::~ErrScope() { t_err.reset(); }

}  // namespace internal

void Emit(Severity severity, int v, const char* file, int line, std::string_view msg) {
  static constexpr spdlog::level::level_enum kLevels[] = {spdlog::level::info, spdlog::level::warn,
                                                          spdlog::level::err};
  internal::VScope scope(v);
  spdlog::default_logger_raw()->log(spdlog::source_loc{file, line, ""},
                                    kLevels[static_cast<int>(severity)], "{}", msg);
}

StatusOr<Format> ParseFormat(std::string_view name) {
  if (name == "text") return Format::kText;
  if (name == "json") return Format::kJson;
  return InvalidArgumentError("unsupported log format \"" + std::string(name) +
                              "\": use \"text\" or \"json\"");
}

int Verbosity() { return g_verbosity.load(std::memory_order_relaxed); }

void SetVerbosity(int v) { g_verbosity.store(v < 0 ? 0 : v, std::memory_order_relaxed); }

Status SetVModule(std::string_view spec) {
  auto parsed = ParseVModule(spec);
  if (!parsed.ok()) return parsed.status();
  MutexLock l(g_vmodule_mu);
  g_vmodule = std::move(*parsed);
  g_vmodule_active.store(!g_vmodule.empty(), std::memory_order_relaxed);
  g_vmodule_generation.fetch_add(1, std::memory_order_acq_rel);
  return OkStatus();
}

std::string VModule() {
  MutexLock l(g_vmodule_mu);
  std::string out;
  for (const ModulePattern& p : g_vmodule) {
    if (!out.empty()) out += ',';
    out += p.pattern + "=" + std::to_string(p.level);
  }
  return out;
}

std::unique_ptr<spdlog::formatter> NewFormatter(Format format) {
  return std::make_unique<KlogFormatter>(format);
}

Status Init(const Config& config) {
  spdlog::sink_ptr sink;
  if (config.split_stream) {
    sink = std::make_shared<SplitSink>();
  } else {
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  }
  return Install(config, std::move(sink));
}

void Init(int verbosity, Format format) {
  Config config;
  config.verbosity = verbosity;
  config.format = format;
  (void)Init(config);  // cannot fail without a vmodule
}

Status InitWithSink(const Config& config, spdlog::sink_ptr sink) {
  return Install(config, std::move(sink));
}

std::string KeyValue(std::string_view key, std::string_view value) {
  std::string out;
  AppendKlogValue(out, key, value);
  return out;
}

}  // namespace stowage::logging
