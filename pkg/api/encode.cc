#include "pkg/api/encode.h"

#include <charconv>
#include <ctime>
#include <nlohmann/json.hpp>

namespace stowage::api {

using json = nlohmann::json;

namespace {
// dump() with replacement of invalid UTF-8, so no input can make encoding throw.
std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json MetaRef(const ObjectMeta& m) {
  json j = {{"name", m.name}};
  if (!m.namespace_.empty()) j["namespace"] = m.namespace_;
  if (!m.uid.empty()) j["uid"] = m.uid;
  return j;
}
}  // namespace

std::string FormatTime(WallTime t, bool micro) {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(us / 1000000);
  long frac = static_cast<long>(us % 1000000);
  if (frac < 0) {
    frac += 1000000;
    --secs;
  }
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out(buf, n);
  if (micro) {
    char f[8];
    std::snprintf(f, sizeof(f), ".%06ld", frac);
    out += f;
  }
  out += 'Z';
  return out;
}

StatusOr<WallTime> ParseTime(std::string_view s) {
  auto bad = [&] {
    return InvalidArgumentError("invalid RFC 3339 time \"" + std::string(s) + "\"");
  };
  auto num = [&](size_t pos, size_t len, int& out) {
    if (pos + len > s.size()) return false;
    auto r = std::from_chars(s.data() + pos, s.data() + pos + len, out);
    return r.ec == std::errc() && r.ptr == s.data() + pos + len;
  };
  std::tm tm{};
  int year, mon, day, hour, min, sec;
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
      s[13] != ':' || s[16] != ':' || !num(0, 4, year) || !num(5, 2, mon) || !num(8, 2, day) ||
      !num(11, 2, hour) || !num(14, 2, min) || !num(17, 2, sec)) {
    return bad();
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = min;
  tm.tm_sec = sec;
  size_t pos = 19;
  int64_t nanos = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 9) nanos = nanos * 10 + (s[pos] - '0'), ++digits;
      ++pos;
    }
    if (digits == 0) return bad();
    for (; digits < 9; ++digits) nanos *= 10;
  }
  int offset = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos + 6 == s.size() && (s[pos] == '+' || s[pos] == '-') && s[pos + 3] == ':') {
    int oh, om;
    if (!num(pos + 1, 2, oh) || !num(pos + 4, 2, om)) return bad();
    offset = (oh * 60 + om) * 60 * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return bad();
  }
  if (pos != s.size()) return bad();
  std::time_t secs = timegm(&tm) - offset;
  return WallTime(std::chrono::duration_cast<WallTime::duration>(std::chrono::seconds(secs) +
                                                                 std::chrono::nanoseconds(nanos)));
}

std::string EncodeBinding(const ObjectMeta& pod, std::string_view node_name) {
  json j = {{"apiVersion", "v1"},
            {"kind", "Binding"},
            {"metadata", MetaRef(pod)},
            {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node_name}}}};
  return Dump(j);
}

namespace {
// A v1.ObjectReference to an object, with the fields client-go's reference.GetReference fills.
json ReferenceTo(const std::string& kind, const std::string& api_version, const EventObject& meta) {
  json ref = {{"kind", kind}, {"apiVersion", api_version}, {"name", meta.name}};
  if (!meta.namespace_.empty()) ref["namespace"] = meta.namespace_;
  if (!meta.uid.empty()) ref["uid"] = meta.uid;
  if (!meta.resource_version.empty()) ref["resourceVersion"] = meta.resource_version;
  return ref;
}
}  // namespace

std::string EncodeEvent(const EventRecord& e) {
  json regarding = ReferenceTo(e.regarding_kind, e.regarding_api_version, e.regarding);
  json j = {{"apiVersion", "events.k8s.io/v1"},
            {"kind", "Event"},
            {"metadata", {{"name", e.name}, {"namespace", e.namespace_}}},
            {"eventTime", e.event_time},
            {"reportingController", e.reporting_controller},
            {"reportingInstance", e.reporting_instance},
            {"action", e.action},
            {"reason", e.reason},
            {"note", e.note},
            {"type", e.type},
            {"regarding", regarding}};
  if (!e.related_kind.empty()) {
    j["related"] = ReferenceTo(e.related_kind, e.related_api_version, e.related);
  }
  if (e.series_count > 0) {
    j["series"] = {{"count", e.series_count}, {"lastObservedTime", e.series_last_observed_time}};
  }
  return Dump(j);
}

