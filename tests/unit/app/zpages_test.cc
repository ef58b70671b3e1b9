// The z-pages' bodies and content negotiation, against the formats of kube-scheduler 1.37.2's
// configz, flagz and statusz (apiserver/pkg/server/{flagz,statusz}, component-base/configz).
#include "cmd/stowage/app/zpages.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>
#include <optional>

#include "pkg/api/encode.h"

namespace stowage::app::zpages_test {
namespace {

using json = nlohmann::json;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::StartsWith;

constexpr char kBanner[] =
    "Warning: This endpoint is not meant to be machine parseable, has no formatting "
    "compatibility guarantees and is for debugging purposes only.\n";
constexpr char kFlagzV1beta1[] = "application/json;as=Flagz;v=v1beta1;g=config.k8s.io";
constexpr char kStatuszV1beta1[] = "application/json;as=Statusz;v=v1beta1;g=config.k8s.io";

Options DefaultOptions() {
  auto o = ParseArgs({});
  EXPECT_TRUE(o.ok()) << o.status();
  return *o;
}

TEST(Configz, WrapsTheVersionedConfiguration) {
  auto cfg = BuildConfig(DefaultOptions());
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  ZpageResponse r = Configz(*cfg);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_THAT(r.headers, ::testing::Contains(Pair("X-Content-Type-Options", "nosniff")));
  EXPECT_THAT(r.body, StartsWith(R"({"componentconfig":{)"));
  EXPECT_NE(r.body.back(), '\n');
  json j = json::parse(r.body);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j["componentconfig"]["apiVersion"], "kubescheduler.config.k8s.io/v1");
  EXPECT_EQ(j["componentconfig"]["kind"], "KubeSchedulerConfiguration");
  EXPECT_EQ(j["componentconfig"]["profiles"][0]["schedulerName"], "default-scheduler");
}

TEST(FlagValues, HoldsEveryFlagWithItsCurrentValue) {
  auto o = ParseArgs({"--secure-port=1234", "-v=3", "--leader-elect=false"});
  ASSERT_TRUE(o.ok()) << o.status();
  auto flags = FlagValues(*o);
  EXPECT_EQ(flags["secure-port"], "1234");
  EXPECT_EQ(flags["v"], "3");
  EXPECT_EQ(flags["leader-elect"], "false");
  EXPECT_EQ(flags["bind-address"], "0.0.0.0");
  // Global flags and deprecated ones are listed too, as upstream's NamedFlagSetsReader does.
  EXPECT_EQ(flags.count("help"), 1u);
  EXPECT_EQ(flags.count("kubeconfig"), 1u);
  EXPECT_EQ(flags.size(), 62u);
}

TEST(Flagz, TextIsBannerThenSortedFlags) {
  std::map<std::string, std::string> flags = {{"b-flag", "2"}, {"a-flag", "x,y"}, {"c", ""}};
  ZpageResponse r = Flagz(flags, {}, "=");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(r.body,
            std::string("\nkube-scheduler flagz\n") + kBanner + "a-flag=x,y\nb-flag=2\nc=\n");
  EXPECT_THAT(Flagz(flags, {}, ": ").body, HasSubstr("\na-flag: x,y\n"));
}

TEST(Flagz, TextSeparatorIsOneOfUpstreamsAndStable) {
  std::string_view s = FlagzSeparator();
  EXPECT_TRUE(s == ":" || s == ": " || s == "=" || s == " ") << s;
  EXPECT_EQ(FlagzSeparator(), s);
  EXPECT_EQ(Flagz({{"a", "1"}}, {}).body, Flagz({{"a", "1"}}, {}).body);
}

TEST(Flagz, StructuredV1beta1) {
  std::map<std::string, std::string> flags = {{"v", "2"}, {"bind-address", "0.0.0.0"}};
  ZpageResponse r = Flagz(flags, {.accept = kFlagzV1beta1});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json;g=config.k8s.io;v=v1beta1;as=Flagz");
  EXPECT_TRUE(r.headers.empty());
  EXPECT_EQ(r.body, R"({"kind":"Flagz","apiVersion":"config.k8s.io/v1beta1","metadata":{"name":)"
                    R"("kube-scheduler"},"flags":{"bind-address":"0.0.0.0","v":"2"}})"
                    "\n");
}

TEST(Flagz, DeprecatedV1alpha1CarriesAWarning) {
  ZpageResponse r =
      Flagz({{"v", "0"}}, {.accept = "application/json;as=Flagz;v=v1alpha1;g=config.k8s.io"});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body)["apiVersion"], "config.k8s.io/v1alpha1");
  EXPECT_THAT(
      r.headers,
      ::testing::ElementsAre(Pair(
          "Warning",
          R"(299 - "This version of the flagz endpoint is deprecated. Please use a newer version.")")));
}

