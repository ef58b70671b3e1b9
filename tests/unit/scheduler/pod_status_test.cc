// The PodScheduled patch of a failed attempt, compared byte for byte with what upstream v1.37.2
// sends for the same pod (the expected texts were produced by podutil.UpdatePodCondition and
// strategicpatch.CreateTwoWayMergePatch of that release), and the retries of that patch.
#include "pkg/scheduler/pod_status.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "pkg/api/encode.h"
#include "tests/testing/fake_api_server.h"

namespace stowage::scheduler::pod_status_test {
namespace {

constexpr char kNow[] = "2026-11-25T23:15:08Z";
constexpr char kBefore[] = "2026-11-25T10:00:00Z";

api::Pod MakePod(int64_t generation, std::vector<api::Condition> conditions = {},
                 std::string nominated = "") {
  api::Pod pod;
  pod.metadata.namespace_ = "ns";
  pod.metadata.name = "p";
  pod.metadata.generation = generation;
  pod.status.phase = "Pending";
  pod.status.conditions = std::move(conditions);
  pod.status.nominated_node_name = std::move(nominated);
  return pod;
}

api::Condition Scheduled(std::string status, std::string reason, std::string message,
                         int64_t observed_generation, std::string probe = "") {
  return {.type = "PodScheduled",
          .status = std::move(status),
          .reason = std::move(reason),
          .message = std::move(message),
          .last_transition_time = kBefore,
          .last_probe_time = std::move(probe),
          .observed_generation = observed_generation};
}

struct Case {
  std::string name;
  api::Pod pod;
  std::string reason = "Unschedulable";
  std::string message = "m";
  std::optional<std::string> nominated;
  std::optional<std::string> want;  // nullopt: no request
};

TEST(PodScheduledFailurePatch, MatchesUpstream) {
  const Case cases[] = {
      {.name = "a pod without conditions gets the whole condition, with its generation",
       .pod = MakePod(1),
       .message = "0/1 nodes are available: 1 node(s) were unschedulable.",
       .want = R"({"status":{"conditions":[{"lastProbeTime":null,"lastTransitionTime":")" +
               std::string(kNow) +
               R"(","message":"0/1 nodes are available: 1 node(s) were unschedulable.",)"
               R"("observedGeneration":1,"reason":"Unschedulable","status":"False",)"
               R"("type":"PodScheduled"}]}})"},
      {.name = "a condition added after others names the order",
       .pod = MakePod(3, {{.type = "example.com/Gate", .status = "True"}}),
       .want = R"({"status":{"$setElementOrder/conditions":[{"type":"example.com/Gate"},)"
               R"({"type":"PodScheduled"}],"conditions":[{"lastProbeTime":null,)"
               R"("lastTransitionTime":")" +
               std::string(kNow) +
               R"(","message":"m","observedGeneration":3,"reason":"Unschedulable",)"
               R"("status":"False","type":"PodScheduled"}]}})"},
      {.name = "a new message sends the changed fields, the transition time kept",
       .pod = MakePod(2, {Scheduled("False", "Unschedulable", "m1", 1)}),
       .message = "m2",
       .want = R"({"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"}],)"
               R"("conditions":[{"message":"m2","observedGeneration":2,"type":"PodScheduled"}]}})"},
      {.name = "only observedGeneration differs: no change, as UpdatePodCondition",
       .pod = MakePod(1, {Scheduled("False", "Unschedulable", "m", 0)}),
       .want = std::nullopt},
      {.name = "a probe time set by someone else is cleared",
       .pod = MakePod(1, {Scheduled("False", "Unschedulable", "m", 1, kBefore)}),
       .want = R"({"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"}],)"
               R"("conditions":[{"lastProbeTime":null,"type":"PodScheduled"}]}})"},
      {.name = "a new reason alone",
       .pod = MakePod(1, {Scheduled("False", "SchedulerError", "m", 1)}),
       .want = R"({"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"}],)"
               R"("conditions":[{"reason":"Unschedulable","type":"PodScheduled"}]}})"},
      {.name = "a nomination is cleared with the condition",
       .pod = MakePod(1, {}, "node-a"),
       .nominated = "",
       .want = R"({"status":{"conditions":[{"lastProbeTime":null,"lastTransitionTime":")" +
               std::string(kNow) +
               R"(","message":"m","observedGeneration":1,"reason":"Unschedulable",)"
               R"("status":"False","type":"PodScheduled"}],"nominatedNodeName":null}})"},
      {.name = "a nomination alone is cleared",
       .pod = MakePod(1, {Scheduled("False", "Unschedulable", "m", 1)}, "node-a"),
       .nominated = "",
       .want = R"({"status":{"nominatedNodeName":null}})"},
      {.name = "a status flip takes a new transition time; HTML characters escaped as Go",
       .pod = MakePod(1, {{.type = "Zeta", .status = "True"}, Scheduled("True", "", "", 0)}),
       .reason = "SchedulerError",
       .message = "boom <&>",
       .want = R"({"status":{"$setElementOrder/conditions":[{"type":"Zeta"},)"
               R"({"type":"PodScheduled"}],"conditions":[{"lastTransitionTime":")" +
               std::string(kNow) +
               R"(","message":"boom \u003c\u0026\u003e","observedGeneration":1,)"
               R"("reason":"SchedulerError","status":"False","type":"PodScheduled"}]}})"},
      {.name = "generation 0 leaves observedGeneration out",
       .pod = MakePod(0),
       .want = R"({"status":{"conditions":[{"lastProbeTime":null,"lastTransitionTime":")" +
               std::string(kNow) +
               R"(","message":"m","reason":"Unschedulable","status":"False",)"
               R"("type":"PodScheduled"}]}})"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(PodScheduledFailurePatch(c.pod, c.reason, c.message, c.nominated, kNow), c.want)
        << c.name;
  }
}

