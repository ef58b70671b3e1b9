// AssumeCache: an informer's objects of one kind with the binder's assumed versions laid over
// them (upstream's passive assume cache). Reserve assumes a PV bound to its claim, or a claim
// with the node selected, before the API knows; later cycles then see them so they neither
// pick the same volume twice nor provision a claim on two nodes. An assumed object counts only
// while the informer still holds the very version it was assumed over: any newer version from
// the API replaces it, and Restore (Unreserve) drops it. Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/common/mutex.h"
#include "stowage/common/status.h"
#include "stowage/framework/handle.h"

namespace stowage::plugins::volume_binding {

template <typename T>
class AssumeCache final : public framework::Lister<T> {
 public:
  using typename framework::Lister<T>::Ptr;

  explicit AssumeCache(const framework::Lister<T>& informer) : informer_(informer) {}

  // The informer's objects, each replaced by its assumed version where that still counts.
  std::vector<Ptr> List() const override { return Overlay(informer_.List()); }
  std::vector<Ptr> List(std::string_view ns) const override { return Overlay(informer_.List(ns)); }
  Ptr Get(std::string_view ns, std::string_view name) const override {
    Ptr obj = informer_.Get(ns, name);
    if (obj == nullptr) return nullptr;
    MutexLock l(mu_);
    return Current(obj);
  }
  // The informer's object, never an assumed one (upstream's GetAPIObj).
  Ptr GetApiObject(std::string_view ns, std::string_view name) const {
    return informer_.Get(ns, name);
  }

  // Lays obj over the informer's object of the same name, which must be at obj's version.
  Status Assume(Ptr obj) {
    const std::string key = Key(obj->metadata);
    Ptr stored = informer_.Get(obj->metadata.namespace_, obj->metadata.name);
    if (stored == nullptr) return NotFoundError("\"" + key + "\" not found");
    if (stored->metadata.resource_version != obj->metadata.resource_version) {
      return FailedPreconditionError(
          "\"" + key + "\" is out of sync (stored: " + stored->metadata.resource_version +
          ", assume: " + obj->metadata.resource_version + ")");
    }
    MutexLock l(mu_);
    assumed_[key] = std::move(obj);
    return OkStatus();
  }
  // Drops the assumed version of obj's object if it is obj's version, or if the API has moved
  // past it (obj was written meanwhile).
  void Restore(const T& obj) {
    Ptr current = informer_.Get(obj.metadata.namespace_, obj.metadata.name);
    MutexLock l(mu_);
    auto it = assumed_.find(Key(obj.metadata));
    if (it == assumed_.end()) return;
    const std::string& version = it->second->metadata.resource_version;
    if (version == obj.metadata.resource_version || current == nullptr ||
        current->metadata.resource_version != version) {
      assumed_.erase(it);
    }
  }
  size_t assumed_count() const {
    MutexLock l(mu_);
    return assumed_.size();
  }

 private:
  static std::string Key(const api::ObjectMeta& m) {
    return m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name;
  }
  // obj, or its assumed version; an assumed version the API has moved past is dropped.
  Ptr Current(const Ptr& obj) const REQUIRES(mu_) {
    if (assumed_.empty()) return obj;
    auto it = assumed_.find(Key(obj->metadata));
    if (it == assumed_.end()) return obj;
    if (it->second->metadata.resource_version == obj->metadata.resource_version) {
      return it->second;
    }
    assumed_.erase(it);
    return obj;
  }
  std::vector<Ptr> Overlay(std::vector<Ptr> objs) const {
    MutexLock l(mu_);
    if (assumed_.empty()) return objs;
    for (Ptr& o : objs) o = Current(o);
    return objs;
  }

  const framework::Lister<T>& informer_;
  mutable Mutex mu_;
  mutable std::map<std::string, Ptr> assumed_ GUARDED_BY(mu_);
};

}  // namespace stowage::plugins::volume_binding
