// Framework: one scheduling profile's plugins, instantiated once and sorted into per-extension-
// point lists, and the Run* functions the scheduling and binding cycles call (upstream
// frameworkImpl in pkg/scheduler/framework/runtime/framework.go).
//
// Thread-safety: the Run* functions of the scheduling cycle are called by one thread at a time;
// RunFilterPlugins and the per-node part of scoring run concurrently on the worker pool. The
// binding-cycle functions (Permit wait, PreBind, Bind, PostBind) may run concurrently for
// different pods.
//
// Metrics (pkg/metrics, upstream's names): each Run* records
// framework_extension_point_duration_seconds for its point (Filter excepted: it runs per node,
// so the caller measures the whole Filter phase through metrics()), plugin_evaluation_total per
// plugin call at PreFilter, Filter, PreScore and Score, and, in cycles marked by
// SetRecordPluginMetrics, plugin_execution_duration_seconds per plugin call.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "pkg/common/macros.h"
#include "pkg/metrics/profile_metrics.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::framework {

// Upstream samples plugin durations in 10% of scheduling cycles: the scheduler marks the cycle's
// state when it creates it (metrics::SampleCycleForPluginMetrics decides), and every plugin call
// of that cycle and of its binding cycle is then timed.
void SetRecordPluginMetrics(CycleState& state, bool record);
bool ShouldRecordPluginMetrics(const CycleState& state);

struct PluginSpec {
  std::string name;
  int32_t weight = 1;  // used by Score only
};

// The effective plugin lists of a profile, after multiPoint expansion, with typed args.
struct ProfileSpec {
  std::string scheduler_name;
  // The plugins of each configurable extension point, in run order, indexed by the point.
  std::array<std::vector<PluginSpec>, kNumConfigurableExtensionPoints> points;
  // Each plugin's args from pluginConfig, defaulted and validated; none: std::monostate.
  std::map<std::string, PluginArgs, std::less<>> args;
  // The feature gates every plugin factory receives.
  Features features;
  std::optional<int32_t> percentage_of_nodes_to_score;

  // Plugins already built (BuildProfiles builds each once to learn its points); Framework::New
  // takes these over and builds the rest from the registry.
  std::map<std::string, std::shared_ptr<Plugin>, std::less<>> plugins;

  const PluginArgs& ArgsOf(std::string_view plugin) const {
    static const PluginArgs kNone;
    auto it = args.find(plugin);
    return it == args.end() ? kNone : it->second;
  }

  std::vector<PluginSpec>& at(ExtensionPoint point) { return points[static_cast<size_t>(point)]; }
  const std::vector<PluginSpec>& at(ExtensionPoint point) const {
    return points[static_cast<size_t>(point)];
  }
};

// A plugin's registered event, tagged with the plugin.
// One Score plugin's scores of the nodes of one RunScorePlugins call, index for index: before
// NormalizeScore (raw) and after it (normalized, which the weight multiplies).
struct PluginScores {
  std::string plugin;
  int64_t weight = 0;
  std::vector<int64_t> raw;
  std::vector<int64_t> normalized;
};

struct PluginEvent {
  std::string plugin;
  ClusterEventWithHint event;
};

// The status message of the nodes a PreFilter result left out, naming the plugins whose
// results narrowed the set (upstream: "node(s) didn't satisfy plugin(s) [NodeAffinity]").
std::string PreFilterExcludedMessage(const std::set<std::string>& narrowing_plugins);

class Framework {
 public:
  // Takes over the plugins spec holds and builds the other ones named in spec from registry
  // (one instance per name, shared by the points it appears in). An unknown name, a factory's
  // error, or a plugin listed at a point it does not implement, is an error naming the profile
  // and the plugin.
  static StatusOr<std::unique_ptr<Framework>> New(const Registry& registry, const ProfileSpec& spec,
                                                  Handle& handle);

