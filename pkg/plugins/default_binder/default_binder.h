// DefaultBinder (upstream plugins/defaultbinder): binds a pod by creating its pods/binding
// subresource (a v1.Binding with the pod's namespace, name and UID and target Node/<node>)
// through Handle::BindPod. An API failure becomes an Error status carrying the API error's
// message, which sends the pod back to the queue with backoff. Thread-safe as BindPod is; one
// binding cycle per pod may run concurrently with others.
#pragma once

#include <any>
#include <memory>
#include <string_view>
#include <type_traits>

#include "pkg/common/status.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"

namespace stowage::plugins::default_binder {

inline constexpr std::string_view kName = "DefaultBinder";

class DefaultBinder final : public framework::BindPlugin {
 public:
  explicit DefaultBinder(framework::Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return kName; }
  framework::Status Bind(framework::CycleState& state, const api::Pod& pod,
                         std::string_view node) override;

 private:
  framework::Handle& handle_;
};
static_assert(std::is_base_of_v<framework::BindPlugin, DefaultBinder>);

// Takes no arguments; binds through handle.
StatusOr<std::unique_ptr<framework::Plugin>> New(const std::any& args, framework::Handle& handle);

}  // namespace stowage::plugins::default_binder
