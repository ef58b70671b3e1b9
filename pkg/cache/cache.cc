#include "pkg/cache/cache.h"

#include <algorithm>
#include <limits>

#include "pkg/common/logging.h"
#include "pkg/metrics/metrics.h"
#include "stowage/common/mutex.h"

namespace stowage::cache {

using framework::NodeInfo;
using framework::PodInfoPtr;

const NodeInfo* Snapshot::Get(std::string_view name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : it->second.get();
}

bool Snapshot::ChangedSince(int64_t generation, std::vector<const NodeInfo*>& out) const {
  if (generation < log_floor_) return false;
  for (auto it = changes_.rbegin(); it != changes_.rend() && it->first > generation; ++it) {
    out.push_back(it->second);
  }
  return true;
}

namespace {

// Adds node to list, or removes it.
void Toggle(std::vector<const NodeInfo*>& list, const NodeInfo* node, bool add) {
  if (add) {
    list.push_back(node);
  } else if (auto it = std::find(list.begin(), list.end(), node); it != list.end()) {
    list.erase(it);
  }
}
bool SameSummaries(const std::unordered_map<std::string, framework::ImageStateSummary>& a,
                   const std::unordered_map<std::string, framework::ImageStateSummary>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, s] : a) {
    auto it = b.find(name);
    if (it == b.end() || it->second.size != s.size || it->second.num_nodes != s.num_nodes) {
      return false;
    }
  }
  return true;
}
}  // namespace

std::string Cache::PodKey(const api::Pod& pod) {
  return pod.metadata.uid.empty() ? api::NamespacedName(pod.metadata) : pod.metadata.uid;
}

void Cache::UpdateMetrics() {
  metrics::CacheSize(metrics::CacheType::kAssumedPods).Set(static_cast<double>(assumed_));
  metrics::CacheSize(metrics::CacheType::kPods).Set(static_cast<double>(pods_.size()));
  metrics::CacheSize(metrics::CacheType::kNodes).Set(static_cast<double>(nodes_.size()));
}

void Cache::Unlink(NodeItem* item) {
  if (item->prev) item->prev->next = item->next;
  if (item->next) item->next->prev = item->prev;
  if (head_ == item) head_ = item->next;
  item->prev = item->next = nullptr;
}

void Cache::MoveToHead(NodeItem* item) {
  if (head_ == item) return;
  Unlink(item);
  item->next = head_;
  if (head_) head_->prev = item;
  head_ = item;
}

NodeInfo& Cache::TouchNode(const std::string& name) {
  auto& slot = nodes_[name];
  if (!slot) slot = std::make_unique<NodeItem>();
  MoveToHead(slot.get());
  return slot->info;
}

void Cache::AddPodLocked(PodInfoPtr info) { TouchNode(info->pod->spec.node_name).AddPodInfo(info); }

void Cache::RemovePodLocked(const api::Pod& pod, const std::string& node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  NodeItem* item = it->second.get();
  MoveToHead(item);
  item->info.RemovePod(pod);
  // A node entry without a Node and without pods has no reason to exist.
  if (item->info.node() == nullptr && item->info.pods().empty()) {
    Unlink(item);
    nodes_.erase(it);
  }
}

Status Cache::AssumePod(PodInfoPtr pod) {
  MutexLock l(mu_);
  std::string key = PodKey(*pod->pod);
  if (pods_.count(key)) {
    return AlreadyExistsError("pod " + api::NamespacedName(pod->pod->metadata) +
                              " is already in the cache, so it cannot be assumed");
  }
  AddPodLocked(pod);
  pods_[key] = PodState{std::move(pod), true, false};
  ++assumed_;
  UpdateMetrics();
  return OkStatus();
}

Status Cache::FinishBinding(const api::Pod& pod) {
  MutexLock l(mu_);
  auto it = pods_.find(PodKey(pod));
  if (it != pods_.end() && it->second.assumed) it->second.binding_finished = true;
  return OkStatus();
}

Status Cache::ForgetPod(const api::Pod& pod) {
  MutexLock l(mu_);
  auto it = pods_.find(PodKey(pod));
  if (it == pods_.end()) return OkStatus();
  if (!it->second.assumed) {
    return FailedPreconditionError("pod " + api::NamespacedName(pod.metadata) +
                                   " is not assumed, so it cannot be forgotten");
  }
  RemovePodLocked(*it->second.info->pod, it->second.info->pod->spec.node_name);
  pods_.erase(it);
  --assumed_;
  UpdateMetrics();
  return OkStatus();
}

bool Cache::IsAssumedPod(const api::Pod& pod) const {
  MutexLock l(mu_);
  auto it = pods_.find(PodKey(pod));
  return it != pods_.end() && it->second.assumed;
}

