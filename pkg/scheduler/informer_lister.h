// InformerLister: a framework::Lister over the store of one of the scheduler's informers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pkg/framework/handle.h"
#include "pkg/informer/shared_informer.h"

namespace stowage::scheduler {

template <typename T>
class InformerLister final : public framework::Lister<T> {
 public:
  using typename framework::Lister<T>::Ptr;
  explicit InformerLister(const informer::SharedInformer<T>& informer) : informer_(informer) {}

  std::vector<Ptr> List() const override { return informer_.store().List(); }
  // Store keys are "<namespace>/<name>", so one namespace is the keys with that prefix.
  std::vector<Ptr> List(std::string_view ns) const override {
    std::vector<Ptr> out;
    for (Ptr& obj : informer_.store().List()) {
      if (obj->metadata.namespace_ == ns) out.push_back(std::move(obj));
    }
    return out;
  }
  Ptr Get(std::string_view ns, std::string_view name) const override {
    std::string key;
    if (!ns.empty()) key.append(ns).push_back('/');
    key.append(name);
    return informer_.store().Get(key);
  }

 private:
  const informer::SharedInformer<T>& informer_;
};

}  // namespace stowage::scheduler
