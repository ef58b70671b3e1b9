// The generated certificate: upstream's names, SANs, chain, validity and usages.
#include "pkg/server/self_signed.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "pkg/server/tls_context.h"

namespace stowage::server::self_signed_test {
namespace {

using ::testing::ElementsAre;
using ::testing::MatchesRegex;
using ::testing::UnorderedElementsAre;

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;

std::vector<X509Ptr> ParseChain(const std::string& pem) {
  std::vector<X509Ptr> out;
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  while (X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) out.emplace_back(x);
  BIO_free(bio);
  return out;
}

std::string CommonName(X509_NAME* name) {
  char buf[256];
  int n = X509_NAME_get_text_by_NID(name, NID_commonName, buf, sizeof(buf));
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

void Sans(X509* x, std::vector<std::string>* dns, std::vector<std::string>* ips) {
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(x, NID_subject_alt_name, nullptr, nullptr));
  ASSERT_NE(names, nullptr);
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    GENERAL_NAME* g = sk_GENERAL_NAME_value(names, i);
    if (g->type == GEN_DNS) {
      dns->emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(g->d.dNSName)));
    } else if (g->type == GEN_IPADD) {
      const unsigned char* p = ASN1_STRING_get0_data(g->d.iPAddress);
      int len = ASN1_STRING_length(g->d.iPAddress);
      char buf[64];
      inet_ntop(len == 4 ? AF_INET : AF_INET6, p, buf, sizeof(buf));
      ips->emplace_back(buf);
    }
  }
  GENERAL_NAMES_free(names);
}

TEST(SelfSignedTest, UnspecifiedBindAddressGetsLocalhostSans) {
  auto pem = GenerateSelfSignedCertKey(SelfSignedOptionsForBindAddress("0.0.0.0"));
  ASSERT_TRUE(pem.ok()) << pem.status();
  auto chain = ParseChain(pem->cert_pem);
  ASSERT_EQ(chain.size(), 2u);  // serving certificate, then its CA
  std::vector<std::string> dns, ips;
  Sans(chain[0].get(), &dns, &ips);
  EXPECT_THAT(dns, ElementsAre("localhost"));
  EXPECT_THAT(ips, ElementsAre("127.0.0.1"));
  EXPECT_THAT(CommonName(X509_get_subject_name(chain[0].get())), MatchesRegex("localhost@[0-9]+"));
  EXPECT_THAT(CommonName(X509_get_subject_name(chain[1].get())),
              MatchesRegex("localhost-ca@[0-9]+"));
  EXPECT_EQ(CommonName(X509_get_issuer_name(chain[0].get())),
            CommonName(X509_get_subject_name(chain[1].get())));
}

TEST(SelfSignedTest, SpecificBindAddressIsAnIpSan) {
  auto pem = GenerateSelfSignedCertKey(SelfSignedOptionsForBindAddress("10.1.2.3"));
  ASSERT_TRUE(pem.ok()) << pem.status();
  auto chain = ParseChain(pem->cert_pem);
  ASSERT_EQ(chain.size(), 2u);
  std::vector<std::string> dns, ips;
  Sans(chain[0].get(), &dns, &ips);
  EXPECT_THAT(dns, ElementsAre("localhost"));  // the host itself
  EXPECT_THAT(ips, UnorderedElementsAre("127.0.0.1", "10.1.2.3"));

  auto v6 = GenerateSelfSignedCertKey(SelfSignedOptionsForBindAddress("::1"));
  ASSERT_TRUE(v6.ok());
  std::vector<std::string> dns6, ips6;
  Sans(ParseChain(v6->cert_pem)[0].get(), &dns6, &ips6);
  EXPECT_THAT(ips6, UnorderedElementsAre("127.0.0.1", "::1"));
}

TEST(SelfSignedTest, ServingCertIsSignedByTheCaValidForAYearForServerAuth) {
  auto pem = GenerateSelfSignedCertKey(SelfSignedOptions{});
  ASSERT_TRUE(pem.ok()) << pem.status();
  auto chain = ParseChain(pem->cert_pem);
  ASSERT_EQ(chain.size(), 2u);
  X509* leaf = chain[0].get();
  X509* ca = chain[1].get();
  EVP_PKEY* ca_key = X509_get0_pubkey(ca);
  EXPECT_EQ(X509_verify(leaf, ca_key), 1);
  EXPECT_EQ(X509_verify(ca, ca_key), 1);  // self-signed CA
  EXPECT_EQ(X509_check_ca(ca), 1);
  EXPECT_EQ(X509_check_ca(leaf), 0);
  EXPECT_TRUE(X509_get_extended_key_usage(leaf) & XKU_SSL_SERVER);
  EXPECT_FALSE(X509_get_extended_key_usage(leaf) & XKU_SSL_CLIENT);

  int days = 0, secs = 0;
  ASSERT_EQ(ASN1_TIME_diff(&days, &secs, X509_get0_notBefore(leaf), X509_get0_notAfter(leaf)), 1);
  EXPECT_EQ(days, 365);
  time_t now = time(nullptr);
  EXPECT_LT(X509_cmp_time(X509_get0_notBefore(leaf), &now), 0);  // already valid (an hour early)
  EXPECT_GT(X509_cmp_time(X509_get0_notAfter(leaf), &now), 0);

  // Serials are positive and differ between the two certificates.
  EXPECT_EQ(ASN1_INTEGER_cmp(X509_get0_serialNumber(leaf), X509_get0_serialNumber(ca)) == 0, false);

  // The key belongs to the serving certificate: a TLS context accepts the pair.
  auto settings = MakeTlsSettings("", {}, false);
  ASSERT_TRUE(settings.ok());
  EXPECT_TRUE(NewServerTlsContext(*settings, *pem).ok());
}

TEST(SelfSignedTest, MismatchedKeyIsRefusedByTheTlsContext) {
  auto a = GenerateSelfSignedCertKey(SelfSignedOptions{});
  auto b = GenerateSelfSignedCertKey(SelfSignedOptions{});
  ASSERT_TRUE(a.ok() && b.ok());
  CertKeyPem mixed{a->cert_pem, b->key_pem};
  auto ctx = NewServerTlsContext(*MakeTlsSettings("", {}, false), mixed, "a.crt", "b.key");
  ASSERT_FALSE(ctx.ok());
  EXPECT_THAT(ctx.status().message(),
              ::testing::HasSubstr("private key b.key does not match certificate a.crt"));
  auto garbage =
      NewServerTlsContext(*MakeTlsSettings("", {}, false), {"junk", a->key_pem}, "x.crt", "x.key");
  ASSERT_FALSE(garbage.ok());
  EXPECT_THAT(garbage.status().message(), ::testing::HasSubstr("x.crt: no PEM certificate found"));
}

}  // namespace
}  // namespace stowage::server::self_signed_test
