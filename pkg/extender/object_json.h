// The API JSON of the pods and nodes sent to extenders (internal to pkg/extender: it exposes
// nlohmann, which only this library's .cc files include).
#pragma once

#include <nlohmann/json.hpp>

#include "pkg/api/types.h"

namespace stowage::extender {

// The pod or node as stowage holds it (pkg/api/types.h keeps the fields a scheduler reads),
// under the API's field names.
nlohmann::json PodToJson(const api::Pod& pod);
nlohmann::json NodeToJson(const api::Node& node);

}  // namespace stowage::extender
