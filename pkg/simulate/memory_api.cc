#include "pkg/simulate/memory_api.h"

#include <map>
#include <nlohmann/json.hpp>

#include "pkg/simulate/kinds.h"
#include "pkg/simulate/patch.h"
#include "stowage/common/mutex.h"

namespace stowage::simulate {
namespace {

using json = nlohmann::json;

// A request target taken apart: /api/v1/namespaces/NS/PLURAL/NAME/SUB?QUERY.
struct Target {
  std::string collection;  // prefix + "/" + plural
  std::string ns, name, sub;
  std::map<std::string, std::string> query;
};

std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      if (i > start) out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::optional<Target> ParseTarget(std::string_view target) {
  Target t;
  const size_t q = target.find('?');
  if (q != std::string_view::npos) {
    for (std::string_view kv : Split(target.substr(q + 1), '&')) {
      const size_t eq = kv.find('=');
      t.query[std::string(kv.substr(0, eq))] =
          eq == std::string_view::npos ? "" : Unescape(kv.substr(eq + 1));
    }
    target = target.substr(0, q);
  }
  std::vector<std::string_view> seg = Split(target, '/');
  size_t i;
  if (seg.size() >= 2 && seg[0] == "api") {
    i = 2;
  } else if (seg.size() >= 3 && seg[0] == "apis") {
    i = 3;
  } else {
    return std::nullopt;
  }
  std::string prefix;
  for (size_t k = 0; k < i; ++k) prefix += "/" + std::string(seg[k]);
  if (seg.size() > i + 2 && seg[i] == "namespaces") {
    t.ns = seg[i + 1];
    i += 2;
  }
  if (i >= seg.size()) return std::nullopt;
  t.collection = prefix + "/" + std::string(seg[i]);
  if (i + 1 < seg.size()) t.name = seg[i + 1];
  if (i + 2 < seg.size()) t.sub = seg[i + 2];
  if (i + 3 < seg.size()) return std::nullopt;
  return t;
}

std::string Key(const json& obj) {
  const json& m = obj.value("metadata", json::object());
  const std::string ns = m.value("namespace", "");
  return ns.empty() ? m.value("name", "") : ns + "/" + m.value("name", "");
}

client::HttpResponse Answer(int code, const json& body) {
  return client::HttpResponse{code, body.dump(-1, ' ', false, json::error_handler_t::replace), {}};
}

client::HttpResponse Failure(int code, std::string_view reason, const std::string& message) {
  return Answer(code, json{{"kind", "Status"},
                           {"apiVersion", "v1"},
                           {"metadata", json::object()},
                           {"status", "Failure"},
                           {"message", message},
                           {"reason", reason},
                           {"code", code}});
}

// A dotted field path (spec.nodeName) of obj, "" when absent.
std::string Field(const json& obj, std::string_view path) {
  const json* at = &obj;
  for (std::string_view part : Split(path, '.')) {
    if (!at->is_object()) return "";
    auto it = at->find(std::string(part));
    if (it == at->end()) return "";
    at = &*it;
  }
  return at->is_string() ? at->get<std::string>() : "";
}

// key=value, key==value and key!=value terms joined by commas, as the scheduler's informers ask.
bool FieldsMatch(const json& obj, std::string_view selector) {
  for (std::string_view term : Split(selector, ',')) {
    const size_t ne = term.find("!=");
    if (ne != std::string_view::npos) {
      if (Field(obj, term.substr(0, ne)) == term.substr(ne + 2)) return false;
      continue;
    }
    const size_t eq = term.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view value = term.substr(eq + 1);
    if (!value.empty() && value[0] == '=') value.remove_prefix(1);
    if (Field(obj, term.substr(0, eq)) != value) return false;
  }
  return true;
}

struct LogEntry {
  uint64_t rv;
  std::string type;
  json object;
};

struct Collection {
  std::map<std::string, json> objects;  // by namespace/name: etcd's key order
  std::vector<LogEntry> log;
  uint64_t last_rv = 0;
};

}  // namespace

struct MemoryApi::State {
  explicit State(const Clock& c) : clock(c), start(c.Now()) {}
  const Clock& clock;
  const MonoTime start;
  mutable Mutex mu;
  CondVarAny changed;  // an entry was logged; a watch stops
  uint64_t rv GUARDED_BY(mu) = 100;
  std::map<std::string, Collection> collections GUARDED_BY(mu);
  std::vector<Write> writes GUARDED_BY(mu);
  std::vector<RecordedEvent> events GUARDED_BY(mu);
  uint64_t activity GUARDED_BY(mu) = 0;
  // Per open watch: the collection and the last version it has been given (or has skipped).
  std::map<int, std::pair<std::string, uint64_t>> watches GUARDED_BY(mu);
  int next_watch GUARDED_BY(mu) = 0;
  uint64_t next_uid GUARDED_BY(mu) = 0;

