#include "pkg/plugins/node_volume_limits/node_cache.h"

#include <algorithm>

namespace stowage::plugins::node_volume_limits {
namespace {

// The value of key in a vector of pairs sorted by key, or nullptr.
template <typename V>
const V* Find(const std::vector<std::pair<std::string, V>>& sorted, std::string_view key) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), key,
                             [](const auto& p, std::string_view k) { return p.first < k; });
  return it != sorted.end() && it->first == key ? &it->second : nullptr;
}

}  // namespace

std::optional<int64_t> NodeVolumes::Limit(std::string_view driver) const {
  const int64_t* limit = Find(limits, driver);
  return limit != nullptr ? std::optional<int64_t>(*limit) : std::nullopt;
}

int64_t NodeVolumes::Attached(std::string_view driver) const {
  const int64_t* count = Find(attached, driver);
  return count != nullptr ? *count : 0;
}

bool NodeVolumes::UsedByPod(std::string_view unique_name) const {
  return std::binary_search(pod_volumes.begin(), pod_volumes.end(), unique_name,
                            [](std::string_view a, std::string_view b) { return a < b; });
}

bool NodeVolumes::Lists(std::string_view driver) const {
  if (csi_node == nullptr) return false;
  return std::any_of(csi_node->drivers.begin(), csi_node->drivers.end(),
                     [&](const api::CSINodeDriver& d) { return d.name == driver; });
}

void NodeVolumes::Clear() {
  csi_node.reset();
  limits.clear();
  pod_volumes.clear();
  attached.clear();
  error.reset();
}

std::shared_ptr<NodeVolumesCache::Entry> NodeVolumesCache::Get(const std::string& node_name) {
  {
    ReaderMutexLock l(mu_);
    auto it = entries_.find(node_name);
    if (it != entries_.end()) return it->second;
  }
  WriterMutexLock l(mu_);
  std::shared_ptr<Entry>& entry = entries_[node_name];
  if (entry == nullptr) entry = std::make_shared<Entry>();
  return entry;
}

void NodeVolumesCache::Prune(size_t nodes) {
  WriterMutexLock l(mu_);
  if (entries_.size() > 2 * nodes + 64) entries_.clear();
}

size_t NodeVolumesCache::SizeForTest() {
  ReaderMutexLock l(mu_);
  return entries_.size();
}

}  // namespace stowage::plugins::node_volume_limits
