// What the search reports when PreFilter results narrow the nodes: the nodes left out are
// rejected by the plugins that narrowed them, by name, as upstream's findNodesThatFitPod and
// RunPreFilterPlugins word it; an Unschedulable PreFilter lets the later ones run; and with no
// nodes the search fails with upstream's bare ErrNoNodesAvailable.
#include <gtest/gtest.h>

#include <set>

#include "pkg/framework/runtime/runtime.h"
#include "pkg/scheduler/algorithm.h"
#include "pkg/scheduler/scheduler.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/stub_plugins.h"

namespace stowage::scheduler::prefilter_result_test {
namespace {

using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::PreFilterResult;
using framework::Status;

// PreFilter keeps only the given nodes (all nodes when none are given, no node with none), or
// answers a fixed status.
struct NarrowSpec {
  std::string name;
  std::set<std::string> keep;
  bool none = false;
};
struct Narrow : framework::PreFilterPlugin, NarrowSpec {
  Status status;
  int* calls = nullptr;
  Narrow() = default;
  explicit Narrow(NarrowSpec spec) : NarrowSpec(std::move(spec)) {}
  std::string_view Name() const override { return name; }
  Status PreFilter(CycleState&, const PodInfo&, const std::vector<const NodeInfo*>&,
                   PreFilterResult& r) override {
    if (calls) ++*calls;
    if (!keep.empty() || none) r.node_names = keep;
    return status;
  }
};

// Rejects every node.
struct RejectAll : framework::FilterPlugin {
  std::string_view Name() const override { return "RejectAll"; }
  Status Filter(const CycleState&, const PodInfo&, const NodeInfo&) override {
    return Status::Unschedulable("rejected");
  }
};

class PreFilterResultTest : public ::testing::Test {
 protected:
  void Build(std::vector<NarrowSpec> pre_filters) {
    ASSERT_TRUE(stowage::testing::RegisterSortAndBind(registry_).ok());
    ASSERT_TRUE(
        stowage::testing::RegisterStub(registry_, "RejectAll", [] { return new RejectAll; }).ok());
    framework::ProfileSpec spec;
    spec.scheduler_name = "default-scheduler";
    spec.at(framework::ExtensionPoint::kQueueSort) = {{"Sort"}};
    spec.at(framework::ExtensionPoint::kBind) = {{"Bind"}};
    spec.at(framework::ExtensionPoint::kFilter) = {{"RejectAll"}};
    for (const NarrowSpec& n : pre_filters) {
      ASSERT_TRUE(
          stowage::testing::RegisterStub(registry_, n.name, [n] { return new Narrow(n); }).ok());
      spec.at(framework::ExtensionPoint::kPreFilter).push_back({n.name});
    }
    auto fw = framework::Framework::New(registry_, spec, handle_);
    ASSERT_TRUE(fw.ok()) << fw.status();
    fw_ = std::move(*fw);
    std::vector<api::NodePtr> nodes;
    for (const char* n : {"n1", "n2", "n3"})
      nodes.push_back(stowage::testing::BuildNode().Name(n).Obj());
    lister_.Set(stowage::testing::MakeNodeInfos(nodes));
  }

  // Runs the search for a plain pod; returns the FailedScheduling message.
  std::string Schedule(FitError& fit) {
    Algorithm algorithm(lister_, pool_, std::nullopt);
    CycleState state;
    ScheduleResult result;
    framework::PodInfoPtr pod = framework::NewPodInfo(stowage::testing::BuildPod().Name("p").Obj());
    Status s = algorithm.SchedulePod(*fw_, state, *pod, {}, result, fit);
    EXPECT_TRUE(s.IsRejected()) << s.Message();
    return FitErrorMessage(fit.num_all_nodes, fit.node_statuses, fit.pre_filter_msg, "");
  }

