#include "pkg/plugins/inter_pod_affinity/topology_counts.h"

#include <algorithm>
#include <tuple>

namespace stowage::plugins::inter_pod_affinity {
namespace {
constexpr auto kValueLess = [](const std::pair<std::string, int64_t>& e, std::string_view v) {
  return e.first < v;
};
}  // namespace

TopologyCounts TopologyCounts::Build(std::vector<Record>& records) {
  std::sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
    return std::tie(a.key, a.value) < std::tie(b.key, b.value);
  });
  TopologyCounts out;
  for (const Record& r : records) {
    if (out.keys_.empty() || out.keys_.back().key != r.key) {
      out.keys_.push_back({std::string(r.key), {}});
    }
    auto& values = out.keys_.back().values;
    if (!values.empty() && values.back().first == r.value) {
      values.back().second += r.count;
    } else {
      values.emplace_back(std::string(r.value), r.count);
    }
  }
  return out;
}

const TopologyCounts::Key* TopologyCounts::FindKey(std::string_view key) const {
  for (const Key& k : keys_) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

const int64_t* TopologyCounts::FindValue(const Key& k, std::string_view value) {
  auto it = std::lower_bound(k.values.begin(), k.values.end(), value, kValueLess);
  return it != k.values.end() && it->first == value ? &it->second : nullptr;
}

int64_t TopologyCounts::Get(std::string_view key, std::string_view value) const {
  const Key* k = FindKey(key);
  if (k == nullptr) return 0;
  const int64_t* count = FindValue(*k, value);
  return count ? *count : 0;
}

void TopologyCounts::Add(std::string_view key, std::string_view value, int64_t delta) {
  auto kit = std::lower_bound(keys_.begin(), keys_.end(), key,
                              [](const Key& k, std::string_view want) { return k.key < want; });
  if (kit == keys_.end() || kit->key != key) kit = keys_.insert(kit, Key{std::string(key), {}});
  auto& values = kit->values;
  auto it = std::lower_bound(values.begin(), values.end(), value, kValueLess);
  if (it == values.end() || it->first != value) it = values.emplace(it, std::string(value), 0);
  it->second += delta;
}

void TopologyCounts::Update(const api::StringMap& node_labels, std::string_view key,
                            int64_t delta) {
  const std::string* value = node_labels.Get(key);
  if (value == nullptr) return;
  Add(key, *value, delta);
  auto kit = std::find_if(keys_.begin(), keys_.end(), [key](const Key& k) { return k.key == key; });
  auto& values = kit->values;
  auto it = std::lower_bound(values.begin(), values.end(), *value, kValueLess);
  if (it->second != 0) return;
  values.erase(it);
  if (values.empty()) keys_.erase(kit);
}

bool TopologyCounts::AnyPositive(const api::StringMap& node_labels) const {
  // Equivalent to visiting every node label, but there are far fewer keys than labels.
  for (const Key& k : keys_) {
    const std::string* value = node_labels.Get(k.key);
    if (value == nullptr) continue;
    const int64_t* count = FindValue(k, *value);
    if (count && *count > 0) return true;
  }
  return false;
}

int64_t TopologyCounts::Sum(const api::StringMap& node_labels) const {
  int64_t sum = 0;
  for (const Key& k : keys_) {
    const std::string* value = node_labels.Get(k.key);
    if (value == nullptr) continue;
    if (const int64_t* count = FindValue(k, *value)) sum += *count;
  }
  return sum;
}

size_t TopologyCounts::size() const {
  size_t n = 0;
  for (const Key& k : keys_) n += k.values.size();
  return n;
}

}  // namespace stowage::plugins::inter_pod_affinity
