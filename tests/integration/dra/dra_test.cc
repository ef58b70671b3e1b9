// DynamicResources on a real kube-apiserver with the resourceclaim controller and the test driver
// gpu.example.com (docs/test-cluster.md, "The DRA flow"): a pod whose claim comes from a template
// is bound, its claim allocated devices of its node and reserved for it; a claim shared by two
// pods is allocated once; a pod asking for more devices than any node has stays pending with
// upstream's message; a pending pod is scheduled once a ResourceSlice brings a device for it; a
// pod asking for the extended resource a DeviceClass provides gets a claim made for it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "pkg/client/resources.h"
#include "tests/testing/cluster.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"
#include "tests/testing/running_scheduler.h"

namespace stowage::dra_test {
namespace {

[[maybe_unused]] const bool kDraFlow = testing::UseDraFlow();

using json = nlohmann::json;
using testing::BuildClusterNode;
using testing::BuildPod;
using testing::RunningScheduler;

constexpr const char* kNs = "dra";

client::RestClient& Admin() { return testing::SharedCluster().Admin(); }

bool WaitFor(const std::function<bool()>& cond) {
  return testing::Eventually(cond, std::chrono::seconds(60), std::chrono::milliseconds(200));
}

json Get(const std::string& path) {
  auto r = Admin().Get(path);
  return r.ok() ? json::parse(*r, nullptr, false) : json();
}

// A template of one request for count devices of class gpu.example.com.
void CreateTemplate(const std::string& name, int count) {
  json t = {
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceClaimTemplate"},
      {"metadata", {{"name", name}}},
      {"spec",
       {{"spec",
         {{"devices",
           {{"requests",
             {{{"name", "gpu"},
               {"exactly", {{"deviceClassName", "gpu.example.com"}, {"count", count}}}}}}}}}}}}};
  auto r = Admin().Post(
      std::string("/apis/resource.k8s.io/v1/namespaces/") + kNs + "/resourceclaimtemplates",
      t.dump());
  ASSERT_TRUE(r.ok()) << r.status();
}

void CreatePodWithTemplate(const std::string& name, const std::string& tmpl) {
  ASSERT_TRUE(
      testing::CreatePod(
          Admin(), BuildPod().Namespace(kNs).Name(name).SchedulerName("stowage").ResourceClaims(
                       {{"gpu", std::nullopt, tmpl}}))
          .ok());
}

void Post(const std::string& path, const json& body) {
  auto r = Admin().Post(path, body.dump());
  ASSERT_TRUE(r.ok()) << path << ": " << r.status();
}

json GetPod(const std::string& name) {
  return Get(std::string("/api/v1/namespaces/") + kNs + "/pods/" + name);
}

// The node the pod is bound to once it is, else "" after the wait.
std::string BoundNode(const std::string& name) {
  std::string node;
  WaitFor([&] {
    node = GetPod(name)["spec"].value("nodeName", "");
    return !node.empty();
  });
  return node;
}

json GetClaim(const std::string& name) {
  return Get(std::string("/apis/resource.k8s.io/v1/namespaces/") + kNs + "/resourceclaims/" + name);
}

class Dra : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The in-process scheduler loads the CEL bridge CMake built.
    setenv("STOWAGE_CEL_LIBRARY", STOWAGE_CEL_BRIDGE, 1);
    ASSERT_TRUE(testing::EnsureNamespace(Admin(), kNs).ok());
    for (const char* n : {"dra-a", "dra-b"}) {
      ASSERT_TRUE(testing::CreateNode(Admin(),
                                      BuildClusterNode().Name(n).Label("kubernetes.io/hostname", n))
                      .ok());
    }
    CreateTemplate("one-gpu", 1);
    CreateTemplate("nine-gpus", 9);
    // The driver publishes each node's devices once it sees the node.
    ASSERT_TRUE(WaitFor([] {
      json slices = Get("/apis/resource.k8s.io/v1/resourceslices");
      int devices = 0;
      for (const auto& s : slices.value("items", json::array())) {
        devices += s["spec"].value("devices", json::array()).size();
      }
      return devices >= 16;
    }));
  }
};

