// The per-profile runtime, case by case as upstream's runtime/framework_test.go covers it:
// construction errors, plugins built once, each point run in the configured order, score
// normalisation and weights, out-of-range scores, PreFilter result intersection, PreScore Skip,
// Bind Skip, Permit rejection and PostFilter.
#include "pkg/framework/runtime/runtime.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/stub_plugins.h"

namespace stowage::framework::runtime_test {
namespace {

using EP = ExtensionPoint;

// Implements every point; each call is logged as "<point>:<name>" and answered by the hook set
// for the point, or by Success.
class Scripted : public PreFilterPlugin,
                 public FilterPlugin,
                 public PostFilterPlugin,
                 public PreScorePlugin,
                 public ReservePlugin,
                 public PermitPlugin,
                 public BindPlugin {
 public:
  struct Hooks {
    std::function<Status(PreFilterResult&)> pre_filter;
    std::function<Status()> pre_score;
    std::function<Status()> permit;
    std::function<Status()> bind;
  };
  Scripted(std::string name, Hooks hooks, std::vector<std::string>* log)
      : name_(std::move(name)), hooks_(std::move(hooks)), log_(log) {}
  std::string_view Name() const override { return name_; }
  Status PreFilter(CycleState&, const PodInfo&, const std::vector<const NodeInfo*>&,
                   PreFilterResult& r) override {
    Log("PreFilter");
    return hooks_.pre_filter ? hooks_.pre_filter(r) : Status();
  }
  Status Filter(const CycleState&, const PodInfo&, const NodeInfo&) override {
    Log("Filter");
    return {};
  }
  Status PostFilter(CycleState&, const PodInfo&, const NodeToStatus&, PluginsRunner&,
                    NominatingInfo&) override {
    Log("PostFilter");
    return Status::Unschedulable("no victims");
  }
  Status PreScore(CycleState&, const PodInfo&, const std::vector<const NodeInfo*>&) override {
    Log("PreScore");
    return hooks_.pre_score ? hooks_.pre_score() : Status();
  }
  Status Reserve(CycleState&, const api::Pod&, std::string_view) override {
    Log("Reserve");
    return {};
  }
  void Unreserve(CycleState&, const api::Pod&, std::string_view) override { Log("Unreserve"); }
  Status Permit(CycleState&, const api::Pod&, std::string_view,
                std::chrono::milliseconds&) override {
    Log("Permit");
    return hooks_.permit ? hooks_.permit() : Status();
  }
  Status Bind(CycleState&, const api::Pod&, std::string_view) override {
    Log("Bind");
    return hooks_.bind ? hooks_.bind() : Status();
  }

 private:
  void Log(const char* point) { log_->push_back(std::string(point) + ":" + name_); }
  std::string name_;
  Hooks hooks_;
  std::vector<std::string>* log_;
};

// Scores each node by score(node), optionally normalises, and skips at PreScore when told to.
class Scorer : public PreScorePlugin, public ScorePlugin, public ScoreExtensions {
 public:
  Scorer(std::string name, std::function<int64_t(const NodeInfo&)> score,
         std::function<void(NodeScoreList&)> normalize = {}, bool skip = false)
      : name_(std::move(name)),
        score_(std::move(score)),
        normalize_(std::move(normalize)),
        skip_(skip) {}
  std::string_view Name() const override { return name_; }
  Status PreScore(CycleState&, const PodInfo&, const std::vector<const NodeInfo*>&) override {
    return skip_ ? Status::Skip() : Status();
  }
  Status Score(const CycleState&, const PodInfo&, const NodeInfo& node, int64_t& s) override {
    s = score_(node);
    return {};
  }
  ScoreExtensions* Extensions() override { return normalize_ ? this : nullptr; }
  Status NormalizeScore(const CycleState&, const PodInfo&, NodeScoreList& scores) override {
    normalize_(scores);
    return {};
  }

