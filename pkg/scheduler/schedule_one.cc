// The scheduling cycle (one pod: filter, score, assume, reserve, permit), the binding cycle
// (pre-bind, bind, post-bind) and failure handling, as upstream's schedule_one.go.
#include <algorithm>
#include <atomic>
#include <map>

#include "pkg/api/encode.h"
#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "pkg/common/logging.h"
#include "pkg/scheduler/scheduler.h"

namespace stowage::scheduler {

using framework::Code;
using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

namespace {
constexpr size_t kMinFeasibleNodesToFind = 100;
constexpr int kMinFeasibleNodesPercentageToFind = 5;
}  // namespace

std::string FitErrorMessage(int num_all_nodes, const framework::NodeToStatus& statuses,
                            const std::string& pre_filter_msg, const std::string& post_filter_msg) {
  std::string msg = "0/" + std::to_string(num_all_nodes) + " nodes are available:";
  if (!pre_filter_msg.empty()) {
    msg += " " + pre_filter_msg + ".";
  } else {
    std::map<std::string, int> histogram;  // sorted lexicographically, as upstream sorts
    for (const auto& [node, s] : statuses) {
      for (const auto& r : s.reasons()) histogram[r]++;
    }
    std::string joined;
    for (const auto& [reason, count] : histogram) {
      if (!joined.empty()) joined += ", ";
      joined += std::to_string(count) + " " + reason;
    }
    msg += " " + joined + ".";
  }
  if (!post_filter_msg.empty()) msg += " " + post_filter_msg;
  return msg;
}

size_t Scheduler::NumFeasibleNodesToFind(const framework::Framework& fw, size_t all) const {
  if (all < kMinFeasibleNodesToFind) return all;
  int pct = fw.spec().percentage_of_nodes_to_score.value_or(
      options_.percentage_of_nodes_to_score.value_or(0));
  if (pct == 0) {
    pct = 50 - static_cast<int>(all / 125);
    if (pct < kMinFeasibleNodesPercentageToFind) pct = kMinFeasibleNodesPercentageToFind;
  }
  size_t n = all * static_cast<size_t>(pct) / 100;
  return std::max(n, kMinFeasibleNodesToFind);
}

Status Scheduler::FilterWithNominatedPods(framework::Framework& fw, const CycleState& state,
                                          const PodInfo& pod, const NodeInfo& node,
                                          const Nominated& nominated) {
  auto it = nominated.find(node.name());
  if (it != nominated.end()) {
    int32_t priority = pod->spec.priority.value_or(0);
    std::vector<const framework::PodInfoPtr*> add;
    for (const auto& p : it->second) {
      if (p->pod->metadata.uid != pod->metadata.uid && p->pod->spec.priority.value_or(0) >= priority) {
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
  return fw.RunFilterPlugins(state, pod, node);
}

Status Scheduler::FindNodesThatFit(framework::Framework& fw, CycleState& state, const PodInfo& pod,
                                   std::vector<const NodeInfo*>& feasible, FitError& fit) {
  const auto& all = snapshot_.List();
  framework::PreFilterResult pre;
  Status s = fw.RunPreFilterPlugins(state, pod, all, pre, fit.unschedulable_plugins);
  if (!s.IsSuccess()) {
    if (!s.IsRejected()) return s;
    fit.pre_filter_msg = s.Message();
    for (const auto* n : all) fit.node_statuses.emplace_back(n->name(), s);
    return s;
  }
  std::vector<const NodeInfo*> candidates;
  if (pre.node_names) {
    for (const auto& name : *pre.node_names) {
      if (const NodeInfo* n = snapshot_.Get(name)) candidates.push_back(n);
    }
  }
  const std::vector<const NodeInfo*>& nodes = pre.node_names ? candidates : all;
  const Nominated nominated = queue_->NominatedPods();
  // A pod nominated to a node (e.g. after preemption) tries that node first, alone.
  const std::string& nominated_node = pod->status.nominated_node_name;
  if (!nominated_node.empty()) {
    const NodeInfo* n = snapshot_.Get(nominated_node);
    if (n && (!pre.node_names || pre.node_names->count(nominated_node)) &&
        FilterWithNominatedPods(fw, state, pod, *n, nominated).IsSuccess()) {
      feasible = {n};
      return {};
    }
  }
  size_t n = nodes.size();
  size_t to_find = fw.HasScorePlugins() ? NumFeasibleNodesToFind(fw, n) : std::min<size_t>(1, n);
  feasible.assign(to_find, nullptr);
  std::vector<Status> statuses(n);
  std::vector<uint8_t> failed(n, 0);
  std::atomic<size_t> found{0};
  std::atomic<bool> error{false};
  size_t start = pre.node_names ? 0 : next_start_node_index_ % std::max<size_t>(n, 1);
  pool_.Until(
      n,
      [&](size_t i) {
        size_t idx = (start + i) % n;
        Status st = FilterWithNominatedPods(fw, state, pod, *nodes[idx], nominated);
        if (st.IsSuccess()) {
          size_t k = found.fetch_add(1);
          if (k < to_find) feasible[k] = nodes[idx];
          return;
        }
        if (st.IsError()) error = true;
        statuses[idx] = std::move(st);
        failed[idx] = 1;
      },
      [&] { return found.load() >= to_find || error.load(); });
  size_t num_feasible = std::min(found.load(), to_find);
  feasible.resize(num_feasible);
  size_t processed = num_feasible;
  for (size_t i = 0; i < n; ++i) {
    if (!failed[i]) continue;
    ++processed;
    if (statuses[i].IsError()) return statuses[i];
    fit.unschedulable_plugins.insert(statuses[i].plugin());
    fit.node_statuses.emplace_back(nodes[i]->name(), std::move(statuses[i]));
  }
  if (!pre.node_names) {
    next_start_node_index_ = (next_start_node_index_ + processed) % std::max<size_t>(all.size(), 1);
  } else {
    // Nodes PreFilter excluded count as rejected by it, with upstream's message.
    for (const auto* node : all) {
      if (pre.node_names->count(node->name())) continue;
      fit.node_statuses.emplace_back(
          node->name(), Status::Unresolvable("node(s) didn't satisfy plugin(s) [PreFilter]"));
    }
  }
  return {};
}

std::string Scheduler::SelectHost(const std::vector<const NodeInfo*>& nodes,
                                  const std::vector<int64_t>& scores) {
  // Uniform choice among the best-scoring nodes (reservoir sampling).
  size_t best = 0;
  int ties = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i == 0 || scores[i] > scores[best]) {
      best = i;
      ties = 1;
    } else if (scores[i] == scores[best] && rng_() % static_cast<uint64_t>(++ties) == 0) {
      best = i;
    }
  }
  return nodes[best]->name();
}

Status Scheduler::SchedulePod(framework::Framework& fw, CycleState& state, const PodInfo& pod,
                              ScheduleResult& result, FitError& fit) {
  if (auto s = cache_.UpdateSnapshot(snapshot_); !s.ok()) return Status::Error(std::string(s.message()));
  fit.num_all_nodes = static_cast<int>(snapshot_.List().size());
  if (snapshot_.List().empty()) {
    fit.pre_filter_msg = "no nodes available to schedule pods";
    return Status::Unresolvable("no nodes available to schedule pods");
  }
  std::vector<const NodeInfo*> feasible;
  Status s = FindNodesThatFit(fw, state, pod, feasible, fit);
  if (!s.IsSuccess() && !s.IsRejected()) return s;
  result.evaluated = static_cast<int>(feasible.size() + fit.node_statuses.size());
  result.feasible = static_cast<int>(feasible.size());
  if (feasible.empty()) return Status::Unschedulable("no feasible node");
  if (feasible.size() == 1) {
    result.host = feasible[0]->name();
    return {};
  }
  if (Status ps = fw.RunPreScorePlugins(state, pod, feasible); !ps.IsSuccess()) return ps;
  std::vector<int64_t> totals;
  if (Status ss = fw.RunScorePlugins(state, pod, feasible, totals); !ss.IsSuccess()) return ss;
  if (!fw.HasScorePlugins()) totals.assign(feasible.size(), 1);
  result.host = SelectHost(feasible, totals);
  return {};
}

void Scheduler::ScheduleOne() {
  queue::QueuedPodInfoPtr qpod = queue_->Pop();
  if (!qpod) return;
  const api::Pod& pod = qpod->pod();
  framework::Framework* fw = ProfileFor(pod);
  if (fw == nullptr) {
    queue_->Done(pod);
    return;
  }
  if (pod.metadata.deletion_timestamp) {
    events_->Record(pod, fw->scheduler_name(), "Warning", "FailedScheduling", "Scheduling",
                    "skip schedule deleting pod: " + api::NamespacedName(pod.metadata));
    queue_->Done(pod);
    return;
  }
  if (cache_.IsAssumedPod(pod)) {
    queue_->Done(pod);
    return;
  }
  auto state = std::make_unique<CycleState>();
  ScheduleResult result;
  FitError fit;
  Status s = SchedulePod(*fw, *state, *qpod->pod_info, result, fit);
  if (!s.IsSuccess()) {
    HandleFailure(fw, std::move(qpod), s, s.IsRejected() ? &fit : nullptr);
    return;
  }
  // Assume: the next cycle must already see the pod on its node.
  auto bound = std::make_shared<api::Pod>(pod);
  bound->spec.node_name = result.host;
  framework::PodInfoPtr assumed = framework::NewPodInfo(bound);
  if (auto as = cache_.AssumePod(assumed); !as.ok()) {
    HandleFailure(fw, std::move(qpod), Status::Error(std::string(as.message())), nullptr);
    return;
  }
  queue_->DeleteNominatedPodIfExists(pod);
  if (Status rs = fw->RunReservePluginsReserve(*state, *bound, result.host); !rs.IsSuccess()) {
    fw->RunReservePluginsUnreserve(*state, *bound, result.host);
    (void)cache_.ForgetPod(*bound);
    FitError one;
    one.num_all_nodes = 1;
    one.node_statuses.emplace_back(result.host, rs);
    one.unschedulable_plugins.insert(rs.plugin());
    HandleFailure(fw, std::move(qpod), rs, rs.IsRejected() ? &one : nullptr);
    return;
  }
  std::chrono::milliseconds wait{0};
  Status permit = fw->RunPermitPlugins(*state, *bound, result.host, wait);
  if (!permit.IsSuccess() && !permit.IsWait()) {
    fw->RunReservePluginsUnreserve(*state, *bound, result.host);
    (void)cache_.ForgetPod(*bound);
    FitError one;
    one.num_all_nodes = 1;
    one.node_statuses.emplace_back(result.host, permit);
    HandleFailure(fw, std::move(qpod), permit, permit.IsRejected() ? &one : nullptr);
    return;
  }
  VLOG(4, "attempting to bind pod {} to node {} ({} evaluated, {} feasible)",
       api::NamespacedName(pod.metadata), result.host, result.evaluated, result.feasible);
  SubmitBinding([this, fw, st = state.release(), qpod, assumed, host = result.host, wait]() mutable {
    BindingCycle(fw, std::unique_ptr<CycleState>(st), std::move(qpod), std::move(assumed),
                 std::move(host), wait);
  });
}

void Scheduler::BindingCycle(framework::Framework* fw, std::unique_ptr<CycleState> state,
                             queue::QueuedPodInfoPtr qpod, framework::PodInfoPtr assumed,
                             std::string host, std::chrono::milliseconds permit_wait) {
  const api::Pod& pod = *assumed->pod;
  Status s;
  if (permit_wait.count() > 0) s = fw->WaitOnPermit(pod);
  queue_->Done(pod);
  if (s.IsSuccess()) s = fw->RunPreBindPlugins(*state, pod, host);
  if (s.IsSuccess()) s = fw->RunBindPlugins(*state, pod, host);
  if (s.IsSuccess()) {
    (void)cache_.FinishBinding(pod);
    VLOG(2, "Successfully bound pod to node pod=\"{}\" node=\"{}\"", api::NamespacedName(pod.metadata), host);
    events_->Record(pod, fw->scheduler_name(), "Normal", "Scheduled", "Binding",
                    "Successfully assigned " + api::NamespacedName(pod.metadata) + " to " + host);
    fw->RunPostBindPlugins(*state, pod, host);
    return;
  }
  fw->RunReservePluginsUnreserve(*state, pod, host);
  (void)cache_.ForgetPod(pod);
  queue_->MoveAllToActiveOrBackoffQueue(
      {framework::EventResource::kAssignedPod, framework::kDelete, "AssignedPodDelete"}, assumed->pod, {});
  // From the binding cycle on, failures are errors (backoff), never "unschedulable".
  HandleFailure(fw, std::move(qpod), s.IsRejected() ? s : Status::Error(s.Message()), nullptr);
}

void Scheduler::HandleFailure(framework::Framework* fw, queue::QueuedPodInfoPtr qpod,
                              const Status& status, const FitError* fit) {
  const api::Pod& pod = qpod->pod();
  bool rejected = fit != nullptr;
  std::string msg = rejected ? FitErrorMessage(fit->num_all_nodes, fit->node_statuses,
                                               fit->pre_filter_msg, "")
                             : status.Message();
  if (rejected) {
    qpod->unschedulable_plugins = fit->unschedulable_plugins;
    qpod->unschedulable_plugins.erase("");
  }
  std::string key = api::NamespacedName(pod.metadata);
  VLOG(2, "unable to schedule pod {}: {}", key, msg);
  // Requeue only if the pod still exists and is still unbound.
  auto current = informers_.For<api::Pod>(
      informer::Filter{.field_selector = "status.phase!=Succeeded,status.phase!=Failed"})
                     .store().Get(key);
  if (current && current->spec.node_name.empty() &&
      current->metadata.uid == pod.metadata.uid) {
    queue_->AddUnschedulableIfNotPresent(std::move(qpod), !rejected);
  } else {
    queue_->Done(pod);
  }
  events_->Record(pod, fw->scheduler_name(), "Warning", "FailedScheduling", "Scheduling", msg);
  api::Condition cond{"PodScheduled", "False", rejected ? "Unschedulable" : "SchedulerError", msg,
                      api::FormatTime(RealClock().WallNow())};
  // Skip the write when the pod already carries exactly this condition.
  if (current) {
    for (const auto& c : current->status.conditions) {
      if (c.type == cond.type && c.status == cond.status && c.reason == cond.reason &&
          c.message == cond.message) {
        return;
      }
    }
  }
  std::string ns = pod.metadata.namespace_, name = pod.metadata.name;
  SubmitBinding([this, ns, name, cond] {
    auto s = client::PatchPodStatus(client_, ns, name, api::EncodePodStatusPatch(cond, std::nullopt));
    if (!s.ok() && !client::IsNotFound(s)) LOG_WARN("updating the status of pod {}/{}: {}", ns, name, s.ToString());
  });
}

}  // namespace stowage::scheduler
