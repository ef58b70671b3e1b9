#include "pkg/dra/request_view.h"

namespace stowage::dra {
namespace {

// The apiserver defaults allocationMode to ExactCount and count to 1; objects built elsewhere may
// lack both.
void Default(RequestView& view, const std::string& mode, int64_t count) {
  view.allocation_mode = mode.empty() ? "ExactCount" : mode;
  view.count = (view.allocation_mode == "ExactCount" && count == 0) ? 1 : count;
}

}  // namespace

std::optional<RequestView> ViewOf(const api::DeviceRequest& request) {
  if (!request.exactly) return std::nullopt;
  const api::ExactDeviceRequest& exact = *request.exactly;
  RequestView view{.name = &request.name,
                   .class_name = &exact.device_class_name,
                   .selectors = &exact.selectors,
                   .tolerations = &exact.tolerations,
                   .capacity_requests = &exact.capacity_requests};
  Default(view, exact.allocation_mode, exact.count);
  view.admin_access = exact.admin_access.value_or(false);
  view.has_admin_access = exact.admin_access.has_value();
  return view;
}

RequestView ViewOf(const api::DeviceSubRequest& sub) {
  RequestView view{.name = &sub.name,
                   .class_name = &sub.device_class_name,
                   .selectors = &sub.selectors,
                   .tolerations = &sub.tolerations,
                   .capacity_requests = &sub.capacity_requests};
  Default(view, sub.allocation_mode, sub.count);
  return view;
}

}  // namespace stowage::dra