TEST_F(Dra, PodWithClaimTemplateGetsDevicesOfItsNode) {
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  CreatePodWithTemplate("one", "one-gpu");
  json pod;
  ASSERT_TRUE(WaitFor([&] {
    pod = GetPod("one");
    return !pod["spec"].value("nodeName", "").empty();
  })) << pod.dump();
  const std::string node = pod["spec"]["nodeName"];
  const std::string claim_name = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"];
  json claim = Get(std::string("/apis/resource.k8s.io/v1/namespaces/") + kNs + "/resourceclaims/" +
                   claim_name);
  const json& results = claim["status"]["allocation"]["devices"]["results"];
  ASSERT_EQ(results.size(), 1u) << claim.dump();
  EXPECT_EQ(results[0]["driver"], "gpu.example.com");
  EXPECT_EQ(results[0]["pool"], node);  // the driver names each node's pool after the node
  EXPECT_EQ(results[0]["request"], "gpu");
  ASSERT_EQ(claim["status"]["reservedFor"].size(), 1u) << claim.dump();
  EXPECT_EQ(claim["status"]["reservedFor"][0]["resource"], "pods");
  EXPECT_EQ(claim["status"]["reservedFor"][0]["uid"], pod["metadata"]["uid"]);
  const json finalizers = claim["metadata"].value("finalizers", json::array());
  EXPECT_NE(
      std::find(finalizers.begin(), finalizers.end(), "resource.kubernetes.io/delete-protection"),
      finalizers.end())
      << claim.dump();
}

TEST_F(Dra, PodAskingForMoreDevicesThanAnyNodeHasStaysPending) {
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  CreatePodWithTemplate("nine", "nine-gpus");
  const std::string want =
      "0/2 nodes are available: 2 cannot allocate all claims. preemption: 0/2 nodes are "
      "available: 2 Preemption is not helpful for scheduling.";
  std::string message;
  ASSERT_TRUE(WaitFor([&] {
    json pod = GetPod("nine");
    for (const auto& c : pod["status"].value("conditions", json::array())) {
      if (c.value("type", "") == "PodScheduled") message = c.value("message", "");
    }
    return message == want;
  })) << message;
  EXPECT_TRUE(GetPod("nine")["spec"].value("nodeName", "").empty());
}

// One claim by name shared by two pods: allocated once, both pods on its node, both reserved.
TEST_F(Dra, ClaimSharedByTwoPods) {
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  Post(std::string("/apis/resource.k8s.io/v1/namespaces/") + kNs + "/resourceclaims",
       {{"apiVersion", "resource.k8s.io/v1"},
        {"kind", "ResourceClaim"},
        {"metadata", {{"name", "shared"}}},
        {"spec",
         {{"devices",
           {{"requests",
             {{{"name", "gpu"}, {"exactly", {{"deviceClassName", "gpu.example.com"}}}}}}}}}}});
  for (const char* p : {"share-1", "share-2"}) {
    ASSERT_TRUE(
        testing::CreatePod(
            Admin(), BuildPod().Namespace(kNs).Name(p).SchedulerName("stowage").ResourceClaims(
                         {{"gpu", "shared", std::nullopt}}))
            .ok());
  }
  const std::string node = BoundNode("share-1");
  ASSERT_FALSE(node.empty());
  EXPECT_EQ(BoundNode("share-2"), node);
  json claim;
  ASSERT_TRUE(WaitFor([&] {
    claim = GetClaim("shared");
    return claim["status"].value("reservedFor", json::array()).size() == 2;
  })) << claim.dump();
  EXPECT_EQ(claim["status"]["allocation"]["devices"]["results"].size(), 1u);
}

