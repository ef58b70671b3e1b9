// A framework::Lister over a fixed list of objects, for plugin unit tests that read Services,
// ReplicaSets and the other kinds a Handle lists. Not thread-safe while being filled; read-only
// afterwards, as plugins use it. Its version counts the changes, as the informer store's does;
// after KeepChanges(n) it also keeps the last n of them, as the store does for a ChangeFeed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "stowage/framework/handle.h"

namespace stowage::testing {

template <typename T>
class FakeLister final : public framework::Lister<T>, public framework::ChangeFeed<T> {
 public:
  using typename framework::Lister<T>::Ptr;
  using typename framework::ChangeFeed<T>::Change;
  FakeLister() = default;
  explicit FakeLister(std::vector<T> objects) {
    for (T& o : objects) Add(std::move(o));
  }
  void Add(T object) {
    objects_.push_back(std::make_shared<const T>(std::move(object)));
    Written(nullptr, objects_.back());
  }
  // Replaces the object of the same namespace and name (adds it if absent), as an update does.
  void Update(T object) {
    for (Ptr& o : objects_) {
      if (o->metadata.namespace_ == object.metadata.namespace_ &&
          o->metadata.name == object.metadata.name) {
        Ptr before = std::move(o);
        o = std::make_shared<const T>(std::move(object));
        Written(before, o);
        return;
      }
    }
    Add(std::move(object));
  }

  // Removes the object of the same namespace and name, as a deletion does.
  void Remove(std::string_view ns, std::string_view name) {
    for (auto it = objects_.begin(); it != objects_.end(); ++it) {
      if ((*it)->metadata.namespace_ == ns && (*it)->metadata.name == name) {
        Ptr before = *it;
        objects_.erase(it);
        Written(before, nullptr);
        return;
      }
    }
    ++version_;  // nothing to remove: the version moves all the same, as before
    changes_.clear();
  }
  // Keeps the last n changes from now on for ChangesSince (0, the default: none).
  void KeepChanges(size_t n) { keep_ = n; }

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
  bool ChangesSince(uint64_t since, std::vector<Change>& out, uint64_t& now) const override {
    now = version_;
    if (since == now) return true;
    if (changes_.empty() || since < changes_start_ || since > now) return false;
    out.insert(out.end(), changes_.begin() + static_cast<ptrdiff_t>(since - changes_start_),
               changes_.end());
    return true;
  }
  // How many times List() (of every object) was called, for tests of what plugins keep.
  int64_t ListCallsForTest() const { return lists_; }

 private:
  void Written(Ptr before, Ptr after) {
    if (keep_ > 0) {
      if (changes_.empty()) changes_start_ = version_;
      changes_.push_back(Change{std::move(before), std::move(after)});
      if (changes_.size() > keep_) {
        changes_.pop_front();
        ++changes_start_;
      }
    }
    ++version_;
  }

  std::vector<Ptr> objects_;
  uint64_t version_ = 0;
  size_t keep_ = 0;
  std::deque<Change> changes_;  // the last keep_ writes; the first left version changes_start_
  uint64_t changes_start_ = 0;
  mutable int64_t lists_ = 0;
};

}  // namespace stowage::testing
