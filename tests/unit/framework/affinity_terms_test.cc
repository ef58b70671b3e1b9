// PodInfo's precompiled pod (anti-)affinity terms (upstream framework.NewPodInfo and
// fwk.AffinityTerm.Matches).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stowage/framework/types.h"
#include "tests/testing/builders.h"

namespace stowage::framework::affinity_terms_test {
namespace {

using stowage::testing::BuildLabelSelector;
using stowage::testing::BuildPod;
using stowage::testing::PodAffinityKind;

api::Pod WithTerm(api::PodAffinityTerm term) {
  auto p = BuildPod().Name("p").Namespace("home").Obj();
  api::Pod pod = *p;
  pod.spec.affinity.emplace().pod_affinity.emplace().required.push_back(std::move(term));
  return pod;
}
api::PodAffinityTerm Term(std::vector<std::string> namespaces = {},
                          std::optional<api::LabelSelector> ns_selector = std::nullopt) {
  api::PodAffinityTerm t;
  t.label_selector = BuildLabelSelector().Label("app", "web").Obj();
  t.topology_key = "zone";
  t.namespaces = std::move(namespaces);
  t.namespace_selector = std::move(ns_selector);
  return t;
}
api::Pod Web(std::string ns) {
  return *BuildPod().Name("w").Namespace(ns).Label("app", "web").Obj();
}

TEST(AffinityTerms, NoNamespacesMeansThePodsOwn) {
  PodAffinityTerms terms = CompileAffinityTerms(WithTerm(Term()));
  ASSERT_EQ(terms.required_affinity.size(), 1u);
  const AffinityTerm& t = terms.required_affinity[0];
  EXPECT_EQ(t.namespaces, std::vector<std::string>{"home"});
  EXPECT_EQ(t.topology_key, "zone");
  EXPECT_TRUE(t.Matches(Web("home"), {}));
  EXPECT_FALSE(t.Matches(Web("other"), {}));
  EXPECT_FALSE(t.Matches(*BuildPod().Name("x").Namespace("home").Obj(), {}));
}

TEST(AffinityTerms, NamespacesAndNamespaceSelector) {
  const AffinityTerm listed =
      CompileAffinityTerms(WithTerm(Term({"b", "a", "b"}))).required_affinity[0];
  EXPECT_EQ(listed.namespaces, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(listed.Matches(Web("home"), {}));
  // An empty namespaceSelector selects every namespace; the pod's own is not added.
  const AffinityTerm all =
      CompileAffinityTerms(WithTerm(Term({}, api::LabelSelector{}))).required_affinity[0];
  EXPECT_TRUE(all.namespaces.empty());
  EXPECT_TRUE(all.Matches(Web("anywhere"), {}));
  const AffinityTerm team =
      CompileAffinityTerms(WithTerm(Term({}, BuildLabelSelector().Label("team", "a").Obj())))
          .required_affinity[0];
  EXPECT_TRUE(team.Matches(Web("x"), stowage::testing::MakeStringMap({{"team", "a"}})));
  EXPECT_FALSE(team.Matches(Web("x"), stowage::testing::MakeStringMap({{"team", "b"}})));
}

TEST(AffinityTerms, ParseErrorEmptiesTheKind) {
  api::PodAffinityTerm bad = Term();
  bad.label_selector->match_expressions.push_back({"k", "In", {}});
  api::Pod pod = WithTerm(bad);
  pod.spec.affinity->pod_affinity->preferred.push_back({3, Term()});
  PodAffinityTerms terms = CompileAffinityTerms(pod);
  EXPECT_TRUE(terms.required_affinity.empty());
  EXPECT_EQ(terms.preferred_affinity.size(), 1u);
  EXPECT_EQ(terms.preferred_affinity[0].weight, 3);
  EXPECT_TRUE(terms.parse_error.starts_with("requiredAffinityTerms: ")) << terms.parse_error;
}

TEST(AffinityTerms, NewPodInfoCompilesOnlyPodsWithAffinity) {
  EXPECT_EQ(NewPodInfo(BuildPod().Name("p").Obj())->affinity_terms, nullptr);
  auto info = NewPodInfo(
      BuildPod().Name("p").PodAntiAffinityExists("app", "zone", PodAffinityKind::kRequired).Obj());
  ASSERT_NE(info->affinity_terms, nullptr);
  EXPECT_EQ(info->affinity().required_anti_affinity.size(), 1u);
  EXPECT_TRUE(info->has_required_anti_affinity);
}

}  // namespace
}  // namespace stowage::framework::affinity_terms_test
