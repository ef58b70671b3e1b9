// Delegated auth against a real kube-apiserver: service-account tokens reviewed with TokenReview,
// access decided by RBAC through SubjectAccessReview, client certificates and front-proxy headers
// trusted through ConfigMap kube-system/extension-apiserver-authentication, and the scheduler's
// own identity holding exactly the rights kube-scheduler's delegated auth needs
// (ClusterRole system:auth-delegator, Role extension-apiserver-authentication-reader).
//
// The cluster is this binary's own: SharedCluster's apiserver has no client CA, and this one is
// started with --client-ca-file and --requestheader-* pointing at CAs the test generates, so it
// can sign client and proxy certificates the apiserver publishes trust for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "pkg/auth/delegating_auth.h"
#include "pkg/client/errors.h"
#include "tests/testing/cluster.h"
#include "tests/testing/objects.h"
#include "tests/testing/test_certs.h"

namespace stowage::auth::auth_test {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using json = nlohmann::json;
using stowage::testing::CertSpec;
using stowage::testing::MakeCA;
using stowage::testing::MakeCert;
using stowage::testing::TestCert;

constexpr char kNs[] = "auth-it";

// Certificates valid from 2000 until tomorrow: good for the apiserver's real clock and for the
// FakeClock (late 2019) the DelegatingAuth under test runs on.
TestCert Leaf(const TestCert& ca, std::string cn, std::vector<std::string> orgs = {}) {
  CertSpec s;
  s.common_name = std::move(cn);
  s.organizations = std::move(orgs);
  s.not_before = std::chrono::system_clock::time_point(std::chrono::seconds(946684800));
  s.not_after = std::chrono::system_clock::now() + std::chrono::hours(24);
  s.serial = 7;
  return MakeCert(s, &ca);
}

Status Create(client::RestClient& c, const std::string& path, const json& obj) {
  auto r = c.Post(path, obj.dump());
  if (!r.ok() && !client::IsAlreadyExists(r.status())) return r.status();
  return OkStatus();
}

json Subject(const std::string& kind, const std::string& name) {
  json s = {{"kind", kind}, {"name", name}};
  if (kind == "ServiceAccount") s["namespace"] = kNs;
  if (kind == "Group") s["apiGroup"] = "rbac.authorization.k8s.io";
  return s;
}

json ClusterRoleBinding(const std::string& name, const std::string& role, const json& subject) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRoleBinding"},
          {"metadata", {{"name", name}}},
          {"roleRef",
           {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}}},
          {"subjects", json::array({subject})}};
}

// Everything the tests share: the cluster, its CAs, and the identities made in it.
struct World {
  std::string dir;
  std::optional<TestCert> client_ca, proxy_ca;
  std::unique_ptr<stowage::testing::TestCluster> cluster;
  std::string reader_token;     // SA allowed GET /metrics
  std::string scheduler_token;  // SA with the rights of delegated auth
  std::string nobody_token;     // SA with no rights at all

  client::RestClient& Admin() { return cluster->Admin(); }

