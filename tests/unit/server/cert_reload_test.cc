// Certificate files: served, replaced without a restart, a bad replacement ignored, and the
// --cert-dir generation rules.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "pkg/server/https_server.h"
#include "pkg/server/self_signed.h"
#include "pkg/server/serving_options.h"
#include "tests/unit/server/tls_test_client.h"

namespace stowage::server::cert_reload_test {
namespace {

using ::testing::HasSubstr;
using testing::TlsClient;

class CertReloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/stowage-server-XXXXXX";
    dir_ = mkdtemp(tmpl);
    cert_ = dir_ + "/tls.crt";
    key_ = dir_ + "/tls.key";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes the pair through a rename, as kubelet's atomic writer and cert-manager do.
  void WritePair(const CertKeyPem& pem) {
    std::ofstream(cert_ + ".tmp") << pem.cert_pem;
    std::ofstream(key_ + ".tmp") << pem.key_pem;
    std::filesystem::rename(cert_ + ".tmp", cert_);
    std::filesystem::rename(key_ + ".tmp", key_);
  }

  static CertKeyPem NewPem() {
    auto pem = GenerateSelfSignedCertKey(SelfSignedOptions{});
    EXPECT_TRUE(pem.ok()) << pem.status();
    return *pem;
  }

  static std::string ServedSerial(uint16_t port) {
    auto c = TlsClient::Connect(port);
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? (*c)->PeerSerialHex() : "";
  }

  // Polls (bounded) until the served serial differs from old; returns the last one seen.
  static std::string AwaitSerialChange(uint16_t port, const std::string& old) {
    std::string now = old;
    for (int i = 0; i < 300 && now == old; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      now = ServedSerial(port);
    }
    return now;
  }

  ServingOptions FileOptions() {
    ServingOptions o;
    o.bind_address = "127.0.0.1";
    o.port = 0;
    o.cert_file = cert_;
    o.key_file = key_;
    o.cert_reload_interval = std::chrono::milliseconds(50);
    return o;
  }

  std::string dir_, cert_, key_;
};

Handler Ok() {
  return [](const Request&) { return Response{}; };
}

TEST_F(CertReloadTest, ReplacedFilesAreServedToNewConnectionsWithoutRestart) {
  WritePair(NewPem());
  auto server = SecureServer::Start(FileOptions(), Ok());
  ASSERT_TRUE(server.ok()) << server.status();
  uint16_t port = (*server)->port();
  std::string first = ServedSerial(port);
  ASSERT_FALSE(first.empty());
  auto kept = TlsClient::Connect(port);  // an established connection keeps working
  ASSERT_TRUE(kept.ok());

  WritePair(NewPem());
  std::string second = AwaitSerialChange(port, first);
  EXPECT_NE(second, first);
  EXPECT_EQ((*kept)->PeerSerialHex(), first);
  auto r = (*kept)->Get("/");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, 200);

  // In-place rewrite (same inode) is noticed too.
  CertKeyPem third = NewPem();
  std::ofstream(key_, std::ios::trunc) << third.key_pem;
  std::ofstream(cert_, std::ios::trunc) << third.cert_pem;
  EXPECT_NE(AwaitSerialChange(port, second), second);
}

TEST_F(CertReloadTest, BadReplacementKeepsTheOldCertificate) {
  CertKeyPem good = NewPem();
  WritePair(good);
  auto server = SecureServer::Start(FileOptions(), Ok());
  ASSERT_TRUE(server.ok()) << server.status();
  uint16_t port = (*server)->port();
  std::string first = ServedSerial(port);

  // A key that does not belong to the certificate, then a certificate that is not PEM.
  CertKeyPem other = NewPem();
  WritePair({good.cert_pem, other.key_pem});
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // ten reload polls
  EXPECT_EQ(ServedSerial(port), first);
  WritePair({"not a certificate", good.key_pem});
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(ServedSerial(port), first);
  std::filesystem::remove(cert_);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(ServedSerial(port), first);

  // A good pair afterwards is picked up.
  WritePair(other);
  EXPECT_NE(AwaitSerialChange(port, first), first);
}

TEST_F(CertReloadTest, ReloadIfChangedReportsChangesDirectly) {
  CertKeyPem a = NewPem();
  WritePair(a);
  auto settings = MakeTlsSettings("", {}, false);
  auto sc = ServingCertificate::FromFiles(*settings, cert_, key_);
  ASSERT_TRUE(sc.ok()) << sc.status();
  TlsContextPtr before = (*sc)->Current();
  EXPECT_FALSE((*sc)->ReloadIfChanged());  // nothing changed
  WritePair(a);                            // new inode, same content: no new context
  EXPECT_FALSE((*sc)->ReloadIfChanged());
  EXPECT_EQ((*sc)->Current(), before);
  WritePair(NewPem());
  EXPECT_TRUE((*sc)->ReloadIfChanged());
  EXPECT_NE((*sc)->Current(), before);
  EXPECT_NE(ServedCertificateDer((*sc)->Current()), ServedCertificateDer(before));
}

TEST_F(CertReloadTest, StartFailsOnUnreadableOrMismatchedFiles) {
  auto missing = SecureServer::Start(FileOptions(), Ok());
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr(cert_));
  CertKeyPem a = NewPem(), b = NewPem();
  WritePair({a.cert_pem, b.key_pem});
  auto mismatch = SecureServer::Start(FileOptions(), Ok());
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(mismatch.status().message(), HasSubstr("does not match certificate " + cert_));
}

TEST_F(CertReloadTest, CertDirGeneratesThePairOnceAndReusesIt) {
  ServingOptions o;
  o.bind_address = "127.0.0.1";
  o.port = 0;
  o.cert_dir = dir_ + "/certs";
  auto server = SecureServer::Start(o, Ok());
  ASSERT_TRUE(server.ok()) << server.status();
  std::string crt = o.cert_dir + "/kube-scheduler.crt";
  std::string key = o.cert_dir + "/kube-scheduler.key";
  struct stat st;
  ASSERT_EQ(stat(crt.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  ASSERT_EQ(stat(key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string serial = ServedSerial((*server)->port());
  (*server)->Shutdown();

  auto again = SecureServer::Start(o, Ok());  // the files exist now: they are served as is
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(ServedSerial((*again)->port()), serial);
  (*again)->Shutdown();

  std::filesystem::remove(key);  // half a pair is an error, not a reason to regenerate
  auto half = SecureServer::Start(o, Ok());
  ASSERT_FALSE(half.ok());
  EXPECT_THAT(
      half.status().message(),
      HasSubstr("error reading " + key + ", certificate and key must be supplied as a pair"));
}

}  // namespace
}  // namespace stowage::server::cert_reload_test
