// --feature-gates, --emulated-version and --min-compatibility-version against kube-scheduler
// 1.37.2's registry (cmd/stowage/app/feature_gates_generated.inc): defaults and stages at each
// emulation version, locks, dependencies, AllAlpha/AllBeta and the version checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "cmd/stowage/app/options.h"
#include "tests/testing/fixtures.h"

namespace stowage::app::feature_gates_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

StatusOr<Options> Parse(std::vector<std::string> args) { return ParseArgs(args); }

const FeatureGateSpec* FindIn(const std::vector<FeatureGateSpec>& gates, std::string_view name) {
  for (const FeatureGateSpec& g : gates) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

// The fixture is what upstream's registry resolves at each emulation and min compatibility
// version (featuregate GetAll), written by scripts/generate/feature-gates.
TEST(FeatureGates, ResolvedAsUpstreamAtEveryEmulationVersion) {
  std::istringstream in(stowage::testing::ReadFixture("cli/feature-gates-by-version.txt"));
  std::map<std::string, std::vector<std::string>> upstream;  // "emulation=.. min-..=.." -> rows
  std::string current;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("emulation=", 0) == 0) {
      current = line;
      upstream[current];
    } else {
      upstream[current].push_back(line);
    }
  }
  ASSERT_EQ(upstream.size(), 7u);  // 1.34 to 1.37, each with a raised min compatibility but 1.34
  for (const auto& [versions, want] : upstream) {
    SCOPED_TRACE(versions);
    FeatureGateOptions fg;
    std::sscanf(versions.c_str(), "emulation=%d.%d min-compatibility=%d.%d", &fg.emulation.major,
                &fg.emulation.minor, &fg.min_compatibility.major, &fg.min_compatibility.minor);
    std::vector<std::string> got;
    for (const FeatureGateSpec& g : fg.Gates()) {
      got.push_back(std::string(g.name) + " " + std::string(g.stage) + " " +
                    (g.default_value ? "true" : "false") + " " + (g.locked ? "true" : "false"));
      EXPECT_EQ(fg.Enabled(g.name), g.default_value) << g.name;
    }
    EXPECT_EQ(got, want);
  }
}

TEST(FeatureGates, ExplicitValuesAndDefaults) {
  auto o = Parse({"--feature-gates=SchedulerAsyncAPICalls=true, OpportunisticBatching=false",
                  "--feature-gates", "StorageCapacityScoring=false"});
  ASSERT_TRUE(o.ok()) << o.status();
  const FeatureGateOptions& fg = o->feature_gates;
  EXPECT_TRUE(fg.Enabled("SchedulerAsyncAPICalls"));    // beta, off by default
  EXPECT_FALSE(fg.Enabled("OpportunisticBatching"));    // beta, on by default
  EXPECT_FALSE(fg.Enabled("StorageCapacityScoring"));   // beta and on since 1.37
  EXPECT_TRUE(fg.Enabled("SchedulerPopFromBackoffQ"));  // beta, on
  EXPECT_FALSE(fg.Enabled("GenericWorkload"));          // beta, off
  EXPECT_FALSE(fg.Enabled("NoSuchGate"));
  EXPECT_EQ(fg.explicit_gates.size(), 3u);
  EXPECT_THAT(fg.raw.at(""),
              ElementsAre("SchedulerAsyncAPICalls=true", "OpportunisticBatching=false",
                          "StorageCapacityScoring=false"));
}

TEST(FeatureGates, DefaultsOfUnparsedOptionsAreThoseOfTheBinary) {
  const FeatureGateOptions fg;
  EXPECT_EQ(fg.emulation, (MinorVersion{1, 37}));
  EXPECT_EQ(fg.min_compatibility, (MinorVersion{1, 36}));
  EXPECT_TRUE(fg.Enabled("StorageCapacityScoring"));
  EXPECT_TRUE(fg.Enabled("VolumeLimitScaling"));
}

