#include "pkg/framework/runtime/runtime.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <condition_variable>
#include <mutex>
#include <random>

#include "pkg/framework/runtime/waiting_pod.h"
#include "pkg/metrics/metrics.h"

namespace stowage::framework {

namespace {
constexpr std::chrono::milliseconds kMaxPermitWait = std::chrono::minutes(15);
constexpr std::string_view kRecordPluginMetricsKey = "stowage.io/record-plugin-metrics";

using EP = ExtensionPoint;
using SteadyClock = std::chrono::steady_clock;

double Since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}
uint8_t CodeOf(const Status& s) { return static_cast<uint8_t>(s.code()); }

// The cycle-state marker of a sampled cycle.
struct RecordPluginMetrics final : StateData {
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<RecordPluginMetrics>();
  }
};

// Runs call() and, when record is set, observes its duration for the plugin at point.
template <typename Call>
Status Timed(bool record, metrics::PluginMetrics* m, EP point, Call&& call) {
  if (!record || m == nullptr) return call();
  auto start = SteadyClock::now();
  Status s = call();
  m->ObserveDuration(point, CodeOf(s), Since(start));
  return s;
}

using PluginMap = std::map<std::string, std::shared_ptr<Plugin>, std::less<>>;
using PluginMetricsMap =
    std::map<std::string, std::unique_ptr<metrics::PluginMetrics>, std::less<>>;

// Fills out with the plugins configured at Point, each of which must implement its interface.
template <ExtensionPoint Point, typename E>
stowage::Status Collect(const ProfileSpec& spec, const PluginMap& plugins, std::vector<E>& out) {
  using P = typename PointInterface<Point>::type;
  for (const auto& s : spec.at(Point)) {
    auto* p = dynamic_cast<P*>(plugins.at(s.name).get());
    if (p == nullptr) {
      return InvalidArgumentError("profile \"" + spec.scheduler_name + "\": plugin \"" + s.name +
                                  "\" does not extend " + std::string(Info(Point).metric_label));
    }
    out.push_back({p, s.name, s.weight});
  }
  return OkStatus();
}
// A point without an interface (the PodGroup ones) is not run, so nothing is collected for it.
template <ExtensionPoint Point>
stowage::Status Collect(const ProfileSpec&, const PluginMap&, std::monostate&) {
  return OkStatus();
}
// Fills the list of each point I (lists is indexed by the point) in the table's order, and
// stops at the first error.
template <typename Lists, size_t... I>
stowage::Status CollectAll(const ProfileSpec& spec, const PluginMap& plugins, Lists& lists,
                           std::index_sequence<I...>) {
  stowage::Status s;
  (void)(... && (s = Collect<static_cast<EP>(I)>(spec, plugins, std::get<I>(lists))).ok());
  return s;
}

// Points each entry at its plugin's metric handles.
template <typename E>
void Attach(std::vector<E>& entries, const PluginMetricsMap& metrics) {
  for (auto& e : entries) e.metrics = metrics.at(e.name).get();
}
void Attach(std::monostate&, const PluginMetricsMap&) {}
}  // namespace

void SetRecordPluginMetrics(CycleState& state, bool record) {
  if (record)
    state.Write(kRecordPluginMetricsKey, std::make_unique<RecordPluginMetrics>());
  else
    state.Write(kRecordPluginMetricsKey, std::unique_ptr<RecordPluginMetrics>());
}

bool ShouldRecordPluginMetrics(const CycleState& state) {
  return state.Read<RecordPluginMetrics>(kRecordPluginMetricsKey) != nullptr;
}

