#include "pkg/queue/nominator.h"

#include <algorithm>

namespace stowage::queue {

void Nominator::Add(const framework::PodInfoPtr& pod, const std::string& node) {
  const std::string& uid = pod->pod->metadata.uid;
  Delete(uid);
  const std::string& to = node.empty() ? pod->pod->status.nominated_node_name : node;
  // A bound pod is no longer a nomination: it is counted on its node by the cache.
  if (to.empty() || !pod->pod->spec.node_name.empty()) return;
  pods_[to].push_back(pod);
  node_of_[uid] = to;
}

void Nominator::AddNominatedPod(const framework::PodInfoPtr& pod,
                                const framework::NominatingInfo& nominating) {
  if (nominating.mode != framework::NominatingInfo::Mode::kOverride) {
    Add(pod);
  } else if (nominating.node_name.empty()) {
    Delete(pod->pod->metadata.uid);
  } else {
    Add(pod, nominating.node_name);
  }
}

void Nominator::Update(const api::Pod& old_pod, const framework::PodInfoPtr& new_pod) {
  std::string kept;
  if (old_pod.status.nominated_node_name.empty() &&
      new_pod->pod->status.nominated_node_name.empty()) {
    if (const std::string* node = NominatedNodeOf(old_pod.metadata.uid)) kept = *node;
  }
  Add(new_pod, kept);
}

void Nominator::Delete(const std::string& uid) {
  auto it = node_of_.find(uid);
  if (it == node_of_.end()) return;
  auto& pods = pods_[it->second];
  pods.erase(
      std::remove_if(pods.begin(), pods.end(),
                     [&](const framework::PodInfoPtr& p) { return p->pod->metadata.uid == uid; }),
      pods.end());
  if (pods.empty()) pods_.erase(it->second);
  node_of_.erase(it);
}

std::vector<framework::PodInfoPtr> Nominator::NominatedPodsForNode(std::string_view node) const {
  auto it = pods_.find(std::string(node));
  return it == pods_.end() ? std::vector<framework::PodInfoPtr>{} : it->second;
}

const std::string* Nominator::NominatedNodeOf(const std::string& uid) const {
  auto it = node_of_.find(uid);
  return it == node_of_.end() ? nullptr : &it->second;
}

}  // namespace stowage::queue
