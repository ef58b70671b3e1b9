// EventHandler: what an informer tells its consumers. Calls come from the informer's own thread,
// one at a time and in the order the changes happened, so a handler must return quickly (hand
// work to a queue) and must not block on the informer.
#pragma once

#include <functional>
#include <memory>

namespace stowage::informer {

template <typename T>
class EventHandler {
 public:
  using Ptr = std::shared_ptr<const T>;
  virtual ~EventHandler() = default;
  // A new object; in_initial_list is true while the first list is being delivered.
  virtual void OnAdd(const Ptr& obj, bool in_initial_list) = 0;
  virtual void OnUpdate(const Ptr& old_obj, const Ptr& new_obj) = 0;
  // A deleted object. final_state_unknown is true when the deletion was inferred from a re-list
  // (the watch missed it), so obj is the last state seen rather than the final one.
  virtual void OnDelete(const Ptr& obj, bool final_state_unknown) = 0;
};

// An EventHandler built from functions; unset functions ignore their event.
template <typename T>
struct FuncHandler : EventHandler<T> {
  using Ptr = std::shared_ptr<const T>;
  std::function<void(const Ptr&, bool)> add;
  std::function<void(const Ptr&, const Ptr&)> update;
  std::function<void(const Ptr&, bool)> del;

  void OnAdd(const Ptr& o, bool initial) override {
    if (add) add(o, initial);
  }
  void OnUpdate(const Ptr& a, const Ptr& b) override {
    if (update) update(a, b);
  }
  void OnDelete(const Ptr& o, bool unknown) override {
    if (del) del(o, unknown);
  }
};

}  // namespace stowage::informer