StatusOr<std::unique_ptr<Framework>> Framework::New(const Registry& registry,
                                                    const ProfileSpec& spec, Handle& handle) {
  std::unique_ptr<Framework> f(new Framework(spec, handle));
  const std::string& profile = spec.scheduler_name;
  for (const auto& list : spec.points) {
    for (const auto& s : list) {
      if (f->plugins_.count(s.name)) continue;
      if (auto built = spec.plugins.find(s.name); built != spec.plugins.end()) {
        f->plugins_.emplace(s.name, built->second);
        continue;
      }
      ASSIGN_OR_RETURN(auto plugin,
                       registry.Build(profile, s.name, spec.ArgsOf(s.name), handle, spec.features));
      f->plugins_.emplace(s.name, std::move(plugin));
    }
  }
  // The plugins of each point the runtime runs, sorted once into typed lists.
  RETURN_IF_ERROR(CollectAll(spec, f->plugins_, f->entries_,
                             std::make_index_sequence<kNumConfigurableExtensionPoints>{}));
  f->metrics_ = std::make_unique<metrics::ProfileMetrics>(profile);
  for (const auto& [name, plugin] : f->plugins_) {
    f->plugin_metrics_.emplace(name, std::make_unique<metrics::PluginMetrics>(name, profile));
  }
  std::apply([&](auto&... lists) { (Attach(lists, f->plugin_metrics_), ...); }, f->entries_);
  for (auto& e : f->entries<EP::kPreEnqueue>()) f->pre_enqueue_.push_back(e.plugin);
  f->spec_.plugins.clear();  // those the profile uses are in plugins_
  f->score_goroutines_ = &metrics::Goroutines("Score");
  f->filter_stops_ =
      std::make_unique<std::atomic<uint64_t>[]>(f->entries<EP::kFilter>().size() + 1);
  const auto& queue_sort = f->entries<EP::kQueueSort>();
  if (queue_sort.size() != 1) {
    return InvalidArgumentError("profile \"" + profile +
                                "\": exactly one queueSort plugin is "
                                "required, found " +
                                std::to_string(queue_sort.size()));
  }
  f->queue_sort_ = queue_sort[0].plugin;
  if (f->entries<EP::kBind>().empty()) {
    return InvalidArgumentError("profile \"" + profile +
                                "\": at least one bind plugin is required");
  }
  return f;
}

Status Framework::RunPreEnqueuePlugins(const api::Pod& pod) const {
  // The queue's point: upstream samples its plugin durations per call, not per cycle.
  const bool record = metrics::SampleCycleForPluginMetrics();
  auto start = SteadyClock::now();
  Status result;
  for (const auto& e : entries<EP::kPreEnqueue>()) {
    Status s = Timed(record, e.metrics, EP::kPreEnqueue, [&] { return e.plugin->PreEnqueue(pod); });
    if (!s.IsSuccess()) {
      result = std::move(s.WithPlugin(e.plugin->Name()));
      break;
    }
  }
  metrics_->ObserveExtensionPoint(EP::kPreEnqueue, CodeOf(result), Since(start));
  return result;
}

Status Framework::RunPreFilterPlugins(CycleState& state, const PodInfo& pod,
                                      const std::vector<const NodeInfo*>& nodes,
                                      PreFilterResult& result,
                                      std::set<std::string>& unschedulable_plugins) {
  FlushMetrics();  // the previous cycle's Filter counts, under that cycle's skip set
  const bool record = ShouldRecordPluginMetrics(state);
  record_filter_metrics_.store(record, std::memory_order_relaxed);
  auto start = SteadyClock::now();
  Status s = PreFilterLoop(state, pod, nodes, result, unschedulable_plugins, record);
  metrics_->ObserveExtensionPoint(EP::kPreFilter, CodeOf(s), Since(start));
  const auto& filter = entries<EP::kFilter>();
  filter_skip_mask_ = 0;
  for (size_t i = 0; i < filter.size() && i < 64; ++i) {
    if (state.skip_filter_plugins_.count(filter[i].name)) filter_skip_mask_ |= uint64_t{1} << i;
  }
  // The bits stand for the whole set only when every Filter plugin has one.
  if (filter.size() <= 64) {
    state.skip_filter_mask_ = filter_skip_mask_;
  } else {
    state.skip_filter_mask_.reset();
  }
  return s;
}

