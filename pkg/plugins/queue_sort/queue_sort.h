// PrioritySort: the default QueueSort plugin (upstream plugins/queuesort). It orders the active
// queue by pod priority, highest first, and among equal priorities by the time the pod was last
// added to the queue, earliest first. Stateless and thread-safe.
#pragma once

#include <memory>
#include <string_view>
#include <type_traits>

#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::queue_sort {

inline constexpr std::string_view kName = "PrioritySort";

class PrioritySort final : public framework::QueueSortPlugin {
 public:
  std::string_view Name() const override { return kName; }
  // True if a should be popped before b.
  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override;
};
static_assert(std::is_base_of_v<framework::QueueSortPlugin, PrioritySort>);

// Takes no arguments.
StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::queue_sort
