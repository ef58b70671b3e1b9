// Certificates made on the fly for TLS and auth tests (unit and integration): CAs, intermediates
// and client or server leaves with chosen subject, usage and validity, on P-256 keys. Header-only
// so both test binaries can use it; aborts the test binary on an OpenSSL failure (test setup only).
#pragma once

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace stowage::testing {

inline void CheckSsl(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "test certificate setup failed: %s\n", what);
    std::abort();
  }
}

enum class Usage { kClientAuth, kServerAuth, kNoExtendedUsage };

struct CertSpec {
  std::string common_name;
  std::vector<std::string> organizations;
  std::vector<std::string> uids;
  bool is_ca = false;
  Usage usage = Usage::kClientAuth;  // leaves only
  std::chrono::system_clock::time_point not_before =
      std::chrono::system_clock::now() - std::chrono::hours(1);
  std::chrono::system_clock::time_point not_after =
      std::chrono::system_clock::now() + std::chrono::hours(24);
  long serial = 1;
};

class TestCert {
 public:
  TestCert(X509* cert, EVP_PKEY* key) : cert_(cert, X509_free), key_(key, EVP_PKEY_free) {}

  X509* cert() const { return cert_.get(); }
  EVP_PKEY* key() const { return key_.get(); }

  std::string Der() const {
    unsigned char* buf = nullptr;
    int n = i2d_X509(cert_.get(), &buf);
    CheckSsl(n > 0, "i2d_X509");
    std::string out(reinterpret_cast<char*>(buf), static_cast<size_t>(n));
    OPENSSL_free(buf);
    return out;
  }
  std::string Pem() const {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
    CheckSsl(PEM_write_bio_X509(bio.get(), cert_.get()) == 1, "PEM_write_bio_X509");
    char* data = nullptr;
    long n = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<size_t>(n));
  }
  std::string KeyPem() const {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
    CheckSsl(
        PEM_write_bio_PrivateKey(bio.get(), key_.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1,
        "PEM_write_bio_PrivateKey");
    char* data = nullptr;
    long n = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<size_t>(n));
  }

 private:
  std::shared_ptr<X509> cert_;
  std::shared_ptr<EVP_PKEY> key_;
};

inline void AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  CheckSsl(ext != nullptr, "X509V3_EXT_conf_nid");
  CheckSsl(X509_add_ext(cert, ext, -1) == 1, "X509_add_ext");
  X509_EXTENSION_free(ext);
}

// A certificate for spec, signed by issuer (self-signed when issuer is null).
inline TestCert MakeCert(const CertSpec& spec, const TestCert* issuer = nullptr) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  CheckSsl(key != nullptr, "EVP_EC_gen");
  X509* x = X509_new();
  CheckSsl(x != nullptr, "X509_new");
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), spec.serial);
  ASN1_TIME_set(X509_getm_notBefore(x), std::chrono::system_clock::to_time_t(spec.not_before));
  ASN1_TIME_set(X509_getm_notAfter(x), std::chrono::system_clock::to_time_t(spec.not_after));
  X509_NAME* name = X509_get_subject_name(x);
  auto add = [&](const char* field, const std::string& v) {
    CheckSsl(X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                                        reinterpret_cast<const unsigned char*>(v.data()),
                                        static_cast<int>(v.size()), -1, 0) == 1,
             "X509_NAME_add_entry_by_txt");
  };
  for (const auto& o : spec.organizations) add("O", o);
  for (const auto& u : spec.uids) add("UID", u);
  if (!spec.common_name.empty()) add("CN", spec.common_name);
  X509_set_pubkey(x, key);
  X509* signer = issuer ? issuer->cert() : x;
  X509_set_issuer_name(x, X509_get_subject_name(signer));
  AddExtension(x, signer, NID_subject_key_identifier, "hash");
  if (issuer) AddExtension(x, signer, NID_authority_key_identifier, "keyid:always");
  if (spec.is_ca) {
    AddExtension(x, signer, NID_basic_constraints, "critical,CA:TRUE");
    AddExtension(x, signer, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
  } else {
    AddExtension(x, signer, NID_basic_constraints, "critical,CA:FALSE");
    AddExtension(x, signer, NID_key_usage, "critical,digitalSignature,keyEncipherment");
    if (spec.usage == Usage::kClientAuth) AddExtension(x, signer, NID_ext_key_usage, "clientAuth");
    if (spec.usage == Usage::kServerAuth) AddExtension(x, signer, NID_ext_key_usage, "serverAuth");
  }
  CheckSsl(X509_sign(x, issuer ? issuer->key() : key, EVP_sha256()) > 0, "X509_sign");
  return TestCert(x, key);
}

inline TestCert MakeCA(const std::string& cn, long serial = 1) {
  CertSpec s;
  s.common_name = cn;
  s.is_ca = true;
  s.serial = serial;
  // Valid from 2000 to a year from now: covers FakeClock's wall time and the real one.
  s.not_before = std::chrono::system_clock::time_point(std::chrono::seconds(946684800));
  s.not_after = std::chrono::system_clock::now() + std::chrono::hours(24 * 365);
  return MakeCert(s);
}

}  // namespace stowage::testing
