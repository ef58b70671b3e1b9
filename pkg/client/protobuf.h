// Protobuf bodies for the two objects the scheduler writes for every pod it places: the
// pods/binding Binding and the events.k8s.io/v1 Event. kube-scheduler sends both as
// application/vnd.kubernetes.protobuf, which the apiserver decodes for a fraction of what the same
// object costs it as JSON; these encoders write the same bytes Go's generated marshallers write
// (every non-pointer field, empty ones included, in field order), inside the "k8s\0" + Unknown
// envelope of the apiserver's protobuf serializer. Only the fields stowage sets are supported;
// the objects are the ones api::EncodeBinding and api::EncodeEvent write as JSON.
#pragma once

#include <string>
#include <string_view>

#include "pkg/api/encode.h"
#include "stowage/api/types.h"
#include "stowage/common/status.h"

namespace stowage::client {

inline constexpr std::string_view kProtobuf = "application/vnd.kubernetes.protobuf";

// The Binding of pod (name, namespace, uid) to node_name.
std::string EncodeBindingProto(const api::ObjectMeta& pod, std::string_view node_name);
// The Event; fails only when its times are not RFC 3339.
StatusOr<std::string> EncodeEventProto(const api::EventRecord& event);

}  // namespace stowage::client
