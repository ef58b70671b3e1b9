// Algorithm::Explain and Scheduler::Explain (explain.h): a scheduling cycle's search over every
// node, with what the cycle would otherwise discard kept.
#include "pkg/scheduler/explain.h"

#include <algorithm>
#include <atomic>
#include <set>

#include "pkg/framework/preemption_dry_run.h"
#include "pkg/scheduler/algorithm.h"
#include "pkg/scheduler/scheduler.h"

namespace stowage::scheduler {

using framework::Status;

namespace {

NodeVerdict VerdictOf(const std::string& node, const Status& s) {
  return {node, s.code(), s.plugin(), s.IsSuccess() ? std::string() : s.Message()};
}

// Competition ranking over totals sorted best first: equal totals share the better rank.
void RankScored(Explanation& out) {
  std::sort(out.scored.begin(), out.scored.end(), [](const ScoredNode& a, const ScoredNode& b) {
    return a.total != b.total ? a.total > b.total : a.node < b.node;
  });
  for (size_t i = 0; i < out.scored.size(); ++i) {
    const bool tied = i > 0 && out.scored[i].total == out.scored[i - 1].total;
    out.scored[i].rank = tied ? out.scored[i - 1].rank : static_cast<int>(i) + 1;
    if (out.scored[i].rank == 1) out.best.push_back(out.scored[i].node);
  }
}

}  // namespace

void Algorithm::ExplainPreemption(framework::Framework& fw, framework::CycleState& state,
                                  const framework::PodInfo& pod, const NominatedPods& nominated,
                                  const FitError& fit, const std::string& pre_filter_msg,
                                  Explanation& out) {
  out.fit_error =
      framework::FitErrorMessage(fit.num_all_nodes, fit.node_statuses, pre_filter_msg, "");
  const auto& post = fw.spec().at(framework::ExtensionPoint::kPostFilter);
  if (post.empty()) return;
  // The plugins that know the dry-run mark (preemption_dry_run.h).
  const bool dry = std::all_of(post.begin(), post.end(), [](const framework::PluginSpec& p) {
    return p.name == "DefaultPreemption" || p.name == "DynamicResources";
  });
  if (!dry) {
    std::string names;
    for (const auto& p : post) names += (names.empty() ? "" : ", ") + p.name;
    out.preemption_skipped = "PostFilter plugins " + names +
                             " are not run: only DefaultPreemption and DynamicResources can run "
                             "without writing";
    return;
  }
  state.Write(framework::kPreemptionDryRunKey, std::make_unique<framework::PreemptionDryRun>());
  CyclePluginsRunner runner(fw, nominated);
  framework::NominatingInfo ignored;
  const Status pf = fw.RunPostFilterPlugins(state, pod, fit.node_statuses, runner, ignored);
  out.preemption_ran = true;
  out.fit_error = framework::FitErrorMessage(fit.num_all_nodes, fit.node_statuses, pre_filter_msg,
                                             pf.Message());
  if (const auto* dry = state.Read<framework::PreemptionDryRun>(framework::kPreemptionDryRunKey)) {
    for (const auto& c : dry->candidates) {
      out.preemption_candidates.push_back({c.node, c.victims, c.pdb_violations});
    }
    out.preemption_node = dry->chosen;
  }
}

void Algorithm::Explain(framework::Framework& fw, framework::CycleState& state,
                        const framework::PodInfo& pod, const NominatedPods& nominated,
                        Explanation& out) {
  const auto& all = snapshot_.List();
  out.num_nodes = static_cast<int>(all.size());
  if (all.empty()) {
    out.fit_error = "no nodes available to schedule pods";
    return;
  }
  framework::PreFilterResult pre;
  std::set<std::string> plugins;
  const Status ps = fw.RunPreFilterPlugins(state, pod, all, pre, plugins);
  out.pre_filter_code = ps.code();
  out.pre_filter_plugin = ps.plugin();
  out.pre_filter_message = ps.IsSuccess() ? std::string() : ps.Message();
  FitError fit;
  fit.num_all_nodes = out.num_nodes;
  if (!ps.IsSuccess()) {
    if (!ps.IsRejected()) {
      out.error = ps.Message();
      return;
    }
    for (const auto* n : all) {
      out.verdicts.push_back(VerdictOf(n->name(), ps));
      fit.node_statuses.emplace_back(n->name(), ps);
    }
    ExplainPreemption(fw, state, pod, nominated, fit, ps.Message(), out);
    return;
  }
  size_t candidates = all.size();
  std::string excluded;
  if (pre.node_names) {
    out.pre_filter_narrowed = true;
    out.pre_filter_nodes.assign(pre.node_names->begin(), pre.node_names->end());
    std::sort(out.pre_filter_nodes.begin(), out.pre_filter_nodes.end());
    out.narrowing_plugins.assign(plugins.begin(), plugins.end());
    excluded = framework::PreFilterExcludedMessage(plugins);
    candidates = pre.node_names->size();
  }
  out.nodes_to_score = fw.HasScorePlugins() || extenders_filter_or_score_
                           ? NumFeasibleNodesToFind(fw, candidates)
                           : std::min<size_t>(1, candidates);
  // Every node, none skipped once enough are feasible: the point is the whole picture.
  std::vector<Status> statuses(all.size());
  std::atomic<bool> error{false};
  pool_.Until(
      all.size(),
      [&](size_t i) {
        if (pre.node_names && !pre.node_names->count(all[i]->name())) {
          statuses[i] = Status::Unresolvable(excluded);
          return;
        }
        statuses[i] = FilterWithNominatedPods(fw, state, pod, *all[i], nominated);
        if (statuses[i].IsError()) error = true;
      },
      [&] { return error.load(); });
  feasible_.clear();
  for (size_t i = 0; i < all.size(); ++i) {
    if (statuses[i].IsError()) {
      out.error = statuses[i].Message();
      return;
    }
    out.verdicts.push_back(VerdictOf(all[i]->name(), statuses[i]));
    if (statuses[i].IsSuccess()) {
      feasible_.push_back(all[i]);
    } else {
      fit.node_statuses.emplace_back(all[i]->name(), statuses[i]);
    }
  }
  if (!extenders_.empty()) {
    FitError by_extenders;
    if (Status es = FilterWithExtenders(*pod.pod, &by_extenders); !es.IsSuccess()) {
      out.error = es.Message();
      return;
    }
    for (auto& [node, st] : by_extenders.node_statuses) {
      for (auto& v : out.verdicts) {
        if (v.node == node) v = VerdictOf(node, st);
      }
      fit.node_statuses.emplace_back(node, std::move(st));
    }
  }
  if (feasible_.empty()) {
    ExplainPreemption(fw, state, pod, nominated, fit, "", out);
    return;
  }
  // As a cycle does, a single feasible node is taken without scoring.
  if (feasible_.size() == 1) {
    out.scored.push_back({feasible_[0]->name(), {}, {}, 0, 0, 1});
    out.best.push_back(feasible_[0]->name());
    return;
  }
  if (Status s = fw.RunPreScorePlugins(state, pod, feasible_); !s.IsSuccess()) {
    out.error = s.Message();
    return;
  }
  std::vector<framework::PluginScores> detail;
  if (Status s = fw.RunScorePlugins(state, pod, feasible_, scores_, &detail); !s.IsSuccess()) {
    out.error = s.Message();
    return;
  }
  const std::vector<int64_t> by_plugins = scores_;
  if (!extenders_.empty()) {
    PrioritizeWithExtenders(*pod.pod);
  } else if (!fw.HasScorePlugins()) {
    scores_.assign(feasible_.size(), 1);
  }
  for (const auto& d : detail) {
    out.score_plugins.push_back(d.plugin);
    out.score_weights.push_back(d.weight);
  }
  for (size_t i = 0; i < feasible_.size(); ++i) {
    ScoredNode sn{feasible_[i]->name(), {}, {}, scores_[i] - by_plugins[i], scores_[i], 0};
    for (const auto& d : detail) {
      sn.raw.push_back(d.raw[i]);
      sn.normalized.push_back(d.normalized[i]);
    }
    out.scored.push_back(std::move(sn));
  }
  RankScored(out);
}

StatusOr<Explanation> Scheduler::Explain(std::string_view ns, std::string_view name) {
  const std::string key = std::string(ns) + "/" + std::string(name);
  api::PodPtr pod = pods_.store().Get(key);
  if (!pod) {
    return NotFoundError("pod " + key +
                         " not found among the scheduler's pods (it does not exist, or it has "
                         "already succeeded or failed)");
  }
  if (!pod->spec.node_name.empty()) {
    return FailedPreconditionError("pod " + key + " is already bound to node " +
                                   pod->spec.node_name);
  }
  framework::Framework* fw = ProfileFor(*pod);
  if (fw == nullptr) {
    std::string names;
    for (const auto& [n, p] : profiles_) names += (names.empty() ? "" : ", ") + n;
    return FailedPreconditionError(
        "pod " + key + " names schedulerName \"" + pod->spec.scheduler_name +
        "\", which no profile of this scheduler serves (profiles: " + names + ")");
  }
  MutexLock cycle(cycle_mu_);
  if (auto us = cache_.UpdateSnapshot(snapshot_); !us.ok()) return us;
  Explanation out;
  out.pod = key;
  out.profile = pod->spec.scheduler_name;
  out.nominated_node = pod->status.nominated_node_name;
  if (auto q = queue_->StateOf(*pod)) {
    out.queue = q->where;
    out.attempts = q->attempts;
    out.queued_seconds = q->seconds_queued;
    out.retry_in_seconds = q->seconds_until_retry;
    out.rejected_by.assign(q->rejected_by.begin(), q->rejected_by.end());
  }
  if (Status pe = fw->RunPreEnqueuePlugins(*pod); !pe.IsSuccess()) {
    out.pre_enqueue_plugin = pe.plugin();
    out.pre_enqueue_message = pe.Message();
  }
  framework::CycleState state;
  algorithm_.Explain(*fw, state, *framework::NewPodInfo(pod), queue_->NominatedPods(), out);
  return out;
}

}  // namespace stowage::scheduler
