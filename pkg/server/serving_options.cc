// Option validation and the certificate-choice rules of the secure port.
#include "pkg/server/serving_options.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "pkg/common/logging.h"

namespace stowage::server {
namespace {

bool CanOpen(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

Status WriteFileWithMode(const std::string& path, const std::string& data, mode_t mode) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return InternalError("creating the directory of " + path + ": " + ec.message());
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return InternalError("writing " + path + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      return InternalError("writing " + path + ": " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return InternalError("writing " + path + ": " + std::strerror(errno));
  return OkStatus();
}

}  // namespace

Status ValidateServingOptions(const ServingOptions& o) {
  unsigned char buf[16];
  if (inet_pton(AF_INET, o.bind_address.c_str(), buf) != 1 &&
      inet_pton(AF_INET6, o.bind_address.c_str(), buf) != 1) {
    return InvalidArgumentError("--bind-address: \"" + o.bind_address +
                                "\" is not a valid IP address");
  }
  if (o.cert_file.empty() != o.key_file.empty()) {
    return InvalidArgumentError(
        "--tls-cert-file and --tls-private-key-file must be set together (got cert \"" +
        o.cert_file + "\", key \"" + o.key_file + "\")");
  }
  if (!o.cert_dir.empty() && o.pair_name.empty()) {
    return InvalidArgumentError("a certificate pair name is required when --cert-dir is set");
  }
  if (o.max_connections == 0) return InvalidArgumentError("max_connections must be positive");
  if (o.handler_threads == 0 || o.fast_lane_threads == 0) {
    return InvalidArgumentError("handler_threads and fast_lane_threads must be positive");
  }
  if (o.max_header_bytes == 0) return InvalidArgumentError("max_header_bytes must be positive");
  if (o.cert_reload_interval.count() <= 0) {
    return InvalidArgumentError("cert_reload_interval must be positive");
  }
  return OkStatus();
}

StatusOr<std::unique_ptr<ServingCertificate>> ResolveServingCertificate(const ServingOptions& o) {
  auto settings = MakeTlsSettings(o.min_tls_version, o.cipher_suites, o.request_client_certs);
  if (!settings.ok()) return settings.status();
  if (!o.cert_file.empty() || !o.key_file.empty()) {
    return ServingCertificate::FromFiles(*settings, o.cert_file, o.key_file);
  }
  SelfSignedOptions self_signed = SelfSignedOptionsForBindAddress(o.bind_address);
  if (!o.cert_dir.empty()) {
    std::string cert_file = (std::filesystem::path(o.cert_dir) / (o.pair_name + ".crt")).string();
    std::string key_file = (std::filesystem::path(o.cert_dir) / (o.pair_name + ".key")).string();
    bool cert_ok = CanOpen(cert_file);
    bool key_ok = CanOpen(key_file);
    if (cert_ok != key_ok) {
      return FailedPreconditionError("error reading " + (cert_ok ? key_file : cert_file) +
                                     ", certificate and key must be supplied as a pair");
    }
    if (!cert_ok) {
      auto pem = GenerateSelfSignedCertKey(self_signed);
      if (!pem.ok()) return pem.status().WithPrefix("unable to generate self signed cert");
      Status s = WriteFileWithMode(cert_file, pem->cert_pem, 0644);
      if (s.ok()) s = WriteFileWithMode(key_file, pem->key_pem, 0600);
      if (!s.ok()) return s;
      LOG_INFO("Generated self-signed cert ({}, {})", cert_file, key_file);
    }
    return ServingCertificate::FromFiles(*settings, cert_file, key_file);
  }
  auto pem = GenerateSelfSignedCertKey(self_signed);
  if (!pem.ok()) return pem.status().WithPrefix("unable to generate self signed cert");
  LOG_INFO("Generated self-signed cert in-memory");
  return ServingCertificate::FromMemory(*settings, *pem, "Generated self signed cert");
}

}  // namespace stowage::server
