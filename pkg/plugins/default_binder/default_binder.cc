#include "pkg/plugins/default_binder/default_binder.h"

#include <string>

#include "stowage/common/backoff.h"

namespace stowage::plugins::default_binder {

bool IsRetriable(const stowage::Status& s) { return s.code() == StatusCode::kUnavailable; }

framework::Status DefaultBinder::Bind(framework::CycleState& /*state*/, const api::Pod& pod,
                                      std::string_view node) {
  stowage::Status s = RetryOnError(clock_, IsRetriable, [&] { return writer_.Bind(pod, node); });
  if (s.ok()) return {};
  return framework::Status::Error(std::string(s.message()));
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& /*args*/,
                                                 framework::Handle& handle,
                                                 const framework::Features& /*features*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<DefaultBinder>(handle));
}

}  // namespace stowage::plugins::default_binder