  // Stores obj (its resourceVersion set) and logs the change for the watches.
  void Put(Collection& c, const std::string& type, json obj) REQUIRES(mu) {
    const uint64_t v = ++rv;
    obj["metadata"]["resourceVersion"] = std::to_string(v);
    const std::string key = Key(obj);
    if (type == "DELETED") {
      c.objects.erase(key);
    } else {
      c.objects[key] = obj;
    }
    c.log.push_back(LogEntry{v, type, std::move(obj)});
    c.last_rv = v;
    changed.SignalAll();
  }

  client::HttpResponse Handle(const client::HttpRequest& req, const Target& t) REQUIRES(mu);
  // The PV controller's part, done at once: a claim the scheduler gave a selected node is
  // provisioned and bound; a volume the scheduler gave a claimRef is bound to its claim.
  void VolumeController(const std::string& collection, const std::string& key) REQUIRES(mu);
  // Binds the claim and the volume to each other, as the PV controller would.
  void BindVolume(json pvc, json pv) REQUIRES(mu);
  client::HttpResponse Create(Collection& c, const Target& t, json obj) REQUIRES(mu);
  client::HttpResponse Bind(Collection& c, const Target& t, const json& binding) REQUIRES(mu);
};

MemoryApi::MemoryApi(const Clock& clock) : state_(std::make_unique<State>(clock)) {}
MemoryApi::~MemoryApi() = default;

StatusOr<std::unique_ptr<MemoryApi>> MemoryApi::New(const std::vector<std::string>& objects,
                                                    const Clock& clock) {
  std::unique_ptr<MemoryApi> api(new MemoryApi(clock));
  State& s = *api->state_;
  MutexLock l(s.mu);
  for (const KindInfo& k : AllKinds()) s.collections[k.Collection()];
  for (const std::string& text : objects) {
    json obj = json::parse(text, nullptr, false);
    const std::string kind = obj.is_object() ? obj.value("kind", "") : "";
    const KindInfo* k = FindKind(kind);
    if (k == nullptr) {
      return InvalidArgumentError("the simulated API server holds no kind \"" + kind + "\"");
    }
    Collection& c = s.collections[k->Collection()];
    const std::string key = Key(obj);
    if (c.objects.count(key)) {
      return AlreadyExistsError(kind + " " + key + " is given twice");
    }
    s.Put(c, "ADDED", std::move(obj));
  }
  // The watches start after the lists: the initial objects are not events.
  for (auto& [path, c] : s.collections) c.log.clear();
  return api;
}

client::HttpResponse MemoryApi::State::Create(Collection& c, const Target& t, json obj) {
  if (!obj.is_object()) return Failure(400, "BadRequest", "the body is not a JSON object");
  json& meta = obj["metadata"];
  if (!t.ns.empty()) meta["namespace"] = t.ns;
  if (!meta.contains("name") && meta.contains("generateName")) {
    meta["name"] = meta["generateName"].get<std::string>() + std::to_string(++next_uid);
  }
  if (Key(obj).empty()) return Failure(422, "Invalid", "metadata.name: Required value");
  if (c.objects.count(Key(obj))) {
    return Failure(409, "AlreadyExists", t.collection + " \"" + Key(obj) + "\" already exists");
  }
  if (!meta.contains("uid")) meta["uid"] = "simulated-" + std::to_string(++next_uid);
  Put(c, "ADDED", obj);
  return Answer(201, c.objects[Key(obj)]);
}

client::HttpResponse MemoryApi::State::Bind(Collection& c, const Target& t, const json& binding) {
  const std::string key = t.ns + "/" + t.name;
  auto it = c.objects.find(key);
  if (it == c.objects.end()) return Failure(404, "NotFound", "pods \"" + t.name + "\" not found");
  const std::string node = Field(binding, "target.name");
  if (node.empty()) return Failure(422, "Invalid", "target.name: Required value");
  json pod = it->second;
  const std::string bound = Field(pod, "spec.nodeName");
  if (!bound.empty()) {
    return Failure(409, "Conflict",
                   "Operation cannot be fulfilled on pods/binding \"" + t.name + "\": pod " +
                       t.name + " is already assigned to node \"" + bound + "\"");
  }
  pod["spec"]["nodeName"] = node;
  json& conditions = pod["status"]["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  json kept = json::array();
  for (json& c : conditions) {
    if (c.value("type", "") != "PodScheduled") kept.push_back(std::move(c));
  }
  kept.push_back({{"type", "PodScheduled"}, {"status", "True"}});
  conditions = std::move(kept);
  Put(c, "MODIFIED", std::move(pod));
  writes.push_back(Write{Write::Kind::kBind, key, node, clock.Now() - start});
  return Answer(201, json{{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Success"}});
}

client::HttpResponse MemoryApi::State::Handle(const client::HttpRequest& req, const Target& t) {
  const bool is_event =
      t.collection == "/api/v1/events" || t.collection == "/apis/events.k8s.io/v1/events";
  if (is_event) {
    json e = json::parse(req.body, nullptr, false);
    if (req.method == "PATCH") return Failure(404, "NotFound", "events are not kept by name");
    if (req.method != "POST" || !e.is_object()) return Failure(405, "MethodNotAllowed", "events");
    const json& about =
        e.contains("regarding") ? e["regarding"] : e.value("involvedObject", json());
    const std::string ns = about.is_object() ? about.value("namespace", "") : "";
    const std::string name = about.is_object() ? about.value("name", "") : "";
    events.push_back(
        RecordedEvent{ns.empty() ? name : ns + "/" + name, e.value("reason", ""),
                      e.contains("note") ? e.value("note", "") : e.value("message", "")});
    return Answer(201, e);
  }
  auto cit = collections.find(t.collection);
  if (cit == collections.end()) {
    return Failure(404, "NotFound", "the server could not find the requested resource");
  }
  Collection& c = cit->second;
  const std::string key = t.ns.empty() ? t.name : t.ns + "/" + t.name;
  if (req.method == "GET" && t.name.empty()) {
    if (!t.query.count("labelSelector") || t.query.at("labelSelector").empty()) {
      json list{{"kind", "List"},
                {"apiVersion", "v1"},
                {"metadata", {{"resourceVersion", std::to_string(rv)}}},
                {"items", json::array()}};
      const std::string fields = t.query.count("fieldSelector") ? t.query.at("fieldSelector") : "";
      for (const auto& [k, obj] : c.objects) {
        if (!t.ns.empty() && Field(obj, "metadata.namespace") != t.ns) continue;
        if (FieldsMatch(obj, fields)) list["items"].push_back(obj);
      }
      return Answer(200, list);
    }
    return Failure(400, "BadRequest", "the simulated API server serves no label selectors");
  }
  if (req.method == "POST" && t.name.empty()) {
    json obj = json::parse(req.body, nullptr, false);
    return Create(c, t, std::move(obj));
  }
  if (req.method == "POST" && t.sub == "binding" && t.collection == "/api/v1/pods") {
    return Bind(c, t, json::parse(req.body, nullptr, false));
  }
  auto it = c.objects.find(key);
  if (it == c.objects.end()) {
    return Failure(404, "NotFound", t.collection + " \"" + t.name + "\" not found");
  }
  if (req.method == "GET") return Answer(200, it->second);
  if (req.method == "DELETE") {
    json gone = it->second;
    if (t.collection == "/api/v1/pods") {
      writes.push_back(
          Write{Write::Kind::kDelete, key, Field(gone, "spec.nodeName"), clock.Now() - start});
    }
    Put(c, "DELETED", gone);
    return Answer(200, c.log.back().object);
  }
  json obj = it->second;
  if (req.method == "PUT") {
    json next = json::parse(req.body, nullptr, false);
    const std::string want = Field(next, "metadata.resourceVersion");
    if (!next.is_object()) return Failure(400, "BadRequest", "the body is not a JSON object");
    if (!want.empty() && want != Field(obj, "metadata.resourceVersion")) {
      return Failure(409, "Conflict",
                     "Operation cannot be fulfilled on " + t.collection + " \"" + t.name +
                         "\": the object has been modified; please apply your changes to the "
                         "latest version and try again");
    }
    obj = std::move(next);
  } else if (req.method == "PATCH") {
    if (Status s = ApplyPatch(obj, req.body, req.content_type); !s.ok()) {
      return Failure(422, "Invalid", std::string(s.message()));
    }
  } else {
    return Failure(405, "MethodNotAllowed", req.method + " " + t.collection);
  }
  Put(c, "MODIFIED", std::move(obj));
  json answer = c.log.back().object;
  VolumeController(t.collection, key);
  return Answer(200, answer);
}

void MemoryApi::State::BindVolume(json pvc, json pv) {
  Collection& pvcs = collections["/api/v1/persistentvolumeclaims"];
  Collection& pvs = collections["/api/v1/persistentvolumes"];
  pv["status"]["phase"] = "Bound";
  pvc["spec"]["volumeName"] = pv["metadata"]["name"];
  pvc["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] = "yes";
  pvc["status"]["phase"] = "Bound";
  if (pv["spec"].contains("capacity")) pvc["status"]["capacity"] = pv["spec"]["capacity"];
  const char* type = pvs.objects.count(Key(pv)) ? "MODIFIED" : "ADDED";
  Put(pvs, type, std::move(pv));
  Put(pvcs, "MODIFIED", std::move(pvc));
}

void MemoryApi::State::VolumeController(const std::string& collection, const std::string& key) {
  Collection& pvcs = collections["/api/v1/persistentvolumeclaims"];
  Collection& pvs = collections["/api/v1/persistentvolumes"];
  if (collection == "/api/v1/persistentvolumeclaims") {
    auto it = pvcs.objects.find(key);
    if (it == pvcs.objects.end()) return;
    const json& pvc = it->second;
    if (!Field(pvc, "spec.volumeName").empty()) return;
    const json* ann = pvc.contains("metadata") && pvc["metadata"].contains("annotations")
                          ? &pvc["metadata"]["annotations"]
                          : nullptr;
    if (ann == nullptr || !ann->contains("volume.kubernetes.io/selected-node")) return;
    json pv{{"apiVersion", "v1"},
            {"kind", "PersistentVolume"},
            {"metadata",
             {{"name", "pvc-" + Field(pvc, "metadata.uid")},
              {"uid", "simulated-pv-" + std::to_string(++next_uid)},
              {"annotations", {{"pv.kubernetes.io/provisioned-by", "stowage-simulate"}}}}},
            {"spec",
             {{"storageClassName", Field(pvc, "spec.storageClassName")},
              {"persistentVolumeReclaimPolicy", "Delete"},
              {"claimRef",
               {{"kind", "PersistentVolumeClaim"},
                {"apiVersion", "v1"},
                {"namespace", Field(pvc, "metadata.namespace")},
                {"name", Field(pvc, "metadata.name")},
                {"uid", Field(pvc, "metadata.uid")}}}}}};
    if (pvc["spec"].contains("accessModes")) pv["spec"]["accessModes"] = pvc["spec"]["accessModes"];
    if (pvc["spec"].contains("resources") && pvc["spec"]["resources"].contains("requests")) {
      pv["spec"]["capacity"] = pvc["spec"]["resources"]["requests"];
    }
    BindVolume(pvc, std::move(pv));
    return;
  }
  if (collection == "/api/v1/persistentvolumes") {
    auto it = pvs.objects.find(key);
    if (it == pvs.objects.end() || Field(it->second, "status.phase") == "Bound") return;
    const std::string ns = Field(it->second, "spec.claimRef.namespace");
    const std::string name = Field(it->second, "spec.claimRef.name");
    auto claim = pvcs.objects.find(ns + "/" + name);
    if (name.empty() || claim == pvcs.objects.end()) return;
    if (!Field(claim->second, "spec.volumeName").empty()) return;
    BindVolume(claim->second, it->second);
  }
}

StatusOr<client::HttpResponse> MemoryApi::RoundTrip(const client::HttpRequest& req) {
  State& s = *state_;
  MutexLock l(s.mu);
  ++s.activity;
  auto t = ParseTarget(req.target);
  if (!t) return Failure(404, "NotFound", "no resource at " + req.target);
  return s.Handle(req, *t);
}

StatusOr<client::HttpResponse> MemoryApi::Stream(
    const client::HttpRequest& req, const std::function<bool(std::string_view)>& on_data,
    std::stop_token stop) {
  State& s = *state_;
  auto t = ParseTarget(req.target);
  if (!t || !t->name.empty()) return Failure(404, "NotFound", "no watch at " + req.target);
  if (t->query.count("labelSelector") && !t->query.at("labelSelector").empty()) {
    return Failure(400, "BadRequest", "the simulated API server serves no label selectors");
  }
  const std::string fields = t->query.count("fieldSelector") ? t->query.at("fieldSelector") : "";
  uint64_t from = 0;
  if (t->query.count("resourceVersion")) {
    from = std::strtoull(t->query.at("resourceVersion").c_str(), nullptr, 10);
  }
  int id;
  const Collection* c;
  {
    MutexLock l(s.mu);
    auto cit = s.collections.find(t->collection);
    if (cit == s.collections.end()) return Failure(404, "NotFound", "no watch at " + req.target);
    c = &cit->second;
    id = ++s.next_watch;
    s.watches[id] = {t->collection, from};
  }
  bool more = true;
  while (more && !stop.stop_requested()) {
    std::vector<std::string> lines;
    uint64_t upto = from;
    {
      MutexLock l(s.mu);
      while (c->last_rv <= from && !stop.stop_requested()) s.changed.Wait(s.mu, stop);
      for (const LogEntry& e : c->log) {
        if (e.rv <= from) continue;
        upto = e.rv;
        if (!t->ns.empty() && Field(e.object, "metadata.namespace") != t->ns) continue;
        if (!FieldsMatch(e.object, fields)) continue;
        lines.push_back(json{{"type", e.type}, {"object", e.object}}.dump(
                            -1, ' ', false, json::error_handler_t::replace) +
                        "\n");
      }
    }
    // Delivered outside the lock: the informer's handlers run inside on_data, and the
    // scheduling thread may be waiting to write.
    for (const std::string& line : lines) {
      if (!(more = on_data(line))) break;
    }
    MutexLock l(s.mu);
    from = upto;
    s.watches[id].second = from;
    ++s.activity;
  }
  MutexLock l(s.mu);
  s.watches.erase(id);
  return client::HttpResponse{200, "", {}};
}

bool MemoryApi::Busy() const {
  const State& s = *state_;
  MutexLock l(s.mu);
  for (const auto& [id, w] : s.watches) {
    if (s.collections.at(w.first).last_rv > w.second) return true;
  }
  return false;
}

uint64_t MemoryApi::Activity() const {
  MutexLock l(state_->mu);
  return state_->activity;
}

std::vector<std::string> MemoryApi::List(std::string_view collection) const {
  MutexLock l(state_->mu);
  std::vector<std::string> out;
  auto it = state_->collections.find(std::string(collection));
  if (it == state_->collections.end()) return out;
  for (const auto& [k, obj] : it->second.objects) {
    out.push_back(obj.dump(-1, ' ', false, json::error_handler_t::replace));
  }
  return out;
}

std::vector<Write> MemoryApi::Writes() const {
  MutexLock l(state_->mu);
  return state_->writes;
}

std::vector<RecordedEvent> MemoryApi::Events() const {
  MutexLock l(state_->mu);
  return state_->events;
}

}  // namespace stowage::simulate
