#include "pkg/framework/runtime.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>

namespace stowage::framework {

namespace {
constexpr std::chrono::milliseconds kMaxPermitWait = std::chrono::minutes(15);

template <typename P, typename E>
stowage::Status Collect(const std::vector<PluginSpec>& specs, const char* point,
                        const std::string& profile,
                        std::map<std::string, std::unique_ptr<Plugin>, std::less<>>& plugins,
                        std::vector<E>& out) {
  for (const auto& s : specs) {
    auto* p = dynamic_cast<P*>(plugins.at(s.name).get());
    if (p == nullptr) {
      return InvalidArgumentError("profile \"" + profile + "\": plugin \"" + s.name +
                                  "\" does not extend " + point);
    }
    out.push_back({p, s.name, s.weight});
  }
  return OkStatus();
}
}  // namespace

StatusOr<std::unique_ptr<Framework>> Framework::New(const Registry& registry,
                                                    const ProfileSpec& spec, Handle& handle) {
  std::unique_ptr<Framework> f(new Framework(spec, handle));
  const std::string& profile = spec.scheduler_name;
  for (const auto* list : {&spec.pre_enqueue, &spec.queue_sort, &spec.pre_filter, &spec.filter,
                           &spec.post_filter, &spec.pre_score, &spec.score, &spec.reserve,
                           &spec.permit, &spec.pre_bind, &spec.bind, &spec.post_bind}) {
    for (const auto& s : *list) {
      if (f->plugins_.count(s.name)) continue;
      const PluginFactory* factory = registry.Find(s.name);
      if (factory == nullptr) {
        return NotFoundError("profile \"" + profile + "\": plugin \"" + s.name +
                             "\" does not exist");
      }
      static const std::any kNoArgs;
      auto it = spec.args.find(s.name);
      auto plugin = (*factory)(it == spec.args.end() ? kNoArgs : it->second, handle);
      if (!plugin.ok()) {
        return plugin.status().WithPrefix("profile \"" + profile + "\": initializing plugin \"" +
                                          s.name + "\"");
      }
      f->plugins_.emplace(s.name, std::move(*plugin));
    }
  }
  std::vector<Entry<PreEnqueuePlugin>> pre_enqueue;
  std::vector<Entry<QueueSortPlugin>> queue_sort;
  RETURN_IF_ERROR((Collect<PreEnqueuePlugin>(spec.pre_enqueue, "PreEnqueue", profile, f->plugins_, pre_enqueue)));
  RETURN_IF_ERROR((Collect<QueueSortPlugin>(spec.queue_sort, "QueueSort", profile, f->plugins_, queue_sort)));
  RETURN_IF_ERROR((Collect<PreFilterPlugin>(spec.pre_filter, "PreFilter", profile, f->plugins_, f->pre_filter_)));
  RETURN_IF_ERROR((Collect<FilterPlugin>(spec.filter, "Filter", profile, f->plugins_, f->filter_)));
  RETURN_IF_ERROR((Collect<PostFilterPlugin>(spec.post_filter, "PostFilter", profile, f->plugins_, f->post_filter_)));
  RETURN_IF_ERROR((Collect<PreScorePlugin>(spec.pre_score, "PreScore", profile, f->plugins_, f->pre_score_)));
  RETURN_IF_ERROR((Collect<ScorePlugin>(spec.score, "Score", profile, f->plugins_, f->score_)));
  RETURN_IF_ERROR((Collect<ReservePlugin>(spec.reserve, "Reserve", profile, f->plugins_, f->reserve_)));
  RETURN_IF_ERROR((Collect<PermitPlugin>(spec.permit, "Permit", profile, f->plugins_, f->permit_)));
  RETURN_IF_ERROR((Collect<PreBindPlugin>(spec.pre_bind, "PreBind", profile, f->plugins_, f->pre_bind_)));
  RETURN_IF_ERROR((Collect<BindPlugin>(spec.bind, "Bind", profile, f->plugins_, f->bind_)));
  RETURN_IF_ERROR((Collect<PostBindPlugin>(spec.post_bind, "PostBind", profile, f->plugins_, f->post_bind_)));
  for (auto& e : pre_enqueue) f->pre_enqueue_.push_back(e.plugin);
  if (queue_sort.size() != 1) {
    return InvalidArgumentError("profile \"" + profile + "\": exactly one queueSort plugin is "
                                "required, found " + std::to_string(queue_sort.size()));
  }
  f->queue_sort_ = queue_sort[0].plugin;
  if (f->bind_.empty()) {
    return InvalidArgumentError("profile \"" + profile + "\": at least one bind plugin is required");
  }
  return f;
}

Status Framework::RunPreEnqueuePlugins(const api::Pod& pod) const {
  for (auto* p : pre_enqueue_) {
    Status s = p->PreEnqueue(pod);
    if (!s.IsSuccess()) return std::move(s.WithPlugin(p->Name()));
  }
  return {};
}

bool Framework::QueueSortLess(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  return queue_sort_->Less(a, b);
}

Status Framework::RunPreFilterPlugins(CycleState& state, const PodInfo& pod,
                                      const std::vector<const NodeInfo*>& nodes,
                                      PreFilterResult& result,
                                      std::set<std::string>& unschedulable_plugins) {
  for (auto& e : pre_filter_) {
    PreFilterResult r;
    Status s = e.plugin->PreFilter(state, pod, nodes, r);
    if (s.IsSkip()) {
      state.skip_filter_plugins.insert(e.name);
      continue;
    }
    if (!s.IsSuccess()) {
      s.WithPlugin(e.name);
      if (s.IsRejected()) unschedulable_plugins.insert(e.name);
      return s;
    }
    if (r.node_names) {
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
        unschedulable_plugins.insert(e.name);
        return std::move(Status::Unresolvable("node(s) didn't satisfy plugin(s) [" + e.name + "]")
                             .WithPlugin(e.name));
      }
    }
  }
  return {};
}

