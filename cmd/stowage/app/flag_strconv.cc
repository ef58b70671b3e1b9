// Go's strconv number parsing, encoding/csv records and net.ParseIP, with Go's error texts, for
// the flag values of flags.h. Only what pflag's value types use is implemented.
#include <arpa/inet.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "cmd/stowage/app/flags.h"
#include "pkg/config/field_error.h"

namespace stowage::app {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

Status NumError(std::string_view fn, std::string_view s, std::string_view what) {
  return InvalidArgumentError("strconv." + std::string(fn) + ": parsing " + GoQuote(s) + ": " +
                              std::string(what));
}

// strconv's underscoreOK: underscores only between digits, or between a base prefix and a
// digit, and only when a base prefix is allowed (checked by the caller).
bool UnderscoreOK(std::string_view s) {
  char saw = '^';
  size_t i = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  bool hex = false;
  if (s.size() >= 2 && s[0] == '0' &&
      (Lower(s[1]) == 'b' || Lower(s[1]) == 'o' || Lower(s[1]) == 'x')) {
    i = 2;
    saw = '0';
    hex = Lower(s[1]) == 'x';
  }
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if ((c >= '0' && c <= '9') || (hex && Lower(c) >= 'a' && Lower(c) <= 'f')) {
      saw = '0';
      continue;
    }
    if (c == '_') {
      if (saw != '0') return false;
      saw = '_';
      continue;
    }
    if (saw == '_') return false;
    saw = '!';
  }
  return saw != '_';
}

// strconv.ParseUint's core on an unsigned magnitude; fn names the Go function for errors.
StatusOr<uint64_t> ParseMagnitude(std::string_view s, std::string_view orig, int base, int bits,
                                  std::string_view fn) {
  if (s.empty()) return NumError(fn, orig, "invalid syntax");
  const bool base0 = base == 0;
  if (base == 0) {
    base = 10;
    if (s[0] == '0') {
      if (s.size() >= 3 && Lower(s[1]) == 'b') {
        base = 2;
        s.remove_prefix(2);
      } else if (s.size() >= 3 && Lower(s[1]) == 'o') {
        base = 8;
        s.remove_prefix(2);
      } else if (s.size() >= 3 && Lower(s[1]) == 'x') {
        base = 16;
        s.remove_prefix(2);
      } else {
        base = 8;
        s.remove_prefix(1);
      }
    }
  }
  const uint64_t max_val =
      bits >= 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << bits) - 1;
  uint64_t n = 0;
  bool underscores = false;
  bool overflow = false;
  for (char c : s) {
    int d;
    if (c == '_' && base0) {
      underscores = true;
      continue;
    } else if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (Lower(c) >= 'a' && Lower(c) <= 'z') {
      d = Lower(c) - 'a' + 10;
    } else {
      return NumError(fn, orig, "invalid syntax");
    }
    if (d >= base) return NumError(fn, orig, "invalid syntax");
    if (overflow) continue;
    if (n > (max_val - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) {
      overflow = true;
      continue;
    }
    n = n * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  if (underscores && !UnderscoreOK(orig)) return NumError(fn, orig, "invalid syntax");
  if (overflow) return NumError(fn, orig, "value out of range");
  return n;
}

// The longest run of zero groups (at least two), first on a tie, as Go's IP.String picks it.
std::string FormatIPv6(const std::array<uint8_t, 16>& b) {
  int best_start = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (b[2 * i] == 0 && b[2 * i + 1] == 0) {
      int j = i;
      while (j < 8 && b[2 * j] == 0 && b[2 * j + 1] == 0) ++j;
      if (j - i > best_len && j - i >= 2) {
        best_start = i;
        best_len = j - i;
      }
      i = j;
    } else {
      ++i;
    }
  }
  std::string out;
  char buf[8];
  for (int i = 0; i < 8; ++i) {
    if (i == best_start) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    std::snprintf(buf, sizeof(buf), "%x", (b[2 * i] << 8) | b[2 * i + 1]);
    out += buf;
  }
  return out;
}

}  // namespace

StatusOr<bool> ParseGoBool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") {
    return false;
  }
  return NumError("ParseBool", s, "invalid syntax");
}

