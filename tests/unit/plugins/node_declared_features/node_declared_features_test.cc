#include "pkg/plugins/node_declared_features/node_declared_features.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/api/decode.h"
#include "pkg/plugins/names.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"

namespace stowage::plugins::node_declared_features::node_declared_features_test {
namespace {

using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using testing::BuildNode;
using testing::BuildPod;

Feature Mock(std::string name, bool infer, std::optional<Version> max_version = std::nullopt) {
  return {std::move(name), [infer](const api::PodSpec&) { return infer; }, max_version};
}

TEST(NodeDeclaredFeatures, PreFilterWithMockRegistry) {
  struct Case {
    std::string name;
    bool enabled;
    std::vector<Feature> registry;
    Version version;
    Code want;
    std::vector<std::string> want_required;
  };
  const Version v135{1, 35, 0};
  std::vector<Case> cases = {
      {"plugin disabled",
       false,
       {Mock("TestFeature1", true), Mock("TestFeature2", false)},
       v135,
       Code::kSkip,
       {}},
      {"pod with feature requirements",
       true,
       {Mock("TestFeature1", true), Mock("TestFeature2", false)},
       v135,
       Code::kSuccess,
       {"TestFeature1"}},
      {"pod with multiple feature requirements",
       true,
       {Mock("TestFeature2", true, Version{1, 38, 0}),
        Mock("TestFeature1", true, Version{1, 38, 0})},
       v135,
       Code::kSuccess,
       {"TestFeature1", "TestFeature2"}},
      {"pod with no requirements",
       true,
       {Mock("TestFeature1", false), Mock("TestFeature2", false)},
       v135,
       Code::kSkip,
       {}},
      {"feature not required, version > MaxVersion",
       true,
       {Mock("TestFeature1", true, Version{1, 33, 0}), Mock("TestFeature2", false)},
       Version{1, 34, 0},
       Code::kSkip,
       {}},
      {"feature required, version == MaxVersion",
       true,
       {Mock("TestFeature1", true, v135)},
       v135,
       Code::kSuccess,
       {"TestFeature1"}},
  };
  auto pod = framework::NewPodInfo(BuildPod().Name("test-pod").Obj());
  for (const auto& c : cases) {
    NodeDeclaredFeatures pl(c.registry, c.version, c.enabled);
    framework::CycleState state;
    framework::PreFilterResult result;
    framework::Status s = pl.PreFilter(state, *pod, {}, result);
    EXPECT_EQ(s.code(), c.want) << c.name;
    EXPECT_FALSE(result.node_names.has_value()) << c.name;
    auto required = pl.InferForPodScheduling(pod->pod->spec);
    ASSERT_TRUE(required.ok());
    if (c.enabled) {
      EXPECT_EQ(pl.FeatureNames(*required), c.want_required) << c.name;
    }
    // Filter sees the stored requirements: a node declaring nothing fails iff there are some.
    if (s.IsSuccess()) {
      auto info = testing::MakeNodeInfo(BuildNode().Name("n").Obj());
      EXPECT_EQ(pl.Filter(state, *pod, *info).code(), Code::kUnschedulableAndUnresolvable);
    }
  }
}

TEST(NodeDeclaredFeatures, PreFilterWithoutVersionIsAnError) {
  NodeDeclaredFeatures pl({Mock("F", true)}, std::nullopt);
  framework::CycleState state;
  framework::PreFilterResult result;
  framework::Status s = pl.PreFilter(state, *framework::NewPodInfo(BuildPod().Obj()), {}, result);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "target version cannot be nil");
}

TEST(NodeDeclaredFeatures, Filter) {
  struct Case {
    std::string name;
    bool enabled;
    std::vector<std::string> node_features;
    std::optional<std::vector<std::string>> required;  // nullopt: no PreFilter state
    Code want;
  };
  std::vector<Case> cases = {
      {"plugin disabled", false, {"FeatureA", "FeatureB"}, std::nullopt, Code::kSuccess},
      {"node matches requirements",
       true,
       {"FeatureA", "FeatureB"},
       std::vector<std::string>{"FeatureA"},
       Code::kSuccess},
      {"node does not match requirements",
       true,
       {"FeatureB"},
       std::vector<std::string>{"FeatureA"},
       Code::kUnschedulableAndUnresolvable},
      {"node with multiple features, pod requires subset",
       true,
       {"FeatureA", "FeatureB", "FeatureC"},
       std::vector<std::string>{"FeatureA", "FeatureC"},
       Code::kSuccess},
      {"node has no declared features",
       true,
       {},
       std::vector<std::string>{"FeatureA"},
       Code::kUnschedulableAndUnresolvable},
      {"node with some but not all required features",
       true,
       {"FeatureA"},
       std::vector<std::string>{"FeatureA", "FeatureB"},
       Code::kUnschedulableAndUnresolvable},
      {"unknown node features are ignored",
       true,
       {"Unknown", "FeatureA"},
       std::vector<std::string>{"FeatureA"},
       Code::kSuccess},
      {"error getting pre-filter state", true, {}, std::nullopt, Code::kError},
  };
  for (const auto& c : cases) {
    NodeDeclaredFeatures pl(
        {Mock("FeatureA", false), Mock("FeatureB", false), Mock("FeatureC", false)},
        Version{1, 35, 0}, c.enabled);
    framework::CycleState state;
    if (c.required) {
      NodeDeclaredFeatures::WriteStateForTest(state, pl.MapNodeFeatures(*c.required));
    }
    auto info =
        testing::MakeNodeInfo(BuildNode().Name("node-1").DeclaredFeatures(c.node_features).Obj());
    framework::Status s = pl.Filter(state, *framework::NewPodInfo(BuildPod().Obj()), *info);
    EXPECT_EQ(s.code(), c.want) << c.name;
    if (c.want == Code::kUnschedulableAndUnresolvable) {
      EXPECT_EQ(s.Message(), "node(s) didn't match Pod's required features") << c.name;
    } else if (c.want == Code::kError) {
      EXPECT_EQ(s.Message(),
                "error reading \"PreFilterNodeDeclaredFeatures\" from cycle-state: not found");
    }
  }
}

TEST(NodeDeclaredFeatures, DefaultRegistryInference) {
  struct Case {
    std::string name;
    api::PodPtr pod;
    std::vector<std::string> want;
  } cases[] = {
      {"plain pod", BuildPod().Container("image").Obj(), {}},
      {"regular container with RestartAllContainers rule",
       BuildPod().ContainerRestartRule("RestartAllContainers").Obj(),
       {"RestartAllContainersOnContainerExits"}},
      {"other restart rule actions do not count",
       BuildPod().ContainerRestartRule("Restart").Obj(),
       {}},
      {"init container with RestartAllContainers rule",
       [] {
         auto w = BuildPod().Container("image");
         api::Container init;
         init.name = "init";
         init.restart_policy_rules.push_back({"RestartAllContainers"});
         w.pod().spec.init_containers.push_back(init);
         return w.Obj();
       }(),
       {"RestartAllContainersOnContainerExits"}},
      {"hostNetwork with hostUsers=false",
       BuildPod().HostNetwork().HostUsers(false).Obj(),
       {"UserNamespacesHostNetworkSupport"}},
      {"hostNetwork with hostUsers unset", BuildPod().HostNetwork().Obj(), {}},
      {"hostNetwork with hostUsers=true", BuildPod().HostNetwork().HostUsers(true).Obj(), {}},
      {"user namespaces without hostNetwork", BuildPod().HostUsers(false).Obj(), {}},
      {"both, in registry (name) order",
       BuildPod().HostNetwork().HostUsers(false).ContainerRestartRule("RestartAllContainers").Obj(),
       {"RestartAllContainersOnContainerExits", "UserNamespacesHostNetworkSupport"}},
  };
  NodeDeclaredFeatures pl;
  for (const auto& c : cases) {
    auto required = pl.InferForPodScheduling(c.pod->spec);
    ASSERT_TRUE(required.ok());
    EXPECT_EQ(pl.FeatureNames(*required), c.want) << c.name;
  }
  // The whole registry, sorted by name.
  EXPECT_EQ(pl.FeatureNames(~FeatureSet{0}),
            (std::vector<std::string>{
                "ExtendWebSocketsToKubelet", "InPlacePodLevelResourcesVerticalScaling",
                "InPlacePodVerticalScalingInitContainers", "RestartAllContainersOnContainerExits",
                "UserNamespacesHostNetworkSupport"}));
}

TEST(NodeDeclaredFeatures, DefaultRegistryEndToEnd) {
  NodeDeclaredFeatures pl;
  auto pod = framework::NewPodInfo(BuildPod().HostNetwork().HostUsers(false).Obj());
  framework::CycleState state;
  framework::PreFilterResult result;
  ASSERT_TRUE(pl.PreFilter(state, *pod, {}, result).IsSuccess());
  auto with = testing::MakeNodeInfo(
      BuildNode().Name("a").DeclaredFeatures({"UserNamespacesHostNetworkSupport"}).Obj());
  auto without = testing::MakeNodeInfo(
      BuildNode().Name("b").DeclaredFeatures({"RestartAllContainersOnContainerExits"}).Obj());
  EXPECT_TRUE(pl.Filter(state, *pod, *with).IsSuccess());
  EXPECT_EQ(pl.Filter(state, *pod, *without).code(), Code::kUnschedulableAndUnresolvable);

  framework::CycleState plain_state;
  EXPECT_TRUE(
      pl.PreFilter(plain_state, *framework::NewPodInfo(BuildPod().Obj()), {}, result).IsSkip());
}

TEST(NodeDeclaredFeatures, DecodesHostUsersAndRestartRules) {
  auto pod = api::Decode<api::Pod>(R"({"metadata":{"name":"p"},"spec":{
      "hostNetwork":true,"hostUsers":false,
      "containers":[{"name":"c","image":"i","restartPolicy":"Never","restartPolicyRules":[
        {"action":"RestartAllContainers","exitCodes":{"operator":"In","values":[42]}}]}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status().message();
  EXPECT_EQ(pod->spec.host_users, std::optional<bool>(false));
  ASSERT_EQ(pod->spec.containers[0].restart_policy_rules.size(), 1u);
  EXPECT_EQ(pod->spec.containers[0].restart_policy_rules[0].action, "RestartAllContainers");
  NodeDeclaredFeatures pl;
  auto required = pl.InferForPodScheduling(pod->spec);
  ASSERT_TRUE(required.ok());
  EXPECT_EQ(pl.FeatureNames(*required),
            (std::vector<std::string>{"RestartAllContainersOnContainerExits",
                                      "UserNamespacesHostNetworkSupport"}));
}

TEST(NodeDeclaredFeatures, IsSchedulableAfterNodeChange) {
  struct Case {
    std::string name;
    EventObject old_obj, new_obj;
    QueueingHint want;
  } cases[] = {
      {"node add with feature", EventObject{},
       BuildNode().Name("node-1").DeclaredFeatures({"FeatureA"}).Obj(), QueueingHint::kQueue},
      {"node update (features added)", BuildNode().Name("node-1").Obj(),
       BuildNode().Name("node-1").DeclaredFeatures({"FeatureA"}).Obj(), QueueingHint::kQueue},
      {"node update (features unchanged)",
       BuildNode().Name("node-1").DeclaredFeatures({"FeatureA"}).Obj(),
       BuildNode().Name("node-1").DeclaredFeatures({"FeatureA"}).Label("x", "y").Obj(),
       QueueingHint::kSkip},
      {"wrong object", EventObject{}, BuildPod().Obj(), QueueingHint::kQueue},
  };
  auto pod = BuildPod().Name("test-pod").Obj();
  for (const auto& c : cases) {
    EXPECT_EQ(NodeDeclaredFeatures::IsSchedulableAfterNodeChange(*pod, c.old_obj, c.new_obj),
              c.want)
        << c.name;
  }
}

TEST(NodeDeclaredFeatures, IsSchedulableAfterPodUpdate) {
  // A mock feature required exactly by pods labelled foo=bar.
  Feature labelled{"TestFeature", [](const api::PodSpec& s) { return s.node_selector.Has("foo"); },
                   std::nullopt};
  auto target = BuildPod().Name("test-pod").UID("123").Obj();
  struct Case {
    std::string name;
    std::optional<Version> version;
    EventObject old_obj, new_obj;
    QueueingHint want;
  } cases[] = {
      {"pod update adds requirement", Version{1, 35, 0},
       BuildPod().Name("test-pod").UID("123").Obj(),
       BuildPod().Name("test-pod").UID("123").NodeSelector({{"foo", "bar"}}).Obj(),
       QueueingHint::kQueue},
      {"pod update removes requirement", Version{1, 35, 0},
       BuildPod().Name("test-pod").UID("123").NodeSelector({{"foo", "bar"}}).Obj(),
       BuildPod().Name("test-pod").UID("123").Obj(), QueueingHint::kQueue},
      {"pod update with no change in requirements", Version{1, 35, 0},
       BuildPod().Name("test-pod").UID("123").Obj(),
       BuildPod().Name("test-pod").UID("123").Label("a", "b").Obj(), QueueingHint::kSkip},
      {"updated pod not the same as target pod", Version{1, 35, 0},
       BuildPod().Name("another-test-pod").UID("456").NodeSelector({{"foo", "bar"}}).Obj(),
       BuildPod().Name("another-test-pod").UID("456").Obj(), QueueingHint::kSkip},
      {"infer returns error", std::nullopt, BuildPod().Name("test-pod").UID("123").Obj(),
       BuildPod().Name("test-pod").UID("123").NodeSelector({{"foo", "bar"}}).Obj(),
       QueueingHint::kQueue},
  };
  for (const auto& c : cases) {
    NodeDeclaredFeatures pl({labelled}, c.version);
    EXPECT_EQ(pl.IsSchedulableAfterPodUpdate(*target, c.old_obj, c.new_obj), c.want) << c.name;
    // The registered hint behaves the same.
    auto events = pl.EventsToRegister();
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[1].hint(*target, c.old_obj, c.new_obj), c.want) << c.name;
  }
}

TEST(NodeDeclaredFeatures, EventsToRegister) {
  NodeDeclaredFeatures pl;
  auto events = pl.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.action, framework::kAdd | framework::kUpdateNodeDeclaredFeature);
  EXPECT_TRUE(events[0].hint);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kTargetPod);
  EXPECT_EQ(events[1].event.action, framework::kUpdate);
  EXPECT_TRUE(events[1].hint);
  NodeDeclaredFeatures disabled(DefaultFeatures(), kSchedulerVersion, false);
  EXPECT_TRUE(disabled.EventsToRegister().empty());
}

TEST(NodeDeclaredFeatures, Factory) {
  testing::FakeHandle handle;
  auto p = New({}, handle, {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), names::kNodeDeclaredFeatures);
  EXPECT_NE(dynamic_cast<framework::PreFilterPlugin*>(p->get()), nullptr);
  EXPECT_NE(dynamic_cast<framework::FilterPlugin*>(p->get()), nullptr);
}

// --feature-gates reaches the plugin through its factory: with the gate off it does nothing.
TEST(NodeDeclaredFeatures, FactoryReadsTheGate) {
  testing::FakeHandle handle;
  auto on = New({}, handle, {});
  ASSERT_TRUE(on.ok());
  EXPECT_FALSE(dynamic_cast<framework::EnqueueExtensions&>(**on).EventsToRegister().empty());
  framework::Features off;
  off.node_declared_features = false;
  auto p = New({}, handle, off);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(dynamic_cast<framework::EnqueueExtensions&>(**p).EventsToRegister().empty());
}

}  // namespace
}  // namespace stowage::plugins::node_declared_features::node_declared_features_test