TEST(FeatureGates, ComponentPrefix) {
  auto o = Parse({"--feature-gates=kube:SchedulerAsyncAPICalls=true"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->feature_gates.Enabled("SchedulerAsyncAPICalls"));
  EXPECT_EQ(Parse({"--feature-gates=wardle:a=true"}).status().message(),
            "component not registered: wardle");
}

TEST(FeatureGates, RemovedIn137AreUnrecognized) {
  for (const std::string name : {"GangScheduling", "WorkloadAwarePreemption",
                                 "SchedulerQueueingHints", "SidecarContainers"}) {
    EXPECT_EQ(Parse({"--feature-gates=" + name + "=true"}).status().message(),
              "unrecognized feature gate: " + name);
    EXPECT_EQ(FindFeatureGate(name), nullptr) << name;
  }
  // Removed from the registry, so emulating 1.36 does not bring them back.
  EXPECT_EQ(Parse({"--emulated-version=1.36", "--feature-gates=SidecarContainers=true"})
                .status()
                .message(),
            "unrecognized feature gate: SidecarContainers");
}

TEST(FeatureGates, AnUnknownNameIsReportedAlone) {
  EXPECT_EQ(Parse({"--feature-gates=NodeDeclaredFeatures=false,Zzz=true"}).status().message(),
            "unrecognized feature gate: Zzz");
}

TEST(FeatureGates, Errors) {
  EXPECT_EQ(Parse({"--feature-gates=Foo=x"}).status().message(),
            "invalid value of Foo=x, err: strconv.ParseBool: parsing \"x\": invalid syntax");
  EXPECT_EQ(Parse({"--feature-gates=DRAExtendedResource=false"}).status().message(),
            "cannot set feature gate DRAExtendedResource to false, feature is locked to true");
  EXPECT_EQ(Parse({"--feature-gates=DRAWorkloadResourceClaims=true"}).status().message(),
            "DRAWorkloadResourceClaims is enabled, but depends on features that are disabled: "
            "[GenericWorkload]");
  EXPECT_TRUE(Parse({"--feature-gates=DRAWorkloadResourceClaims=true,GenericWorkload=true"}).ok());
}

TEST(FeatureGates, LockedGateMaySetItsLockedValue) {
  auto o = Parse({"--feature-gates=NodeDeclaredFeatures=true"});
  ASSERT_TRUE(o.ok()) << o.status();
  // Logged by main() at info level, as upstream's featuregate Set logs it.
  EXPECT_THAT(o->warnings, ElementsAre("\"Warning: setting GA feature gate. It will be removed in "
                                       "a future release.\" featureGate=\"NodeDeclaredFeatures\" "
                                       "value=true"));
}

TEST(FeatureGates, AllAlphaAndAllBeta) {
  // Every alpha gate on needs GenericWorkload (beta) for the alpha gates that depend on it.
  auto o = Parse({"--feature-gates=AllAlpha=true,GenericWorkload=true"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->feature_gates.Enabled("TopologyAwareWorkloadScheduling"));
  EXPECT_FALSE(o->feature_gates.Enabled("SchedulerAsyncAPICalls"));  // beta: untouched
  auto b = Parse({"--feature-gates=AllBeta=false,OpportunisticBatching=true"});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_FALSE(b->feature_gates.Enabled("SchedulerPopFromBackoffQ"));
  EXPECT_TRUE(b->feature_gates.Enabled("OpportunisticBatching"));  // explicit wins
}

TEST(FeatureGates, KnownTable) {
  const auto& gates = KnownFeatureGates();
  EXPECT_TRUE(std::is_sorted(gates.begin(), gates.end(),
                             [](const auto& a, const auto& b) { return a.name < b.name; }));
  const FeatureGateSpec* ndf = FindFeatureGate("NodeDeclaredFeatures");
  ASSERT_NE(ndf, nullptr);
  EXPECT_EQ(ndf->stage, "GA");
  EXPECT_TRUE(ndf->locked);
  const FeatureGateSpec* scs = FindFeatureGate("StorageCapacityScoring");
  ASSERT_NE(scs, nullptr);
  EXPECT_EQ(scs->stage, "BETA");
  EXPECT_TRUE(scs->default_value);
  EXPECT_EQ(FindFeatureGate("NoSuchGate"), nullptr);
}

TEST(EmulatedVersion, GatesTakeTheEmulatedReleasesDefaults) {
  auto o = Parse({"--emulated-version=1.36"});
  ASSERT_TRUE(o.ok()) << o.status();
  const FeatureGateOptions& fg = o->feature_gates;
  EXPECT_EQ(fg.emulation, (MinorVersion{1, 36}));
  EXPECT_EQ(fg.min_compatibility, (MinorVersion{1, 35}));  // follows the emulation version
  EXPECT_FALSE(fg.Enabled("StorageCapacityScoring"));      // alpha in 1.36
  EXPECT_TRUE(fg.Enabled("NodeDeclaredFeatures"));         // beta, on in 1.36
  const auto gates = fg.Gates();
  const FeatureGateSpec* ndf = FindIn(gates, "NodeDeclaredFeatures");
  ASSERT_NE(ndf, nullptr);
  EXPECT_EQ(ndf->stage, "BETA");
  EXPECT_FALSE(ndf->locked);
  // Not locked at 1.36, so turning it off is refused only by the gates that depend on it.
  EXPECT_EQ(Parse({"--emulated-version=1.36", "--feature-gates=NodeDeclaredFeatures=false"})
                .status()
                .message(),
            "[ExtendWebSocketsToKubelet is enabled, but depends on features that are disabled: "
            "[NodeDeclaredFeatures], InPlacePodLevelResourcesVerticalScaling is enabled, but "
            "depends on features that are disabled: [NodeDeclaredFeatures], "
            "InPlacePodVerticalScalingInitContainers is enabled, but depends on features that "
            "are disabled: [NodeDeclaredFeatures], RestartAllContainersOnContainerExits is "
            "enabled, but depends on features that are disabled: [NodeDeclaredFeatures]]");
  auto off = Parse({"--emulated-version=1.36", "--feature-gates=NodeDeclaredFeatures=false",
                    "--feature-gates=ExtendWebSocketsToKubelet=false",
                    "--feature-gates=InPlacePodLevelResourcesVerticalScaling=false",
                    "--feature-gates=InPlacePodVerticalScalingInitContainers=false",
                    "--feature-gates=RestartAllContainersOnContainerExits=false"});
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE(off->feature_gates.Enabled("NodeDeclaredFeatures"));
}

TEST(EmulatedVersion, GatesNewerThanTheEmulatedReleaseDoNotExist) {
  auto o = Parse({"--emulated-version=1.34"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->feature_gates.min_compatibility, (MinorVersion{1, 34}));  // the floor
  EXPECT_EQ(FindIn(o->feature_gates.Gates(), "DRAFractionalCapacityRange"), nullptr);
  EXPECT_NE(FindIn(o->feature_gates.Gates(), "SchedulerAsyncAPICalls"), nullptr);
  EXPECT_EQ(Parse({"--emulated-version=1.34", "--feature-gates=DRAFractionalCapacityRange=false"})
                .status()
                .message(),
            "cannot set feature gate DRAFractionalCapacityRange to false, feature is PreAlpha at "
            "emulated version 1.34, min compatibility version 1.34");
}

TEST(EmulatedVersion, MinCompatibilityChoosesBetweenSpecsOfOneRelease) {
  // DRAFractionalCapacityRange: beta in 1.37, on only once every peer is at least 1.37.
  EXPECT_FALSE(Parse({})->feature_gates.Enabled("DRAFractionalCapacityRange"));
  auto o = Parse({"--min-compatibility-version=1.37"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->feature_gates.Enabled("DRAFractionalCapacityRange"));
}

TEST(EmulatedVersion, ParseErrors) {
  EXPECT_TRUE(Parse({"--emulated-version=kube=1.37"}).ok());
  EXPECT_TRUE(Parse({"--emulated-version=v1.35.0"}).ok());
  EXPECT_EQ(Parse({"--emulated-version=1.36,kube=1.35"}).status().message(),
            "duplicate version flag, kube=1.36 and kube=1.35");
  // toVersionMap parses every item before the components are checked.
  EXPECT_EQ(Parse({"--emulated-version=foo=1.35,1.36.1"}).status().message(),
            "patch version not allowed, got: kube=1.36.1");
  EXPECT_EQ(Parse({"--min-compatibility-version=bar=1.35"}).status().message(),
            "component not registered: bar");
}

TEST(EmulatedVersion, RangeIsCheckedWithTheOtherOptions) {
  auto ok = Parse({"--emulated-version=1.34", "--min-compatibility-version=1.34"});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_THAT(ValidateVersions(ok->feature_gates), IsEmpty());
  auto old = Parse({"--emulated-version=1.2"});
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_THAT(ValidateVersions(old->feature_gates),
              ElementsAre("emulation version 1.2 is not between [1.34, 1.37.0]",
                          "minCompatibilityVersion version 1.34 is not between [1.34, 1.2]"));
  auto high = Parse({"--min-compatibility-version=1.38"});
  ASSERT_TRUE(high.ok()) << high.status();
  EXPECT_EQ(ValidateOptions(*high).message(),
            "minCompatibilityVersion version 1.38 is not between [1.34, 1.37]");
}

}  // namespace
}  // namespace stowage::app::feature_gates_test