TEST(Flagz, PrettyForCurlUnlessTheQuerySaysOtherwise) {
  std::map<std::string, std::string> flags = {{"v", "2"}};
  ZpageResponse r = Flagz(flags, {.accept = kFlagzV1beta1, .user_agent = "curl/8.5.0"});
  EXPECT_EQ(r.body, R"({
  "kind": "Flagz",
  "apiVersion": "config.k8s.io/v1beta1",
  "metadata": {
    "name": "kube-scheduler"
  },
  "flags": {
    "v": "2"
  }
})");
  ZpageResponse compact =
      Flagz(flags, {.accept = kFlagzV1beta1, .user_agent = "curl/8.5.0", .query = "pretty=false"});
  EXPECT_EQ(compact.body.find('\n'), compact.body.size() - 1);
  ZpageResponse by_query = Flagz(flags, {.accept = kFlagzV1beta1, .query = "x=1&pretty=true"});
  EXPECT_THAT(by_query.body, HasSubstr("\n  \"kind\""));
  ZpageResponse by_param = Flagz(flags, {.accept = std::string(kFlagzV1beta1) + ";pretty=1"});
  EXPECT_THAT(by_param.body, HasSubstr("\n  \"kind\""));
}

TEST(Flagz, JsonEscapesAsGo) {
  ZpageResponse r = Flagz({{"x", "<a&b>\"\n"}}, {.accept = kFlagzV1beta1});
  EXPECT_THAT(r.body, HasSubstr(R"("x":"\u003ca\u0026b\u003e\"\n")"));
}

TEST(Negotiation, AcceptHeadersAsTheApiserverReadsThem) {
  std::map<std::string, std::string> flags = {{"v", "0"}};
  auto type_for = [&](std::string accept) { return Flagz(flags, {.accept = accept}).content_type; };
  const std::string text = "text/plain; charset=utf-8";
  const std::string v1beta1 = "application/json;g=config.k8s.io;v=v1beta1;as=Flagz";
  EXPECT_EQ(type_for("   "), text);
  EXPECT_EQ(type_for("text/plain"), text);
  EXPECT_EQ(type_for("*/*"), text);
  EXPECT_EQ(type_for("text/*"), text);
  EXPECT_EQ(type_for("*/*;as=Flagz;v=v1beta1;g=config.k8s.io"), v1beta1);
  EXPECT_EQ(type_for("application/*;as=Flagz;v=v1beta1;g=config.k8s.io"), v1beta1);
  // Preference by q, then concrete types before wildcards.
  EXPECT_EQ(type_for("text/plain;q=0.5, " + std::string(kFlagzV1beta1)), v1beta1);
  EXPECT_EQ(type_for("*/*, " + std::string(kFlagzV1beta1)), v1beta1);
  EXPECT_EQ(type_for(std::string(kFlagzV1beta1) + ";q=0.1, text/plain"), text);
  // A clause that cannot be served is skipped.
  EXPECT_EQ(type_for("application/json, text/plain"), text);
  EXPECT_EQ(type_for("text/plain;as=Flagz;v=v1beta1;g=config.k8s.io, */*"), text);
}

TEST(Negotiation, UnservableRequestsGet406) {
  for (std::string accept :
       {"application/json", "text/html", "application/json;as=Statusz;v=v1beta1;g=config.k8s.io",
        "application/json;as=Flagz;v=v1;g=config.k8s.io",
        "application/yaml;as=Flagz;v=v1beta1;g=config.k8s.io",
        "application/json;as=Flagz;v=v1beta1;g=config.k8s.io;stream=watch"}) {
    ZpageResponse r = Flagz({{"v", "0"}}, {.accept = accept});
    EXPECT_EQ(r.status, 406) << accept;
    EXPECT_EQ(r.content_type, "application/json");
    json j = json::parse(r.body);
    EXPECT_EQ(j["reason"], "NotAcceptable");
    EXPECT_EQ(j["code"], 406);
    EXPECT_EQ(j["message"],
              "only the following media types are accepted: application/json, text/plain");
  }
}

class StatuszTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = std::getenv("TZ");
    saved_tz_ = tz ? std::optional<std::string>(tz) : std::nullopt;
    ::setenv("TZ", "UTC", 1);
    ::tzset();
    auto start = api::ParseTime("2026-01-02T03:04:05Z");
    ASSERT_TRUE(start.ok());
    info_.start_time = *start + std::chrono::milliseconds(700);  // reported to the second
    info_.now = *start + std::chrono::seconds(3725);
    info_.compiler = "gcc 12.2.0";
    info_.binary_version = "1.36.3";
    info_.emulation_version = "1.36";
    info_.listed_paths = {"/configz",      "/debug/flags/v", "/debug/pprof/", "/flagz",
                          "/healthz",      "/healthz/ping",  "/livez",        "/metrics",
                          "/metrics/slis", "/readyz"};
  }
  void TearDown() override {
    if (saved_tz_) {
      ::setenv("TZ", saved_tz_->c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
    ::tzset();
  }

  StatuszInfo info_;
  std::optional<std::string> saved_tz_;
};

TEST_F(StatuszTest, Text) {
  ZpageResponse r = Statusz(info_, {}, ":");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(r.body, std::string("\nkube-scheduler statusz\n") + kBanner +
                        "\n"
                        "Started: Fri Jan  2 03:04:05 UTC 2026\n"
                        "Up: 1 hr 02 min 05 sec\n"
                        "Go version: gcc 12.2.0\n"
                        "Binary version: 1.36.3\n"
                        "Emulation version: 1.36\n"
                        "Paths: /configz /debug /flagz /healthz /livez /metrics /readyz\n");
}

TEST_F(StatuszTest, TextWithoutEmulationVersionOrPathsKeepsTheirLines) {
  info_.emulation_version.clear();
  info_.listed_paths.clear();
  ZpageResponse r = Statusz(info_, {}, "=");
  EXPECT_THAT(r.body, EndsWith("Binary version= 1.36.3\n\n\n"));
}

TEST_F(StatuszTest, StructuredV1beta1) {
  ZpageResponse r = Statusz(info_, {.accept = kStatuszV1beta1});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json;g=config.k8s.io;v=v1beta1;as=Statusz");
  EXPECT_EQ(r.body,
            R"({"kind":"Statusz","apiVersion":"config.k8s.io/v1beta1","metadata":{"name":)"
            R"("kube-scheduler"},"startTime":"2026-01-02T03:04:05Z","uptimeSeconds":3725,)"
            R"("goVersion":"gcc 12.2.0","binaryVersion":"1.36.3","emulationVersion":"1.36",)"
            R"("paths":["/configz","/debug","/flagz","/healthz","/livez","/metrics","/readyz"]})"
            "\n");
  info_.listed_paths.clear();
  info_.emulation_version.clear();
  json j = json::parse(Statusz(info_, {.accept = kStatuszV1beta1}).body);
  EXPECT_TRUE(j["paths"].is_null());
  EXPECT_FALSE(j.contains("emulationVersion"));
}

TEST_F(StatuszTest, FlagzKindIsNotAcceptedHere) {
  EXPECT_EQ(Statusz(info_, {.accept = kFlagzV1beta1}).status, 406);
}

TEST(AggregatePaths, FirstSegmentsWithoutApiPaths) {
  EXPECT_THAT(AggregatePaths({"/metrics/slis", "/metrics", "/apis/x", "/api", "/openapi/v2",
                              "/.well-known/openid", "/", "", "/debug/pprof/"}),
              ::testing::ElementsAre("/debug", "/metrics"));
}

TEST(DefaultStatuszInfo, VersionsFromTheReportedKubeSchedulerVersion) {
  StatuszInfo info = DefaultStatuszInfo(DefaultOptions(), WallTime{}, WallTime{}, {"/flagz"});
  EXPECT_EQ(info.binary_version, "1.37.2");
  EXPECT_EQ(info.emulation_version, "1.37");
#if defined(__clang__)  // the thread-safety build
  EXPECT_THAT(info.compiler, StartsWith("clang "));
#else
  EXPECT_THAT(info.compiler, StartsWith("gcc "));
#endif
  EXPECT_EQ(info.compiler, CompilerVersion());
}

}  // namespace
}  // namespace stowage::app::zpages_test
