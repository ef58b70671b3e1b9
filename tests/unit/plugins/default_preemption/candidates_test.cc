// Candidate ordering and PDB accounting, table-driven after upstream's TestSelectBestCandidate,
// TestPickOneNodeForPreemption and TestFilterVictimsWithPDBViolation; NumCandidates after
// TestGetOffsetAndNumCandidates.
#include "pkg/plugins/default_preemption/candidates.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "pkg/plugins/default_preemption/pdb.h"
#include "tests/testing/builders.h"

namespace stowage::plugins::default_preemption::candidates_test {
namespace {

using stowage::testing::PodWrapper;

framework::PodInfoPtr V(const std::string& name, int32_t priority, const std::string& start = "") {
  PodWrapper w;
  w.Name(name).Namespace("default").Priority(priority);
  if (!start.empty()) w.StartTime(start);
  return framework::NewPodInfo(w.Obj());
}

Candidate C(const std::string& node, std::vector<framework::PodInfoPtr> victims,
            int violations = 0) {
  return {node, {std::move(victims), violations}};
}

struct OrderCase {
  std::string name;
  std::vector<Candidate> candidates;
  std::string want;
};
std::ostream& operator<<(std::ostream& os, const OrderCase& c) { return os << c.name; }

class SelectCandidateTest : public ::testing::TestWithParam<OrderCase> {};

TEST_P(SelectCandidateTest, PicksUpstreamsChoice) {
  const Candidate* got = SelectCandidate(GetParam().candidates);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->node, GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, SelectCandidateTest,
    ::testing::Values(
        OrderCase{"fewest PDB violations first",
                  {C("a", {V("a1", 1)}, 1), C("b", {V("b1", 100)}, 0)},
                  "b"},
        OrderCase{"then the lowest highest-priority victim",
                  {C("a", {V("a1", 10), V("a2", 1)}), C("b", {V("b1", 5), V("b2", 5)})},
                  "b"},
        OrderCase{"then the smallest sum of priorities",
                  {C("a", {V("a1", 5), V("a2", 4)}), C("b", {V("b1", 5), V("b2", 1)})},
                  "b"},
        OrderCase{"negative priorities still count per pod",
                  {C("a", {V("a1", -5), V("a2", -5)}), C("b", {V("b1", -5)})},
                  "b"},
        OrderCase{"then the fewest victims",
                  {C("a", {V("a1", 5), V("a2", 0), V("a3", 0)}), C("b", {V("b1", 5), V("b2", 0)}),
                   C("c", {V("c1", 5), V("c2", -1), V("c3", 1)})},
                  "b"},
        OrderCase{
            "then the latest start of the most important victims",
            {C("a", {V("a1", 5, "2026-01-01T00:00:00Z"), V("a2", 1, "2026-06-01T00:00:00Z")}),
             C("b", {V("b1", 5, "2026-03-01T00:00:00Z"), V("b2", 1, "2025-01-01T00:00:00Z")})},
            "b"},
        OrderCase{"a victim not started yet counts as starting now",
                  {C("a", {V("a1", 5, "2026-03-01T00:00:00Z")}), C("b", {V("b1", 5)})},
                  "b"},
        OrderCase{"a full tie keeps the first",
                  {C("a", {V("a1", 5, "2026-03-01T00:00:00Z")}),
                   C("b", {V("b1", 5, "2026-03-01T00:00:00Z")})},
                  "a"}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(SelectCandidate, NoneGivesNull) { EXPECT_EQ(SelectCandidate({}), nullptr); }

TEST(NumCandidates, PercentageWithAnAbsoluteFloorCappedByTheNodes) {
  EXPECT_EQ(NumCandidates(1000, 10, 100), 100);  // 10% = 100
  EXPECT_EQ(NumCandidates(5000, 10, 100), 500);
  EXPECT_EQ(NumCandidates(50, 10, 100), 50);  // the floor exceeds the nodes
  EXPECT_EQ(NumCandidates(1000, 0, 10), 10);
  EXPECT_EQ(NumCandidates(1000, 100, 0), 1000);
}

api::PodDisruptionBudget Pdb(const std::string& ns, const std::string& app, int32_t allowed,
                             std::vector<std::string> disrupted = {}) {
  api::PodDisruptionBudget pdb;
  pdb.metadata.name = "pdb";
  pdb.metadata.namespace_ = ns;
  api::LabelSelector sel;
  if (!app.empty()) sel.match_labels = stowage::testing::MakeStringMap({{"app", app}});
  pdb.selector = sel;
  pdb.disruptions_allowed = allowed;
  std::vector<api::Map<std::string>::Entry> entries;
  for (auto& name : disrupted) entries.emplace_back(std::move(name), "2026-01-01T00:00:00Z");
  pdb.disrupted_pods = api::Map<std::string>(std::move(entries));
  return pdb;
}

framework::PodInfoPtr Labeled(const std::string& name, const std::string& app,
                              const std::string& ns = "default") {
  PodWrapper w;
  w.Name(name).Namespace(ns);
  if (!app.empty()) w.Label("app", app);
  return framework::NewPodInfo(w.Obj());
}

std::vector<std::string> Names(const std::vector<framework::PodInfoPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->pod->metadata.name);
  return out;
}

struct PdbCase {
  std::string name;
  std::vector<api::PodDisruptionBudget> pdbs;
  std::vector<framework::PodInfoPtr> victims;
  std::vector<std::string> want_violating;
};
std::ostream& operator<<(std::ostream& os, const PdbCase& c) { return os << c.name; }

class PdbTest : public ::testing::TestWithParam<PdbCase> {};

TEST_P(PdbTest, SplitsInOrder) {
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> pdbs;
  for (const auto& p : GetParam().pdbs)
    pdbs.push_back(std::make_shared<api::PodDisruptionBudget>(p));
  PdbSplit split = SplitByPdbViolation(GetParam().victims, CompilePdbs(pdbs));
  EXPECT_EQ(Names(split.violating), GetParam().want_violating);
  EXPECT_EQ(split.violating.size() + split.non_violating.size(), GetParam().victims.size());
}

INSTANTIATE_TEST_SUITE_P(
    Budgets, PdbTest,
    ::testing::Values(PdbCase{"the budget is spent in victim order",
                              {Pdb("default", "x", 1)},
                              {Labeled("a", "x"), Labeled("b", "x"), Labeled("c", "y")},
                              {"b"}},
                      PdbCase{"a pod without labels violates nothing",
                              {Pdb("default", "x", 0)},
                              {Labeled("a", "")},
                              {}},
                      PdbCase{"a budget of another namespace does not count",
                              {Pdb("other", "x", 0)},
                              {Labeled("a", "x")},
                              {}},
                      PdbCase{"an empty selector protects nothing",
                              {Pdb("default", "", 0)},
                              {Labeled("a", "x")},
                              {}},
                      PdbCase{"a pod the budget already counts as disrupted is not charged again",
                              {Pdb("default", "x", 0, {"a"})},
                              {Labeled("a", "x"), Labeled("b", "x")},
                              {"b"}},
                      PdbCase{"every matching budget is charged",
                              {Pdb("default", "x", 5), Pdb("default", "x", 1)},
                              {Labeled("a", "x"), Labeled("b", "x")},
                              {"b"}}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

}  // namespace
}  // namespace stowage::plugins::default_preemption::candidates_test
