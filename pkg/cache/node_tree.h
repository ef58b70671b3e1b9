// NodeTree: node names grouped by zone, listed round-robin across zones (the first node of every
// zone, then the second, ...), so a search that stops early still spreads over zones. The zone
// key is region + ":\0:" + zone from the topology labels (the deprecated failure-domain labels
// win, as upstream). Not thread-safe: the cache's lock guards it.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "stowage/api/types.h"

namespace stowage::cache {

std::string ZoneKey(const api::Node& node);

class NodeTree {
 public:
  // node must not be in the tree already (the cache adds a node once, then updates it).
  void AddNode(const api::Node& node);
  // True if the node moved to another zone, which changes the listing order.
  bool UpdateNode(const api::Node& old_node, const api::Node& new_node);
  void RemoveNode(const api::Node& node);
  std::vector<std::string> List() const;
  size_t size() const { return num_nodes_; }

 private:
  std::vector<std::string> zones_;  // in insertion order
  std::unordered_map<std::string, std::vector<std::string>> tree_;
  size_t num_nodes_ = 0;
};

}  // namespace stowage::cache
