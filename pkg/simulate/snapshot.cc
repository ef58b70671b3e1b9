#include "pkg/simulate/snapshot.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "pkg/common/file.h"
#include "pkg/config/documents.h"
#include "pkg/simulate/kinds.h"
#include "stowage/api/time_format.h"

namespace stowage::simulate {
namespace {

using json = nlohmann::json;

std::string Str(const json& obj, const json::json_pointer& at) {
  return obj.contains(at) && obj[at].is_string() ? obj[at].get<std::string>() : "";
}

std::string KindOf(const json& obj) { return Str(obj, json::json_pointer("/kind")); }

bool Bool(const json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && obj[key].is_boolean() && obj[key].get<bool>();
}

std::string Key(const json& obj) {
  const std::string ns = Str(obj, json::json_pointer("/metadata/namespace"));
  const std::string name = Str(obj, json::json_pointer("/metadata/name"));
  return ns.empty() ? name : ns + "/" + name;
}

std::string NodeOf(const json& pod) { return Str(pod, json::json_pointer("/spec/nodeName")); }

bool IsPending(const json& pod) {
  const std::string phase = Str(pod, json::json_pointer("/status/phase"));
  return NodeOf(pod).empty() && phase != "Succeeded" && phase != "Failed";
}

// The controller among the pod's owners, or null.
const json* Controller(const json& pod) {
  const json* owners = pod.contains("metadata") ? &pod["metadata"] : nullptr;
  if (owners == nullptr || !owners->contains("ownerReferences")) return nullptr;
  for (const json& o : (*owners)["ownerReferences"]) {
    if (Bool(o, "controller")) return &o;
  }
  return nullptr;
}

}  // namespace

struct Snapshot::Impl {
  std::vector<json> objects;
  std::vector<std::string> wheres;  // of the objects the current Load added, for its errors
  std::vector<Displaced> displaced;
  std::vector<std::pair<std::string, size_t>> skipped;
  size_t recreated = 0;

  json* Find(std::string_view kind, std::string_view key) {
    for (json& o : objects) {
      if (KindOf(o) == kind && Key(o) == key) return &o;
    }
    return nullptr;
  }
  void Skip(const std::string& kind) {
    for (auto& [k, n] : skipped) {
      if (k == kind) return void(++n);
    }
    skipped.emplace_back(kind, 1);
  }
  // What the API server's defaulting and admission give a pod that has not been through them.
  Status Admit(json& pod, WallTime created);
  // Adds one object read from a file (each item of a List); where names it in errors.
  Status Take(json obj, const std::string& where);
  Status Load(const std::string& text, const std::string& path, WallTime created);
  Status LoadChecked(const std::string& text, const std::string& path, WallTime created);
  // Takes the pods off node (all but those keep() spares): a controller's pod comes back pending.
  void Evict(const std::string& node, bool (*keep)(const json& pod));
  WallTime Latest() const;
};

Status Snapshot::Impl::Admit(json& pod, WallTime created) {
  json& meta = pod["metadata"];
  if (!meta.contains("uid")) {
    meta["uid"] = "simulated-" + Str(pod, json::json_pointer("/metadata/namespace")) + "." +
                  Str(pod, json::json_pointer("/metadata/name"));
  }
  if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = api::FormatTime(created);
  json& spec = pod["spec"];
  if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
  if (!spec.contains("priority")) {
    const std::string name = Str(pod, json::json_pointer("/spec/priorityClassName"));
    const json* cls = nullptr;
    for (const json& o : objects) {
      if (KindOf(o) != "PriorityClass") continue;
      const bool named = !name.empty() && Key(o) == name;
      if (named || (name.empty() && Bool(o, "globalDefault"))) cls = &o;
      if (named) break;
    }
    if (!name.empty() && cls == nullptr) {
      return NotFoundError("pod " + Key(pod) + ": no PriorityClass \"" + name + "\"");
    }
    const json* value = cls && cls->contains("value") ? &(*cls)["value"] : nullptr;
    spec["priority"] = value && value->is_number_integer() ? value->get<int64_t>() : 0;
    if (cls && !spec.contains("preemptionPolicy") && cls->contains("preemptionPolicy")) {
      spec["preemptionPolicy"] = (*cls)["preemptionPolicy"];
    }
  }
  if (!pod.contains("status") || !pod["status"].contains("phase"))
    pod["status"]["phase"] = "Pending";
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (json& c : spec[list]) {
      if (!c.is_object() || !c.contains("resources")) continue;
      json& r = c["resources"];
      if (!r.is_object() || !r.contains("limits") || !r["limits"].is_object()) continue;
      for (const auto& [name, value] : r["limits"].items()) {
        if (!r.contains("requests") || !r["requests"].contains(name)) r["requests"][name] = value;
      }
    }
  }
  return OkStatus();
}

