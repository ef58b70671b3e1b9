// ServingOptions: everything the secure port needs, as the kube flags describe it
// (--bind-address, --secure-port, --tls-*, --cert-dir), plus connection limits whose defaults
// follow Go's http.Server as apiserver configures it.
//
// Certificate choice (apiserver's MaybeDefaultWithSelfSignedCerts):
//   1. cert_file and key_file (both or neither): served, and re-read when they change.
//   2. else cert_dir set: <cert_dir>/<pair_name>.crt/.key; when neither exists they are generated
//      (self-signed, see self_signed.h) and written (dir 0755, cert 0644, key 0600); when only one
//      is readable that is an error. The files are then served as in 1.
//   3. else a self-signed certificate generated in memory.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pkg/server/serving_certificate.h"
#include "stowage/common/status.h"

namespace stowage::server {

struct ServingOptions {
  std::string bind_address = "0.0.0.0";  // an IP literal; "::" listens on IPv4 and IPv6
  uint16_t port = 10259;                 // 0 picks an ephemeral port (tests)

  std::string cert_file;  // --tls-cert-file
  std::string key_file;   // --tls-private-key-file
  std::string cert_dir;   // --cert-dir
  std::string pair_name = "kube-scheduler";
  std::string min_tls_version;             // --tls-min-version; "" = VersionTLS12
  std::vector<std::string> cipher_suites;  // --tls-cipher-suites (Go/IANA names)
  // Ask clients for a certificate (when client-cert authentication is configured).
  bool request_client_certs = false;
  // How often cert_file/key_file are checked for changes.
  std::chrono::milliseconds cert_reload_interval = std::chrono::seconds(5);

  // Connections open at once. At the limit a new connection evicts the connection that has
  // waited longest without sending a complete request (handshake, idle keep-alive, or headers
  // still arriving); when every connection is busy the new one is closed at once.
  size_t max_connections = 512;
  size_t max_header_bytes = 1 << 20;  // Go: MaxHeaderBytes 1 MiB; more → 431 and close
  size_t max_body_bytes = 1 << 20;    // more → 413 and close
  // Time to complete the TLS handshake, and then to receive a request's headers once its first
  // byte has arrived (Go: ReadHeaderTimeout 32 s).
  std::chrono::milliseconds read_header_timeout = std::chrono::seconds(32);
  std::chrono::milliseconds read_body_timeout = std::chrono::seconds(60);
  // Time a keep-alive connection may wait for its next request (Go: IdleTimeout 90 s).
  std::chrono::milliseconds idle_timeout = std::chrono::seconds(90);
  std::chrono::milliseconds write_timeout = std::chrono::seconds(60);
  // How long Shutdown() lets in-flight requests finish (kube: 5 s).
  std::chrono::milliseconds shutdown_grace = std::chrono::seconds(5);

  // Handler threads: requests run on a pool of up to handler_threads threads, except those whose
  // path is one of fast_lane_paths or below it ("/healthz/ping"), which run on their own pool of
  // fast_lane_threads so health probes answer while other handlers block (e.g. on TokenReview).
  size_t handler_threads = 8;
  size_t fast_lane_threads = 2;
  std::vector<std::string> fast_lane_paths = {"/healthz", "/livez", "/readyz"};
};

// Checks the options that need no I/O; errors name the option.
Status ValidateServingOptions(const ServingOptions& options);

// Builds the serving certificate the options describe (steps 1-3 above).
StatusOr<std::unique_ptr<ServingCertificate>> ResolveServingCertificate(
    const ServingOptions& options);

}  // namespace stowage::server
