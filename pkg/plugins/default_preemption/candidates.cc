#include "pkg/plugins/default_preemption/candidates.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>

#include "stowage/common/mutex.h"

namespace stowage::plugins::default_preemption {

using framework::Status;

int32_t NumCandidates(int32_t num_nodes, int32_t percentage, int32_t absolute) {
  int32_t n = static_cast<int32_t>(int64_t{num_nodes} * percentage / 100);
  n = std::max(n, absolute);
  return std::min(n, num_nodes);
}

DryRunResult DryRunPreemption(framework::Parallelizer& parallelizer,
                              framework::PluginsRunner& runner, const framework::CycleState& state,
                              const framework::PodInfo& preemptor,
                              const std::vector<const framework::NodeInfo*>& potential,
                              const std::vector<CompiledPdb>& pdbs, size_t offset,
                              size_t num_candidates) {
  DryRunResult result;
  const size_t n = potential.size();
  if (n == 0) return result;
  Mutex mu;
  std::vector<Candidate> non_violating, violating;
  std::atomic<bool> enough{false};
  parallelizer.Until(
      n,
      [&](size_t i) {
        const framework::NodeInfo& original = *potential[(offset + i) % n];
        framework::NodeInfo node = original;
        auto node_state = state.Clone();
        NodeVictims victims;
        Status s = SelectVictimsOnNode(runner, *node_state, preemptor, node, pdbs, victims);
        if (s.IsSuccess() && victims.pods.empty()) {
          s = Status::Error("expected at least one victim pod on node \"" + original.name() + "\"");
        }
        MutexLock l(mu);
        if (s.IsSuccess()) {
          auto& list = victims.num_pdb_violations == 0 ? non_violating : violating;
          list.push_back({original.name(), std::move(victims)});
          if (!non_violating.empty() && non_violating.size() + violating.size() >= num_candidates) {
            enough = true;
          }
          return;
        }
        if (s.IsError() && result.error.IsSuccess()) result.error = s;
        result.statuses.emplace_back(original.name(), std::move(s));
      },
      [&] { return enough.load(); });
  result.candidates = std::move(non_violating);
  for (auto& c : violating) result.candidates.push_back(std::move(c));
  return result;
}

namespace {

// The start time of the most important victims (the earliest among those of the highest
// priority), as upstream's GetEarliestPodStartTime; "" counts as now.
std::string EarliestStartOfMostImportant(const NodeVictims& v) {
  int32_t max_priority = PodPriority(*v.pods[0]->pod);
  std::string earliest = v.pods[0]->pod->status.start_time;
  auto before = [](const std::string& a, const std::string& b) {
    return !a.empty() && (b.empty() || a < b);
  };
  for (const auto& p : v.pods) {
    const int32_t prio = PodPriority(*p->pod);
    if (prio == max_priority) {
      if (before(p->pod->status.start_time, earliest)) earliest = p->pod->status.start_time;
    } else if (prio > max_priority) {
      max_priority = prio;
      earliest = p->pod->status.start_time;
    }
  }
  return earliest;
}

}  // namespace

const Candidate* SelectCandidate(const std::vector<Candidate>& candidates) {
  if (candidates.empty()) return nullptr;
  if (candidates.size() == 1) return &candidates[0];
  // Each rule keeps the candidates with the best score; the first rule that leaves one decides.
  using Score = std::function<int64_t(const Candidate&)>;
  const Score rules[] = {
      [](const Candidate& c) { return -int64_t{c.victims.num_pdb_violations}; },
      [](const Candidate& c) { return -int64_t{PodPriority(*c.victims.pods[0]->pod)}; },
      [](const Candidate& c) {
        int64_t sum = 0;
        // Shifted so that negative priorities still add up to more for more pods.
        for (const auto& p : c.victims.pods) {
          sum += int64_t{PodPriority(*p->pod)} + int64_t{std::numeric_limits<int32_t>::max()} + 1;
        }
        return -sum;
      },
      [](const Candidate& c) { return -static_cast<int64_t>(c.victims.pods.size()); },
  };
  std::vector<const Candidate*> left;
  for (const auto& c : candidates) left.push_back(&c);
  for (const auto& rule : rules) {
    int64_t best = std::numeric_limits<int64_t>::min();
    std::vector<const Candidate*> kept;
    for (const Candidate* c : left) {
      const int64_t score = rule(*c);
      if (score > best) {
        best = score;
        kept.clear();
      }
      if (score == best) kept.push_back(c);
    }
    if (kept.size() == 1) return kept[0];
    left = std::move(kept);
  }
  // Last rule: the latest start of the most important victims wins ("" is now, the latest).
  const Candidate* latest = left[0];
  std::string latest_time = EarliestStartOfMostImportant(latest->victims);
  for (const Candidate* c : left) {
    std::string t = EarliestStartOfMostImportant(c->victims);
    if (latest_time.empty()) break;
    if (t.empty() || t > latest_time) {
      latest = c;
      latest_time = std::move(t);
    }
  }
  return latest;
}

}  // namespace stowage::plugins::default_preemption
