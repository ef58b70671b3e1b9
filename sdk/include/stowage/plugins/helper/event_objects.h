// Typed access to the objects of a cluster event inside a queueing hint (upstream util.As).
//
// A hint receives the old and new object as framework::EventObject. For an Add the old object
// is absent; for a Delete upstream passes the deleted object as the old one and nothing as the
// new one. An object of the wrong kind is a caller bug that upstream reports as an error, and
// the queue treats an erroring hint as Queue, so hints return Queue when As fails.
#pragma once

#include <memory>
#include <variant>

#include "stowage/framework/events.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::plugins::helper {

// The objects of an event as T (api::Pod, api::Node or a storage kind of EventObject); nullptr
// where the event has none.
template <typename T>
struct TypedEventObjects {
  const T* old_obj = nullptr;
  const T* new_obj = nullptr;
};

namespace internal {
template <typename T>
bool AsOne(const framework::EventObject& obj, const T*& out) {
  if (std::holds_alternative<std::monostate>(obj)) return true;
  const auto* ptr = std::get_if<std::shared_ptr<const T>>(&obj);
  if (ptr == nullptr) return false;
  out = ptr->get();
  return true;
}
}  // namespace internal

// False if either object is present but not a T.
template <typename T>
bool As(const framework::EventObject& old_obj, const framework::EventObject& new_obj,
        TypedEventObjects<T>& out) {
  out = {};
  return internal::AsOne(new_obj, out.new_obj) && internal::AsOne(old_obj, out.old_obj);
}

}  // namespace stowage::plugins::helper

#pragma GCC visibility pop
