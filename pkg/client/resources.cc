#include "pkg/client/resources.h"

#include <cctype>

#include "pkg/client/errors.h"
#include "pkg/client/protobuf.h"

namespace stowage::client {

std::string QueryEscape(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string CollectionPath(std::string_view prefix, std::string_view plural, bool namespaced,
                           std::string_view ns) {
  std::string p(prefix);
  if (namespaced && !ns.empty()) {
    p += "/namespaces/";
    p += ns;
  }
  p += '/';
  p += plural;
  return p;
}

namespace {
void Add(std::string& q, std::string_view key, std::string_view value) {
  if (value.empty()) return;
  q += q.empty() ? '?' : '&';
  q += key;
  q += '=';
  q += QueryEscape(value);
}
}  // namespace

std::string ListQuery(const ListOptions& o) {
  std::string q;
  Add(q, "labelSelector", o.label_selector);
  Add(q, "fieldSelector", o.field_selector);
  if (o.limit > 0) Add(q, "limit", std::to_string(o.limit));
  Add(q, "continue", o.continue_token);
  Add(q, "resourceVersion", o.resource_version);
  return q;
}

std::string WatchQuery(const WatchOptions& o) {
  std::string q = "?watch=true";
  Add(q, "labelSelector", o.label_selector);
  Add(q, "fieldSelector", o.field_selector);
  Add(q, "resourceVersion", o.resource_version);
  if (o.allow_bookmarks) Add(q, "allowWatchBookmarks", "true");
  if (o.timeout_seconds > 0) Add(q, "timeoutSeconds", std::to_string(o.timeout_seconds));
  return q;
}

Status WatchErrorStatus(std::string_view path, const api::ApiStatus& status) {
  return WatchError(path, status);
}

Status BindPod(RestClient& c, const api::ObjectMeta& pod, std::string_view node_name) {
  std::string path = ObjectPath<api::Pod>(pod.namespace_, pod.name) + "/binding";
  // Protobuf when configured, as kube-scheduler sends it: cheaper for the apiserver to decode.
  if (c.config().content_type == kProtobuf) {
    return c.Post(path, EncodeBindingProto(pod, node_name), kProtobuf).status();
  }
  return c.Post(path, api::EncodeBinding(pod, node_name)).status();
}

Status DeletePod(RestClient& c, std::string_view ns, std::string_view name) {
  return c.Delete(ObjectPath<api::Pod>(ns, name)).status();
}

Status CreateEvent(RestClient& c, const api::EventRecord& event) {
  std::string path = "/apis/events.k8s.io/v1/namespaces/" + event.namespace_ + "/events";
  if (c.config().content_type == kProtobuf) {
    StatusOr<std::string> body = EncodeEventProto(event);
    if (!body.ok()) return body.status();
    return c.Post(path, std::move(body).value(), kProtobuf).status();
  }
  return c.Post(path, api::EncodeEvent(event)).status();
}

Status PatchPodStatus(RestClient& c, std::string_view ns, std::string_view name,
                      std::string patch) {
  return c.Patch(ObjectPath<api::Pod>(ns, name) + "/status", std::move(patch), kStrategicMergePatch)
      .status();
}

StatusOr<api::Lease> CreateLease(RestClient& c, const api::Lease& lease) {
  auto body =
      c.Post(CollectionPath<api::Lease>(lease.metadata.namespace_), api::EncodeObject(lease));
  if (!body.ok()) return body.status();
  return api::Decode<api::Lease>(*body);
}

StatusOr<api::Lease> UpdateLease(RestClient& c, const api::Lease& lease) {
  auto body = c.Put(ObjectPath<api::Lease>(lease.metadata.namespace_, lease.metadata.name),
                    api::EncodeObject(lease));
  if (!body.ok()) return body.status();
  return api::Decode<api::Lease>(*body);
}

}  // namespace stowage::client
