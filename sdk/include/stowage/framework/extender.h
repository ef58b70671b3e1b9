// Extender: a scheduler extender as the scheduling cycle and preemption see it (upstream's
// fwk.Extender): an outside service asked to filter and score the feasible nodes, to preempt
// and to bind. pkg/extender implements it over HTTP(S); the framework and the plugins know only
// this interface, so neither links an HTTP client.
//
// Every call may block on the network for up to the extender's timeout and returns a non-OK
// stowage::Status when no usable answer came (connection, timeout, HTTP status, decoding, or the
// extender's own error field); the caller then applies upstream's rule: an ignorable extender is
// skipped, any other fails the cycle. Implementations are thread-safe (prioritize runs
// concurrently per extender, bind on the binding workers).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/types.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::framework {

// The plugin name that stands for the extenders in a pod's unschedulable plugins (upstream's
// framework.ExtenderName): any cluster event requeues a pod an extender rejected.
inline constexpr std::string_view kExtenderName = "Extender";

// The victims preemption proposes (or an extender keeps) on one node.
struct ExtenderVictims {
  std::vector<PodInfoPtr> pods;
  int64_t num_pdb_violations = 0;
};
using NodeToVictims = std::map<std::string, ExtenderVictims>;

// What a filter call answers: the nodes that pass (a subset of those sent, in the extender's
// order), and the rejected ones with the extender's reason.
struct ExtenderFilterResult {
  std::vector<const NodeInfo*> feasible;
  std::vector<std::pair<std::string, std::string>> failed;
  std::vector<std::pair<std::string, std::string>> failed_and_unresolvable;
};

// One node's score from a prioritize call, in [0, kMaxExtenderPriority].
struct HostPriority {
  std::string host;
  int64_t score = 0;
};

// What an extender's score adds to a node's total: its 0-10 score times the extender's weight,
// scaled to the plugins' 0-100 range (upstream's prioritizeNodes).
constexpr int64_t ExtenderNodeScore(int64_t score, int64_t weight) {
  return score * weight * (kMaxNodeScore / kMaxExtenderPriority);
}

class Extender {
 public:
  virtual ~Extender() = default;
  // The extender's urlPrefix, which names it in logs and errors.
  virtual const std::string& Name() const = 0;
  virtual bool IsIgnorable() const = 0;
  virtual bool IsFilter() const = 0;
  virtual bool IsPrioritizer() const = 0;
  virtual bool IsBinder() const = 0;
  virtual bool SupportsPreemption() const = 0;
  virtual int64_t weight() const = 0;
  // Whether pod concerns the extender: always without managedResources, otherwise when one of
  // its containers or init containers requests or limits a managed resource.
  virtual bool IsInterested(const api::Pod& pod) const = 0;

  virtual stowage::Status Filter(const api::Pod& pod, const std::vector<const NodeInfo*>& nodes,
                                 ExtenderFilterResult& out) = 0;
  virtual stowage::Status Prioritize(const api::Pod& pod, const std::vector<const NodeInfo*>& nodes,
                                     std::vector<HostPriority>& out) = 0;
  virtual stowage::Status Bind(const api::Pod& pod, std::string_view node) = 0;
  // The victims the extender keeps of those proposed, resolved against nodes (a pod it names
  // must be on its node there).
  virtual stowage::Status ProcessPreemption(const api::Pod& pod, const NodeToVictims& proposed,
                                            const NodeInfoLister& nodes, NodeToVictims& out) = 0;
};

}  // namespace stowage::framework

#pragma GCC visibility pop
