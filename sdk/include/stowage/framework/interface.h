// The scheduling framework's extension points: one small interface per point, in the order a pod
// meets them. A plugin implements Plugin plus any subset of these; the runtime sorts plugin
// instances into per-point lists once, when a profile is built, so nothing is cast per pod.
//
// Contracts (what each point may return and what the framework does next) follow upstream's
// staging/src/k8s.io/kube-scheduler/framework/interface.go. Filter and Score are called from
// many threads at once for different nodes: they must only read CycleState and the NodeInfo.
// Every other point runs on one thread per pod.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/framework/cycle_state.h"
#include "stowage/framework/events.h"
#include "stowage/framework/status.h"
#include "stowage/framework/types.h"
#include "stowage/plugin_config/extension_point.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::framework {

inline constexpr int64_t kMaxNodeScore = 100;
inline constexpr int64_t kMinNodeScore = 0;
inline constexpr int64_t kMaxExtenderPriority = 10;

class Plugin {
 public:
  virtual ~Plugin() = default;
  // The registered name, e.g. "NodeResourcesFit"; the same string as upstream.
  virtual std::string_view Name() const = 0;
};

// Runs when a pod is added to the queue. Anything but Success keeps the pod out of the active
// queue ("gated") until an event the plugin registered for re-evaluates it.
class PreEnqueuePlugin : public virtual Plugin {
 public:
  virtual Status PreEnqueue(const api::Pod& pod) = 0;
};

// Orders the active queue. Only one per scheduler (all profiles share it).
class QueueSortPlugin : public virtual Plugin {
 public:
  virtual bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const = 0;
};

// Nodes a PreFilter found to be the only candidates (e.g. from matchFields metadata.name);
// nullopt means all nodes.
struct PreFilterResult {
  std::optional<std::set<std::string>> node_names;
};

// Incremental updates of PreFilter's state when the framework adds or removes a pod from a
// node hypothetically (nominated pods, preemption).
class PreFilterExtensions {
 public:
  virtual ~PreFilterExtensions() = default;
  virtual Status AddPod(CycleState& state, const api::Pod& pod_to_schedule,
                        const PodInfo& pod_to_add, const NodeInfo& node) = 0;
  virtual Status RemovePod(CycleState& state, const api::Pod& pod_to_schedule,
                           const PodInfo& pod_to_remove, const NodeInfo& node) = 0;
};

// Runs once per cycle before Filter. Unschedulable rejects the pod on every node; Skip disables
// this plugin's Filter for the cycle; Error aborts the cycle.
class PreFilterPlugin : public virtual Plugin {
 public:
  virtual Status PreFilter(CycleState& state, const PodInfo& pod,
                           const std::vector<const NodeInfo*>& nodes, PreFilterResult& result) = 0;
  virtual PreFilterExtensions* Extensions() { return nullptr; }
};

// Decides whether the pod fits a node. Success, Unschedulable (preemption may help),
// UnschedulableAndUnresolvable, or Error. Called concurrently for different nodes.
class FilterPlugin : public virtual Plugin {
 public:
  virtual Status Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) = 0;
};

// How the nominated node of a pod should change after PostFilter.
struct NominatingInfo {
  enum class Mode : uint8_t { kNoop, kOverride } mode = Mode::kNoop;
  std::string node_name;
};

// Per-node statuses of a failed Filter phase, by node name.
using NodeToStatus = std::vector<std::pair<std::string, Status>>;

// "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s)." as
// upstream's FitError.Error(): the PreFilter message if any, else the reasons counted per node
// with the "<count> <reason>" strings sorted as text; then the PostFilter message, if any.
std::string FitErrorMessage(int num_all_nodes, const NodeToStatus& statuses,
                            const std::string& pre_filter_msg, const std::string& post_filter_msg);

// How a PostFilter plugin runs the profile's other plugins on a changed node (upstream's
// PluginsRunner part of the Handle): the framework of the pod's profile with the nominated pods
// of the cycle. Thread-safe for different states and nodes, like Filter.
class PluginsRunner {
 public:
  virtual ~PluginsRunner() = default;
  virtual Status RunPreFilterExtensionAddPod(CycleState& state, const api::Pod& pod,
                                             const PodInfo& to_add, const NodeInfo& node) = 0;
  virtual Status RunPreFilterExtensionRemovePod(CycleState& state, const api::Pod& pod,
                                                const PodInfo& to_remove, const NodeInfo& node) = 0;
  // The Filters with the pods nominated to node of equal or higher priority counted on it, then
  // without them: the pod must fit both ways.
  virtual Status RunFilterPluginsWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                                   const NodeInfo& node) = 0;
};

// Runs when no node fits (preemption), with the Filter phase's statuses and the runner of the
// pod's profile. Success with a nominated node in result, or Unschedulable (result may still
// ask to clear the nomination).
class PostFilterPlugin : public virtual Plugin {
 public:
  virtual Status PostFilter(CycleState& state, const PodInfo& pod, const NodeToStatus& filtered,
                            PluginsRunner& runner, NominatingInfo& result) = 0;
};

// Runs once per cycle before Score with the feasible nodes; Skip disables this plugin's Score.
class PreScorePlugin : public virtual Plugin {
 public:
  virtual Status PreScore(CycleState& state, const PodInfo& pod,
                          const std::vector<const NodeInfo*>& nodes) = 0;
};

struct NodeScore {
  std::string_view name;  // the node's name, valid for the cycle
  int64_t score = 0;
};
using NodeScoreList = std::vector<NodeScore>;

