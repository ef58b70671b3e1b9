// LeaseWatch: a watch on the one Lease a standby waits for, so that it sees each renewal when it
// is written rather than at its next poll. The elector counts the holder's lease from when it saw
// the record change; seen at once, the lease runs out no later than leaseDuration after the
// holder's last renewal, where polling every retryPeriod (with jitter) could see it up to 4.4 s
// late. The standby still polls, so a broken watch only costs that precision.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "pkg/client/rest_client.h"
#include "pkg/informer/shared_informer.h"
#include "pkg/leaderelection/lock.h"
#include "stowage/api/types.h"

namespace stowage::leaderelection {

class LeaseWatch {
 public:
  // Watches lease_namespace/lease_name through client once started; on_record gets the record of
  // every version seen (on the watch's thread, in order). A Lease whose spec does not parse is
  // logged and skipped: the elector's own read reports it.
  LeaseWatch(client::RestClient& client, const std::string& lease_namespace,
             const std::string& lease_name,
             std::function<void(const LeaderElectionRecord&)> on_record);
  ~LeaseWatch();

  void Start();
  // Stops the watch and waits for its thread; idempotent.
  void Stop();

 private:
  const std::string desc_;
  std::unique_ptr<informer::SharedInformer<api::Lease>> informer_;
};

}  // namespace stowage::leaderelection
