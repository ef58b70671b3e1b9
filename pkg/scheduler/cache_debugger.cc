#include "pkg/scheduler/cache_debugger.h"

#include <algorithm>
#include <utility>

#include "pkg/common/error_list.h"
#include "pkg/common/log_value.h"
#include "pkg/common/logging.h"

namespace stowage::scheduler {

namespace {
// Go's %v of a []string: "[a b c]".
std::string GoList(const std::vector<std::string>& items) { return "[" + Join(items, " ") + "]"; }
}  // namespace

void CacheDebugger::CompareAndDump() const {
  Compare();
  Dump();
}

CacheDebugger::Difference CacheDebugger::CompareStrings(std::vector<std::string> actual,
                                                        std::vector<std::string> cached) {
  std::sort(actual.begin(), actual.end());
  std::sort(cached.begin(), cached.end());
  Difference d;
  // A merge of the two sorted lists, as upstream's compareStrings (duplicates pair one by one).
  size_t i = 0, j = 0;
  while (i < actual.size() || j < cached.size()) {
    if (j == cached.size() || (i < actual.size() && actual[i] < cached[j])) {
      d.missed.push_back(actual[i++]);
    } else if (i == actual.size() || cached[j] < actual[i]) {
      d.redundant.push_back(cached[j++]);
    } else {
      ++i;
      ++j;
    }
  }
  return d;
}

void CacheDebugger::Compare() const {
  VLOG(3, "Cache comparer started");
  // The informers first: what the cache holds was fed from them, so a pod or node seen by the
  // cache but not yet by this list is one that arrived in between.
  std::vector<std::string> actual_nodes, actual_pods;
  for (const auto& n : nodes_.List()) actual_nodes.push_back(n->metadata.name);
  for (const auto& p : pods_.List()) actual_pods.push_back(p->metadata.uid);
  cache::Cache::Dump dump = cache_.DumpAll();
  auto [pending, summary] = queue_.PendingPods();

  std::vector<std::string> cached_nodes, cached_pods;
  for (const auto& [name, info] : dump.nodes) {
    cached_nodes.push_back(name);
    for (const auto& p : info.pods()) cached_pods.push_back(p->pod->metadata.uid);
  }
  for (const auto& p : pending) cached_pods.push_back(p->metadata.uid);

  Difference nodes = CompareStrings(std::move(actual_nodes), std::move(cached_nodes));
  if (!nodes.missed.empty() || !nodes.redundant.empty()) {
    LOG_INFO("Cache mismatch missedNodes={} redundantNodes={}", GoList(nodes.missed),
             GoList(nodes.redundant));
  }
  Difference pods = CompareStrings(std::move(actual_pods), std::move(cached_pods));
  if (!pods.missed.empty() || !pods.redundant.empty()) {
    LOG_INFO("Cache mismatch missedPods={} redundantPods={}", GoList(pods.missed),
             GoList(pods.redundant));
  }
  VLOG(3, "Cache comparer finished");
}

std::string CacheDebugger::PrintPod(const api::Pod& pod) {
  return "name: " + pod.metadata.name + ", namespace: " + pod.metadata.namespace_ +
         ", uid: " + pod.metadata.uid + ", phase: " + pod.status.phase +
         ", nominated node: " + pod.status.nominated_node_name + "\n";
}

std::string CacheDebugger::PrintResource(const framework::Resource& r) {
  // Go prints a map with its keys sorted.
  std::vector<std::pair<std::string, int64_t>> scalar = r.scalar;
  std::sort(scalar.begin(), scalar.end());
  std::string s =
      "&{MilliCPU:" + std::to_string(r.milli_cpu) + " Memory:" + std::to_string(r.memory) +
      " EphemeralStorage:" + std::to_string(r.ephemeral_storage) +
      " AllowedPodNumber:" + std::to_string(r.allowed_pod_number) + " ScalarResources:map[";
  for (size_t i = 0; i < scalar.size(); ++i) {
    if (i > 0) s += " ";
    s += scalar[i].first + ":" + std::to_string(scalar[i].second);
  }
  return s + "]}";
}

std::string CacheDebugger::PrintNodeInfo(const std::string& name,
                                         const framework::NodeInfo& info) const {
  std::string s = "Node name: " + name + "\nDeleted: " + (info.node() ? "false" : "true") +
                  "\nRequested Resources: " + PrintResource(info.requested()) +
                  "\nAllocatable Resources:" + PrintResource(info.allocatable()) +
                  "\nScheduled Pods(number: " + std::to_string(info.pods().size()) + "):\n";
  for (const auto& p : info.pods()) s += PrintPod(*p->pod);
  std::vector<framework::PodInfoPtr> nominated = queue_.NominatedPodsForNode(name);
  if (!nominated.empty()) {
    s += "Nominated Pods(number: " + std::to_string(nominated.size()) + "):\n";
    for (const auto& p : nominated) s += PrintPod(*p->pod);
  }
  return s;
}

void CacheDebugger::Dump() const {
  cache::Cache::Dump dump = cache_.DumpAll();
  std::vector<std::string> entries;
  entries.reserve(dump.nodes.size());
  for (const auto& [name, info] : dump.nodes) entries.push_back(PrintNodeInfo(name, info));
  // A blank line between nodes, as upstream, for reading.
  LOG_INFO("Dump of cached NodeInfo{}", logging::KeyValue("nodes", Join(entries, "\n\n")));
  auto [pending, summary] = queue_.PendingPods();
  std::string pods;
  for (const auto& p : pending) pods += PrintPod(*p);
  LOG_INFO("Dump of scheduling queue{}{}", logging::KeyValue("summary", summary),
           logging::KeyValue("pods", pods));
}

}  // namespace stowage::scheduler