void Framework::FlushMetrics() {
  const auto& filter = entries<EP::kFilter>();
  const size_t n = filter.size();
  std::vector<uint64_t> runs(n, 0);
  for (size_t stop = 0; stop <= n; ++stop) {
    uint64_t calls = filter_stops_[stop].exchange(0, std::memory_order_relaxed);
    if (calls == 0) continue;
    // A call that stopped at plugin `stop` ran every plugin up to it; one that passed ran all.
    for (size_t i = 0; i < n && i <= stop; ++i) runs[i] += calls;
  }
  for (size_t i = 0; i < n; ++i) {
    bool skipped = i < 64 && (filter_skip_mask_ >> i) & 1;
    if (!skipped) filter[i].metrics->Evaluated(EP::kFilter, runs[i]);
  }
}

namespace {
// Go's %v of a sorted []string: "[A B]".
std::string GoList(const std::set<std::string>& names) {
  std::string out = "[";
  for (const auto& n : names) {
    if (out.size() > 1) out += ' ';
    out += n;
  }
  return out + "]";
}
}  // namespace

Status Framework::PreFilterLoop(CycleState& state, const PodInfo& pod,
                                const std::vector<const NodeInfo*>& nodes, PreFilterResult& result,
                                std::set<std::string>& unschedulable_plugins, bool record) {
  // As upstream: the plugins that narrowed the node set are the ones to blame for the nodes left
  // out (unschedulable_plugins gets them even on success); an Unschedulable rejection lets the
  // remaining PreFilters run (their state serves preemption), an unresolvable one stops at once.
  std::set<std::string> narrowed;
  Status rejected;
  for (auto& e : entries<EP::kPreFilter>()) {
    PreFilterResult r;
    e.metrics->Evaluated(EP::kPreFilter);
    Status s = Timed(record, e.metrics, EP::kPreFilter,
                     [&] { return e.plugin->PreFilter(state, pod, nodes, r); });
    if (s.IsSkip()) {
      state.skip_filter_plugins_.insert(e.name);
      continue;
    }
    if (!s.IsSuccess()) {
      s.WithPlugin(e.name);
      if (s.code() == Code::kUnschedulableAndUnresolvable) {
        unschedulable_plugins.insert(e.name);
        return s;
      }
      if (s.code() == Code::kUnschedulable) {
        rejected = std::move(s);
        continue;
      }
      return s;
    }
    if (r.node_names) {
      narrowed.insert(e.name);
      if (!result.node_names) {
        result.node_names = std::move(r.node_names);
      } else {
        std::set<std::string> both;
        std::set_intersection(result.node_names->begin(), result.node_names->end(),
                              r.node_names->begin(), r.node_names->end(),
                              std::inserter(both, both.begin()));
        result.node_names = std::move(both);
      }
      if (result.node_names->empty()) {
        unschedulable_plugins.insert(narrowed.begin(), narrowed.end());
        // Upstream's status here names no plugin: the message does.
        return Status::Unresolvable(narrowed.size() == 1
                                        ? "node(s) didn't satisfy plugin " + *narrowed.begin()
                                        : "node(s) didn't satisfy plugin(s) " + GoList(narrowed) +
                                              " simultaneously");
      }
    }
  }
  unschedulable_plugins.insert(narrowed.begin(), narrowed.end());
  if (!rejected.IsSuccess()) unschedulable_plugins.insert(rejected.plugin());
  return rejected;
}

std::string PreFilterExcludedMessage(const std::set<std::string>& narrowing_plugins) {
  return "node(s) didn't satisfy plugin(s) " + GoList(narrowing_plugins);
}