// A pod whose class no device matches waits; a ResourceSlice that brings one wakes it up.
TEST_F(Dra, PendingPodIsScheduledWhenASliceAppears) {
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  Post("/apis/resource.k8s.io/v1/deviceclasses",
       json::parse(R"({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
         "metadata": {"name": "fpga.example.com"},
         "spec": {"selectors": [{"cel": {"expression": "device.driver == 'fpga.example.com'"}}]}})"));
  Post(std::string("/apis/resource.k8s.io/v1/namespaces/") + kNs + "/resourceclaimtemplates",
       json::parse(R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
         "metadata": {"name": "one-fpga"}, "spec": {"spec": {"devices": {"requests": [
           {"name": "fpga", "exactly": {"deviceClassName": "fpga.example.com"}}]}}}})"));
  CreatePodWithTemplate("fpga", "one-fpga");
  ASSERT_TRUE(WaitFor([] {
    for (const auto& c : GetPod("fpga")["status"].value("conditions", json::array())) {
      if (c.value("type", "") == "PodScheduled" &&
          c.value("message", "").find("cannot allocate all claims") != std::string::npos) {
        return true;
      }
    }
    return false;
  }));
  Post("/apis/resource.k8s.io/v1/resourceslices",
       json::parse(R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
         "metadata": {"name": "dra-b-fpga"},
         "spec": {"driver": "fpga.example.com", "nodeName": "dra-b",
           "pool": {"name": "dra-b", "generation": 1, "resourceSliceCount": 1},
           "devices": [{"name": "fpga-0"}]}})"));
  EXPECT_EQ(BoundNode("fpga"), "dra-b");
}

// example.com/gpu, which the flow's class extended-gpu.example.com provides and no node lists:
// the scheduler creates a claim for the pod, allocates it and names it in the pod's status.
TEST_F(Dra, ExtendedResourceOfAClassGetsAClaimMadeForThePod) {
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  ASSERT_TRUE(testing::CreatePod(Admin(),
                                 BuildPod().Namespace(kNs).Name("ext").SchedulerName("stowage").Res(
                                     {{"example.com/gpu", "2"}}))
                  .ok());
  const std::string node = BoundNode("ext");
  ASSERT_FALSE(node.empty());
  json pod = GetPod("ext");
  const json& status = pod["status"]["extendedResourceClaimStatus"];
  ASSERT_TRUE(status.is_object()) << pod.dump();
  ASSERT_EQ(status["requestMappings"].size(), 1u) << status.dump();
  EXPECT_EQ(status["requestMappings"][0]["containerName"], pod["spec"]["containers"][0]["name"]);
  EXPECT_EQ(status["requestMappings"][0]["resourceName"], "example.com/gpu");
  EXPECT_EQ(status["requestMappings"][0]["requestName"], "container-0-request-0");
  const std::string name = status["resourceClaimName"];
  EXPECT_EQ(name.rfind("ext-extended-resources-", 0), 0u) << name;

  json claim = GetClaim(name);
  EXPECT_EQ(claim["metadata"]["annotations"]["resource.kubernetes.io/extended-resource-claim"],
            "true");
  ASSERT_EQ(claim["metadata"]["ownerReferences"].size(), 1u) << claim.dump();
  EXPECT_EQ(claim["metadata"]["ownerReferences"][0]["uid"], pod["metadata"]["uid"]);
  EXPECT_EQ(claim["metadata"]["ownerReferences"][0]["controller"], true);
  const json& results = claim["status"]["allocation"]["devices"]["results"];
  ASSERT_EQ(results.size(), 2u) << claim.dump();
  for (const json& r : results) {
    EXPECT_EQ(r["request"], "container-0-request-0");
    EXPECT_EQ(r["driver"], "gpu.example.com");
    EXPECT_EQ(r["pool"], node);
  }
  ASSERT_EQ(claim["status"]["reservedFor"].size(), 1u) << claim.dump();
  EXPECT_EQ(claim["status"]["reservedFor"][0]["uid"], pod["metadata"]["uid"]);
}

}  // namespace
}  // namespace stowage::dra_test
