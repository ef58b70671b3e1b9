#include "pkg/simulate/patch.h"

#include <algorithm>
#include <map>
#include <string>

namespace stowage::simulate {
namespace {

using json = nlohmann::json;

// The merge key of the lists the scheduler's strategic patches touch ("" for a set of scalars).
const std::map<std::string, std::string, std::less<>>& MergeKeys() {
  static const auto* keys = new std::map<std::string, std::string, std::less<>>{
      {"conditions", "type"},     {"containers", "name"},
      {"initContainers", "name"}, {"resourceClaimStatuses", "name"},
      {"ownerReferences", "uid"}, {"finalizers", ""},
  };
  return *keys;
}

void Strategic(json& into, const json& patch);

void MergeList(json& into, const json& patch, const std::string& key) {
  if (!into.is_array()) into = json::array();
  for (const json& item : patch) {
    if (key.empty()) {
      if (std::find(into.begin(), into.end(), item) == into.end()) into.push_back(item);
      continue;
    }
    if (!item.is_object() || !item.contains(key)) continue;
    auto same = std::find_if(into.begin(), into.end(), [&](const json& e) {
      return e.is_object() && e.contains(key) && e[key] == item[key];
    });
    if (item.value("$patch", "") == "delete") {
      if (same != into.end()) into.erase(same);
    } else if (same != into.end()) {
      Strategic(*same, item);
    } else {
      json fresh = json::object();
      Strategic(fresh, item);
      into.push_back(std::move(fresh));
    }
  }
}

void Strategic(json& into, const json& patch) {
  if (!patch.is_object()) {
    into = patch;
    return;
  }
  if (!into.is_object()) into = json::object();
  for (const auto& [k, v] : patch.items()) {
    // Takes values out of a list of scalars (the finalizer DynamicResources removes).
    constexpr std::string_view kDelete = "$deleteFromPrimitiveList/";
    if (k.starts_with(kDelete) && v.is_array()) {
      json& list = into[k.substr(kDelete.size())];
      if (!list.is_array()) list = json::array();
      for (const json& item : v)
        list.erase(std::remove(list.begin(), list.end(), item), list.end());
      continue;
    }
    if (!k.empty() && k[0] == '$') continue;
    if (v.is_null()) {
      into.erase(k);
    } else if (v.is_object()) {
      Strategic(into[k], v);
    } else if (auto mk = MergeKeys().find(k); v.is_array() && mk != MergeKeys().end()) {
      MergeList(into[k], v, mk->second);
    } else {
      into[k] = v;
    }
  }
}

}  // namespace

Status ApplyPatch(json& obj, std::string_view body, std::string_view content_type) {
  json patch = json::parse(body, nullptr, false);
  if (patch.is_discarded()) return InvalidArgumentError("the patch is not JSON");
  try {
    if (content_type == "application/json-patch+json") {
      obj = obj.patch(patch);
    } else if (content_type == "application/merge-patch+json") {
      obj.merge_patch(patch);
    } else if (content_type == "application/strategic-merge-patch+json") {
      Strategic(obj, patch);
    } else {
      return InvalidArgumentError("unsupported patch type \"" + std::string(content_type) + "\"");
    }
  } catch (const json::exception& e) {
    return InvalidArgumentError(std::string("the patch does not apply: ") + e.what());
  }
  return OkStatus();
}

}  // namespace stowage::simulate
