// stowage's configuration handling against the real kube-scheduler's, from the files that
// tests/fixtures/config/capture.sh captured (see captured-from.txt for the version):
//   * written/<name>.yaml: what --write-config-to writes, compared byte for byte;
//   * invalid/<name>.err: how a bad configuration is rejected, compared exactly.
// Each case runs stowage's --config pipeline: load, SetDefaults, Validate, WrittenConfig.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "pkg/config/defaults.h"
#include "pkg/config/encode.h"
#include "pkg/config/load.h"
#include "pkg/config/validation.h"
#include "pkg/config/written.h"
#include "tests/testing/fixtures.h"

namespace stowage::config::upstream_fixtures_test {
namespace {

using stowage::testing::FixturePath;
using stowage::testing::ReadFixture;

// The configuration --write-config-to would write for the file at path (or for no file).
StatusOr<std::string> Written(const std::string& path, const Features& features = {}) {
  KubeSchedulerConfiguration cfg;
  if (!path.empty()) {
    StatusOr<KubeSchedulerConfiguration> loaded = LoadConfigFile(path);
    if (!loaded.ok()) return loaded.status();
    cfg = std::move(*loaded);
  }
  SetDefaults(cfg, features);
  if (Status s = Validate(cfg, features); !s.ok()) return s;
  StatusOr<KubeSchedulerConfiguration> written = WrittenConfig(cfg);
  if (!written.ok()) return written.status();
  return EncodeYaml(*written);
}

TEST(UpstreamFixturesTest, DefaultConfigIsWrittenAsUpstreamWritesIt) {
  StatusOr<std::string> got = Written("");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, ReadFixture("config/written/default.yaml"));
}

TEST(UpstreamFixturesTest, GatedDefaultsAreWrittenAsUpstreamWritesThem) {
  // The gates capture.sh flips for written/default-gates.yaml.
  Features f;
  f.generic_workload = true;
  f.topology_aware_workload_scheduling = true;
  f.in_place_pod_vertical_scaling_scheduler_preemption = true;
  f.storage_capacity_scoring = false;
  f.dra_scheduler_filter_timeout = false;
  f.dra_device_binding_conditions = false;
  StatusOr<std::string> got = Written("", f);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, ReadFixture("config/written/default-gates.yaml"));
}

TEST(UpstreamFixturesTest, EveryFieldIsWrittenAsUpstreamWritesIt) {
  const std::filesystem::path inputs = FixturePath("config/input");
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(inputs)) {
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    ++cases;
    StatusOr<std::string> got = Written(entry.path().string());
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, ReadFixture("config/written/" + name));
  }
  EXPECT_GT(cases, 0);
}

// The gates a case's "# flags:" line sets, as Features.
const std::map<std::string, Features>& CaseFeatures() {
  static const auto* const kFeatures = [] {
    auto* m = new std::map<std::string, Features>;
    Features capacity_off;
    capacity_off.storage_capacity_scoring = false;
    (*m)["shape-gate-off.yaml"] = capacity_off;
    return m;
  }();
  return *kFeatures;
}

TEST(UpstreamFixturesTest, InvalidConfigsFailWithUpstreamsMessage) {
  const std::filesystem::path dir = FixturePath("config/invalid");
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    ++cases;
    const std::string text = ReadFixture("config/invalid/" + name);
    auto it = CaseFeatures().find(name);
    ASSERT_EQ(text.find("# flags:") != std::string::npos, it != CaseFeatures().end())
        << "a case with flags needs its Features in CaseFeatures";
    StatusOr<std::string> got =
        Written(entry.path().string(), it == CaseFeatures().end() ? Features{} : it->second);
    ASSERT_FALSE(got.ok()) << *got;
    std::string want = ReadFixture("config/invalid/" + entry.path().stem().string() + ".err");
    if (!want.empty() && want.back() == '\n') want.pop_back();
    EXPECT_EQ(got.status().message(), want);
  }
  EXPECT_GT(cases, 0);
}

}  // namespace
}  // namespace stowage::config::upstream_fixtures_test
