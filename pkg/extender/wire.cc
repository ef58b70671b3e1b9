#include "pkg/extender/wire.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "pkg/api/encode.h"

namespace stowage::extender {
namespace {

using json = nlohmann::json;

bool EqualFold(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// The member named key, matched as Go's decoder does (exact name first, then ignoring case);
// nullptr when absent or null.
const json* Field(const json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  const json* found = nullptr;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (it.key() == key) {
      found = &it.value();
      break;
    }
    if (found == nullptr && EqualFold(it.key(), key)) found = &it.value();
  }
  return found != nullptr && !found->is_null() ? found : nullptr;
}

StatusOr<json> Parse(std::string_view body, std::string_view what) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgumentError("decoding " + std::string(what) + ": not JSON");
  return j;
}

Status TypeError(std::string_view what, const json::exception& e) {
  return InvalidArgumentError("decoding " + std::string(what) + ": " + e.what());
}

// An int64 field as Go's encoding/json fills one: only from an integer that fits. nlohmann's
// get<int64_t> would cast a fraction or an out-of-range number, which is undefined behaviour.
StatusOr<int64_t> Int64Field(const json& v, std::string_view what, std::string_view field) {
  const bool too_big =
      v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX);
  if (v.is_number_float() || too_big) {
    return InvalidArgumentError("decoding " + std::string(what) + ": cannot unmarshal number " +
                                v.dump() + " into " + std::string(field) + " of type int64");
  }
  return v.get<int64_t>();  // an integer that fits, or a type_error for the caller
}

std::vector<std::pair<std::string, std::string>> FailedMap(const json* m) {
  std::vector<std::pair<std::string, std::string>> out;
  if (m == nullptr) return out;
  for (auto it = m->begin(); it != m->end(); ++it) {
    out.emplace_back(it.key(), it.value().get<std::string>());
  }
  return out;
}

// The object's JSON: whole, as the API served it, when the informer kept it (an extender is
// configured); otherwise the fields stowage holds, through the schema's engine.
template <typename T>
void AppendObject(std::string& out, const T& object) {
  out += object.whole ? *object.whole.json : api::EncodeJson(object);
}

// NodeNameToVictims (whole pods) or NodeNameToMetaVictims (their UIDs).
void AppendVictims(std::string& out, const framework::NodeToVictims& victims, bool meta) {
  out += '{';
  bool first_node = true;
  for (const auto& [node, v] : victims) {
    if (!first_node) out += ',';
    first_node = false;
    out += api::JsonQuote(node);
    out += ":{\"Pods\":[";
    for (size_t i = 0; i < v.pods.size(); ++i) {
      if (i > 0) out += ',';
      const api::Pod& pod = *v.pods[i]->pod;
      if (meta) {
        out += json{{"UID", pod.metadata.uid}}.dump();
      } else {
        AppendObject(out, pod);
      }
    }
    out += "],\"NumPDBViolations\":" + std::to_string(v.num_pdb_violations) + "}";
  }
  out += '}';
}

}  // namespace

// Written by hand rather than as one nlohmann document, so that whole objects go in as the bytes
// they are, without a parse.
std::string EncodeExtenderArgs(const api::Pod& pod,
                               const std::vector<const framework::NodeInfo*>& nodes,
                               bool node_cache_capable) {
  std::string out = "{\"Pod\":";
  AppendObject(out, pod);
  if (node_cache_capable) {
    json names = json::array();
    for (const auto* n : nodes) names.push_back(n->name());
    out += ",\"Nodes\":null,\"NodeNames\":" + names.dump() + "}";
    return out;
  }
  out += ",\"Nodes\":{\"metadata\":{},\"items\":[";
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) out += ',';
    AppendObject(out, *nodes[i]->node());
  }
  out += "]},\"NodeNames\":null}";
  return out;
}

