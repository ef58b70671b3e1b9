#include "pkg/cache/node_tree.h"

#include <algorithm>

namespace stowage::cache {

std::string ZoneKey(const api::Node& node) {
  const auto& l = node.metadata.labels;
  const std::string* zone = l.Get("failure-domain.beta.kubernetes.io/zone");
  if (!zone) zone = l.Get("topology.kubernetes.io/zone");
  const std::string* region = l.Get("failure-domain.beta.kubernetes.io/region");
  if (!region) region = l.Get("topology.kubernetes.io/region");
  if (!zone && !region) return "";
  std::string key = region ? *region : "";
  key += ":";
  key.push_back('\0');
  key += ":";
  key += zone ? *zone : "";
  return key;
}

void NodeTree::AddNode(const api::Node& node) {
  std::string zone = ZoneKey(node);
  auto& names = tree_[zone];
  if (names.empty() && std::find(zones_.begin(), zones_.end(), zone) == zones_.end()) {
    zones_.push_back(zone);
  }
  names.push_back(node.metadata.name);
  ++num_nodes_;
}

void NodeTree::RemoveNode(const api::Node& node) {
  std::string zone = ZoneKey(node);
  auto it = tree_.find(zone);
  if (it == tree_.end()) return;
  auto& names = it->second;
  auto n = std::find(names.begin(), names.end(), node.metadata.name);
  if (n == names.end()) return;
  names.erase(n);
  --num_nodes_;
  if (names.empty()) {
    tree_.erase(it);
    zones_.erase(std::find(zones_.begin(), zones_.end(), zone));
  }
}

bool NodeTree::UpdateNode(const api::Node& old_node, const api::Node& new_node) {
  if (ZoneKey(old_node) == ZoneKey(new_node)) return false;
  RemoveNode(old_node);
  AddNode(new_node);
  return true;
}

std::vector<std::string> NodeTree::List() const {
  std::vector<std::string> out;
  out.reserve(num_nodes_);
  for (size_t i = 0; out.size() < num_nodes_; ++i) {
    for (const auto& zone : zones_) {
      const auto& names = tree_.at(zone);
      if (i < names.size()) out.push_back(names[i]);
    }
  }
  return out;
}

}  // namespace stowage::cache
