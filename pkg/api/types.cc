#include "pkg/api/types.h"

#include <algorithm>

namespace stowage::api {
namespace {
// Sorts by key keeping the last of equal keys, as a JSON object decoder would.
template <typename Entry>
std::vector<Entry> SortUnique(std::vector<Entry> entries) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.first < b.first; });
  std::vector<Entry> out;
  out.reserve(entries.size());
  for (auto& e : entries) {
    if (!out.empty() && out.back().first == e.first) {
      out.back() = std::move(e);
    } else {
      out.push_back(std::move(e));
    }
  }
  return out;
}

// Up to this many entries Find scans instead of bisecting: past it, the scan reads more entries
// than the bisection's few probes. A node's labels (often 10-15) stay under it.
constexpr size_t kMaxScanned = 16;

template <typename Entry>
const typename Entry::second_type* Find(const std::vector<Entry>& entries, std::string_view key) {
  // Keys often share long prefixes (topology.kubernetes.io/...), which every comparison of a
  // bisection reads; a scan rejects a key of another length without reading its bytes.
  if (entries.size() <= kMaxScanned) {
    for (const Entry& e : entries) {
      if (e.first == key) return &e.second;  // lengths first, then bytes
    }
    return nullptr;
  }
  auto it = std::lower_bound(entries.begin(), entries.end(), key,
                             [](const Entry& e, std::string_view k) { return e.first < k; });
  return (it != entries.end() && it->first == key) ? &it->second : nullptr;
}
}  // namespace

StringMap::StringMap(std::vector<Entry> entries) : entries_(SortUnique(std::move(entries))) {}
const std::string* StringMap::Get(std::string_view key) const { return Find(entries_, key); }

ResourceList::ResourceList(std::vector<Entry> entries) : entries_(SortUnique(std::move(entries))) {}
const Quantity* ResourceList::Get(std::string_view name) const { return Find(entries_, name); }

std::string NamespacedName(const ObjectMeta& meta) {
  if (meta.namespace_.empty()) return meta.name;
  std::string key;
  key.reserve(meta.namespace_.size() + 1 + meta.name.size());
  key += meta.namespace_;
  key += '/';
  key += meta.name;
  return key;
}

}  // namespace stowage::api
