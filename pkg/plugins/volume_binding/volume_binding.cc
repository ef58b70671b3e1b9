#include "pkg/plugins/volume_binding/volume_binding.h"

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/plugins/volume_binding/claims.h"
#include "stowage/common/mutex.h"
#include "stowage/plugin_config/args.h"
#include "stowage/plugins/helper/shape_score.h"

namespace stowage::plugins::volume_binding {
namespace {

// One cycle's decisions, shared by the clones of the cycle state as upstream's stateData is:
// Filter runs on many nodes at once and preemption's clones must see what Reserve decides.
struct Decisions {
  bool has_claims = false;
  PodVolumeClaims claims;
  Mutex mu;
  std::unordered_map<std::string, PodVolumes> by_node GUARDED_BY(mu);
  bool all_bound = false;  // set by Reserve, read by the binding cycle after it
};

struct State final : framework::StateData {
  std::shared_ptr<Decisions> d = std::make_shared<Decisions>();
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<State>(*this);
  }
};

Decisions* Read(const framework::CycleState& state, framework::Status& error) {
  const auto* s = state.Read<State>(kStateKey);
  if (s == nullptr) {
    error = framework::Status::Error("reading \"" + std::string(kStateKey) +
                                     "\" from cycleState: not found");
    return nullptr;
  }
  return s->d.get();
}

constexpr int64_t kMaxUtilization = 100;
constexpr int64_t kMaxCustomPriorityScore = 10;

}  // namespace

VolumeBinding::VolumeBinding(framework::Handle& handle, Binder::Options options, Scorer scorer,
                             bool capacity_scoring)
    : claims_(handle.persistent_volume_claims()),
      classes_(handle.storage_classes()),
      binder_(handle, std::move(options)),
      scorer_(std::move(scorer)),
      capacity_scoring_(capacity_scoring) {}

framework::Status VolumeBinding::PreFilter(framework::CycleState& state,
                                           const framework::PodInfo& pod,
                                           const std::vector<const framework::NodeInfo*>&,
                                           framework::PreFilterResult&) {
  ClaimsOrReason sorted = SortPodClaims(*pod, claims_, binder_.claims(), classes_);
  if (sorted.unschedulable) return framework::Status::Unresolvable(*sorted.unschedulable);
  auto s = std::make_unique<State>();
  if (!sorted.claims.has_claims) {
    state.Write(kStateKey, std::move(s));
    return framework::Status::Skip();
  }
  if (sorted.error) return framework::Status::Error(*sorted.error);
  if (!sorted.claims.unbound_immediate.empty()) {
    return framework::Status::Unresolvable(std::string(kErrUnboundImmediate));
  }
  s->d->has_claims = true;
  s->d->claims = binder_.Resolve(sorted.claims);
  state.Write(kStateKey, std::move(s));
  return {};
}

framework::Status VolumeBinding::Filter(const framework::CycleState& state,
                                        const framework::PodInfo&,
                                        const framework::NodeInfo& node) {
  framework::Status error;
  Decisions* d = Read(state, error);
  if (d == nullptr) return error;
  const PodVolumeClaims& claims = d->claims;
  PodVolumes volumes;
  std::vector<std::string_view> reasons;
  framework::Status s = binder_.FindPodVolumes(claims, node.node_ptr(), volumes, reasons);
  if (!s.IsSuccess()) return s;
  if (!reasons.empty()) {
    std::vector<std::string> words(reasons.begin(), reasons.end());
    return framework::Status(framework::Code::kUnschedulableAndUnresolvable, std::move(words));
  }
  if (claims.unbound_delayed.empty()) return {};  // only bound claims: nothing for Reserve
  MutexLock l(d->mu);
  d->by_node[node.name()] = std::move(volumes);
  return {};
}

framework::Status VolumeBinding::PreScore(framework::CycleState& state, const framework::PodInfo&,
                                          const std::vector<const framework::NodeInfo*>&) {
  if (!scorer_) return framework::Status::Skip();
  framework::Status error;
  Decisions* d = Read(state, error);
  if (d == nullptr) return error;
  // Without unbound claims every node scores 0, which ranks nothing.
  if (d->claims.unbound_delayed.empty()) return framework::Status::Skip();
  return {};
}

