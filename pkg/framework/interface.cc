#include "stowage/framework/interface.h"

#include <algorithm>
#include <array>
#include <map>
#include <type_traits>
#include <utility>

#include "pkg/common/error_list.h"

namespace stowage::framework {
namespace {

template <size_t I>
bool ImplementsAt(const Plugin& plugin) {
  using Interface = typename PointInterface<static_cast<ExtensionPoint>(I)>::type;
  if constexpr (std::is_void_v<Interface>) {
    return false;
  } else {
    return dynamic_cast<const Interface*>(&plugin) != nullptr;
  }
}

template <size_t... I>
constexpr auto ImplementsTable(std::index_sequence<I...>) {
  return std::array<bool (*)(const Plugin&), sizeof...(I)>{&ImplementsAt<I>...};
}

// One check per configurable point, derived from PointInterface.
constexpr auto kImplements =
    ImplementsTable(std::make_index_sequence<kNumConfigurableExtensionPoints>{});

}  // namespace

bool Implements(const Plugin& plugin, ExtensionPoint point) {
  const auto i = static_cast<size_t>(point);
  return i < kImplements.size() && kImplements[i](plugin);
}

std::string FitErrorMessage(int num_all_nodes, const NodeToStatus& statuses,
                            const std::string& pre_filter_msg, const std::string& post_filter_msg) {
  std::string msg = "0/" + std::to_string(num_all_nodes) + " nodes are available:";
  if (!pre_filter_msg.empty()) {
    msg += " " + pre_filter_msg + ".";
  } else {
    std::map<std::string, int> histogram;
    for (const auto& [node, s] : statuses) {
      for (const auto& r : s.reasons()) histogram[r]++;
    }
    // Upstream sorts the "<count> <reason>" strings, so counts order first (as text).
    std::vector<std::string> counted;
    counted.reserve(histogram.size());
    for (const auto& [reason, count] : histogram) {
      counted.push_back(std::to_string(count) + " " + reason);
    }
    std::sort(counted.begin(), counted.end());
    if (!counted.empty()) msg += " " + Join(counted, ", ") + ".";
  }
  if (!post_filter_msg.empty()) msg += " " + post_filter_msg;
  return msg;
}

}  // namespace stowage::framework
