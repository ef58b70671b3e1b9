#include "pkg/leaderelection/lease_lock.h"

#include <tuple>

#include "pkg/api/decode.h"
#include "pkg/api/encode.h"
#include "pkg/client/resources.h"
#include "stowage/api/types.h"
#include "stowage/common/mutex.h"

namespace stowage::leaderelection {
namespace {

// The Lease's spec as upstream's LeaderElectionRecordToLeaseSpec fills it: holder and
// transitions always, the times when known.
api::Lease LeaseOf(const LeaderElectionRecord& r) {
  api::Lease lease;
  lease.holder_identity = r.holder_identity;
  lease.lease_duration_seconds = r.lease_duration_seconds;
  if (r.acquire_time) lease.acquire_time = api::FormatTime(*r.acquire_time, /*micro=*/true);
  if (r.renew_time) lease.renew_time = api::FormatTime(*r.renew_time, /*micro=*/true);
  lease.lease_transitions = r.leader_transitions;
  lease.strategy = r.strategy;
  lease.preferred_holder = r.preferred_holder;
  return lease;
}

}  // namespace

StatusOr<LeaderElectionRecord> LeaseRecord(const api::Lease& lease) {
  LeaderElectionRecord r;
  r.holder_identity = lease.holder_identity.value_or("");
  r.lease_duration_seconds = lease.lease_duration_seconds.value_or(0);
  r.leader_transitions = lease.lease_transitions.value_or(0);
  r.strategy = lease.strategy;
  r.preferred_holder = lease.preferred_holder;
  for (auto [key, text, out] : {std::tuple{"acquireTime", &lease.acquire_time, &r.acquire_time},
                                std::tuple{"renewTime", &lease.renew_time, &r.renew_time}}) {
    if (text->empty()) continue;
    auto t = api::ParseTime(*text);
    if (!t.ok())
      return InvalidArgumentError(std::string("spec.") + key + " " +
                                  std::string(t.status().message()));
    *out = *t;
  }
  return r;
}

StatusOr<LeaderElectionRecord> DecodeLeaseRecord(std::string_view lease_json) {
  auto lease = api::Decode<api::Lease>(lease_json);
  if (!lease.ok()) return lease.status();
  return LeaseRecord(*lease);
}

LeaseLock::LeaseLock(client::RestClient& client, std::string lease_namespace,
                     std::string lease_name, std::string identity, CoreEventRecorder* recorder)
    : client_(client),
      namespace_(std::move(lease_namespace)),
      name_(std::move(lease_name)),
      identity_(std::move(identity)),
      recorder_(recorder) {}

StatusOr<LeaderElectionRecord> LeaseLock::Remember(const std::string& body, std::string_view verb) {
  auto bad = [&](std::string_view why) {
    return InvalidArgumentError("lease " + Describe() + ": the answer to " + std::string(verb) +
                                " is not a valid Lease: " + std::string(why));
  };
  auto lease = api::Decode<api::Lease>(body);
  if (!lease.ok()) return bad(lease.status().message());
  auto record = LeaseRecord(*lease);
  if (!record.ok()) return bad(record.status().message());
  const api::ObjectMeta& meta = lease->metadata;
  ObjectReference ref{"Lease",  "coordination.k8s.io/v1", meta.namespace_, meta.name,
                      meta.uid, meta.resource_version};
  MutexLock l(mu_);
  lease_json_ = body;
  reference_ = std::move(ref);
  return record;
}

StatusOr<ResourceLock::Observed> LeaseLock::Get() {
  auto body = client_.Get(client::ObjectPath<api::Lease>(namespace_, name_));
  if (!body.ok()) return body.status();
  auto record = Remember(*body, "get");
  if (!record.ok()) return record.status();
  std::string key = RecordKey(*record);
  return Observed{std::move(*record), std::move(key)};
}

Status LeaseLock::Create(const LeaderElectionRecord& record) {
  api::Lease lease = LeaseOf(record);
  lease.metadata.name = name_;
  lease.metadata.namespace_ = namespace_;
  auto body =
      client_.Post(client::CollectionPath<api::Lease>(namespace_), api::EncodeObject(lease));
  if (!body.ok()) return body.status();
  return Remember(*body, "create").status();
}

Status LeaseLock::Update(const LeaderElectionRecord& record) {
  std::string last;
  {
    MutexLock l(mu_);
    last = lease_json_;
  }
  if (last.empty()) {
    return FailedPreconditionError("lease " + Describe() +
                                   " not initialized: Get or Create must succeed before Update");
  }
  // The new spec goes into the whole object last read, so that fields stowage does not model are
  // written back unchanged; Remember only kept objects that decoded.
  auto lease = api::OverlayObject(last, api::EncodeJson(LeaseOf(record)));
  if (!lease.ok()) {
    return InternalError("lease " + Describe() + ": the kept object no longer parses: " +
                         std::string(lease.status().message()));
  }
  auto body = client_.Put(client::ObjectPath<api::Lease>(namespace_, name_), *lease);
  if (!body.ok()) return body.status();
  return Remember(*body, "update").status();
}

void LeaseLock::RecordEvent(std::string_view message) {
  if (recorder_ == nullptr) return;
  ObjectReference ref;
  {
    MutexLock l(mu_);
    ref = reference_;
  }
  // Before any read the reference is empty; upstream would not get here either (it records only
  // after acquiring), but name the lease anyway rather than post an event about nothing.
  if (ref.name.empty()) ref = {"Lease", "coordination.k8s.io/v1", namespace_, name_, "", ""};
  recorder_->Event(ref, "Normal", "LeaderElection", identity_ + " " + std::string(message));
}

}  // namespace stowage::leaderelection