StatusOr<int64_t> ParseGoInt(std::string_view s, int base, int bits) {
  if (s.empty()) return NumError("ParseInt", s, "invalid syntax");
  std::string_view m = s;
  bool neg = false;
  if (m[0] == '+' || m[0] == '-') {
    neg = m[0] == '-';
    m.remove_prefix(1);
  }
  auto un = ParseMagnitude(m, s, base, 64, "ParseInt");
  if (!un.ok()) {
    if (un.status().message().ends_with("value out of range")) {
      return NumError("ParseInt", s, "value out of range");
    }
    return NumError("ParseInt", s, "invalid syntax");
  }
  const uint64_t cutoff = uint64_t{1} << (bits - 1);
  if (!neg && *un >= cutoff) return NumError("ParseInt", s, "value out of range");
  if (neg && *un > cutoff) return NumError("ParseInt", s, "value out of range");
  if (neg) return static_cast<int64_t>(0 - *un);
  return static_cast<int64_t>(*un);
}

StatusOr<uint64_t> ParseGoUint(std::string_view s, int bits) {
  return ParseMagnitude(s, s, 10, bits, "ParseUint");
}

StatusOr<float> ParseGoFloat32(std::string_view s) {
  auto syntax = [&] { return NumError("ParseFloat", s, "invalid syntax"); };
  std::string_view m = s;
  bool neg = false;
  if (!m.empty() && (m[0] == '+' || m[0] == '-')) {
    neg = m[0] == '-';
    m.remove_prefix(1);
  }
  std::string lower;
  for (char c : m) lower += Lower(c);
  if (lower == "inf" || lower == "infinity") {
    return neg ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  }
  if (lower == "nan" && m.size() == s.size()) return std::numeric_limits<float>::quiet_NaN();
  if (m.empty()) return syntax();
  // Go's float literal: decimal digits with '.', optional e/E exponent; or 0x hex mantissa with
  // a mandatory p exponent. Underscores as in UnderscoreOK.
  bool hex = m.size() >= 2 && m[0] == '0' && Lower(m[1]) == 'x';
  std::string clean;
  bool underscores = false;
  size_t i = hex ? 2 : 0;
  bool digits = false, dot = false;
  for (; i < m.size(); ++i) {
    const char c = m[i];
    if (c == '_') {
      underscores = true;
      continue;
    }
    if (c == '.') {
      if (dot) return syntax();
      dot = true;
      clean += c;
      continue;
    }
    const bool is_digit = (c >= '0' && c <= '9') || (hex && Lower(c) >= 'a' && Lower(c) <= 'f');
    if (!is_digit) break;
    digits = true;
    clean += c;
  }
  if (!digits) return syntax();
  std::string exponent;
  if (i < m.size()) {
    const char e = Lower(m[i]);
    if ((hex && e != 'p') || (!hex && e != 'e')) return syntax();
    ++i;
    if (i < m.size() && (m[i] == '+' || m[i] == '-')) exponent += m[i++];
    bool exp_digits = false;
    for (; i < m.size(); ++i) {
      if (m[i] == '_') {
        underscores = true;
        continue;
      }
      if (m[i] < '0' || m[i] > '9') return syntax();
      exponent += m[i];
      exp_digits = true;
    }
    if (!exp_digits) return syntax();
  } else if (hex) {
    return syntax();  // hexadecimal mantissa requires a 'p' exponent
  }
  if (underscores && !UnderscoreOK(m)) return syntax();
  // Parse as double, then round to float (Go rounds the exact value once; the double step can
  // differ only in the last bit of pathological inputs).
  std::string text = clean;
  if (!exponent.empty()) text += (hex ? "p" : "e") + exponent;
  double d = 0;
  const auto fmt = hex ? std::chars_format::hex : std::chars_format::general;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), d, fmt);
  if (ec == std::errc::result_out_of_range) {
    // Either overflow or underflow; underflow is not an error in Go.
    if (!exponent.empty() && exponent[0] == '-') return neg ? -0.0f : 0.0f;
    return NumError("ParseFloat", s, "value out of range");
  }
  if (ec != std::errc() || ptr != text.data() + text.size()) return syntax();
  if (std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max())) {
    // Values that round down to FLT_MAX are fine; anything at or past the halfway point to the
    // next power is out of range.
    const double limit = 3.4028235677973366e38;  // FLT_MAX + half an ulp
    if (std::fabs(d) >= limit) return NumError("ParseFloat", s, "value out of range");
  }
  const float f = static_cast<float>(d);
  return neg ? -f : f;
}