Status Framework::RunFilterPlugins(const CycleState& state, const PodInfo& pod,
                                   const NodeInfo& node) const {
  const bool record = record_filter_metrics_.load(std::memory_order_relaxed);
  const std::optional<uint64_t>& mask = state.skip_filter_mask_;
  const auto& filter = entries<EP::kFilter>();
  Status status_out;
  auto run = [&](size_t i) -> bool {
    const auto& e = filter[i];
    Status s =
        Timed(record, e.metrics, EP::kFilter, [&] { return e.plugin->Filter(state, pod, node); });
    if (s.IsSuccess()) return true;
    filter_stops_[i].fetch_add(1, std::memory_order_relaxed);
    status_out = std::move(s.WithPlugin(e.name));
    return false;
  };
  if (mask) {
    // Only the plugins that run, in order: most cycles skip most Filter plugins, and this loop
    // runs once per node.
    const uint64_t all = filter.size() == 64 ? ~uint64_t{0} : (uint64_t{1} << filter.size()) - 1;
    for (uint64_t run_bits = all & ~*mask; run_bits != 0; run_bits &= run_bits - 1) {
      if (!run(static_cast<size_t>(std::countr_zero(run_bits)))) return status_out;
    }
  } else {
    for (size_t i = 0; i < filter.size(); ++i) {
      if (state.skip_filter_plugins_.count(filter[i].name)) continue;
      if (!run(i)) return status_out;
    }
  }
  filter_stops_[filter.size()].fetch_add(1, std::memory_order_relaxed);
  return {};
}

Status Framework::RunPreFilterExtensionAddPod(CycleState& state, const api::Pod& pod,
                                              const PodInfo& to_add, const NodeInfo& node) {
  for (auto& e : entries<EP::kPreFilter>()) {
    if (state.skip_filter_plugins_.count(e.name)) continue;
    if (auto* ext = e.plugin->Extensions()) {
      Status s = Timed(record_filter_metrics_.load(std::memory_order_relaxed), e.metrics,
                       EP::kPreFilterExtensionAddPod,
                       [&] { return ext->AddPod(state, pod, to_add, node); });
      if (!s.IsSuccess()) return std::move(s.WithPlugin(e.name));
    }
  }
  return {};
}

Status Framework::RunPreFilterExtensionRemovePod(CycleState& state, const api::Pod& pod,
                                                 const PodInfo& to_remove, const NodeInfo& node) {
  for (auto& e : entries<EP::kPreFilter>()) {
    if (state.skip_filter_plugins_.count(e.name)) continue;
    if (auto* ext = e.plugin->Extensions()) {
      Status s = Timed(record_filter_metrics_.load(std::memory_order_relaxed), e.metrics,
                       EP::kPreFilterExtensionRemovePod,
                       [&] { return ext->RemovePod(state, pod, to_remove, node); });
      if (!s.IsSuccess()) return std::move(s.WithPlugin(e.name));
    }
  }
  return {};
}

Status Framework::RunPostFilterPlugins(CycleState& state, const PodInfo& pod,
                                       const NodeToStatus& filtered, PluginsRunner& runner,
                                       NominatingInfo& result) {
  const bool record = ShouldRecordPluginMetrics(state);
  auto start = SteadyClock::now();
  // As upstream: the first success or unresolvable answer is final; otherwise the reasons of
  // all plugins, the first rejecting plugin, and the last nomination that changes something.
  std::vector<std::string> reasons;
  std::string rejector;
  result = {};
  for (auto& e : entries<EP::kPostFilter>()) {
    NominatingInfo r;
    Status s = Timed(record, e.metrics, EP::kPostFilter,
                     [&] { return e.plugin->PostFilter(state, pod, filtered, runner, r); });
    if (s.IsSuccess() || s.code() == Code::kUnschedulableAndUnresolvable || !s.IsRejected()) {
      if (!s.IsSuccess()) s.WithPlugin(e.name);
      if (s.IsError()) r = {};
      result = std::move(r);
      metrics_->ObserveExtensionPoint(EP::kPostFilter, CodeOf(s), Since(start));
      return s;
    }
    if (r.mode != NominatingInfo::Mode::kNoop) result = std::move(r);
    for (const auto& reason : s.reasons()) reasons.push_back(reason);
    if (rejector.empty()) rejector = e.name;
  }
  Status last(Code::kUnschedulable, std::move(reasons));
  last.WithPlugin(rejector);
  metrics_->ObserveExtensionPoint(EP::kPostFilter, CodeOf(last), Since(start));
  return last;
}

