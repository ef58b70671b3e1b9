// Client certificates and front-proxy headers in the DelegatingAuth chain, with the trusted CAs
// from files or from ConfigMap kube-system/extension-apiserver-authentication (refresh, lookup
// failures and their tolerance).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "pkg/auth/delegating_auth.h"
#include "stowage/common/mutex.h"
#include "tests/unit/auth/auth_env.h"

namespace stowage::auth::trust_test {
namespace {

using stowage::testing::MakeCA;
using stowage::testing::TestCert;
using stowage::testing::Usage;
using testing::AuthEnv;
using testing::ConfigMapAnswer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class TrustTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_.ScriptTokens();
    env_.ScriptAccess();
  }
  // Serves the ConfigMap with data.
  void ServeConfigMap(std::map<std::string, std::string> data) {
    env_.authn.api->Handle(kAuthenticationConfigMapPath,
                           [data](const client::HttpRequest&) { return ConfigMapAnswer(data); });
  }
  size_t ConfigMapReads() const { return env_.authn.api->Count(kAuthenticationConfigMapPath); }

  AuthEnv env_;
  TestCert ca_ = MakeCA("client-ca");
};

TEST_F(TrustTest, ClientCertificateFromTheCAFileAuthenticates) {
  env_.options.client_ca_file = env_.WriteFile("ca.crt", ca_.Pem());
  TestCert cluster_ca = MakeCA("cluster-ca");
  ServeConfigMap({{"client-ca-file", cluster_ca.Pem()}});
  ASSERT_TRUE(env_.Make().ok());
  auto cert = env_.ClientCert(ca_, "reader", {"monitoring"});
  Decision d = env_.Get("/metrics", "", {cert.Der()});
  EXPECT_EQ(d.http_status, 200) << d.reason;
  EXPECT_EQ(d.user.name, "reader");
  EXPECT_THAT(d.user.groups, ElementsAre("monitoring", "system:authenticated"));
  EXPECT_EQ(d.user.extra.count(std::string(kCredentialIdKey)), 1u);
  EXPECT_EQ(env_.auth->ClientCABundle(), ca_.Pem());
  // The file replaces the cluster's client CA (the ConfigMap is still read for the front proxy).
  EXPECT_EQ(env_.Get("/metrics", "", {env_.ClientCert(cluster_ca, "reader").Der()}).http_status,
            401);
}

TEST_F(TrustTest, BadClientCertificatesAreUnauthorized) {
  env_.options.client_ca_file = env_.WriteFile("ca.crt", ca_.Pem());
  ASSERT_TRUE(env_.Make().ok());
  TestCert other = MakeCA("other");
  TestCert wrong_ca = env_.ClientCert(other, "reader");
  TestCert server_only = env_.ClientCert(ca_, "reader", {}, Usage::kServerAuth);
  testing::CertSpec old;
  old.common_name = "reader";
  old.not_before = env_.clock.WallNow() - std::chrono::hours(10);
  old.not_after = env_.clock.WallNow() - std::chrono::hours(1);
  TestCert expired = testing::MakeCert(old, &ca_);
  for (const TestCert* c : {&wrong_ca, &server_only, &expired}) {
    Decision d = env_.Get("/healthz", "", {c->Der()});
    EXPECT_EQ(d.http_status, 401);
    EXPECT_THAT(d.reason, HasSubstr("verifying certificate SN=1"));
  }
}

TEST_F(TrustTest, AValidTokenRescuesABadCertificate) {
  env_.options.client_ca_file = env_.WriteFile("ca.crt", ca_.Pem());
  ASSERT_TRUE(env_.Make().ok());
  TestCert other = MakeCA("other");
  Decision d = env_.Get("/metrics", "Bearer valid-reader", {env_.ClientCert(other, "x").Der()});
  EXPECT_EQ(d.http_status, 200) << d.reason;
  EXPECT_EQ(d.user.name, "reader");
}

TEST_F(TrustTest, CertificateWinsOverToken) {
  env_.options.client_ca_file = env_.WriteFile("ca.crt", ca_.Pem());
  ASSERT_TRUE(env_.Make().ok());
  Decision d = env_.Get("/metrics", "Bearer valid-dev", {env_.ClientCert(ca_, "reader").Der()});
  EXPECT_EQ(d.user.name, "reader");
  EXPECT_EQ(env_.TokenReviews(), 0u);
}

TEST_F(TrustTest, WithoutAClientCACertificatesAreIgnored) {
  env_.options.skip_in_cluster_lookup = true;
  ASSERT_TRUE(env_.Make().ok());
  Decision d = env_.Get("/healthz", "", {env_.ClientCert(ca_, "reader").Der()});
  EXPECT_EQ(d.http_status, 200);
  EXPECT_EQ(d.user.name, "system:anonymous");
  EXPECT_EQ(ConfigMapReads(), 0u);
}