framework::Status VolumeBinding::Score(const framework::CycleState& state,
                                       const framework::PodInfo&, const framework::NodeInfo& node,
                                       int64_t& score) {
  score = 0;
  framework::Status error;
  Decisions* d = Read(state, error);
  if (d == nullptr) return error;
  MutexLock l(d->mu);
  auto it = d->by_node.find(node.name());
  if (it == d->by_node.end()) return {};
  const PodVolumes& v = it->second;
  // Requested and capacity bytes per class: static bindings' volumes, or else (capacity
  // scoring on) the capacity the driver reports where the claims would be provisioned. Kept per
  // worker thread and reused, so scoring a node allocates nothing; kept sorted by class, as the
  // scorer saw them before, by inserting in place (a pod has few classes).
  thread_local std::vector<std::string_view> names;
  thread_local std::vector<std::pair<int64_t, int64_t>> values;
  names.clear();
  values.clear();
  auto of_class = [](std::string_view name) -> std::pair<int64_t, int64_t>& {
    size_t i = 0;
    while (i < names.size() && names[i] < name) ++i;
    if (i < names.size() && names[i] == name) return values[i];
    names.insert(names.begin() + i, name);
    return *values.insert(values.begin() + i, {0, 0});
  };
  if (!v.static_bindings.empty() || !capacity_scoring_) {
    for (const StaticBinding& b : v.static_bindings) {
      auto& [requested, capacity] = of_class(b.pv->storage_class_name);
      requested += StorageBytes(b.pvc->requests);
      capacity += StorageBytes(b.pv->capacity);
    }
  } else {
    for (const DynamicProvision& p : v.dynamic_provisions) {
      if (p.capacity == nullptr) continue;
      const auto& class_name = p.pvc->storage_class_name;
      auto& [requested, capacity] =
          of_class(class_name ? std::string_view(*class_name) : std::string_view());
      // Not a sum: two claims of one class share the capacity of one pool.
      capacity = p.capacity->capacity ? p.capacity->capacity->Value() : 0;
      requested += StorageBytes(p.pvc->requests);
    }
  }
  score = scorer_(values);
  return {};
}

framework::Status VolumeBinding::Reserve(framework::CycleState& state, const api::Pod& pod,
                                         std::string_view node) {
  framework::Status error;
  Decisions* d = Read(state, error);
  if (d == nullptr) return error;
  MutexLock l(d->mu);
  auto it = d->by_node.find(std::string(node));
  if (it == d->by_node.end()) {
    d->all_bound = true;  // no unbound claims
    return {};
  }
  auto all_bound = binder_.AssumePodVolumes(pod, node, it->second);
  if (!all_bound.ok()) return framework::Status::Error(std::string(all_bound.status().message()));
  d->all_bound = *all_bound;
  return {};
}

void VolumeBinding::Unreserve(framework::CycleState& state, const api::Pod&,
                              std::string_view node) {
  framework::Status error;
  Decisions* d = Read(state, error);
  if (d == nullptr) return;
  MutexLock l(d->mu);
  auto it = d->by_node.find(std::string(node));
  if (it != d->by_node.end()) binder_.RevertAssumedPodVolumes(it->second);
}

framework::Status VolumeBinding::PreBindPreFlight(framework::CycleState& state, const api::Pod&,
                                                  std::string_view node) {
  framework::Status error;
  Decisions* d = Read(state, error);
  if (d == nullptr) return error;
  MutexLock l(d->mu);
  if (d->all_bound) return framework::Status::Skip();
  if (!d->by_node.contains(std::string(node))) {
    return framework::Status::Error("no pod volume found for node \"" + std::string(node) + "\"");
  }
  return {};
}

framework::Status VolumeBinding::PreBind(framework::CycleState& state, const api::Pod& pod,
                                         std::string_view node) {
  framework::Status error;
  Decisions* d = Read(state, error);
  if (d == nullptr) return error;
  PodVolumes* volumes = nullptr;
  {
    MutexLock l(d->mu);
    if (d->all_bound) return {};
    auto it = d->by_node.find(std::string(node));
    if (it == d->by_node.end()) {
      return framework::Status::Error("no pod volume found for node \"" + std::string(node) + "\"");
    }
    // Only this binding cycle touches the chosen node's entry from here on.
    volumes = &it->second;
  }
  return binder_.BindPodVolumes(pod, *volumes);
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const config::VolumeBindingArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features) {
  const config::VolumeBindingArgs* a = &args;
  Binder::Options options;
  options.bind_timeout = std::chrono::seconds(a->bind_timeout_seconds.value_or(600));
  options.stopping = [&handle] { return handle.Stopping(); };
  VolumeBinding::Scorer scorer;
  if (features.storage_capacity_scoring) {
    std::vector<helper::ShapePoint> shape;
    if (a->shape && !a->shape->empty()) {
      for (const auto& p : *a->shape) {
        shape.push_back(
            {p.utilization, p.score * (framework::kMaxNodeScore / kMaxCustomPriorityScore)});
      }
    } else {
      // Upstream's default shape: the emptier the volumes, the better.
      shape = {{0, framework::kMaxNodeScore}, {kMaxUtilization, 0}};
    }
    auto raw = helper::BuildBrokenLinearFunction(std::move(shape));
    scorer = [raw](const std::vector<std::pair<int64_t, int64_t>>& classes) -> int64_t {
      if (classes.empty()) return 0;
      int64_t sum = 0;
      for (const auto& [requested, capacity] : classes) {
        sum += (capacity == 0 || requested > capacity)
                   ? raw(kMaxUtilization)
                   : raw(requested * kMaxUtilization / capacity);
      }
      return static_cast<int64_t>(std::round(static_cast<double>(sum) / classes.size()));
    };
  }
  return std::unique_ptr<framework::Plugin>(std::make_unique<VolumeBinding>(
      handle, std::move(options), std::move(scorer), features.storage_capacity_scoring));
}

}  // namespace stowage::plugins::volume_binding
