#include "pkg/api/encode.h"
#include "pkg/leaderelection/lock.h"

namespace stowage::leaderelection {
namespace {

// metav1.Time marshals at second precision, and a zero time as null.
std::string TimeJson(const std::optional<WallTime>& t) {
  if (!t) return "null";
  return "\"" + api::FormatTime(*t, /*micro=*/false) + "\"";
}

}  // namespace

std::string RecordKey(const LeaderElectionRecord& r) {
  std::string out = "{\"holderIdentity\":" + api::JsonQuote(r.holder_identity);
  out += ",\"leaseDurationSeconds\":" + std::to_string(r.lease_duration_seconds);
  out += ",\"acquireTime\":" + TimeJson(r.acquire_time);
  out += ",\"renewTime\":" + TimeJson(r.renew_time);
  out += ",\"leaderTransitions\":" + std::to_string(r.leader_transitions);
  out += ",\"strategy\":" + api::JsonQuote(r.strategy);
  out += ",\"preferredHolder\":" + api::JsonQuote(r.preferred_holder) + "}";
  return out;
}

}  // namespace stowage::leaderelection