TEST_F(TrustTest, UnreadableOrMalformedCAFileFailsConstruction) {
  env_.options.client_ca_file = env_.dir + "/missing.crt";
  Status s = env_.Make();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("unable to load client CA provider"));
  EXPECT_THAT(s.message(), HasSubstr("missing.crt"));
  env_.options.client_ca_file = env_.WriteFile("bad.crt", "not pem");
  s = env_.Make();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("no PEM CERTIFICATE block"));
}

TEST_F(TrustTest, CAFileIsReadAgainOnRefresh) {
  env_.options.client_ca_file = env_.WriteFile("ca.crt", ca_.Pem());
  ASSERT_TRUE(env_.Make().ok());
  TestCert next = MakeCA("next-ca");
  auto old_cert = env_.ClientCert(ca_, "reader");
  auto new_cert = env_.ClientCert(next, "reader");
  EXPECT_EQ(env_.Get("/metrics", "", {new_cert.Der()}).http_status, 401);
  env_.WriteFile("ca.crt", next.Pem());
  ASSERT_TRUE(env_.auth->RefreshTrust().ok());
  EXPECT_EQ(env_.Get("/metrics", "", {new_cert.Der()}).http_status, 200);
  EXPECT_EQ(env_.Get("/metrics", "", {old_cert.Der()}).http_status, 401);
  // A broken file keeps the last good bundle.
  env_.WriteFile("ca.crt", "garbage");
  EXPECT_FALSE(env_.auth->RefreshTrust().ok());
  EXPECT_EQ(env_.Get("/metrics", "", {new_cert.Der()}).http_status, 200);
}

TEST_F(TrustTest, ClientCAComesFromTheConfigMapAndIsRefreshed) {
  ServeConfigMap({{"client-ca-file", ca_.Pem()}});
  ASSERT_TRUE(env_.Make().ok());
  EXPECT_EQ(ConfigMapReads(), 1u);
  auto cert = env_.ClientCert(ca_, "reader");
  EXPECT_EQ(env_.Get("/metrics", "", {cert.Der()}).http_status, 200);

  TestCert rotated = MakeCA("rotated-ca");
  ServeConfigMap({{"client-ca-file", rotated.Pem()}});
  ASSERT_TRUE(env_.auth->RefreshTrust().ok());
  EXPECT_EQ(env_.Get("/metrics", "", {cert.Der()}).http_status, 401);
  EXPECT_EQ(env_.Get("/metrics", "", {env_.ClientCert(rotated, "reader").Der()}).http_status, 200);

  // The key disappearing keeps the last bundle, as upstream's controller does.
  ServeConfigMap({});
  EXPECT_TRUE(env_.auth->RefreshTrust().ok());
  EXPECT_EQ(env_.Get("/metrics", "", {env_.ClientCert(rotated, "reader").Der()}).http_status, 200);
}

TEST_F(TrustTest, MissingConfigMapIsNotFatal) {
  ASSERT_TRUE(env_.Make().ok());  // the fake answers 404
  EXPECT_EQ(ConfigMapReads(), 1u);
  EXPECT_EQ(env_.Get("/healthz", "", {env_.ClientCert(ca_, "reader").Der()}).user.name,
            "system:anonymous");
  ServeConfigMap({{"client-ca-file", ca_.Pem()}});
  ASSERT_TRUE(env_.auth->RefreshTrust().ok());
  EXPECT_EQ(env_.Get("/healthz", "", {env_.ClientCert(ca_, "reader").Der()}).user.name, "reader");
}

TEST_F(TrustTest, LookupFailureIsToleratedByDefault) {
  env_.authn.api->Handle(kAuthenticationConfigMapPath, [](const client::HttpRequest&) {
    return client::HttpResponse{403, R"({"kind":"Status","message":"forbidden","code":403})", ""};
  });
  ASSERT_TRUE(env_.Make().ok());
  EXPECT_EQ(env_.Get("/healthz").http_status, 200);

  env_.options.tolerate_lookup_failure = false;
  Status s = env_.Make();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(),
              HasSubstr("unable to load configmap based request-header-client-ca-file"));
}

TEST_F(TrustTest, WithoutAnAuthenticationClientNothingIsLookedUp) {
  ASSERT_TRUE(env_.Make(/*with_authn=*/false).ok());
  EXPECT_EQ(ConfigMapReads(), 0u);
}