std::string EncodeEventSeriesPatch(int32_t count, std::string_view last_observed_time) {
  return Dump(
      json{{"series", {{"count", count}, {"lastObservedTime", std::string(last_observed_time)}}}});
}

namespace {
// A pod condition as Go's json.Marshal writes a v1.PodCondition: empty times are null,
// observedGeneration, reason and message are left out when empty.
json GoCondition(const Condition& c) {
  auto time = [](const std::string& t) { return t.empty() ? json(nullptr) : json(t); };
  json j = {{"type", c.type},
            {"status", c.status},
            {"lastProbeTime", time(c.last_probe_time)},
            {"lastTransitionTime", time(c.last_transition_time)}};
  if (c.observed_generation != 0) j["observedGeneration"] = c.observed_generation;
  if (!c.reason.empty()) j["reason"] = c.reason;
  if (!c.message.empty()) j["message"] = c.message;
  return j;
}

// The fields of b that differ from a, and null for those a has and b lacks (strategicpatch's
// diffMaps for maps of scalars).
json DiffFlat(const json& a, const json& b) {
  json d = json::object();
  for (const auto& [k, v] : b.items()) {
    if (!a.contains(k) || a[k] != v) d[k] = v;
  }
  for (const auto& [k, v] : a.items()) {
    if (!b.contains(k)) d[k] = nullptr;
  }
  return d;
}

const Condition* FindCondition(const std::vector<Condition>& cs, const std::string& type) {
  for (const auto& c : cs) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

// Go's encoder escapes these for safe embedding in HTML; nlohmann does not.
std::string EscapeLikeGo(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += ch;
    }
  }
  return out;
}
}  // namespace

std::string EncodePodStatusPatch(const PodStatus& old_status, const PodStatus& new_status) {
  json status = json::object();
  json changed = json::array();
  for (const auto& c : new_status.conditions) {
    const Condition* before = FindCondition(old_status.conditions, c.type);
    if (before == nullptr) {
      changed.push_back(GoCondition(c));
      continue;
    }
    json d = DiffFlat(GoCondition(*before), GoCondition(c));
    if (d.empty()) continue;
    d["type"] = c.type;
    changed.push_back(std::move(d));
  }
  if (!changed.empty()) {
    status["conditions"] = std::move(changed);
    // A list added whole needs no order; a merged one names the order of every element.
    if (!old_status.conditions.empty()) {
      json order = json::array();
      for (const auto& c : new_status.conditions) order.push_back({{"type", c.type}});
      status["$setElementOrder/conditions"] = std::move(order);
    }
  }
  // An atomic object: replaced whole, as a two-way merge writes a changed pointer field.
  if (old_status.extended_resource_claim_status != new_status.extended_resource_claim_status) {
    json value = nullptr;
    if (const auto& e = new_status.extended_resource_claim_status) {
      json mappings = json::array();
      for (const ContainerExtendedResourceRequest& m : e->request_mappings) {
        mappings.push_back({{"containerName", m.container_name},
                            {"resourceName", m.resource_name},
                            {"requestName", m.request_name}});
      }
      value = {{"requestMappings", std::move(mappings)}};
      if (!e->resource_claim_name.empty()) value["resourceClaimName"] = e->resource_claim_name;
    }
    status["extendedResourceClaimStatus"] = std::move(value);
  }
  if (old_status.nominated_node_name != new_status.nominated_node_name) {
    status["nominatedNodeName"] = new_status.nominated_node_name.empty()
                                      ? json(nullptr)
                                      : json(new_status.nominated_node_name);
  }
  if (status.empty()) return "{}";
  // No key or structural character needs escaping, so escaping the whole text is safe.
  return EscapeLikeGo(Dump(json{{"status", status}}));
}

std::string JsonQuote(std::string_view s) { return Dump(json(std::string(s))); }

}  // namespace stowage::api