class ScoreExtensions {
 public:
  virtual ~ScoreExtensions() = default;
  // Maps the raw scores of all feasible nodes into [0, kMaxNodeScore].
  virtual Status NormalizeScore(const CycleState& state, const PodInfo& pod,
                                NodeScoreList& scores) = 0;
};

// Ranks a feasible node; called concurrently for different nodes. Scores must end in
// [0, kMaxNodeScore] after normalisation; the framework multiplies them by the plugin's weight.
class ScorePlugin : public virtual Plugin {
 public:
  virtual Status Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                       int64_t& score) = 0;
  virtual ScoreExtensions* Extensions() { return nullptr; }
};

// Reserve claims resources for the pod on the chosen node before binding; on any later failure
// Unreserve undoes it (it must be idempotent and cannot fail).
class ReservePlugin : public virtual Plugin {
 public:
  virtual Status Reserve(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
  virtual void Unreserve(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
};

// A pod held at Permit: every plugin that answered Wait must Allow it before it binds; one Reject
// or the timeout sends it back to the queue. Thread-safe: plugins call Allow/Reject from their
// own threads while the binding cycle waits.
class WaitingPod {
 public:
  virtual ~WaitingPod() = default;
  virtual const api::Pod& pod() const = 0;
  virtual std::vector<std::string> pending_plugins() const = 0;
  virtual void Allow(std::string_view plugin) = 0;
  virtual void Reject(std::string_view plugin, std::string message) = 0;
};

// A pod in its binding cycle up to the end of PreBind (upstream's PodInPreBind), so that
// preemption can stop it in memory rather than delete it through the API. Thread-safe.
class PodInPreBind {
 public:
  virtual ~PodInPreBind() = default;
  // Fails the binding cycle after PreBind with message; false once the pod is past PreBind (the
  // caller then deletes it instead).
  virtual bool CancelPod(std::string message) = 0;
};

// Approves, rejects or delays (Wait, with a timeout) the binding of a pod.
class PermitPlugin : public virtual Plugin {
 public:
  virtual Status Permit(CycleState& state, const api::Pod& pod, std::string_view node,
                        std::chrono::milliseconds& timeout) = 0;
};

// Work that must happen before the binding (e.g. volume provisioning). Error fails the binding.
class PreBindPlugin : public virtual Plugin {
 public:
  virtual Status PreBind(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
  // Says, before Permit's wait, whether PreBind will do work for this pod on node that may take
  // long (Success) or not (Skip, the default); when some plugin will, the scheduler first
  // records node as the pod's nominated node, so others see where it is going, and runs the
  // binding cycle on a thread of its own. Error fails the binding. Unlike upstream, PreBind is
  // still called after a Skip (it should then have nothing to do).
  virtual Status PreBindPreFlight(CycleState& state, const api::Pod& pod, std::string_view node) {
    (void)state, (void)pod, (void)node;
    return Status(Code::kSkip);
  }
};

// Binds the pod. Skip passes to the next bind plugin; the first non-Skip result is final.
class BindPlugin : public virtual Plugin {
 public:
  virtual Status Bind(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
};

// Informational, after a successful bind.
class PostBindPlugin : public virtual Plugin {
 public:
  virtual void PostBind(CycleState& state, const api::Pod& pod, std::string_view node) = 0;
};

// The cluster events that may make a pod this plugin rejected schedulable.
class EnqueueExtensions : public virtual Plugin {
 public:
  virtual std::vector<ClusterEventWithHint> EventsToRegister() const = 0;
};

// The interface of each configurable extension point; void for the PodGroup points stowage
// does not run yet (a plugin never implements them). The one list of points the table cannot
// generate, so a unit test (point_interface_test.cc) compares it with the table's names.
template <ExtensionPoint P>
struct PointInterface {
  using type = void;
};
template <>
struct PointInterface<ExtensionPoint::kPreEnqueue> {
  using type = PreEnqueuePlugin;
};
template <>
struct PointInterface<ExtensionPoint::kQueueSort> {
  using type = QueueSortPlugin;
};
template <>
struct PointInterface<ExtensionPoint::kPreFilter> {
  using type = PreFilterPlugin;
};
template <>
struct PointInterface<ExtensionPoint::kFilter> {
  using type = FilterPlugin;
};
template <>
struct PointInterface<ExtensionPoint::kPostFilter> {
  using type = PostFilterPlugin;
};
template <>
struct PointInterface<ExtensionPoint::kPreScore> {
  using type = PreScorePlugin;
};
template <>
struct PointInterface<ExtensionPoint::kScore> {
  using type = ScorePlugin;
};
template <>
struct PointInterface<ExtensionPoint::kReserve> {
  using type = ReservePlugin;
};
template <>
struct PointInterface<ExtensionPoint::kPermit> {
  using type = PermitPlugin;
};
template <>
struct PointInterface<ExtensionPoint::kPreBind> {
  using type = PreBindPlugin;
};
template <>
struct PointInterface<ExtensionPoint::kBind> {
  using type = BindPlugin;
};
template <>
struct PointInterface<ExtensionPoint::kPostBind> {
  using type = PostBindPlugin;
};

// Whether the plugin implements the point's interface (false for points without one). Used
// when a profile is built, never per pod.
bool Implements(const Plugin& plugin, ExtensionPoint point);

}  // namespace stowage::framework

#pragma GCC visibility pop
