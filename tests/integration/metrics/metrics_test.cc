// stowage's metrics against a real kube-apiserver + etcd: an in-process scheduler schedules pods
// that fit, one that fits nowhere and one held by a scheduling gate, and what /metrics would
// serve (metrics::Registry::Global().Render()) must have moved with upstream's labels; the
// /metrics/resources renderer must report the pods' effective requests and limits.
#include "pkg/metrics/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "pkg/client/resources.h"
#include "pkg/config/defaults.h"
#include "pkg/config/load.h"
#include "pkg/config/validation.h"
#include "pkg/metrics/registry.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/profile.h"
#include "pkg/scheduler/resource_metrics.h"
#include "pkg/scheduler/scheduler.h"
#include "tests/testing/cluster.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"
#include "tests/testing/running_scheduler.h"

namespace stowage::metrics_test {
namespace {

using testing::RunningScheduler;

using testing::BuildClusterNode;
using testing::BuildPod;
using ::testing::HasSubstr;
using testing::SharedCluster;

client::RestClient& Admin() { return SharedCluster().Admin(); }

// One scrape: series ("name{a=\"x\",b=\"y\"}", labels sorted as served) to value.
class Scrape {
 public:
  Scrape() : Scrape(metrics::Registry::Global().Render()) {}
  explicit Scrape(const std::string& text) : text_(text) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      size_t sp = line.rfind(' ');
      values_[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
    }
  }
  // The value of a series; 0 when absent (a counter not yet created reads as zero).
  double operator[](const std::string& series) const {
    auto it = values_.find(series);
    return it == values_.end() ? 0 : it->second;
  }
  bool Has(const std::string& series) const { return values_.count(series) > 0; }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::map<std::string, double> values_;
};

// Polls every 100 ms.
bool Eventually(const std::function<bool()>& cond, int seconds = 60) {
  return testing::Eventually(cond, std::chrono::seconds(seconds), std::chrono::milliseconds(100));
}

std::vector<api::PodPtr> Pods(const std::string& ns) {
  auto list = client::ListPage<api::Pod>(Admin(), {.namespace_ = ns});
  EXPECT_TRUE(list.ok()) << list.status();
  return list.ok() ? std::move(list->items) : std::vector<api::PodPtr>{};
}

size_t CountBound(const std::string& ns) {
  size_t n = 0;
  for (const auto& p : Pods(ns)) n += !p->spec.node_name.empty();
  return n;
}

const std::string kProfile = "profile=\"default-scheduler\"";

TEST(MetricsIntegration, SchedulingMovesUpstreamSeriesWithUpstreamLabels) {
  scheduler::InstallApiClientMetrics();
  const std::string ns = "metrics";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  for (const char* n : {"m-node-a", "m-node-b"}) {
    ASSERT_TRUE(testing::CreateNode(Admin(), BuildClusterNode().Name(n)).ok());
  }
  Scrape before;
  RunningScheduler sched;

  // Five pods that fit: each is one successful attempt, on its first try.
  for (int i = 0; i < 5; ++i) {
    auto p = BuildPod().Namespace(ns).Name("fits-" + std::to_string(i)).Req({{"cpu", "500m"}});
    ASSERT_TRUE(testing::CreatePod(Admin(), p).ok());
  }
  ASSERT_TRUE(Eventually([&] { return CountBound(ns) == 5; }));
  // The binding cycle records its attempt after the API call returns; wait for all five.
  const std::string scheduled =
      "scheduler_schedule_attempts_total{" + kProfile + ",result=\"scheduled\"}";
  ASSERT_TRUE(Eventually([&] { return Scrape()[scheduled] - before[scheduled] == 5; }))
      << Scrape()[scheduled];

  // One pod that fits nowhere, and one held by a scheduling gate.
  ASSERT_TRUE(
      testing::CreatePod(Admin(), BuildPod().Namespace(ns).Name("too-big").Req({{"cpu", "64"}}))
          .ok());
  nlohmann::json gated = nlohmann::json::parse(BuildPod().Namespace(ns).Name("gated").Json());
  gated["spec"]["schedulingGates"] = {{{"name", "example.com/wait"}}};
  ASSERT_TRUE(Admin().Post("/api/v1/namespaces/" + ns + "/pods", gated.dump()).ok());
  const std::string unschedulable =
      "scheduler_schedule_attempts_total{" + kProfile + ",result=\"unschedulable\"}";
  // Taken when both wait, so the queue gauges and the rejector counts are seen together.
  Scrape after;
  ASSERT_TRUE(Eventually([&] {
    after = Scrape();
    return after[unschedulable] - before[unschedulable] >= 1 &&
           after["scheduler_pending_pods{queue=\"unschedulable\"}"] == 1 &&
           after["scheduler_pending_pods{queue=\"gated\"}"] == 1;
  })) << after.text();

  auto delta = [&](const std::string& series) { return after[series] - before[series]; };
  EXPECT_EQ(delta(scheduled), 5);
  EXPECT_EQ(delta("scheduler_scheduling_attempt_duration_seconds_count{" + kProfile +
                  ",result=\"scheduled\"}"),
            5);
  EXPECT_GE(delta("scheduler_scheduling_attempt_duration_seconds_count{" + kProfile +
                  ",result=\"unschedulable\"}"),
            1);
  EXPECT_EQ(delta("scheduler_schedule_attempts_total{" + kProfile + ",result=\"error\"}"), 0);
  EXPECT_GE(delta("scheduler_scheduling_algorithm_duration_seconds_count"), 6);
  EXPECT_EQ(delta("scheduler_pod_scheduling_attempts_count"), 5);
  EXPECT_EQ(delta("scheduler_pod_scheduling_attempts_bucket{le=\"1\"}"), 5);
  EXPECT_EQ(delta("scheduler_pod_scheduling_sli_duration_seconds_count{attempts=\"1\"}"), 5);
  EXPECT_EQ(after["scheduler_pod_scheduled_after_flush_total"], 0);
  EXPECT_TRUE(after.Has("scheduler_pod_scheduled_after_flush_total"));

  // The queue: where pods went and why.
  EXPECT_EQ(after["scheduler_pending_pods{queue=\"active\"}"], 0);
  EXPECT_EQ(after["scheduler_pending_pods{queue=\"backoff\"}"], 0);
  EXPECT_EQ(delta("scheduler_queue_incoming_pods_total{event=\"UnscheduledPodAdd\","
                  "queue=\"active\"}"),
            6);
  EXPECT_EQ(delta("scheduler_queue_incoming_pods_total{event=\"UnscheduledPodAdd\","
                  "queue=\"unschedulable\"}"),
            1);  // the gated pod
  EXPECT_GE(delta("scheduler_queue_incoming_pods_total{event=\"ScheduleAttemptFailure\","
                  "queue=\"unschedulable\"}"),
            1);
  EXPECT_EQ(after["scheduler_unschedulable_pods{plugin=\"NodeResourcesFit\"," + kProfile + "}"], 1);
  EXPECT_EQ(after["scheduler_unschedulable_pods{plugin=\"SchedulingGates\"," + kProfile + "}"], 1);
  EXPECT_EQ(after["scheduler_inflight_events{event=\"PodPopped\"}"], 0);
  // Each queued pod is its own entity of type "pod".
  EXPECT_EQ(after["scheduler_queued_entities{queue=\"unschedulable\",type=\"pod\"}"], 1);
  EXPECT_EQ(after["scheduler_queued_entities{queue=\"gated\",type=\"pod\"}"], 1);

  // The informers of the factory named "kube-scheduler", labelled as client-go labels them.
  const std::string pods_informer =
      "{group=\"\",name=\"kube-scheduler\",resource=\"pods\",version=\"v1\"}";
  EXPECT_GE(after["informer_processing_latency_seconds_count" + pods_informer], 7);
  EXPECT_GT(after["informer_store_resource_version" + pods_informer], 0);
  EXPECT_TRUE(after.Has("informer_queued_items" + pods_informer));
  EXPECT_TRUE(
      after.Has("informer_store_resource_version{group=\"\",name=\"kube-scheduler\","
                "resource=\"nodes\",version=\"v1\"}"));

  // The framework: every extension point of a successful cycle, by status.
  for (const char* point :
       {"PreFilter", "PreScore", "Score", "Reserve", "Permit", "PreBind", "Bind", "PostBind"}) {
    std::string series =
        "scheduler_framework_extension_point_duration_seconds_count{"
        "extension_point=\"" +
        std::string(point) + "\"," + kProfile + ",status=\"Success\"}";
    EXPECT_GE(delta(series), 5) << series;
  }
  EXPECT_GE(delta("scheduler_framework_extension_point_duration_seconds_count{extension_point="
                  "\"PreEnqueue\"," +
                  kProfile + ",status=\"Success\"}"),
            6);
  EXPECT_GE(delta("scheduler_framework_extension_point_duration_seconds_count{extension_point="
                  "\"PreEnqueue\"," +
                  kProfile + ",status=\"UnschedulableAndUnresolvable\"}"),
            1);  // the gate
  // Filter runs per node: at least once per node per attempt.
  EXPECT_GE(delta("scheduler_plugin_evaluation_total{extension_point=\"Filter\",plugin="
                  "\"NodeResourcesFit\"," +
                  kProfile + "}"),
            12);
  EXPECT_GE(delta("scheduler_plugin_evaluation_total{extension_point=\"PreFilter\",plugin="
                  "\"NodeResourcesFit\"," +
                  kProfile + "}"),
            6);

  // The cache and the binding workers at rest.
  EXPECT_EQ(after["scheduler_cache_size{type=\"nodes\"}"], 2);
  EXPECT_TRUE(Eventually([] { return Scrape()["scheduler_cache_size{type=\"pods\"}"] == 5; }));
  EXPECT_TRUE(
      Eventually([] { return Scrape()["scheduler_cache_size{type=\"assumed_pods\"}"] == 0; }));
  EXPECT_TRUE(after.Has("scheduler_goroutines{operation=\"binding\"}"));
  EXPECT_TRUE(
      Eventually([] { return Scrape()["scheduler_goroutines{operation=\"binding\"}"] == 0; }));

  // The informer handlers, by upstream's event labels.
  EXPECT_EQ(delta("scheduler_event_handling_duration_seconds_count{event=\"NodeAdd\"}"), 2);
  EXPECT_EQ(delta("scheduler_event_handling_duration_seconds_count{event="
                  "\"UnscheduledPodAdd\"}"),
            7);
  EXPECT_GE(delta("scheduler_event_handling_duration_seconds_count{event=\"AssignedPodAdd\"}"), 5);

  // The API client: the five bindings were POSTs answered 201 by this apiserver.
  std::string host = SharedCluster().server().substr(std::string("https://").size());
  EXPECT_GE(delta("rest_client_requests_total{code=\"201\",host=\"" + host + "\",method=\"POST\"}"),
            5);
  EXPECT_GE(
      delta("rest_client_request_duration_seconds_count{host=\"" + host + "\",verb=\"POST\"}"), 5);

  // A node too small for "too-big" arrives: NodeResourcesFit's hint runs and says skip, and
  // the pod stays unschedulable. A label change is its own upstream event.
  ASSERT_TRUE(
      testing::CreateNode(Admin(), BuildClusterNode().Name("m-node-small").Capacity("cpu", "1"))
          .ok());
  const std::string hint =
      "scheduler_queueing_hint_execution_duration_seconds_count{event=\"NodeAdd\","
      "hint=\"QueueSkip\",plugin=\"NodeResourcesFit\"}";
  EXPECT_TRUE(Eventually([&] { return Scrape()[hint] >= 1; })) << Scrape().text();
  ASSERT_TRUE(Admin()
                  .Patch("/api/v1/nodes/m-node-a", R"({"metadata":{"labels":{"tier":"gold"}}})",
                         client::kMergePatch)
                  .ok());
  EXPECT_TRUE(Eventually([] {
    return Scrape()
               ["scheduler_event_handling_duration_seconds_count{event="
                "\"NodeUpdateNodeLabel\"}"] >= 1;
  }));
  EXPECT_TRUE(
      Eventually([] { return Scrape()["scheduler_pending_pods{queue=\"unschedulable\"}"] == 1; }));

  // Deleting the pods that wait takes them out of the gauges.
  ASSERT_TRUE(testing::DeletePod(Admin(), ns, "too-big").ok());
  ASSERT_TRUE(testing::DeletePod(Admin(), ns, "gated").ok());
  EXPECT_TRUE(Eventually([&] {
    Scrape s;
    return s["scheduler_pending_pods{queue=\"unschedulable\"}"] == 0 &&
           s["scheduler_pending_pods{queue=\"gated\"}"] == 0 &&
           s["scheduler_unschedulable_pods{plugin=\"NodeResourcesFit\"," + kProfile + "}"] == 0 &&
           s["scheduler_unschedulable_pods{plugin=\"SchedulingGates\"," + kProfile + "}"] == 0;
  })) << Scrape().text();
  EXPECT_EQ(Scrape()["scheduler_event_handling_duration_seconds_count{event="
                     "\"UnscheduledPodDelete\"}"] -
                before["scheduler_event_handling_duration_seconds_count{event="
                       "\"UnscheduledPodDelete\"}"],
            2);
}

// /metrics/resources: requests and limits as upstream's collector computes them, for pods of
// every scheduler, bound or not.
TEST(MetricsIntegration, PodResourceMetricsReportEffectiveRequestsAndLimits) {
  const std::string ns = "resources";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  // An init container larger than the app (requests take the larger phase), a sidecar started
  // after it (added to the running phase only), limits, for another scheduler so nobody binds it.
  nlohmann::json rich = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "rich"}, {"namespace", ns}}},
      {"spec",
       {{"schedulerName", "someone-else"},
        {"initContainers",
         {{{"name", "init"},
           {"image", "registry.k8s.io/pause:3.10"},
           {"resources", {{"requests", {{"cpu", "2"}}}}}},
          {{"name", "sidecar"},
           {"image", "registry.k8s.io/pause:3.10"},
           {"restartPolicy", "Always"},
           {"resources",
            {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}},
             {"limits", {{"memory", "64Mi"}}}}}}}},
        {"containers",
         {{{"name", "app"},
           {"image", "registry.k8s.io/pause:3.10"},
           {"resources",
            {{"requests", {{"cpu", "500m"}, {"memory", "1Gi"}, {"ephemeral-storage", "2Gi"}}},
             {"limits", {{"cpu", "1"}, {"memory", "2Gi"}}}}}}}}}}};
  ASSERT_TRUE(Admin().Post("/api/v1/namespaces/" + ns + "/pods", rich.dump()).ok());
  ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod().Namespace(ns).Name("empty")).ok());

  RunningScheduler sched;
  std::string out;
  ASSERT_TRUE(Eventually([&] {
    out = scheduler::RenderPodResourceMetrics(sched.scheduler());
    return out.find("pod=\"rich\"") != std::string::npos;
  }));
  const std::string rich_labels = "namespace=\"resources\",node=\"\",pod=\"rich\",priority=\"0\",";
  EXPECT_THAT(out, HasSubstr("# HELP kube_pod_resource_request [STABLE] Resources requested by "
                             "workloads on the cluster, broken down by pod."));
  EXPECT_THAT(out, HasSubstr("# TYPE kube_pod_resource_limit gauge\n"));
  // cpu: the init container runs before the sidecar starts, so max(2, 0.1, 0.5 + 0.1) = 2.
  EXPECT_THAT(out, HasSubstr("kube_pod_resource_request{" + rich_labels +
                             "resource=\"cpu\",scheduler=\"someone-else\",unit=\"cores\"} 2\n"));
  EXPECT_THAT(out, HasSubstr("kube_pod_resource_request{" + rich_labels +
                             "resource=\"memory\",scheduler=\"someone-else\",unit=\"bytes\"} "
                             "1.140850688e+09\n"));  // 1Gi + 64Mi
  EXPECT_THAT(out, HasSubstr("kube_pod_resource_request{" + rich_labels +
                             "resource=\"ephemeral-storage\",scheduler=\"someone-else\",unit="
                             "\"bytes\"} 2.147483648e+09\n"));
  EXPECT_THAT(out, HasSubstr("kube_pod_resource_limit{" + rich_labels +
                             "resource=\"cpu\",scheduler=\"someone-else\",unit=\"cores\"} 1\n"));
  EXPECT_THAT(out, HasSubstr("kube_pod_resource_limit{" + rich_labels +
                             "resource=\"memory\",scheduler=\"someone-else\",unit=\"bytes\"} "
                             "2.214592512e+09\n"));  // 2Gi + 64Mi
  // A pod that asks for nothing has no series.
  EXPECT_THAT(out, ::testing::Not(HasSubstr("pod=\"empty\"")));
}

}  // namespace
}  // namespace stowage::metrics_test