  framework::Registry registry_;
  stowage::testing::FakeHandle handle_;
  stowage::testing::FakeNodeInfoLister lister_;
  stowage::testing::SequentialParallelizer pool_;
  std::unique_ptr<framework::Framework> fw_;
};

TEST_F(PreFilterResultTest, NodesLeftOutAreBlamedOnTheNarrowingPlugin) {
  Build({{.name = "NodeAffinity", .keep = {"n1"}}});
  FitError fit;
  EXPECT_EQ(Schedule(fit),
            "0/3 nodes are available: 1 rejected, "
            "2 node(s) didn't satisfy plugin(s) [NodeAffinity].");
  EXPECT_EQ(fit.unschedulable_plugins, (std::set<std::string>{"NodeAffinity", "RejectAll"}));
}

TEST_F(PreFilterResultTest, EveryNarrowingPluginIsNamedSorted) {
  Build({{.name = "NodeName", .keep = {"n1", "n2"}}, {.name = "NodeAffinity", .keep = {"n1"}}});
  FitError fit;
  EXPECT_EQ(Schedule(fit),
            "0/3 nodes are available: 1 rejected, "
            "2 node(s) didn't satisfy plugin(s) [NodeAffinity NodeName].");
}

TEST_F(PreFilterResultTest, AnEmptyResultOfOnePluginNamesIt) {
  Build({{.name = "NodeName", .none = true}});
  FitError fit;
  EXPECT_EQ(Schedule(fit), "0/3 nodes are available: node(s) didn't satisfy plugin NodeName.");
}

TEST_F(PreFilterResultTest, EmptyIntersectionNamesThePluginsSimultaneously) {
  Build({{.name = "NodeName", .keep = {"n2"}}, {.name = "NodeAffinity", .keep = {"n1"}}});
  FitError fit;
  EXPECT_EQ(Schedule(fit),
            "0/3 nodes are available: node(s) didn't satisfy plugin(s) [NodeAffinity NodeName] "
            "simultaneously.");
  EXPECT_EQ(fit.unschedulable_plugins, (std::set<std::string>{"NodeAffinity", "NodeName"}));
}

TEST_F(PreFilterResultTest, WithNoNodesTheSearchReportsUpstreamsBareErrorNotAFitError) {
  Build({});
  lister_.Set({});
  Algorithm algorithm(lister_, pool_, std::nullopt);
  CycleState state;
  ScheduleResult result;
  FitError fit;
  framework::PodInfoPtr pod = framework::NewPodInfo(stowage::testing::BuildPod().Name("p").Obj());
  Status s = algorithm.SchedulePod(*fw_, state, *pod, {}, result, fit);
  EXPECT_TRUE(s.IsRejected());
  EXPECT_EQ(s.Message(), "no nodes available to schedule pods");
  EXPECT_EQ(fit.num_all_nodes, 0);
  EXPECT_EQ(fit.pre_filter_msg, "") << "the message is not wrapped in '0/0 nodes are available'";
}

TEST(PreFilterLoop, UnschedulableLetsTheLaterPreFiltersRunAndTheirNarrowingCounts) {
  int later_calls = 0;
  framework::Registry r;
  ASSERT_TRUE(stowage::testing::RegisterSortAndBind(r).ok());
  ASSERT_TRUE(stowage::testing::RegisterStub(r, "First", [] {
                auto* n = new Narrow;
                n->name = "First";
                n->status = Status::Unschedulable("first says no");
                return n;
              }).ok());
  ASSERT_TRUE(stowage::testing::RegisterStub(r, "Later", [&later_calls] {
                auto* n = new Narrow;
                n->name = "Later";
                n->keep = {"n1"};
                n->calls = &later_calls;
                return n;
              }).ok());
  framework::ProfileSpec spec;
  spec.scheduler_name = "p";
  spec.at(framework::ExtensionPoint::kQueueSort) = {{"Sort"}};
  spec.at(framework::ExtensionPoint::kBind) = {{"Bind"}};
  spec.at(framework::ExtensionPoint::kPreFilter) = {{"First"}, {"Later"}};
  stowage::testing::FakeHandle handle;
  auto fw = framework::Framework::New(r, spec, handle);
  ASSERT_TRUE(fw.ok()) << fw.status();
  CycleState state;
  PreFilterResult result;
  std::set<std::string> unschedulable;
  framework::PodInfoPtr pod = framework::NewPodInfo(stowage::testing::BuildPod().Name("p").Obj());
  Status s = (*fw)->RunPreFilterPlugins(state, *pod, {}, result, unschedulable);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "First");
  EXPECT_EQ(later_calls, 1);
  EXPECT_EQ(unschedulable, (std::set<std::string>{"First", "Later"}));
}

}  // namespace
}  // namespace stowage::scheduler::prefilter_result_test
