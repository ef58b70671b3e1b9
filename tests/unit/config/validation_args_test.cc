// Plugin args validation (validation_pluginargs.go at v1.37.2), with exact messages. Paths are
// relative to the args object, as upstream's tests (and plugin constructors) pass a nil path.
#include "pkg/config/validation_args.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "pkg/config/defaults.h"

namespace stowage::config::validation_args_test {
namespace {

using namespace std::chrono_literals;
using Msgs = std::vector<std::string>;

Msgs ToStrings(const FieldErrors& errs) {
  Msgs out;
  for (const FieldError& e : errs) out.push_back(e.ToString());
  return out;
}

const FieldPath kRoot;

const std::string kNameRegex =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

TEST(ValidationArgsTest, DefaultPreemption) {
  struct Case {
    DefaultPreemptionArgs args;
    Msgs want;
  };
  const Case cases[] = {
      {{10, 100}, {}},
      {{-1, 100}, {"minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"}},
      {{900, 100},
       {"minCandidateNodesPercentage: Invalid value: 900: not in valid range [0, 100]"}},
      {{20, -1}, {"minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"}},
      {{0, 0},
       {"minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
        "minCandidateNodesAbsolute",
        "minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as "
        "minCandidateNodesPercentage"}},
      {{std::nullopt, std::nullopt},  // unset validates as 0
       {"minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
        "minCandidateNodesAbsolute",
        "minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as "
        "minCandidateNodesPercentage"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ToStrings(ValidateDefaultPreemptionArgs(kRoot, c.args)), c.want);
  }
}

TEST(ValidationArgsTest, InterPodAffinity) {
  EXPECT_EQ(ToStrings(ValidateInterPodAffinityArgs(kRoot, {10, false})), Msgs{});
  EXPECT_EQ(ToStrings(ValidateInterPodAffinityArgs(kRoot, {-1, false})),
            Msgs{"hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"});
  EXPECT_EQ(ToStrings(ValidateInterPodAffinityArgs(FieldPath("args"), {101, false})),
            Msgs{"args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"});
}

api::TopologySpreadConstraint Constraint(int32_t skew, std::string key, std::string when) {
  api::TopologySpreadConstraint c;
  c.max_skew = skew;
  c.topology_key = std::move(key);
  c.when_unsatisfiable = std::move(when);
  return c;
}

TEST(ValidationArgsTest, PodTopologySpread) {
  struct Case {
    const char* name;
    PodTopologySpreadArgs args;
    Msgs want;
  };
  api::TopologySpreadConstraint with_selector = Constraint(1, "zone", "DoNotSchedule");
  with_selector.label_selector = api::LabelSelector{};
  const Case cases[] = {
      {"valid",
       {{Constraint(1, "node", "DoNotSchedule"), Constraint(2, "zone", "ScheduleAnyway")}, "List"},
       {}},
      {"system without constraints", {{}, "System"}, {}},
      {"maxSkew",
       {{Constraint(-1, "node", "DoNotSchedule")}, "List"},
       {"defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)"}},
      {"empty topology key",
       {{Constraint(1, "", "DoNotSchedule")}, "List"},
       {"defaultConstraints[0].topologyKey: Required value: can not be empty"}},
      {"invalid topology key",
       {{Constraint(1, "-bad", "DoNotSchedule")}, "List"},
       {"defaultConstraints[0].topologyKey: Invalid value: \"-bad\": name part " + kNameRegex}},
      {"empty whenUnsatisfiable",
       {{Constraint(1, "node", "")}, "List"},
       {"defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty"}},
      {"unsupported whenUnsatisfiable",
       {{Constraint(1, "node", "Nope")}, "List"},
       {"defaultConstraints[0].whenUnsatisfiable: Unsupported value: \"Nope\": supported values: "
        "\"DoNotSchedule\", \"ScheduleAnyway\""}},
      {"duplicated",
       {{Constraint(1, "node", "DoNotSchedule"), Constraint(2, "node", "DoNotSchedule")}, "List"},
       {"defaultConstraints[1]: Duplicate value: \"{node, DoNotSchedule}\""}},
      {"label selector",
       {{with_selector}, "List"},
       {"defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, "
        "as they deduced for each pod"}},
      {"unknown defaulting type",
       {{}, "unknown"},
       {"defaultingType: Unsupported value: \"unknown\": supported values: \"System\", "
        "\"List\""}},
      {"system with constraints",
       {{Constraint(1, "node", "DoNotSchedule")}, "System"},
       {"defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ToStrings(ValidatePodTopologySpreadArgs(kRoot, c.args)), c.want) << c.name;
  }
}

TEST(ValidationArgsTest, BalancedAllocation) {
  EXPECT_EQ(
      ToStrings(ValidateNodeResourcesBalancedAllocationArgs(kRoot, {{{"cpu", 1}, {"memory", 1}}})),
      Msgs{});
  EXPECT_EQ(
      ToStrings(ValidateNodeResourcesBalancedAllocationArgs(kRoot, {{{"cpu", 2}, {"cpu", 1}}})),
      (Msgs{"resources[0].weight: Invalid value: 2: must be 1",
            "resources[1].name: Duplicate value: \"cpu\""}));
}

NodeResourcesFitArgs Fit(std::string type, std::vector<ResourceSpec> resources = {{"cpu", 1}}) {
  return NodeResourcesFitArgs{{}, {}, ScoringStrategy{std::move(type), std::move(resources), {}}};
}

TEST(ValidationArgsTest, NodeResourcesFit) {
  struct Case {
    const char* name;
    NodeResourcesFitArgs args;
    Msgs want;
  };
  NodeResourcesFitArgs ratio = Fit("RequestedToCapacityRatio");
  ratio.scoring_strategy->requested_to_capacity_ratio =
      RequestedToCapacityRatioParam{{{10, 1}, {5, 11}, {101, -1}}};
  NodeResourcesFitArgs ratio_on_least = Fit("LeastAllocated");
  ratio_on_least.scoring_strategy->requested_to_capacity_ratio = RequestedToCapacityRatioParam{};
  NodeResourcesFitArgs empty_shape = Fit("RequestedToCapacityRatio");
  empty_shape.scoring_strategy->requested_to_capacity_ratio = RequestedToCapacityRatioParam{};
  const Case cases[] = {
      {"valid", Fit("MostAllocated"), {}},
      {"ignored resources",
       NodeResourcesFitArgs{{"example.com/foo", "", std::string(64, 'a')},
                            {},
                            ScoringStrategy{"LeastAllocated", {{"cpu", 1}}, {}}},
       {"ignoredResources[1]: Invalid value: \"\": name part must be non-empty",
        "ignoredResources[1]: Invalid value: \"\": name part " + kNameRegex,
        "ignoredResources[2]: Invalid value: \"" + std::string(64, 'a') +
            "\": name part must be no more than 63 bytes"}},
      {"ignored resource groups",
       NodeResourcesFitArgs{{}, {"example.com", "a/b"}, ScoringStrategy{"LeastAllocated", {}, {}}},
       {"ignoredResourceGroups[1]: Invalid value: \"a/b\": resource group name can't contain "
        "'/'"}},
      {"strategy required",
       NodeResourcesFitArgs{},
       {"scoringStrategy: Required value: ScoringStrategy field is required"}},
      {"unsupported type",
       Fit("Invalid"),
       {"scoringStrategy.type: Unsupported value: \"Invalid\": supported values: "
        "\"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\""}},
      {"resource weights",
       Fit("LeastAllocated", {{"cpu", 0}, {"memory", 101}}),
       {"scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in "
        "valid range (0, 100]",
        "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of memory not "
        "in valid range (0, 100]"}},
      {"ratio missing",
       Fit("RequestedToCapacityRatio"),
       {"scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type is "
        "RequestedToCapacityRatio"}},
      {"ratio on another type",
       ratio_on_least,
       {"scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not "
        "RequestedToCapacityRatio"}},
      {"empty shape",
       empty_shape,
       {"scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must "
        "be specified"}},
      {"bad shape",
       ratio,
       {"scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 5: values "
        "must be sorted in increasing order",
        "scoringStrategy.requestedToCapacityRatio.shape[1].score: Invalid value: 11: not in valid "
        "range [0, 10]",
        "scoringStrategy.requestedToCapacityRatio.shape[2].utilization: Invalid value: 101: not "
        "in valid range [0, 100]",
        "scoringStrategy.requestedToCapacityRatio.shape[2].score: Invalid value: -1: not in valid "
        "range [0, 10]"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ToStrings(ValidateNodeResourcesFitArgs(kRoot, c.args)), c.want) << c.name;
  }
}

TEST(ValidationArgsTest, NodeAffinity) {
  EXPECT_EQ(ToStrings(ValidateNodeAffinityArgs(kRoot, {})), Msgs{});
  api::NodeAffinity a;
  a.required = api::NodeSelector{};
  a.required->terms = {
      api::NodeSelectorTerm{{{"invalid/label/key", "In", {"label-1-val"}}}, {}},
      api::NodeSelectorTerm{},  // empty terms are skipped
      api::NodeSelectorTerm{{{"k", "Gt", {"1", "x"}}, {"k", "Bogus", {}}, {"k", "In", {}}},
                            {{"metadata.name", "Exists", {}}}},
  };
  a.preferred = {
      {1, api::NodeSelectorTerm{{}, {{"metadata.name", "In", {"node-1", "node-2"}}}}},
      {0, api::NodeSelectorTerm{{{"", "In", {}}}, {}}},  // weight 0: skipped
      {2, api::NodeSelectorTerm{{{"k", "Exists", {"v"}}, {"k", "In", {"-bad"}}}, {}}},
  };
  const std::string req = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution";
  const std::string pref = "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution";
  EXPECT_EQ(
      ToStrings(ValidateNodeAffinityArgs(kRoot, {a})),
      (Msgs{
          req +
              ".nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: "
              "\"invalid/label/key\": a valid label key " +
              kNameRegex +
              " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
          req + ".nodeSelectorTerms[2].matchExpressions[0].values: Invalid value: "
                "[\"1\",\"x\"]: for 'Gt', 'Lt' operators, exactly one value is required",
          req + ".nodeSelectorTerms[2].matchExpressions[0].values[1]: Invalid value: \"x\": for "
                "'Gt', 'Lt' operators, the value must be an integer",
          req + ".nodeSelectorTerms[2].matchExpressions[1].operator: Unsupported value: "
                "\"Bogus\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", "
                "\"Gt\", \"Lt\"",
          req + ".nodeSelectorTerms[2].matchExpressions[2].values: Invalid value: null: for "
                "'in', 'notin' operators, values set can't be empty",
          req + ".nodeSelectorTerms[2].matchFields[0].operator: Unsupported value: \"Exists\": "
                "supported values: \"In\", \"NotIn\"",
          // Upstream leaves ".preference" out of preferred terms' paths.
          pref + "[0].matchFields[0].values: Invalid value: [\"node-1\",\"node-2\"]: must have "
                 "one element",
          pref + "[2].matchExpressions[0].values: Invalid value: [\"v\"]: values set must be "
                 "empty for exists and does not exist",
          pref + "[2].matchExpressions[1].values[0][k]: Invalid value: \"-bad\": a valid label "
                 "must be an empty string or consist of alphanumeric characters, '-', '_' or "
                 "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
                 "or 'my_value',  or '12345', regex used for validation is "
                 "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      }));
}

TEST(ValidationArgsTest, VolumeBinding) {
  const Features on;  // StorageCapacityScoring is beta and on in 1.37
  Features off;
  off.storage_capacity_scoring = false;
  auto args = [](int64_t timeout, std::optional<std::vector<UtilizationShapePoint>> shape) {
    VolumeBindingArgs a;
    a.bind_timeout_seconds = timeout;
    a.shape = std::move(shape);
    return a;
  };
  auto check = [&](const VolumeBindingArgs& a, const Features& f) {
    return ToStrings(ValidateVolumeBindingArgs(kRoot, a, f));
  };
  EXPECT_EQ(check(args(0, std::nullopt), off), Msgs{});
  EXPECT_EQ(check(args(-10, std::nullopt), off),
            Msgs{"bindTimeoutSeconds: Invalid value: -10: invalid BindTimeoutSeconds, should not "
                 "be a negative value"});
  EXPECT_EQ(check(args(600, std::vector<UtilizationShapePoint>{{0, 10}}), off),
            Msgs{"shape: Invalid value: [{\"Utilization\":0,\"Score\":10}]: unexpected field "
                 "`shape`, remove it or turn on the feature gate StorageCapacityScoring"});
  EXPECT_EQ(check(args(600, std::vector<UtilizationShapePoint>{}), off),
            Msgs{"shape: Invalid value: []: unexpected field `shape`, remove it or turn on the "
                 "feature gate StorageCapacityScoring"});
  EXPECT_EQ(check(args(600, std::nullopt), on),
            Msgs{"shape: Required value: at least one point must be specified"});
  EXPECT_EQ(check(args(600, std::vector<UtilizationShapePoint>{{0, 10}, {100, 0}}), on), Msgs{});
}

TEST(ValidationArgsTest, DynamicResources) {
  const Features on;
  Features off;
  off.dra_scheduler_filter_timeout = false;
  off.dra_device_binding_conditions = false;
  EXPECT_EQ(ToStrings(ValidateDynamicResourcesArgs(kRoot, {10s, 10min}, on)), Msgs{});
  EXPECT_EQ(ToStrings(ValidateDynamicResourcesArgs(kRoot, {0s, 1s}, on)), Msgs{});
  EXPECT_EQ(ToStrings(ValidateDynamicResourcesArgs(kRoot, {-1s, 999ms}, on)),
            (Msgs{"filterTimeout: Invalid value: \"-1s\": must be zero or positive",
                  "bindingTimeout: Invalid value: \"999ms\": must be at least 1 second"}));
  EXPECT_EQ(ToStrings(ValidateDynamicResourcesArgs(kRoot, {}, off)), Msgs{});
  EXPECT_EQ(ToStrings(ValidateDynamicResourcesArgs(kRoot, {10s, 10min}, off)),
            (Msgs{"filterTimeout: Forbidden: DRASchedulingFilterTimeout feature gate is disabled",
                  "bindingTimeout: Forbidden: DRADeviceBindingConditions or "
                  "DRAResourceClaimDeviceStatus feature gate is disabled"}));
}

TEST(ValidationArgsTest, QualifiedNames) {
  EXPECT_TRUE(QualifiedNameErrors("example.com/gpu").empty());
  EXPECT_TRUE(QualifiedNameErrors("cpu").empty());
  EXPECT_EQ(QualifiedNameErrors("/x"), std::vector<std::string>{"prefix part must be non-empty"});
  EXPECT_EQ(QualifiedNameErrors("Example.com/x"),
            std::vector<std::string>{
                "prefix part a lowercase RFC 1123 subdomain must consist of lower case "
                "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
                "character (e.g. 'example.com', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"});
}

}  // namespace
}  // namespace stowage::config::validation_args_test

namespace stowage::config::validation_args_test {
namespace {

// Upstream validates NodeResourcesFitArgs only in NewFit; profiles are built through
// ValidateArgsOnConstruction so the plugin's factory can trust its args.
TEST(ValidationArgsTest, FitArgsAreCheckedOnConstruction) {
  NodeResourcesFitArgs bad{
      {}, {}, ScoringStrategy{"LeastAllocated", {{"cpu", 0}, {"memory", 101}}, {}}};
  Status got = ValidateArgsOnConstruction("NodeResourcesFit", bad);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.message(),
            "[scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in "
            "valid range (0, 100], scoringStrategy.resources[1].weight: Invalid value: 101: "
            "resource weight of memory not in valid range (0, 100]]");
  // The same args after defaulting: weight 0 became 1, 101 stays wrong.
  PluginArgs defaulted = bad;
  SetArgsDefaults(defaulted);
  EXPECT_EQ(ValidateArgsOnConstruction("NodeResourcesFit", defaulted).message(),
            "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of memory "
            "not in valid range (0, 100]");
  PluginArgs empty = NodeResourcesFitArgs{};
  SetArgsDefaults(empty);
  EXPECT_TRUE(ValidateArgsOnConstruction("NodeResourcesFit", empty).ok());
  // Other plugins' args were validated with the configuration already.
  EXPECT_TRUE(ValidateArgsOnConstruction("NodeResourcesBalancedAllocation",
                                         NodeResourcesBalancedAllocationArgs{{{"cpu", 2}}})
                  .ok());
}

}  // namespace
}  // namespace stowage::config::validation_args_test
