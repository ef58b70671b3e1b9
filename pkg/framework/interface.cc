#include "pkg/framework/interface.h"

#include <array>
#include <type_traits>
#include <utility>

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

}  // namespace stowage::framework
