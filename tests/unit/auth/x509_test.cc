// Client-certificate verification and CommonNameUserConversion, on certificates made in the test.
#include "pkg/auth/x509.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/test_certs.h"

namespace stowage::auth::x509_test {
namespace {

using stowage::testing::CertSpec;
using stowage::testing::MakeCA;
using stowage::testing::MakeCert;
using stowage::testing::Usage;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class X509Test : public ::testing::Test {
 protected:
  // Certificates valid around the fake clock's wall time.
  CertSpec Leaf(std::string cn, std::vector<std::string> orgs = {}) {
    CertSpec s;
    s.common_name = std::move(cn);
    s.organizations = std::move(orgs);
    s.not_before = clock_.WallNow() - std::chrono::hours(1);
    s.not_after = clock_.WallNow() + std::chrono::hours(1);
    s.serial = 4242;
    return s;
  }
  std::shared_ptr<const CABundle> Bundle(const testing::TestCert& ca) {
    auto b = CABundle::Parse(ca.Pem(), "test CA");
    EXPECT_TRUE(b.ok()) << b.status();
    return *b;
  }

  FakeClock clock_;
  testing::TestCert ca_ = MakeCA("test-ca");
};

TEST_F(X509Test, VerifiedCertificateGivesCommonNameAndOrganizations) {
  auto leaf = MakeCert(Leaf("alice", {"team-a", "team-b"}), &ca_);
  auto u = AuthenticateClientCertificate(Bundle(ca_).get(), {leaf.Der()}, clock_.WallNow());
  ASSERT_TRUE(u.ok()) << u.status();
  ASSERT_TRUE(u->has_value());
  EXPECT_EQ((*u)->name, "alice");
  EXPECT_THAT((*u)->groups, ElementsAre("team-a", "team-b"));
  EXPECT_EQ((*u)->uid, "");
  auto subject = ParseCertificateSubject(leaf.Der());
  ASSERT_TRUE(subject.ok());
  EXPECT_THAT((*u)->extra.at(std::string(kCredentialIdKey)),
              ElementsAre("X509SHA256=" + subject->sha256_hex));
  EXPECT_EQ(subject->sha256_hex.size(), 64u);
}

TEST_F(X509Test, CertificateFromAnotherCAIsAnError) {
  auto other = MakeCA("other-ca");
  auto leaf = MakeCert(Leaf("mallory"), &other);
  auto u = AuthenticateClientCertificate(Bundle(ca_).get(), {leaf.Der()}, clock_.WallNow());
  ASSERT_FALSE(u.ok());
  EXPECT_THAT(u.status().message(), StartsWith("verifying certificate SN=4242, SKID="));
  EXPECT_THAT(u.status().message(), HasSubstr("unable to get local issuer certificate"));
}

TEST_F(X509Test, ExpiredAndNotYetValidCertificatesAreErrors) {
  CertSpec expired = Leaf("old");
  expired.not_before = clock_.WallNow() - std::chrono::hours(48);
  expired.not_after = clock_.WallNow() - std::chrono::hours(24);
  auto e = AuthenticateClientCertificate(Bundle(ca_).get(), {MakeCert(expired, &ca_).Der()},
                                         clock_.WallNow());
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("certificate has expired"));

  CertSpec future = Leaf("new");
  future.not_before = clock_.WallNow() + std::chrono::hours(24);
  future.not_after = clock_.WallNow() + std::chrono::hours(48);
  auto f = AuthenticateClientCertificate(Bundle(ca_).get(), {MakeCert(future, &ca_).Der()},
                                         clock_.WallNow());
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("not yet valid"));
}

TEST_F(X509Test, ValidityIsJudgedAtTheTimeGiven) {
  auto leaf = MakeCert(Leaf("alice"), &ca_);
  auto bundle = Bundle(ca_);
  EXPECT_TRUE(AuthenticateClientCertificate(bundle.get(), {leaf.Der()}, clock_.WallNow()).ok());
  clock_.Advance(std::chrono::hours(2));
  EXPECT_FALSE(AuthenticateClientCertificate(bundle.get(), {leaf.Der()}, clock_.WallNow()).ok());
}

TEST_F(X509Test, ServerAuthOnlyCertificateIsRejected) {
  CertSpec s = Leaf("server");
  s.usage = Usage::kServerAuth;
  auto u =
      AuthenticateClientCertificate(Bundle(ca_).get(), {MakeCert(s, &ca_).Der()}, clock_.WallNow());
  ASSERT_FALSE(u.ok());
  EXPECT_THAT(u.status().message(), HasSubstr("unsuitable certificate purpose"));
}

