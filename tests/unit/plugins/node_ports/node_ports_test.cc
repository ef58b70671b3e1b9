#include "pkg/plugins/node_ports/node_ports.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "pkg/plugins/names.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fixtures.h"

namespace stowage::plugins::node_ports::node_ports_test {
namespace {

using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using testing::BuildNode;
using testing::BuildPod;

// A pod on host whose one container exposes "PROTO/IP/PORT" host ports, as upstream's newPod.
api::PodPtr NewPod(std::string host, std::vector<std::string> specs) {
  std::vector<api::ContainerPort> ports;
  for (const auto& spec : specs) {
    std::stringstream in(spec);
    std::string proto, ip, port;
    std::getline(in, proto, '/');
    std::getline(in, ip, '/');
    std::getline(in, port, '/');
    ports.push_back({0, std::stoi(port), proto, ip});
  }
  return BuildPod().Node(std::move(host)).ContainerPort(std::move(ports)).Obj();
}

// A node holding one pod with the given host ports.
testing::NodeInfoPtr NodeWithPorts(std::vector<std::string> specs) {
  return testing::MakeNodeInfo(BuildNode().Name("m1").Obj(), {NewPod("m1", std::move(specs))});
}

struct Case {
  std::string name;
  api::PodPtr pod;
  testing::NodeInfoPtr node;
  Code prefilter = Code::kSuccess;
  Code filter = Code::kSuccess;
};

TEST(NodePorts, PreFilterAndFilter) {
  std::vector<Case> cases = {
      {"skip filter", BuildPod().Obj(), testing::MakeNodeInfo(BuildNode().Name("m1").Obj()),
       Code::kSkip},
      {"other port", NewPod("m1", {"UDP/127.0.0.1/8080"}), NodeWithPorts({"UDP/127.0.0.1/9090"})},
      {"same udp port", NewPod("m1", {"UDP/127.0.0.1/8080"}), NodeWithPorts({"UDP/127.0.0.1/8080"}),
       Code::kSuccess, Code::kUnschedulable},
      {"same tcp port", NewPod("m1", {"TCP/127.0.0.1/8080"}), NodeWithPorts({"TCP/127.0.0.1/8080"}),
       Code::kSuccess, Code::kUnschedulable},
      {"different host ip", NewPod("m1", {"TCP/127.0.0.1/8080"}),
       NodeWithPorts({"TCP/127.0.0.2/8080"})},
      {"different protocol", NewPod("m1", {"UDP/127.0.0.1/8080"}),
       NodeWithPorts({"TCP/127.0.0.1/8080"})},
      {"second udp port conflict", NewPod("m1", {"UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"}),
       NodeWithPorts({"UDP/127.0.0.1/8080"}), Code::kSuccess, Code::kUnschedulable},
      {"first tcp port conflict", NewPod("m1", {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"}),
       NodeWithPorts({"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"}), Code::kSuccess,
       Code::kUnschedulable},
      {"first tcp port conflict due to 0.0.0.0 hostIP", NewPod("m1", {"TCP/0.0.0.0/8001"}),
       NodeWithPorts({"TCP/127.0.0.1/8001"}), Code::kSuccess, Code::kUnschedulable},
      {"TCP hostPort conflict due to 0.0.0.0 hostIP",
       NewPod("m1", {"TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"}),
       NodeWithPorts({"TCP/127.0.0.1/8001"}), Code::kSuccess, Code::kUnschedulable},
      {"second tcp port conflict to 0.0.0.0 hostIP", NewPod("m1", {"TCP/127.0.0.1/8001"}),
       NodeWithPorts({"TCP/0.0.0.0/8001"}), Code::kSuccess, Code::kUnschedulable},
      {"second different protocol", NewPod("m1", {"UDP/127.0.0.1/8001"}),
       NodeWithPorts({"TCP/0.0.0.0/8001"})},
      {"UDP hostPort conflict due to 0.0.0.0 hostIP", NewPod("m1", {"UDP/127.0.0.1/8001"}),
       NodeWithPorts({"TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"}), Code::kSuccess,
       Code::kUnschedulable},
      {"empty host IP means 0.0.0.0", NewPod("m1", {"TCP//8001"}),
       NodeWithPorts({"TCP/127.0.0.1/8001"}), Code::kSuccess, Code::kUnschedulable},
      {"non-sidecar initContainer using hostPort",
       BuildPod().InitContainerPort(false, {{8001, 8001, "TCP", ""}}).Obj(),
       NodeWithPorts({"TCP/0.0.0.0/8001"}), Code::kSkip},
      {"TCP hostPort conflict from sidecar initContainer",
       BuildPod().InitContainerPort(true, {{8001, 8001, "TCP", ""}}).Obj(),
       NodeWithPorts({"TCP/0.0.0.0/8001"}), Code::kSuccess, Code::kUnschedulable},
      {"container port without host port", BuildPod().ContainerPort({{80, 0, "TCP", ""}}).Obj(),
       NodeWithPorts({"TCP/0.0.0.0/80"}), Code::kSkip},
  };
  NodePorts pl;
  for (const auto& c : cases) {
    framework::CycleState state;
    framework::PreFilterResult result;
    auto pod = framework::NewPodInfo(c.pod);
    framework::Status pre = pl.PreFilter(state, *pod, {c.node.get()}, result);
    EXPECT_EQ(pre.code(), c.prefilter) << c.name;
    EXPECT_FALSE(result.node_names.has_value()) << c.name;
    if (!pre.IsSuccess()) continue;
    framework::Status s = pl.Filter(state, *pod, *c.node);
    EXPECT_EQ(s.code(), c.filter) << c.name;
    if (c.filter != Code::kSuccess) {
      EXPECT_EQ(s.Message(), "node(s) didn't have free ports for the requested pod ports");
    }
  }
}

TEST(NodePorts, FilterWithoutPreFilterIsAnError) {
  NodePorts pl;
  framework::CycleState state;
  auto info = testing::MakeNodeInfo(BuildNode().Obj());
  framework::Status s = pl.Filter(state, *framework::NewPodInfo(BuildPod().Obj()), *info);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "reading \"PreFilterNodePorts\" from cycleState: not found");
}

TEST(NodePorts, Fits) {
  struct FitsCase {
    std::string name;
    api::PodPtr pod;
    testing::NodeInfoPtr existing;
    bool want;
  } cases[] = {
      {"non-conflicting ports", NewPod("p", {"TCP/127.0.0.1/80"}),
       NodeWithPorts({"TCP/127.0.0.1/9090"}), true},
      {"multiple non-conflicting ports",
       NewPod("p",
              {"TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"}),
       NodeWithPorts({"TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"}), true},
      {"same ports on different protocols", NewPod("m1", {"TCP/127.0.0.1/80"}),
       NodeWithPorts({"UDP/127.0.0.1/80"}), true},
      {"conflicting ports", NewPod("m1", {"TCP/127.0.0.1/80"}), NodeWithPorts({"TCP/127.0.0.1/80"}),
       false},
      {"multiple ports, some conflicting",
       NewPod("p",
              {"TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"}),
       NodeWithPorts({"TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"}), false},
  };
  for (const auto& c : cases) EXPECT_EQ(Fits(*c.pod, *c.existing), c.want) << c.name;
}

TEST(NodePorts, HostPortsDefaults) {
  auto pod = BuildPod()
                 .HostPort(80, "", "")
                 .InitContainerPort(false, {{1, 1, "TCP", ""}})
                 .InitContainerPort(true, {{2, 2, "UDP", "10.0.0.1"}})
                 .Obj();
  std::vector<framework::HostPort> want = {{"10.0.0.1", "UDP", 2}, {"0.0.0.0", "TCP", 80}};
  EXPECT_EQ(HostPorts(*pod), want);
}

TEST(NodePorts, IsSchedulableAfterPodDeleted) {
  auto pod = BuildPod().HostPort(8080).Obj();
  struct Case {
    std::string name;
    EventObject old_obj;
    QueueingHint want;
  } cases[] = {
      {"backoff-wrong-old-object", BuildNode().Obj(), QueueingHint::kQueue},
      {"skip-queue-on-unscheduled", BuildPod().Obj(), QueueingHint::kSkip},
      {"skip-queue-on-non-hostport", BuildPod().Node("fake-node").Obj(), QueueingHint::kSkip},
      {"skip-queue-on-unrelated-hostport", BuildPod().Node("fake-node").HostPort(8081).Obj(),
       QueueingHint::kSkip},
      {"queue-on-released-hostport", BuildPod().Node("fake-node").HostPort(8080).Obj(),
       QueueingHint::kQueue},
      {"queue-on-released-hostport-of-nominated-pod",
       BuildPod().NominatedNodeName("fake-node").HostPort(8080).Obj(), QueueingHint::kQueue},
      {"skip-on-unscheduled-pod-with-the-port", BuildPod().HostPort(8080).Obj(),
       QueueingHint::kSkip},
      {"skip-on-other-protocol", BuildPod().Node("fake-node").HostPort(8080, "UDP").Obj(),
       QueueingHint::kSkip},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(IsSchedulableAfterPodDeleted(*pod, c.old_obj, EventObject{}), c.want) << c.name;
  }
}

TEST(NodePorts, EventsToRegister) {
  NodePorts pl;
  auto events = pl.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kAssignedPod);
  EXPECT_EQ(events[0].event.action, framework::kDelete);
  EXPECT_TRUE(events[0].hint);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[1].event.action, framework::kAdd);
  EXPECT_FALSE(events[1].hint);
}

TEST(NodePorts, Factory) {
  testing::FakeHandle handle;
  auto p = New({}, handle, {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), names::kNodePorts);
}

// The reason is upstream's, as generated into tests/fixtures/failure_messages.tsv.
TEST(NodePorts, MessageMatchesUpstream) {
  EXPECT_EQ(kErrReason, testing::UpstreamFailureReason("NodePorts.Filter"));
}

}  // namespace
}  // namespace stowage::plugins::node_ports::node_ports_test
