// The framework runtime's metrics: extension-point durations by status and profile, plugin
// evaluations per call, plugin durations only in sampled cycles, the Score goroutines gauge and
// Permit waits, all under upstream's label values.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <thread>

#include "pkg/framework/runtime/runtime.h"
#include "pkg/metrics/metrics.h"
#include "pkg/metrics/registry.h"
#include "stowage/framework/status.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/stub_plugins.h"

namespace stowage::framework::framework_metrics_test {
namespace {

// The value of each served series.
std::map<std::string, double> Scrape() {
  std::map<std::string, double> out;
  std::istringstream in(metrics::Registry::Global().Render());
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    size_t sp = line.rfind(' ');
    out[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
  }
  return out;
}
double Value(const std::string& series) {
  auto all = Scrape();
  auto it = all.find(series);
  return it == all.end() ? 0 : it->second;
}
bool Has(const std::string& series) { return Scrape().count(series) > 0; }

// PreFilter rejects pods named "reject"; Filter rejects node "n2"; Score gives 10.
struct Checker : PreFilterPlugin, FilterPlugin, ScorePlugin {
  std::string_view Name() const override { return "Checker"; }
  Status PreFilter(CycleState&, const PodInfo& pod, const std::vector<const NodeInfo*>&,
                   PreFilterResult&) override {
    return pod->metadata.name == "reject" ? Status::Unschedulable("no") : Status();
  }
  Status Filter(const CycleState&, const PodInfo&, const NodeInfo& node) override {
    return node.name() == "n2" ? Status::Unschedulable("not n2") : Status();
  }
  Status Score(const CycleState&, const PodInfo&, const NodeInfo&, int64_t& score) override {
    score = 10;
    return {};
  }
};
struct Waiter : PermitPlugin {
  std::string_view Name() const override { return "Waiter"; }
  Status Permit(CycleState&, const api::Pod&, std::string_view,
                std::chrono::milliseconds& t) override {
    t = std::chrono::milliseconds(1);
    return Status(Code::kWait);
  }
};

class FrameworkMetrics : public ::testing::Test {
 protected:
  // Each test (and each repetition) its own profile, so the process-wide series do not mix.
  void Build(const std::string& name) {
    static int runs = 0;
    const std::string profile = name + "-" + std::to_string(++runs);
    profile_ = profile;
    Registry r;
    ASSERT_TRUE(testing::RegisterSortAndBind(r).ok());
    ASSERT_TRUE(testing::RegisterStub(r, "Checker", [] { return new Checker; }).ok());
    ASSERT_TRUE(testing::RegisterStub(r, "Waiter", [] { return new Waiter; }).ok());
    ProfileSpec spec;
    spec.scheduler_name = profile;
    spec.at(framework::ExtensionPoint::kQueueSort) = {{"Sort"}};
    spec.at(framework::ExtensionPoint::kBind) = {{"Bind"}};
    spec.at(framework::ExtensionPoint::kPreFilter) = {{"Checker"}};
    spec.at(framework::ExtensionPoint::kFilter) = {{"Checker"}};
    spec.at(framework::ExtensionPoint::kScore) = {{"Checker"}};
    spec.at(framework::ExtensionPoint::kPermit) = {{"Waiter"}};
    auto fw = Framework::New(r, spec, handle_);
    ASSERT_TRUE(fw.ok()) << fw.status();
    fw_ = std::move(*fw);
    infos_ = testing::MakeNodeInfos({testing::BuildNode().Name("n1").Obj(),
                                     testing::BuildNode().Name("n2").Obj(),
                                     testing::BuildNode().Name("n3").Obj()});
    nodes_ = testing::Pointers(infos_);
  }
  std::string Point(const std::string& point, const std::string& status) const {
    return "scheduler_framework_extension_point_duration_seconds_count{extension_point=\"" + point +
           "\",profile=\"" + profile_ + "\",status=\"" + status + "\"}";
  }
  std::string Evaluations(const std::string& point) const {
    return "scheduler_plugin_evaluation_total{extension_point=\"" + point +
           "\",plugin=\"Checker\",profile=\"" + profile_ + "\"}";
  }
  // Runs PreFilter, then Filter on every node, as a scheduling cycle does.
  void Cycle(CycleState& state, const std::string& pod_name) {
    PodInfoPtr pod = NewPodInfo(testing::BuildPod().Name(pod_name).Obj());
    PreFilterResult pre;
    std::set<std::string> rejectors;
    if (!fw_->RunPreFilterPlugins(state, *pod, nodes_, pre, rejectors).IsSuccess()) return;
    for (const NodeInfo* n : nodes_) (void)fw_->RunFilterPlugins(state, *pod, *n);
    fw_->FlushMetrics();  // as the scheduler does when the search is over
  }