TEST_F(X509Test, CertificateWithoutExtendedKeyUsageIsAccepted) {
  CertSpec s = Leaf("any-usage");
  s.usage = Usage::kNoExtendedUsage;
  auto u =
      AuthenticateClientCertificate(Bundle(ca_).get(), {MakeCert(s, &ca_).Der()}, clock_.WallNow());
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ((*u)->name, "any-usage");
}

TEST_F(X509Test, IntermediatesSentByTheClientCompleteTheChain) {
  CertSpec mid_spec = Leaf("intermediate");
  mid_spec.is_ca = true;
  auto mid = MakeCert(mid_spec, &ca_);
  auto leaf = MakeCert(Leaf("bob", {"ops"}), &mid);
  auto bundle = Bundle(ca_);
  EXPECT_FALSE(AuthenticateClientCertificate(bundle.get(), {leaf.Der()}, clock_.WallNow()).ok());
  auto u = AuthenticateClientCertificate(bundle.get(), {leaf.Der(), mid.Der()}, clock_.WallNow());
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ((*u)->name, "bob");
}

TEST_F(X509Test, AnIntermediateInTheBundleIsATrustAnchor) {
  CertSpec mid_spec = Leaf("intermediate");
  mid_spec.is_ca = true;
  auto mid = MakeCert(mid_spec, &ca_);
  auto leaf = MakeCert(Leaf("carol"), &mid);
  auto u = AuthenticateClientCertificate(Bundle(mid).get(), {leaf.Der()}, clock_.WallNow());
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ((*u)->name, "carol");
}

TEST_F(X509Test, EmptyCommonNameOrNoCertificateDoesNotApply) {
  auto leaf = MakeCert(Leaf(""), &ca_);
  auto u = AuthenticateClientCertificate(Bundle(ca_).get(), {leaf.Der()}, clock_.WallNow());
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_FALSE(u->has_value());
  auto none = AuthenticateClientCertificate(Bundle(ca_).get(), {}, clock_.WallNow());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto no_ca = AuthenticateClientCertificate(nullptr, {leaf.Der()}, clock_.WallNow());
  ASSERT_TRUE(no_ca.ok());
  EXPECT_FALSE(no_ca->has_value());
}

TEST_F(X509Test, SubjectUidBecomesTheUserUid) {
  CertSpec s = Leaf("dave");
  s.uids = {"1234"};
  auto u =
      AuthenticateClientCertificate(Bundle(ca_).get(), {MakeCert(s, &ca_).Der()}, clock_.WallNow());
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ((*u)->uid, "1234");
  s.uids = {"1", "2"};
  auto two =
      AuthenticateClientCertificate(Bundle(ca_).get(), {MakeCert(s, &ca_).Der()}, clock_.WallNow());
  ASSERT_FALSE(two.ok());
  EXPECT_THAT(two.status().message(), HasSubstr("expected 1 UID, but found multiple: [1 2]"));
}

TEST_F(X509Test, GarbageChainIsAnError) {
  auto u =
      AuthenticateClientCertificate(Bundle(ca_).get(), {"not a certificate"}, clock_.WallNow());
  ASSERT_FALSE(u.ok());
  EXPECT_THAT(u.status().message(), HasSubstr("not a valid DER certificate"));
}

TEST(CABundle, ParsesBundlesAndRejectsGarbage) {
  auto a = MakeCA("a");
  auto b = MakeCA("b");
  auto both = CABundle::Parse("# comment\n" + a.Pem() + b.Pem(), "file \"ca.crt\"");
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ((*both)->size(), 2u);
  auto empty = CABundle::Parse("", "file \"empty.crt\"");
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("file \"empty.crt\": no PEM CERTIFICATE"));
  auto broken = CABundle::Parse("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
                                "file \"broken.crt\"");
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.status().message(), HasSubstr("malformed certificate 1"));
}

TEST(PemCertificatesToDer, RoundTrips) {
  auto a = MakeCA("a");
  auto der = PemCertificatesToDer(a.Pem());
  ASSERT_TRUE(der.ok()) << der.status();
  ASSERT_EQ(der->size(), 1u);
  EXPECT_EQ((*der)[0], a.Der());
}

}  // namespace
}  // namespace stowage::auth::x509_test
