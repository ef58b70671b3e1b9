// Shared helpers of the InterPodAffinity tests: a handle with namespaces, term builders, and a
// run of PreFilter + Filter over a small cluster.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pkg/plugins/inter_pod_affinity/plugin.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fake_lister.h"

namespace stowage::plugins::inter_pod_affinity::testutil {

using stowage::testing::BuildLabelSelector;
using stowage::testing::BuildNode;
using stowage::testing::BuildPod;
using stowage::testing::PodAffinityKind;

// A FakeHandle with Namespaces, labelled as AddNamespace says.
class Handle : public stowage::testing::FakeHandle {
 public:
  const framework::Lister<api::Namespace>& namespaces() override { return namespaces_; }
  // Adds the namespace, or relabels it if it is there.
  void AddNamespace(std::string name, const stowage::testing::KeyValues& labels) {
    api::Namespace ns;
    ns.metadata.name = std::move(name);
    ns.metadata.labels = stowage::testing::MakeStringMap(labels);
    namespaces_.Update(std::move(ns));
  }
  int64_t NamespaceListsForTest() const { return namespaces_.ListCallsForTest(); }

 private:
  stowage::testing::FakeLister<api::Namespace> namespaces_;
};

inline std::unique_ptr<InterPodAffinity> MakePlugin(Handle& handle,
                                                    config::InterPodAffinityArgs args = {}) {
  auto plugin = New(args, handle, {});
  EXPECT_TRUE(plugin.ok()) << plugin.status().message();
  return std::unique_ptr<InterPodAffinity>(
      dynamic_cast<InterPodAffinity*>(std::move(plugin).value().release()));
}

// A term selecting pods whose label key is one of values, in topology_key.
inline api::PodAffinityTerm TermIn(std::string key, std::vector<std::string> values,
                                   std::string topology_key) {
  api::PodAffinityTerm t;
  t.label_selector = BuildLabelSelector().In(std::move(key), std::move(values)).Obj();
  t.topology_key = std::move(topology_key);
  return t;
}
inline api::PodAffinityTerm WithNamespaces(api::PodAffinityTerm t, std::vector<std::string> ns) {
  t.namespaces = std::move(ns);
  return t;
}
inline api::PodAffinityTerm WithNamespaceSelector(api::PodAffinityTerm t, api::LabelSelector s) {
  t.namespace_selector = std::move(s);
  return t;
}

// The pod's affinity (or anti-affinity) with these required and preferred terms.
inline api::PodAffinity Terms(std::vector<api::PodAffinityTerm> required,
                              std::vector<api::WeightedPodAffinityTerm> preferred = {}) {
  return {std::move(required), std::move(preferred)};
}
inline api::PodPtr WithAffinity(stowage::testing::PodWrapper pod,
                                std::optional<api::PodAffinity> affinity,
                                std::optional<api::PodAffinity> anti = std::nullopt) {
  api::Affinity a;
  a.pod_affinity = std::move(affinity);
  a.pod_anti_affinity = std::move(anti);
  pod.pod().spec.affinity = std::move(a);
  return pod.Obj();
}

// PreFilter and then Filter on each node, as the framework runs them: a PreFilter that is not
// Success ends there (Skip: every node passes).
struct FilterRun {
  framework::Status pre_filter;
  std::vector<framework::Status> filter;  // one per node, in order
};
inline FilterRun RunFilter(Handle& handle, InterPodAffinity& plugin, const api::PodPtr& pod,
                           const std::vector<api::NodePtr>& nodes,
                           const std::vector<api::PodPtr>& pods) {
  handle.SetNodes(nodes, pods);
  FilterRun run;
  framework::CycleState state;
  framework::PreFilterResult result;
  auto info = framework::NewPodInfo(pod);
  run.pre_filter = plugin.PreFilter(state, *info, handle.SnapshotSharedLister().List(), result);
  for (const framework::NodeInfo* node : handle.SnapshotSharedLister().List()) {
    if (run.pre_filter.IsSkip()) {
      run.filter.emplace_back();
    } else if (run.pre_filter.IsSuccess()) {
      run.filter.push_back(plugin.Filter(state, *info, *node));
    }
  }
  return run;
}

}  // namespace stowage::plugins::inter_pod_affinity::testutil
