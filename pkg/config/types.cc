#include "pkg/config/types.h"

#include <array>

namespace stowage::config {
namespace {

struct PointField {
  ExtensionPoint point;
  PluginSet Plugins::*field;
};

// The `plugins` field of each configurable point; each row names its point so that the
// static_asserts below can check the order against the table.
constexpr std::array<PointField, kNumConfigurableExtensionPoints> kFields = {{
    {ExtensionPoint::kPreEnqueue, &Plugins::pre_enqueue},
    {ExtensionPoint::kQueueSort, &Plugins::queue_sort},
    {ExtensionPoint::kPreFilter, &Plugins::pre_filter},
    {ExtensionPoint::kFilter, &Plugins::filter},
    {ExtensionPoint::kPostFilter, &Plugins::post_filter},
    {ExtensionPoint::kPreScore, &Plugins::pre_score},
    {ExtensionPoint::kScore, &Plugins::score},
    {ExtensionPoint::kReserve, &Plugins::reserve},
    {ExtensionPoint::kPermit, &Plugins::permit},
    {ExtensionPoint::kPreBind, &Plugins::pre_bind},
    {ExtensionPoint::kBind, &Plugins::bind},
    {ExtensionPoint::kPostBind, &Plugins::post_bind},
    {ExtensionPoint::kPlacementGenerate, &Plugins::placement_generate},
    {ExtensionPoint::kPlacementScore, &Plugins::placement_score},
    {ExtensionPoint::kPodGroupPostFilter, &Plugins::pod_group_post_filter},
}};

// Row i is point i, and no field is missing (a zero row), repeated or multiPoint's.
static_assert([] {
  for (size_t i = 0; i < kFields.size(); ++i) {
    if (static_cast<size_t>(kFields[i].point) != i) return false;
    if (kFields[i].field == nullptr || kFields[i].field == &Plugins::multi_point) return false;
    for (size_t j = 0; j < i; ++j) {
      if (kFields[j].field == kFields[i].field) return false;
    }
  }
  return true;
}());
// Plugins holds one PluginSet per configurable point plus multiPoint's, so a field added to the
// struct without a row here fails to compile.
static_assert(sizeof(Plugins) == (kNumConfigurableExtensionPoints + 1) * sizeof(PluginSet));

}  // namespace

PluginSet& Plugins::Set(ExtensionPoint point) {
  return const_cast<PluginSet&>(static_cast<const Plugins*>(this)->Set(point));
}

const PluginSet& Plugins::Set(ExtensionPoint point) const {
  const auto i = static_cast<size_t>(point);
  return i < kFields.size() ? this->*kFields[i].field : multi_point;
}

}  // namespace stowage::config
