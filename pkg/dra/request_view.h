// RequestView: one shape for a claim's exact request and for each firstAvailable subrequest, so
// the search treats both alike (upstream's requestAccessor).
//
// A view points into its claim, which must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stowage/api/types.h"

namespace stowage::dra {

struct RequestView {
  const std::string* name = nullptr;
  const std::string* class_name = nullptr;
  const std::vector<std::string>* selectors = nullptr;
  const std::vector<api::DeviceToleration>* tolerations = nullptr;
  const api::ResourceList* capacity_requests = nullptr;
  std::string allocation_mode;  // ExactCount or All, the API's defaults applied
  int64_t count = 0;            // ExactCount only
  bool admin_access = false;
  bool has_admin_access = false;  // set at all, even to false
  bool All() const { return allocation_mode == "All"; }
};

// The request itself; nullopt when it has neither exactly nor firstAvailable.
std::optional<RequestView> ViewOf(const api::DeviceRequest& request);
// One subrequest; subrequests never have admin access.
RequestView ViewOf(const api::DeviceSubRequest& sub);

}  // namespace stowage::dra
