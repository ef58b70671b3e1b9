// PointInterface, the one list the table cannot generate (it maps points to C++ classes), is
// checked here against the table's interface names, so a point and a class cannot be paired
// wrongly or a class left out.
#include <cxxabi.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "stowage/framework/interface.h"

namespace stowage::framework::point_interface_test {
namespace {

// The unqualified name of the point's interface class, or "" when it has none.
template <size_t I>
std::string InterfaceName() {
  using T = typename PointInterface<static_cast<ExtensionPoint>(I)>::type;
  if constexpr (std::is_void_v<T>) {
    return "";
  } else {
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> name(
        abi::__cxa_demangle(typeid(T).name(), nullptr, nullptr, &status), &std::free);
    std::string qualified = status == 0 ? name.get() : typeid(T).name();
    return qualified.substr(qualified.rfind(':') + 1);
  }
}

template <size_t... I>
std::array<std::string, sizeof...(I)> InterfaceNames(std::index_sequence<I...>) {
  return {InterfaceName<I>()...};
}

TEST(PointInterface, EachClassIsTheOneTheTableNames) {
  const auto names = InterfaceNames(std::make_index_sequence<kNumConfigurableExtensionPoints>{});
  // The PodGroup points have no class yet; every other configurable point has its own.
  const std::set<ExtensionPoint> kWithout = {ExtensionPoint::kPlacementGenerate,
                                             ExtensionPoint::kPlacementScore,
                                             ExtensionPoint::kPodGroupPostFilter};
  for (ExtensionPoint point : kConfigurableExtensionPoints) {
    const std::string& name = names[static_cast<size_t>(point)];
    if (kWithout.count(point)) {
      EXPECT_EQ(name, "") << Info(point).field;
    } else {
      EXPECT_EQ(name, Info(point).interface_name) << Info(point).field;
    }
  }
}

}  // namespace
}  // namespace stowage::framework::point_interface_test