Status Framework::RunPreScorePlugins(CycleState& state, const PodInfo& pod,
                                     const std::vector<const NodeInfo*>& nodes) {
  const bool record = ShouldRecordPluginMetrics(state);
  auto start = SteadyClock::now();
  Status result;
  for (auto& e : entries<EP::kPreScore>()) {
    e.metrics->Evaluated(EP::kPreScore);
    Status s = Timed(record, e.metrics, EP::kPreScore,
                     [&] { return e.plugin->PreScore(state, pod, nodes); });
    if (s.IsSkip()) {
      state.skip_score_plugins_.insert(e.name);
      continue;
    }
    if (!s.IsSuccess()) {
      result = std::move(s.WithPlugin(e.name));
      break;
    }
  }
  metrics_->ObserveExtensionPoint(EP::kPreScore, CodeOf(result), Since(start));
  return result;
}

Status Framework::RunScorePlugins(const CycleState& state, const PodInfo& pod,
                                  const std::vector<const NodeInfo*>& nodes,
                                  std::vector<int64_t>& totals, std::vector<PluginScores>* detail) {
  auto start = SteadyClock::now();
  Status s = ScoreLoop(state, pod, nodes, totals, ShouldRecordPluginMetrics(state), detail);
  metrics_->ObserveExtensionPoint(EP::kScore, CodeOf(s), Since(start));
  return s;
}

Status Framework::ScoreLoop(const CycleState& state, const PodInfo& pod,
                            const std::vector<const NodeInfo*>& nodes, std::vector<int64_t>& totals,
                            bool record, std::vector<PluginScores>* detail) {
  totals.assign(nodes.size(), 0);
  if (detail != nullptr) detail->clear();
  std::vector<const Entry<ScorePlugin>*> active;
  for (const auto& e : entries<EP::kScore>()) {
    if (!state.skip_score_plugins_.count(e.name)) active.push_back(&e);
  }
  if (active.empty()) return {};
  // Kept per calling thread from one call to the next: allocated afresh, a cycle's lists (8
  // plugins x 500 nodes x 24 bytes at 5000 nodes) went back to the system at its end and were
  // faulted in again at the next, 40% of bench_cycle's page faults. Every entry is written below
  // before it is read, and no plugin calls back into this loop. The workers reach the caller's
  // lists through the reference (in the lambda the thread_local's name would be their own).
  thread_local std::vector<NodeScoreList> kept;
  std::vector<NodeScoreList>& scores = kept;
  if (scores.size() < active.size()) scores.resize(active.size());
  for (size_t p = 0; p < active.size(); ++p) scores[p].resize(nodes.size());
  Mutex err_mu;
  Status first_error;
  std::atomic<bool> failed{false};
  // As many workers as the pool puts on the nodes score at once (upstream counts goroutines).
  const double workers = static_cast<double>(
      std::min<size_t>(nodes.size(), std::max(1, handle_.parallelizer().parallelism())));
  score_goroutines_->Increment(workers);
  handle_.parallelizer().Until(
      nodes.size(),
      [&](size_t i) {
        const std::string_view name = nodes[i]->name();
        for (size_t p = 0; p < active.size(); ++p) {
          int64_t score = 0;
          Status s = Timed(record, active[p]->metrics, EP::kScore,
                           [&] { return active[p]->plugin->Score(state, pod, *nodes[i], score); });
          if (!s.IsSuccess()) {
            MutexLock l(err_mu);
            if (!failed.exchange(true)) first_error = std::move(s.WithPlugin(active[p]->name));
            return;
          }
          scores[p][i] = {name, score};
        }
      },
      [&] { return failed.load(std::memory_order_relaxed); });
  score_goroutines_->Decrement(workers);
  // Every active plugin scored every node (on an error the loop stopped early; counted alike).
  for (const auto* e : active) e->metrics->Evaluated(EP::kScore, nodes.size());
  if (failed) return first_error;
  for (size_t p = 0; p < active.size(); ++p) {
    PluginScores* d = nullptr;
    if (detail != nullptr) {
      d = &detail->emplace_back(PluginScores{active[p]->name, active[p]->weight, {}, {}});
      for (const auto& ns : scores[p]) d->raw.push_back(ns.score);
    }
    if (auto* ext = active[p]->plugin->Extensions()) {
      Status s = Timed(record, active[p]->metrics, EP::kScoreExtensionNormalize,
                       [&] { return ext->NormalizeScore(state, pod, scores[p]); });
      if (!s.IsSuccess()) return std::move(s.WithPlugin(active[p]->name));
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      int64_t s = scores[p][i].score;
      if (s < kMinNodeScore || s > kMaxNodeScore) {
        return std::move(Status::Error("plugin \"" + active[p]->name +
                                       "\" returns an invalid "
                                       "score " +
                                       std::to_string(s) +
                                       ", it should in the range "
                                       "of [0, 100] after normalizing")
                             .WithPlugin(active[p]->name));
      }
      totals[i] += s * active[p]->weight;
      if (d != nullptr) d->normalized.push_back(s);
    }
  }
  return {};
}

