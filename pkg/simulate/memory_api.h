// MemoryApi: the API server of `stowage simulate`, in memory. The real scheduler (informers,
// queue, plugins, preemption, binders) talks to it through client::Transport as it would to a
// kube-apiserver: lists and watches of every kind it reads, bindings, status patches, deletions
// of preemption victims, events, and the writes of the volume and claim binders. It keeps what
// a what-if run reports: the bindings in order, the deletions and the events.
//
// What it is not: no admission, no validation beyond what the scheduler's writes need, no
// garbage collection or controllers, and no kubelet: a deleted pod is gone at once (grace period
// 0), a bound pod stays Pending. JSON only; lists are not paginated; label selectors are refused.
// Thread-safe: requests and watches may run on any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/client/transport.h"
#include "stowage/common/clock.h"
#include "stowage/common/status.h"

namespace stowage::simulate {

// A write the report names, in the order the server took it.
struct Write {
  enum class Kind { kBind, kDelete } kind = Kind::kBind;
  std::string pod;   // namespace/name
  std::string node;  // bound to (kBind) or deleted from (kDelete; "" if it was not bound)
  Duration at{};     // on the clock given to the server, since it was built
};

// An event the scheduler recorded (core or events.k8s.io).
struct RecordedEvent {
  std::string object;  // namespace/name of the regarding object
  std::string reason;
  std::string message;
};

class MemoryApi : public client::Transport {
 public:
  // objects: JSON texts, each with apiVersion and kind of a kind the scheduler reads (pkg/client
  // resources.h), PriorityClasses, or Events. clock stamps the writes.
  static StatusOr<std::unique_ptr<MemoryApi>> New(const std::vector<std::string>& objects,
                                                  const Clock& clock);
  ~MemoryApi() override;

  StatusOr<client::HttpResponse> RoundTrip(const client::HttpRequest& req) override;
  StatusOr<client::HttpResponse> Stream(const client::HttpRequest& req,
                                        const std::function<bool(std::string_view)>& on_data,
                                        std::stop_token stop) override;

  // Whether a watch has an event its reader has not finished with (a request is answered whole
  // under the server's lock); and a count that moves with every request and delivery, so a
  // caller can tell that nothing happened between two looks.
  bool Busy() const;
  uint64_t Activity() const;

  // The objects of a collection ("/api/v1/pods"), as JSON texts in key order.
  std::vector<std::string> List(std::string_view collection) const;
  std::vector<Write> Writes() const;
  std::vector<RecordedEvent> Events() const;

 private:
  struct State;
  explicit MemoryApi(const Clock& clock);
  std::unique_ptr<State> state_;
};

}  // namespace stowage::simulate
