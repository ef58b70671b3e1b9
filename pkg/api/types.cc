#include "pkg/api/types.h"

#include <algorithm>

namespace stowage::api {
using map_internal::Find;
using map_internal::SortUnique;

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
