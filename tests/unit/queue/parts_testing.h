// Helpers shared by the tests of the queue's parts (active_queue_test.cc, backoff_queue_test.cc,
// unschedulable_pods_test.cc).
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "pkg/queue/queued_pod.h"
#include "tests/testing/builders.h"

namespace stowage::queue {

// A pod as the queue holds it: its name doubles as its UID, in the default namespace.
inline QueuedPodInfoPtr NewQueuedPod(const std::string& name, int32_t priority = 0,
                                     MonoTime timestamp = {}) {
  auto p = std::make_shared<framework::QueuedPodInfo>();
  p->pod_info = framework::NewPodInfo(
      testing::BuildPod().Name(name).UID(name).Namespace("default").Priority(priority).Obj());
  p->timestamp = timestamp;
  return p;
}

}  // namespace stowage::queue
