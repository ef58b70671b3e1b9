// `stowage snapshot`: the objects a what-if run needs, listed from a live cluster into one file
// that Snapshot reads back (a `List`, as `kubectl get -o yaml` writes one).
#pragma once

#include <string>

#include "pkg/client/rest_client.h"
#include "stowage/common/status.h"

namespace stowage::simulate {

struct SnapshotCounts {
  size_t objects = 0;
  size_t kinds = 0;  // kinds with at least one object
};

// Lists every kind the scheduler reads, and PriorityClasses, page by page; each item gets its
// apiVersion and kind and loses metadata.managedFields (bulk no plugin reads). Pods that have
// finished (Succeeded, Failed) are left out, as the scheduler ignores them. A kind the server
// does not serve (404) is left out; any other failure is an error naming the kind.
StatusOr<std::string> TakeSnapshot(client::RestClient& client, bool as_json,
                                   SnapshotCounts* counts = nullptr);

}  // namespace stowage::simulate
