#include "stowage/plugins/helper/taint.h"

#include <charconv>
#include <optional>
#include <string_view>

namespace stowage::plugins::helper {
namespace {

// A decimal integer in canonical form ("0", or an optional '-' then no leading zero) that fits
// in int64; anything else cannot take part in a Gt/Lt comparison.
std::optional<int64_t> ParseCanonicalInt(std::string_view s) {
  if (s.empty()) return std::nullopt;
  size_t digits = s[0] == '-' ? 1 : 0;
  if (digits == s.size()) return std::nullopt;
  if (s[digits] == '0' && s.size() != 1) return std::nullopt;  // "-0", "01"
  for (size_t i = digits; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
  }
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

bool ToleratesTaint(const api::Toleration& t, const api::Taint& taint,
                    bool enable_comparison_operators) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  if (t.op.empty() || t.op == "Equal") return t.value == taint.value;
  if (t.op == "Exists") return true;
  if (t.op == "Gt" || t.op == "Lt") {
    if (!enable_comparison_operators) return false;
    auto bound = ParseCanonicalInt(t.value);
    auto actual = ParseCanonicalInt(taint.value);
    if (!bound || !actual) return false;
    return t.op == "Gt" ? *actual > *bound : *actual < *bound;
  }
  return false;
}

bool TolerationsTolerateTaint(std::span<const api::Toleration> tolerations, const api::Taint& taint,
                              bool enable_comparison_operators) {
  for (const auto& t : tolerations) {
    if (ToleratesTaint(t, taint, enable_comparison_operators)) return true;
  }
  return false;
}

bool IsDoNotScheduleTaint(const api::Taint& taint) {
  return taint.effect == "NoSchedule" || taint.effect == "NoExecute";
}

const api::Taint* FindMatchingUntoleratedTaint(std::span<const api::Taint> taints,
                                               std::span<const api::Toleration> tolerations,
                                               bool (*include)(const api::Taint&),
                                               bool enable_comparison_operators) {
  for (const auto& taint : taints) {
    if (include != nullptr && !include(taint)) continue;
    if (!TolerationsTolerateTaint(tolerations, taint, enable_comparison_operators)) return &taint;
  }
  return nullptr;
}

}  // namespace stowage::plugins::helper
