// /debug/explain on a running scheduler while it schedules 1,000 pods: every answer is the
// explanation of a pending pod (200) or says the pod is already bound (409), the JSON output stays
// well-formed, answers come while pods are still pending, and explaining holds up neither the
// scheduling nor the binding of any pod.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/resources.h"
#include "tests/integration/app/instance.h"
#include "tests/testing/builders.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"

namespace stowage::apptest::explain_load_test {
namespace {

using ::testing::HasSubstr;
using testing::SharedCluster;
using ::testing::StartsWith;

constexpr char kNs[] = "explain-load";
constexpr int kNodes = 10;
constexpr int kPods = 1000;

std::string PodName(int i) { return "p-" + std::to_string(i); }

std::string NodeName(int i) { return "explain-load-" + std::to_string(i); }

// The text after "Unschedulable: " on its line, or "".
std::string UnschedulableLine(const std::string& text) {
  const size_t at = text.find("Unschedulable: ");
  if (at == std::string::npos) return "";
  return text.substr(at + 15, text.find('\n', at) - at - 15);
}

// What the apiserver holds of the test's pods, apart from too-big.
struct Bound {
  size_t pods = 0, bound = 0;
};

Bound CountBound() {
  Bound b;
  client::ListOptions o;
  o.namespace_ = kNs;
  auto pods = client::ListPage<api::Pod>(SharedCluster().Admin(), o);
  if (!pods.ok()) return b;
  for (const auto& p : pods->items) {
    if (p->metadata.name == "too-big") continue;
    ++b.pods;
    b.bound += !p->spec.node_name.empty();
  }
  return b;
}

// Deletes the test's pods and nodes when it ends, passed or not: they would slow the later
// tests' schedulers.
struct CleanUp {
  ~CleanUp() {
    auto& admin = SharedCluster().Admin();
    (void)admin.Delete("/api/v1/namespaces/" + std::string(kNs) + "/pods?gracePeriodSeconds=0");
    for (int i = 0; i < kNodes; ++i) (void)admin.Delete("/api/v1/nodes/" + NodeName(i));
  }
};

TEST(ExplainUnderLoad, TheRunningSchedulerAnswersWhileItSchedulesAThousandPods) {
  auto& admin = SharedCluster().Admin();
  ASSERT_TRUE(testing::EnsureNamespace(admin, kNs).ok());
  CleanUp clean_up;  // after the scheduler has stopped
  for (int i = 0; i < kNodes; ++i) {
    ASSERT_TRUE(testing::CreateNode(
                    admin, testing::BuildNode()
                               .Name(NodeName(i))
                               .Label("explain-load", "yes")
                               .Capacity({{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "250"}}))
                    .ok());
  }
  auto pod = [](const std::string& name, const std::string& cpu) {
    return testing::BuildPod()
        .Namespace(kNs)
        .Name(name)
        .NodeSelector({{"explain-load", "yes"}})
        .Req({{"cpu", cpu}, {"memory", "16Mi"}});
  };
  ASSERT_TRUE(testing::CreatePod(admin, pod("too-big", "64")).ok());

  Instance in({"--leader-elect=false",
               "--authentication-kubeconfig=" + SharedCluster().kubeconfig(),
               "--authorization-kubeconfig=" + SharedCluster().kubeconfig()});
  ASSERT_TRUE(WaitReady(in, 60s, "/readyz")) << in.Log();
  const std::string token = *ReadFile(SharedCluster().dir() + "/token");

  // The pods, from four threads; `created` is the highest index whose pod the apiserver holds.
  std::atomic<int> next{0}, created{-1}, failures{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&] {
      for (int i = next++; i < kPods; i = next++) {
        if (!testing::CreatePod(admin, pod(PodName(i), "10m")).ok()) {
          ++failures;
          continue;
        }
        int seen = created.load();
        while (i > seen && !created.compare_exchange_weak(seen, i)) {
        }
      }
    });
  }

