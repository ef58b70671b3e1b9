// DefaultBinder (upstream plugins/defaultbinder): binds a pod by creating its pods/binding
// subresource (a v1.Binding with the pod's namespace, name and UID and target Node/<node>)
// through the Handle's PodWriter. As 1.37 (util.BindPod), a failure the API server may not
// repeat is retried: up to 4 attempts, 10 ms apart growing five-fold with 10% jitter (client-go's
// retry.DefaultBackoff). Retriable is what upstream's util.Retriable accepts, as pkg/client
// maps it: kUnavailable, i.e. an internal error or service unavailable answer (HTTP 5xx but
// 504) or a connection that could not be made. A conflict (the pod is already bound) is not
// retried any more. The last failure becomes an Error status carrying the API error's message,
// which sends the pod back to the queue with backoff. Thread-safe as PodWriter is; one binding
// cycle per pod may run concurrently with others.
#pragma once

#include <chrono>
#include <memory>
#include <string_view>
#include <type_traits>

#include "stowage/common/clock.h"
#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::default_binder {

inline constexpr std::string_view kName = "DefaultBinder";

// Whether Bind tries again after this PodWriter::Bind failure (upstream util.Retriable).
bool IsRetriable(const stowage::Status& s);

class DefaultBinder final : public framework::BindPlugin {
 public:
  // clock paces the retries; tests pass a FakeClock.
  explicit DefaultBinder(framework::Handle& handle, Clock& clock = RealClock())
      : writer_(handle.pod_writer()), clock_(clock) {}
  std::string_view Name() const override { return kName; }
  framework::Status Bind(framework::CycleState& state, const api::Pod& pod,
                         std::string_view node) override;

 private:
  framework::PodWriter& writer_;
  Clock& clock_;
};
static_assert(std::is_base_of_v<framework::BindPlugin, DefaultBinder>);

// Takes no arguments; binds through handle.
StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::default_binder
