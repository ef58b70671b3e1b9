// FrameworkHandle: the framework::Handle the scheduler gives every profile's plugins: the
// cycle's snapshot, the worker pool, the pods waiting at Permit in any profile and a PodWriter.
// It holds references only, so plugins reach no more of the scheduler than this; the objects
// referred to outlive the frameworks. Thread-safe as the objects it refers to are.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "pkg/framework/handle.h"

namespace stowage::scheduler {

class FrameworkHandle final : public framework::Handle {
 public:
  // The pod with this UID if it waits at Permit in some profile.
  using WaitingPodLookup = std::function<std::shared_ptr<framework::WaitingPod>(std::string_view)>;

  FrameworkHandle(const framework::NodeInfoLister& snapshot, framework::Parallelizer& pool,
                  framework::PodWriter& writer, WaitingPodLookup waiting_pods)
      : snapshot_(snapshot), pool_(pool), writer_(writer), waiting_pods_(std::move(waiting_pods)) {}

  const framework::NodeInfoLister& SnapshotSharedLister() const override { return snapshot_; }
  framework::Parallelizer& parallelizer() override { return pool_; }
  framework::PodWriter& pod_writer() override { return writer_; }
  std::shared_ptr<framework::WaitingPod> GetWaitingPod(std::string_view uid) override {
    return waiting_pods_(uid);
  }

 private:
  const framework::NodeInfoLister& snapshot_;
  framework::Parallelizer& pool_;
  framework::PodWriter& writer_;
  const WaitingPodLookup waiting_pods_;
};

}  // namespace stowage::scheduler
