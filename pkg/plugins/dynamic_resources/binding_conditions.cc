#include "pkg/plugins/dynamic_resources/binding_conditions.h"

#include <algorithm>

#include "pkg/common/go_quote.h"
#include "pkg/plugins/dynamic_resources/claims.h"
#include "pkg/plugins/dynamic_resources/dynamic_resources.h"
#include "stowage/api/time_format.h"

namespace stowage::plugins::dynamic_resources {
namespace {

// The driver's status of the allocated device r, or null.
const api::AllocatedDeviceStatus* DeviceStatus(const api::ResourceClaim& claim,
                                               const api::DeviceRequestAllocationResult& r) {
  for (const api::AllocatedDeviceStatus& d : claim.device_status) {
    if (d.device == r.device && d.driver == r.driver && d.pool == r.pool) return &d;
  }
  return nullptr;
}

const api::StatusCondition* Find(const api::AllocatedDeviceStatus& d, const std::string& type) {
  for (const api::StatusCondition& c : d.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool IsTrue(const api::AllocatedDeviceStatus& d, const std::string& type) {
  const api::StatusCondition* c = Find(d, type);
  return c != nullptr && c->status == "True";
}

}  // namespace

StatusOr<bool> ReadyForBinding(const api::ResourceClaim& claim) {
  if (!claim.allocation) return false;
  for (const api::DeviceRequestAllocationResult& r : claim.allocation->results) {
    if (r.binding_conditions.empty()) continue;
    const api::AllocatedDeviceStatus* status = DeviceStatus(claim, r);
    if (status == nullptr) return false;
    for (const std::string& type : r.binding_failure_conditions) {
      const api::StatusCondition* c = Find(*status, type);
      if (c != nullptr && c->status == "True") {
        return FailedPreconditionError("device binding failed: claim=" + claim.metadata.name +
                                       ", reason=" + c->reason +
                                       ", message=" + GoQuote(c->message));
      }
    }
    for (const std::string& type : r.binding_conditions) {
      if (!IsTrue(*status, type)) return false;
    }
  }
  return true;
}

bool BindingTimedOut(const api::ResourceClaim& claim, std::chrono::nanoseconds timeout,
                     WallTime now) {
  if (!claim.allocation || !claim.allocation->allocation_timestamp) return false;
  auto allocated = api::ParseTime(*claim.allocation->allocation_timestamp);
  if (!allocated.ok()) return false;
  for (const api::DeviceRequestAllocationResult& r : claim.allocation->results) {
    if (!r.binding_conditions.empty() && *allocated + timeout < now) return true;
  }
  return false;
}

bool HasBindingConditions(const std::vector<dra::ResourceClaimPtr>& claims) {
  for (const dra::ResourceClaimPtr& c : claims) {
    if (!c->allocation) continue;
    for (const api::DeviceRequestAllocationResult& r : c->allocation->results) {
      if (!r.binding_conditions.empty()) return true;
    }
  }
  return false;
}

std::vector<BindingConditionsStatus> ListBindingConditions(const api::ResourceClaim& claim) {
  std::vector<BindingConditionsStatus> out;
  if (!claim.allocation) return out;
  for (const api::DeviceRequestAllocationResult& r : claim.allocation->results) {
    if (r.binding_conditions.empty()) continue;
    BindingConditionsStatus s{.driver = r.driver, .pool = r.pool, .device = r.device};
    const api::AllocatedDeviceStatus* status = DeviceStatus(claim, r);
    if (status == nullptr) {
      s.pending = r.binding_conditions;  // no status yet: all pending
    } else {
      for (const std::string& type : r.binding_failure_conditions) {
        if (IsTrue(*status, type)) s.failed.push_back(type);
      }
      for (const std::string& type : r.binding_conditions) {
        if (!IsTrue(*status, type)) s.pending.push_back(type);
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

framework::Status DynamicResources::WaitForBindingConditions(
    std::vector<dra::ResourceClaimPtr>& claims, const api::Pod& pod, std::string_view node) {
  handle_.RecordEvent(
      pod, pod.spec.scheduler_name, "Normal", "BindingConditionsPending", "Scheduling",
      "waiting for binding conditions for device on node " + std::string(node), nullptr);
  const MonoTime start = clock_.Now();
  const MonoTime deadline = start + binding_timeout_;
  // Ready once every claim, as the informer now has it, is ready; polled every 5 s, as upstream.
  auto ready = [&]() -> StatusOr<bool> {
    for (dra::ResourceClaimPtr& claim : claims) {
      dra::ResourceClaimPtr latest = tracker_.Get(claim->metadata.namespace_, claim->metadata.name);
      if (latest == nullptr) return NotFoundError(KObj(claim->metadata) + ": not found");
      claim = latest;
      auto r = ReadyForBinding(*claim);
      if (!r.ok() || *r) {
        if (!r.ok()) return r.status();
        continue;
      }
      if (BindingTimedOut(*claim, binding_timeout_, clock_.WallNow())) {
        return DeadlineExceededError("device binding timeout: claim=" + claim->metadata.name);
      }
      return false;
    }
    return true;
  };
  Status outcome;
  for (;;) {
    auto r = ready();
    if (!r.ok()) {
      outcome = r.status();
      break;
    }
    if (*r) break;
    const MonoTime now = clock_.Now();
    if (now >= deadline) {
      outcome = DeadlineExceededError("device binding timeout: context deadline exceeded");
      break;
    }
    clock_.Sleep(std::min<std::chrono::nanoseconds>(std::chrono::seconds(5), deadline - now));
  }
  const double seconds = std::chrono::duration<double>(clock_.Now() - start).count();
  std::string_view label = "success";
  if (outcome.code() == StatusCode::kDeadlineExceeded) {
    label = "timeout";
  } else if (outcome.code() == StatusCode::kFailedPrecondition) {
    label = "failed";
  } else if (!outcome.ok()) {
    label = "error";
  }
  framework::DraMetrics& m = handle_.dra_metrics();
  const std::string& profile = pod.spec.scheduler_name;
  for (const dra::ResourceClaimPtr& claim : claims) {
    if (!claim->allocation) continue;
    for (const api::DeviceRequestAllocationResult& r : claim->allocation->results) {
      m.BindingConditions(profile, r.driver, label, seconds);
    }
    for (const BindingConditionsStatus& s : ListBindingConditions(*claim)) {
      m.BindingConditions(profile, s.driver, label, std::nullopt);
    }
  }
  if (!outcome.ok()) return framework::Status::Error(std::string(outcome.message()));
  return {};
}

}  // namespace stowage::plugins::dynamic_resources
