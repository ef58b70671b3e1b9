#include "pkg/scheduler/resource_metrics.h"

#include <prometheus/metric_family.h>

#include <map>

#include "pkg/client/rest_client.h"
#include "pkg/metrics/component.h"
#include "pkg/metrics/families.h"
#include "pkg/metrics/text_format.h"
#include "pkg/scheduler/scheduler.h"

namespace stowage::scheduler {
namespace {

// A resource list in exact nano-units, by name (component-helpers' v1.ResourceList arithmetic).
using Amounts = std::map<std::string, __int128, std::less<>>;

void AddList(Amounts& to, const api::ResourceList& list) {
  for (const auto& [name, q] : list.entries()) to[name] += q.Nanos();
}
void AddAmounts(Amounts& to, const Amounts& from) {
  for (const auto& [name, v] : from) to[name] += v;
}
void MaxAmounts(Amounts& to, const Amounts& from) {
  for (const auto& [name, v] : from) {
    auto it = to.find(name);
    if (it == to.end() || v > it->second) to[name] = v;
  }
}

bool IsSupportedPodLevel(std::string_view name) {
  return name == "cpu" || name == "memory" || name.starts_with("hugepages-");
}
bool HasSupported(const api::ResourceList& list) {
  for (const auto& [name, q] : list.entries()) {
    if (IsSupportedPodLevel(name)) return true;
  }
  return false;
}

// AggregateContainerRequests / AggregateContainerLimits: containers and sidecars run together,
// each init container runs with the sidecars declared before it, the pod needs the largest.
Amounts Aggregate(const api::Pod& pod, bool limits) {
  auto of = [&](const api::Container& c) -> const api::ResourceList& {
    return limits ? c.resources.limits : c.resources.requests;
  };
  Amounts total;
  for (const auto& c : pod.spec.containers) AddList(total, of(c));
  Amounts sidecars, init;
  for (const auto& c : pod.spec.init_containers) {
    Amounts phase;
    if (c.restart_policy && *c.restart_policy == "Always") {
      AddList(total, of(c));
      AddList(sidecars, of(c));
      phase = sidecars;
    } else {
      AddList(phase, of(c));
      AddAmounts(phase, sidecars);
    }
    MaxAmounts(init, phase);
  }
  MaxAmounts(total, init);
  return total;
}

// resourcehelper.PodRequests with default options.
Amounts PodRequests(const api::Pod& pod) {
  Amounts reqs = Aggregate(pod, false);
  if (pod.spec.resources && HasSupported(pod.spec.resources->requests)) {
    for (const auto& [name, q] : pod.spec.resources->requests.entries()) {
      if (IsSupportedPodLevel(name)) reqs[name] = q.Nanos();
    }
  }
  AddList(reqs, pod.spec.overhead);
  return reqs;
}

// resourcehelper.PodLimits with default options: overhead only adds to non-zero limits.
Amounts PodLimits(const api::Pod& pod) {
  Amounts limits = Aggregate(pod, true);
  if (pod.spec.resources &&
      (HasSupported(pod.spec.resources->requests) || HasSupported(pod.spec.resources->limits))) {
    for (const auto& [name, q] : pod.spec.resources->limits.entries()) {
      if (IsSupportedPodLevel(name)) limits[name] = q.Nanos();
    }
  }
  for (const auto& [name, q] : pod.spec.overhead.entries()) {
    auto it = limits.find(name);
    if (it != limits.end() && it->second != 0) it->second += q.Nanos();
  }
  return limits;
}

std::string_view UnitOf(std::string_view resource) {
  if (resource == "cpu") return "cores";
  if (resource == "memory" || resource == "storage" || resource == "ephemeral-storage" ||
      resource.starts_with("hugepages-")) {
    return "bytes";
  }
  if (resource.starts_with("attachable-volumes-")) return "integer";
  return "";
}

void AppendSeries(prometheus::MetricFamily& family, const api::Pod& pod, const Amounts& amounts) {
  std::string priority = pod.spec.priority ? std::to_string(*pod.spec.priority) : "";
  for (const auto& [resource, nanos] : amounts) {
    if (nanos == 0) continue;
    prometheus::ClientMetric m;
    // Sorted by label name, as the text writer expects.
    m.label = {{"namespace", pod.metadata.namespace_},
               {"node", pod.spec.node_name},
               {"pod", pod.metadata.name},
               {"priority", priority},
               {"resource", resource},
               {"scheduler", pod.spec.scheduler_name},
               {"unit", std::string(UnitOf(resource))}};
    m.gauge.value = static_cast<double>(nanos) / 1e9;
    family.metric.push_back(std::move(m));
  }
}

prometheus::MetricFamily Family(const metrics::FamilyDesc& d) {
  return prometheus::MetricFamily{d.name, d.ExposedHelp(), prometheus::MetricType::Gauge, {}};
}

void ObserveApiRequest(const client::RequestObservation& o) {
  metrics::RestRequest r;
  r.verb = o.verb;
  r.host = o.host;
  r.code = o.code;
  r.latency_seconds = std::chrono::duration<double>(o.latency).count();
  r.rate_limiter_seconds = std::chrono::duration<double>(o.rate_limiter_wait).count();
  r.request_bytes = static_cast<long long>(o.request_bytes);
  r.response_bytes = o.has_response_bytes ? static_cast<long long>(o.response_bytes) : -1;
  r.retry = o.will_retry;
  metrics::ObserveRestRequest(r);
}

}  // namespace

std::string RenderPodResourceMetrics(const std::vector<api::PodPtr>& pods) {
  prometheus::MetricFamily requests = Family(metrics::families::PodResourceRequest());
  prometheus::MetricFamily limits = Family(metrics::families::PodResourceLimit());
  for (const auto& p : pods) {
    // Terminal pods hold nothing; an unscheduled pod is never terminal for this purpose.
    if (!p->spec.node_name.empty() &&
        (p->status.phase == "Succeeded" || p->status.phase == "Failed")) {
      continue;
    }
    AppendSeries(requests, *p, PodRequests(*p));
    AppendSeries(limits, *p, PodLimits(*p));
  }
  return metrics::WriteTextFormat({std::move(requests), std::move(limits)});
}

std::string RenderPodResourceMetrics(const Scheduler& scheduler) {
  return RenderPodResourceMetrics(scheduler.ListPods());
}

void InstallApiClientMetrics() {
  metrics::RegisterComponentMetrics();
  client::SetRequestObserver(&ObserveApiRequest);
}

}  // namespace stowage::scheduler
