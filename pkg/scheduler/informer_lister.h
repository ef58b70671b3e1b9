// InformerLister: a framework::Lister over the store of one of the scheduler's informers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/informer/shared_informer.h"
#include "stowage/framework/handle.h"

namespace stowage::scheduler {

template <typename T>
class InformerLister final : public framework::Lister<T>, public framework::ChangeFeed<T> {
 public:
  using typename framework::Lister<T>::Ptr;
  using typename framework::ChangeFeed<T>::Change;
  explicit InformerLister(const informer::SharedInformer<T>& informer) : informer_(informer) {}

  std::vector<Ptr> List() const override { return informer_.store().List(); }
  // Scans the store but copies only the namespace's objects (plugins ask per pod and cycle).
  std::vector<Ptr> List(std::string_view ns) const override {
    return informer_.store().ListIf([ns](const T& obj) { return obj.metadata.namespace_ == ns; });
  }
  Ptr Get(std::string_view ns, std::string_view name) const override {
    std::string key;
    if (!ns.empty()) key.append(ns).push_back('/');
    key.append(name);
    return informer_.store().Get(key);
  }
  std::optional<uint64_t> Version() const override { return informer_.store().Version(); }
  bool ChangesSince(uint64_t since, std::vector<Change>& out, uint64_t& now) const override {
    return informer_.store().ChangesSince(since, out, now);
  }

 private:
  const informer::SharedInformer<T>& informer_;
};

}  // namespace stowage::scheduler
