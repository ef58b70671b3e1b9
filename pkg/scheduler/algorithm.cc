#include "pkg/scheduler/algorithm.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <unordered_map>

#include "pkg/common/logging.h"
#include "pkg/metrics/metrics.h"

namespace stowage::scheduler {

using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

namespace {
constexpr size_t kMinFeasibleNodesToFind = 100;
constexpr int kMinFeasibleNodesPercentageToFind = 5;
// goroutines{operation} while extenders prioritize (upstream's metrics.PrioritizingExtender).
constexpr std::string_view kPrioritizingExtender = "prioritizing_extender";

bool AnyFiltersOrScores(const std::vector<framework::Extender*>& extenders) {
  for (const auto* e : extenders) {
    if (e->IsFilter() || e->IsPrioritizer()) return true;
  }
  return false;
}
}  // namespace

Algorithm::Algorithm(const framework::NodeInfoLister& snapshot, framework::Parallelizer& pool,
                     std::optional<int32_t> percentage_of_nodes_to_score,
                     std::vector<framework::Extender*> extenders)
    : snapshot_(snapshot),
      pool_(pool),
      percentage_of_nodes_to_score_(percentage_of_nodes_to_score),
      extenders_(std::move(extenders)),
      extenders_filter_or_score_(AnyFiltersOrScores(extenders_)) {}

size_t Algorithm::NumFeasibleNodesToFind(const framework::Framework& fw, size_t all) const {
  if (all < kMinFeasibleNodesToFind) return all;
  int pct =
      fw.spec().percentage_of_nodes_to_score.value_or(percentage_of_nodes_to_score_.value_or(0));
  if (pct == 0) {
    pct = 50 - static_cast<int>(all / 125);
    if (pct < kMinFeasibleNodesPercentageToFind) pct = kMinFeasibleNodesPercentageToFind;
  }
  size_t n = all * static_cast<size_t>(pct) / 100;
  return std::max(n, kMinFeasibleNodesToFind);
}

Status FilterWithNominatedPods(framework::Framework& fw, const CycleState& state,
                               const PodInfo& pod, const NodeInfo& node,
                               const NominatedPods& nominated) {
  if (!nominated.empty()) {
    auto it = nominated.find(node.name());
    if (it != nominated.end()) {
      int32_t priority = pod->spec.priority.value_or(0);
      std::vector<const framework::PodInfoPtr*> add;
      for (const auto& p : it->second) {
        if (p->pod->metadata.uid != pod->metadata.uid &&
            p->pod->spec.priority.value_or(0) >= priority) {
          add.push_back(&p);
        }
      }
      if (!add.empty()) {
        NodeInfo with = node;
        auto with_state = state.Clone();
        for (const auto* p : add) {
          with.AddPodInfo(*p);
          Status s = fw.RunPreFilterExtensionAddPod(*with_state, *pod.pod, **p, with);
          if (!s.IsSuccess()) return s;
        }
        Status s = fw.RunFilterPlugins(*with_state, pod, with);
        if (!s.IsSuccess()) return s;
      }
    }
  }
  return fw.RunFilterPlugins(state, pod, node);
}

Status Algorithm::FindNodesThatFit(framework::Framework& fw, CycleState& state, const PodInfo& pod,
                                   const NominatedPods& nominated, FitError& fit) {
  const auto& all = snapshot_.List();
  feasible_.clear();
  rejected_ = 0;
  framework::PreFilterResult pre;
  Status s = fw.RunPreFilterPlugins(state, pod, all, pre, fit.unschedulable_plugins);
  if (!s.IsSuccess()) {
    if (!s.IsRejected()) return s;
    fit.pre_filter_msg = s.Message();
    for (const auto* n : all) fit.node_statuses.emplace_back(n->name(), s);
    rejected_ = all.size();
    return s;
  }
  // On success the set holds exactly the plugins whose results narrowed the nodes.
  const std::set<std::string> narrowing = fit.unschedulable_plugins;
  candidates_.clear();
  if (pre.node_names) {
    for (const auto& name : *pre.node_names) {
      if (const NodeInfo* n = snapshot_.Get(name)) candidates_.push_back(n);
    }
  }
  const std::vector<const NodeInfo*>& nodes = pre.node_names ? candidates_ : all;
  // A pod nominated to a node (e.g. after preemption) tries that node first, alone.
  const std::string& nominated_node = pod->status.nominated_node_name;
  if (!nominated_node.empty()) {
    const NodeInfo* n = snapshot_.Get(nominated_node);
    if (n && (!pre.node_names || pre.node_names->count(nominated_node)) &&
        FilterWithNominatedPods(fw, state, pod, *n, nominated).IsSuccess()) {
      feasible_.push_back(n);
      // As upstream, the extenders must accept the node too; if they fail, the full search
      // runs (and asks them again).
      if (extenders_.empty()) return {};
      if (Status es = FilterWithExtenders(*pod.pod, nullptr); !es.IsSuccess()) {
        LOG_ERROR("Evaluation failed on nominated node pod=\"{}\" node=\"{}\": {}",
                  api::NamespacedName(pod->metadata), nominated_node, es.Message());
        feasible_.clear();
      }
      if (!feasible_.empty()) return {};
    }
  }
  size_t n = nodes.size();
  size_t to_find = fw.HasScorePlugins() || extenders_filter_or_score_
                       ? NumFeasibleNodesToFind(fw, n)
                       : std::min<size_t>(1, n);
  if (statuses_.size() < n) statuses_.resize(n);
  if (failed_.size() < n) failed_.resize(n);
  outcome_.assign(n, kUnvisited);
  std::atomic<size_t> found{0};
  std::atomic<size_t> failed_count{0};
  std::atomic<bool> error{false};
  size_t start = pre.node_names ? 0 : next_start_node_index_ % std::max<size_t>(n, 1);
  // The Filter phase as one extension point (upstream times findNodesThatPassFilters).
  const auto filter_start = std::chrono::steady_clock::now();
  pool_.Until(
      n,
      [&](size_t i) {
        size_t idx = (start + i) % n;
        Status st = FilterWithNominatedPods(fw, state, pod, *nodes[idx], nominated);
        if (st.IsSuccess()) {
          outcome_[idx] = kPassed;
          found.fetch_add(1);
          return;
        }
        if (st.IsError()) error = true;
        statuses_[idx] = std::move(st);
        outcome_[idx] = kFailed;
        failed_[failed_count.fetch_add(1, std::memory_order_relaxed)] = static_cast<uint32_t>(idx);
      },
      [&] { return found.load() >= to_find || error.load(); });
  fw.metrics().ObserveExtensionPoint(
      framework::ExtensionPoint::kFilter,
      static_cast<uint8_t>(error.load() ? framework::Code::kError : framework::Code::kSuccess),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - filter_start).count());
  size_t num_feasible = std::min(found.load(), to_find);
  // Gathered in search order rather than completion order, so that a tie between nodes is
  // broken the same way by one seed however the threads ran (stowage simulate relies on it).
  for (size_t i = 0; i < n && feasible_.size() < num_feasible; ++i) {
    size_t idx = (start + i) % n;
    if (outcome_[idx] == kPassed) feasible_.push_back(nodes[idx]);
  }
  size_t processed = num_feasible;
  Status first_error;
  // In node order, as a walk of every node would find them.
  const auto failed_end = failed_.begin() + static_cast<std::ptrdiff_t>(failed_count.load());
  std::sort(failed_.begin(), failed_end);
  // The rejections matter only when no node passed (the FitError, PostFilter) or an extender
  // may yet reject the rest; a pod that found its node skips a copy of every rejected node's
  // name, which a pod whose claim holds it to one node of 5000 pays per cycle otherwise.
  const bool keep = num_feasible == 0 || !extenders_.empty();
  if (keep) fit.node_statuses.reserve(fit.node_statuses.size() + failed_count.load());
  for (auto it = failed_.begin(); it != failed_end; ++it) {
    const size_t i = *it;
    ++processed;
    Status st = std::move(statuses_[i]);
    statuses_[i] = Status();
    if (st.IsError()) {
      if (first_error.IsSuccess()) first_error = std::move(st);
      continue;
    }
    if (!keep) continue;
    fit.unschedulable_plugins.insert(st.plugin());
    fit.node_statuses.emplace_back(nodes[i]->name(), std::move(st));
  }
  rejected_ = processed - num_feasible;
  if (!first_error.IsSuccess()) return first_error;
  if (!pre.node_names) {
    next_start_node_index_ = (next_start_node_index_ + processed) % std::max<size_t>(all.size(), 1);
  } else {
    // Nodes the PreFilter result left out are rejected by the plugins that narrowed it.
    const std::string excluded = framework::PreFilterExcludedMessage(narrowing);
    for (const auto* node : all) {
      if (pre.node_names->count(node->name())) continue;
      ++rejected_;
      if (keep) fit.node_statuses.emplace_back(node->name(), Status::Unresolvable(excluded));
    }
  }
  if (!extenders_.empty()) return FilterWithExtenders(*pod.pod, &fit);
  return {};
}

