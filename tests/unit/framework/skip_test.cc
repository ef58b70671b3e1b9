// A plugin whose PreFilter returns Skip has its Filter skipped for every node of that cycle, and
// only in that cycle; plugins that did not skip still filter.
#include <gtest/gtest.h>

#include <atomic>
#include <set>

#include "pkg/framework/runtime/runtime.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/stub_plugins.h"

namespace stowage::framework::skip_test {
namespace {

// Skips at PreFilter for pods labelled skip=<its name>; counts its Filter calls.
struct Counting : PreFilterPlugin, FilterPlugin {
  std::string name;
  std::atomic<int>* filters;
  Counting(std::string n, std::atomic<int>* f) : name(std::move(n)), filters(f) {}
  std::string_view Name() const override { return name; }
  Status PreFilter(CycleState&, const PodInfo& pod, const std::vector<const NodeInfo*>&,
                   PreFilterResult&) override {
    const std::string* skip = pod.pod->metadata.labels.Get("skip");
    return skip && *skip == name ? Status::Skip() : Status();
  }
  Status Filter(const CycleState&, const PodInfo&, const NodeInfo&) override {
    ++*filters;
    return {};
  }
};

TEST(Skip, PreFilterSkipDropsThatPluginsFilterForTheCycle) {
  std::atomic<int> a_calls{0}, b_calls{0};
  Registry r;
  ASSERT_TRUE(testing::RegisterSortAndBind(r).ok());
  ASSERT_TRUE(testing::RegisterStub(r, "A", [&] { return new Counting("A", &a_calls); }).ok());
  ASSERT_TRUE(testing::RegisterStub(r, "B", [&] { return new Counting("B", &b_calls); }).ok());
  ProfileSpec spec;
  spec.scheduler_name = "p";
  spec.at(framework::ExtensionPoint::kQueueSort) = {{"Sort"}};
  spec.at(framework::ExtensionPoint::kBind) = {{"Bind"}};
  spec.at(framework::ExtensionPoint::kPreFilter) = {{"A"}, {"B"}};
  spec.at(framework::ExtensionPoint::kFilter) = {{"A"}, {"B"}};
  testing::FakeHandle handle;
  auto fw = Framework::New(r, spec, handle);
  ASSERT_TRUE(fw.ok()) << fw.status();
  NodeInfo node;
  node.SetNode(testing::BuildNode().Name("n1").Obj());
  const std::vector<const NodeInfo*> nodes{&node};

  auto run = [&](const char* skip) {
    PodInfoPtr pod = NewPodInfo(testing::BuildPod().Name("p").Label("skip", skip).Obj());
    CycleState state;
    PreFilterResult result;
    std::set<std::string> unschedulable;
    ASSERT_TRUE((*fw)->RunPreFilterPlugins(state, *pod, nodes, result, unschedulable).IsSuccess());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*fw)->RunFilterPlugins(state, *pod, node).IsSuccess());
    // A clone (as for nominated pods) skips the same plugins.
    ASSERT_TRUE((*fw)->RunFilterPlugins(*state.Clone(), *pod, node).IsSuccess());
  };
  run("A");
  EXPECT_EQ(a_calls, 0);
  EXPECT_EQ(b_calls, 4);
  run("B");
  EXPECT_EQ(a_calls, 4) << "A skipped only in the cycle whose PreFilter said so";
  EXPECT_EQ(b_calls, 4);
  run("none");
  EXPECT_EQ(a_calls, 8);
  EXPECT_EQ(b_calls, 8);
}

}  // namespace
}  // namespace stowage::framework::skip_test
