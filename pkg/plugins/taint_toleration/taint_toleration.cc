#include "pkg/plugins/taint_toleration/taint_toleration.h"

#include <string>

#include "stowage/plugins/helper/event_objects.h"
#include "stowage/plugins/helper/normalize_score.h"

namespace stowage::plugins::taint_toleration {
namespace {

using framework::QueueingHint;

// The pod's tolerations that can cover a PreferNoSchedule taint, computed at PreScore.
struct PreScoreState final : framework::StateData {
  std::vector<api::Toleration> prefer_no_schedule;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

}  // namespace

framework::Status TaintToleration::PreFilter(
    framework::CycleState& /*state*/, const framework::PodInfo& pod,
    const std::vector<const framework::NodeInfo*>& /*nodes*/,
    framework::PreFilterResult& /*result*/) {
  if (helper::IsDeferredResize(enable_resize_preemption_, *pod)) return framework::Status::Skip();
  return {};
}

framework::Status TaintToleration::Filter(const framework::CycleState& /*state*/,
                                          const framework::PodInfo& pod,
                                          const framework::NodeInfo& node) {
  if (helper::IsDeferredResize(enable_resize_preemption_, *pod)) return {};
  if (node.node() == nullptr) return framework::Status::Error("node not found");
  const api::Taint* untolerated = helper::FindMatchingUntoleratedTaint(
      node.node()->spec.taints, pod->spec.tolerations, helper::IsDoNotScheduleTaint,
      enable_comparison_operators_);
  if (untolerated == nullptr) return {};
  return framework::Status::Unresolvable(std::string(kErrReasonUntolerated));
}

framework::Status TaintToleration::PreScore(framework::CycleState& state,
                                            const framework::PodInfo& pod,
                                            const std::vector<const framework::NodeInfo*>&) {
  auto s = std::make_unique<PreScoreState>();
  for (const auto& t : pod->spec.tolerations) {
    // An empty effect matches every effect, PreferNoSchedule included.
    if (t.effect.empty() || t.effect == "PreferNoSchedule") s->prefer_no_schedule.push_back(t);
  }
  state.Write(kPreScoreStateKey, std::move(s));
  return {};
}

framework::Status TaintToleration::Score(const framework::CycleState& state,
                                         const framework::PodInfo& /*pod*/,
                                         const framework::NodeInfo& node, int64_t& score) {
  const auto* s = state.Read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) {
    return framework::Status::Error("failed to read \"" + std::string(kPreScoreStateKey) +
                                    "\" from cycleState: not found");
  }
  if (node.node() == nullptr) return framework::Status::Error("node not found");
  score = 0;
  for (const auto& taint : node.node()->spec.taints) {
    if (taint.effect != "PreferNoSchedule") continue;
    if (!helper::TolerationsTolerateTaint(s->prefer_no_schedule, taint,
                                          enable_comparison_operators_)) {
      ++score;
    }
  }
  return {};
}

framework::Status TaintToleration::NormalizeScore(const framework::CycleState& /*state*/,
                                                  const framework::PodInfo& /*pod*/,
                                                  framework::NodeScoreList& scores) {
  return helper::DefaultNormalizeScore(framework::kMaxNodeScore, /*reverse=*/true, scores);
}

std::vector<framework::ClusterEventWithHint> TaintToleration::EventsToRegister() const {
  return {
      {{framework::EventResource::kNode, framework::kAdd | framework::kUpdateNodeTaint},
       [enable = enable_comparison_operators_](const api::Pod& pod,
                                               const framework::EventObject& old_obj,
                                               const framework::EventObject& new_obj) {
         return IsSchedulableAfterNodeChange(pod, old_obj, new_obj, enable);
       }},
      {{framework::EventResource::kTargetPod, framework::kUpdatePodToleration},
       IsSchedulableAfterPodTolerationChange},
  };
}

QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                          const framework::EventObject& old_obj,
                                          const framework::EventObject& new_obj,
                                          bool enable_comparison_operators) {
  helper::TypedEventObjects<api::Node> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.new_obj == nullptr) return QueueingHint::kQueue;
  auto untolerated = [&](const api::Node& n) {
    return helper::FindMatchingUntoleratedTaint(n.spec.taints, pod.spec.tolerations,
                                                helper::IsDoNotScheduleTaint,
                                                enable_comparison_operators) != nullptr;
  };
  bool was_untolerated = objs.old_obj == nullptr || untolerated(*objs.old_obj);
  return was_untolerated && !untolerated(*objs.new_obj) ? QueueingHint::kQueue
                                                        : QueueingHint::kSkip;
}

QueueingHint IsSchedulableAfterPodTolerationChange(const api::Pod& pod,
                                                   const framework::EventObject& old_obj,
                                                   const framework::EventObject& new_obj) {
  helper::TypedEventObjects<api::Pod> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.new_obj == nullptr) return QueueingHint::kQueue;
  return objs.new_obj->metadata.uid == pod.metadata.uid ? QueueingHint::kQueue
                                                        : QueueingHint::kSkip;
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& /*args*/,
                                                 framework::Handle& /*handle*/,
                                                 const framework::Features& features) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<TaintToleration>(
      features.taint_toleration_comparison_operators,
      features.in_place_pod_vertical_scaling_scheduler_preemption));
}

}  // namespace stowage::plugins::taint_toleration
