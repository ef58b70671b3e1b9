#include "pkg/plugins/node_name/node_name.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "pkg/plugins/names.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fixtures.h"

namespace stowage::plugins::node_name::node_name_test {
namespace {

using framework::Code;
using testing::BuildNode;
using testing::BuildPod;

TEST(NodeName, Filter) {
  struct Case {
    std::string name;
    api::PodPtr pod;
    api::NodePtr node;
    Code code;
  } cases[] = {
      {"no host specified", BuildPod().Obj(), BuildNode().Obj(), Code::kSuccess},
      {"host matches", BuildPod().Node("foo").Obj(), BuildNode().Name("foo").Obj(), Code::kSuccess},
      {"host doesn't match", BuildPod().Node("bar").Obj(), BuildNode().Name("foo").Obj(),
       Code::kUnschedulableAndUnresolvable},
  };
  NodeName pl;
  framework::CycleState state;
  for (const auto& c : cases) {
    auto info = testing::MakeNodeInfo(c.node);
    framework::Status s = pl.Filter(state, *framework::NewPodInfo(c.pod), *info);
    EXPECT_EQ(s.code(), c.code) << c.name;
    EXPECT_EQ(Fits(*c.pod, *info), c.code == Code::kSuccess) << c.name;
    if (c.code != Code::kSuccess) {
      EXPECT_EQ(s.Message(), "node(s) didn't match the requested node name") << c.name;
    }
  }
}

// 1.37: a pod naming a node narrows the cycle to that node; other pods leave every node in.
TEST(NodeName, PreFilter) {
  NodeName pl;
  auto nodes = testing::MakeNodeInfos({BuildNode().Name("a").Obj(), BuildNode().Name("b").Obj()});
  framework::CycleState state;

  framework::PreFilterResult named;
  framework::Status s = pl.PreFilter(state, *framework::NewPodInfo(BuildPod().Node("b").Obj()),
                                     testing::Pointers(nodes), named);
  EXPECT_TRUE(s.IsSuccess());
  ASSERT_TRUE(named.node_names.has_value());
  EXPECT_EQ(*named.node_names, std::set<std::string>{"b"});

  framework::PreFilterResult unnamed;
  s = pl.PreFilter(state, *framework::NewPodInfo(BuildPod().Obj()), testing::Pointers(nodes),
                   unnamed);
  EXPECT_TRUE(s.IsSuccess());
  EXPECT_FALSE(unnamed.node_names.has_value());
}

TEST(NodeName, EventsToRegister) {
  NodeName pl;
  auto events = pl.EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.action, framework::kAdd);
  EXPECT_FALSE(events[0].hint);  // always Queue, as upstream
}

TEST(NodeName, Factory) {
  testing::FakeHandle handle;
  auto p = New({}, handle, {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), names::kNodeName);
  EXPECT_NE(dynamic_cast<framework::PreFilterPlugin*>(p->get()), nullptr);
}

// The reason is upstream's, as generated into tests/fixtures/failure_messages.tsv.
TEST(NodeName, MessageMatchesUpstream) {
  EXPECT_EQ(kErrReason, testing::UpstreamFailureReason("NodeName.ErrReason"));
  NodeName pl;
  framework::CycleState state;
  auto s = pl.Filter(state, *framework::NewPodInfo(BuildPod().Node("other").Obj()),
                     *testing::MakeNodeInfo(BuildNode().Name("n").Obj()));
  EXPECT_EQ(s.Message(), testing::UpstreamFailureReason("NodeName.Filter"));
}

}  // namespace
}  // namespace stowage::plugins::node_name::node_name_test