  StatusOr<std::string> Token(const std::string& sa) {
    const std::string sa_path = "/api/v1/namespaces/" + std::string(kNs) + "/serviceaccounts";
    json sa_obj = {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", sa}}}};
    if (Status s = Create(Admin(), sa_path, sa_obj); !s.ok()) return s;
    json req = {{"apiVersion", "authentication.k8s.io/v1"},
                {"kind", "TokenRequest"},
                {"spec", {{"expirationSeconds", 3600}}}};
    auto r = Admin().Post(sa_path + "/" + sa + "/token", req.dump());
    if (!r.ok()) return r.status();
    return json::parse(*r)["status"]["token"].get<std::string>();
  }

  // A client acting with token, configured as upstream configures delegated-auth clients.
  std::unique_ptr<client::RestClient> ClientWithToken(const std::string& token) {
    client::RestConfig cfg = cluster->AdminConfig();
    cfg.bearer_token = token;
    cfg.qps = 200;
    cfg.burst = 400;
    cfg.timeout = std::chrono::seconds(10);
    auto c = client::RestClient::New(cfg);
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? std::move(*c) : nullptr;
  }

  // Waits until RBAC in the apiserver answers `allowed` for user on GET path (its informers
  // apply bindings shortly after they are written).
  bool WaitForAccess(const std::string& user, const std::vector<std::string>& groups,
                     const std::string& path, bool allowed) {
    json sar = {{"apiVersion", "authorization.k8s.io/v1"},
                {"kind", "SubjectAccessReview"},
                {"spec",
                 {{"user", user},
                  {"groups", groups},
                  {"nonResourceAttributes", {{"path", path}, {"verb", "get"}}}}}};
    for (int i = 0; i < 600; ++i) {
      auto r = Admin().Post(std::string(kSubjectAccessReviewPath), sar.dump());
      if (r.ok() && json::parse(*r)["status"].value("allowed", false) == allowed) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  Status SetUp() {
    char tmpl[] = "/tmp/stowage-auth-it-XXXXXX";
    if (char* d = mkdtemp(tmpl)) dir = d;
    client_ca.emplace(MakeCA("stowage-it-client-ca"));
    proxy_ca.emplace(MakeCA("stowage-it-front-proxy-ca"));
    std::ofstream(dir + "/client-ca.crt") << client_ca->Pem();
    std::ofstream(dir + "/proxy-ca.crt") << proxy_ca->Pem();
    cluster = std::make_unique<stowage::testing::TestCluster>(
        std::vector<std::string>{"--client-ca-file=" + dir + "/client-ca.crt",
                                 "--requestheader-client-ca-file=" + dir + "/proxy-ca.crt",
                                 "--requestheader-allowed-names=front-proxy-client",
                                 "--requestheader-username-headers=X-Remote-User",
                                 "--requestheader-group-headers=X-Remote-Group",
                                 "--requestheader-extra-headers-prefix=X-Remote-Extra-"});
    if (Status s = cluster->Start(); !s.ok()) return s;
    if (Status s = stowage::testing::EnsureNamespace(Admin(), kNs); !s.ok()) return s;

    json metrics_role = {
        {"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", "ClusterRole"},
        {"metadata", {{"name", "stowage-it-metrics-reader"}}},
        {"rules", json::array({{{"nonResourceURLs", {"/metrics"}}, {"verbs", {"get"}}}})}};
    const std::string crb = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
    std::vector<std::pair<std::string, json>> objects = {
        {"/apis/rbac.authorization.k8s.io/v1/clusterroles", metrics_role},
        {crb, ClusterRoleBinding("stowage-it-reader", "stowage-it-metrics-reader",
                                 Subject("ServiceAccount", "metrics-reader"))},
        {crb, ClusterRoleBinding("stowage-it-reader-group", "stowage-it-metrics-reader",
                                 Subject("Group", "metrics-readers"))},
        {crb, ClusterRoleBinding("stowage-it-auth-delegator", "system:auth-delegator",
                                 Subject("ServiceAccount", "scheduler"))},
        {"/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings",
         {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "RoleBinding"},
          {"metadata", {{"name", "stowage-it-auth-reader"}, {"namespace", "kube-system"}}},
          {"roleRef",
           {{"apiGroup", "rbac.authorization.k8s.io"},
            {"kind", "Role"},
            {"name", "extension-apiserver-authentication-reader"}}},
          {"subjects", json::array({Subject("ServiceAccount", "scheduler")})}}}};
    for (const auto& [path, obj] : objects) {
      if (Status s = Create(Admin(), path, obj); !s.ok()) return s.WithPrefix(path);
    }
    for (auto [sa, token] :
         {std::pair{"metrics-reader", &reader_token}, std::pair{"scheduler", &scheduler_token},
          std::pair{"nobody", &nobody_token}}) {
      auto t = Token(sa);
      if (!t.ok()) return t.status().WithPrefix(std::string("token of ") + sa);
      *token = *t;
    }
    std::string reader = "system:serviceaccount:" + std::string(kNs) + ":metrics-reader";
    if (!WaitForAccess(reader, {"system:serviceaccounts"}, "/metrics", true)) {
      return DeadlineExceededError("RBAC never allowed the reader");
    }
    // The apiserver publishes its CAs in the ConfigMap shortly after it starts.
    for (int i = 0; i < 600; ++i) {
      auto cm = Admin().Get(kAuthenticationConfigMapPath);
      if (cm.ok() && cm->find("requestheader-client-ca-file") != std::string::npos &&
          cm->find("\"client-ca-file\"") != std::string::npos) {
        return OkStatus();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return DeadlineExceededError("the apiserver never published its CAs in the ConfigMap");
  }

  ~World() {
    cluster.reset();
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};

World* g_world = nullptr;

class AuthIntegration : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    g_world = new World();
    Status s = g_world->SetUp();
    ASSERT_TRUE(s.ok()) << s;
  }
  static void TearDownTestSuite() {
    delete g_world;
    g_world = nullptr;
  }

  void SetUp() override {
    ASSERT_NE(g_world, nullptr);
    scheduler_ = g_world->ClientWithToken(g_world->scheduler_token);
    ASSERT_NE(scheduler_, nullptr);
  }

  // A DelegatingAuth with the scheduler's identity for both reviews, as kube-scheduler runs
  // with --authentication-kubeconfig and --authorization-kubeconfig.
  std::unique_ptr<DelegatingAuth> Make(Options o = {}) {
    auto a = DelegatingAuth::New(o, scheduler_.get(), scheduler_.get(), clock_);
    EXPECT_TRUE(a.ok()) << a.status();
    return a.ok() ? std::move(*a) : nullptr;
  }

  World& w() { return *g_world; }
  FakeClock clock_;
  std::unique_ptr<client::RestClient> scheduler_;
};

TEST_F(AuthIntegration, ServiceAccountTokenWithRbacGrantReadsMetricsOnly) {
  auto auth = Make();
  ASSERT_NE(auth, nullptr);
  std::string bearer = "Bearer " + w().reader_token;
  Decision d = auth->Check("GET", "/metrics", bearer, {});
  EXPECT_EQ(d.http_status, 200) << d.reason;
  EXPECT_EQ(d.user.name, "system:serviceaccount:auth-it:metrics-reader");
  EXPECT_THAT(d.user.groups, Contains("system:serviceaccounts:auth-it"));
  EXPECT_THAT(d.user.groups, Contains("system:authenticated"));

  Decision configz = auth->Check("GET", "/configz", bearer, {});
  EXPECT_EQ(configz.http_status, 403);
  EXPECT_EQ(ResponseBody(configz),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
            R"("forbidden: User \"system:serviceaccount:auth-it:metrics-reader\" cannot get )"
            R"(path \"/configz\"","reason":"Forbidden","details":{},"code":403})"
            "\n");
  EXPECT_EQ(auth->Check("POST", "/metrics", bearer, {}).http_status, 403) << "verb post";
}

TEST_F(AuthIntegration, GarbageTokenIsUnauthorizedAndNoCredentialsIsAnonymous) {
  auto auth = Make();
  ASSERT_NE(auth, nullptr);
  for (const char* path : {"/metrics", "/healthz"}) {
    Decision d = auth->Check("GET", path, "Bearer not-a-real-token", {});
    EXPECT_EQ(d.http_status, 401) << path;
    EXPECT_THAT(ResponseBody(d), HasSubstr(R"("reason":"Unauthorized","code":401)"));
  }
  Decision metrics = auth->Check("GET", "/metrics", "", {});
  EXPECT_EQ(metrics.http_status, 403);
  EXPECT_THAT(ResponseBody(metrics),
              HasSubstr(R"(forbidden: User \"system:anonymous\" cannot get path \"/metrics\")"));
  Decision healthz = auth->Check("GET", "/healthz", "", {});
  EXPECT_EQ(healthz.http_status, 200);
  EXPECT_EQ(healthz.user.name, "system:anonymous");
}

TEST_F(AuthIntegration, ClientCertificateSignedByTheClusterClientCA) {
  auto auth = Make();
  ASSERT_NE(auth, nullptr);
  EXPECT_EQ(auth->ClientCABundle(), w().client_ca->Pem()) << "read from the ConfigMap";
  TestCert cert = Leaf(*w().client_ca, "cert-user", {"metrics-readers"});
  Decision d = auth->Check("GET", "/metrics", "", {cert.Der()});
  EXPECT_EQ(d.http_status, 200) << d.reason;
  EXPECT_EQ(d.user.name, "cert-user");
  EXPECT_THAT(d.user.groups, ElementsAre("metrics-readers", "system:authenticated"));
  Decision configz = auth->Check("GET", "/configz", "", {cert.Der()});
  EXPECT_EQ(configz.http_status, 403);
  EXPECT_THAT(ResponseBody(configz), HasSubstr(R"(User \"cert-user\" cannot get path)"));

  TestCert stranger_ca = MakeCA("stranger");
  Decision bad = auth->Check("GET", "/healthz", "", {Leaf(stranger_ca, "cert-user").Der()});
  EXPECT_EQ(bad.http_status, 401);
}

TEST_F(AuthIntegration, FrontProxyHeadersFromTheClusterConfiguration) {
  auto auth = Make();
  ASSERT_NE(auth, nullptr);
  Request r;
  r.method = "GET";
  r.target = "/metrics";
  r.peer_certificates = {Leaf(*w().proxy_ca, "front-proxy-client").Der()};
  r.headers = {{"X-Remote-User", "proxied"}, {"X-Remote-Group", "metrics-readers"}};
  Decision d = auth->Check(r);
  EXPECT_EQ(d.http_status, 200) << d.reason;
  EXPECT_EQ(d.user.name, "proxied");
  r.peer_certificates = {Leaf(*w().proxy_ca, "not-the-proxy").Der()};
  EXPECT_EQ(auth->Check(r).http_status, 401);
}

TEST_F(AuthIntegration, AnswersAreCachedUntilTheirTtl) {
  auto token = w().Token("short-lived");
  ASSERT_TRUE(token.ok()) << token.status();
  const std::string user = "system:serviceaccount:auth-it:short-lived";
  const std::string crb = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
  ASSERT_TRUE(Create(w().Admin(), crb,
                     ClusterRoleBinding("stowage-it-short-lived", "stowage-it-metrics-reader",
                                        Subject("ServiceAccount", "short-lived")))
                  .ok());
  ASSERT_TRUE(w().WaitForAccess(user, {"system:serviceaccounts"}, "/metrics", true));
  auto auth = Make();
  ASSERT_NE(auth, nullptr);
  std::string bearer = "Bearer " + *token;
  ASSERT_EQ(auth->Check("GET", "/metrics", bearer, {}).http_status, 200);
  ASSERT_TRUE(w().Admin().Delete(crb + "/stowage-it-short-lived").ok());
  ASSERT_TRUE(w().WaitForAccess(user, {"system:serviceaccounts"}, "/metrics", false));

  clock_.Advance(std::chrono::seconds(9));
  EXPECT_EQ(auth->Check("GET", "/metrics", bearer, {}).http_status, 200) << "cached allow";
  EXPECT_EQ(auth->access_reviewer()->reviews_sent(), 1u);
  EXPECT_EQ(auth->token_authenticator()->reviews_sent(), 1u);
  clock_.Advance(std::chrono::seconds(2));
  EXPECT_EQ(auth->Check("GET", "/metrics", bearer, {}).http_status, 403) << "reviewed again";
  EXPECT_EQ(auth->access_reviewer()->reviews_sent(), 2u);
  EXPECT_EQ(auth->token_authenticator()->reviews_sent(), 2u);
}

TEST_F(AuthIntegration, IdentityWithoutDelegationRights) {
  auto nobody = w().ClientWithToken(w().nobody_token);
  ASSERT_NE(nobody, nullptr);
  // Reading the ConfigMap is forbidden: tolerated by default (front proxy off, warnings) ...
  auto tolerated = DelegatingAuth::New({}, nobody.get(), nobody.get(), clock_);
  ASSERT_TRUE(tolerated.ok()) << tolerated.status();
  // ... and fatal when not tolerated.
  Options strict;
  strict.tolerate_lookup_failure = false;
  auto failed = DelegatingAuth::New(strict, nobody.get(), nobody.get(), clock_);
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(), HasSubstr("request-header-client-ca-file"));
  EXPECT_THAT(failed.status().message(), HasSubstr("403"));

  // Token reviews are forbidden: every token gets 401.
  Decision d = (*tolerated)->Check("GET", "/metrics", "Bearer " + w().reader_token, {});
  EXPECT_EQ(d.http_status, 401);
  EXPECT_THAT(d.reason, HasSubstr("tokenreviews"));
  // Access reviews are forbidden: 500 for anything not always allowed.
  Decision anon = (*tolerated)->Check("GET", "/metrics", "", {});
  EXPECT_EQ(anon.http_status, 500);
  EXPECT_THAT(ResponseBody(anon), HasSubstr("Internal Server Error: \"/metrics\": "));
  EXPECT_EQ((*tolerated)->Check("GET", "/healthz", "", {}).http_status, 200);
}

}  // namespace
}  // namespace stowage::auth::auth_test