struct RetryCase {
  std::string name;
  std::vector<int> answers;  // HTTP status of each attempt; 200 after the list
  size_t want_attempts;
  bool want_ok;
};

// DynamicResources' record of the claim it created for a pod's extended resources: the object
// whole, keys in Go's order, as strategicpatch writes a pointer field that was nil.
TEST(EncodePodStatusPatch, ExtendedResourceClaimStatusIsWrittenWhole) {
  api::Pod pod = MakePod(1);
  api::PodStatus next = pod.status;
  next.extended_resource_claim_status = api::PodExtendedResourceClaimStatus{
      .request_mappings = {{.container_name = "con0",
                            .resource_name = "example.com/gpu",
                            .request_name = "container-0-request-1"}},
      .resource_claim_name = "p-extended-resources-x7k2q"};
  EXPECT_EQ(api::EncodePodStatusPatch(pod.status, next),
            R"({"status":{"extendedResourceClaimStatus":{"requestMappings":[{"containerName":)"
            R"("con0","requestName":"container-0-request-1","resourceName":"example.com/gpu"}],)"
            R"("resourceClaimName":"p-extended-resources-x7k2q"}}})");
  EXPECT_EQ(api::EncodePodStatusPatch(next, next), "{}");
}

TEST(PatchPodStatusWithRetry, RetriesConflictsAndServerErrorsOnly) {
  const RetryCase cases[] = {
      {"conflicts, then success", {409, 409}, 3, true},
      {"internal error and unavailable", {500, 503}, 3, true},
      {"four conflicts give up", {409, 409, 409, 409, 409}, 4, false},
      {"not found is final", {404}, 1, false},
      {"forbidden is final", {403}, 1, false},
  };
  for (const RetryCase& c : cases) {
    auto* api = new testing::FakeApiServer;
    size_t attempt = 0;
    api->SetAnswer([&](const client::HttpRequest&) -> std::optional<int> {
      return attempt < c.answers.size() ? c.answers[attempt++] : 200;
    });
    FakeClock clock;
    client::RestConfig cfg;
    cfg.qps = 0;
    client::RestClient client(cfg, std::unique_ptr<client::Transport>(api),
                              client::RetryPolicy{.max_retries = 0}, clock);
    api::ObjectMeta meta;
    meta.namespace_ = "ns";
    meta.name = "p";
    Status s = PatchPodStatusWithRetry(client, meta, "{}", clock);
    EXPECT_EQ(s.ok(), c.want_ok) << c.name << ": " << s;
    EXPECT_EQ(api->Requests("PATCH", "/api/v1/namespaces/ns/pods/p/status").size(), c.want_attempts)
        << c.name;
  }
}

}  // namespace
}  // namespace stowage::scheduler::pod_status_test
