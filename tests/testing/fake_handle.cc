#include "tests/testing/fake_handle.h"

#include <map>
#include <set>

#include "stowage/common/mutex.h"

namespace stowage::testing {

NodeInfoPtr MakeNodeInfo(api::NodePtr node, const std::vector<api::PodPtr>& pods) {
  auto info = std::make_shared<framework::NodeInfo>();
  std::unordered_map<std::string, framework::ImageStateSummary> images;
  for (const auto& image : node->status.images) {
    for (const auto& name : image.names) images[name] = {image.size_bytes, 1};
  }
  info->SetNode(std::move(node));
  info->SetImageStates(std::move(images));
  for (const auto& pod : pods) info->AddPodInfo(framework::NewPodInfo(pod));
  return info;
}

std::vector<NodeInfoPtr> MakeNodeInfos(const std::vector<api::NodePtr>& nodes,
                                       const std::vector<api::PodPtr>& pods) {
  std::map<std::string, std::set<std::string>, std::less<>> nodes_with_image;
  for (const auto& node : nodes) {
    for (const auto& image : node->status.images) {
      for (const auto& name : image.names) nodes_with_image[name].insert(node->metadata.name);
    }
  }
  std::vector<NodeInfoPtr> out;
  out.reserve(nodes.size());
  for (const auto& node : nodes) {
    std::vector<api::PodPtr> on_node;
    for (const auto& pod : pods) {
      if (pod->spec.node_name == node->metadata.name) on_node.push_back(pod);
    }
    NodeInfoPtr info = MakeNodeInfo(node, on_node);
    std::unordered_map<std::string, framework::ImageStateSummary> images;
    for (const auto& image : node->status.images) {
      for (const auto& name : image.names) {
        images[name] = {image.size_bytes, static_cast<int>(nodes_with_image[name].size())};
      }
    }
    info->SetImageStates(std::move(images));
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<const framework::NodeInfo*> Pointers(const std::vector<NodeInfoPtr>& infos) {
  std::vector<const framework::NodeInfo*> out;
  out.reserve(infos.size());
  for (const auto& i : infos) out.push_back(i.get());
  return out;
}

void SequentialParallelizer::Until(size_t n, const std::function<void(size_t)>& fn,
                                   const std::function<bool()>& stop) {
  for (size_t i = 0; i < n; ++i) {
    if (stop && stop()) return;
    fn(i);
  }
}

void FakeNodeInfoLister::Set(std::vector<NodeInfoPtr> infos) {
  owned_ = std::move(infos);
  all_ = Pointers(owned_);
  with_affinity_.clear();
  with_required_anti_affinity_.clear();
  for (const auto* info : all_) {
    if (!info->pods_with_affinity().empty()) with_affinity_.push_back(info);
    if (!info->pods_with_required_anti_affinity().empty()) {
      with_required_anti_affinity_.push_back(info);
    }
  }
}

const framework::NodeInfo* FakeNodeInfoLister::Get(std::string_view node_name) const {
  for (const auto* info : all_) {
    if (info->name() == node_name) return info;
  }
  return nullptr;
}

void FakeHandle::SetNodes(const std::vector<api::NodePtr>& nodes,
                          const std::vector<api::PodPtr>& pods) {
  SetNodeInfos(MakeNodeInfos(nodes, pods));
}

void FakeHandle::SetBindError(stowage::Status error) {
  MutexLock lock(mu_);
  bind_error_ = std::move(error);
}

void FakeHandle::SetBindErrors(std::vector<stowage::Status> errors) {
  MutexLock lock(mu_);
  next_bind_errors_ = std::move(errors);
}

std::vector<FakeHandle::BindCall> FakeHandle::bind_calls() const {
  MutexLock lock(mu_);
  return bind_calls_;
}

stowage::Status FakeHandle::Bind(const api::Pod& pod, std::string_view node_name) {
  MutexLock lock(mu_);
  bind_calls_.push_back(
      {pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid, std::string(node_name)});
  if (!next_bind_errors_.empty()) {
    stowage::Status s = std::move(next_bind_errors_.front());
    next_bind_errors_.erase(next_bind_errors_.begin());
    return s;
  }
  return bind_error_;
}

stowage::Status FakeHandle::PatchPodStatus(const api::Pod& pod, const api::PodStatus& status) {
  MutexLock l(mu_);
  write_calls_.push_back({"patch", pod.metadata.namespace_, pod.metadata.name, status});
  return write_error_;
}

stowage::Status FakeHandle::DeletePod(const api::Pod& pod) {
  MutexLock l(mu_);
  write_calls_.push_back({"delete", pod.metadata.namespace_, pod.metadata.name, {}});
  return write_error_;
}

void FakeHandle::SetWriteError(stowage::Status error) {
  MutexLock l(mu_);
  write_error_ = std::move(error);
}

std::vector<FakeHandle::WriteCall> FakeHandle::write_calls() const {
  MutexLock l(mu_);
  return write_calls_;
}

void FakeHandle::SetPdbs(std::vector<api::PodDisruptionBudget> pdbs) {
  pdbs_ = FakeLister<api::PodDisruptionBudget>(std::move(pdbs));
}

void FakeHandle::SetNominatedPods(std::vector<framework::PodInfoPtr> pods) {
  MutexLock l(mu_);
  nominated_ = std::move(pods);
}

std::vector<framework::PodInfoPtr> FakeHandle::NominatedPodsForNode(std::string_view node) {
  MutexLock l(mu_);
  std::vector<framework::PodInfoPtr> out;
  for (const auto& p : nominated_) {
    if (p->pod->status.nominated_node_name == node) out.push_back(p);
  }
  return out;
}

void FakeHandle::Activate(const api::Pod& pod) {
  MutexLock l(mu_);
  activated_.push_back(api::NamespacedName(pod.metadata));
}

std::vector<std::string> FakeHandle::activated() const {
  MutexLock l(mu_);
  return activated_;
}

void FakeHandle::RecordEvent(const api::Pod& regarding, std::string_view controller,
                             std::string_view type, std::string_view reason,
                             std::string_view action, std::string note, const api::Pod* related) {
  MutexLock l(mu_);
  events_.push_back({api::NamespacedName(regarding.metadata), std::string(controller),
                     std::string(type), std::string(reason), std::string(action), std::move(note),
                     related ? api::NamespacedName(related->metadata) : std::string()});
}

std::vector<FakeHandle::EventCall> FakeHandle::events() const {
  MutexLock l(mu_);
  return events_;
}

}  // namespace stowage::testing
