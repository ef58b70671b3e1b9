// Internal to stowage_simulate: the patches the scheduler sends, applied as the API server would
// for the fields it writes. JSON merge patch (RFC 7386) and JSON patch (RFC 6902) are exact;
// strategic merge patch is the subset those writes use: maps merge, null deletes, lists of
// conditions, containers, claim statuses and owner references merge by their key, finalizers
// are a set, other lists are replaced, and directives ($setElementOrder, $retainKeys) are
// ignored.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "stowage/common/status.h"

namespace stowage::simulate {

Status ApplyPatch(nlohmann::json& obj, std::string_view body, std::string_view content_type);

}  // namespace stowage::simulate