Status Algorithm::FilterWithExtenders(const api::Pod& pod, FitError* fit) {
  const size_t before = feasible_.size();
  framework::ExtenderFilterResult r;
  for (framework::Extender* e : extenders_) {
    if (feasible_.empty()) break;
    if (!e->IsInterested(pod)) continue;
    if (stowage::Status s = e->Filter(pod, feasible_, r); !s.ok()) {
      if (e->IsIgnorable()) {
        LOG_INFO(
            "Skipping extender as it returned error and has ignorable flag set extender=\"{}\" "
            "err=\"{}\"",
            e->Name(), s.message());
        continue;
      }
      return Status::Error(std::string(s.message()));
    }
    if (fit != nullptr) {
      // Unresolvable rejections let preemption skip the node; they win over plain ones.
      for (auto& [node, msg] : r.failed_and_unresolvable) {
        fit->node_statuses.emplace_back(node, Status::Unresolvable(std::move(msg)));
      }
      for (auto& [node, msg] : r.failed) {
        bool unresolvable = false;
        for (const auto& u : r.failed_and_unresolvable) unresolvable |= u.first == node;
        if (!unresolvable) fit->node_statuses.emplace_back(node, Status::Unschedulable(msg));
      }
    }
    feasible_ = std::move(r.feasible);
  }
  // No queueing hint covers an extender: any cluster event may requeue the pod (upstream's
  // ExtenderName among the unschedulable plugins).
  if (fit != nullptr && feasible_.size() != before) {
    fit->unschedulable_plugins.insert(std::string(framework::kExtenderName));
  }
  return {};
}