 private:
  std::string name_;
  std::function<int64_t(const NodeInfo&)> score_;
  std::function<void(NodeScoreList&)> normalize_;
  bool skip_;
};

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(testing::RegisterSortAndBind(registry_).ok());
    spec_.scheduler_name = "p";
    spec_.at(EP::kQueueSort) = {{"Sort"}};
    spec_.at(EP::kBind) = {{"Bind"}};
    for (const char* n : {"n1", "n2", "n3"}) {
      infos_.push_back(testing::MakeNodeInfo(testing::BuildNode().Name(n).Obj()));
    }
    nodes_ = testing::Pointers(infos_);
    pod_ = NewPodInfo(testing::BuildPod().Name("pod").Obj());
  }
  void Add(const std::string& name, Scripted::Hooks hooks = {}) {
    ASSERT_TRUE(testing::RegisterStub(registry_, name, [this, name, hooks] {
                  return new Scripted(name, hooks, &log_);
                }).ok());
  }
  void AddScorer(const std::string& name, std::function<int64_t(const NodeInfo&)> score,
                 std::function<void(NodeScoreList&)> normalize = {}, bool skip = false) {
    ASSERT_TRUE(testing::RegisterStub(registry_, name, [=] {
                  return new Scorer(name, score, normalize, skip);
                }).ok());
  }
  std::unique_ptr<Framework> Build() {
    auto fw = Framework::New(registry_, spec_, handle_);
    EXPECT_TRUE(fw.ok()) << fw.status();
    return fw.ok() ? std::move(*fw) : nullptr;
  }
  std::string NewError() {
    auto fw = Framework::New(registry_, spec_, handle_);
    return fw.ok() ? "" : std::string(fw.status().message());
  }

  Registry registry_;
  ProfileSpec spec_;
  testing::FakeHandle handle_;
  std::vector<testing::NodeInfoPtr> infos_;
  std::vector<const NodeInfo*> nodes_;
  PodInfoPtr pod_;
  std::vector<std::string> log_;
};

TEST_F(RuntimeTest, ConstructionErrorsNameTheProfileAndPlugin) {
  spec_.at(EP::kFilter) = {{"Missing"}};
  EXPECT_EQ(NewError(), "profile \"p\": plugin \"Missing\" does not exist");
  spec_.at(EP::kFilter) = {{"Sort"}};
  EXPECT_EQ(NewError(), "profile \"p\": plugin \"Sort\" does not extend Filter");
  ASSERT_TRUE(registry_
                  .Register("Broken",
                            [](const PluginArgs&, Handle&,
                               const Features&) -> StatusOr<std::unique_ptr<Plugin>> {
                              return InvalidArgumentError("bad args");
                            })
                  .ok());
  spec_.at(EP::kFilter) = {{"Broken"}};
  EXPECT_EQ(NewError(), "profile \"p\": initializing plugin \"Broken\": bad args");
}

TEST_F(RuntimeTest, PluginsGivenWithTheSpecAreNotBuiltAgain) {
  int built = 0;
  ASSERT_TRUE(testing::RegisterStub(registry_, "A", [&] {
                ++built;
                return new Scripted("A", {}, &log_);
              }).ok());
  spec_.at(EP::kPreFilter) = {{"A"}};
  spec_.at(EP::kFilter) = {{"A"}};
  spec_.plugins["A"] = std::make_shared<Scripted>("A", Scripted::Hooks{}, &log_);
  ASSERT_NE(Build(), nullptr);
  EXPECT_EQ(built, 0);
  spec_.plugins.clear();
  ASSERT_NE(Build(), nullptr);
  EXPECT_EQ(built, 1) << "one instance shared by both points";
}