Status Cache::AddPod(api::PodPtr pod) {
  MutexLock l(mu_);
  std::string key = PodKey(*pod);
  auto it = pods_.find(key);
  if (it != pods_.end() && it->second.assumed) {
    // The binding was observed: replace the assumed pod by the real one, on the node the API
    // reports (it may differ if something else bound it).
    RemovePodLocked(*it->second.info->pod, it->second.info->pod->spec.node_name);
    PodInfoPtr info = framework::NewPodInfo(std::move(pod));
    AddPodLocked(info);
    it->second = PodState{std::move(info), false, false};
    --assumed_;
    UpdateMetrics();
    return OkStatus();
  }
  if (it != pods_.end()) {
    return AlreadyExistsError("pod " + api::NamespacedName(pod->metadata) + " was already added");
  }
  PodInfoPtr info = framework::NewPodInfo(std::move(pod));
  AddPodLocked(info);
  pods_[key] = PodState{std::move(info), false, false};
  UpdateMetrics();
  return OkStatus();
}

Status Cache::UpdatePod(const api::PodPtr& old_pod, api::PodPtr new_pod) {
  MutexLock l(mu_);
  auto it = pods_.find(PodKey(*old_pod));
  if (it == pods_.end() || it->second.assumed) {
    return NotFoundError("pod " + api::NamespacedName(old_pod->metadata) +
                         " is not in the cache (or only assumed), so it cannot be updated");
  }
  RemovePodLocked(*it->second.info->pod, it->second.info->pod->spec.node_name);
  PodInfoPtr info = framework::NewPodInfo(std::move(new_pod));
  AddPodLocked(info);
  it->second.info = std::move(info);
  return OkStatus();
}

Status Cache::RemovePod(const api::Pod& pod) {
  MutexLock l(mu_);
  auto it = pods_.find(PodKey(pod));
  if (it == pods_.end()) {
    return NotFoundError("pod " + api::NamespacedName(pod.metadata) + " is not in the cache");
  }
  RemovePodLocked(*it->second.info->pod, it->second.info->pod->spec.node_name);
  if (it->second.assumed) --assumed_;
  pods_.erase(it);
  UpdateMetrics();
  return OkStatus();
}

void Cache::AddNode(api::NodePtr node) {
  MutexLock l(mu_);
  NodeInfo& info = TouchNode(node->metadata.name);
  if (info.node()) {
    if (tree_.UpdateNode(*info.node(), *node)) ++tree_version_;
  } else {
    tree_.AddNode(*node);
    ++tree_version_;
  }
  UpdateImageStates(info.node(), node.get());
  info.SetNode(std::move(node));
  RefreshImageSummaries(info);
  UpdateMetrics();
}

void Cache::UpdateNode(const api::NodePtr& old_node, api::NodePtr new_node) {
  (void)old_node;  // the cache's own copy is the authoritative "old"
  AddNode(std::move(new_node));
}

void Cache::RemoveNode(const api::Node& node) {
  MutexLock l(mu_);
  auto it = nodes_.find(node.metadata.name);
  if (it == nodes_.end() || it->second->info.node() == nullptr) return;
  NodeItem* item = it->second.get();
  tree_.RemoveNode(*item->info.node());
  UpdateImageStates(item->info.node(), nullptr);
  if (item->info.pods().empty()) {
    Unlink(item);
    nodes_.erase(it);
  } else {
    MoveToHead(item);
    item->info.RemoveNode();  // pods still point here until their deletions arrive
  }
  ++tree_version_;
  UpdateMetrics();
}

void Cache::UpdateImageStates(const api::Node* old_node, const api::Node* new_node) {
  auto names = [](const api::Node* n) {
    std::unordered_map<std::string, int64_t> out;
    if (n == nullptr) return out;
    for (const auto& img : n->status.images) {
      // A name listed under two images keeps the first one's size, as upstream records it.
      for (const auto& name : img.names) out.try_emplace(name, img.size_bytes);
    }
    return out;
  };
  auto before = names(old_node);
  auto after = names(new_node);
  const std::string& node = new_node ? new_node->metadata.name : old_node->metadata.name;
  for (const auto& [name, size] : before) {
    if (after.count(name)) continue;
    auto it = images_.find(name);
    if (it == images_.end()) continue;
    it->second.nodes.erase(node);
    if (it->second.nodes.empty()) images_.erase(it);
    images_changed_ = true;
  }
  for (const auto& [name, size] : after) {
    auto& state = images_[name];
    // Upstream keeps the size first recorded while any other node still holds the image; only
    // an image no other node reports (new, or held by this node alone) takes this node's size.
    bool held_elsewhere = state.nodes.size() > (state.nodes.count(node) ? 1u : 0u);
    if (!held_elsewhere && state.size != size) {
      state.size = size;
      images_changed_ = true;
    }
    if (state.nodes.insert(node).second) images_changed_ = true;
  }
}

bool Cache::RefreshImageSummaries(NodeInfo& info) {
  std::unordered_map<std::string, framework::ImageStateSummary> summaries;
  if (const api::Node* n = info.node()) {
    for (const auto& img : n->status.images) {
      for (const auto& name : img.names) {
        auto it = images_.find(name);
        if (it == images_.end()) continue;
        summaries[name] = {it->second.size, static_cast<int>(it->second.nodes.size())};
      }
    }
  }
  if (SameSummaries(summaries, info.image_states())) return false;
  info.SetImageStates(std::move(summaries));
  return true;
}