TEST_F(TrustTest, FrontProxyHeadersFromTheConfigMap) {
  TestCert proxy_ca = MakeCA("front-proxy-ca");
  ServeConfigMap({{"requestheader-client-ca-file", proxy_ca.Pem()},
                  {"requestheader-allowed-names", R"(["front-proxy-client"])"},
                  {"requestheader-username-headers", R"(["X-Remote-User"])"},
                  {"requestheader-group-headers", R"(["X-Remote-Group"])"},
                  {"requestheader-extra-headers-prefix", R"(["X-Remote-Extra-"])"},
                  {"requestheader-uid-headers", R"(["X-Remote-Uid"])"}});
  ASSERT_TRUE(env_.Make().ok());
  Request r;
  r.method = "GET";
  r.target = "/metrics";
  r.peer_certificates = {env_.ClientCert(proxy_ca, "front-proxy-client").Der()};
  r.headers = {{"x-remote-user", "reader"},
               {"X-Remote-Group", "a"},
               {"X-Remote-Group", "b"},
               {"X-Remote-Extra-Scopes", "s1"},
               {"x-remote-extra-acme.com%2Fkey", "v"},
               {"X-Remote-Uid", "u-1"}};
  Decision d = env_.auth->Check(r);
  EXPECT_EQ(d.http_status, 200) << d.reason;
  EXPECT_EQ(d.user.name, "reader");
  EXPECT_EQ(d.user.uid, "u-1");
  EXPECT_THAT(d.user.groups, ElementsAre("a", "b", "system:authenticated"));
  EXPECT_THAT(d.user.extra.at("scopes"), ElementsAre("s1"));
  EXPECT_THAT(d.user.extra.at("acme.com/key"), ElementsAre("v"));

  // A proxy certificate with a CN that is not allowed is rejected.
  r.peer_certificates = {env_.ClientCert(proxy_ca, "someone-else").Der()};
  Decision bad = env_.auth->Check(r);
  EXPECT_EQ(bad.http_status, 401);
  EXPECT_THAT(bad.reason,
              HasSubstr("x509: subject with cn=someone-else is not in the allowed list"));

  // Headers without a certificate from the proxy CA assert nothing.
  r.peer_certificates.clear();
  EXPECT_EQ(env_.auth->Check(r).user.name, "system:anonymous");
}

TEST_F(TrustTest, FrontProxyFromFileAndOptions) {
  TestCert proxy_ca = MakeCA("front-proxy-ca");
  env_.options.skip_in_cluster_lookup = true;
  env_.options.request_header.client_ca_file = env_.WriteFile("proxy.crt", proxy_ca.Pem());
  ASSERT_TRUE(env_.Make().ok());
  Request r;
  r.method = "GET";
  r.target = "/metrics";
  r.peer_certificates = {env_.ClientCert(proxy_ca, "any-proxy-name").Der()};
  r.headers = {{"X-Remote-User", "reader"}, {"X-Remote-Group", "g"}};
  Decision d = env_.auth->Check(r);
  EXPECT_EQ(d.http_status, 200) << d.reason;
  EXPECT_EQ(d.user.name, "reader");
  EXPECT_THAT(d.user.groups, ElementsAre("g", "system:authenticated"));
  // Without the username header the proxy certificate is just an unknown client certificate.
  r.headers = {{"X-Remote-Group", "g"}};
  EXPECT_EQ(env_.auth->Check(r).user.name, "system:anonymous");
}

TEST_F(TrustTest, MalformedFrontProxySettingsAreALookupFailure) {
  ServeConfigMap({{"requestheader-username-headers", "not json"}});
  env_.options.tolerate_lookup_failure = false;
  Status s = env_.Make();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("requestheader-username-headers"));
}

}  // namespace
}  // namespace stowage::auth::trust_test

namespace stowage::auth::trust_test {
namespace {

TEST(TrustRefreshLoop, StartPicksUpChangesInTheBackgroundAndStopEndsIt) {
  testing::AuthEnv env;
  testing::TestCert first = testing::MakeCA("first");
  testing::TestCert second = testing::MakeCA("second");
  Mutex mu;
  std::string served = first.Pem();
  env.authn.api->Handle(kAuthenticationConfigMapPath, [&](const client::HttpRequest&) {
    MutexLock l(mu);
    return testing::ConfigMapAnswer({{"client-ca-file", served}});
  });
  env.options.refresh_interval = std::chrono::milliseconds(5);
  ASSERT_TRUE(env.Make().ok());
  EXPECT_EQ(env.auth->ClientCABundle(), first.Pem());
  env.auth->Start();
  env.auth->Start();  // idempotent
  {
    MutexLock l(mu);
    served = second.Pem();
  }
  // Waits for the change; the bound only stops a broken build from hanging.
  for (int i = 0; i < 2000 && env.auth->ClientCABundle() != second.Pem(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(env.auth->ClientCABundle(), second.Pem());
  env.auth->Stop();
  size_t reads = env.authn.api->Count(kAuthenticationConfigMapPath);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(env.authn.api->Count(kAuthenticationConfigMapPath), reads) << "no reads after Stop";
  env.auth->Stop();  // idempotent
}

}  // namespace
}  // namespace stowage::auth::trust_test