TEST_F(RuntimeTest, EachPointRunsInTheConfiguredOrder) {
  Add("A");
  Add("B");
  for (EP p : {EP::kPreFilter, EP::kFilter, EP::kPreScore, EP::kReserve, EP::kPermit}) {
    spec_.at(p) = {{"B"}, {"A"}};
  }
  auto fw = Build();
  CycleState state;
  PreFilterResult result;
  std::set<std::string> rejected;
  ASSERT_TRUE(fw->RunPreFilterPlugins(state, *pod_, nodes_, result, rejected).IsSuccess());
  ASSERT_TRUE(fw->RunFilterPlugins(state, *pod_, *nodes_[0]).IsSuccess());
  ASSERT_TRUE(fw->RunPreScorePlugins(state, *pod_, nodes_).IsSuccess());
  ASSERT_TRUE(fw->RunReservePluginsReserve(state, *pod_->pod, "n1").IsSuccess());
  fw->RunReservePluginsUnreserve(state, *pod_->pod, "n1");
  std::chrono::milliseconds wait{0};
  ASSERT_TRUE(fw->RunPermitPlugins(state, *pod_->pod, "n1", wait).IsSuccess());
  EXPECT_EQ(log_, (std::vector<std::string>{"PreFilter:B", "PreFilter:A", "Filter:B", "Filter:A",
                                            "PreScore:B", "PreScore:A", "Reserve:B", "Reserve:A",
                                            "Unreserve:A", "Unreserve:B", "Permit:B", "Permit:A"}))
      << "Unreserve runs in reverse";
}

TEST_F(RuntimeTest, ScoresAreNormalisedThenWeighted) {
  // A scores 1, 2, 3 and normalises to 0..100 of the maximum; B scores 10 everywhere.
  AddScorer(
      "A", [](const NodeInfo& n) { return int64_t(n.name().back() - '0'); },
      [](NodeScoreList& s) {
        for (auto& e : s) e.score = e.score * kMaxNodeScore / 3;
      });
  AddScorer("B", [](const NodeInfo&) { return int64_t{10}; });
  spec_.at(EP::kScore) = {{"A", 2}, {"B", 3}};
  auto fw = Build();
  CycleState state;
  std::vector<int64_t> totals;
  ASSERT_TRUE(fw->RunScorePlugins(state, *pod_, nodes_, totals).IsSuccess());
  EXPECT_EQ(totals, (std::vector<int64_t>{33 * 2 + 30, 66 * 2 + 30, 100 * 2 + 30}));
}

TEST_F(RuntimeTest, AnOutOfRangeScoreIsAnErrorNamingThePlugin) {
  AddScorer("A", [](const NodeInfo&) { return int64_t{101}; });
  spec_.at(EP::kScore) = {{"A"}};
  auto fw = Build();
  CycleState state;
  std::vector<int64_t> totals;
  Status s = fw->RunScorePlugins(state, *pod_, nodes_, totals);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.plugin(), "A");
  EXPECT_EQ(s.Message(),
            "plugin \"A\" returns an invalid score 101, it should in the range of [0, 100] after "
            "normalizing");
}

TEST_F(RuntimeTest, PreFilterResultsIntersect) {
  auto only = [](std::set<std::string> names) {
    return [names](PreFilterResult& r) {
      r.node_names = names;
      return Status();
    };
  };
  Add("A", {.pre_filter = only({"n1", "n2"})});
  Add("B", {.pre_filter = only({"n2", "n3"})});
  Add("C", {.pre_filter = only({"n1"})});
  spec_.at(EP::kPreFilter) = {{"A"}, {"B"}};
  auto fw = Build();
  CycleState state;
  PreFilterResult result;
  std::set<std::string> narrowing;
  ASSERT_TRUE(fw->RunPreFilterPlugins(state, *pod_, nodes_, result, narrowing).IsSuccess());
  EXPECT_EQ(result.node_names, (std::set<std::string>{"n2"}));
  EXPECT_EQ(narrowing, (std::set<std::string>{"A", "B"}));

  spec_.at(EP::kPreFilter) = {{"A"}, {"B"}, {"C"}};
  auto empty = Build();
  CycleState state2;
  PreFilterResult result2;
  narrowing.clear();
  Status s = empty->RunPreFilterPlugins(state2, *pod_, nodes_, result2, narrowing);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "node(s) didn't satisfy plugin(s) [A B C] simultaneously");
}