void Algorithm::PrioritizeWithExtenders(const api::Pod& pod) {
  std::vector<framework::Extender*> interested;
  for (framework::Extender* e : extenders_) {
    if (e->IsInterested(pod)) interested.push_back(e);
  }
  if (interested.empty()) return;
  std::vector<std::vector<framework::HostPriority>> results(interested.size());
  std::vector<uint8_t> ok(interested.size(), 0);
  auto run = [&](size_t i) {
    prometheus::Gauge& g = metrics::Goroutines(kPrioritizingExtender);
    g.Increment();
    stowage::Status s = interested[i]->Prioritize(pod, feasible_, results[i]);
    g.Decrement();
    if (s.ok()) {
      ok[i] = 1;
    } else {
      VLOG(5,
           "Failed to run extender's priority function. No score given by this extender. "
           "error=\"{}\" pod=\"{}\" extender=\"{}\"",
           s.message(), api::NamespacedName(pod.metadata), interested[i]->Name());
    }
  };
  // Each extender on a thread of its own, the last on this one, as upstream's goroutines.
  std::vector<std::thread> threads;
  for (size_t i = 0; i + 1 < interested.size(); ++i) threads.emplace_back(run, i);
  run(interested.size() - 1);
  for (auto& t : threads) t.join();
  std::unordered_map<std::string_view, size_t> index;
  for (size_t i = 0; i < feasible_.size(); ++i) index.emplace(feasible_[i]->name(), i);
  for (size_t i = 0; i < interested.size(); ++i) {
    if (!ok[i]) continue;
    for (const auto& hp : results[i]) {
      auto it = index.find(hp.host);
      if (it == index.end()) continue;
      scores_[it->second] += framework::ExtenderNodeScore(hp.score, interested[i]->weight());
    }
  }
}

const std::string& Algorithm::SelectHost() {
  // Uniform choice among the best-scoring nodes (reservoir sampling).
  size_t best = 0;
  uint64_t ties = 0;
  for (size_t i = 0; i < feasible_.size(); ++i) {
    if (i == 0 || scores_[i] > scores_[best]) {
      best = i;
      ties = 1;
    } else if (scores_[i] == scores_[best] && rng_() % ++ties == 0) {
      best = i;
    }
  }
  return feasible_[best]->name();
}

Status Algorithm::SchedulePod(framework::Framework& fw, CycleState& state, const PodInfo& pod,
                              const NominatedPods& nominated, ScheduleResult& result,
                              FitError& fit) {
  fit.num_all_nodes = static_cast<int>(snapshot_.List().size());
  if (snapshot_.List().empty()) return Status::Unresolvable("no nodes available to schedule pods");
  Status s = FindNodesThatFit(fw, state, pod, nominated, fit);
  if (!s.IsSuccess() && !s.IsRejected()) return s;
  result.evaluated = static_cast<int>(feasible_.size() + rejected_);
  result.feasible = static_cast<int>(feasible_.size());
  if (feasible_.empty()) return Status::Unschedulable("no feasible node");
  if (feasible_.size() == 1) {
    result.host = feasible_[0]->name();
    return {};
  }
  if (Status ps = fw.RunPreScorePlugins(state, pod, feasible_); !ps.IsSuccess()) return ps;
  if (Status ss = fw.RunScorePlugins(state, pod, feasible_, scores_); !ss.IsSuccess()) return ss;
  if (!extenders_.empty()) {
    PrioritizeWithExtenders(*pod.pod);
  } else if (!fw.HasScorePlugins()) {
    scores_.assign(feasible_.size(), 1);
  }
  result.host = SelectHost();
  return {};
}

}  // namespace stowage::scheduler
