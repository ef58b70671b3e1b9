#include "pkg/auth/x509.h"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <chrono>
#include <ctime>

#include "pkg/common/macros.h"

namespace stowage::auth {
namespace {

struct X509Deleter {
  void operator()(X509* x) const { X509_free(x); }
};
using X509Ptr = std::unique_ptr<X509, X509Deleter>;

struct StackDeleter {
  void operator()(STACK_OF(X509) * s) const { sk_X509_pop_free(s, X509_free); }
};
using X509StackPtr = std::unique_ptr<STACK_OF(X509), StackDeleter>;

struct StoreCtxDeleter {
  void operator()(X509_STORE_CTX* c) const { X509_STORE_CTX_free(c); }
};

struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};

// The oldest error of OpenSSL's queue as text, clearing the queue.
std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

StatusOr<X509Ptr> ParseDer(std::string_view der, size_t index) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
  X509* x = d2i_X509(nullptr, &p, static_cast<long>(der.size()));
  if (x == nullptr || p != reinterpret_cast<const unsigned char*>(der.data()) + der.size()) {
    X509_free(x);
    ERR_clear_error();
    return InvalidArgumentError("client certificate " + std::to_string(index) +
                                " of the presented chain is not a valid DER certificate");
  }
  return X509Ptr(x);
}

// "AB:CD:..." as Go's columnSeparatedHex prints key identifiers.
std::string ColonHex(const ASN1_OCTET_STRING* s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  if (s == nullptr) return out;
  const unsigned char* d = ASN1_STRING_get0_data(s);
  for (int i = 0; i < ASN1_STRING_length(s); ++i) {
    if (i > 0) out += ':';
    out += kHex[d[i] >> 4];
    out += kHex[d[i] & 0xf];
  }
  return out;
}

// upstream's certificateIdentifier: "SN=<decimal serial>, SKID=<hex>, AKID=<hex>".
std::string CertificateIdentifier(X509* x) {
  std::string serial = "?";
  if (BIGNUM* bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(x), nullptr)) {
    if (char* dec = BN_bn2dec(bn)) {
      serial = dec;
      OPENSSL_free(dec);
    }
    BN_free(bn);
  }
  return "SN=" + serial + ", SKID=" + ColonHex(X509_get0_subject_key_id(x)) +
         ", AKID=" + ColonHex(X509_get0_authority_key_id(x));
}

StatusOr<std::vector<X509Ptr>> ParsePemCertificates(std::string_view pem, std::string_view source) {
  std::unique_ptr<BIO, BioDeleter> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return InternalError(std::string(source) + ": " + OpenSslError());
  std::vector<X509Ptr> certs;
  ERR_clear_error();
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    certs.emplace_back(x);
  }
  unsigned long e = ERR_peek_last_error();
  bool clean_end = ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE;
  if (e != 0 && !clean_end) {
    return InvalidArgumentError(std::string(source) + ": malformed certificate " +
                                std::to_string(certs.size() + 1) + ": " + OpenSslError());
  }
  ERR_clear_error();
  if (certs.empty()) {
    return InvalidArgumentError(std::string(source) + ": no PEM CERTIFICATE block found");
  }
  return certs;
}

std::string Utf8(const ASN1_STRING* s) {
  unsigned char* out = nullptr;
  int n = ASN1_STRING_to_UTF8(&out, s);
  if (n < 0) {
    ERR_clear_error();
    return {};
  }
  std::string r(reinterpret_cast<char*>(out), static_cast<size_t>(n));
  OPENSSL_free(out);
  return r;
}

}  // namespace

struct CABundle::Store {
  X509_STORE* store = nullptr;
  ~Store() { X509_STORE_free(store); }
};

CABundle::CABundle(std::string pem, std::string source, std::unique_ptr<Store> store, size_t count)
    : pem_(std::move(pem)), source_(std::move(source)), store_(std::move(store)), count_(count) {}

CABundle::~CABundle() = default;

StatusOr<std::shared_ptr<const CABundle>> CABundle::Parse(std::string_view pem,
                                                          std::string_view source) {
  ASSIGN_OR_RETURN(std::vector<X509Ptr> certs, ParsePemCertificates(pem, source));
  auto store = std::make_unique<Store>();
  store->store = X509_STORE_new();
  if (store->store == nullptr) return InternalError(std::string(source) + ": " + OpenSslError());
  for (const auto& c : certs) {
    // X509_STORE_add_cert takes its own reference; duplicates are harmless.
    if (X509_STORE_add_cert(store->store, c.get()) != 1) ERR_clear_error();
  }
  return std::shared_ptr<const CABundle>(
      new CABundle(std::string(pem), std::string(source), std::move(store), certs.size()));
}

