#include "stowage/framework/types.h"

#include <algorithm>
#include <atomic>

namespace stowage::framework {

namespace {
auto ScalarLess = [](const std::pair<std::string, int64_t>& e, std::string_view n) {
  return e.first < n;
};
}  // namespace

bool IsScalarResourceName(std::string_view name) {
  return name.find('/') != std::string_view::npos || name.starts_with("hugepages-") ||
         name.starts_with("attachable-volumes-");
}

bool IsExtendedResourceName(std::string_view name) {
  if (name.find('/') == std::string_view::npos) return false;
  if (name.find("kubernetes.io/") != std::string_view::npos) return false;
  return !name.starts_with("requests.");
}

bool IsDRAExtendedResourceName(std::string_view name) {
  return IsExtendedResourceName(name) || name.starts_with(api::kDeviceClassResourcePrefix);
}

Resource Resource::FromList(const api::ResourceList& list) {
  Resource r;
  for (const auto& [name, q] : list.entries()) {
    if (name == "cpu") {
      r.milli_cpu += q.MilliValue();
    } else if (name == "memory") {
      r.memory += q.Value();
    } else if (name == "ephemeral-storage") {
      r.ephemeral_storage += q.Value();
    } else if (name == "pods") {
      r.allowed_pod_number += q.Value();
    } else if (IsScalarResourceName(name)) {
      r.SetScalar(name, r.Scalar(name) + q.Value());
    }
  }
  return r;
}

int64_t Resource::Scalar(std::string_view name) const {
  auto it = std::lower_bound(scalar.begin(), scalar.end(), name, ScalarLess);
  return it != scalar.end() && it->first == name ? it->second : 0;
}

void Resource::SetScalar(std::string_view name, int64_t value) {
  auto it = std::lower_bound(scalar.begin(), scalar.end(), name, ScalarLess);
  if (it != scalar.end() && it->first == name) {
    it->second = value;
  } else {
    scalar.insert(it, {std::string(name), value});
  }
}

void Resource::Add(const Resource& o) {
  milli_cpu += o.milli_cpu;
  memory += o.memory;
  ephemeral_storage += o.ephemeral_storage;
  allowed_pod_number += o.allowed_pod_number;
  for (const auto& [n, v] : o.scalar) SetScalar(n, Scalar(n) + v);
}

void Resource::Sub(const Resource& o) {
  milli_cpu -= o.milli_cpu;
  memory -= o.memory;
  ephemeral_storage -= o.ephemeral_storage;
  allowed_pod_number -= o.allowed_pod_number;
  for (const auto& [n, v] : o.scalar) SetScalar(n, Scalar(n) - v);
}

void Resource::SetMax(const Resource& o) {
  milli_cpu = std::max(milli_cpu, o.milli_cpu);
  memory = std::max(memory, o.memory);
  ephemeral_storage = std::max(ephemeral_storage, o.ephemeral_storage);
  allowed_pod_number = std::max(allowed_pod_number, o.allowed_pod_number);
  for (const auto& [n, v] : o.scalar) SetScalar(n, std::max(Scalar(n), v));
}

bool Resource::IsZero() const {
  if (milli_cpu || memory || ephemeral_storage || allowed_pod_number) return false;
  for (const auto& [n, v] : scalar) {
    if (v) return false;
  }
  return true;
}

void HostPortInfo::Add(const HostPort& p) {
  // A set, as upstream's: the same ip/protocol/port twice is one entry.
  if (std::find(ports_.begin(), ports_.end(), p) == ports_.end()) ports_.push_back(p);
}

void HostPortInfo::Remove(const HostPort& p) {
  auto it = std::find(ports_.begin(), ports_.end(), p);
  if (it != ports_.end()) ports_.erase(it);
}

bool HostPortInfo::CheckConflict(const HostPort& p) const {
  constexpr std::string_view kAny = "0.0.0.0";
  for (const auto& u : ports_) {
    if (u.port != p.port || u.protocol != p.protocol) continue;
    if (u.ip == p.ip || u.ip == kAny || p.ip == kAny) return true;
  }
  return false;
}

std::vector<HostPort> PodHostPorts(const api::Pod& pod) {
  std::vector<HostPort> out;
  auto collect = [&](const std::vector<api::Container>& cs, bool sidecars_only) {
    for (const auto& c : cs) {
      // An ordinary init container has exited before the pod runs: its ports are free again.
      if (sidecars_only && c.restart_policy != "Always") continue;
      for (const auto& p : c.ports) {
        if (p.host_port <= 0) continue;
        out.push_back({p.host_ip.empty() ? "0.0.0.0" : p.host_ip,
                       p.protocol.empty() ? "TCP" : p.protocol, p.host_port});
      }
    }
  };
  collect(pod.spec.init_containers, true);
  collect(pod.spec.containers, false);
  return out;
}

namespace {

// Whether the pod's aggregated request list (resourcehelper.PodRequests) would hold the
// resource at all, even as zero: some container, the pod level or the overhead names it.
bool RequestListHas(const api::Pod& pod, std::string_view name) {
  auto in = [name](const std::vector<api::Container>& cs) {
    return std::any_of(cs.begin(), cs.end(),
                       [name](const api::Container& c) { return c.resources.requests.Get(name); });
  };
  // The status lists feed the aggregate too (max over spec, allocated and actuated).
  auto in_status = [name](const std::vector<api::ContainerStatus>& css) {
    return std::any_of(css.begin(), css.end(), [name](const api::ContainerStatus& cs) {
      return (cs.allocated_resources && cs.allocated_resources->Get(name)) ||
             (cs.resources && cs.resources->requests && cs.resources->requests->Get(name));
    });
  };
  const api::PodStatus& st = pod.status;
  return in(pod.spec.containers) || in(pod.spec.init_containers) ||
         (pod.spec.resources && pod.spec.resources->requests.Get(name)) ||
         pod.spec.overhead.Get(name) || in_status(st.container_statuses) ||
         in_status(st.init_container_statuses) ||
         (st.allocated_resources && st.allocated_resources->Get(name)) ||
         (st.resources && st.resources->requests && st.resources->requests->Get(name));
}
}  // namespace

bool AffinityTerm::Matches(const api::Pod& pod, const api::StringMap& ns_labels) const {
  // Most terms name one namespace (the pod's own): equality checks the lengths before the
  // bytes, where the search compares the bytes twice.
  const bool listed =
      namespaces.size() == 1
          ? namespaces[0] == pod.metadata.namespace_
          : std::binary_search(namespaces.begin(), namespaces.end(), pod.metadata.namespace_);
  if (listed || namespace_selector.Matches(ns_labels)) {
    return selector.Matches(pod.metadata.labels);
  }
  return false;
}

namespace {

StatusOr<AffinityTerm> CompileTerm(const api::Pod& pod, const api::PodAffinityTerm& t) {
  AffinityTerm term;
  StatusOr<api::Selector> selector =
      api::Selector::FromLabelSelector(t.label_selector ? &*t.label_selector : nullptr);
  if (!selector.ok()) return selector.status();
  term.selector = std::move(selector).value();
  if (t.namespaces.empty() && !t.namespace_selector) {
    term.namespaces.push_back(pod.metadata.namespace_);
  } else {
    term.namespaces = t.namespaces;
    std::sort(term.namespaces.begin(), term.namespaces.end());
    term.namespaces.erase(std::unique(term.namespaces.begin(), term.namespaces.end()),
                          term.namespaces.end());
  }
  StatusOr<api::Selector> ns_selector =
      api::Selector::FromLabelSelector(t.namespace_selector ? &*t.namespace_selector : nullptr);
  if (!ns_selector.ok()) return ns_selector.status();
  term.namespace_selector = std::move(ns_selector).value();
  term.topology_key = t.topology_key;
  return term;
}

// Compiles one kind of terms; on an error the kind stays empty and the error is recorded.
template <typename In, typename Out, typename Convert>
void CompileKind(const std::vector<In>& in, std::string_view kind, Convert convert,
                 std::vector<Out>& out, std::string& errors) {
  for (const In& t : in) {
    StatusOr<Out> term = convert(t);
    if (!term.ok()) {
      out.clear();
      if (!errors.empty()) errors += ", ";
      errors += std::string(kind) + ": " + std::string(term.status().message());
      return;
    }
    out.push_back(std::move(term).value());
  }
}

}  // namespace

PodAffinityTerms CompileAffinityTerms(const api::Pod& pod) {
  PodAffinityTerms out;
  const auto& affinity = pod.spec.affinity;
  if (!affinity) return out;
  auto required = [&pod](const api::PodAffinityTerm& t) { return CompileTerm(pod, t); };
  auto preferred = [&pod](const api::WeightedPodAffinityTerm& t) -> StatusOr<WeightedAffinityTerm> {
    StatusOr<AffinityTerm> term = CompileTerm(pod, t.term);
    if (!term.ok()) return term.status();
    return WeightedAffinityTerm{std::move(term).value(), t.weight};
  };
  if (const auto& a = affinity->pod_affinity) {
    CompileKind(a->required, "requiredAffinityTerms", required, out.required_affinity,
                out.parse_error);
  }
  if (const auto& a = affinity->pod_anti_affinity) {
    CompileKind(a->required, "requiredAntiAffinityTerms", required, out.required_anti_affinity,
                out.parse_error);
  }
  if (const auto& a = affinity->pod_affinity) {
    CompileKind(a->preferred, "preferredAffinityTerms", preferred, out.preferred_affinity,
                out.parse_error);
  }
  if (const auto& a = affinity->pod_anti_affinity) {
    CompileKind(a->preferred, "preferredAntiAffinityTerms", preferred, out.preferred_anti_affinity,
                out.parse_error);
  }
  return out;
}

const PodAffinityTerms& PodInfo::affinity() const {
  static const PodAffinityTerms* empty = new PodAffinityTerms();
  return affinity_terms ? *affinity_terms : *empty;
}

PodInfoPtr NewPodInfo(api::PodPtr pod) {
  auto info = std::make_shared<PodInfo>();
  info->requests = ComputePodRequests(*pod);
  Resource non0 = ComputePodRequests(*pod, true);
  info->non0_cpu = non0.milli_cpu;
  info->non0_mem = non0.memory;
  // Upstream's PodInfo.CalculateResource (getNonMissingContainerRequests): when pod-level
  // requests are set, the 100m / 200Mi defaults fill in only a resource that neither a container,
  // the pod level nor the overhead names; otherwise the actual request stands.
  const bool pod_level_set =
      pod->spec.resources && std::any_of(pod->spec.resources->requests.entries().begin(),
                                         pod->spec.resources->requests.entries().end(),
                                         [](const auto& e) { return IsPodLevelResource(e.first); });
  if (pod_level_set) {
    if (RequestListHas(*pod, "cpu")) info->non0_cpu = info->requests.milli_cpu;
    if (RequestListHas(*pod, "memory")) info->non0_mem = info->requests.memory;
  }
  info->host_ports = PodHostPorts(*pod);
  for (const api::Volume& v : pod->spec.volumes) {
    if (v.source == "persistentVolumeClaim") {
      info->pvc_keys.push_back(pod->metadata.namespace_ + "/" + v.claim_name);
    }
  }
  if (const auto& a = pod->spec.affinity) {
    info->has_affinity = a->pod_affinity.has_value() || a->pod_anti_affinity.has_value();
    info->has_required_anti_affinity =
        a->pod_anti_affinity.has_value() && !a->pod_anti_affinity->required.empty();
    if (info->has_affinity) {
      info->affinity_terms = std::make_shared<const PodAffinityTerms>(CompileAffinityTerms(*pod));
    }
  }
  info->pod = std::move(pod);
  return info;
}

int64_t NextGeneration() {
  static std::atomic<int64_t> generation{0};
  return generation.fetch_add(1, std::memory_order_relaxed) + 1;
}

NodeInfo::NodeInfo(const NodeInfo& other)
    : node_(other.node_),
      pods_(other.pods_),
      requested_(other.requested_),
      non_zero_requested_(other.non_zero_requested_),
      allocatable_(other.allocatable_),
      rare_(other.rare_ ? std::make_unique<Rare>(*other.rare_) : nullptr),
      generation_(other.generation_) {}

NodeInfo& NodeInfo::operator=(const NodeInfo& other) {
  if (this == &other) return *this;
  node_ = other.node_;
  pods_ = other.pods_;
  requested_ = other.requested_;
  non_zero_requested_ = other.non_zero_requested_;
  allocatable_ = other.allocatable_;
  if (!other.rare_) {
    rare_.reset();
  } else if (rare_) {
    *rare_ = *other.rare_;  // reuses the vectors' and maps' storage
  } else {
    rare_ = std::make_unique<Rare>(*other.rare_);
  }
  generation_ = other.generation_;
  return *this;
}

bool NodeInfo::Rare::empty() const {
  return pods_with_affinity.empty() && pods_with_required_anti_affinity.empty() &&
         used_ports.size() == 0 && image_states.empty() && pvc_ref_counts.empty();
}

const NodeInfo::Rare& NodeInfo::NoRare() {
  static const Rare* none = new Rare();
  return *none;
}

NodeInfo::Rare& NodeInfo::mutable_rare() {
  if (!rare_) rare_ = std::make_unique<Rare>();
  return *rare_;
}

void NodeInfo::DropEmptyRare() {
  if (rare_ && rare_->empty()) rare_.reset();
}

const std::string& NodeInfo::EmptyName() {
  static const std::string* empty = new std::string();
  return *empty;
}

void NodeInfo::SetNode(api::NodePtr node) {
  allocatable_ = Resource::FromList(node->status.allocatable);
  node_ = std::move(node);
  generation_ = NextGeneration();
}

void NodeInfo::RemoveNode() {
  node_.reset();
  generation_ = NextGeneration();
}

void NodeInfo::Account(const PodInfo& p, int sign) {
  if (sign > 0) {
    requested_.Add(p.requests);
  } else {
    requested_.Sub(p.requests);
  }
  non_zero_requested_.milli_cpu += sign * p.non0_cpu;
  non_zero_requested_.memory += sign * p.non0_mem;
  for (const auto& hp : p.host_ports) {
    if (sign > 0) {
      mutable_rare().used_ports.Add(hp);
    } else {
      mutable_rare().used_ports.Remove(hp);
    }
  }
  for (const std::string& key : p.pvc_keys) {
    auto& counts = mutable_rare().pvc_ref_counts;
    if (sign > 0) {
      ++counts[key];
    } else if (auto it = counts.find(key); it != counts.end() && --it->second <= 0) {
      counts.erase(it);
    }
  }
  generation_ = NextGeneration();
}

void NodeInfo::AddPodInfo(PodInfoPtr pod) {
  Account(*pod, +1);
  if (pod->has_affinity) mutable_rare().pods_with_affinity.push_back(pod);
  if (pod->has_required_anti_affinity) {
    mutable_rare().pods_with_required_anti_affinity.push_back(pod);
  }
  pods_.push_back(std::move(pod));
}

namespace {
bool SamePod(const api::Pod& a, const api::Pod& b) {
  if (!a.metadata.uid.empty() && !b.metadata.uid.empty()) return a.metadata.uid == b.metadata.uid;
  return a.metadata.namespace_ == b.metadata.namespace_ && a.metadata.name == b.metadata.name;
}

// Removes by swapping with the last element, as upstream does (order is not preserved).
bool RemoveFrom(std::vector<PodInfoPtr>& v, const api::Pod& pod) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (SamePod(*v[i]->pod, pod)) {
      v[i] = std::move(v.back());
      v.pop_back();
      return true;
    }
  }
  return false;
}
}  // namespace

bool NodeInfo::RemovePod(const api::Pod& pod) {
  for (size_t i = 0; i < pods_.size(); ++i) {
    if (!SamePod(*pods_[i]->pod, pod)) continue;
    PodInfoPtr p = pods_[i];
    pods_[i] = std::move(pods_.back());
    pods_.pop_back();
    if (p->has_affinity || p->has_required_anti_affinity) {
      RemoveFrom(mutable_rare().pods_with_affinity, pod);
      RemoveFrom(mutable_rare().pods_with_required_anti_affinity, pod);
    }
    Account(*p, -1);
    DropEmptyRare();
    return true;
  }
  return false;
}

void NodeInfo::SetImageStates(std::unordered_map<std::string, ImageStateSummary> states) {
  if (!states.empty() || rare_) mutable_rare().image_states = std::move(states);
  DropEmptyRare();
  generation_ = NextGeneration();
}

}  // namespace stowage::framework