Status Cache::UpdateSnapshot(Snapshot& snapshot) {
  MutexLock l(mu_);
  if (images_changed_) {
    // How many nodes hold an image changed: any node's summaries may be stale.
    for (auto& [name, item] : nodes_) {
      if (RefreshImageSummaries(item->info)) MoveToHead(item.get());
    }
    images_changed_ = false;
  }
  bool all_lists = snapshot.tree_version_ != tree_version_;
  const size_t logged = snapshot.changes_.size();
  // Newest first, down to the last change this snapshot has seen.
  for (NodeItem* item = head_; item && item->info.generation() > snapshot.generation_;
       item = item->next) {
    const NodeInfo& info = item->info;
    if (info.node() == nullptr) continue;  // pods waiting for their node; not schedulable
    auto& slot = snapshot.nodes_[info.name()];
    if (!slot) {
      slot = std::make_unique<NodeInfo>(info);
      all_lists = true;
      continue;
    }
    const bool had_affinity = !slot->pods_with_affinity().empty();
    const bool had_anti_affinity = !slot->pods_with_required_anti_affinity().empty();
    *slot = info;  // in place: pointers in the lists stay valid
    // A node that gains or loses pods with affinity joins or leaves those lists in place: a
    // rebuild would walk every node, once per pod that spreads itself over new nodes.
    if (had_affinity != !info.pods_with_affinity().empty()) {
      Toggle(snapshot.with_affinity_, slot.get(), !had_affinity);
    }
    if (had_anti_affinity != !info.pods_with_required_anti_affinity().empty()) {
      Toggle(snapshot.with_required_anti_affinity_, slot.get(), !had_anti_affinity);
    }
    snapshot.changes_.emplace_back(info.generation(), slot.get());
  }
  // Walked newest first; the log keeps oldest first.
  std::reverse(snapshot.changes_.begin() + static_cast<std::ptrdiff_t>(logged),
               snapshot.changes_.end());
  if (head_) snapshot.generation_ = std::max(snapshot.generation_, head_->info.generation());
  if (snapshot.nodes_.size() > tree_.size()) {
    RemoveDeletedNodesFromSnapshot(snapshot);
    all_lists = true;
  }
  if (all_lists) RebuildLists(snapshot);
  TrimChangeLog(snapshot, all_lists);
  if (snapshot.list_.size() != tree_.size()) {
    LOG_ERROR("snapshot has {} nodes but the node tree {}; rebuilding", snapshot.list_.size(),
              tree_.size());
    snapshot.generation_ = 0;  // the next update copies every node again
    snapshot.tree_version_ = 0;
    snapshot.changes_.clear();
    snapshot.log_floor_ = std::numeric_limits<int64_t>::max();  // until that update
    return InternalError("scheduler cache and snapshot disagree on the node count");
  }
  return OkStatus();
}

void Cache::RemoveDeletedNodesFromSnapshot(Snapshot& snapshot) {
  for (auto it = snapshot.nodes_.begin(); it != snapshot.nodes_.end();) {
    auto live = nodes_.find(it->first);
    if (live == nodes_.end() || live->second->info.node() == nullptr) {
      it = snapshot.nodes_.erase(it);
    } else {
      ++it;
    }
  }
}

void Cache::TrimChangeLog(Snapshot& snapshot, bool list_rebuilt) {
  // Past a few updates' worth of entries a reader is better off rescanning every node anyway.
  const size_t cap = std::max<size_t>(1024, snapshot.list_.size());
  if (list_rebuilt || snapshot.changes_.size() > cap) {
    snapshot.changes_.clear();
    snapshot.log_floor_ = snapshot.generation_;
  }
}

void Cache::RebuildLists(Snapshot& snapshot) {
  ++snapshot.list_version_;
  snapshot.list_.clear();
  for (const auto& name : tree_.List()) {
    auto it = snapshot.nodes_.find(name);
    if (it == snapshot.nodes_.end()) continue;
    it->second->set_list_position(static_cast<int32_t>(snapshot.list_.size()));
    snapshot.list_.push_back(it->second.get());
  }
  snapshot.tree_version_ = tree_version_;
  snapshot.with_affinity_.clear();
  snapshot.with_required_anti_affinity_.clear();
  for (const auto* n : snapshot.list_) {
    if (!n->pods_with_affinity().empty()) snapshot.with_affinity_.push_back(n);
    if (!n->pods_with_required_anti_affinity().empty()) {
      snapshot.with_required_anti_affinity_.push_back(n);
    }
  }
}

size_t Cache::NodeCount() const {
  MutexLock l(mu_);
  return tree_.size();
}

size_t Cache::PodCount() const {
  MutexLock l(mu_);
  return pods_.size();
}

Cache::Dump Cache::DumpAll() const {
  MutexLock l(mu_);
  Dump d;
  for (const auto& [name, item] : nodes_) d.nodes.emplace(name, item->info);
  return d;
}

}  // namespace stowage::cache
