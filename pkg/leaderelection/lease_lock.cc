#include "pkg/leaderelection/lease_lock.h"

#include <nlohmann/json.hpp>

#include "pkg/api/encode.h"
#include "pkg/api/types.h"
#include "pkg/client/resources.h"
#include "pkg/common/mutex.h"

namespace stowage::leaderelection {
namespace {

using json = nlohmann::json;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json SpecJson(const LeaderElectionRecord& r) {
  json spec = {{"holderIdentity", r.holder_identity},
               {"leaseDurationSeconds", r.lease_duration_seconds}};
  if (r.acquire_time) spec["acquireTime"] = api::FormatTime(*r.acquire_time, /*micro=*/true);
  if (r.renew_time) spec["renewTime"] = api::FormatTime(*r.renew_time, /*micro=*/true);
  spec["leaseTransitions"] = r.leader_transitions;
  if (!r.strategy.empty()) spec["strategy"] = r.strategy;
  if (!r.preferred_holder.empty()) spec["preferredHolder"] = r.preferred_holder;
  return spec;
}

// Reads optional spec fields with their types checked, since the object comes off the network.
class SpecReader {
 public:
  explicit SpecReader(const json& spec) : spec_(spec) {}
  Status error() const { return error_; }

  void Str(const char* key, std::string& out) {
    auto it = spec_.find(key);
    if (it == spec_.end() || it->is_null()) return;
    if (!it->is_string()) return Fail(key, "is not a string");
    out = it->get_ref<const std::string&>();
  }
  void Int(const char* key, int& out) {
    auto it = spec_.find(key);
    if (it == spec_.end() || it->is_null()) return;
    if (!it->is_number_integer()) return Fail(key, "is not an integer");
    int64_t v = it->get<int64_t>();
    if (v < INT32_MIN || v > INT32_MAX) return Fail(key, "is out of the int32 range");
    out = static_cast<int>(v);
  }
  void Time(const char* key, std::optional<WallTime>& out) {
    std::string s;
    Str(key, s);
    if (s.empty()) return;
    auto t = api::ParseTime(s);
    if (!t.ok()) return Fail(key, std::string(t.status().message()));
    out = *t;
  }

 private:
  void Fail(const char* key, const std::string& what) {
    if (error_.ok()) error_ = InvalidArgumentError(std::string("spec.") + key + " " + what);
  }
  const json& spec_;
  Status error_;
};

StatusOr<LeaderElectionRecord> RecordOf(const json& lease) {
  LeaderElectionRecord r;
  auto spec = lease.find("spec");
  if (spec == lease.end() || spec->is_null()) return r;
  if (!spec->is_object()) return InvalidArgumentError("spec is not an object");
  SpecReader read(*spec);
  read.Str("holderIdentity", r.holder_identity);
  read.Int("leaseDurationSeconds", r.lease_duration_seconds);
  read.Time("acquireTime", r.acquire_time);
  read.Time("renewTime", r.renew_time);
  read.Int("leaseTransitions", r.leader_transitions);
  read.Str("strategy", r.strategy);
  read.Str("preferredHolder", r.preferred_holder);
  if (!read.error().ok()) return read.error();
  return r;
}

std::string MetaString(const json& lease, const char* key) {
  auto meta = lease.find("metadata");
  if (meta == lease.end() || !meta->is_object()) return "";
  auto it = meta->find(key);
  if (it == meta->end() || !it->is_string()) return "";
  return it->get<std::string>();
}

}  // namespace

std::string EncodeLeaseSpec(const LeaderElectionRecord& record) { return Dump(SpecJson(record)); }

StatusOr<LeaderElectionRecord> DecodeLeaseRecord(std::string_view lease_json) {
  json j = json::parse(lease_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return InvalidArgumentError("not a JSON object");
  return RecordOf(j);
}

LeaseLock::LeaseLock(client::RestClient& client, std::string lease_namespace,
                     std::string lease_name, std::string identity, CoreEventRecorder* recorder)
    : client_(client),
      namespace_(std::move(lease_namespace)),
      name_(std::move(lease_name)),
      identity_(std::move(identity)),
      recorder_(recorder) {}

StatusOr<LeaderElectionRecord> LeaseLock::Remember(const std::string& body, std::string_view verb) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](std::string_view why) {
    return InvalidArgumentError("lease " + Describe() + ": the answer to " + std::string(verb) +
                                " is not a valid Lease: " + std::string(why));
  };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  auto record = RecordOf(j);
  if (!record.ok()) return bad(record.status().message());
  ObjectReference ref{"Lease",
                      "coordination.k8s.io/v1",
                      MetaString(j, "namespace"),
                      MetaString(j, "name"),
                      MetaString(j, "uid"),
                      MetaString(j, "resourceVersion")};
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
  json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", name_}, {"namespace", namespace_}}},
                {"spec", SpecJson(record)}};
  auto body = client_.Post(client::CollectionPath<api::Lease>(namespace_), Dump(lease));
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
  // Remember only stores objects that parsed, so this parse succeeds.
  json lease = json::parse(last, nullptr, /*allow_exceptions=*/false);
  lease["spec"] = SpecJson(record);
  auto body = client_.Put(client::ObjectPath<api::Lease>(namespace_, name_), Dump(lease));
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