std::string FormatGoFloat32(float f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "+Inf" : "-Inf";
  if (f == 0) return std::signbit(f) ? "-0" : "0";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), f, std::chars_format::scientific);
  std::string sci(buf, end);  // "-1.234567e+06"
  const bool neg = sci[0] == '-';
  if (neg) sci.erase(0, 1);
  const size_t e = sci.find('e');
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (sci[i] != '.') digits += sci[i];
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int exp = std::stoi(sci.substr(e + 1));
  const int nd = static_cast<int>(digits.size());
  std::string out = neg ? "-" : "";
  if (exp < -4 || exp >= 6) {
    // %e: d[.ddd]e±dd
    out += digits[0];
    if (nd > 1) out += "." + digits.substr(1);
    out += exp < 0 ? "e-" : "e+";
    const int a = exp < 0 ? -exp : exp;
    if (a < 10) out += '0';
    out += std::to_string(a);
    return out;
  }
  // %f with exactly the shortest digits.
  const int dp = exp + 1;  // digits before the decimal point
  if (dp <= 0) {
    out += "0." + std::string(static_cast<size_t>(-dp), '0') + digits;
  } else if (dp >= nd) {
    out += digits + std::string(static_cast<size_t>(dp - nd), '0');
  } else {
    out += digits.substr(0, static_cast<size_t>(dp)) + "." + digits.substr(static_cast<size_t>(dp));
  }
  return out;
}

std::optional<std::string> CanonicalIP(std::string_view s) {
  const std::string text(s);
  if (text.find_first_of("%/ ") != std::string::npos) return std::nullopt;
  in_addr v4{};
  if (text.find(':') == std::string::npos) {
    if (inet_pton(AF_INET, text.c_str(), &v4) != 1) return std::nullopt;
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &v4, buf, sizeof(buf));
    return std::string(buf);
  }
  std::array<uint8_t, 16> b{};
  if (inet_pton(AF_INET6, text.c_str(), b.data()) != 1) return std::nullopt;
  static constexpr uint8_t kV4Prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(b.data(), kV4Prefix, 12) == 0) {
    return std::to_string(b[12]) + "." + std::to_string(b[13]) + "." + std::to_string(b[14]) + "." +
           std::to_string(b[15]);
  }
  return FormatIPv6(b);
}

StatusOr<std::vector<std::string>> ReadCsvRecord(std::string_view s) {
  std::vector<std::string> fields;
  size_t pos = 0;  // byte offset in s; Go's column is pos + 1
  auto error = [](size_t col, std::string_view what) {
    return InvalidArgumentError("parse error on line 1, column " + std::to_string(col) + ": " +
                                std::string(what));
  };
  while (true) {
    if (pos < s.size() && s[pos] == '"') {
      std::string field;
      ++pos;
      while (true) {
        const size_t q = s.find('"', pos);
        if (q == std::string_view::npos) {
          // Unterminated: Go reports the column just past the end of the input.
          std::string_view rest = s.substr(pos);
          if (!rest.empty() && rest.back() == '\n') rest.remove_suffix(1);
          return error(pos + rest.size() + 1, "extraneous or missing \" in quoted-field");
        }
        field.append(s.substr(pos, q - pos));
        pos = q + 1;
        if (pos < s.size() && s[pos] == '"') {
          field += '"';
          ++pos;
          continue;
        }
        if (pos >= s.size() || s[pos] == ',' || s[pos] == '\n' ||
            (s[pos] == '\r' && pos + 1 < s.size() && s[pos + 1] == '\n')) {
          break;
        }
        return error(pos, "extraneous or missing \" in quoted-field");
      }
      fields.push_back(std::move(field));
    } else {
      size_t end = s.find_first_of(",\n", pos);
      if (end == std::string_view::npos) end = s.size();
      std::string_view field = s.substr(pos, end - pos);
      if (!field.empty() && field.back() == '\r' && end < s.size() && s[end] == '\n') {
        field.remove_suffix(1);
      }
      if (const size_t q = field.find('"'); q != std::string_view::npos) {
        return error(pos + q + 1, "bare \" in non-quoted-field");
      }
      fields.emplace_back(field);
      pos = end;
    }
    if (pos < s.size() && s[pos] == ',') {
      ++pos;
      continue;
    }
    break;  // end of input or of the first line: one record only
  }
  return fields;
}

std::string WriteCsvRecord(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    const std::string& f = fields[i];
    const bool quote =
        !f.empty() && (f == "\\." || f.find_first_of(",\"\r\n") != std::string::npos ||
                       f[0] == ' ' || f[0] == '\t' || f[0] == '\v' || f[0] == '\f');
    if (!quote) {
      out += f;
      continue;
    }
    out += '"';
    for (char c : f) {
      if (c == '"') out += '"';
      out += c;
    }
    out += '"';
  }
  return out;
}

std::string NormalizeFlagName(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == '_') c = '-';
  }
  return out;
}

}  // namespace stowage::app
