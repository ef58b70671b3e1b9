// stowage's z-pages and health bodies against the real kube-scheduler's, captured by
// tests/fixtures/zpages/capture.sh with the flags in tests/fixtures/zpages/args. stowage runs
// with the same flags and its bodies go through the capture's normalisation: <SEP> for the
// random separator, <START>, <UPTIME> and <GO> for what varies per run or build.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "cmd/stowage/app/endpoints.h"
#include "cmd/stowage/app/zpages.h"
#include "tests/testing/fixtures.h"

namespace stowage::app::zpages_fixture_test {
namespace {

using json = nlohmann::json;

constexpr char kCurl[] = "curl/8.5.0";  // curl's JSON is indented, as the capture's

Options CapturedOptions() {
  std::istringstream in(testing::ReadFixture("zpages/args"));
  std::vector<std::string> args;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) args.push_back(line);
  }
  auto o = ParseArgs(args);
  EXPECT_TRUE(o.ok()) << o.status();
  return o.ok() ? *o : Options{};
}

std::string Accept(std::string_view kind) {
  return "application/json;as=" + std::string(kind) + ";v=v1beta1;g=config.k8s.io";
}

// GET path from stowage's router serving the captured flags and configuration, with the
// Accept header given, as curl sends it.
server::Response Get(const Options& options, const config::KubeSchedulerConfiguration& cfg,
                     const std::string& path, const std::string& accept = "") {
  EndpointSources sources;
  sources.metrics = [] { return std::string(); };
  sources.resource_metrics = [] { return std::string(); };
  sources.options = &options;
  sources.config = &cfg;
  sources.start_time = RealClock().WallNow();
  sources.profiling = cfg.debugging.enable_profiling.value_or(true);
  server::HealthCheckMetrics slis;
  auto router = NewRouter(sources, &slis);
  EXPECT_TRUE(router.ok()) << router.status();
  if (!router.ok()) return {};
  server::Request req;
  req.method = "GET";
  req.path = req.target = path;
  req.headers = {{"user-agent", kCurl}};
  if (!accept.empty()) req.headers.emplace_back("accept", accept);
  return (*router)->Serve(req);
}

// The capture's normalisation of /statusz.
std::string NormalisedStatusz(std::string body) {
  const std::pair<const char*, const char*> kVarying[] = {
      {"Started<SEP> [^\n]*", "Started<SEP> <START>"},
      {"Up<SEP> [^\n]*", "Up<SEP> <UPTIME>"},
      {"Go version<SEP> [^\n]*", "Go version<SEP> <GO>"},
      {R"("startTime": "[^"]*")", R"("startTime": "<START>")"},
      {R"("uptimeSeconds": [0-9]+)", R"("uptimeSeconds": 0)"},
      {R"("goVersion": "[^"]*")", R"("goVersion": "<GO>")"}};
  for (const auto& [pattern, replacement] : kVarying) {
    body = std::regex_replace(body, std::regex(pattern), replacement);
  }
  return body;
}

TEST(ZpagesFixture, FlagzText) {
  ZpageResponse r = Flagz(FlagValues(CapturedOptions()), {}, "<SEP>");  // the capture's separator
  EXPECT_EQ(r.body, testing::ReadFixture("zpages/flagz.txt"));
}

TEST(ZpagesFixture, FlagzJson) {
  Options options = CapturedOptions();
  auto cfg = BuildConfig(options);
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(Get(options, *cfg, "/flagz", Accept("Flagz")).body,
            testing::ReadFixture("zpages/flagz.json"));
}

class CapturedRun : public ::testing::Test {
 protected:
  void SetUp() override {
    options_ = CapturedOptions();
    auto cfg = BuildConfig(options_);
    ASSERT_TRUE(cfg.ok()) << cfg.status();
    cfg_ = *cfg;
  }
  // The text page, its separator made the capture's placeholder: the text before the first
  // value of each line is "<label><separator> ".
  std::string Text() {
    std::string body = Get(options_, cfg_, "/statusz").body;
    for (const char* label :
         {"Started", "Up", "Go version", "Binary version", "Emulation version", "Paths"}) {
      std::regex line("\n" + std::string(label) + "(: |:|=| ) ");
      body = std::regex_replace(body, line, "\n" + std::string(label) + "<SEP> ");
    }
    return NormalisedStatusz(body);
  }
  Options options_;
  config::KubeSchedulerConfiguration cfg_;
};

// Everything but the versions, which come from the kube-scheduler version stowage reports.
TEST_F(CapturedRun, Text) {
  auto versionless = [](std::string s) {
    return std::regex_replace(s, std::regex("(Binary|Emulation) version<SEP> [^\n]*"), "$1");
  };
  EXPECT_EQ(versionless(Text()), versionless(testing::ReadFixture("zpages/statusz.txt")));
}

TEST_F(CapturedRun, Json) {
  auto versionless = [](std::string s) {
    return std::regex_replace(s, std::regex(R"("(binary|emulation)Version": "[^"]*")"), "$1");
  };
  std::string body = NormalisedStatusz(Get(options_, cfg_, "/statusz", Accept("Statusz")).body);
  EXPECT_EQ(versionless(body), versionless(testing::ReadFixture("zpages/statusz.json")));
}

// The binary and emulation versions of the pinned release.
TEST_F(CapturedRun, Versions) {
  std::string body = Text();
  std::string fixture = testing::ReadFixture("zpages/statusz.txt");
  for (const char* label : {"Binary version<SEP> ", "Emulation version<SEP> "}) {
    std::regex line(std::string(label) + "[^\n]*");
    std::smatch ours, theirs;
    ASSERT_TRUE(std::regex_search(body, ours, line));
    ASSERT_TRUE(std::regex_search(fixture, theirs, line));
    EXPECT_EQ(ours.str(), theirs.str());
  }
}

// Compared as JSON values: Go writes the configuration's keys in struct order, stowage in
// alphabetical order.
TEST_F(CapturedRun, Configz) {
  EXPECT_EQ(json::parse(Get(options_, cfg_, "/configz").body),
            json::parse(testing::ReadFixture("zpages/configz.json")));
}

// The health endpoints with the checks kube-scheduler installs when it elects a leader (the
// names app/process.cc gives them), all passing.
TEST(ZpagesFixture, VerboseHealthBodies) {
  EndpointSources sources;
  sources.healthz_checks = {server::NamedHealthCheck("leaderElection", [] { return OkStatus(); })};
  sources.readyz_checks = {
      sources.healthz_checks[0], server::ShutdownHealthCheck([] { return false; }),
      server::NamedHealthCheck("sched-handler-sync", [] { return OkStatus(); })};
  auto router = NewRouter(sources, nullptr);
  ASSERT_TRUE(router.ok()) << router.status();
  for (const char* page : {"healthz", "livez", "readyz"}) {
    server::Request req;
    req.method = "GET";
    req.path = std::string("/") + page;
    req.query = "verbose";
    req.target = req.path + "?verbose";
    EXPECT_EQ((*router)->Serve(req).body,
              testing::ReadFixture(std::string("zpages/") + page + ".txt"))
        << page;
  }
}

}  // namespace
}  // namespace stowage::app::zpages_fixture_test
