// Preemption's turn of the extenders (upstream's callExtenders cases in preemption_test.go):
// an extender drops candidates and victims, a failing one stops preemption unless ignorable, and
// an answer without victims for a node is an error unless the extender is ignorable.
#include "pkg/plugins/default_preemption/extenders.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"

namespace stowage::plugins::default_preemption::extenders_test {
namespace {

using ::testing::ElementsAre;

// A preempting extender whose answer is computed from what it is sent.
struct FakePreemptExtender : framework::Extender {
  std::string name = "http://preempt";
  bool ignorable = false;
  bool preempt = true;
  std::function<stowage::Status(const framework::NodeToVictims&, framework::NodeToVictims&)> answer;

  const std::string& Name() const override { return name; }
  bool IsIgnorable() const override { return ignorable; }
  bool IsFilter() const override { return false; }
  bool IsPrioritizer() const override { return false; }
  bool IsBinder() const override { return false; }
  bool SupportsPreemption() const override { return preempt; }
  int64_t weight() const override { return 1; }
  bool IsInterested(const api::Pod&) const override { return true; }
  stowage::Status Filter(const api::Pod&, const std::vector<const framework::NodeInfo*>&,
                         framework::ExtenderFilterResult&) override {
    return OkStatus();
  }
  stowage::Status Prioritize(const api::Pod&, const std::vector<const framework::NodeInfo*>&,
                             std::vector<framework::HostPriority>&) override {
    return OkStatus();
  }
  stowage::Status Bind(const api::Pod&, std::string_view) override { return OkStatus(); }
  stowage::Status ProcessPreemption(const api::Pod&, const framework::NodeToVictims& in,
                                    const framework::NodeInfoLister&,
                                    framework::NodeToVictims& out) override {
    return answer(in, out);
  }
};

std::vector<Candidate> TwoCandidates() {
  std::vector<Candidate> out(2);
  out[0].node = "n1";
  out[0].victims.pods = {framework::NewPodInfo(testing::BuildPod().Name("a").UID("a").Obj()),
                         framework::NewPodInfo(testing::BuildPod().Name("b").UID("b").Obj())};
  out[1].node = "n2";
  out[1].victims.pods = {framework::NewPodInfo(testing::BuildPod().Name("c").UID("c").Obj())};
  return out;
}

std::vector<std::string> Nodes(const std::vector<Candidate>& cs) {
  std::vector<std::string> out;
  for (const auto& c : cs) out.push_back(c.node);
  return out;
}

class CallExtendersTest : public ::testing::Test {
 protected:
  framework::Status Call(std::vector<framework::Extender*> extenders) {
    return CallExtenders(extenders, *preemptor_, lister_, candidates_);
  }
  api::PodPtr preemptor_ = testing::BuildPod().Name("p").UID("p").Priority(10).Obj();
  testing::FakeNodeInfoLister lister_;
  std::vector<Candidate> candidates_ = TwoCandidates();
};

TEST_F(CallExtendersTest, TheExtenderKeepsSomeNodesAndVictims) {
  FakePreemptExtender e;
  e.answer = [](const framework::NodeToVictims& in, framework::NodeToVictims& out) {
    EXPECT_EQ(in.size(), 2u);
    out["n1"].pods = {in.at("n1").pods[1]};
    return OkStatus();
  };
  ASSERT_TRUE(Call({&e}).IsSuccess());
  EXPECT_THAT(Nodes(candidates_), ElementsAre("n1"));
  ASSERT_EQ(candidates_[0].victims.pods.size(), 1u);
  EXPECT_EQ(candidates_[0].victims.pods[0]->pod->metadata.name, "b");
}

TEST_F(CallExtendersTest, WithoutAPreemptingExtenderTheCandidatesStay) {
  FakePreemptExtender e;
  e.preempt = false;
  ASSERT_TRUE(Call({&e}).IsSuccess());
  EXPECT_THAT(Nodes(candidates_), ElementsAre("n1", "n2"));
}

TEST_F(CallExtendersTest, AFailureStopsPreemptionUnlessTheExtenderIsIgnorable) {
  FakePreemptExtender e;
  e.answer = [](const framework::NodeToVictims&, framework::NodeToVictims&) {
    return UnavailableError("failed preempt with extender at URL http://preempt/preempt, code 500");
  };
  framework::Status s = Call({&e});
  EXPECT_TRUE(s.IsError());
  EXPECT_EQ(s.Message(), "failed preempt with extender at URL http://preempt/preempt, code 500");
  candidates_ = TwoCandidates();
  e.ignorable = true;
  ASSERT_TRUE(Call({&e}).IsSuccess());
  EXPECT_THAT(Nodes(candidates_), ElementsAre("n1", "n2"));
}

TEST_F(CallExtendersTest, ANodeWithoutVictimsIsAnErrorUnlessTheExtenderIsIgnorable) {
  FakePreemptExtender e;
  e.answer = [](const framework::NodeToVictims& in, framework::NodeToVictims& out) {
    out["n1"] = in.at("n1");
    out["n2"];  // no victims
    return OkStatus();
  };
  framework::Status s = Call({&e});
  EXPECT_TRUE(s.IsError());
  EXPECT_EQ(s.Message(), "expected at least one victim pod on node \"n2\"");
  candidates_ = TwoCandidates();
  e.ignorable = true;
  ASSERT_TRUE(Call({&e}).IsSuccess());
  EXPECT_THAT(Nodes(candidates_), ElementsAre("n1"));
}

}  // namespace
}  // namespace stowage::plugins::default_preemption::extenders_test