Status Framework::RunReservePluginsReserve(CycleState& state, const api::Pod& pod,
                                           std::string_view node) {
  const bool record = ShouldRecordPluginMetrics(state);
  auto start = SteadyClock::now();
  Status result;
  for (auto& e : entries<EP::kReserve>()) {
    Status s =
        Timed(record, e.metrics, EP::kReserve, [&] { return e.plugin->Reserve(state, pod, node); });
    if (!s.IsSuccess()) {
      result = std::move(s.WithPlugin(e.name));
      break;
    }
  }
  metrics_->ObserveExtensionPoint(EP::kReserve, CodeOf(result), Since(start));
  return result;
}

void Framework::RunReservePluginsUnreserve(CycleState& state, const api::Pod& pod,
                                           std::string_view node) {
  const bool record = ShouldRecordPluginMetrics(state);
  auto start = SteadyClock::now();
  const auto& reserve = entries<EP::kReserve>();
  for (auto it = reserve.rbegin(); it != reserve.rend(); ++it) {
    Timed(record, it->metrics, EP::kUnreserve, [&] {
      it->plugin->Unreserve(state, pod, node);
      return Status();
    });
  }
  metrics_->ObserveExtensionPoint(EP::kUnreserve, CodeOf(Status()), Since(start));
}

Status Framework::RunPermitPlugins(CycleState& state, const api::Pod& pod, std::string_view node,
                                   std::chrono::milliseconds& wait) {
  const bool record = ShouldRecordPluginMetrics(state);
  auto start = SteadyClock::now();
  Status s = PermitLoop(state, pod, node, wait, record);
  metrics_->ObserveExtensionPoint(EP::kPermit, CodeOf(s), Since(start));
  return s;
}

Status Framework::PermitLoop(CycleState& state, const api::Pod& pod, std::string_view node,
                             std::chrono::milliseconds& wait, bool record) {
  wait = std::chrono::milliseconds::zero();
  std::map<std::string, std::chrono::milliseconds> pending;
  for (auto& e : entries<EP::kPermit>()) {
    std::chrono::milliseconds timeout{0};
    Status s = Timed(record, e.metrics, EP::kPermit,
                     [&] { return e.plugin->Permit(state, pod, node, timeout); });
    if (s.IsWait()) {
      pending[e.name] = std::min(timeout, kMaxPermitWait);
      wait = std::max(wait, pending[e.name]);
      continue;
    }
    if (!s.IsSuccess()) return std::move(s.WithPlugin(e.name));
  }
  if (pending.empty()) return {};
  MutexLock l(waiting_mu_);
  waiting_[pod.metadata.uid] = std::make_shared<WaitingPodImpl>(pod, std::move(pending));
  return Status(Code::kWait);
}

Status Framework::WaitOnPermit(const api::Pod& pod) {
  std::shared_ptr<WaitingPod> w = GetWaitingPod(pod.metadata.uid);
  if (!w) return {};
  auto start = SteadyClock::now();
  Status s = static_cast<WaitingPodImpl&>(*w).Wait();
  metrics::PermitWaitDuration(CodeOf(s)).Observe(Since(start));
  MutexLock l(waiting_mu_);
  waiting_.erase(pod.metadata.uid);
  return s;
}

