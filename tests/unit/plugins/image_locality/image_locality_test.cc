#include "pkg/plugins/image_locality/image_locality.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "pkg/api/decode.h"
#include "pkg/plugins/names.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"

namespace stowage::plugins::image_locality::image_locality_test {
namespace {

using testing::BuildNode;
using testing::BuildPod;

constexpr int64_t kMB = kMiB;

// The node images of upstream's image_locality_test.go.
testing::NodeWrapper Node403002000() {
  return BuildNode()
      .Image({"gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"}, 40 * kMB)
      .Image({"gcr.io/300:latest", "gcr.io/300:v1"}, 300 * kMB)
      .Image({"gcr.io/2000:latest"}, 2000 * kMB);
}
testing::NodeWrapper Node25010() {
  return BuildNode()
      .Image({"gcr.io/250:latest"}, 250 * kMB)
      .Image({"gcr.io/10:latest", "gcr.io/10:v1"}, 10 * kMB);
}
testing::NodeWrapper Node60040900() {
  return BuildNode().Images({{"gcr.io/600:latest", 600 * kMB},
                             {"gcr.io/40:latest", 40 * kMB},
                             {"gcr.io/900:latest", 900 * kMB}});
}
testing::NodeWrapper Node300600900() {
  return BuildNode().Images({{"gcr.io/300:latest", 300 * kMB},
                             {"gcr.io/600:latest", 600 * kMB},
                             {"gcr.io/900:latest", 900 * kMB}});
}
testing::NodeWrapper Node400030() {
  return BuildNode().Images({{"gcr.io/4000:latest", 4000 * kMB}, {"gcr.io/30:latest", 30 * kMB}});
}
testing::NodeWrapper Node203040() {
  return BuildNode().Images({{"gcr.io/20:latest", 20 * kMB},
                             {"gcr.io/30:latest", 30 * kMB},
                             {"gcr.io/40:latest", 40 * kMB}});
}

struct Case {
  std::string name;
  api::PodPtr pod;
  std::vector<api::NodePtr> nodes;
  std::vector<int64_t> want;
};

TEST(ImageLocality, Score) {
  auto pod = [](std::vector<std::string> images) {
    auto w = BuildPod();
    for (auto& i : images) w.Container(std::move(i));
    return w;
  };
  std::vector<Case> cases = {
      // node1: 40M/2 < 23M -> 0; node2: 100 * (250M/2 - 23M) / (2000M - 23M) = 5.
      {"two images spread on two nodes, prefer the larger image one",
       pod({"gcr.io/40", "gcr.io/250"}).Obj(),
       {Node403002000().Name("node1").Obj(), Node25010().Name("node2").Obj()},
       {0, 5}},
      // node1: 100 * ((40M + 300M)/2 - 23M) / (2000M - 23M) = 7.
      {"two images on one node, prefer this node",
       pod({"gcr.io/40", "gcr.io/300"}).Obj(),
       {Node403002000().Name("node1").Obj(), Node25010().Name("node2").Obj()},
       {7, 0}},
      {"if exceed limit, use limit",
       pod({"gcr.io/10", "gcr.io/4000"}).Obj(),
       {Node400030().Name("node1").Obj(), Node25010().Name("node2").Obj()},
       {100, 0}},
      // node1: 100 * (4000M/3 - 23M) / (2000M - 23M) = 66.
      {"if exceed limit, use limit (with node which has no images present)",
       pod({"gcr.io/10", "gcr.io/4000"}).Obj(),
       {Node400030().Name("node1").Obj(), Node25010().Name("node2").Obj(),
        BuildNode().Name("node3").Obj()},
       {66, 0, 0}},
      // node1: 100 * (600M*2/3 + 900M*2/3 - 23M) / (3000M - 23M) = 32;
      // node2: 100 * (300M/3 + 600M*2/3 + 900M*2/3 - 23M) / (3000M - 23M) = 36.
      {"pod with multiple large images, node2 is preferred",
       pod({"gcr.io/300", "gcr.io/600", "gcr.io/900"}).Obj(),
       {Node60040900().Name("node1").Obj(), Node300600900().Name("node2").Obj(),
        BuildNode().Name("node3").Obj()},
       {32, 36, 0}},
      // node1: 100 * (30M + 40M/2 - 23M) / (2000M - 23M) = 1.
      {"pod with multiple small images",
       pod({"gcr.io/30", "gcr.io/40"}).Obj(),
       {Node203040().Name("node1").Obj(), Node400030().Name("node2").Obj()},
       {1, 0}},
      // node1: 100 * (300M/2 - 23M) / (1000M * 2 - 23M) = 6: since 1.37 the image volume counts
      // in the bound as well as in the sum (1.36 gave 12).
      {"pod with ImageVolume",
       pod({"gcr.io/30"}).ImageVolume("imageVolume", "gcr.io/300").Obj(),
       {Node300600900().Name("node1").Obj(), Node400030().Name("node2").Obj()},
       {6, 0}},
      {"same images as the ImageVolume pod, as container images",
       pod({"gcr.io/30", "gcr.io/300"}).Obj(),
       {Node300600900().Name("node1").Obj(), Node400030().Name("node2").Obj()},
       {6, 0}},
      // node1: 100 * (300M/2 - 23M) / (2000M - 23M) = 6.
      {"include InitContainers",
       pod({"gcr.io/30"}).InitContainer("gcr.io/300").Obj(),
       {Node403002000().Name("node1").Obj(), Node203040().Name("node2").Obj()},
       {6, 0}},
      {"tagged reference matches that tag only",
       pod({"gcr.io/40:v1"}).Obj(),
       {Node403002000().Name("node1").Obj(), Node60040900().Name("node2").Obj()},
       {0, 0}},
      {"no images anywhere", pod({"gcr.io/nothing"}).Obj(), {BuildNode().Name("node1").Obj()}, {0}},
  };
  for (const auto& c : cases) {
    testing::FakeHandle handle;
    handle.SetNodes(c.nodes);
    ImageLocality pl(handle);
    framework::CycleState state;
    auto pod_info = framework::NewPodInfo(c.pod);
    std::vector<int64_t> got;
    for (const auto* info : handle.SnapshotSharedLister().List()) {
      int64_t score = -1;
      ASSERT_TRUE(pl.Score(state, *pod_info, *info, score).IsSuccess()) << c.name;
      got.push_back(score);
    }
    EXPECT_EQ(got, c.want) << c.name;
  }
}

TEST(ImageLocality, CalculatePriorityClamps) {
  EXPECT_EQ(CalculatePriority(0, 1), 0);
  EXPECT_EQ(CalculatePriority(kMinThreshold, 1), 0);
  EXPECT_EQ(CalculatePriority(kMaxContainerThreshold, 1), 100);
  EXPECT_EQ(CalculatePriority(5 * kMaxContainerThreshold, 2), 100);
  EXPECT_EQ(CalculatePriority((kMinThreshold + kMaxContainerThreshold) / 2, 1), 50);
}

TEST(ImageLocality, ImageCountIncludesImageVolumes) {
  EXPECT_EQ(ImageCount(*BuildPod().Container("a").InitContainer("b").Obj()), 2u);
  EXPECT_EQ(ImageCount(*BuildPod().Container("a").ImageVolume("v", "c").PVC("claim").Obj()), 2u);
}

TEST(ImageLocality, NormalizedImageName) {
  const std::pair<std::string, std::string> cases[] = {
      {"root", "root:latest"},
      {"gcr.io:5000/root", "gcr.io:5000/root:latest"},
      {"root:tag", "root:tag"},
      {"root@sha256:4b0ba2ff3a3ec2fb4ea9f1aef4ba3e7e8b0e0a0c1f5d8e3c7a2b4c6d8e0f2a4b",
       "root@sha256:4b0ba2ff3a3ec2fb4ea9f1aef4ba3e7e8b0e0a0c1f5d8e3c7a2b4c6d8e0f2a4b"},
      // No registry normalisation, as upstream.
      {"docker.io/library/nginx", "docker.io/library/nginx:latest"},
      {"", ":latest"},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(NormalizedImageName(in), want) << in;
}

TEST(ImageLocality, DecodesImageVolumeReference) {
  auto pod = api::Decode<api::Pod>(R"({"metadata":{"name":"p"},"spec":{
      "containers":[{"name":"c","image":"gcr.io/30"}],
      "volumes":[{"name":"v","image":{"reference":"gcr.io/300","pullPolicy":"IfNotPresent"}}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status().message();
  ASSERT_EQ(pod->spec.volumes.size(), 1u);
  EXPECT_EQ(pod->spec.volumes[0].source, "image");
  EXPECT_EQ(pod->spec.volumes[0].image_reference, "gcr.io/300");
}

TEST(ImageLocality, Factory) {
  testing::FakeHandle handle;
  auto p = New({}, handle, {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), names::kImageLocality);
  auto* score = dynamic_cast<framework::ScorePlugin*>(p->get());
  ASSERT_NE(score, nullptr);
  EXPECT_EQ(score->Extensions(), nullptr);
}

}  // namespace
}  // namespace stowage::plugins::image_locality::image_locality_test
