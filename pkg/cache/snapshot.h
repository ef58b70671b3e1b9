// Snapshot: the NodeInfos one scheduling cycle works on, copied from the cache at the start of
// the cycle. UpdateSnapshot copies only nodes whose generation changed since the last update,
// reusing the snapshot's existing objects, so a cycle costs little when few nodes changed.
// The node list is rebuilt only when nodes come, go or change zone. Read-only during a cycle, and
// then safe to read from many threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stowage/common/string_map.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/types.h"

namespace stowage::cache {

class Snapshot : public framework::NodeInfoLister {
 public:
  const std::vector<const framework::NodeInfo*>& List() const override { return list_; }
  const std::vector<const framework::NodeInfo*>& HavePodsWithAffinityList() const override {
    return with_affinity_;
  }
  const std::vector<const framework::NodeInfo*>& HavePodsWithRequiredAntiAffinityList()
      const override {
    return with_required_anti_affinity_;
  }
  const framework::NodeInfo* Get(std::string_view name) const override;
  int64_t generation() const override { return generation_; }
  bool ChangedSince(int64_t generation,
                    std::vector<const framework::NodeInfo*>& out) const override;
  int64_t list_version() const override { return list_version_; }

 private:
  friend class Cache;
  StringMap<std::unique_ptr<framework::NodeInfo>> nodes_;
  std::vector<const framework::NodeInfo*> list_;  // node-tree order
  // The nodes of list_ with such pods, in no particular order: nodes join and leave in place.
  std::vector<const framework::NodeInfo*> with_affinity_;
  std::vector<const framework::NodeInfo*> with_required_anti_affinity_;
  int64_t generation_ = 0;
  int64_t tree_version_ = 0;  // the cache's node-order version the list reflects
  int64_t list_version_ = 0;  // bumped on every rebuild of list_
  // Nodes copied in place, oldest first, as (generation, node); complete for changes after
  // log_floor_. Cleared when the list is rebuilt, since it may then point at removed nodes.
  std::vector<std::pair<int64_t, const framework::NodeInfo*>> changes_;
  int64_t log_floor_ = 0;
};

}  // namespace stowage::cache
