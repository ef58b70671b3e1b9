// Nominator alone: which pods are nominated to which node after each kind of change.
#include "pkg/queue/nominator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "tests/testing/builders.h"

namespace stowage::queue::nominator_test {
namespace {

using framework::NominatingInfo;
using testing::BuildPod;

// The nominations as node -> pod names, sorted.
std::map<std::string, std::vector<std::string>> Nominations(const Nominator& n) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [node, pods] : n.NominatedPods()) {
    for (const auto& p : pods) out[node].push_back(p->pod->metadata.name);
    std::sort(out[node].begin(), out[node].end());
  }
  return out;
}

api::PodPtr Pod(const std::string& name, const std::string& nominated = "",
                const std::string& bound_to = "") {
  testing::PodWrapper w = BuildPod();
  w.Name(name).UID(name).NominatedNodeName(nominated);
  if (!bound_to.empty()) w.Node(bound_to);
  return w.Obj();
}

TEST(NominatorTest, Nominations) {
  using Step = std::function<void(Nominator&)>;
  auto add = [](api::PodPtr pod, NominatingInfo info = {}) -> Step {
    return [=](Nominator& n) { n.AddNominatedPod(framework::NewPodInfo(pod), info); };
  };
  auto update = [](api::PodPtr old_pod, api::PodPtr new_pod) -> Step {
    return [=](Nominator& n) { n.Update(*old_pod, framework::NewPodInfo(new_pod)); };
  };
  auto del = [](const std::string& uid) -> Step { return [=](Nominator& n) { n.Delete(uid); }; };
  const NominatingInfo to_n9{NominatingInfo::Mode::kOverride, "n9"};
  const NominatingInfo clear{NominatingInfo::Mode::kOverride, ""};
  struct Case {
    std::string name;
    std::vector<Step> steps;
    std::map<std::string, std::vector<std::string>> want;
  };
  const std::vector<Case> cases = {
      {"from the status", {add(Pod("a", "n1")), add(Pod("b", "n1"))}, {{"n1", {"a", "b"}}}},
      {"no status, no nomination", {add(Pod("a"))}, {}},
      {"a bound pod is not nominated", {add(Pod("a", "n1", "n1"))}, {}},
      {"override names the node", {add(Pod("a", "n1"), to_n9)}, {{"n9", {"a"}}}},
      {"override of nothing clears", {add(Pod("a", "n1")), add(Pod("a", "n1"), clear)}, {}},
      {"one node per pod", {add(Pod("a", "n1")), add(Pod("a", "n2"))}, {{"n2", {"a"}}}},
      {"an update moves it",
       {add(Pod("a", "n1")), update(Pod("a", "n1"), Pod("a", "n2"))},
       {{"n2", {"a"}}}},
      {"an update without one keeps the in-memory one",
       {add(Pod("a"), to_n9), update(Pod("a"), Pod("a"))},
       {{"n9", {"a"}}}},
      {"an update clearing the status clears it",
       {add(Pod("a", "n1")), update(Pod("a", "n1"), Pod("a"))},
       {}},
      {"deleted",
       {add(Pod("a", "n1")), add(Pod("b", "n1")), del("a"), del("missing")},
       {{"n1", {"b"}}}},
  };
  for (const Case& c : cases) {
    Nominator n;
    for (const Step& step : c.steps) step(n);
    EXPECT_EQ(Nominations(n), c.want) << c.name;
  }
}

TEST(NominatorTest, LooksUpByNodeAndByPod) {
  Nominator n;
  n.Add(framework::NewPodInfo(Pod("a", "n1")));
  ASSERT_EQ(n.NominatedPodsForNode("n1").size(), 1u);
  EXPECT_TRUE(n.NominatedPodsForNode("n2").empty());
  ASSERT_NE(n.NominatedNodeOf("a"), nullptr);
  EXPECT_EQ(*n.NominatedNodeOf("a"), "n1");
  EXPECT_EQ(n.NominatedNodeOf("b"), nullptr);
}

}  // namespace
}  // namespace stowage::queue::nominator_test
