// LeaseLock: a leader election held on a coordination.k8s.io/v1 Lease (client-go's
// resourcelock.LeaseLock). The record lives in the Lease spec: holderIdentity,
// leaseDurationSeconds, acquireTime and renewTime (MicroTime), leaseTransitions.
//
// Update writes over the Lease exactly as last read or written: the whole object goes back with
// only its spec replaced, so labels, annotations and owners someone else put there survive, and
// the resourceVersion makes the write fail with Conflict if the Lease changed meanwhile.
// Thread-safe (the remembered object is guarded by a mutex; requests run outside it).
#pragma once

#include <string>

#include "pkg/client/rest_client.h"
#include "pkg/leaderelection/core_event_recorder.h"
#include "pkg/leaderelection/lock.h"
#include "stowage/api/types.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::leaderelection {

class LeaseLock : public ResourceLock {
 public:
  // recorder may be null (no events); it must outlive the lock.
  LeaseLock(client::RestClient& client, std::string lease_namespace, std::string lease_name,
            std::string identity, CoreEventRecorder* recorder);

  StatusOr<Observed> Get() override;
  Status Create(const LeaderElectionRecord& record) override;
  Status Update(const LeaderElectionRecord& record) override;
  void RecordEvent(std::string_view message) override;
  std::string Identity() const override { return identity_; }
  std::string Describe() const override { return namespace_ + "/" + name_; }

 private:
  // Parses a Lease returned by the server and remembers it; the record of its spec.
  StatusOr<LeaderElectionRecord> Remember(const std::string& body, std::string_view verb);

  client::RestClient& client_;
  const std::string namespace_;
  const std::string name_;
  const std::string identity_;
  CoreEventRecorder* const recorder_;
  mutable Mutex mu_;
  std::string lease_json_ GUARDED_BY(mu_);  // the Lease as last read or written; empty before
  ObjectReference reference_ GUARDED_BY(mu_);
};

// The record held in a Lease (JSON text of the whole object); errors name the bad field.
StatusOr<LeaderElectionRecord> DecodeLeaseRecord(std::string_view lease_json);
// The record held in a decoded Lease (the decoder has checked the fields' types; the times are
// parsed here).
StatusOr<LeaderElectionRecord> LeaseRecord(const api::Lease& lease);

}  // namespace stowage::leaderelection
