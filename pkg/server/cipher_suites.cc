// The Go-to-OpenSSL cipher-suite table and the --tls-min-version names.
#include "pkg/server/cipher_suites.h"

#include <openssl/tls1.h>

#include <array>

namespace stowage::server {
namespace {

using C = CipherSuiteClass;

// Go's tls.CipherSuites() and tls.InsecureCipherSuites() (Go 1.26), plus the two legacy names
// component-base keeps. OpenSSL names from the OpenSSL ciphers(1) mapping table.
constexpr std::array<CipherSuiteInfo, 27> kSuites = {{
    {"TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256", C::kTls13},
    {"TLS_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384", C::kTls13},
    {"TLS_CHACHA20_POLY1305_SHA256", "TLS_CHACHA20_POLY1305_SHA256", C::kTls13},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256", C::kAead},
    {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256", C::kAead},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384", C::kAead},
    {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384", C::kAead},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305", C::kAead},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305", C::kAead},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA-CHACHA20-POLY1305", C::kAead},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA-CHACHA20-POLY1305", C::kAead},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA", C::kCbc},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA", C::kCbc},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA", C::kCbc},
    {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA", C::kCbc},
    {"TLS_RSA_WITH_RC4_128_SHA", "RC4-SHA", C::kInsecure},
    {"TLS_RSA_WITH_3DES_EDE_CBC_SHA", "DES-CBC3-SHA", C::kInsecure},
    {"TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA", C::kInsecure},
    {"TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA", C::kInsecure},
    {"TLS_RSA_WITH_AES_128_CBC_SHA256", "AES128-SHA256", C::kInsecure},
    {"TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256", C::kInsecure},
    {"TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384", C::kInsecure},
    {"TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", "ECDHE-ECDSA-RC4-SHA", C::kInsecure},
    {"TLS_ECDHE_RSA_WITH_RC4_128_SHA", "ECDHE-RSA-RC4-SHA", C::kInsecure},
    {"TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "ECDHE-RSA-DES-CBC3-SHA", C::kInsecure},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA-AES128-SHA256", C::kInsecure},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA-AES128-SHA256", C::kInsecure},
}};

struct VersionName {
  std::string_view name;
  int version;
};
constexpr std::array<VersionName, 4> kVersions = {{
    {"VersionTLS10", TLS1_VERSION},
    {"VersionTLS11", TLS1_1_VERSION},
    {"VersionTLS12", TLS1_2_VERSION},
    {"VersionTLS13", TLS1_3_VERSION},
}};

void AppendUnique(std::string& list, std::string_view name) {
  // The legacy CHACHA20 aliases map to the same OpenSSL suite as the full names.
  std::string padded = ":" + list + ":";
  if (padded.find(":" + std::string(name) + ":") != std::string::npos) return;
  if (!list.empty()) list += ':';
  list += name;
}

}  // namespace

const CipherSuiteInfo* FindCipherSuite(std::string_view go_name) {
  for (const auto& s : kSuites) {
    if (s.go_name == go_name) return &s;
  }
  return nullptr;
}

std::string DefaultTls12CipherList() {
  return "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
         "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
         "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
}

StatusOr<CipherSelection> ParseCipherSuites(const std::vector<std::string>& names) {
  CipherSelection sel;
  if (names.empty()) {
    sel.tls12_openssl_list = DefaultTls12CipherList();
    return sel;
  }
  for (const auto& name : names) {
    const CipherSuiteInfo* info = FindCipherSuite(name);
    if (info == nullptr) {
      return InvalidArgumentError("--tls-cipher-suites: cipher suite " + name +
                                  " not supported or doesn't exist");
    }
    switch (info->cls) {
      case C::kTls13: sel.tls13_names.push_back(name); break;
      case C::kAead: AppendUnique(sel.tls12_openssl_list, info->openssl_name); break;
      case C::kCbc:
        return InvalidArgumentError("--tls-cipher-suites: cipher suite " + name +
                                    " is refused: TLS 1.2 suites must use ECDHE with an AEAD "
                                    "cipher (AES-GCM or ChaCha20-Poly1305)");
      case C::kInsecure:
        return InvalidArgumentError("--tls-cipher-suites: cipher suite " + name +
                                    " is refused as insecure (Go's tls.InsecureCipherSuites)");
    }
  }
  return sel;
}

StatusOr<int> ParseTlsVersion(std::string_view name) {
  if (name.empty()) return TLS1_2_VERSION;
  for (const auto& v : kVersions) {
    if (v.name == name) return v.version;
  }
  return InvalidArgumentError("--tls-min-version: unknown tls version \"" + std::string(name) +
                              "\"; accepted: VersionTLS10, VersionTLS11, VersionTLS12, "
                              "VersionTLS13");
}

std::string_view TlsVersionName(int openssl_version) {
  for (const auto& v : kVersions) {
    if (v.version == openssl_version) return v.name;
  }
  return "unknown";
}

}  // namespace stowage::server