Status Framework::RunFilterPlugins(const CycleState& state, const PodInfo& pod,
                                   const NodeInfo& node) const {
  for (const auto& e : filter_) {
    if (!state.skip_filter_plugins.empty() && state.skip_filter_plugins.count(e.name)) continue;
    Status s = e.plugin->Filter(state, pod, node);
    if (!s.IsSuccess()) return std::move(s.WithPlugin(e.name));
  }
  return {};
}

Status Framework::RunPreFilterExtensionAddPod(CycleState& state, const api::Pod& pod,
                                              const PodInfo& to_add, const NodeInfo& node) {
  for (auto& e : pre_filter_) {
    if (state.skip_filter_plugins.count(e.name)) continue;
    if (auto* ext = e.plugin->Extensions()) {
      Status s = ext->AddPod(state, pod, to_add, node);
      if (!s.IsSuccess()) return std::move(s.WithPlugin(e.name));
    }
  }
  return {};
}

Status Framework::RunPreFilterExtensionRemovePod(CycleState& state, const api::Pod& pod,
                                                 const PodInfo& to_remove, const NodeInfo& node) {
  for (auto& e : pre_filter_) {
    if (state.skip_filter_plugins.count(e.name)) continue;
    if (auto* ext = e.plugin->Extensions()) {
      Status s = ext->RemovePod(state, pod, to_remove, node);
      if (!s.IsSuccess()) return std::move(s.WithPlugin(e.name));
    }
  }
  return {};
}

Status Framework::RunPostFilterPlugins(CycleState& state, const PodInfo& pod,
                                       const NodeToStatus& filtered, NominatingInfo& result) {
  Status last = Status::Unschedulable("");
  for (auto& e : post_filter_) {
    Status s = e.plugin->PostFilter(state, pod, filtered, result);
    if (s.IsSuccess()) return s;
    if (!s.IsRejected()) return std::move(s.WithPlugin(e.name));
    last = std::move(s.WithPlugin(e.name));
  }
  return last;
}

Status Framework::RunPreScorePlugins(CycleState& state, const PodInfo& pod,
                                     const std::vector<const NodeInfo*>& nodes) {
  for (auto& e : pre_score_) {
    Status s = e.plugin->PreScore(state, pod, nodes);
    if (s.IsSkip()) {
      state.skip_score_plugins.insert(e.name);
      continue;
    }
    if (!s.IsSuccess()) return std::move(s.WithPlugin(e.name));
  }
  return {};
}

Status Framework::RunScorePlugins(const CycleState& state, const PodInfo& pod,
                                  const std::vector<const NodeInfo*>& nodes,
                                  std::vector<int64_t>& totals) {
  totals.assign(nodes.size(), 0);
  std::vector<const Entry<ScorePlugin>*> active;
  for (const auto& e : score_) {
    if (!state.skip_score_plugins.count(e.name)) active.push_back(&e);
  }
  if (active.empty()) return {};
  std::vector<NodeScoreList> scores(active.size(), NodeScoreList(nodes.size()));
  std::mutex err_mu;
  Status first_error;
  std::atomic<bool> failed{false};
  handle_.parallelizer().Until(
      nodes.size(),
      [&](size_t i) {
        for (size_t p = 0; p < active.size(); ++p) {
          int64_t score = 0;
          Status s = active[p]->plugin->Score(state, pod, *nodes[i], score);
          if (!s.IsSuccess()) {
            std::lock_guard<std::mutex> l(err_mu);
            if (!failed.exchange(true)) first_error = std::move(s.WithPlugin(active[p]->name));
            return;
          }
          scores[p][i] = {nodes[i]->name(), score};
        }
      },
      [&] { return failed.load(std::memory_order_relaxed); });
  if (failed) return first_error;
  for (size_t p = 0; p < active.size(); ++p) {
    if (auto* ext = active[p]->plugin->Extensions()) {
      Status s = ext->NormalizeScore(state, pod, scores[p]);
      if (!s.IsSuccess()) return std::move(s.WithPlugin(active[p]->name));
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      int64_t s = scores[p][i].score;
      if (s < kMinNodeScore || s > kMaxNodeScore) {
        return std::move(Status::Error("plugin \"" + active[p]->name + "\" returns an invalid "
                                       "score " + std::to_string(s) + ", it should in the range "
                                       "of [0, 100] after normalizing")
                             .WithPlugin(active[p]->name));
      }
      totals[i] += s * active[p]->weight;
    }
  }
  return {};
}

