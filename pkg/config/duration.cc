#include "pkg/config/duration.h"

#include <cstdint>
#include <optional>

namespace stowage::config {
namespace {

constexpr uint64_t kMaxMagnitude = uint64_t{1} << 63;  // 2^63, the magnitude of INT64_MIN

Status InvalidDuration(std::string_view orig) {
  return InvalidArgumentError("time: invalid duration \"" + std::string(orig) + "\"");
}

std::optional<uint64_t> UnitNanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1000;  // µs (both)
  if (unit == "ms") return 1000000;
  if (unit == "s") return 1000000000;
  if (unit == "m") return uint64_t{60} * 1000000000;
  if (unit == "h") return uint64_t{3600} * 1000000000;
  return std::nullopt;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Writes v's fraction of 10^prec into the front of buf (which is filled from the back), leaving
// out trailing zeros and the point when the fraction is zero. Returns the new start and v/10^prec.
size_t FormatFraction(char* buf, size_t w, uint64_t& v, int prec) {
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    const char digit = static_cast<char>(v % 10);
    print = print || digit != 0;
    if (print) buf[--w] = static_cast<char>('0' + digit);
    v /= 10;
  }
  if (print) buf[--w] = '.';
  return w;
}

size_t FormatInt(char* buf, size_t w, uint64_t v) {
  if (v == 0) {
    buf[--w] = '0';
    return w;
  }
  while (v > 0) {
    buf[--w] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return w;
}

}  // namespace

StatusOr<Duration> ParseDuration(std::string_view orig) {
  std::string_view s = orig;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration(0);
  if (s.empty()) return InvalidDuration(orig);
  uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || IsDigit(s[0]))) return InvalidDuration(orig);
    // The integer part.
    uint64_t whole = 0;
    size_t i = 0;
    for (; i < s.size() && IsDigit(s[i]); ++i) {
      if (whole > kMaxMagnitude / 10) return InvalidDuration(orig);
      whole = whole * 10 + static_cast<uint64_t>(s[i] - '0');
      if (whole > kMaxMagnitude) return InvalidDuration(orig);
    }
    const bool has_whole = i > 0;
    s.remove_prefix(i);
    // The fraction: digits past what fits are dropped, as Go does.
    uint64_t fraction = 0;
    double scale = 1;
    bool has_fraction = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      bool overflow = false;
      size_t j = 0;
      for (; j < s.size() && IsDigit(s[j]); ++j) {
        if (overflow) continue;
        if (fraction > (kMaxMagnitude - 1) / 10) {
          overflow = true;
          continue;
        }
        const uint64_t next = fraction * 10 + static_cast<uint64_t>(s[j] - '0');
        if (next > kMaxMagnitude) {
          overflow = true;
          continue;
        }
        fraction = next;
        scale *= 10;
      }
      has_fraction = j > 0;
      s.remove_prefix(j);
    }
    if (!has_whole && !has_fraction) return InvalidDuration(orig);
    // The unit runs up to the next number.
    size_t u = 0;
    while (u < s.size() && !(s[u] == '.' || IsDigit(s[u]))) ++u;
    if (u == 0) {
      return InvalidArgumentError("time: missing unit in duration \"" + std::string(orig) + "\"");
    }
    const std::string_view unit_text = s.substr(0, u);
    s.remove_prefix(u);
    const std::optional<uint64_t> unit = UnitNanos(unit_text);
    if (!unit) {
      return InvalidArgumentError("time: unknown unit \"" + std::string(unit_text) +
                                  "\" in duration \"" + std::string(orig) + "\"");
    }
    if (whole > kMaxMagnitude / *unit) return InvalidDuration(orig);
    uint64_t value = whole * *unit;
    if (fraction > 0) {
      value += static_cast<uint64_t>(static_cast<double>(fraction) *
                                     (static_cast<double>(*unit) / scale));
      if (value > kMaxMagnitude) return InvalidDuration(orig);
    }
    total += value;
    if (total > kMaxMagnitude) return InvalidDuration(orig);
  }
  if (negative) return Duration(static_cast<int64_t>(0 - total));  // wraps to INT64_MIN at 2^63
  if (total > kMaxMagnitude - 1) return InvalidDuration(orig);
  return Duration(static_cast<int64_t>(total));
}

std::string FormatDuration(Duration d) {
  char buf[32];
  size_t w = sizeof(buf);
  const int64_t ns = d.count();
  const bool negative = ns < 0;
  uint64_t u = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  if (u < 1000000000) {
    // Below a second: one unit with a fraction (ns, µs, ms).
    int prec = 0;
    buf[--w] = 's';
    if (u == 0) {
      buf[--w] = '0';
      return std::string(buf + w, sizeof(buf) - w);
    }
    if (u < 1000) {
      buf[--w] = 'n';
    } else if (u < 1000000) {
      prec = 3;
      buf[--w] = '\xB5';  // U+00B5 in UTF-8: C2 B5
      buf[--w] = '\xC2';
    } else {
      prec = 6;
      buf[--w] = 'm';
    }
    w = FormatFraction(buf, w, u, prec);
    w = FormatInt(buf, w, u);
  } else {
    buf[--w] = 's';
    w = FormatFraction(buf, w, u, 9);
    w = FormatInt(buf, w, u % 60);
    u /= 60;
    if (u > 0) {
      buf[--w] = 'm';
      w = FormatInt(buf, w, u % 60);
      u /= 60;
      if (u > 0) {
        buf[--w] = 'h';
        w = FormatInt(buf, w, u);
      }
    }
  }
  if (negative) buf[--w] = '-';
  return std::string(buf + w, sizeof(buf) - w);
}

}  // namespace stowage::config