Status Snapshot::Impl::Take(json obj, const std::string& where) {
  if (!obj.is_object()) return InvalidArgumentError(where + ": not an object");
  const std::string kind = KindOf(obj);
  if (kind.empty()) return InvalidArgumentError(where + ": no kind");
  if (kind.ends_with("List") && obj.contains("items")) {
    if (!obj["items"].is_array()) return InvalidArgumentError(where + ": items is not a list");
    size_t i = 0;
    for (json& item : obj["items"]) {
      if (Status s = Take(std::move(item), where + ", item " + std::to_string(++i)); !s.ok()) {
        return s;
      }
    }
    return OkStatus();
  }
  const KindInfo* info = FindKind(kind);
  if (info == nullptr) {
    Skip(kind);
    return OkStatus();
  }
  if (Str(obj, json::json_pointer("/metadata/name")).empty()) {
    return InvalidArgumentError(where + " (" + kind + "): no metadata.name");
  }
  if (info->namespaced && Str(obj, json::json_pointer("/metadata/namespace")).empty()) {
    obj["metadata"]["namespace"] = "default";
  }
  if (Find(kind, Key(obj)) != nullptr) {
    return AlreadyExistsError(where + " (" + kind + " " + Key(obj) + "): given twice");
  }
  objects.push_back(std::move(obj));
  wheres.push_back(where);
  return OkStatus();
}

Status Snapshot::Impl::Load(const std::string& text, const std::string& path, WallTime created) {
  // A field of an unexpected type (spec a string, taints a map) is an error of that file, not
  // an exception: the objects are checked by the API's decoders only once admitted.
  const size_t first = objects.size();
  try {
    return LoadChecked(text, path, created);
  } catch (const json::exception& e) {
    objects.resize(first);
    return InvalidArgumentError(path + ": " + e.what());
  }
}

Status Snapshot::Impl::LoadChecked(const std::string& text, const std::string& path,
                                   WallTime created) {
  auto docs = config::DocumentsAsJson(text, path);
  if (!docs.ok()) return docs.status();
  const size_t first = objects.size();
  wheres.clear();
  for (size_t i = 0; i < docs->size(); ++i) {
    json obj = json::parse((*docs)[i], nullptr, false);
    if (Status s = Take(std::move(obj), path + ": document " + std::to_string(i + 1)); !s.ok()) {
      objects.resize(first);
      return s;
    }
  }
  // Admitted once the whole file is in, so a PriorityClass may follow the pods that name it;
  // pods without a creation time are created a second apart, in file order.
  for (size_t i = first; i < objects.size(); ++i) {
    json& obj = objects[i];
    const std::string kind = KindOf(obj);
    const std::string what = wheres[i - first] + " (" + kind + " " + Key(obj) + ")";
    if (kind == "Pod") {
      if (Status s = Admit(obj, created); !s.ok()) {
        objects.resize(first);
        return s.WithPrefix(wheres[i - first]);
      }
      created += std::chrono::seconds(1);
    }
    const KindInfo* info = FindKind(kind);
    if (info->check == nullptr) continue;
    if (Status s = info->check(obj.dump(-1, ' ', false, json::error_handler_t::replace)); !s.ok()) {
      objects.resize(first);
      return InvalidArgumentError(what + ": " + std::string(s.message()));
    }
  }
  return OkStatus();
}

WallTime Snapshot::Impl::Latest() const {
  WallTime latest = api::ParseTime("2026-01-01T00:00:00Z").value();
  for (const json& o : objects) {
    auto t = api::ParseTime(Str(o, json::json_pointer("/metadata/creationTimestamp")));
    if (t.ok() && *t > latest) latest = *t;
  }
  return latest;
}

void Snapshot::Impl::Evict(const std::string& node, bool (*keep)(const json& pod)) {
  WallTime now = Latest();
  std::vector<json> kept;
  for (json& o : objects) {
    if (KindOf(o) != "Pod" || NodeOf(o) != node || (keep && keep(o))) {
      kept.push_back(std::move(o));
      continue;
    }
    const json* owner = Controller(o);
    const bool recreate = owner != nullptr && KindOf(*owner) != "DaemonSet";
    displaced.push_back(Displaced{Key(o), node, recreate});
    if (!recreate) continue;
    // What the controller makes again: the same spec, not yet scheduled, created now.
    now += std::chrono::seconds(1);
    json& meta = o["metadata"];
    meta["uid"] = "simulated-recreated-" + std::to_string(++recreated);
    meta["creationTimestamp"] = api::FormatTime(now);
    meta.erase("resourceVersion");
    o["spec"].erase("nodeName");
    o["status"] = json{{"phase", "Pending"}};
    kept.push_back(std::move(o));
  }
  objects = std::move(kept);
}

