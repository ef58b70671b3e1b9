// A framework::Lister over a fixed list of objects, for plugin unit tests that read Services,
// ReplicaSets and the other kinds a Handle lists. Not thread-safe while being filled; read-only
// afterwards, as plugins use it.
#pragma once

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/framework/handle.h"

namespace stowage::testing {

template <typename T>
class FakeLister final : public framework::Lister<T> {
 public:
  using typename framework::Lister<T>::Ptr;
  FakeLister() = default;
  explicit FakeLister(std::vector<T> objects) {
    for (T& o : objects) Add(std::move(o));
  }
  void Add(T object) { objects_.push_back(std::make_shared<const T>(std::move(object))); }

  std::vector<Ptr> List() const override { return objects_; }
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

 private:
  std::vector<Ptr> objects_;
};

}  // namespace stowage::testing
