// stowage's command line against the real kube-scheduler's output, kept in tests/fixtures/cli/
// by tests/fixtures/cli/capture.sh: --help, --version, --version=raw and the command lines
// upstream rejects before it needs an apiserver (removed gates, versions out of range, ...).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "cmd/stowage/app/options.h"
#include "pkg/common/go_quote.h"
#include "tests/testing/fixtures.h"

namespace stowage::app::upstream_cli_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

void ReplaceAll(std::string& s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

// upstream's description above "Usage:" is its own; from there on only the command's name
// differs.
TEST(UpstreamHelp, UsageIsUpstreamsWithStowagesName) {
  std::string upstream = stowage::testing::ReadFixture("cli/help.txt");
  const size_t usage = upstream.find("Usage:\n");
  ASSERT_NE(usage, std::string::npos);
  upstream.erase(0, usage);
  ReplaceAll(upstream, "  kube-scheduler [flags]\n", "  stowage [flags]\n");
  ReplaceAll(upstream, "help for kube-scheduler\n", "help for stowage\n");
  EXPECT_EQ(Usage(), upstream);
  EXPECT_THAT(Help(), HasSubstr(Usage()));
}

TEST(UpstreamVersion, SameRelease) {
  EXPECT_EQ(stowage::testing::ReadFixture("cli/version.txt"),
            "Kubernetes " + std::string(kKubeSchedulerVersion) + "\n");
  Options o;
  o.version = VersionFlag::kTrue;
  EXPECT_EQ(VersionText(o), "stowage " + std::string(StowageVersion()) + " (kube-scheduler " +
                                std::string(kKubeSchedulerVersion) + " compatible)\n");
}

TEST(UpstreamVersion, RawSharesUpstreamsVersionFields) {
  const std::string upstream = stowage::testing::ReadFixture("cli/version-raw.txt");
  const size_t minor_end = upstream.find(", EmulationMajor");
  ASSERT_NE(minor_end, std::string::npos);
  Options o;
  o.version = VersionFlag::kRaw;
  const std::string raw = VersionText(o);
  EXPECT_THAT(raw, StartsWith(upstream.substr(0, minor_end)));  // version.Info{Major:"1", Minor:..
  EXPECT_THAT(raw, HasSubstr("GitVersion:\"" + std::string(kKubeSchedulerVersion) + "\""));
  EXPECT_THAT(upstream, HasSubstr("GitVersion:\"" + std::string(kKubeSchedulerVersion) + "\""));
}

struct RejectedCommandLine {
  std::string name;
  std::vector<std::string> args;
  std::string exit;
  std::string line;  // "command failed" err="..."
};

std::vector<RejectedCommandLine> LoadRejected() {
  std::vector<RejectedCommandLine> cases;
  for (const auto& entry :
       std::filesystem::directory_iterator(stowage::testing::FixturePath("cli/errors"))) {
    RejectedCommandLine c;
    c.name = entry.path().stem().string();
    std::istringstream in(stowage::testing::ReadFixture("cli/errors/" + c.name + ".txt"));
    std::string args_line, exit_line;
    std::getline(in, args_line);
    std::getline(in, exit_line);
    std::getline(in, c.line);
    std::istringstream words(args_line.substr(args_line.find(':') + 1));
    for (std::string w; words >> w;) c.args.push_back(w);
    c.exit = exit_line.substr(exit_line.find(':') + 2);
    cases.push_back(std::move(c));
  }
  std::sort(cases.begin(), cases.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return cases;
}

// What stowage rejects the command line with: the parse (flags, versions, gates), else the
// option validation, where upstream checks the version range and the metrics flags.
std::string StowageError(const std::vector<std::string>& args) {
  auto o = ParseArgs(args);
  if (!o.ok()) return std::string(o.status().message());
  Status s = ValidateOptions(*o);
  return s.ok() ? "" : std::string(s.message());
}

TEST(UpstreamErrors, SameMessagesAsTheRealBinary) {
  const auto cases = LoadRejected();
  ASSERT_GE(cases.size(), 18u);
  for (const RejectedCommandLine& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.exit, "1");
    // upstream logs the error with klog, which quotes it as Go's %q does.
    EXPECT_EQ("\"command failed\" err=" + GoQuote(StowageError(c.args)), c.line);
  }
}

TEST(UpstreamErrors, GangSchedulingWasRemovedIn137) {
  const std::string upstream =
      stowage::testing::ReadFixture("cli/errors/removed-gate-gang-scheduling.txt");
  EXPECT_THAT(upstream, HasSubstr("err=\"unrecognized feature gate: GangScheduling\""));
  auto o = ParseArgs({"--feature-gates=GangScheduling=true"});
  EXPECT_EQ(o.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(o.status().message(), "unrecognized feature gate: GangScheduling");
}

}  // namespace
}  // namespace stowage::app::upstream_cli_test
