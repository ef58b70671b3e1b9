// --tls-cipher-suites and --tls-min-version parsing: upstream's names map to OpenSSL's, unknown
// names are errors that name the suite, and the policy refuses non-AEAD and insecure suites.
#include "pkg/server/cipher_suites.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/tls1.h>

#include "pkg/server/tls_context.h"

namespace stowage::server::cipher_suites_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CipherSuitesTest, MapsGoNamesToOpenSsl) {
  auto sel = ParseCipherSuites({"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                                "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
                                "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"});
  ASSERT_TRUE(sel.ok()) << sel.status();
  EXPECT_EQ(sel->tls12_openssl_list,
            "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
            "ECDHE-RSA-CHACHA20-POLY1305");
  EXPECT_TRUE(sel->tls13_names.empty());
}

TEST(CipherSuitesTest, LegacyChachaAliasesAreAcceptedOnce) {
  auto sel = ParseCipherSuites(
      {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"});
  ASSERT_TRUE(sel.ok()) << sel.status();
  EXPECT_EQ(sel->tls12_openssl_list, "ECDHE-RSA-CHACHA20-POLY1305");
}

TEST(CipherSuitesTest, Tls13NamesAreAcceptedWithoutRestrictingTls12) {
  auto sel = ParseCipherSuites({"TLS_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"});
  ASSERT_TRUE(sel.ok()) << sel.status();
  EXPECT_THAT(sel->tls13_names, ElementsAre("TLS_AES_128_GCM_SHA256"));
  EXPECT_EQ(sel->tls12_openssl_list, "ECDHE-RSA-AES256-GCM-SHA384");

  auto only13 = ParseCipherSuites({"TLS_AES_256_GCM_SHA384"});
  ASSERT_TRUE(only13.ok());
  EXPECT_EQ(only13->tls12_openssl_list, "");  // TLS 1.2 clients then have no suite, as in Go
}

TEST(CipherSuitesTest, UnknownNameIsAnErrorNamingIt) {
  auto sel = ParseCipherSuites({"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_MADE_UP"});
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(sel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(sel.status().message(), HasSubstr("TLS_MADE_UP not supported or doesn't exist"));
  // OpenSSL spellings are not Go names.
  EXPECT_FALSE(ParseCipherSuites({"ECDHE-RSA-AES128-GCM-SHA256"}).ok());
}

TEST(CipherSuitesTest, InsecureAndCbcSuitesAreRefused) {
  for (const char* name :
       {"TLS_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_RC4_128_SHA",
        "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256"}) {
    auto sel = ParseCipherSuites({name});
    ASSERT_FALSE(sel.ok()) << name;
    EXPECT_THAT(sel.status().message(), HasSubstr(std::string(name) + " is refused as insecure"));
  }
  auto cbc = ParseCipherSuites({"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"});
  ASSERT_FALSE(cbc.ok());
  EXPECT_THAT(cbc.status().message(), HasSubstr("must use ECDHE with an AEAD cipher"));
}

TEST(CipherSuitesTest, EveryKnownSuiteHasAnOpenSslName) {
  for (const char* name :
       {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_AES_256_CBC_SHA",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "TLS_CHACHA20_POLY1305_SHA256"}) {
    const CipherSuiteInfo* info = FindCipherSuite(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_FALSE(info->openssl_name.empty());
  }
  EXPECT_EQ(FindCipherSuite("TLS_NOPE"), nullptr);
}

TEST(CipherSuitesTest, EmptyListSelectsEcdheAeadDefaults) {
  auto sel = ParseCipherSuites({});
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ(sel->tls12_openssl_list, DefaultTls12CipherList());
  EXPECT_THAT(sel->tls12_openssl_list, HasSubstr("ECDHE-RSA-AES128-GCM-SHA256"));
  EXPECT_THAT(sel->tls12_openssl_list, ::testing::Not(HasSubstr("CBC")));
  EXPECT_THAT(sel->tls12_openssl_list, ::testing::Not(HasSubstr("-SHA:")));
}

TEST(TlsVersionTest, ParsesKubeNames) {
  EXPECT_EQ(*ParseTlsVersion(""), TLS1_2_VERSION);
  EXPECT_EQ(*ParseTlsVersion("VersionTLS10"), TLS1_VERSION);
  EXPECT_EQ(*ParseTlsVersion("VersionTLS11"), TLS1_1_VERSION);
  EXPECT_EQ(*ParseTlsVersion("VersionTLS12"), TLS1_2_VERSION);
  EXPECT_EQ(*ParseTlsVersion("VersionTLS13"), TLS1_3_VERSION);
  auto bad = ParseTlsVersion("TLS1.2");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("unknown tls version \"TLS1.2\""));
  EXPECT_EQ(TlsVersionName(TLS1_3_VERSION), "VersionTLS13");
}

TEST(TlsSettingsTest, CombinesVersionAndSuitesAndReportsEitherError) {
  auto s = MakeTlsSettings("VersionTLS13", {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}, true);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->min_version, TLS1_3_VERSION);
  EXPECT_EQ(s->tls12_cipher_list, "ECDHE-RSA-AES128-GCM-SHA256");
  EXPECT_TRUE(s->request_client_certs);
  EXPECT_THAT(MakeTlsSettings("VersionTLS9", {}, false).status().message(),
              HasSubstr("--tls-min-version"));
  EXPECT_THAT(MakeTlsSettings("", {"X"}, false).status().message(),
              HasSubstr("--tls-cipher-suites"));
}

}  // namespace
}  // namespace stowage::server::cipher_suites_test