Snapshot::Snapshot() : impl_(std::make_unique<Impl>()) {}
Snapshot::~Snapshot() = default;
Snapshot::Snapshot(Snapshot&&) noexcept = default;
Snapshot& Snapshot::operator=(Snapshot&&) noexcept = default;

Status Snapshot::Read(const std::string& path, size_t max_bytes) {
  auto text = ReadFile(path, max_bytes);
  if (!text.ok()) return text.status();
  return Parse(*text, path);
}

Status Snapshot::Parse(std::string_view text, const std::string& path) {
  return impl_->Load(std::string(text), path, api::ParseTime("2026-01-01T00:00:00Z").value());
}

Status Snapshot::Add(const std::string& path, size_t max_bytes) {
  auto text = ReadFile(path, max_bytes);
  if (!text.ok()) return text.status();
  return impl_->Load(*text, path, impl_->Latest() + std::chrono::seconds(1));
}

Status Snapshot::Remove(std::string_view ref) {
  if (ref.starts_with("node/")) {
    const std::string node(ref.substr(5));
    auto& objs = impl_->objects;
    auto it = std::find_if(objs.begin(), objs.end(),
                           [&](const json& o) { return KindOf(o) == "Node" && Key(o) == node; });
    if (it == objs.end()) return NotFoundError("--remove " + std::string(ref) + ": no such node");
    objs.erase(it);
    impl_->Evict(node, nullptr);
    return OkStatus();
  }
  if (ref.starts_with("pod/")) {
    std::string key(ref.substr(4));
    if (key.find('/') == std::string::npos) key = "default/" + key;
    auto& objs = impl_->objects;
    auto it = std::find_if(objs.begin(), objs.end(),
                           [&](const json& o) { return KindOf(o) == "Pod" && Key(o) == key; });
    if (it == objs.end()) return NotFoundError("--remove " + std::string(ref) + ": no such pod");
    objs.erase(it);
    return OkStatus();
  }
  return InvalidArgumentError("--remove " + std::string(ref) +
                              ": expected node/NAME or pod/NAMESPACE/NAME");
}

Status Snapshot::Cordon(std::string_view node) {
  json* n = impl_->Find("Node", node);
  if (n == nullptr) return NotFoundError("--cordon " + std::string(node) + ": no such node");
  (*n)["spec"]["unschedulable"] = true;
  json& taints = (*n)["spec"]["taints"];
  if (!taints.is_array()) taints = json::array();
  const std::string key = "node.kubernetes.io/unschedulable";
  if (std::none_of(taints.begin(), taints.end(),
                   [&](const json& t) { return Str(t, json::json_pointer("/key")) == key; })) {
    taints.push_back({{"key", key}, {"effect", "NoSchedule"}});
  }
  return OkStatus();
}

Status Snapshot::Drain(std::string_view node) {
  if (Status s = Cordon(node); !s.ok()) {
    return NotFoundError("--drain " + std::string(node) + ": no such node");
  }
  impl_->Evict(std::string(node), [](const json& pod) {
    const json* owner = Controller(pod);
    const bool daemon = owner != nullptr && KindOf(*owner) == "DaemonSet";
    const json& meta = pod["metadata"];
    const bool mirror = meta.contains("annotations") && meta["annotations"].is_object() &&
                        meta["annotations"].contains("kubernetes.io/config.mirror");
    return daemon || mirror;
  });
  return OkStatus();
}

std::vector<std::string> Snapshot::Objects() const {
  std::vector<std::string> out;
  out.reserve(impl_->objects.size());
  for (const json& o : impl_->objects) {
    out.push_back(o.dump(-1, ' ', false, json::error_handler_t::replace));
  }
  return out;
}

std::vector<std::string> Snapshot::PendingPods() const {
  std::vector<std::string> out;
  for (const json& o : impl_->objects) {
    if (KindOf(o) == "Pod" && IsPending(o)) out.push_back(Key(o));
  }
  return out;
}

const std::vector<Snapshot::Displaced>& Snapshot::displaced() const { return impl_->displaced; }

size_t Snapshot::nodes() const {
  return std::count_if(impl_->objects.begin(), impl_->objects.end(),
                       [](const json& o) { return KindOf(o) == "Node"; });
}

const std::vector<std::pair<std::string, size_t>>& Snapshot::skipped() const {
  return impl_->skipped;
}

}  // namespace stowage::simulate