  const std::string& scheduler_name() const { return spec_.scheduler_name; }
  const ProfileSpec& spec() const { return spec_; }
  Handle& handle() { return handle_; }
  bool HasScorePlugins() const { return !entries<ExtensionPoint::kScore>().empty(); }
  bool HasPostFilterPlugins() const { return !entries<ExtensionPoint::kPostFilter>().empty(); }
  bool HasPreBindPlugins() const { return !entries<ExtensionPoint::kPreBind>().empty(); }
  const std::vector<PreEnqueuePlugin*>& pre_enqueue_plugins() const { return pre_enqueue_; }
  // This profile's metric handles: the scheduler records attempts and the Filter phase here.
  metrics::ProfileMetrics& metrics() const { return *metrics_; }

  // The profile's QueueSort plugin (there is always one): the queue orders activeQ with it.
  const QueueSortPlugin& queue_sort_plugin() const { return *queue_sort_; }

  Status RunPreEnqueuePlugins(const api::Pod& pod) const;

  // Fills result. unschedulable_plugins gets the plugins whose results narrowed the node set,
  // and on a rejection the rejecting plugin (an empty intersection is a rejection naming no
  // plugin: its message lists the narrowing ones).
  Status RunPreFilterPlugins(CycleState& state, const PodInfo& pod,
                             const std::vector<const NodeInfo*>& nodes, PreFilterResult& result,
                             std::set<std::string>& unschedulable_plugins);
  // Runs the Filters in order, stopping at the first non-success (which names its plugin).
  Status RunFilterPlugins(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const;
  Status RunPreFilterExtensionAddPod(CycleState& state, const api::Pod& pod, const PodInfo& to_add,
                                     const NodeInfo& node);
  Status RunPreFilterExtensionRemovePod(CycleState& state, const api::Pod& pod,
                                        const PodInfo& to_remove, const NodeInfo& node);
  // As upstream: the first Success or UnschedulableAndUnresolvable is final; otherwise the
  // reasons of every plugin joined, and result the last nomination that changes something.
  Status RunPostFilterPlugins(CycleState& state, const PodInfo& pod, const NodeToStatus& filtered,
                              PluginsRunner& runner, NominatingInfo& result);
  Status RunPreScorePlugins(CycleState& state, const PodInfo& pod,
                            const std::vector<const NodeInfo*>& nodes);
  // Score, NormalizeScore and weighting; totals[i] is the weighted sum for nodes[i]. detail,
  // when given (explain), gets each scoring plugin's raw and normalised scores.
  Status RunScorePlugins(const CycleState& state, const PodInfo& pod,
                         const std::vector<const NodeInfo*>& nodes, std::vector<int64_t>& totals,
                         std::vector<PluginScores>* detail = nullptr);

  Status RunReservePluginsReserve(CycleState& state, const api::Pod& pod, std::string_view node);
  void RunReservePluginsUnreserve(CycleState& state, const api::Pod& pod, std::string_view node);
  // Success, a rejection, or Wait with the longest requested timeout (capped at 15 minutes).
  Status RunPermitPlugins(CycleState& state, const api::Pod& pod, std::string_view node,
                          std::chrono::milliseconds& wait);
  // Blocks until the pod held at Permit is allowed by every waiting plugin (Success), rejected,
  // or timed out (Unschedulable). Success at once if the pod is not waiting.
  Status WaitOnPermit(const api::Pod& pod);
  std::shared_ptr<WaitingPod> GetWaitingPod(std::string_view uid) const;
  // Rejects every pod held at Permit (on shutdown, so their binding cycles end).
  void RejectWaitingPods(const std::string& message);
  // Success when some PreBind plugin will do work for pod on node, Skip when none will, and the
  // first failure (naming its plugin) otherwise; Unschedulable is a failure too, as upstream.
  Status RunPreBindPreFlights(CycleState& state, const api::Pod& pod, std::string_view node);
  Status RunPreBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node);
  Status RunBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node);
  void RunPostBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node);

  // Adds the Filter evaluations counted since the last flush to plugin_evaluation_total. Filter
  // runs count one atomic add per node, not one per plugin, and are attributed to plugins here;
  // the scheduler calls this when a cycle's search is over (the next PreFilter also does).
  void FlushMetrics();

  // The events every EnqueueExtensions plugin registered, for the queue's hints.
  std::vector<PluginEvent> EventsToRegister() const;

 private:
  Framework(ProfileSpec spec, Handle& handle) : spec_(std::move(spec)), handle_(handle) {}

  // The bodies of the Run* functions that measure their extension point around them.
  Status PreFilterLoop(CycleState& state, const PodInfo& pod,
                       const std::vector<const NodeInfo*>& nodes, PreFilterResult& result,
                       std::set<std::string>& unschedulable_plugins, bool record);
  Status ScoreLoop(const CycleState& state, const PodInfo& pod,
                   const std::vector<const NodeInfo*>& nodes, std::vector<int64_t>& totals,
                   bool record, std::vector<PluginScores>* detail);
  Status PermitLoop(CycleState& state, const api::Pod& pod, std::string_view node,
                    std::chrono::milliseconds& wait, bool record);

  template <typename P>
  struct Entry {
    P* plugin;
    std::string name;
    int32_t weight;
    metrics::PluginMetrics* metrics = nullptr;  // owned by plugin_metrics_
  };
  // The plugins of a point the runtime runs; nothing for a point without an interface.
  template <ExtensionPoint P, typename I = typename PointInterface<P>::type>
  using EntriesOf = std::conditional_t<std::is_void_v<I>, std::monostate, std::vector<Entry<I>>>;
  template <size_t... I>
  static auto EntryLists(std::index_sequence<I...>)
      -> std::tuple<EntriesOf<static_cast<ExtensionPoint>(I)>...>;
  using AllEntries =
      decltype(EntryLists(std::make_index_sequence<kNumConfigurableExtensionPoints>{}));

  template <ExtensionPoint P>
  EntriesOf<P>& entries() {
    return std::get<static_cast<size_t>(P)>(entries_);
  }
  template <ExtensionPoint P>
  const EntriesOf<P>& entries() const {
    return std::get<static_cast<size_t>(P)>(entries_);
  }

  ProfileSpec spec_;
  Handle& handle_;
  std::map<std::string, std::shared_ptr<Plugin>, std::less<>> plugins_;
  std::unique_ptr<metrics::ProfileMetrics> metrics_;
  std::map<std::string, std::unique_ptr<metrics::PluginMetrics>, std::less<>> plugin_metrics_;
  // One typed list per configurable point of the table, in run order, indexed by the point.
  AllEntries entries_;
  std::vector<PreEnqueuePlugin*> pre_enqueue_;     // the PreEnqueue entries' plugins, for the queue
  prometheus::Gauge* score_goroutines_ = nullptr;  // goroutines{operation="Score"}
  // filter_stops_[i]: RunFilterPlugins calls since the last flush whose last evaluated plugin
  // was Filter entry i (i == their number: all passed), so plugins 0..i ran except skipped ones.
  std::unique_ptr<std::atomic<uint64_t>[]> filter_stops_;
  uint64_t filter_skip_mask_ = 0;  // bit i: Filter entry i skipped in the counted cycle (i < 64)
  // Whether the current scheduling cycle's Filter calls are timed: set by RunPreFilterPlugins
  // from the cycle state, read by the concurrent RunFilterPlugins calls of the same cycle.
  mutable std::atomic<bool> record_filter_metrics_{false};
  QueueSortPlugin* queue_sort_ = nullptr;
  mutable Mutex waiting_mu_;
  std::map<std::string, std::shared_ptr<WaitingPod>, std::less<>> waiting_
      GUARDED_BY(waiting_mu_);  // by pod UID
};

}  // namespace stowage::framework