StatusOr<FilterResultWire> DecodeFilterResult(std::string_view body) {
  constexpr std::string_view kWhat = "ExtenderFilterResult";
  auto j = Parse(body, kWhat);
  if (!j.ok()) return j.status();
  FilterResultWire out;
  try {
    if (const json* names = Field(*j, "NodeNames")) {
      out.node_names = names->get<std::vector<std::string>>();
    }
    if (const json* list = Field(*j, "Nodes")) {
      out.node_items.emplace();
      if (const json* items = Field(*list, "items")) {
        for (const json& n : *items) {
          const json* meta = Field(n, "metadata");
          const json* name = meta != nullptr ? Field(*meta, "name") : nullptr;
          out.node_items->push_back(name != nullptr ? name->get<std::string>() : "");
        }
      }
    }
    out.failed = FailedMap(Field(*j, "FailedNodes"));
    out.failed_and_unresolvable = FailedMap(Field(*j, "FailedAndUnresolvableNodes"));
    if (const json* e = Field(*j, "Error")) out.error = e->get<std::string>();
  } catch (const json::exception& e) {
    return TypeError(kWhat, e);
  }
  return out;
}

StatusOr<std::vector<framework::HostPriority>> DecodeHostPriorityList(std::string_view body) {
  constexpr std::string_view kWhat = "HostPriorityList";
  auto j = Parse(body, kWhat);
  if (!j.ok()) return j.status();
  std::vector<framework::HostPriority> out;
  if (j->is_null()) return out;
  try {
    if (!j->is_array()) return InvalidArgumentError("decoding HostPriorityList: not a list");
    for (const json& h : *j) {
      framework::HostPriority p;
      if (const json* host = Field(h, "Host")) p.host = host->get<std::string>();
      if (const json* score = Field(h, "Score")) {
        auto v = Int64Field(*score, kWhat, "Score");
        if (!v.ok()) return v.status();
        p.score = *v;
      }
      out.push_back(std::move(p));
    }
  } catch (const json::exception& e) {
    return TypeError(kWhat, e);
  }
  return out;
}

std::string EncodeBindingArgs(const api::Pod& pod, std::string_view node) {
  return json{{"PodName", pod.metadata.name},
              {"PodNamespace", pod.metadata.namespace_},
              {"PodUID", pod.metadata.uid},
              {"Node", node}}
      .dump();
}

StatusOr<std::string> DecodeBindingResult(std::string_view body) {
  constexpr std::string_view kWhat = "ExtenderBindingResult";
  auto j = Parse(body, kWhat);
  if (!j.ok()) return j.status();
  try {
    const json* e = j->is_object() ? Field(*j, "Error") : nullptr;
    return e != nullptr ? e->get<std::string>() : std::string();
  } catch (const json::exception& e) {
    return TypeError(kWhat, e);
  }
}

std::string EncodePreemptionArgs(const api::Pod& pod, const framework::NodeToVictims& victims,
                                 bool node_cache_capable) {
  std::string out = "{\"Pod\":";
  AppendObject(out, pod);
  out += node_cache_capable ? ",\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":"
                            : ",\"NodeNameToMetaVictims\":null,\"NodeNameToVictims\":";
  AppendVictims(out, victims, node_cache_capable);
  out += '}';
  return out;
}

StatusOr<std::map<std::string, MetaVictims>> DecodePreemptionResult(std::string_view body) {
  constexpr std::string_view kWhat = "ExtenderPreemptionResult";
  auto j = Parse(body, kWhat);
  if (!j.ok()) return j.status();
  std::map<std::string, MetaVictims> out;
  try {
    const json* m = j->is_object() ? Field(*j, "NodeNameToMetaVictims") : nullptr;
    if (m == nullptr) return out;
    for (auto it = m->begin(); it != m->end(); ++it) {
      MetaVictims& v = out[it.key()];
      if (it.value().is_null()) continue;
      if (const json* pods = Field(it.value(), "Pods")) {
        for (const json& p : *pods) {
          const json* uid = p.is_null() ? nullptr : Field(p, "UID");
          v.uids.push_back(uid != nullptr ? uid->get<std::string>() : "");
        }
      }
      if (const json* n = Field(it.value(), "NumPDBViolations")) {
        auto count = Int64Field(*n, kWhat, "NumPDBViolations");
        if (!count.ok()) return count.status();
        v.num_pdb_violations = *count;
      }
    }
  } catch (const json::exception& e) {
    return TypeError(kWhat, e);
  }
  return out;
}

}  // namespace stowage::extender
