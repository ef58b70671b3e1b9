// Which nodes a slice or device is available on, and the node selector of an allocation.
//
// Pure functions over API objects; safe from any thread.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/common/status.h"

namespace stowage::dra {

// Whether node is one a slice (or, with per-device node selection, a device) names: by node name,
// all nodes, or a node selector, in that order of precedence. None of them set matches nothing.
// A node selector that does not parse is an error.
StatusOr<bool> NodeMatches(const api::Node& node, std::string_view node_name, bool all_nodes,
                           const api::NodeSelector* node_selector);

// An allocated device and the slice it came from.
using SliceDevice = std::pair<const api::ResourceSlice*, const api::Device*>;

// The node selector of an allocation: the target node by name if any device is node-local or
// binds to its node; else the union of the requirements of the devices' single-term selectors;
// nullopt when the devices are usable everywhere. With no target_node it only checks that the
// selector can be made (what a search reports at once) and returns nullopt.
StatusOr<std::optional<api::NodeSelector>> CreateNodeSelector(
    const std::vector<SliceDevice>& devices, const std::string* target_node);

}  // namespace stowage::dra
