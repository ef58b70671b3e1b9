#include "pkg/common/go_quote.h"

#include <cstdint>

namespace stowage {
namespace {

constexpr char kLowerHex[] = "0123456789abcdef";

// Go's unicode.IsPrint for runes beyond ASCII, approximated: controls, format characters,
// separators other than the ASCII space, private use and non-characters are not printable.
bool IsPrintNonAscii(int32_t r) {
  if (r <= 0x9F) return false;  // C1 controls
  if (r == 0xA0 || r == 0xAD || r == 0x1680 || r == 0x061C || r == 0x06DD || r == 0x070F ||
      r == 0x202F || r == 0x205F || r == 0x3000 || r == 0xFEFF) {
    return false;
  }
  if ((r >= 0x0600 && r <= 0x0605) || (r >= 0x2000 && r <= 0x200F) ||
      (r >= 0x2028 && r <= 0x202E) || (r >= 0x2060 && r <= 0x206F) ||
      (r >= 0xE000 && r <= 0xF8FF) || (r >= 0xFFF9 && r <= 0xFFFB) || r >= 0xF0000 ||
      (r & 0xFFFE) == 0xFFFE) {
    return false;
  }
  return true;
}

void AppendHex(std::string& out, uint32_t v, int digits) {
  for (int i = digits - 1; i >= 0; --i) out += kLowerHex[(v >> (4 * i)) & 0xF];
}

}  // namespace

int32_t DecodeRune(std::string_view s, size_t i, size_t& len) {
  auto b = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
  auto cont = [&](size_t k) { return i + k < s.size() && (b(k) & 0xC0) == 0x80; };
  len = 1;
  uint8_t c = b(0);
  if (c < 0x80) return c;
  int32_t r;
  size_t n;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    r = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    r = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    r = c & 0x07;
  } else {
    return -1;
  }
  for (size_t k = 1; k < n; ++k) {
    if (!cont(k)) return -1;
    r = (r << 6) | (b(k) & 0x3F);
  }
  bool overlong = (n == 3 && r < 0x800) || (n == 4 && r < 0x10000);
  if (overlong || (r >= 0xD800 && r <= 0xDFFF) || r > 0x10FFFF) return -1;
  len = n;
  return r;
}

std::string GoQuote(std::string_view s) {
  std::string out;
  AppendGoQuote(out, s);
  return out;
}

void AppendGoQuote(std::string& out, std::string_view s) {
  out += '"';
  for (size_t i = 0; i < s.size();) {
    size_t len;
    int32_t r = DecodeRune(s, i, len);
    if (r < 0) {
      out += "\\x";
      AppendHex(out, static_cast<uint8_t>(s[i]), 2);
    } else if (r == '"' || r == '\\') {
      out += '\\';
      out += static_cast<char>(r);
    } else if (r >= 0x20 && r < 0x7F) {
      out += static_cast<char>(r);
    } else if (r >= 0x80 && IsPrintNonAscii(r)) {
      out.append(s.substr(i, len));
    } else {
      switch (r) {
        case '\a': out += "\\a"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\v': out += "\\v"; break;
        default:
          if (r < 0x20 || r == 0x7F) {
            out += "\\x";
            AppendHex(out, static_cast<uint32_t>(r), 2);
          } else if (r < 0x10000) {
            out += "\\u";
            AppendHex(out, static_cast<uint32_t>(r), 4);
          } else {
            out += "\\U";
            AppendHex(out, static_cast<uint32_t>(r), 8);
          }
      }
    }
    i += len;
  }
  out += '"';
}

std::string GoJsonString(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    size_t len;
    int32_t r = DecodeRune(s, i, len);
    if (r < 0) {
      out += "\\ufffd";
    } else if (r == '"' || r == '\\') {
      out += '\\';
      out += static_cast<char>(r);
    } else if (r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t') {
      out += r == '\b' ? "\\b" : r == '\f' ? "\\f" : r == '\n' ? "\\n" : r == '\r' ? "\\r" : "\\t";
    } else if (r < 0x20 || r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029) {
      out += "\\u";
      AppendHex(out, static_cast<uint32_t>(r), 4);
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  out += '"';
  return out;
}

std::string HtmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '\'': out += "&#39;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace stowage
