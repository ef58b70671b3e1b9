#include "stowage/api/types.h"

#include <algorithm>

#include "pkg/api/schema.h"

namespace stowage::api {
using map_internal::Find;
using map_internal::SortUnique;

StringMap::StringMap(std::vector<Entry> entries) : entries_(SortUnique(std::move(entries))) {}
const std::string* StringMap::Get(std::string_view key) const { return Find(entries_, key); }
void StringMap::Erase(std::string_view key) {
  std::erase_if(entries_, [&](const Entry& e) { return e.first == key; });
}

ResourceList::ResourceList(std::vector<Entry> entries) : entries_(SortUnique(std::move(entries))) {}
const Quantity* ResourceList::Get(std::string_view name) const { return Find(entries_, name); }

namespace schema {
void AfterRead(ObjectMeta& m) { m.annotations.Erase(kLastAppliedAnnotation); }
void AfterRead(ContainerPort& p) {
  if (p.protocol.empty()) p.protocol = "TCP";
}
}  // namespace schema

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
