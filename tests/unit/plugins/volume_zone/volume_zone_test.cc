// VolumeZone, table-driven after upstream's volume_zone_test.go: beta and GA zone and region
// labels on volumes and nodes, multi-zone values, and the claims it cannot read.
#include "pkg/plugins/volume_zone/volume_zone.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "pkg/plugins/names.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/storage_handle.h"

namespace stowage::plugins::volume_zone::volume_zone_test {
namespace {

using framework::Code;
using testing::BuildNode;
using testing::BuildPod;
using testing::Claim;
using testing::Class;

constexpr const char* kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr const char* kBetaRegion = "failure-domain.beta.kubernetes.io/region";
constexpr const char* kZone = "topology.kubernetes.io/zone";
constexpr const char* kRegion = "topology.kubernetes.io/region";

using Labels = std::map<std::string, std::string>;

api::PersistentVolume Volume(std::string name, const Labels& labels) {
  api::PersistentVolume pv;
  pv.metadata.name = std::move(name);
  std::vector<api::StringMap::Entry> entries(labels.begin(), labels.end());
  pv.metadata.labels = api::StringMap(std::move(entries));
  return pv;
}

testing::NodeInfoPtr Node(const Labels& labels) {
  auto n = BuildNode().Name("host1");
  for (const auto& [k, v] : labels) n.Label(k, v);
  return testing::MakeNodeInfo(n.Obj());
}

struct Case {
  std::string name;
  std::string claim;  // the pod's one persistentVolumeClaim volume; empty: no volume
  Labels node;
  Code prefilter = Code::kSuccess;
  std::string prefilter_message;
  Code filter = Code::kSuccess;
  std::string filter_message;
};

void RunCases(testing::StorageHandle& handle, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    VolumeZone pl(handle, false);
    auto pod = BuildPod().Name("pod_1").Namespace("default");
    if (!c.claim.empty()) pod.PVC(c.claim);
    auto info = framework::NewPodInfo(pod.Obj());
    auto node = Node(c.node);
    framework::CycleState state;
    framework::PreFilterResult result;
    framework::Status pre = pl.PreFilter(state, *info, {node.get()}, result);
    EXPECT_EQ(pre.code(), c.prefilter) << c.name << ": " << pre.Message();
    EXPECT_EQ(pre.Message(), c.prefilter_message) << c.name;
    if (pre.code() == Code::kSkip) continue;
    // Filter decides the same with PreFilter's state and, as upstream, without it.
    framework::CycleState empty;
    for (const framework::CycleState* s : {&state, &empty}) {
      framework::Status f = pl.Filter(*s, *info, *node);
      EXPECT_EQ(f.code(), c.filter) << c.name;
      EXPECT_EQ(f.Message(), c.filter_message) << c.name;
    }
  }
}

const std::string kConflict = std::string(kErrReasonConflict);

TEST(VolumeZone, SingleZone) {
  testing::StorageHandle h;
  h.pvs.Add(Volume("Vol_1", {{kBetaZone, "us-west1-a"}}));
  h.pvs.Add(Volume("Vol_2", {{kBetaRegion, "us-west1"}, {"uselessLabel", "none"}}));
  h.pvs.Add(Volume("Vol_Stable_1", {{kZone, "us-west1-a"}}));
  h.pvs.Add(Volume("Vol_Stable_2", {{kRegion, "us-west1"}}));
  h.pvs.Add(Volume("Vol_Stable_3", {{kZone, "us-west1-a"}, {kRegion, "us-west1-a"}}));
  for (const char* n : {"1", "2"})
    h.pvcs.Add(Claim(std::string("PVC_") + n, std::string("Vol_") + n));
  for (const char* n : {"1", "2", "3"}) {
    h.pvcs.Add(Claim(std::string("PVC_Stable_") + n, std::string("Vol_Stable_") + n));
  }
  RunCases(
      h, {
             {"pod without volume", "", {{kBetaZone, "us-west1-a"}}, Code::kSkip},
             {"node without labels", "PVC_1", {}},
             {"beta zone label matched", "PVC_1", {{kBetaZone, "us-west1-a"}, {"x", "none"}}},
             {"beta region label matched", "PVC_2", {{kBetaRegion, "us-west1"}}},
             {"beta region label doesn't match",
              "PVC_2",
              {{kBetaRegion, "no_us-west1"}},
              Code::kSuccess,
              "",
              Code::kUnschedulableAndUnresolvable,
              kConflict},
             {"beta zone label doesn't match",
              "PVC_1",
              {{kBetaZone, "no_us-west1-a"}},
              Code::kSuccess,
              "",
              Code::kUnschedulableAndUnresolvable,
              kConflict},
             {"zone label matched", "PVC_Stable_1", {{kZone, "us-west1-a"}}},
             {"region label matched", "PVC_Stable_2", {{kRegion, "us-west1"}}},
             {"zone label doesn't match",
              "PVC_Stable_1",
              {{kZone, "no_us-west1-a"}},
              Code::kSuccess,
              "",
              Code::kUnschedulableAndUnresolvable,
              kConflict},
             {"pv with zone and region, node with only zone",
              "PVC_Stable_3",
              {{kZone, "us-west1-a"}},
              Code::kSuccess,
              "",
              Code::kUnschedulableAndUnresolvable,
              kConflict},
             {"pv with zone, node with beta zone",
              "PVC_Stable_1",
              {{kBetaZone, "us-west1-a"}},
              Code::kSuccess,
              "",
              Code::kUnschedulableAndUnresolvable,
              kConflict},
             {"pv with beta label, node with ga label, matched", "PVC_1", {{kZone, "us-west1-a"}}},
             {"pv with beta label, node with ga label, don't match",
              "PVC_1",
              {{kZone, "us-west1-b"}},
              Code::kSuccess,
              "",
              Code::kUnschedulableAndUnresolvable,
              kConflict},
         });
}

TEST(VolumeZone, MultiZone) {
  testing::StorageHandle h;
  h.pvs.Add(Volume("Vol_1", {{kBetaZone, "us-west1-a"}}));
  h.pvs.Add(Volume("Vol_2", {{kBetaZone, "us-west1-b__us-west1-a"}}));
  h.pvs.Add(Volume("Vol_3", {{kBetaZone, "us-west1-c__us-west1-a"}}));
  h.pvs.Add(Volume("Vol_Stable_1", {{kZone, "us-west1-a"}}));
  h.pvs.Add(Volume("Vol_Stable_2", {{kZone, " us-west1-b __ us-west1-a "}}));
  // An empty zone in the list makes upstream ignore the label.
  h.pvs.Add(Volume("Vol_Bad", {{kZone, "us-west1-a____us-west1-b"}}));
  for (const char* n : {"1", "2", "3"})
    h.pvcs.Add(Claim(std::string("PVC_") + n, std::string("Vol_") + n));
  h.pvcs.Add(Claim("PVC_Stable_1", "Vol_Stable_1"));
  h.pvcs.Add(Claim("PVC_Stable_2", "Vol_Stable_2"));
  h.pvcs.Add(Claim("PVC_Bad", "Vol_Bad"));
  RunCases(h, {
                  {"node without labels", "PVC_Stable_1", {}},
                  {"beta zone label matched", "PVC_1", {{kBetaZone, "us-west1-a"}}},
                  {"beta zone in a list matched", "PVC_2", {{kBetaZone, "us-west1-a"}}},
                  {"beta zone not in the list",
                   "PVC_3",
                   {{kBetaZone, "us-west1-b"}},
                   Code::kSuccess,
                   "",
                   Code::kUnschedulableAndUnresolvable,
                   kConflict},
                  {"zone label matched", "PVC_Stable_1", {{kZone, "us-west1-a"}}},
                  {"zone in a spaced list matched", "PVC_Stable_2", {{kZone, "us-west1-b"}}},
                  {"zone label doesn't match",
                   "PVC_Stable_1",
                   {{kZone, "us-west1-b"}},
                   Code::kSuccess,
                   "",
                   Code::kUnschedulableAndUnresolvable,
                   kConflict},
                  {"a malformed list is ignored", "PVC_Bad", {{kZone, "us-west1-c"}}, Code::kSkip},
              });
}

TEST(VolumeZone, WithBinding) {
  testing::StorageHandle h;
  h.classes.Add(Class("Class_Unset", ""));
  h.classes.Add(Class("Class_Immediate", "Immediate"));
  h.classes.Add(Class("Class_Wait", "WaitForFirstConsumer"));
  h.pvs.Add(Volume("Vol_1", {{kBetaZone, "us-west1-a"}}));
  h.pvcs.Add(Claim("PVC_1", "Vol_1"));
  h.pvcs.Add(Claim("PVC_NoSC", "", "Class_0"));
  h.pvcs.Add(Claim("PVC_EmptySC", ""));
  h.pvcs.Add(Claim("PVC_UnsetSC", "", "Class_Unset"));
  h.pvcs.Add(Claim("PVC_ImmediateSC", "", "Class_Immediate"));
  h.pvcs.Add(Claim("PVC_WaitSC", "", "Class_Wait"));
  h.pvcs.Add(Claim("PVC_NoPV", "Vol_gone"));
  const Labels node = {{kBetaZone, "us-west1-a"}, {"uselessLabel", "none"}};
  const Code kUnresolvable = Code::kUnschedulableAndUnresolvable;
  auto both = [&](std::string name, std::string claim, std::string message) {
    return Case{std::move(name), std::move(claim), node,   kUnresolvable,
                message,         kUnresolvable,    message};
  };
  RunCases(h,
           {
               {"label zone failure domain matched", "PVC_1", node},
               both("unbound volume empty storage class", "PVC_EmptySC",
                    "PersistentVolumeClaim had no pv name and storageClass name"),
               both("unbound volume no storage class", "PVC_NoSC",
                    "storageclass.storage.k8s.io \"Class_0\" not found"),
               both("unbound volume binding mode not set", "PVC_UnsetSC",
                    "VolumeBindingMode not set for StorageClass \"Class_Unset\""),
               both("unbound volume immediate binding mode", "PVC_ImmediateSC",
                    "PersistentVolume had no name"),
               {"unbound volume wait binding mode", "PVC_WaitSC", node, Code::kSkip},
               both("claim not found", "PVC_gone", "persistentvolumeclaim \"PVC_gone\" not found"),
               both("volume not found", "PVC_NoPV", "persistentvolume \"Vol_gone\" not found"),
           });
}

// Upstream's hints: which storage events can lift a VolumeZone rejection.
TEST(VolumeZone, HintsQueueOnlyForWhatMayHelp) {
  testing::StorageHandle handle;
  VolumeZone pl(handle, false);
  std::map<framework::EventResource, framework::QueueingHintFn> hints;
  for (auto& e : pl.EventsToRegister()) hints[e.event.resource] = e.hint;
  using framework::EventObject;
  using framework::QueueingHint;
  const api::PodPtr pod = BuildPod()
                              .Name("p")
                              .Namespace("default")
                              .PVC("data")
                              .Volume([] {
                                api::Volume v;
                                v.name = "scratch";
                                v.source = "ephemeral";
                                return v;
                              }())
                              .Obj();

  auto cls = [](std::string mode) {
    return EventObject(std::make_shared<const api::StorageClass>(Class("c", mode)));
  };
  auto& on_class = hints.at(framework::EventResource::kStorageClass);
  EXPECT_EQ(on_class(*pod, {}, cls("WaitForFirstConsumer")), QueueingHint::kQueue);
  EXPECT_EQ(on_class(*pod, {}, cls("Immediate")), QueueingHint::kSkip);

  auto claim = [](std::string ns, std::string name) {
    api::PersistentVolumeClaim c = Claim(std::move(name));
    c.metadata.namespace_ = std::move(ns);
    return EventObject(std::make_shared<const api::PersistentVolumeClaim>(c));
  };
  auto& on_claim = hints.at(framework::EventResource::kPersistentVolumeClaim);
  EXPECT_EQ(on_claim(*pod, {}, claim("default", "data")), QueueingHint::kQueue);
  EXPECT_EQ(on_claim(*pod, claim("default", "data"), claim("default", "data")),
            QueueingHint::kQueue);
  EXPECT_EQ(on_claim(*pod, {}, claim("default", "other")), QueueingHint::kSkip);
  EXPECT_EQ(on_claim(*pod, {}, claim("elsewhere", "data")), QueueingHint::kSkip);
  // An ephemeral volume's claim is not one the pod names.
  EXPECT_EQ(on_claim(*pod, {}, claim("default", "p-scratch")), QueueingHint::kSkip);

  auto pv = [](const Labels& labels) {
    return EventObject(std::make_shared<const api::PersistentVolume>(Volume("v", labels)));
  };
  auto& on_pv = hints.at(framework::EventResource::kPersistentVolume);
  EXPECT_EQ(on_pv(*pod, {}, pv({})), QueueingHint::kQueue);
  EXPECT_EQ(on_pv(*pod, pv({{kZone, "a"}}), pv({{kZone, "a"}, {"other", "x"}})),
            QueueingHint::kSkip);
  EXPECT_EQ(on_pv(*pod, pv({{kZone, "a__b"}}), pv({{kZone, " b__a"}})), QueueingHint::kSkip);
  EXPECT_EQ(on_pv(*pod, pv({{kZone, "a"}}), pv({{kZone, "b"}})), QueueingHint::kQueue);
  EXPECT_EQ(on_pv(*pod, pv({{kZone, "a"}}), pv({{kZone, "a"}, {kBetaRegion, "r"}})),
            QueueingHint::kQueue);
  // A value with an empty zone is ignored, as if the label were absent.
  EXPECT_EQ(on_pv(*pod, pv({}), pv({{kRegion, "r__"}})), QueueingHint::kSkip);
  EXPECT_EQ(on_pv(*pod, pv({{kBetaZone, "a"}}), pv({})), QueueingHint::kQueue);
}

TEST(VolumeZone, MessagesAndNameAreUpstreams) {
  EXPECT_EQ(kErrReasonConflict, testing::UpstreamFailureReason("VolumeZone.ErrReasonConflict"));
  EXPECT_EQ(kName, names::kVolumeZone);
}

}  // namespace
}  // namespace stowage::plugins::volume_zone::volume_zone_test
