// TLS version and cipher-suite names as Kubernetes components spell them on the command line
// (--tls-min-version, --tls-cipher-suites; component-base/cli/flag/ciphersuites_flag.go), and
// their OpenSSL equivalents.
//
// Every name Go's crypto/tls knows is recognised, so a kube-scheduler flag value never fails as
// "unknown" here when upstream accepts it. stowage's policy (docs: hardening, secure port) is
// stricter than upstream's warning: TLS 1.2 suites must be ECDHE with an AEAD cipher, so the
// CBC suites and everything Go lists as insecure are refused with an error naming the suite.
// TLS 1.3 suite names are accepted and, as in Go, do not restrict TLS 1.3 (all its suites are
// AEAD). Pure functions over constant tables; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stowage/common/status.h"

namespace stowage::server {

enum class CipherSuiteClass {
  kTls13,     // a TLS 1.3 suite; not configurable, always enabled with TLS 1.3
  kAead,      // ECDHE + AES-GCM or ChaCha20-Poly1305: allowed
  kCbc,       // ECDHE + CBC: Go calls it secure, stowage refuses it (not AEAD)
  kInsecure,  // in Go's tls.InsecureCipherSuites(): RSA key exchange, RC4, 3DES, CBC-SHA256
};

struct CipherSuiteInfo {
  std::string_view go_name;       // e.g. "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
  std::string_view openssl_name;  // e.g. "ECDHE-RSA-AES128-GCM-SHA256"
  CipherSuiteClass cls;
};

// The entry for a Go/IANA suite name (including Go's legacy CHACHA20_POLY1305 aliases), or null.
const CipherSuiteInfo* FindCipherSuite(std::string_view go_name);

// The OpenSSL cipher list used for TLS 1.2 when --tls-cipher-suites is empty: the six ECDHE
// AEAD suites, preferring AES-GCM, then ChaCha20.
std::string DefaultTls12CipherList();

// The outcome of parsing --tls-cipher-suites.
struct CipherSelection {
  // The OpenSSL TLS 1.2 cipher list ("A:B:C"); empty when no TLS 1.2 suite was named, which
  // leaves TLS 1.2 clients without a suite (as in Go) — the server then requires TLS 1.3.
  std::string tls12_openssl_list;
  std::vector<std::string> tls13_names;  // accepted TLS 1.3 names (informational)
};

// Parses the suite names of --tls-cipher-suites. An empty list selects the default ECDHE AEAD
// suites. Errors name the first offending suite and say whether it is unknown or refused.
StatusOr<CipherSelection> ParseCipherSuites(const std::vector<std::string>& names);

// Parses --tls-min-version ("VersionTLS10".."VersionTLS13"; "" means the default, TLS 1.2) to an
// OpenSSL protocol version (TLS1_2_VERSION, ...). Unknown names are an error that lists the
// accepted ones. The result is the version as named; the TLS context raises anything below 1.2
// to 1.2 (see tls_context.h).
StatusOr<int> ParseTlsVersion(std::string_view name);

// "VersionTLS12" for TLS1_2_VERSION, and so on; "unknown" otherwise.
std::string_view TlsVersionName(int openssl_version);

}  // namespace stowage::server
