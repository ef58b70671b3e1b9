// Creating the builders' objects (tests/testing/builders.h) in the real test cluster.
#pragma once

#include <string>
#include <vector>

#include "pkg/client/rest_client.h"
#include "stowage/common/status.h"
#include "tests/testing/builders.h"

namespace stowage::testing {

// A Ready node with 4 CPU, 32Gi of memory and room for 110 pods, the integration tests' usual
// node; Capacity(resource, quantity) changes one of them.
NodeWrapper BuildClusterNode();

// Creates a namespace; succeeds if it already exists.
Status EnsureNamespace(client::RestClient& c, const std::string& name);
// Creates the pod in its namespace ("default" when it has none).
Status CreatePod(client::RestClient& c, const PodWrapper& pod);
Status CreateNode(client::RestClient& c, const NodeWrapper& node);
// Creates the pods from `threads` threads; returns the first error.
Status CreatePods(client::RestClient& c, const std::vector<PodWrapper>& pods, int threads = 4);
// Creates count pods named <prefix>-<i> in ns, from `threads` threads.
Status CreatePods(client::RestClient& c, const std::string& ns, const std::string& prefix,
                  int count, int threads = 4);
// Deletes a pod immediately (grace period 0: there is no kubelet to finish a graceful delete).
Status DeletePod(client::RestClient& c, const std::string& ns, const std::string& name);

}  // namespace stowage::testing