std::shared_ptr<WaitingPod> Framework::GetWaitingPod(std::string_view uid) const {
  MutexLock l(waiting_mu_);
  auto it = waiting_.find(uid);
  return it == waiting_.end() ? nullptr : it->second;
}

void Framework::RejectWaitingPods(const std::string& message) {
  std::vector<std::shared_ptr<WaitingPod>> pods;
  {
    MutexLock l(waiting_mu_);
    for (const auto& [uid, w] : waiting_) pods.push_back(w);
  }
  for (const auto& w : pods) w->Reject("", message);  // outside the lock: Reject wakes waiters
}

Status Framework::RunPreBindPreFlights(CycleState& state, const api::Pod& pod,
                                       std::string_view node) {
  const bool record = ShouldRecordPluginMetrics(state);
  auto start = SteadyClock::now();
  Status result = Status::Skip();
  for (auto& e : entries<EP::kPreBind>()) {
    Status s = Timed(record, e.metrics, EP::kPreBindPreFlight,
                     [&] { return e.plugin->PreBindPreFlight(state, pod, node); });
    if (s.IsSkip()) continue;
    if (s.code() == framework::Code::kError) {
      result = Status::Error("running PreBindPreFlight \"" + e.name + "\": " + s.Message());
    } else if (!s.IsSuccess()) {
      result = Status::Error("PreBindPreFlight " + e.name + " returned \"" +
                             std::string(framework::CodeName(s.code())) +
                             "\", which is unsupported. It is supposed to return Success, "
                             "Skip, or Error status");
    }
    if (!s.IsSuccess()) {
      result.WithPlugin(e.name);
      break;
    }
    result = Status();
  }
  metrics_->ObserveExtensionPoint(EP::kPreBindPreFlight, CodeOf(result), Since(start));
  return result;
}

Status Framework::RunPreBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node) {
  const bool record = ShouldRecordPluginMetrics(state);
  auto start = SteadyClock::now();
  Status result;
  for (auto& e : entries<EP::kPreBind>()) {
    Status s =
        Timed(record, e.metrics, EP::kPreBind, [&] { return e.plugin->PreBind(state, pod, node); });
    if (s.IsSkip()) continue;
    if (s.IsRejected()) {
      result = std::move(s.WithPlugin(e.name));
      break;
    }
    if (!s.IsSuccess()) {
      // As upstream, an error names the plugin it came from.
      result = Status::Error("running PreBind plugin \"" + e.name + "\": " + s.Message());
      result.WithPlugin(e.name);
      break;
    }
  }
  metrics_->ObserveExtensionPoint(EP::kPreBind, CodeOf(result), Since(start));
  return result;
}

Status Framework::RunBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node) {
  const bool record = ShouldRecordPluginMetrics(state);
  auto start = SteadyClock::now();
  Status result = Status::Error("all bind plugins skipped the pod");
  for (auto& e : entries<EP::kBind>()) {
    Status s =
        Timed(record, e.metrics, EP::kBind, [&] { return e.plugin->Bind(state, pod, node); });
    if (s.IsSkip()) continue;
    if (!s.IsSuccess()) s.WithPlugin(e.name);
    result = std::move(s);
    break;
  }
  metrics_->ObserveExtensionPoint(EP::kBind, CodeOf(result), Since(start));
  return result;
}

void Framework::RunPostBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node) {
  const bool record = ShouldRecordPluginMetrics(state);
  auto start = SteadyClock::now();
  for (auto& e : entries<EP::kPostBind>()) {
    Timed(record, e.metrics, EP::kPostBind, [&] {
      e.plugin->PostBind(state, pod, node);
      return Status();
    });
  }
  metrics_->ObserveExtensionPoint(EP::kPostBind, CodeOf(Status()), Since(start));
}

std::vector<PluginEvent> Framework::EventsToRegister() const {
  std::vector<PluginEvent> out;
  for (const auto& [name, plugin] : plugins_) {
    if (auto* ext = dynamic_cast<const EnqueueExtensions*>(plugin.get())) {
      for (auto& ev : ext->EventsToRegister()) out.push_back({name, std::move(ev)});
    }
  }
  return out;
}

}  // namespace stowage::framework
