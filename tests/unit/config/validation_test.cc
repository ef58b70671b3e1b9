// Configuration validation with upstream's rules and wording (validation.go,
// component-base's config validation; v1.37.2). Each case names the exact messages.
#include "pkg/config/validation.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "pkg/config/defaults.h"

namespace stowage::config::validation_test {
namespace {

using namespace std::chrono_literals;

KubeSchedulerConfiguration Valid() {
  KubeSchedulerConfiguration cfg;
  SetDefaults(cfg);
  return cfg;
}

std::vector<std::string> Messages(const KubeSchedulerConfiguration& cfg,
                                  const Features& features = {}) {
  std::vector<std::string> out;
  for (const FieldError& e : ValidateConfiguration(cfg, features)) out.push_back(e.ToString());
  return out;
}

TEST(ValidationTest, DefaultedConfigIsValid) {
  EXPECT_TRUE(Validate(Valid()).ok()) << Validate(Valid());
  KubeSchedulerConfiguration two;
  two.profiles.resize(2);
  two.profiles[0].scheduler_name = "a";
  two.profiles[1].scheduler_name = "b";
  SetDefaults(two);
  EXPECT_TRUE(Validate(two).ok()) << Validate(two);
}

TEST(ValidationTest, Rules) {
  using Mutate = std::function<void(KubeSchedulerConfiguration&)>;
  struct Case {
    const char* name;
    Mutate mutate;
    std::vector<std::string> want;
  };
  const std::string removed =
      "was invalid in version \"v1\" (KubeSchedulerConfiguration is version "
      "\"kubescheduler.config.k8s.io/v1\")";
  const Case cases[] = {
      {"negative burst",
       [](auto& c) { c.client_connection.burst = -1; },
       {"clientConnection.burst: Invalid value: -1: must be non-negative"}},
      {"zero durations",
       [](auto& c) {
         c.leader_election.lease_duration = 0s;
         c.leader_election.renew_deadline = 0s;
         c.leader_election.retry_period = 0s;
       },
       {"leaderElection.leaseDuration: Invalid value: \"0s\": must be greater than zero",
        "leaderElection.renewDeadline: Invalid value: \"0s\": must be greater than zero",
        "leaderElection.retryPeriod: Invalid value: \"0s\": must be greater than zero",
        "leaderElection.leaseDuration: Invalid value: \"0s\": must be greater than "
        "`RenewDeadline`"}},
      {"lease not longer than renew",
       [](auto& c) { c.leader_election.lease_duration = 10s; },
       {"leaderElection.leaseDuration: Invalid value: \"10s\": must be greater than "
        "`RenewDeadline`"}},
      {"renew not longer than 1.2 retry",
       [](auto& c) { c.leader_election.retry_period = 9s; },
       {"leaderElection.renewDeadline: Invalid value: \"10s\": must be greater than "
        "retryPeriod*JitterFactor (1.2)"}},
      {"retry period so long that 1.2 times it overflows",
       [](auto& c) {
         c.leader_election.lease_duration = 2562047h;
         c.leader_election.renew_deadline = 2562046h;
         c.leader_election.retry_period = 2562046h;
       },
       {"leaderElection.renewDeadline: Invalid value: \"2562046h0m0s\": must be greater than "
        "retryPeriod*JitterFactor (1.2)"}},
      {"lock fields required and only leases",
       [](auto& c) {
         c.leader_election.resource_lock = "";
         c.leader_election.resource_name = "";
         c.leader_election.resource_namespace = "";
       },
       {"leaderElection.resourceLock: Required value",
        "leaderElection.resourceNamespace: Required value",
        "leaderElection.resourceName: Required value",
        "leaderElection.resourceLock: Invalid value: \"\": resourceLock value must be \"leases\""}},
      {"endpoints lock",
       [](auto& c) { c.leader_election.resource_lock = "endpoints"; },
       {"leaderElection.resourceLock: Invalid value: \"endpoints\": resourceLock value must be "
        "\"leases\""}},
      {"leader election off skips its checks",
       [](auto& c) {
         c.leader_election.leader_elect = false;
         c.leader_election.lease_duration = 0s;
         c.leader_election.resource_lock = "endpoints";
       },
       {}},
      {"parallelism",
       [](auto& c) { c.parallelism = 0; },
       {"parallelism: Invalid value: 0: should be an integer value greater than zero"}},
      {"no profiles", [](auto& c) { c.profiles.clear(); }, {"profiles: Required value"}},
      {"percentage of nodes",
       [](auto& c) { c.percentage_of_nodes_to_score = 101; },
       {"percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"}},
      {"profile percentage",
       [](auto& c) { c.profiles[0].percentage_of_nodes_to_score = -1; },
       {"profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"}},
      {"initial backoff",
       [](auto& c) { c.pod_initial_backoff_seconds = 0; },
       {"podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"}},
      {"max below initial",
       [](auto& c) { c.pod_max_backoff_seconds = 0; },
       {"podMaxBackoffSeconds: Invalid value: 0: must be greater than or equal to "
        "PodInitialBackoffSeconds"}},
      {"empty scheduler name",
       [](auto& c) { c.profiles[0].scheduler_name = ""; },
       {"profiles[0].schedulerName: Required value"}},
      {"duplicate scheduler name",
       [](auto& c) { c.profiles.push_back(c.profiles[0]); },
       {"profiles[1].schedulerName: Duplicate value: {}"}},
      {"different queue sort",
       [](auto& c) {
         c.profiles.push_back(c.profiles[0]);
         c.profiles[1].scheduler_name = "other";
         c.profiles[1].plugins->queue_sort.enabled = {{"CustomSort", std::nullopt}};
         c.profiles[1].plugins->queue_sort.disabled = {{"*", std::nullopt}};
       },
       {"profiles[1].plugins.queueSort: Invalid value: "
        "{\"Enabled\":[{\"Name\":\"CustomSort\",\"Weight\":0}],\"Disabled\":[{\"Name\":\"*\","
        "\"Weight\":0}]}: must be the same for all profiles"}},
      {"different queue sort args",
       [](auto& c) {
         c.profiles[0].plugins->queue_sort.enabled = {{"CustomSort", std::nullopt}};
         c.profiles.push_back(c.profiles[0]);
         c.profiles[1].scheduler_name = "other";
         c.profiles[0].plugin_config.push_back({"CustomSort", RawArgs{"{\"a\":1}"}});
         c.profiles[1].plugin_config.push_back({"CustomSort", RawArgs{"{\"a\":2}"}});
       },
       {"profiles[1].pluginConfig.args: Invalid value: {\"a\":2}: queueSort must be the same for "
        "all profiles"}},
      {"two queue sorts in profile 0",
       [](auto& c) {
         c.profiles[0].plugins->queue_sort.enabled = {{"A", std::nullopt}, {"B", std::nullopt}};
       },
       {"profiles[0].plugins.queueSort.Enabled: Invalid value: 2: only one queue sort plugin can "
        "be enabled"}},
      {"removed plugin enabled",
       [](auto& c) {
         c.profiles[0].plugins->filter.enabled = {{"NodeName", std::nullopt},
                                                  {"EBSLimits", std::nullopt}};
       },
       {"profiles[0].plugins.filter.enabled[1]: Invalid value: \"EBSLimits\": " + removed}},
      {"removed plugin enabled at podGroupPostFilter (checked since 1.37)",
       [](auto& c) {
         c.profiles[0].plugins->pod_group_post_filter.enabled = {{"AzureDiskLimits", std::nullopt}};
       },
       {"profiles[0].plugins.podGroupPostFilter.enabled[0]: Invalid value: \"AzureDiskLimits\": " +
        removed}},
      {"removed plugin configured",
       [](auto& c) {
         c.profiles[0].plugin_config.push_back({"GCEPDLimits", RawArgs{"{}"}});
       },
       {"profiles[0].pluginConfig[8]: Invalid value: \"GCEPDLimits\": " + removed}},
      {"duplicate plugin config",
       [](auto& c) {
         c.profiles[0].plugin_config.push_back({"Custom", std::monostate{}});
         c.profiles[0].plugin_config.push_back({"Custom", std::monostate{}});
       },
       {"profiles[0].pluginConfig[9]: Duplicate value: \"Custom\""}},
      {"args are validated with their path",
       [](auto& c) {
         std::get<DefaultPreemptionArgs>(c.profiles[0].plugin_config[0].args)
             .min_candidate_nodes_percentage = 101;
       },
       {"profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 101: not "
        "in valid range [0, 100]"}},
      {"args of the wrong kind",
       [](auto& c) { c.profiles[0].plugin_config[0].args = RawArgs{"{\"x\":1}"}; },
       {"profiles[0].pluginConfig[0].args: Invalid value: {\"x\":1}: has to match plugin args"}},
      {"a plugin named after upstream's NodeResourcesFitArgs key",
       [](auto& c) {
         c.profiles[0].plugin_config.push_back({"NodeResourcesFitArgs", {}});
       },
       {"profiles[0].pluginConfig[8].args: Invalid value: null: has to match plugin args"}},
      {"NodeResourcesFit args are not validated here (upstream quirk)",
       [](auto& c) {
         std::get<NodeResourcesFitArgs>(c.profiles[0].plugin_config[5].args)
             .scoring_strategy->type = "Bogus";
       },
       {}},
      {"score weights are not range-checked here",
       [](auto& c) {
         c.profiles[0].plugins->score.enabled = {{"ImageLocality", 1000}};
       },
       {}},
      {"extender weight",
       [](auto& c) { c.extenders.push_back(Extender{.url_prefix = "x", .prioritize_verb = "p"}); },
       {"extenders[0].weight: Invalid value: 0: must have a positive weight applied to it"}},
      {"insecure extender TLS is refused (beyond upstream)",
       [](auto& c) {
         Extender e{.url_prefix = "https://x", .enable_https = true};
         e.tls_config.emplace().insecure = true;
         c.extenders.push_back(e);
       },
       {"extenders[0].tlsConfig.insecure: Forbidden: stowage verifies extender certificates: set "
        "caFile or caData (or rely on the system trust store) instead of insecure"}},
      {"enableHTTPS needs an https urlPrefix",
       [](auto& c) {
         c.extenders.push_back(Extender{.url_prefix = "http://x", .enable_https = true});
       },
       {"extenders[0].urlPrefix: Invalid value: \"http://x\": must start with https:// when "
        "enableHTTPS is true"}},
      {"two binders",
       [](auto& c) {
         c.extenders.push_back(Extender{.url_prefix = "a", .bind_verb = "bind"});
         c.extenders.push_back(Extender{.url_prefix = "b", .bind_verb = "bind"});
       },
       {"extenders: Invalid value: \"found 2 extenders implementing bind\": only one extender can "
        "implement bind"}},
      {"managed resources",
       [](auto& c) {
         Extender e{.url_prefix = "a"};
         e.managed_resources = {{"example.com/gpu", false},
                                {"cpu", false},
                                {"example.com/gpu", true},
                                {"kubernetes.io/x", false},
                                {"a/b/c", false}};
         c.extenders.push_back(e);
       },
       {"extenders[0].managedResources[1].name: Invalid value: \"cpu\": is an invalid extended "
        "resource name",
        "extenders[0].managedResources[2].name: Invalid value: \"example.com/gpu\": duplicate "
        "extender managed resource name",
        "extenders[0].managedResources[3].name: Invalid value: \"kubernetes.io/x\": is an invalid "
        "extended resource name",
        "extenders[0].managedResources[4].name: Invalid value: \"a/b/c\": a valid label key must "
        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
        "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
        "subdomain prefix and '/' (e.g. 'example.com/MyName')"}},
  };
  for (const Case& c : cases) {
    KubeSchedulerConfiguration cfg = Valid();
    c.mutate(cfg);
    EXPECT_EQ(Messages(cfg), c.want) << c.name;
  }
}

TEST(ValidationTest, AggregatedStatus) {
  KubeSchedulerConfiguration cfg = Valid();
  EXPECT_TRUE(Validate(cfg).ok());
  cfg.parallelism = 0;
  Status one = Validate(cfg);
  EXPECT_EQ(one.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(one.message(),
            "parallelism: Invalid value: 0: should be an integer value greater than zero");
  cfg.pod_initial_backoff_seconds = -1;
  EXPECT_EQ(Validate(cfg).message(),
            "[parallelism: Invalid value: 0: should be an integer value greater than zero, "
            "podInitialBackoffSeconds: Invalid value: -1: must be greater than 0]");
}

TEST(ValidationTest, UndefaultedValuesValidateAsZero) {
  // Upstream validates the internal types, where an unset pointer has become zero.
  KubeSchedulerConfiguration cfg;
  cfg.profiles.emplace_back().scheduler_name = "x";
  EXPECT_EQ(Messages(cfg),
            (std::vector<std::string>{
                "parallelism: Invalid value: 0: should be an integer value greater than zero",
                "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"}));
}

TEST(ValidationTest, FeatureGatedArgs) {
  KubeSchedulerConfiguration cfg = Valid();
  Features off;
  off.dra_scheduler_filter_timeout = false;
  off.dra_resource_claim_device_status = false;
  EXPECT_EQ(Messages(cfg, off),
            (std::vector<std::string>{
                "profiles[0].pluginConfig[1].args.filterTimeout: Forbidden: "
                "DRASchedulingFilterTimeout feature gate is disabled",
                "profiles[0].pluginConfig[1].args.bindingTimeout: Forbidden: "
                "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is "
                "disabled"}));
}

}  // namespace
}  // namespace stowage::config::validation_test