TEST_F(RuntimeTest, PreScoreSkipDropsThatPluginsScore) {
  AddScorer(
      "A", [](const NodeInfo&) { return int64_t{50}; }, {}, /*skip=*/true);
  AddScorer("B", [](const NodeInfo&) { return int64_t{7}; });
  spec_.at(EP::kPreScore) = {{"A"}, {"B"}};
  spec_.at(EP::kScore) = {{"A"}, {"B"}};
  auto fw = Build();
  CycleState state;
  ASSERT_TRUE(fw->RunPreScorePlugins(state, *pod_, nodes_).IsSuccess());
  std::vector<int64_t> totals;
  ASSERT_TRUE(fw->RunScorePlugins(state, *pod_, nodes_, totals).IsSuccess());
  EXPECT_EQ(totals, (std::vector<int64_t>{7, 7, 7}));
}

TEST_F(RuntimeTest, BindSkipPassesToTheNextBinderAndAllSkippingIsAnError) {
  Add("SkipA", {.bind = [] { return Status::Skip(); }});
  Add("SkipB", {.bind = [] { return Status::Skip(); }});
  Add("Binds");
  spec_.at(EP::kBind) = {{"SkipA"}, {"Binds"}, {"SkipB"}};
  auto fw = Build();
  CycleState state;
  EXPECT_TRUE(fw->RunBindPlugins(state, *pod_->pod, "n1").IsSuccess());
  EXPECT_EQ(log_, (std::vector<std::string>{"Bind:SkipA", "Bind:Binds"}));
  spec_.at(EP::kBind) = {{"SkipA"}, {"SkipB"}};
  Status s = Build()->RunBindPlugins(state, *pod_->pod, "n1");
  EXPECT_EQ(s.code(), Code::kError);
}

TEST_F(RuntimeTest, PermitRejectionStopsAtTheRejectingPlugin) {
  Add("A", {.permit = [] { return Status::Unschedulable("not now"); }});
  Add("B");
  spec_.at(EP::kPermit) = {{"A"}, {"B"}};
  auto fw = Build();
  CycleState state;
  std::chrono::milliseconds wait{0};
  Status s = fw->RunPermitPlugins(state, *pod_->pod, "n1", wait);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "A");
  EXPECT_EQ(log_, (std::vector<std::string>{"Permit:A"}));
}

// As upstream's RunPostFilterPlugins: every plugin's reasons, the first rejecting plugin named,
// and no nomination change when none asked for one.
TEST_F(RuntimeTest, PostFilterRejectionsJoinTheReasonsAndNameTheFirstPlugin) {
  Add("A");
  Add("B");
  spec_.at(EP::kPostFilter) = {{"A"}, {"B"}};
  auto fw = Build();
  ASSERT_TRUE(fw->HasPostFilterPlugins());
  CycleState state;
  NominatingInfo nominating{NominatingInfo::Mode::kOverride, "stale"};
  struct NoRunner final : PluginsRunner {
    Status RunPreFilterExtensionAddPod(CycleState&, const api::Pod&, const PodInfo&,
                                       const NodeInfo&) override {
      return {};
    }
    Status RunPreFilterExtensionRemovePod(CycleState&, const api::Pod&, const PodInfo&,
                                          const NodeInfo&) override {
      return {};
    }
    Status RunFilterPluginsWithNominatedPods(const CycleState&, const PodInfo&,
                                             const NodeInfo&) override {
      return {};
    }
  } runner;
  Status s = fw->RunPostFilterPlugins(state, *pod_, {}, runner, nominating);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "no victims, no victims");
  EXPECT_EQ(s.plugin(), "A");
  EXPECT_EQ(nominating.mode, NominatingInfo::Mode::kNoop);
  EXPECT_EQ(log_, (std::vector<std::string>{"PostFilter:A", "PostFilter:B"}));
}

}  // namespace
}  // namespace stowage::framework::runtime_test