Status CABundle::VerifyClientChain(const std::vector<std::string>& chain_der, WallTime now) const {
  if (chain_der.empty()) return InvalidArgumentError("no client certificate presented");
  ASSIGN_OR_RETURN(X509Ptr leaf, ParseDer(chain_der[0], 0));
  X509StackPtr untrusted(sk_X509_new_null());
  for (size_t i = 1; i < chain_der.size(); ++i) {
    ASSIGN_OR_RETURN(X509Ptr x, ParseDer(chain_der[i], i));
    sk_X509_push(untrusted.get(), x.release());
  }
  std::unique_ptr<X509_STORE_CTX, StoreCtxDeleter> ctx(X509_STORE_CTX_new());
  if (!ctx || X509_STORE_CTX_init(ctx.get(), store_->store, leaf.get(), untrusted.get()) != 1) {
    return InternalError("verifying certificate " + CertificateIdentifier(leaf.get()) +
                         " failed: " + OpenSslError());
  }
  // Every CA of the bundle is an anchor, as in a Go CertPool; the client-auth purpose checks
  // the extended key usage along the chain as Go's KeyUsages does.
  X509_STORE_CTX_set_flags(ctx.get(), X509_V_FLAG_PARTIAL_CHAIN);
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_CLIENT);
  X509_STORE_CTX_set_time(ctx.get(), 0,
                          static_cast<time_t>(std::chrono::system_clock::to_time_t(now)));
  if (X509_verify_cert(ctx.get()) != 1) {
    int err = X509_STORE_CTX_get_error(ctx.get());
    ERR_clear_error();
    return UnauthenticatedError("verifying certificate " + CertificateIdentifier(leaf.get()) +
                                " failed: x509: " + X509_verify_cert_error_string(err));
  }
  return OkStatus();
}

StatusOr<CertificateSubject> ParseCertificateSubject(std::string_view der) {
  ASSIGN_OR_RETURN(X509Ptr x, ParseDer(der, 0));
  CertificateSubject s;
  const X509_NAME* name = X509_get_subject_name(x.get());
  for (int i = 0; i < X509_NAME_entry_count(name); ++i) {
    const X509_NAME_ENTRY* e = X509_NAME_get_entry(name, i);
    int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
    const ASN1_STRING* v = X509_NAME_ENTRY_get_data(e);
    if (nid == NID_commonName) {
      s.common_name = Utf8(v);
    } else if (nid == NID_organizationName) {
      s.organizations.push_back(Utf8(v));
    } else if (nid == NID_userId) {
      s.uids.push_back(Utf8(v));
    }
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  if (EVP_Digest(der.data(), der.size(), md, &md_len, EVP_sha256(), nullptr) != 1) {
    return InternalError("hashing a client certificate: " + OpenSslError());
  }
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned int i = 0; i < md_len; ++i) {
    s.sha256_hex += kHex[md[i] >> 4];
    s.sha256_hex += kHex[md[i] & 0xf];
  }
  return s;
}

StatusOr<std::optional<UserInfo>> AuthenticateClientCertificate(
    const CABundle* ca, const std::vector<std::string>& chain_der, WallTime now) {
  if (chain_der.empty() || ca == nullptr) return std::optional<UserInfo>();
  RETURN_IF_ERROR(ca->VerifyClientChain(chain_der, now));
  ASSIGN_OR_RETURN(CertificateSubject s, ParseCertificateSubject(chain_der[0]));
  if (s.common_name.empty()) return std::optional<UserInfo>();
  UserInfo u;
  u.name = s.common_name;
  // The UID attribute (AllowParsingUserUIDFromCertAuth, on by default since 1.33).
  if (s.uids.size() > 1) {
    std::string all;
    for (const auto& id : s.uids) all += (all.empty() ? "" : " ") + id;
    return UnauthenticatedError("expected 1 UID, but found multiple: [" + all + "]");
  }
  if (s.uids.size() == 1) {
    if (s.uids[0].empty()) return UnauthenticatedError("UID cannot be an empty string");
    u.uid = s.uids[0];
  }
  u.groups = std::move(s.organizations);
  u.extra[std::string(kCredentialIdKey)] = {"X509SHA256=" + s.sha256_hex};
  return std::optional<UserInfo>(std::move(u));
}

StatusOr<std::vector<std::string>> PemCertificatesToDer(std::string_view pem) {
  ASSIGN_OR_RETURN(std::vector<X509Ptr> certs, ParsePemCertificates(pem, "PEM certificates"));
  std::vector<std::string> out;
  for (const auto& c : certs) {
    unsigned char* buf = nullptr;
    int n = i2d_X509(c.get(), &buf);
    if (n < 0) return InternalError("encoding a certificate: " + OpenSslError());
    out.emplace_back(reinterpret_cast<char*>(buf), static_cast<size_t>(n));
    OPENSSL_free(buf);
  }
  return out;
}

}  // namespace stowage::auth
