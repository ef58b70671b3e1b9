// The extender wire format (upstream k8s.io/kube-scheduler/extender/v1): the JSON bodies
// stowage POSTs to an extender and the answers it reads back. The Go types carry no json tags,
// so the keys are the Go field names ("Pod", "NodeNames", "FailedNodes", ...); as Go's decoder,
// answers match keys case-insensitively, and a null or absent list is told from an empty one.
// Pure functions, no I/O: the unit tests check them against JSON literals.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/common/status.h"
#include "stowage/framework/extender.h"
#include "stowage/framework/types.h"

namespace stowage::extender {

// ExtenderArgs for filter and prioritize: the pod, and either the nodes' names
// (node_cache_capable: "Nodes" is null) or the whole nodes as a NodeList ("NodeNames" is null).
std::string EncodeExtenderArgs(const api::Pod& pod,
                               const std::vector<const framework::NodeInfo*>& nodes,
                               bool node_cache_capable);

// ExtenderFilterResult as sent. node_names and node_items stay nullopt when the key is null or
// absent; node_items holds the names of the nodes in "Nodes".items.
struct FilterResultWire {
  std::optional<std::vector<std::string>> node_names;
  std::optional<std::vector<std::string>> node_items;
  std::vector<std::pair<std::string, std::string>> failed;
  std::vector<std::pair<std::string, std::string>> failed_and_unresolvable;
  std::string error;
};
StatusOr<FilterResultWire> DecodeFilterResult(std::string_view body);

// HostPriorityList: [{"Host": ..., "Score": ...}].
StatusOr<std::vector<framework::HostPriority>> DecodeHostPriorityList(std::string_view body);

// ExtenderBindingArgs {PodName, PodNamespace, PodUID, Node}.
std::string EncodeBindingArgs(const api::Pod& pod, std::string_view node);
// ExtenderBindingResult: the extender's "Error" (empty: bound).
StatusOr<std::string> DecodeBindingResult(std::string_view body);

// ExtenderPreemptionArgs: the pod and the proposed victims, whole pods in "NodeNameToVictims"
// or, when node_cache_capable, their UIDs in "NodeNameToMetaVictims".
std::string EncodePreemptionArgs(const api::Pod& pod, const framework::NodeToVictims& victims,
                                 bool node_cache_capable);

// ExtenderPreemptionResult: per node, the UIDs of the victims kept and the PDB violations.
struct MetaVictims {
  std::vector<std::string> uids;
  int64_t num_pdb_violations = 0;
};
StatusOr<std::map<std::string, MetaVictims>> DecodePreemptionResult(std::string_view body);

}  // namespace stowage::extender