Status Framework::RunReservePluginsReserve(CycleState& state, const api::Pod& pod,
                                           std::string_view node) {
  for (auto& e : reserve_) {
    Status s = e.plugin->Reserve(state, pod, node);
    if (!s.IsSuccess()) return std::move(s.WithPlugin(e.name));
  }
  return {};
}

void Framework::RunReservePluginsUnreserve(CycleState& state, const api::Pod& pod,
                                           std::string_view node) {
  for (auto it = reserve_.rbegin(); it != reserve_.rend(); ++it) it->plugin->Unreserve(state, pod, node);
}

namespace {
class WaitingPodImpl final : public WaitingPod {
 public:
  WaitingPodImpl(api::Pod pod, std::map<std::string, std::chrono::milliseconds> pending)
      : pod_(std::move(pod)), pending_(std::move(pending)) {}
  const api::Pod& pod() const override { return pod_; }
  std::vector<std::string> pending_plugins() const override {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<std::string> out;
    for (const auto& [name, t] : pending_) out.push_back(name);
    return out;
  }
  void Allow(std::string_view plugin) override {
    std::lock_guard<std::mutex> l(mu_);
    pending_.erase(std::string(plugin));
    cv_.notify_all();
  }
  void Reject(std::string_view plugin, std::string message) override {
    std::lock_guard<std::mutex> l(mu_);
    if (rejection_.IsSuccess()) {
      rejection_ = std::move(Status::Unschedulable(std::move(message)).WithPlugin(plugin));
    }
    cv_.notify_all();
  }
  // Waits until allowed, rejected, or the shortest pending plugin's timeout.
  Status Wait() {
    std::unique_lock<std::mutex> l(mu_);
    auto start = std::chrono::steady_clock::now();
    while (rejection_.IsSuccess() && !pending_.empty()) {
      auto first = std::min_element(pending_.begin(), pending_.end(),
                                    [](const auto& a, const auto& b) { return a.second < b.second; });
      auto deadline = start + first->second;
      if (cv_.wait_until(l, deadline) == std::cv_status::timeout &&
          std::chrono::steady_clock::now() >= deadline && pending_.count(first->first)) {
        return std::move(Status::Unschedulable("rejected due to timeout after waiting " +
                                               std::to_string(first->second.count()) +
                                               "ms at plugin " + first->first)
                             .WithPlugin(first->first));
      }
    }
    return rejection_;
  }

 private:
  const api::Pod pod_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::chrono::milliseconds> pending_;  // plugin -> its timeout
  Status rejection_;
};
}  // namespace

Status Framework::RunPermitPlugins(CycleState& state, const api::Pod& pod, std::string_view node,
                                   std::chrono::milliseconds& wait) {
  wait = std::chrono::milliseconds::zero();
  std::map<std::string, std::chrono::milliseconds> pending;
  for (auto& e : permit_) {
    std::chrono::milliseconds timeout{0};
    Status s = e.plugin->Permit(state, pod, node, timeout);
    if (s.IsWait()) {
      pending[e.name] = std::min(timeout, kMaxPermitWait);
      wait = std::max(wait, pending[e.name]);
      continue;
    }
    if (!s.IsSuccess()) return std::move(s.WithPlugin(e.name));
  }
  if (pending.empty()) return {};
  std::lock_guard<std::mutex> l(waiting_mu_);
  waiting_[pod.metadata.uid] = std::make_shared<WaitingPodImpl>(pod, std::move(pending));
  return Status(Code::kWait);
}

Status Framework::WaitOnPermit(const api::Pod& pod) {
  std::shared_ptr<WaitingPod> w = GetWaitingPod(pod.metadata.uid);
  if (!w) return {};
  Status s = static_cast<WaitingPodImpl&>(*w).Wait();
  std::lock_guard<std::mutex> l(waiting_mu_);
  waiting_.erase(pod.metadata.uid);
  return s;
}

std::shared_ptr<WaitingPod> Framework::GetWaitingPod(std::string_view uid) const {
  std::lock_guard<std::mutex> l(waiting_mu_);
  auto it = waiting_.find(uid);
  return it == waiting_.end() ? nullptr : it->second;
}

Status Framework::RunPreBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node) {
  for (auto& e : pre_bind_) {
    Status s = e.plugin->PreBind(state, pod, node);
    if (s.IsSkip()) continue;
    if (!s.IsSuccess()) return std::move(s.WithPlugin(e.name));
  }
  return {};
}

Status Framework::RunBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node) {
  for (auto& e : bind_) {
    Status s = e.plugin->Bind(state, pod, node);
    if (s.IsSkip()) continue;
    if (!s.IsSuccess()) s.WithPlugin(e.name);
    return s;
  }
  return Status::Error("all bind plugins skipped the pod");
}

void Framework::RunPostBindPlugins(CycleState& state, const api::Pod& pod, std::string_view node) {
  for (auto& e : post_bind_) e.plugin->PostBind(state, pod, node);
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
