#include "pkg/simulate/take_snapshot.h"

#include <nlohmann/json.hpp>

#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "pkg/config/documents.h"
#include "pkg/simulate/kinds.h"

namespace stowage::simulate {

StatusOr<std::string> TakeSnapshot(client::RestClient& client, bool as_json,
                                   SnapshotCounts* counts) {
  using json = nlohmann::json;
  json list{{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  SnapshotCounts n;
  for (const KindInfo& k : AllKinds()) {
    if (k.kind == "Lease") continue;  // the scheduler's own election, not cluster state
    const std::string api_version =
        k.prefix == "/api/v1" ? "v1"
                              : std::string(k.prefix.substr(std::string_view("/apis/").size()));
    std::string next;
    size_t before = list["items"].size();
    do {
      std::string path = k.Collection() + "?limit=500";
      if (!next.empty()) path += "&continue=" + client::QueryEscape(next);
      auto body = client.Get(path);
      if (!body.ok() && client::IsNotFound(body.status())) break;
      if (!body.ok()) return body.status().WithPrefix("listing " + std::string(k.plural));
      json page = json::parse(*body, nullptr, false);
      if (!page.is_object() || !page.contains("items") || !page["items"].is_array()) {
        return InvalidArgumentError("listing " + std::string(k.plural) + ": not a list");
      }
      for (json& item : page["items"]) {
        if (!item.is_object()) continue;
        if (k.kind == "Pod") {
          const std::string phase = item.value("/status/phase"_json_pointer, "");
          if (phase == "Succeeded" || phase == "Failed") continue;
        }
        item["apiVersion"] = api_version;
        item["kind"] = k.kind;
        if (item.contains("metadata")) item["metadata"].erase("managedFields");
        list["items"].push_back(std::move(item));
      }
      next = page.value("/metadata/continue"_json_pointer, "");
    } while (!next.empty());
    n.kinds += list["items"].size() > before;
  }
  n.objects = list["items"].size();
  if (counts) *counts = n;
  const std::string text = list.dump(as_json ? 2 : -1, ' ', false, json::error_handler_t::replace);
  return as_json ? text + "\n" : config::YamlOf(text);
}

}  // namespace stowage::simulate
