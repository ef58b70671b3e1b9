#include "pkg/plugins/node_declared_features/node_declared_features.h"

#include <algorithm>

#include "stowage/common/assert.h"
#include "stowage/plugins/helper/event_objects.h"

namespace stowage::plugins::node_declared_features {
namespace {

using framework::QueueingHint;

bool AnyRestartAllContainersRule(const std::vector<api::Container>& containers) {
  for (const auto& c : containers) {
    for (const auto& rule : c.restart_policy_rules) {
      if (rule.action == "RestartAllContainers") return true;
    }
  }
  return false;
}

bool Never(const api::PodSpec&) { return false; }

struct PreFilterState final : framework::StateData {
  FeatureSet required = 0;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

StatusOr<FeatureSet> Infer(const std::vector<Feature>& registry,
                           const std::optional<Version>& version, const api::PodSpec& spec) {
  if (!version) return InvalidArgumentError("target version cannot be nil");
  FeatureSet set = 0;
  for (size_t i = 0; i < registry.size(); ++i) {
    const Feature& f = registry[i];
    if (f.max_version && *version > *f.max_version) continue;
    if (f.infer_for_scheduling && f.infer_for_scheduling(spec)) set |= FeatureSet{1} << i;
  }
  return set;
}

QueueingHint PodUpdateHint(const std::vector<Feature>& registry,
                           const std::optional<Version>& version, const api::Pod& pod,
                           const framework::EventObject& old_obj,
                           const framework::EventObject& new_obj) {
  helper::TypedEventObjects<api::Pod> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.new_obj == nullptr) return QueueingHint::kQueue;
  if (objs.new_obj->metadata.uid != pod.metadata.uid) return QueueingHint::kSkip;
  if (objs.old_obj == nullptr) return QueueingHint::kQueue;
  auto before = Infer(registry, version, objs.old_obj->spec);
  auto after = Infer(registry, version, objs.new_obj->spec);
  if (!before.ok() || !after.ok()) return QueueingHint::kQueue;
  return *before == *after ? QueueingHint::kSkip : QueueingHint::kQueue;
}

}  // namespace

std::vector<Feature> DefaultFeatures() {
  return {
      {"RestartAllContainersOnContainerExits",
       [](const api::PodSpec& s) {
         return AnyRestartAllContainersRule(s.containers) ||
                AnyRestartAllContainersRule(s.init_containers);
       },
       std::nullopt},
      {"InPlacePodLevelResourcesVerticalScaling", Never, std::nullopt},
      {"ExtendWebSocketsToKubelet", Never, std::nullopt},
      {"InPlacePodVerticalScalingInitContainers", Never, std::nullopt},
      {"UserNamespacesHostNetworkSupport",
       [](const api::PodSpec& s) { return s.host_network && s.host_users == false; }, std::nullopt},
  };
}

NodeDeclaredFeatures::NodeDeclaredFeatures(std::vector<Feature> registry,
                                           std::optional<Version> version, bool enabled)
    : version_(version), enabled_(enabled) {
  RELEASE_ASSERT(registry.size() <= 64, "a FeatureSet holds at most 64 features");
  std::stable_sort(registry.begin(), registry.end(),
                   [](const Feature& a, const Feature& b) { return a.name < b.name; });
  registry_ = std::make_shared<const std::vector<Feature>>(std::move(registry));
}

StatusOr<FeatureSet> NodeDeclaredFeatures::InferForPodScheduling(const api::PodSpec& spec) const {
  return Infer(*registry_, version_, spec);
}

FeatureSet NodeDeclaredFeatures::MapNodeFeatures(const std::vector<std::string>& names) const {
  FeatureSet set = 0;
  for (size_t i = 0; i < registry_->size(); ++i) {
    if (std::find(names.begin(), names.end(), (*registry_)[i].name) != names.end()) {
      set |= FeatureSet{1} << i;
    }
  }
  return set;
}

std::vector<std::string> NodeDeclaredFeatures::FeatureNames(FeatureSet set) const {
  std::vector<std::string> out;
  for (size_t i = 0; i < registry_->size(); ++i) {
    if (set & (FeatureSet{1} << i)) out.push_back((*registry_)[i].name);
  }
  return out;
}

void NodeDeclaredFeatures::WriteStateForTest(framework::CycleState& state, FeatureSet required) {
  auto s = std::make_unique<PreFilterState>();
  s->required = required;
  state.Write(kPreFilterStateKey, std::move(s));
}

framework::Status NodeDeclaredFeatures::PreFilter(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<const framework::NodeInfo*>& /*nodes*/,
    framework::PreFilterResult& /*result*/) {
  if (!enabled_) return framework::Status::Skip();
  auto required = InferForPodScheduling(pod->spec);
  if (!required.ok()) return framework::Status::Error(std::string(required.status().message()));
  if (*required == 0) return framework::Status::Skip();
  WriteStateForTest(state, *required);
  return {};
}

framework::Status NodeDeclaredFeatures::Filter(const framework::CycleState& state,
                                               const framework::PodInfo& /*pod*/,
                                               const framework::NodeInfo& node) {
  if (!enabled_) return {};
  const auto* s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) {
    return framework::Status::Error("error reading \"" + std::string(kPreFilterStateKey) +
                                    "\" from cycle-state: not found");
  }
  if (node.node() == nullptr) return framework::Status::Error("node not found");
  FeatureSet declared = MapNodeFeatures(node.node()->status.declared_features);
  if ((s->required & ~declared) == 0) return {};
  return framework::Status::Unresolvable(std::string(kErrReasonUnsatisfied));
}

std::vector<framework::ClusterEventWithHint> NodeDeclaredFeatures::EventsToRegister() const {
  if (!enabled_) return {};
  return {
      {{framework::EventResource::kNode, framework::kAdd | framework::kUpdateNodeDeclaredFeature},
       IsSchedulableAfterNodeChange},
      // Any change of the rejected pod itself may change the features it needs.
      {{framework::EventResource::kTargetPod, framework::kUpdate},
       [registry = registry_, version = version_](const api::Pod& pod,
                                                  const framework::EventObject& old_obj,
                                                  const framework::EventObject& new_obj) {
         return PodUpdateHint(*registry, version, pod, old_obj, new_obj);
       }},
  };
}

QueueingHint NodeDeclaredFeatures::IsSchedulableAfterNodeChange(
    const api::Pod& /*pod*/, const framework::EventObject& old_obj,
    const framework::EventObject& new_obj) {
  helper::TypedEventObjects<api::Node> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.new_obj == nullptr) return QueueingHint::kQueue;
  if (objs.old_obj != nullptr &&
      objs.old_obj->status.declared_features == objs.new_obj->status.declared_features) {
    return QueueingHint::kSkip;
  }
  return QueueingHint::kQueue;
}

QueueingHint NodeDeclaredFeatures::IsSchedulableAfterPodUpdate(
    const api::Pod& pod, const framework::EventObject& old_obj,
    const framework::EventObject& new_obj) const {
  return PodUpdateHint(*registry_, version_, pod, old_obj, new_obj);
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& /*args*/,
                                                 framework::Handle& /*handle*/,
                                                 const framework::Features& features) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeDeclaredFeatures>(
      DefaultFeatures(), kSchedulerVersion, features.node_declared_features));
}

}  // namespace stowage::plugins::node_declared_features
