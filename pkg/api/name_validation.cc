#include "pkg/api/name_validation.h"

#include <algorithm>

namespace stowage::api {
namespace {
bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
}  // namespace

bool IsLabelToken(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool IsDNS1123Subdomain(std::string_view s) {
  size_t begin = 0;
  while (true) {
    const size_t dot = s.find('.', begin);
    const std::string_view label =
        s.substr(begin, dot == std::string_view::npos ? std::string_view::npos : dot - begin);
    if (label.empty() || !IsLowerAlnum(label.front()) || !IsLowerAlnum(label.back())) return false;
    if (!std::all_of(label.begin(), label.end(),
                     [](char c) { return IsLowerAlnum(c) || c == '-'; })) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    begin = dot + 1;
  }
}

}  // namespace stowage::api