  // Asked while they are created and scheduled: too-big, the pod created last and one before it.
  std::map<int, int> codes;  // HTTP code -> answers
  int pending_answers = 0, bound_answers = 0, json_answers = 0, not_yet_seen = 0;
  std::set<std::string> explained;  // too-big's Unschedulable lines
  bool denied_without_token = false;
  // Returns the HTTP code of the answer.
  auto ask = [&](const std::string& name, bool as_json) -> int {
    std::string url = in.url("/debug/explain?pod=" + std::string(kNs) + "/" + name);
    if (as_json) url += "&output=json";
    HttpResult r = Curl(url, token);
    // A pod created a moment ago may not have reached the scheduler's informer yet: asked
    // again, it must be known within a few seconds.
    for (int retry = 0; r.code == 404 && name != "too-big" && retry < 50; ++retry) {
      ++not_yet_seen;
      std::this_thread::sleep_for(100ms);
      r = Curl(url, token);
    }
    ++codes[r.code];
    if (r.code == 409) {
      ++bound_answers;
      EXPECT_THAT(r.body, HasSubstr("is already bound to node explain-load-")) << name;
      return r.code;
    }
    EXPECT_EQ(r.code, 200) << name << ": " << r.body;
    if (r.code != 200) return r.code;
    if (name != "too-big") ++pending_answers;
    std::string line;
    if (as_json) {
      ++json_answers;
      auto j = nlohmann::json::parse(r.body, nullptr, false);
      EXPECT_TRUE(j.is_object()) << name << ": " << r.body;
      if (!j.is_object()) return r.code;
      EXPECT_EQ(j.value("pod", ""), std::string(kNs) + "/" + name);
      line = j.value("unschedulable", "");
    } else {
      EXPECT_THAT(r.body, HasSubstr("Pod " + std::string(kNs) + "/" + name)) << r.body;
      line = UnschedulableLine(r.body);
    }
    if (name == "too-big") {
      EXPECT_THAT(line, HasSubstr(std::to_string(kNodes) + " Insufficient cpu")) << r.body;
      explained.insert(line);
    }
    return r.code;
  };
  // Until the last pod created is bound (or the scheduler looks stuck: that fails below).
  for (int round = 0; round < 3000 && failures.load() == 0; ++round) {
    if (round == 3) {
      HttpResult anonymous = Curl(in.url("/debug/explain?pod=" + std::string(kNs) + "/too-big"));
      EXPECT_EQ(anonymous.code, 403) << anonymous.body;
      denied_without_token = anonymous.code == 403;
    }
    ask("too-big", round % 2 == 1);
    const bool all_created = next.load() >= kPods && created.load() == kPods - 1;
    const int last = created.load();
    // And one created a little earlier, more likely to be bound between two answers.
    if (last >= 50) ask(PodName(last - 50), round % 2 == 1);
    if (last >= 0 && ask(PodName(last), round % 2 == 0) == 409 && all_created) break;
  }
  for (auto& w : writers) w.join();
  ASSERT_EQ(failures.load(), 0);

  // Every pod bound, by its one scheduling.
  ASSERT_TRUE(testing::Eventually([] { return CountBound().bound == static_cast<size_t>(kPods); },
                                  120s, 500ms))
      << "bound " << CountBound().bound << " of " << kPods << "; the log: " << in.log_path();
  const Bound b = CountBound();
  EXPECT_EQ(b.pods, static_cast<size_t>(kPods));
  EXPECT_EQ(b.bound, static_cast<size_t>(kPods));
  // The Scheduled events: none twice for a pod (the recorder folds a repeat into a series).
  auto events = admin.Get("/apis/events.k8s.io/v1/namespaces/" + std::string(kNs) + "/events");
  ASSERT_TRUE(events.ok()) << events.status();
  auto list = nlohmann::json::parse(*events, nullptr, false);
  std::map<std::string, int> scheduled;
  for (const auto& e : list.value("items", nlohmann::json::array())) {
    if (e.value("reason", "") != "Scheduled") continue;
    const int count = e.contains("series") ? e["series"].value("count", 1) : 1;
    scheduled[e["regarding"].value("name", "")] += count;
  }
  EXPECT_FALSE(scheduled.empty()) << *events;
  for (const auto& [name, n] : scheduled) EXPECT_EQ(n, 1) << name << " was scheduled " << n;

  // too-big stays pending with the message explain gave throughout (the scheduler appends
  // preemption's verdict to it).
  ASSERT_TRUE(
      testing::Eventually([] { return !ScheduledMessage(kNs, "too-big").empty(); }, 60s, 200ms))
      << in.Log();
  const std::string message = ScheduledMessage(kNs, "too-big");
  EXPECT_EQ(explained.size(), 1u) << ::testing::PrintToString(explained);
  for (const std::string& line : explained) EXPECT_THAT(message, StartsWith(line));

  EXPECT_TRUE(denied_without_token);
  EXPECT_EQ(codes.size(), codes.count(200) + codes.count(409)) << ::testing::PrintToString(codes);
  EXPECT_GT(pending_answers, 0) << ::testing::PrintToString(codes);
  EXPECT_GT(json_answers, 0);
  // No error about explaining in the scheduler's log (klog's E lines).
  const std::string log = in.Log();
  for (size_t at = 0; at < log.size();) {
    const size_t end = std::min(log.find('\n', at), log.size());
    const std::string line = log.substr(at, end - at);
    if (line.rfind('E', 0) == 0) {
      EXPECT_THAT(line, ::testing::Not(HasSubstr("xplain"))) << line;
    }
    at = end + 1;
  }
  std::printf(
      "explain answers: %d for a pending pod, %d bound (409), %d for too-big; %d JSON; "
      "%d not yet in the informer (asked again); %zu Scheduled events\n",
      pending_answers, bound_answers, codes[200] - pending_answers, json_answers, not_yet_seen,
      scheduled.size());
}

}  // namespace
}  // namespace stowage::apptest::explain_load_test
