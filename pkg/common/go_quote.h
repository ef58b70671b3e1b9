// Go's ways of quoting a string, for messages that must read exactly as Kubernetes writes them
// (field errors, API Status bodies, authorization denials).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace stowage {

// Go's %q of s (strconv.Quote): printable UTF-8 kept, everything else escaped.
std::string GoQuote(std::string_view s);
// s with &, ', <, > and " escaped for HTML, as Go's html.EscapeString.
std::string HtmlEscape(std::string_view s);
void AppendGoQuote(std::string& out, std::string_view s);
// s as a JSON string literal, quotes included, escaped as Go's encoding/json does (HTML
// characters, U+2028/U+2029 and invalid UTF-8 included).
std::string GoJsonString(std::string_view s);

// Go's utf8.DecodeRuneInString at s[i] (i < s.size()): the rune, with its length in len, or -1
// with len 1 for a byte that starts no valid sequence (overlong forms and surrogates included).
int32_t DecodeRune(std::string_view s, size_t i, size_t& len);

}  // namespace stowage
