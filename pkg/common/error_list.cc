#include "pkg/common/error_list.h"

#include <set>

namespace stowage {

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string JoinAggregate(const std::vector<std::string>& messages) {
  std::set<std::string_view> seen;
  std::string joined;
  for (const std::string& m : messages) {
    if (!seen.insert(m).second) continue;
    if (seen.size() > 1) joined += ", ";
    joined += m;
  }
  return seen.size() <= 1 ? joined : "[" + joined + "]";
}

Status JoinStatus(const Status& a, const Status& b) {
  if (a.ok()) return b;
  if (b.ok()) return a;
  return Status(a.code(), std::string(a.message()) + "; " + std::string(b.message()));
}

}  // namespace stowage
