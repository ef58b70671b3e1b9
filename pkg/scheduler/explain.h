// Explain: why a pod goes where it goes, or stays pending (`stowage explain`, docs/explain.md).
// Algorithm::Explain runs the pod's profile over every node of a snapshot, as a scheduling cycle
// would but without sampling and without Reserve or any write, and keeps what a cycle throws
// away: each node's verdict, each Score plugin's raw and normalised score, the totals and the
// ranks. The renderers turn it into an aligned table grouped by verdict for people, into JSON
// for tools, and into an HTML page for a browser.
//
// Invariants: verdicts holds every node of the snapshot once, in snapshot order; scored holds
// exactly the feasible nodes, best first (total descending, then name), ranks counting ties as
// one; best names the nodes sharing the top total, among which the scheduler picks at random.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stowage/framework/status.h"

namespace stowage::scheduler {

struct NodeVerdict {
  std::string node;
  framework::Code code = framework::Code::kSuccess;  // kSuccess: the node is feasible
  // The plugin that rejected the node; "" for a PreFilter result that left it out or an
  // extender's rejection (the message says which).
  std::string plugin;
  std::string message;
};

struct ScoredNode {
  std::string node;
  std::vector<int64_t> raw;         // per score plugin, before NormalizeScore
  std::vector<int64_t> normalized;  // per score plugin, after it
  int64_t extenders = 0;            // the extenders' weighted scores, scaled as upstream
  int64_t total = 0;                // sum of normalized * weight, plus extenders
  int rank = 0;                     // 1 for the best; equal totals share a rank
};

// A node where preemption could make room, and the pods it would evict there.
struct PreemptionCandidate {
  std::string node;
  std::vector<std::string> victims;  // namespace/name, most important first
  int pdb_violations = 0;
};

struct Explanation {
  std::string pod;      // namespace/name
  std::string profile;  // the schedulerName whose profile ran
  int num_nodes = 0;
  // A PreEnqueue plugin that keeps the pod out of the queue (a scheduling gate, a missing
  // claim): the search below is what would happen once it lets the pod in.
  std::string pre_enqueue_plugin;
  std::string pre_enqueue_message;
  // The node the pod is nominated to (after a preemption): a cycle tries it first, alone, and
  // takes it if it is feasible.
  std::string nominated_node;
  // Where the scheduler's queue holds the pod: "active", "backoff", "unschedulable", "gated",
  // "scheduling", or "" when it does not hold it.
  std::string queue;
  int attempts = 0;
  double queued_seconds = 0;             // since it last entered the queue
  double retry_in_seconds = 0;           // in backoff
  std::vector<std::string> rejected_by;  // by its last attempt
  // PreFilter's merged status (Success, a rejection, or an error) and, when a plugin narrowed
  // the nodes, the nodes left and the plugins that narrowed them.
  framework::Code pre_filter_code = framework::Code::kSuccess;
  std::string pre_filter_plugin;
  std::string pre_filter_message;
  bool pre_filter_narrowed = false;
  std::vector<std::string> pre_filter_nodes;
  std::vector<std::string> narrowing_plugins;
  std::vector<NodeVerdict> verdicts;
  std::vector<std::string> score_plugins;  // in the profile's order
  std::vector<int64_t> score_weights;
  std::vector<ScoredNode> scored;
  std::vector<std::string> best;
  // How many feasible nodes a real cycle stops at before scoring (percentageOfNodesToScore):
  // with fewer feasible nodes than the snapshot has, the scheduler scores a rotating sample.
  size_t nodes_to_score = 0;
  // For a pod that fits nowhere: the message the scheduler writes (upstream's FitError, with
  // PostFilter's verdict after "preemption: ").
  std::string fit_error;
  // And what preemption would do, run with nothing evicted or nominated: the candidates found
  // (those violating no PodDisruptionBudget first) and the one it would pick. Run only when
  // DefaultPreemption is the profile's one PostFilter plugin; otherwise preemption_skipped says
  // why not.
  bool preemption_ran = false;
  std::vector<PreemptionCandidate> preemption_candidates;
  std::string preemption_node;
  std::string preemption_skipped;
  // An error that stopped the search (a plugin's Error status), as the scheduler would log it.
  std::string error;
};

// "unschedulable for 42.0 s, 3 attempt(s), last rejected by NodeResourcesFit": the queue state.
std::string QueueLine(const Explanation& e);
// The table for people: the verdicts grouped by plugin and message, largest group first, with a
// few node names each; the top `top` scored nodes with each plugin's weighted score; the pick.
std::string RenderExplanationText(const Explanation& e, size_t top = 10);
// Everything, every node included, as one JSON object (docs/explain.md lists its fields).
std::string RenderExplanationJson(const Explanation& e);
// A self-contained HTML page with the same content: the rejections grouped by verdict and every
// feasible node's scores, in tables that sort when a header is clicked.
std::string RenderExplanationHtml(const Explanation& e);

}  // namespace stowage::scheduler
