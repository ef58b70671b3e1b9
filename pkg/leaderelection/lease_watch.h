// LeaseWatch: a watch on the one Lease a standby waits for, so that it sees each renewal when it
// is written rather than at its next poll. The elector counts the holder's lease from when it saw
// the record change; seen at once, the lease runs out no later than leaseDuration after the
// holder's last renewal, where polling every retryPeriod (with jitter) could see it up to 4.4 s
// late. The standby still polls, so a broken watch only costs that precision.
//
// Watching needs list and watch on the Lease (a field selector on its name, so RBAC's
// resourceNames apply). kube-scheduler's ClusterRole system:kube-scheduler grants only get and
// update: under it the first list is refused, the watch says so once and stops, and the standby
// polls as kube-scheduler's does.
#pragma once

#include <atomic>
#include <functional>
#include <stop_token>
#include <string>
#include <thread>

#include "pkg/client/rest_client.h"
#include "pkg/leaderelection/lock.h"
#include "stowage/api/types.h"

namespace stowage::leaderelection {

class LeaseWatch {
 public:
  // Watches lease_namespace/lease_name through client once started; on_record gets the record of
  // every version seen (on the watch's thread, in order). A Lease whose spec does not parse is
  // skipped: the elector's own read reports it.
  LeaseWatch(client::RestClient& client, std::string lease_namespace, std::string lease_name,
             std::function<void(const LeaderElectionRecord&)> on_record);
  ~LeaseWatch() { Stop(); }

  void Start();
  // Stops the watch and waits for its thread; idempotent.
  void Stop();
  // Whether the apiserver refused to let this client list or watch the Lease, which ended the
  // watch for good.
  bool refused() const { return refused_.load(); }

 private:
  void Run(std::stop_token stop);
  // Lists the Lease (delivering it) and watches from the list's version until the watch ends;
  // the error that ended it, OK when the server closed it normally.
  Status ListAndWatch(std::stop_token stop);
  void Deliver(const api::Lease& lease);

  client::RestClient& client_;
  const std::string namespace_;
  const std::string name_;
  const std::function<void(const LeaderElectionRecord&)> on_record_;
  std::string resource_version_;  // the watch thread's
  std::atomic<bool> refused_{false};
  std::jthread thread_;
};

}  // namespace stowage::leaderelection
