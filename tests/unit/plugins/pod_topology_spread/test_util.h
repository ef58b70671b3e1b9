// Shared helpers of the PodTopologySpread tests: a handle with workload listers, the plugin
// factory call, selectors and a compact cluster description.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/plugins/pod_topology_spread/plugin.h"
#include "stowage/plugin_config/args.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fake_lister.h"

namespace stowage::plugins::pod_topology_spread::testutil {

using stowage::testing::BuildLabelSelector;
using stowage::testing::BuildNode;
using stowage::testing::BuildPod;
using stowage::testing::FakeLister;

inline const std::string kDoNot(kDoNotSchedule);
inline const std::string kAnyway(kScheduleAnyway);
inline const std::string kHostname(kLabelHostname);

// Selects pods with a "foo" (or "bar") label, whatever its value.
inline api::LabelSelector FooSelector() { return BuildLabelSelector().Exists("foo").Obj(); }
inline api::LabelSelector BarSelector() { return BuildLabelSelector().Exists("bar").Obj(); }

// A FakeHandle whose workload listers hold what the test put in them.
class ListerHandle : public stowage::testing::FakeHandle {
 public:
  FakeLister<api::Service> services_list;
  FakeLister<api::ReplicaSet> replica_sets_list;
  FakeLister<api::StatefulSet> stateful_sets_list;
  FakeLister<api::ReplicationController> rcs_list;

  const framework::Lister<api::Service>& services() override { return services_list; }
  const framework::Lister<api::ReplicaSet>& replica_sets() override { return replica_sets_list; }
  const framework::Lister<api::StatefulSet>& stateful_sets() override { return stateful_sets_list; }
  const framework::Lister<api::ReplicationController>& replication_controllers() override {
    return rcs_list;
  }
};

inline config::PodTopologySpreadArgs ListArgs(
    std::vector<api::TopologySpreadConstraint> defaults = {}) {
  return config::PodTopologySpreadArgs{std::move(defaults), std::string(config::kListDefaulting)};
}
inline config::PodTopologySpreadArgs SystemArgs() {
  return config::PodTopologySpreadArgs{{}, std::string(config::kSystemDefaulting)};
}

inline std::unique_ptr<PodTopologySpread> MakePlugin(framework::Handle& handle,
                                                     const config::PodTopologySpreadArgs& args,
                                                     const framework::Features& features = {}) {
  auto plugin = New(args, handle, features);
  EXPECT_TRUE(plugin.ok()) << plugin.status().message();
  return std::unique_ptr<PodTopologySpread>(
      dynamic_cast<PodTopologySpread*>(std::move(plugin).value().release()));
}

inline api::Service Service(std::string ns, std::string name, stowage::testing::KeyValues sel) {
  api::Service s;
  s.metadata.namespace_ = std::move(ns);
  s.metadata.name = std::move(name);
  s.selector = stowage::testing::MakeStringMap(sel);
  return s;
}

inline api::ReplicaSet ReplicaSet(std::string ns, std::string name,
                                  std::optional<api::LabelSelector> sel) {
  api::ReplicaSet rs;
  rs.metadata.namespace_ = std::move(ns);
  rs.metadata.name = std::move(name);
  rs.selector = std::move(sel);
  return rs;
}

// A node named name with label kubernetes.io/hostname=name, "node"=name and, if zone is not
// empty, "zone"=zone.
inline stowage::testing::NodeWrapper ZoneNode(std::string name, std::string zone) {
  auto n = BuildNode().Name(name).Label(kHostname, name).Label("node", name);
  if (!zone.empty()) n.Label("zone", zone);
  return n;
}

// A pod labelled foo="" bound to node.
inline api::PodPtr FooPod(std::string name, std::string node) {
  return BuildPod().Name(std::move(name)).Node(std::move(node)).Label("foo", "").Obj();
}

}  // namespace stowage::plugins::pod_topology_spread::testutil
