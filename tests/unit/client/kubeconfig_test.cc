// Kubeconfig variants: inline and file credentials, tokens, contexts, --master, in-cluster, and
// the errors for what stowage refuses.
#include "pkg/client/kubeconfig.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "pkg/common/file.h"

namespace stowage::client::kubeconfig_test {
namespace {

using ::testing::HasSubstr;

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/stowage-kc-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& content) {
    std::string p = dir_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    std::ofstream(p) << content;
    return p;
  }
  std::string dir_;
};

constexpr char kCa[] = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
constexpr char kCert[] = "-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n";
constexpr char kKey[] = "-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n";

std::string TwoContexts(const std::string& cluster_extra, const std::string& user_a) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: a\n"
         "clusters:\n"
         "- name: c1\n  cluster:\n    server: https://10.0.0.1:6443\n" +
         cluster_extra +
         "- name: c2\n  cluster:\n    server: https://[fd00::1]:443/prefix/\n"
         "users:\n"
         "- name: ua\n  user:\n" +
         user_a +
         "- name: ub\n  user:\n    token: tok-b\n"
         "contexts:\n"
         "- name: a\n  context: {cluster: c1, user: ua}\n"
         "- name: b\n  context: {cluster: c2, user: ub, namespace: x}\n";
}

TEST_F(KubeconfigTest, InlineDataIsDecoded) {
  std::string yaml = TwoContexts("    certificate-authority-data: " + Base64Encode(kCa) +
                                     "\n    tls-server-name: api.internal\n",
                                 "    client-certificate-data: " + Base64Encode(kCert) +
                                     "\n    client-key-data: " + Base64Encode(kKey) + "\n");
  auto c = LoadKubeconfig(Write("config", yaml));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "https://10.0.0.1:6443");
  EXPECT_EQ(c->ca_pem, kCa);
  EXPECT_EQ(c->client_cert_pem, kCert);
  EXPECT_EQ(c->client_key_pem, kKey);
  EXPECT_EQ(c->tls_server_name, "api.internal");
  EXPECT_THAT(c->source, HasSubstr("context \"a\""));
}

TEST_F(KubeconfigTest, FilePathsAreRelativeToTheKubeconfig) {
  Write("pki/ca.crt", kCa);
  Write("pki/client.crt", kCert);
  Write("pki/client.key", kKey);
  std::string yaml = TwoContexts("    certificate-authority: pki/ca.crt\n",
                                 "    client-certificate: pki/client.crt\n"
                                 "    client-key: " +
                                     dir_ + "/pki/client.key\n");
  auto c = LoadKubeconfig(Write("sub/../config", yaml));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->ca_pem, kCa);
  EXPECT_EQ(c->client_cert_pem, kCert);
  EXPECT_EQ(c->client_key_pem, kKey);
}

TEST_F(KubeconfigTest, TokensAndTokenFiles) {
  auto c = LoadKubeconfig(Write("config", TwoContexts("", "    token: tok-a\n")));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->bearer_token, "tok-a");
  auto f = LoadKubeconfig(Write("config2", TwoContexts("", "    tokenFile: token\n")));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->bearer_token_file, dir_ + "/token");
}

TEST_F(KubeconfigTest, ExplicitContextAndMasterOverride) {
  std::string path = Write("config", TwoContexts("", "    token: tok-a\n"));
  auto b = LoadKubeconfig(path, "b");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->server, "https://[fd00::1]:443/prefix/");
  EXPECT_EQ(b->bearer_token, "tok-b");
  auto m = LoadKubeconfig(path, "", "https://127.0.0.1:9443");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->server, "https://127.0.0.1:9443");
  EXPECT_EQ(m->bearer_token, "tok-a");
}

TEST_F(KubeconfigTest, ErrorsSayWhatAndWhere) {
  auto missing_ctx = LoadKubeconfig(Write("c1", TwoContexts("", "    token: t\n")), "nope");
  EXPECT_TRUE(missing_ctx.status().code() == StatusCode::kNotFound);
  EXPECT_THAT(missing_ctx.status().message(), HasSubstr("context \"nope\" not found"));

  auto no_current = ParseKubeconfig("clusters: []\n", dir_, "kc");
  EXPECT_THAT(no_current.status().message(), HasSubstr("no current-context"));

  auto insecure = LoadKubeconfig(
      Write("c2", TwoContexts("    insecure-skip-tls-verify: true\n", "    token: t\n")));
  EXPECT_THAT(insecure.status().message(), HasSubstr("insecure-skip-tls-verify"));

  auto exec = LoadKubeconfig(Write("c3", TwoContexts("", "    exec: {command: aws}\n")));
  EXPECT_EQ(exec.status().code(), StatusCode::kUnimplemented);

  auto half = LoadKubeconfig(
      Write("c4", TwoContexts("", "    client-certificate-data: " + Base64Encode(kCert) + "\n")));
  EXPECT_THAT(half.status().message(), HasSubstr("both a certificate and a key"));

  auto bad64 = LoadKubeconfig(
      Write("c5", TwoContexts("    certificate-authority-data: '%%%'\n", "    token: t\n")));
  EXPECT_THAT(bad64.status().message(), HasSubstr("certificate-authority-data"));

  auto no_file = LoadKubeconfig(
      Write("c6", TwoContexts("    certificate-authority: nope.crt\n", "    token: t\n")));
  EXPECT_THAT(no_file.status().message(), HasSubstr("nope.crt"));

  EXPECT_THAT(ParseKubeconfig("a: [1, 2\n", dir_, "kc").status().message(),
              HasSubstr("malformed kubeconfig"));
  EXPECT_THAT(LoadKubeconfig(dir_ + "/absent").status().message(), HasSubstr("absent"));
}

TEST_F(KubeconfigTest, DeeplyNestedYamlIsAnErrorNotACrash) {
  std::string deep(50000, '[');
  auto r = ParseKubeconfig(deep, dir_, "kc");
  EXPECT_FALSE(r.ok());
}

TEST_F(KubeconfigTest, InClusterUsesTheServiceAccount) {
  Write("sa/ca.crt", kCa);
  Write("sa/token", "sa-token\n");
  setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto c = InClusterConfig(dir_ + "/sa");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "https://10.96.0.1:443");
  EXPECT_EQ(c->ca_pem, kCa);
  EXPECT_EQ(c->bearer_token_file, dir_ + "/sa/token");
  unsetenv("KUBERNETES_SERVICE_HOST");
  auto none = BuildConfig("", "");
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.status().message(), HasSubstr("KUBERNETES_SERVICE_HOST"));
  auto master_only = BuildConfig("https://1.2.3.4:6443", "");
  ASSERT_TRUE(master_only.ok());
  EXPECT_EQ(master_only->server, "https://1.2.3.4:6443");
}

}  // namespace
}  // namespace stowage::client::kubeconfig_test
