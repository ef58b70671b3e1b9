#include "pkg/config/types.h"

#include <array>

namespace stowage::config {

PluginSet& Plugins::Set(ExtensionPoint point) {
  return const_cast<PluginSet&>(static_cast<const Plugins*>(this)->Set(point));
}

const PluginSet& Plugins::Set(ExtensionPoint point) const {
  // The `plugins` field of each configurable point, in the enum's order.
  static constexpr std::array<PluginSet Plugins::*, kNumExtensionPoints> kFields = {
      &Plugins::pre_enqueue,
      &Plugins::queue_sort,
      &Plugins::pre_filter,
      &Plugins::filter,
      &Plugins::post_filter,
      &Plugins::pre_score,
      &Plugins::score,
      &Plugins::reserve,
      &Plugins::permit,
      &Plugins::pre_bind,
      &Plugins::bind,
      &Plugins::post_bind,
      &Plugins::placement_generate,
      &Plugins::placement_score,
      &Plugins::pod_group_post_filter,
  };
  const auto i = static_cast<size_t>(point);
  return i < kFields.size() ? this->*kFields[i] : multi_point;
}

}  // namespace stowage::config
