// Helpers of the DefaultPreemption tests: a PluginsRunner over real in-tree plugins
// (NodeResourcesFit and InterPodAffinity, whose PreFilter state preemption must keep up to
// date), and a Cluster that runs a pod's Filter phase as the scheduler would, so PostFilter
// receives realistic per-node statuses.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "pkg/plugins/inter_pod_affinity/plugin.h"
#include "pkg/plugins/node_resources/fit.h"
#include "stowage/framework/cycle_state.h"
#include "stowage/framework/interface.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"

namespace stowage::plugins::default_preemption::testutil {

using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

class TestRunner final : public framework::PluginsRunner {
 public:
  explicit TestRunner(framework::Handle& handle) {
    auto fit = node_resources::NewFit({}, handle, {});
    auto ipa = inter_pod_affinity::New({}, handle, {});
    EXPECT_TRUE(fit.ok() && ipa.ok());
    plugins_.push_back(std::move(*fit));
    plugins_.push_back(std::move(*ipa));
  }

  // Nominated pods counted by RunFilterPluginsWithNominatedPods (all nodes).
  std::vector<framework::PodInfoPtr> nominated;

  // A fresh state with every PreFilter run for pod over nodes.
  std::unique_ptr<CycleState> PreFilter(const PodInfo& pod,
                                        const std::vector<const NodeInfo*>& nodes) {
    auto state = std::make_unique<CycleState>();
    skipped_.clear();
    for (auto& p : plugins_) {
      if (auto* pf = dynamic_cast<framework::PreFilterPlugin*>(p.get())) {
        framework::PreFilterResult r;
        Status s = pf->PreFilter(*state, pod, nodes, r);
        EXPECT_TRUE(s.IsSuccess() || s.IsSkip()) << s.Message();
        // As the framework does: a plugin that skips PreFilter skips Filter and its extensions.
        if (s.IsSkip()) skipped_.insert(p.get());
      }
    }
    return state;
  }
  Status Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) {
    for (auto& p : plugins_) {
      if (skipped_.count(p.get())) continue;
      if (auto* f = dynamic_cast<framework::FilterPlugin*>(p.get())) {
        Status s = f->Filter(state, pod, node);
        if (!s.IsSuccess()) return std::move(s.WithPlugin(p->Name()));
      }
    }
    return {};
  }

  Status RunPreFilterExtensionAddPod(CycleState& state, const api::Pod& pod, const PodInfo& to_add,
                                     const NodeInfo& node) override {
    for (auto* ext : Extensions()) {
      if (Status s = ext->AddPod(state, pod, to_add, node); !s.IsSuccess()) return s;
    }
    return {};
  }
  Status RunPreFilterExtensionRemovePod(CycleState& state, const api::Pod& pod,
                                        const PodInfo& to_remove, const NodeInfo& node) override {
    for (auto* ext : Extensions()) {
      if (Status s = ext->RemovePod(state, pod, to_remove, node); !s.IsSuccess()) return s;
    }
    return {};
  }
  Status RunFilterPluginsWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                           const NodeInfo& node) override {
    NodeInfo with = node;
    auto with_state = state.Clone();
    bool added = false;
    for (const auto& p : nominated) {
      if (p->pod->status.nominated_node_name != node.name() ||
          p->pod->spec.priority.value_or(0) < pod->spec.priority.value_or(0)) {
        continue;
      }
      with.AddPodInfo(p);
      EXPECT_TRUE(RunPreFilterExtensionAddPod(*with_state, *pod.pod, *p, with).IsSuccess());
      added = true;
    }
    if (added) {
      if (Status s = Filter(*with_state, pod, with); !s.IsSuccess()) return s;
    }
    return Filter(state, pod, node);
  }

 private:
  std::vector<framework::PreFilterExtensions*> Extensions() {
    std::vector<framework::PreFilterExtensions*> out;
    for (auto& p : plugins_) {
      if (skipped_.count(p.get())) continue;
      if (auto* pf = dynamic_cast<framework::PreFilterPlugin*>(p.get())) {
        if (auto* ext = pf->Extensions()) out.push_back(ext);
      }
    }
    return out;
  }
  std::vector<std::unique_ptr<framework::Plugin>> plugins_;
  std::set<const framework::Plugin*> skipped_;  // by the last PreFilter
};

// Nodes and pods on a FakeHandle, and the Filter phase of a pod over them.
struct Cluster {
  stowage::testing::FakeHandle handle;
  TestRunner runner{handle};

  Cluster(const std::vector<api::NodePtr>& nodes, const std::vector<api::PodPtr>& pods) {
    handle.SetNodes(nodes, pods);
  }
  // PreFilter, then every node's Filter status (successes left out, as the scheduler does).
  framework::NodeToStatus FilterPhase(const PodInfo& pod, std::unique_ptr<CycleState>& state) {
    const auto& nodes = handle.SnapshotSharedLister().List();
    state = runner.PreFilter(pod, nodes);
    framework::NodeToStatus out;
    for (const auto* n : nodes) {
      Status s = runner.RunFilterPluginsWithNominatedPods(*state, pod, *n);
      if (!s.IsSuccess()) out.emplace_back(n->name(), std::move(s));
    }
    return out;
  }
};

inline api::NodePtr Node(const std::string& name, const std::string& cpu) {
  return stowage::testing::NodeWrapper()
      .Name(name)
      .Label("kubernetes.io/hostname", name)
      .Capacity({{"cpu", cpu}, {"memory", "100Gi"}, {"pods", "100"}})
      .Obj();
}

// A pod of priority on node (none: unscheduled) requesting cpu.
inline stowage::testing::PodWrapper Pod(const std::string& name, int32_t priority,
                                        const std::string& cpu, const std::string& node = "") {
  stowage::testing::PodWrapper w;
  w.Name(name).Namespace("default").UID("uid-" + name).Priority(priority).Req({{"cpu", cpu}});
  if (!node.empty()) w.Node(node);
  return w;
}

}  // namespace stowage::plugins::default_preemption::testutil
