// Typed access to the API: where each kind lives (ResourceInfo), and list, watch, get and the
// writes the scheduler performs (bind, events, pod status, leases), decoding with pkg/api.
// Thread-safe as RestClient is.
#pragma once

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>
#include <type_traits>

#include "pkg/api/decode.h"
#include "pkg/api/encode.h"
#include "pkg/client/protobuf.h"
#include "pkg/client/protobuf_decode.h"
#include "pkg/client/rest_client.h"
#include "stowage/api/types.h"

namespace stowage::client {

// The REST location of a kind: group-version prefix, plural resource name, and scope.
template <typename T>
struct ResourceInfo;

#define STOWAGE_RESOURCE(T, prefix, plural, namespaced) \
  template <>                                           \
  struct ResourceInfo<api::T> {                         \
    static constexpr std::string_view kPrefix = prefix; \
    static constexpr std::string_view kPlural = plural; \
    static constexpr bool kNamespaced = namespaced;     \
  };
STOWAGE_RESOURCE(Pod, "/api/v1", "pods", true)
STOWAGE_RESOURCE(Node, "/api/v1", "nodes", false)
STOWAGE_RESOURCE(Namespace, "/api/v1", "namespaces", false)
STOWAGE_RESOURCE(Service, "/api/v1", "services", true)
STOWAGE_RESOURCE(PersistentVolume, "/api/v1", "persistentvolumes", false)
STOWAGE_RESOURCE(PersistentVolumeClaim, "/api/v1", "persistentvolumeclaims", true)
STOWAGE_RESOURCE(ReplicationController, "/api/v1", "replicationcontrollers", true)
STOWAGE_RESOURCE(StorageClass, "/apis/storage.k8s.io/v1", "storageclasses", false)
STOWAGE_RESOURCE(CSINode, "/apis/storage.k8s.io/v1", "csinodes", false)
STOWAGE_RESOURCE(CSIDriver, "/apis/storage.k8s.io/v1", "csidrivers", false)
STOWAGE_RESOURCE(PodDisruptionBudget, "/apis/policy/v1", "poddisruptionbudgets", true)
STOWAGE_RESOURCE(ReplicaSet, "/apis/apps/v1", "replicasets", true)
STOWAGE_RESOURCE(StatefulSet, "/apis/apps/v1", "statefulsets", true)
STOWAGE_RESOURCE(Lease, "/apis/coordination.k8s.io/v1", "leases", true)
STOWAGE_RESOURCE(CSIStorageCapacity, "/apis/storage.k8s.io/v1", "csistoragecapacities", true)
STOWAGE_RESOURCE(ResourceSlice, "/apis/resource.k8s.io/v1", "resourceslices", false)
STOWAGE_RESOURCE(ResourceClaim, "/apis/resource.k8s.io/v1", "resourceclaims", true)
STOWAGE_RESOURCE(ResourceClaimTemplate, "/apis/resource.k8s.io/v1", "resourceclaimtemplates", true)
STOWAGE_RESOURCE(VolumeAttachment, "/apis/storage.k8s.io/v1", "volumeattachments", false)
STOWAGE_RESOURCE(DeviceClass, "/apis/resource.k8s.io/v1", "deviceclasses", false)
STOWAGE_RESOURCE(DeviceTaintRule, "/apis/resource.k8s.io/v1", "devicetaintrules", false)
#undef STOWAGE_RESOURCE

// Percent-encodes a query parameter value.
std::string QueryEscape(std::string_view s);

// "/api/v1/namespaces/<ns>/pods", or across all namespaces when ns is empty.
std::string CollectionPath(std::string_view prefix, std::string_view plural, bool namespaced,
                           std::string_view ns);

template <typename T>
std::string CollectionPath(std::string_view ns = "") {
  using R = ResourceInfo<T>;
  return CollectionPath(R::kPrefix, R::kPlural, R::kNamespaced, ns);
}

template <typename T>
std::string ObjectPath(std::string_view ns, std::string_view name) {
  return CollectionPath<T>(ns) + "/" + std::string(name);
}

struct ListOptions {
  std::string namespace_;  // empty: all namespaces
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 0;  // page size; 0: no paging
  std::string continue_token;
  std::string resource_version;
  // Pods and Nodes: keep each object whole (api::Keep::kWhole). The whole object is read as
  // JSON, so the list goes as JSON whatever the contentType.
  bool whole_objects = false;
};

struct WatchOptions {
  std::string namespace_;
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;
  bool allow_bookmarks = true;
  int timeout_seconds = 0;     // server-side end of the watch; 0: the server's default
  bool whole_objects = false;  // as ListOptions::whole_objects
};

// The query string (with leading '?') for list or watch options.
std::string ListQuery(const ListOptions& o);
std::string WatchQuery(const WatchOptions& o);

// The Status for an ERROR event of a watch (errors.h).
Status WatchErrorStatus(std::string_view path, const api::ApiStatus& status);

// Whether lists and watches of T go as protobuf: when clientConnection.contentType asks for it, as
// kube-scheduler's informers do for every built-in kind (the schema's engines read every kind in
// both encodings).
template <typename T>
bool UseProtobuf(const RestClient& c) {
  return c.config().content_type == kProtobuf;
}

template <typename T>
StatusOr<api::List<T>> ListPage(RestClient& c, const ListOptions& o) {
  std::string path = CollectionPath<T>(o.namespace_) + ListQuery(o);
  const api::Keep keep = o.whole_objects ? api::Keep::kWhole : api::Keep::kCompact;
  if (UseProtobuf<T>(c) && !o.whole_objects) {
    auto body = c.Get(path, kProtobuf);
    if (!body.ok()) return body.status();
    // An apiserver (or proxy) that could not give protobuf answers JSON instead.
    if (IsProtobufEnvelope(*body)) return DecodeProtoList<T>(*body);
    return api::DecodeList<T>(*body);
  }
  auto body = c.Get(path);
  if (!body.ok()) return body.status();
  return api::DecodeList<T>(*body, keep);
}

template <typename T>
StatusOr<T> GetObject(RestClient& c, std::string_view ns, std::string_view name) {
  auto body = c.Get(ObjectPath<T>(ns, name));
  if (!body.ok()) return body.status();
  return api::Decode<T>(*body);
}

// Watches a kind, decoding each event and passing it to on_event until the stream ends, stop is
// requested or on_event returns false. An ERROR event (410 Gone among them) or an undecodable
// event ends the watch with that error.
template <typename T>
Status WatchObjects(RestClient& c, const WatchOptions& o,
                    const std::function<bool(api::WatchEvent<T>&&)>& on_event,
                    std::stop_token stop) {
  std::string path = CollectionPath<T>(o.namespace_) + WatchQuery(o);
  Status failure;
  // One decoded event, from a JSON line or a protobuf frame: delivered, or the watch's end.
  auto deliver = [&](StatusOr<api::WatchEvent<T>> ev) {
    if (!ev.ok()) {
      failure = ev.status();
      return false;
    }
    if (ev->type == api::WatchEventType::kError) {
      failure = WatchErrorStatus(path, ev->error);
      return false;
    }
    return on_event(std::move(*ev));
  };
  const api::Keep keep = o.whole_objects ? api::Keep::kWhole : api::Keep::kCompact;
  auto on_line = [&](std::string_view line) {
    return deliver(api::DecodeWatchEvent<T>(line, keep));
  };
  Duration idle = std::chrono::seconds(o.timeout_seconds > 0 ? o.timeout_seconds + 60 : 660);
  if (UseProtobuf<T>(c) && !o.whole_objects) {
    ProtoFrameSplitter frames(api::kMaxObjectBytes);
    auto on_frame = [&](std::string_view frame) {
      return deliver(DecodeProtoWatchEvent<T>(frame));
    };
    auto on_data = [&](std::string_view data, Status& error) {
      error = frames.Feed(data, on_frame);
      return error.ok() && !frames.stopped();
    };
    Status s = c.WatchBytes(path, kProtobufWatch, on_data, stop, idle);
    return failure.ok() ? s : failure;
  }
  Status s = c.Watch(path, on_line, stop, idle);
  return failure.ok() ? s : failure;
}

// POST pods/<name>/binding: places the pod on the node. Conflict if it is already bound.
Status BindPod(RestClient& c, const api::ObjectMeta& pod, std::string_view node_name);
// DELETE a pod with its default grace period (the kubelet, or the pod's controller, sees it
// terminate). NotFound if it is gone already.
Status DeletePod(RestClient& c, std::string_view ns, std::string_view name);
// POST an events.k8s.io/v1 Event.
Status CreateEvent(RestClient& c, const api::EventRecord& event);
// PATCH pods/<name>/status with a strategic-merge patch (api::EncodePodStatusPatch).
Status PatchPodStatus(RestClient& c, std::string_view ns, std::string_view name, std::string patch);
// Leases for leader election: get, create (fails with AlreadyExists) and update (fails with
// Conflict when the resourceVersion is stale).
StatusOr<api::Lease> CreateLease(RestClient& c, const api::Lease& lease);
StatusOr<api::Lease> UpdateLease(RestClient& c, const api::Lease& lease);

}  // namespace stowage::client
