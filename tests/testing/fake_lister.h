// A framework::Lister over a fixed list of objects, for plugin unit tests that read Services,
// ReplicaSets and the other kinds a Handle lists. Not thread-safe while being filled; read-only
// afterwards, as plugins use it. Its version counts the changes, as the informer store's does.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "stowage/framework/handle.h"

namespace stowage::testing {

template <typename T>
class FakeLister final : public framework::Lister<T> {
 public:
  using typename framework::Lister<T>::Ptr;
  FakeLister() = default;
  explicit FakeLister(std::vector<T> objects) {
    for (T& o : objects) Add(std::move(o));
  }
  void Add(T object) {
    objects_.push_back(std::make_shared<const T>(std::move(object)));
    ++version_;
  }
  // Replaces the object of the same namespace and name (adds it if absent), as an update does.
  void Update(T object) {
    for (Ptr& o : objects_) {
      if (o->metadata.namespace_ == object.metadata.namespace_ &&
          o->metadata.name == object.metadata.name) {
        o = std::make_shared<const T>(std::move(object));
        ++version_;
        return;
      }
    }
    Add(std::move(object));
  }

  // Removes the object of the same namespace and name, as a deletion does.
  void Remove(std::string_view ns, std::string_view name) {
    std::erase_if(objects_, [&](const Ptr& o) {
      return o->metadata.namespace_ == ns && o->metadata.name == name;
    });
    ++version_;
  }

  std::vector<Ptr> List() const override {
    ++lists_;
    return objects_;
  }
  std::vector<Ptr> List(std::string_view ns) const override {
    std::vector<Ptr> out;
    for (const Ptr& o : objects_) {
      if (o->metadata.namespace_ == ns) out.push_back(o);
    }
    return out;
  }
  Ptr Get(std::string_view ns, std::string_view name) const override {
    for (const Ptr& o : objects_) {
      if (o->metadata.namespace_ == ns && o->metadata.name == name) return o;
    }
    return nullptr;
  }
  std::optional<uint64_t> Version() const override { return version_; }
  // How many times List() (of every object) was called, for tests of what plugins keep.
  int64_t ListCallsForTest() const { return lists_; }

 private:
  std::vector<Ptr> objects_;
  uint64_t version_ = 0;
  mutable int64_t lists_ = 0;
};

}  // namespace stowage::testing