  testing::FakeHandle handle_;
  std::unique_ptr<Framework> fw_;
  std::vector<testing::NodeInfoPtr> infos_;
  std::vector<const NodeInfo*> nodes_;
  std::string profile_;
};

TEST_F(FrameworkMetrics, ExtensionPointsByStatusAndProfile) {
  Build("fw-metrics-points");
  CycleState ok, rejected;
  Cycle(ok, "fits");
  Cycle(rejected, "reject");
  EXPECT_EQ(Value(Point("PreFilter", "Success")), 1);
  EXPECT_EQ(Value(Point("PreFilter", "Unschedulable")), 1);
  // Filter runs per node: the scheduler measures the phase, not RunFilterPlugins.
  EXPECT_FALSE(Has(Point("Filter", "Success")));
  std::vector<int64_t> totals;
  PodInfoPtr pod = NewPodInfo(testing::BuildPod().Name("fits").Obj());
  ASSERT_TRUE(fw_->RunScorePlugins(ok, *pod, nodes_, totals).IsSuccess());
  EXPECT_EQ(Value(Point("Score", "Success")), 1);
  EXPECT_TRUE(fw_->RunBindPlugins(ok, *pod->pod, "n1").IsSuccess());
  EXPECT_EQ(Value(Point("Bind", "Success")), 1);
  fw_->RunPostBindPlugins(ok, *pod->pod, "n1");
  EXPECT_EQ(Value(Point("PostBind", "Success")), 1);
}

TEST_F(FrameworkMetrics, EvaluationsPerCallDurationsOnlyWhenSampled) {
  Build("fw-metrics-sampling");
  const std::string filter_ok =
      "scheduler_plugin_execution_duration_seconds_count{extension_point=\"Filter\",plugin="
      "\"Checker\",status=\"Success\"}";
  const std::string filter_rejected =
      "scheduler_plugin_execution_duration_seconds_count{extension_point=\"Filter\",plugin="
      "\"Checker\",status=\"Unschedulable\"}";
  double ok_before = Value(filter_ok), rejected_before = Value(filter_rejected);
  CycleState unsampled;
  Cycle(unsampled, "fits");
  EXPECT_EQ(Value(Evaluations("PreFilter")), 1);
  EXPECT_EQ(Value(Evaluations("Filter")), 3);
  EXPECT_EQ(Value(filter_ok), ok_before);  // not timed
  CycleState sampled;
  SetRecordPluginMetrics(sampled, true);
  EXPECT_TRUE(ShouldRecordPluginMetrics(sampled));
  EXPECT_FALSE(ShouldRecordPluginMetrics(unsampled));
  Cycle(sampled, "fits");
  EXPECT_EQ(Value(Evaluations("Filter")), 6);
  EXPECT_EQ(Value(filter_ok) - ok_before, 2);
  EXPECT_EQ(Value(filter_rejected) - rejected_before, 1);
}

TEST_F(FrameworkMetrics, ScoreCountsEveryNodeAndReleasesItsGoroutines) {
  Build("fw-metrics-score");
  CycleState state;
  PodInfoPtr pod = NewPodInfo(testing::BuildPod().Name("fits").Obj());
  std::vector<int64_t> totals;
  ASSERT_TRUE(fw_->RunScorePlugins(state, *pod, nodes_, totals).IsSuccess());
  EXPECT_EQ(Value(Evaluations("Score")), 3);
  EXPECT_TRUE(Has("scheduler_goroutines{operation=\"Score\"}"));
  EXPECT_EQ(Value("scheduler_goroutines{operation=\"Score\"}"), 0);
}

TEST_F(FrameworkMetrics, PermitWaitIsObservedWithItsResult) {
  Build("fw-metrics-permit");
  const std::string timed_out =
      "scheduler_permit_wait_duration_seconds_count{result=\"Unschedulable\"}";
  double before = Value(timed_out);
  CycleState state;
  auto pod = testing::BuildPod().Name("p").UID("permit-uid").Obj();
  std::chrono::milliseconds wait{0};
  ASSERT_TRUE(fw_->RunPermitPlugins(state, *pod, "n1", wait).IsWait());
  EXPECT_EQ(Value(Point("Permit", "Wait")), 1);
  EXPECT_TRUE(fw_->WaitOnPermit(*pod).IsRejected());  // its 1 ms timeout passes
  EXPECT_EQ(Value(timed_out) - before, 1);
}

// The metrics package's status label table is the framework's Code names, code by code.
TEST(FrameworkMetricsLabels, CodeNamesMatchTheFramework) {
  for (uint8_t c = 0; c < metrics::kNumCodes; ++c) {
    EXPECT_EQ(metrics::CodeName(c), CodeName(static_cast<Code>(c))) << int(c);
  }
}

}  // namespace
}  // namespace stowage::framework::framework_metrics_test
