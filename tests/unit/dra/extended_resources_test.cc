// Which DeviceClass serves an extended resource, and the requests of the claim the scheduler
// makes for a pod's containers (request names, counts, init containers sharing one request).
#include "pkg/dra/extended_resources.h"

#include <gtest/gtest.h>

#include "tests/testing/builders.h"

namespace stowage::dra::extended_resources_test {
namespace {

using stowage::testing::BuildPod;

DeviceClassPtr Class(std::string name, std::optional<std::string> extended = std::nullopt,
                     std::string created = "2026-01-01T00:00:00Z") {
  auto c = std::make_shared<api::DeviceClass>();
  c->metadata.name = std::move(name);
  c->metadata.creation_timestamp = std::move(created);
  c->extended_resource_name = std::move(extended);
  return c;
}

// "name:class:count" of each request, in order.
std::vector<std::string> Describe(const ExtendedRequests& r) {
  std::vector<std::string> out;
  for (const api::DeviceRequest& d : r.requests) {
    out.push_back(d.name + ":" + d.exactly->device_class_name + ":" +
                  std::to_string(d.exactly->count));
    EXPECT_EQ(d.exactly->allocation_mode, "ExactCount");
  }
  return out;
}

// "container/resource->request" of each mapping, in order.
std::vector<std::string> Mappings(const ExtendedRequests& r) {
  std::vector<std::string> out;
  for (const auto& m : r.mappings) {
    out.push_back(m.container_name + "/" + m.resource_name + "->" + m.request_name);
  }
  return out;
}

TEST(DeviceClassResolverTest, ExplicitAndImplicitNames) {
  DeviceClassResolver r({Class("gpu", "example.com/gpu"), Class("nic")});
  ASSERT_NE(r.Get("example.com/gpu"), nullptr);
  EXPECT_EQ(r.Get("example.com/gpu")->metadata.name, "gpu");
  ASSERT_NE(r.Get("deviceclass.resource.kubernetes.io/gpu"), nullptr);
  ASSERT_NE(r.Get("deviceclass.resource.kubernetes.io/nic"), nullptr);
  EXPECT_EQ(r.Get("example.com/nic"), nullptr);
  EXPECT_EQ(r.Get("nic"), nullptr);
  EXPECT_TRUE(DeviceClassResolver(std::vector<DeviceClassPtr>{}).empty());
}

TEST(DeviceClassResolverTest, TheOldestClassWinsAConflictThenTheSmallestName) {
  DeviceClassResolver r({Class("b-new", "example.com/gpu", "2026-02-01T00:00:00Z"),
                         Class("z-old", "example.com/gpu", "2026-01-01T00:00:00Z"),
                         Class("a-old", "example.com/gpu", "2026-01-01T00:00:00Z")});
  EXPECT_EQ(r.Get("example.com/gpu")->metadata.name, "a-old");
  // Every class keeps its own implicit name.
  EXPECT_EQ(r.Get("deviceclass.resource.kubernetes.io/b-new")->metadata.name, "b-new");
}

TEST(MakeExtendedRequestsTest, OneRequestPerContainerAndResource) {
  DeviceClassResolver r({Class("gpu", "example.com/gpu"), Class("nic", "example.com/nic")});
  // The index of a resource counts every request of the container, cpu included.
  api::PodPtr pod = BuildPod()
                        .Req({{"cpu", "100m"}, {"example.com/gpu", "2"}, {"example.com/nic", "1"}})
                        .Req({{"example.com/gpu", "1"}})
                        .Obj();
  ExtendedRequests got = MakeExtendedRequests(*pod, {"example.com/nic", "example.com/gpu"}, r);
  EXPECT_EQ(Describe(got),
            (std::vector<std::string>{"container-0-request-1:gpu:2", "container-0-request-2:nic:1",
                                      "container-1-request-0:gpu:1"}));
  EXPECT_EQ(Mappings(got),
            (std::vector<std::string>{"con0/example.com/gpu->container-0-request-1",
                                      "con1/example.com/gpu->container-1-request-0",
                                      "con0/example.com/nic->container-0-request-2"}));
}

TEST(MakeExtendedRequestsTest, ResourcesWithoutAClassAndFractionsAreSkipped) {
  DeviceClassResolver r({Class("gpu", "example.com/gpu")});
  api::PodPtr pod = BuildPod().Req({{"example.com/gpu", "1"}, {"example.com/fpga", "1"}}).Obj();
  ExtendedRequests got = MakeExtendedRequests(*pod, {"example.com/gpu", "example.com/fpga"}, r);
  EXPECT_EQ(Describe(got), (std::vector<std::string>{"container-0-request-1:gpu:1"}));
  api::PodPtr fraction = BuildPod().Req({{"example.com/gpu", "500m"}}).Obj();
  EXPECT_TRUE(MakeExtendedRequests(*fraction, {"example.com/gpu"}, r).requests.empty());
}

TEST(MakeExtendedRequestsTest, InitContainersReuseLaterRequestsThenAskForTheRest) {
  DeviceClassResolver r({Class("gpu", "example.com/gpu")});
  // Index 0 is the init container, 1 the regular one.
  api::PodPtr pod =
      BuildPod().InitReq({{"example.com/gpu", "3"}}).Req({{"example.com/gpu", "1"}}).Obj();
  ExtendedRequests got = MakeExtendedRequests(*pod, {"example.com/gpu"}, r);
  EXPECT_EQ(Describe(got), (std::vector<std::string>{"container-0-request-0:gpu:2",
                                                     "container-1-request-0:gpu:1"}));
  EXPECT_EQ(Mappings(got),
            (std::vector<std::string>{"con0/example.com/gpu->container-1-request-0",
                                      "init-con0/example.com/gpu->container-1-request-0",
                                      "init-con0/example.com/gpu->container-0-request-0"}));
}

TEST(MakeExtendedRequestsTest, PlainInitContainersShareTheirLargestRequest) {
  DeviceClassResolver r({Class("gpu", "example.com/gpu")});
  // Init containers 0 (needs 2) and 1 (needs 3) run one at a time, while the sidecar and the
  // regular container (1 each) hold their devices throughout: the init containers reuse those.
  api::PodPtr pod = BuildPod()
                        .InitReq({{"example.com/gpu", "2"}})
                        .InitReq({{"example.com/gpu", "3"}})
                        .SidecarReq({{"example.com/gpu", "1"}})
                        .Req({{"example.com/gpu", "1"}})
                        .Obj();
  ExtendedRequests got = MakeExtendedRequests(*pod, {"example.com/gpu"}, r);
  // init 0 reuses the sidecar's and the regular container's (2 of 2); init 1 reuses both and
  // asks for 1 more.
  EXPECT_EQ(Describe(got),
            (std::vector<std::string>{"container-1-request-0:gpu:1", "container-2-request-0:gpu:1",
                                      "container-3-request-0:gpu:1"}));
  api::PodPtr two = BuildPod()
                        .InitReq({{"example.com/gpu", "2"}})
                        .InitReq({{"example.com/gpu", "4"}})
                        .Req({{"example.com/gpu", "1"}})
                        .Obj();
  got = MakeExtendedRequests(*two, {"example.com/gpu"}, r);
  // Both init containers need more than the regular one gives: one request serves both, the
  // larger (3 more), and the smaller one's mapping is renamed to it.
  EXPECT_EQ(Describe(got), (std::vector<std::string>{"container-1-request-0:gpu:3",
                                                     "container-2-request-0:gpu:1"}));
  EXPECT_EQ(Mappings(got),
            (std::vector<std::string>{"con0/example.com/gpu->container-2-request-0",
                                      "init-con0/example.com/gpu->container-2-request-0",
                                      "init-con0/example.com/gpu->container-1-request-0",
                                      "init-con1/example.com/gpu->container-2-request-0",
                                      "init-con1/example.com/gpu->container-1-request-0"}));
}

}  // namespace
}  // namespace stowage::dra::extended_resources_test
